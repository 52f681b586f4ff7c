// The operations the type-erased passes apply to values whose dtype they
// learn only at run time (reverse mode adds cotangents, batching moves and
// broadcasts mapped axes, the partitioner gathers and sums parts).
//
// Each is a typed primitive application, and binding a primitive at a dtype
// instantiates its rules at that dtype. So these passes, which are ordinary
// functions compiled wherever their header is included, never bind anything
// themselves: they call through a table per dtype that the transform needing
// the operation fills from its own (template) entry point. A file that
// applies no transform compiles none of it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/dtype.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/graph/layout.hpp"

namespace jaxcc::graph {

struct ValueOps {
  // reverse mode (used by graph/interpret.hpp and fused regions' cotangents, fusion/program_primitive.hpp;
  // installed by every transform, tracing/trace_call.hpp)
  AnyArray (*add)(AnyArray const& a, AnyArray const& b) = nullptr;
  /// x summed over the dimensions along which an array of `shape` was broadcast to x's shape.
  AnyArray (*sum_to_shape)(AnyArray const& x, Shape const& shape) = nullptr;
  /// x summed over `axes` (reduce_sum).
  AnyArray (*reduce_sum)(AnyArray const& x, Axes const& axes) = nullptr;
  /// x converted to float dtype `to` (a complex x to a real dtype: its real part).
  AnyArray (*convert)(AnyArray const& x, DType to) = nullptr;
  /// Complex dtypes: the imaginary part, the conjugate, and re + i im of two
  /// real arrays of the complex dtype's parts (complex cotangents of fused
  /// regions that mix real and complex values).
  AnyArray (*imag)(AnyArray const& x) = nullptr;
  AnyArray (*conj)(AnyArray const& x) = nullptr;
  AnyArray (*make_complex)(AnyArray const& re, AnyArray const& im) = nullptr;
  // batching (installed by vmap, transforms/vmap.hpp)
  AnyArray (*move_axis)(AnyArray const& x, std::int64_t from, std::int64_t to) = nullptr;
  AnyArray (*broadcast_axis)(AnyArray const& x, std::int64_t size, std::int64_t at) = nullptr;
  /// Per example, on_true where pred holds: pred is (batch,), the cases are mapped at axis 0.
  AnyArray (*select)(Array<bool> const& pred, AnyArray const& on_true, AnyArray const& on_false) = nullptr;
  AnyArray (*stop_gradient)(AnyArray const& x) = nullptr;
  AnyArray (*sum_axis)(AnyArray const& x, std::int64_t axis) = nullptr;
  /// x clamped to [lo, hi] (integer dtypes).
  AnyArray (*clamp)(AnyArray const& x, std::int64_t lo, std::int64_t hi) = nullptr;
  /// Where x equals `value` (integer dtypes).
  Array<bool> (*equals)(AnyArray const& x, std::int64_t value) = nullptr;
  /// Whether any element along `axis` holds (bool).
  AnyArray (*any)(AnyArray const& x, std::int64_t axis) = nullptr;
  // sharding (installed by jit and shard_map; transforms/shard_map.hpp, sharding/partition.hpp)
  AnyArray (*zeros)(Shape const& shape) = nullptr;
  AnyArray (*scale)(AnyArray const& x, double factor) = nullptr;
  /// Partial results combined across the devices along a mesh axis (psum, pmax, pmin).
  AnyArray (*combine)(AnyArray const& x, std::string const& axis, PartialCombine how) = nullptr;
  /// This device's part of a value laid out as `from`, laid out as `to`.
  AnyArray (*reshard)(AnyArray const& x, Layout const& from, Layout const& to) = nullptr;
};

}  // namespace jaxcc::graph

namespace jaxcc::detail {
inline std::array<graph::ValueOps, dtype_count>& value_ops_tables() {
  static std::array<graph::ValueOps, dtype_count> tables;
  return tables;
}
}  // namespace jaxcc::detail

namespace jaxcc::graph {

/// The table of one dtype, to fill.
inline ValueOps& value_ops_of(DType dtype) { return detail::value_ops_tables()[static_cast<std::size_t>(dtype)]; }

/// Operation `op` of `dtype`'s table. A missing one is jaxcc's own bug: the
/// transform that reached the pass did not install what it uses.
template <class Op>
Op const& value_op(DType dtype, Op ValueOps::*op, std::string_view name) {
  auto const& f = value_ops_of(dtype).*op;
  if (!f)
    throw Error("internal error: no '" + std::string(name) + "' operation for dtype " + std::string(jaxcc::name(dtype)) +
                " was installed by the transform in use");
  return f;
}

/// The operations, called at the dtype of their (first) operand.
namespace values {
inline AnyArray add(AnyArray const& a, AnyArray const& b) { return value_op(a.dtype(), &ValueOps::add, "add")(a, b); }
inline AnyArray sum_to_shape(AnyArray const& x, Shape const& shape) {
  return value_op(x.dtype(), &ValueOps::sum_to_shape, "reduce_sum")(x, shape);
}
inline AnyArray reduce_sum(AnyArray const& x, Axes const& axes) {
  return value_op(x.dtype(), &ValueOps::reduce_sum, "reduce_sum")(x, axes);
}
inline AnyArray convert(AnyArray const& x, DType to) {
  return value_op(x.dtype(), &ValueOps::convert, "convert_element_type")(x, to);
}
inline AnyArray imag(AnyArray const& x) { return value_op(x.dtype(), &ValueOps::imag, "imag")(x); }
inline AnyArray conj(AnyArray const& x) { return value_op(x.dtype(), &ValueOps::conj, "conj")(x); }
/// re + i im, at the complex dtype `to`.
inline AnyArray make_complex(DType to, AnyArray const& re, AnyArray const& im) {
  return value_op(to, &ValueOps::make_complex, "complex")(re, im);
}
inline AnyArray move_axis(AnyArray const& x, std::int64_t from, std::int64_t to) {
  return value_op(x.dtype(), &ValueOps::move_axis, "move_axis")(x, from, to);
}
inline AnyArray broadcast_axis(AnyArray const& x, std::int64_t size, std::int64_t at) {
  return value_op(x.dtype(), &ValueOps::broadcast_axis, "broadcast_axis")(x, size, at);
}
inline AnyArray select(Array<bool> const& pred, AnyArray const& on_true, AnyArray const& on_false) {
  return value_op(on_true.dtype(), &ValueOps::select, "select")(pred, on_true, on_false);
}
inline AnyArray stop_gradient(AnyArray const& x) { return value_op(x.dtype(), &ValueOps::stop_gradient, "stop_gradient")(x); }
inline AnyArray sum_axis(AnyArray const& x, std::int64_t axis) { return value_op(x.dtype(), &ValueOps::sum_axis, "sum")(x, axis); }
inline AnyArray clamp(AnyArray const& x, std::int64_t lo, std::int64_t hi) {
  return value_op(x.dtype(), &ValueOps::clamp, "clamp")(x, lo, hi);
}
inline Array<bool> equals(AnyArray const& x, std::int64_t value) { return value_op(x.dtype(), &ValueOps::equals, "eq")(x, value); }
inline AnyArray any(AnyArray const& x, std::int64_t axis) { return value_op(x.dtype(), &ValueOps::any, "reduce_or")(x, axis); }
inline AnyArray zeros(DType dtype, Shape const& shape) { return value_op(dtype, &ValueOps::zeros, "zeros")(shape); }
inline AnyArray scale(AnyArray const& x, double factor) { return value_op(x.dtype(), &ValueOps::scale, "mul")(x, factor); }
inline AnyArray combine(AnyArray const& x, std::string const& axis, PartialCombine how) {
  return value_op(x.dtype(), &ValueOps::combine, "psum")(x, axis, how);
}
inline AnyArray reshard(AnyArray const& x, Layout const& from, Layout const& to) {
  return value_op(x.dtype(), &ValueOps::reshard, "reshard")(x, from, to);
}
}  // namespace values

}  // namespace jaxcc::graph
