// jax.numpy's NaN-ignoring reductions: nansum, nanprod, nanmax, nanmin,
// nanmean, nanvar, nanstd, nanargmax, nanargmin, nancumsum, nancumprod.
// Each is its plain reduction with the NaNs replaced by the reduction's
// identity (JAX's _nan_reduction), so grad, vmap and jit follow and a NaN
// gets a zero derivative. On integer and bool inputs they are the plain
// reductions. Results and dtypes are those of the plain reductions;
// nanmax / nanmin of all-NaN slices (without `initial`), nanmean and
// nanvar of slices with no non-NaN element are NaN; nanargmax / nanargmin
// of all-NaN slices are -1.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/numpy/cumulative.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"

namespace jaxcc::detail {

/// a with its NaNs replaced by `fill` (integers: a itself).
template <ArrayLike A>
Array<value_type_t<A>> nan_filled(A const& a, double fill) {
  using T = value_type_t<A>;
  auto const x = as_array(a);
  if constexpr (FloatElement<T>) return numpy::where(numpy::isnan(x), static_cast<compute_t<T>>(fill), x);
  else return x;
}

/// The number of non-NaN elements along `axis`, as F.
template <Element F, Element T>
Array<F> non_nan_count(Array<T> const& x, AxisArg const& axis, bool keepdims) {
  return numpy::sum(numpy::logical_not(numpy::isnan(x)), axis, keepdims).template astype<F>();
}

/// nanargmax / nanargmin: NaNs become -inf (+inf for argmin); -1 where all are NaN.
template <bool Max, ArrayLike A, class Axis>
Array<std::int32_t> nan_arg_reduce(A const& a, Axis axis, bool keepdims) {
  using T = value_type_t<A>;
  auto const x = as_array(a);
  auto const pick = [&](auto const& y) { return Max ? numpy::argmax(y, axis, keepdims) : numpy::argmin(y, axis, keepdims); };
  if constexpr (!FloatElement<T>) {
    return pick(x);
  } else {
    auto const nan = numpy::isnan(x);
    auto const inf = std::numeric_limits<compute_t<T>>::infinity();
    Array<T> const filled = numpy::where(nan, Max ? -inf : inf, x);
    AxisArg over;
    if constexpr (!std::same_as<Axis, none_t>) over = axis;
    auto const all_nan = numpy::all(nan, over, keepdims);
    return numpy::where(all_nan, std::int32_t{-1}, pick(filled));
  }
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// sum, NaNs counted as zero.
template <ArrayLike A>
auto nansum(A const& a, detail::AxisArg const& axis = {}, bool keepdims = false) {
  return sum(detail::nan_filled(a, 0), axis, keepdims);
}

/// prod, NaNs counted as one.
template <ArrayLike A>
auto nanprod(A const& a, detail::AxisArg const& axis = {}, bool keepdims = false) {
  return prod(detail::nan_filled(a, 1), axis, keepdims);
}

/// max ignoring NaNs: NaN where a slice is all NaN, unless `initial` takes part.
template <ArrayLike A>
Array<value_type_t<A>> nanmax(A const& a, detail::AxisArg const& axis = {}, bool keepdims = false,
                              std::optional<double> initial = std::nullopt) {
  using T = value_type_t<A>;
  auto const out = max(detail::nan_filled(a, -std::numeric_limits<double>::infinity()), axis, keepdims, initial);
  if constexpr (!FloatElement<T>) return out;
  else if (initial) return out;
  else return where(all(isnan(as_array(a)), axis, keepdims), std::numeric_limits<detail::compute_t<T>>::quiet_NaN(), out);
}

/// min ignoring NaNs: NaN where a slice is all NaN, unless `initial` takes part.
template <ArrayLike A>
Array<value_type_t<A>> nanmin(A const& a, detail::AxisArg const& axis = {}, bool keepdims = false,
                              std::optional<double> initial = std::nullopt) {
  using T = value_type_t<A>;
  auto const out = min(detail::nan_filled(a, std::numeric_limits<double>::infinity()), axis, keepdims, initial);
  if constexpr (!FloatElement<T>) return out;
  else if (initial) return out;
  else return where(all(isnan(as_array(a)), axis, keepdims), std::numeric_limits<detail::compute_t<T>>::quiet_NaN(), out);
}

/// The mean of the non-NaN elements (NaN where there are none).
template <ArrayLike A>
Array<float_t<value_type_t<A>>> nanmean(A const& a, detail::AxisArg const& axis = {}, bool keepdims = false) {
  using T = value_type_t<A>;
  if constexpr (!FloatElement<T>) {
    return mean(a, axis, keepdims);
  } else {
    auto const x = as_array(a);
    return nansum(x, axis, keepdims) / detail::non_nan_count<T>(x, axis, keepdims);
  }
}

/// The variance of the non-NaN elements, dividing by their count - ddof
/// (NaN where that is <= 0).
template <ArrayLike A>
Array<float_t<value_type_t<A>>> nanvar(A const& a, detail::AxisArg const& axis = {}, double ddof = 0,
                                        bool keepdims = false) {
  using F = float_t<value_type_t<A>>;
  if constexpr (detail::is_half_float<F>) {
    return nanvar(fusion::cast<float>(a), axis, ddof, keepdims).template astype<F>();
  } else {
    Array<F> const x = fusion::cast<F>(a);
    auto const nan = isnan(x);
    // The NaNs are zeroed after centering too, so that their derivative is zero (JAX's double where).
    Array<F> const centered = where(nan, F(0), x - nanmean(x, axis, true));
    auto const total = sum(Array<F>(square(centered)), axis, keepdims);
    Array<F> const normalizer = detail::non_nan_count<F>(x, axis, keepdims) - static_cast<F>(ddof);
    auto const empty = normalizer <= F(0);
    return where(empty, std::numeric_limits<F>::quiet_NaN(), total) / where(empty, F(1), normalizer);
  }
}

/// sqrt(nanvar(a, axis, ddof, keepdims)).
template <ArrayLike A>
Array<float_t<value_type_t<A>>> nanstd(A const& a, detail::AxisArg const& axis = {}, double ddof = 0,
                                        bool keepdims = false) {
  return sqrt(nanvar(a, axis, ddof, keepdims));
}

/// argmax ignoring NaNs along `axis`; -1 where all are NaN.
template <ArrayLike A>
Array<std::int32_t> nanargmax(A const& a, std::int64_t axis, bool keepdims = false) {
  return detail::nan_arg_reduce<true>(a, axis, keepdims);
}
/// argmax ignoring NaNs of the flattened array.
template <ArrayLike A>
Array<std::int32_t> nanargmax(A const& a, none_t = none, bool keepdims = false) {
  return detail::nan_arg_reduce<true>(a, none, keepdims);
}
/// argmin ignoring NaNs along `axis`; -1 where all are NaN.
template <ArrayLike A>
Array<std::int32_t> nanargmin(A const& a, std::int64_t axis, bool keepdims = false) {
  return detail::nan_arg_reduce<false>(a, axis, keepdims);
}
/// argmin ignoring NaNs of the flattened array.
template <ArrayLike A>
Array<std::int32_t> nanargmin(A const& a, none_t = none, bool keepdims = false) {
  return detail::nan_arg_reduce<false>(a, none, keepdims);
}

/// cumsum with NaNs counted as zero.
template <ArrayLike A>
auto nancumsum(A const& a, std::int64_t axis) {
  return cumsum(detail::nan_filled(a, 0), axis);
}
template <ArrayLike A>
auto nancumsum(A const& a, none_t = none) {
  return cumsum(detail::nan_filled(a, 0));
}
/// cumprod with NaNs counted as one.
template <ArrayLike A>
auto nancumprod(A const& a, std::int64_t axis) {
  return cumprod(detail::nan_filled(a, 1), axis);
}
template <ArrayLike A>
auto nancumprod(A const& a, none_t = none) {
  return cumprod(detail::nan_filled(a, 1));
}

}  // namespace jaxcc::numpy
