// jax.numpy's quantile, median, percentile and their NaN-ignoring forms
// (nanquantile, nanmedian, nanpercentile: each slice's non-NaN elements,
// sorted, are indexed by their count). quantile and median are as JAX
// computes them: the data sorted along the axis (a NaN anywhere along it
// makes that result NaN), then the elements at floor and ceil of
// q * (n - 1), combined by `method`:
// "linear" (default) interpolates, "lower" / "higher" take one of them,
// "nearest" the lower one up to a weight of 0.5, "midpoint" their mean.
// Integers are computed as float32 (int64 as float64). q is a number or an
// array of rank <= 1, whose axis then comes first in the result. Sort and
// gather carry the derivatives.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/numpy/sorting.hpp"

namespace jaxcc::detail {

/// q as an array of T: a number becomes a 0-d array.
template <Element T, class Q>
Array<T> as_quantiles(Q const& q) {
  if constexpr (Scalar<Q>) {
    auto [out, data] = allocate<T>(Shape{});
    data[0] = static_cast<T>(q);
    return out;
  } else {
    return as_array(q).template astype<T>();
  }
}

inline void check_quantile_method(std::string_view method) {
  if (method == "inverted_cdf") throw Error("quantile: method 'inverted_cdf' is not implemented in jaxcc");
  if (method != "linear" && method != "lower" && method != "higher" && method != "midpoint" && method != "nearest")
    throw Error("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or 'inverted_cdf'");
}

template <ArrayLike A, ArrayLike Q>
Array<float_t<value_type_t<A>>> quantile_along(A const& a, Q const& q, std::optional<std::int64_t> axis,
                                               std::string_view method, bool keepdims) {
  using T = float_t<value_type_t<A>>;
  check_quantile_method(method);
  Array<T> x = as_array(a).template astype<T>();
  Array<T> const qs = as_array(q).template astype<T>();
  if (qs.ndim() > 1) throw_error("q must be have rank <= 1, got shape ", qs.shape());
  Shape kept = x.shape();
  std::int64_t ax = 0;
  if (axis) {
    ax = normalize_axis(*axis, x.ndim(), "quantile");
    kept[static_cast<std::size_t>(ax)] = 1;
  } else {
    for (auto& d : kept) d = 1;
    x = numpy::ravel(x);
  }
  auto const n = x.shape()[static_cast<std::size_t>(ax)];
  if (n == 0) throw_error("quantile: cannot take a quantile of an empty axis, shape ", x.shape());
  // A NaN anywhere along the axis makes every quantile of it NaN.
  x = numpy::where(numpy::any(numpy::isnan(x), ax, true), std::numeric_limits<T>::quiet_NaN(), x);
  auto const sorted = numpy::sort(x, ax);

  Array<T> const position = qs * static_cast<T>(n - 1);
  Array<T> const low = numpy::floor(position), high = numpy::ceil(position);
  Array<T> const high_weight = position - low;
  Array<T> const low_weight = T(1) - high_weight;
  auto const index = [&](Array<T> const& at) {
    return Array<T>(numpy::clip(at, T(0), static_cast<T>(n - 1))).template astype<std::int32_t>();
  };
  // take puts q's axis (if any) where the data's axis was: move it first.
  auto const values_at = [&](Array<T> const& at) {
    auto values = numpy::take(sorted, index(at), ax);
    if (qs.ndim() == 1) values = numpy::moveaxis(values, ax, 0);
    return values;
  };
  Array<T> const low_value = values_at(low), high_value = values_at(high);
  // The weights line up with q's axis, which comes first.
  auto const weight = [&](Array<T> const& w) {
    if (qs.ndim() == 0) return w;
    Shape shape(low_value.shape().size(), 1);
    shape[0] = qs.shape()[0];
    return numpy::reshape(w, shape);
  };
  Array<T> result;
  if (method == "linear") result = low_value * weight(low_weight) + high_value * weight(high_weight);
  else if (method == "lower") result = low_value;
  else if (method == "higher") result = high_value;
  else if (method == "nearest") result = numpy::where(weight(high_weight) <= T(0.5), low_value, high_value);
  else result = (low_value + high_value) * T(0.5);
  if (!keepdims) return result;
  Shape shape = qs.shape();
  shape.insert(shape.end(), kept.begin(), kept.end());
  return numpy::reshape(result, shape);
}

/// One quantile q (0-d) of each slice along `ax` of `sorted` (NaNs last),
/// ignoring the NaNs: `counts` of non-NaN elements per slice (keepdims
/// shape). The result keeps `ax` with size 1 (JAX's squash_nans path).
template <Element T>
Array<T> nan_quantile_one(Array<T> const& sorted, Array<T> const& counts, Array<T> const& q, std::int64_t ax,
                          std::string_view method) {
  Array<T> const last = counts - T(1);
  Array<T> const position = q * last;
  Array<T> const low = numpy::floor(position), high = numpy::ceil(position);
  Array<T> const high_weight = position - low;
  auto const value_at = [&](Array<T> const& at) {
    Array<T> const clamped = numpy::maximum(numpy::minimum(at, last), T(0));
    return numpy::take_along_axis(sorted, clamped.template astype<std::int32_t>(), ax);
  };
  Array<T> const low_value = value_at(low), high_value = value_at(high);
  if (method == "linear") return low_value * (T(1) - high_weight) + high_value * high_weight;
  if (method == "lower") return low_value;
  if (method == "higher") return high_value;
  if (method == "nearest") return numpy::where(high_weight <= T(0.5), low_value, high_value);
  return (low_value + high_value) * T(0.5);
}

template <Element T>
Array<T> nan_quantile_along(Array<T> x, Array<T> const& qs, std::optional<std::int64_t> axis,
                            std::string_view method, bool keepdims) {
  check_quantile_method(method);
  if (qs.ndim() > 1) throw_error("q must be have rank <= 1, got shape ", qs.shape());
  Shape kept = x.shape();
  std::int64_t ax = 0;
  if (axis) {
    ax = normalize_axis(*axis, x.ndim(), "nanquantile");
    kept[static_cast<std::size_t>(ax)] = 1;
  } else {
    for (auto& d : kept) d = 1;
    x = numpy::ravel(x);
  }
  if (x.shape()[static_cast<std::size_t>(ax)] == 0)
    throw_error("nanquantile: cannot take a quantile of an empty axis, shape ", x.shape());
  // The NaNs become a constant, as JAX's where does: they get no derivative.
  x = numpy::where(numpy::isnan(x), std::numeric_limits<T>::quiet_NaN(), x);
  auto const sorted = numpy::sort(x, ax);
  Array<T> const counts = numpy::sum(numpy::logical_not(numpy::isnan(x)), ax, true).template astype<T>();
  Shape dropped = x.shape();
  dropped.erase(dropped.begin() + ax);
  auto const one = [&](Array<T> const& q) {
    return numpy::reshape(nan_quantile_one(sorted, counts, q, ax, method), keepdims ? kept : dropped);
  };
  if (qs.ndim() == 0) return one(qs);
  std::vector<Array<T>> each;
  for (std::int64_t i = 0; i < qs.size(); ++i) each.push_back(one(numpy::reshape(lax::slice(qs, {i}, {i + 1}), Shape{})));
  return numpy::stack(each, 0);
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// The q-th quantile(s) of `a` along `axis` (q in [0, 1]: a number, or an
/// array of rank <= 1 whose axis comes first in the result).
template <ArrayLike A, class Q>
  requires ArrayLike<Q> || Scalar<Q>
Array<float_t<value_type_t<A>>> quantile(A const& a, Q const& q, std::int64_t axis, std::string_view method = "linear",
                                         bool keepdims = false) {
  return detail::quantile_along(a, detail::as_quantiles<float_t<value_type_t<A>>>(q), axis, method, keepdims);
}
/// The q-th quantile(s) of the flattened `a`.
template <ArrayLike A, class Q>
  requires ArrayLike<Q> || Scalar<Q>
Array<float_t<value_type_t<A>>> quantile(A const& a, Q const& q, none_t = none, std::string_view method = "linear",
                                         bool keepdims = false) {
  return detail::quantile_along(a, detail::as_quantiles<float_t<value_type_t<A>>>(q), std::nullopt, method, keepdims);
}

/// The median along `axis`: quantile 0.5 by "midpoint", as JAX's.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> median(A const& a, std::int64_t axis, bool keepdims = false) {
  return quantile(a, 0.5, axis, "midpoint", keepdims);
}
/// The median of the flattened `a`.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> median(A const& a, none_t = none, bool keepdims = false) {
  return quantile(a, 0.5, none, "midpoint", keepdims);
}

/// The q-th percentile(s) (q in [0, 100]): quantile(a, q / 100, ...).
template <ArrayLike A, class Q>
  requires ArrayLike<Q> || Scalar<Q>
Array<float_t<value_type_t<A>>> percentile(A const& a, Q const& q, std::int64_t axis,
                                           std::string_view method = "linear", bool keepdims = false) {
  using T = float_t<value_type_t<A>>;
  return detail::quantile_along(a, Array<T>(detail::as_quantiles<T>(q) / T(100)), axis, method, keepdims);
}
template <ArrayLike A, class Q>
  requires ArrayLike<Q> || Scalar<Q>
Array<float_t<value_type_t<A>>> percentile(A const& a, Q const& q, none_t = none, std::string_view method = "linear",
                                           bool keepdims = false) {
  using T = float_t<value_type_t<A>>;
  return detail::quantile_along(a, Array<T>(detail::as_quantiles<T>(q) / T(100)), std::nullopt, method, keepdims);
}

/// quantile ignoring NaNs: each slice's quantile of its non-NaN elements
/// (NaN where there are none).
template <ArrayLike A, class Q>
  requires ArrayLike<Q> || Scalar<Q>
Array<float_t<value_type_t<A>>> nanquantile(A const& a, Q const& q, std::int64_t axis,
                                            std::string_view method = "linear", bool keepdims = false) {
  using T = float_t<value_type_t<A>>;
  return detail::nan_quantile_along<T>(as_array(a).template astype<T>(), detail::as_quantiles<T>(q), axis, method,
                                       keepdims);
}
template <ArrayLike A, class Q>
  requires ArrayLike<Q> || Scalar<Q>
Array<float_t<value_type_t<A>>> nanquantile(A const& a, Q const& q, none_t = none, std::string_view method = "linear",
                                            bool keepdims = false) {
  using T = float_t<value_type_t<A>>;
  return detail::nan_quantile_along<T>(as_array(a).template astype<T>(), detail::as_quantiles<T>(q), std::nullopt,
                                       method, keepdims);
}

/// percentile ignoring NaNs: nanquantile(a, q / 100, ...).
template <ArrayLike A, class Q>
  requires ArrayLike<Q> || Scalar<Q>
Array<float_t<value_type_t<A>>> nanpercentile(A const& a, Q const& q, std::int64_t axis,
                                              std::string_view method = "linear", bool keepdims = false) {
  using T = float_t<value_type_t<A>>;
  return nanquantile(a, Array<T>(detail::as_quantiles<T>(q) / T(100)), axis, method, keepdims);
}
template <ArrayLike A, class Q>
  requires ArrayLike<Q> || Scalar<Q>
Array<float_t<value_type_t<A>>> nanpercentile(A const& a, Q const& q, none_t = none,
                                              std::string_view method = "linear", bool keepdims = false) {
  using T = float_t<value_type_t<A>>;
  return nanquantile(a, Array<T>(detail::as_quantiles<T>(q) / T(100)), none, method, keepdims);
}

/// The median of the non-NaN elements along `axis` (nanquantile 0.5 by
/// "midpoint", as JAX's).
template <ArrayLike A>
Array<float_t<value_type_t<A>>> nanmedian(A const& a, std::int64_t axis, bool keepdims = false) {
  return nanquantile(a, 0.5, axis, "midpoint", keepdims);
}
template <ArrayLike A>
Array<float_t<value_type_t<A>>> nanmedian(A const& a, none_t = none, bool keepdims = false) {
  return nanquantile(a, 0.5, none, "midpoint", keepdims);
}

}  // namespace jaxcc::numpy
