// The cumulative reductions along one axis: cumsum, cumprod, cummax, cummin
// (lax.cumsum and its siblings), each forward or, with `reverse`, from the
// end; and lax.associative_scan of one array under any associative function. The kernel runs each lane once, in order, in the operand's dtype
// (integers wrap); max and min propagate NaN, as lax.max does.
//
// Derivatives as JAX's: cumsum is linear and transposes to the reversed
// cumsum; the others differentiate as the parallel prefix scan of their
// combining op (primitives/bits/associative_scan.hpp), so zeros in cumprod
// and ties in cummax are handled as JAX handles them, to any order.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/associative_scan.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"

namespace jaxcc::detail {

/// What the cumulative primitives share; `Derived::combine_op` is the
/// elementwise op (add_p, mul_p, max_p, min_p) they accumulate with.
template <class Derived>
struct CumulativeReduction {
  struct Params {
    std::int64_t axis;  // non-negative
    bool reverse = false;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    if constexpr (std::same_as<T, bool>)
      throw_error(Derived::name, " does not accept dtype bool. Accepted dtypes are subtypes of number.");
    if (p.axis < 0 || p.axis >= x.ndim())
      throw_error("axis ", p.axis, " is out of bounds for array of shape ", x.shape());
    return x.shape();
  }
  static std::string params_string(Params const& p) {
    return "axis=" + std::to_string(p.axis) + " reverse=" + (p.reverse ? "True" : "False");
  }

  /// The mapped axis stays where it is; the scanned axis steps over it.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x) {
    auto const b = *dims[0];
    return {jaxcc::detail::bind<Derived>({p.axis >= b ? p.axis + 1 : p.axis, p.reverse}, x), b};
  }

  /// Sharded jit: lanes run where they are; a split scanned axis is gathered first.
  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& x) {
    return whole_along(p.axis, layouts[0], reshard, x, [&](Array<T> const& part) { return jaxcc::detail::bind<Derived>(p, part); });
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    auto [out, out_data] = allocate<T>(out_shape);
    T* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    auto const axis = static_cast<std::size_t>(p.axis);
    auto const n = x.shape()[axis];
    auto const in_stride = x.strides()[axis];
    auto const out_stride = out.strides()[axis];
    // Signed integers sum and multiply as unsigned ones: they wrap, as
    // XLA's do, without overflow.
    using combine_op = typename Derived::combine_op;
    constexpr bool wraps = std::is_integral_v<T> && std::is_signed_v<T> &&
                           (std::same_as<combine_op, primitives::add_p> || std::same_as<combine_op, primitives::mul_p>);
    using Acc = typename std::conditional_t<wraps, std::make_unsigned<T>, std::type_identity<T>>::type;
    T const* data = x.data();
    // x's whole shape: an empty axis (n = 0) has no lanes to run.
    for_each_lane<2>(x.shape(), axis, {x.strides(), out.strides()}, [&](auto const& at) {
      auto const first = p.reverse ? n - 1 : 0;
      auto const step = p.reverse ? -1 : 1;
      Acc acc = static_cast<Acc>(data[at[0] + first * in_stride]);
      dst[at[1] + first * out_stride] = static_cast<T>(acc);
      for (std::int64_t k = 1, i = first + step; k < n; ++k, i += step) {
        acc = combine_op::scalar(acc, static_cast<Acc>(data[at[0] + i * in_stride]));
        dst[at[1] + i * out_stride] = static_cast<T>(acc);
      }
    });
    return out;
  }
};

/// A cumulative reduction other than cumsum: differentiated as the prefix
/// scan of its combining op.
template <class Derived>
struct ScanDifferentiated : CumulativeReduction<Derived> {
  using Params = typename CumulativeReduction<Derived>::Params;
  template <Element T>
  static Array<T> expand(Params const& p, Array<T> const& x) {
    auto const combine = [](Array<T> const& a, Array<T> const& b) -> Array<T> {
      return fusion::ex<typename Derived::combine_op>(a, b);
    };
    return associative_scan(combine, x, p.axis, p.reverse);
  }
};

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct cumsum_p : detail::CumulativeReduction<cumsum_p> {
  static constexpr std::string_view name = "cumsum";
  using combine_op = add_p;
  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    return detail::bind<cumsum_p>(p, t);
  }
  /// The transpose of a running sum is the running sum from the other end.
  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const&) {
    return detail::bind<cumsum_p>({p.axis, !p.reverse}, ct);
  }
};

struct cumprod_p : detail::ScanDifferentiated<cumprod_p> {
  static constexpr std::string_view name = "cumprod";
  using combine_op = mul_p;
};

struct cummax_p : detail::ScanDifferentiated<cummax_p> {
  static constexpr std::string_view name = "cummax";
  using combine_op = max_p;
};

struct cummin_p : detail::ScanDifferentiated<cummin_p> {
  static constexpr std::string_view name = "cummin";
  using combine_op = min_p;
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// lax.cumsum: running sums along `axis` (non-negative), from the end with `reverse`.
template <ArrayLike A>
Array<value_type_t<A>> cumsum(A const& operand, std::int64_t axis = 0, bool reverse = false) {
  return detail::bind<primitives::cumsum_p>({axis, reverse}, as_array(operand));
}
/// lax.cumprod: running products.
template <ArrayLike A>
Array<value_type_t<A>> cumprod(A const& operand, std::int64_t axis = 0, bool reverse = false) {
  return detail::bind<primitives::cumprod_p>({axis, reverse}, as_array(operand));
}
/// lax.cummax: running maxima (NaN propagates).
template <ArrayLike A>
Array<value_type_t<A>> cummax(A const& operand, std::int64_t axis = 0, bool reverse = false) {
  return detail::bind<primitives::cummax_p>({axis, reverse}, as_array(operand));
}
/// lax.cummin: running minima (NaN propagates).
template <ArrayLike A>
Array<value_type_t<A>> cummin(A const& operand, std::int64_t axis = 0, bool reverse = false) {
  return detail::bind<primitives::cummin_p>({axis, reverse}, as_array(operand));
}

/// lax.associative_scan of one array: the inclusive scan of `elems` along
/// `axis` (negative counts from the end) under `fn(a, b)`, which must be
/// associative (not commutative): element i is fn(...fn(x0, x1)..., xi), or
/// with `reverse` fn(...fn(x[n-1], x[n-2])..., xi). JAX's parallel prefix
/// algorithm, so fn is applied to whole strided slices, O(log n) times deep.
template <class Fn, ArrayLike A>
Array<value_type_t<A>> associative_scan(Fn const& fn, A const& elems, bool reverse = false, std::int64_t axis = 0) {
  using T = value_type_t<A>;
  auto const x = as_array(elems);
  auto const combine = [&fn](Array<T> const& a, Array<T> const& b) -> Array<T> { return fn(a, b); };
  return detail::associative_scan(combine, x, detail::normalize_axis(axis, x.ndim(), "associative_scan"), reverse);
}

}  // namespace jaxcc::lax
