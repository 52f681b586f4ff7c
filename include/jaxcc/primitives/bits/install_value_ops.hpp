// Filling the per-dtype tables of graph/value_ops.hpp. A transform calls
// graph::install_value_ops<Ops>() from its entry point with the operations
// it needs; the 16-bit floats' computing operations go through float32's,
// which needs the dtype-generic conversion primitive (float_convert.hpp):
// hence this header sits with the primitives, above graph/.
#pragma once

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/dtype.hpp"
#include "jaxcc/graph/value_ops.hpp"
#include "jaxcc/primitives/float_convert.hpp"

namespace jaxcc::detail {
template <class T>
AnyArray widened_to_float32(AnyArray const& x) {
  return float_converted(x, DType::float32);
}
template <class T>
AnyArray rounded_from_float32(AnyArray const& x) {
  return float_converted(x, dtype_of<T>);
}

/// The operations that compute (adding and summing cotangents, converting
/// them, selecting per example, summing a mapped axis), at a 16-bit float T: float32's, between
/// conversions. Each op of a 16-bit float is float32's rounded once, and a
/// selection or a sum of them computes in float32 too, so the values are
/// the same; but a transform then instantiates no rule at T, only the
/// dtype-generic conversion (primitives/float_convert.hpp), not every
/// operation's rules and what they bind in turn. Their equations show the
/// conversions, as XLA's CPU code has them.
template <class T>
void fill_through_float32(graph::ValueOps& ops) {
  auto const& float32 = graph::value_ops_of(DType::float32);
  if (float32.add)
    ops.add = [](AnyArray const& a, AnyArray const& b) -> AnyArray {
      auto const& f32 = graph::value_ops_of(DType::float32);
      return rounded_from_float32<T>(f32.add(widened_to_float32<T>(a), widened_to_float32<T>(b)));
    };
  if (float32.select)
    ops.select = [](Array<bool> const& pred, AnyArray const& on_true, AnyArray const& on_false) -> AnyArray {
      auto const& f32 = graph::value_ops_of(DType::float32);
      return rounded_from_float32<T>(f32.select(pred, widened_to_float32<T>(on_true), widened_to_float32<T>(on_false)));
    };
  if (float32.sum_axis)
    ops.sum_axis = [](AnyArray const& x, std::int64_t axis) -> AnyArray {
      return rounded_from_float32<T>(graph::value_ops_of(DType::float32).sum_axis(widened_to_float32<T>(x), axis));
    };
  if (float32.reduce_sum)
    ops.reduce_sum = [](AnyArray const& x, Axes const& axes) -> AnyArray {
      return rounded_from_float32<T>(graph::value_ops_of(DType::float32).reduce_sum(widened_to_float32<T>(x), axes));
    };
  if (float32.sum_to_shape)
    ops.sum_to_shape = [](AnyArray const& x, Shape const& shape) -> AnyArray {
      return rounded_from_float32<T>(graph::value_ops_of(DType::float32).sum_to_shape(widened_to_float32<T>(x), shape));
    };
  if (float32.convert)
    ops.convert = [](AnyArray const& x, DType to) -> AnyArray {
      AnyArray wide = widened_to_float32<T>(x);
      return to == DType::float32 ? wide : graph::value_ops_of(DType::float32).convert(wide, to);
    };
}
}  // namespace jaxcc::detail

namespace jaxcc::graph {

/// Fill every dtype's table with the operations of `Ops` (`Ops::fill<T>(table)`
/// for each element type T), once per program. Transforms call this from
/// their entry points, so only a file that applies the transform
/// instantiates the operations. At the 16-bit floats, reverse mode's and
/// batching's operations that compute (add, select, sum_axis) are left to
/// fill_through_float32; the mesh operations (detail::SpmdOps) stay native.
template <class Ops>
void install_value_ops() {
  static bool const installed = [] {
    Ops::template fill<bool>(value_ops_of(DType::bool_));
    Ops::template fill<std::int32_t>(value_ops_of(DType::int32));
    Ops::template fill<std::int64_t>(value_ops_of(DType::int64));
    Ops::template fill<float>(value_ops_of(DType::float32));
    Ops::template fill<double>(value_ops_of(DType::float64));
    Ops::template fill<std::uint32_t>(value_ops_of(DType::uint32));
    Ops::template fill<std::int8_t>(value_ops_of(DType::int8));
    Ops::template fill<std::uint8_t>(value_ops_of(DType::uint8));
    Ops::template fill<std::int16_t>(value_ops_of(DType::int16));
    Ops::template fill<bfloat16>(value_ops_of(DType::bfloat16));
    Ops::template fill<float16>(value_ops_of(DType::float16));
    Ops::template fill<std::complex<float>>(value_ops_of(DType::complex64));
    Ops::template fill<std::complex<double>>(value_ops_of(DType::complex128));
    detail::fill_through_float32<bfloat16>(value_ops_of(DType::bfloat16));
    detail::fill_through_float32<float16>(value_ops_of(DType::float16));
    return true;
  }();
  (void)installed;
}

}  // namespace jaxcc::graph
