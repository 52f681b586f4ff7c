// argmax / argmin along one axis, with int32 indices (JAX's default int).
// The first occurrence of the extremum wins, and a NaN counts as the
// extremum, so the first NaN wins, as in numpy and lax.argmax. Each row is
// scanned twice: a SIMD max (or min) fold that propagates NaN, then a search
// for the first element equal to it, which stops there.
//
// The integer outputs carry no tangent and give the operand no cotangent
// (JAX's defjvp_zero), so argmax inside a differentiated function is fine.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/integer_valued.hpp"
#include "jaxcc/primitives/reduce.hpp"

namespace jaxcc::detail {

/// Index of the first extremum of a contiguous, non-empty row; `Reduce` is
/// reduce_max_p or reduce_min_p.
template <class Reduce, Element T>
std::int32_t arg_extremum(T const* row, std::int64_t n) {
  Folder<typename Reduce::monoid, T> folder(Reduce::template identity<T>());
  folder.fold(row, n);
  T const best = folder.result();
  std::int64_t i = 0;
  if constexpr (is_float<T>) {
    if (best != best) {  // a NaN: find the first one
      while (row[i] == row[i]) ++i;
      return static_cast<std::int32_t>(i);
    }
  }
  while (!(row[i] == best)) ++i;
  return static_cast<std::int32_t>(i);
}

/// What argmax_p and argmin_p share; each adds its name and the reduction
/// (`extremum`) whose result it locates.
template <class Derived>
struct ArgReduction : IntegerValued {
  struct Params {
    std::int64_t axis;  // non-negative
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    auto const& shape = x.shape();
    if (p.axis < 0 || p.axis >= x.ndim()) {
      std::ostringstream os;
      os << Derived::name << ": Invalid axis " << p.axis << " for operand shape " << shape;
      throw Error(os.str());
    }
    auto const axis = static_cast<std::size_t>(p.axis);
    if (shape[axis] < 1) {
      std::ostringstream os;
      os << Derived::name << ": argmin and argmax require non-empty reduced dimension. operand.shape=" << shape
         << " axis=" << p.axis;
      throw Error(os.str());
    }
    Shape out;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (d != axis) out.push_back(shape[d]);
    return out;
  }

  /// make_jaxpr's `argmax[axes=(1,) index_dtype=int32]`.
  static std::string params_string(Params const& p) {
    return "axes=(" + std::to_string(p.axis) + ",) index_dtype=int32";
  }

  /// The mapped axis stays; the reduced axis steps over it (JAX's defreducer).
  template <Element T>
  static std::pair<Array<std::int32_t>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                               std::span<graph::BatchDim const> dims,
                                                               Array<T> const& x) {
    auto const b = *dims[0];
    return {jaxcc::detail::bind<Derived>(Params{p.axis >= b ? p.axis + 1 : p.axis}, x), p.axis < b ? b - 1 : b};
  }

  template <Element T>
  static Array<std::int32_t> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    auto [out, out_data] = allocate<std::int32_t>(out_shape);
    std::int32_t* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    auto const axis = static_cast<std::size_t>(p.axis);
    auto const n = x.shape()[axis];
    if (out.size() == 0) return out;
    if (n == 1) {
      std::fill_n(dst, out.size(), 0);
      return out;
    }
    // View the axis as the innermost dimension; copy when it is not
    // contiguous there, so every row is a contiguous run.
    Shape shape;
    Strides strides;
    for (std::size_t d = 0; d < x.shape().size(); ++d)
      if (d != axis) {
        shape.push_back(x.shape()[d]);
        strides.push_back(x.strides()[d]);
      }
    shape.push_back(n);
    strides.push_back(x.strides()[axis]);
    auto rows = view(x, shape, strides, offset_of(x));
    if (rows.strides().back() != 1) rows = contiguous(rows);

    // The output does not move along the axis (stride 0), so each row of the
    // walk below is one input row and one output element.
    auto out_strides = contiguous_strides(out_shape);
    out_strides.push_back(0);
    auto const layout = merge_dimensions<2>(rows.shape(), {rows.strides(), out_strides});
    T const* data = rows.data();
    for_each_row(layout, [&](auto const& offsets, std::int64_t len, auto const&) {
      dst[offsets[1]] = arg_extremum<typename Derived::extremum>(data + offsets[0], len);
    });
    return out;
  }
};

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct argmax_p : detail::ArgReduction<argmax_p> {
  static constexpr std::string_view name = "argmax";
  using extremum = reduce_max_p;
};

struct argmin_p : detail::ArgReduction<argmin_p> {
  static constexpr std::string_view name = "argmin";
  using extremum = reduce_min_p;
};

}  // namespace jaxcc::primitives
