// jax.numpy's 1-D convolution and cross-correlation: convolve and
// correlate, each one lax.conv_general_dilated of the longer input with
// the shorter (flipped for convolve), as JAX writes them, with the modes
// "full", "same" and "valid". Inputs are promoted to a floating dtype
// (float32 or float64: the convolution kernel's).
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/lax/convolution.hpp"
#include "jaxcc/numpy/rearrange.hpp"

namespace jaxcc::detail {

template <class T>
Array<T> conv1d(Array<T> x, Array<T> y, std::string_view mode, std::string_view op) {
  if (x.ndim() != 1 || y.ndim() != 1) throw_error(op, "() only support 1-dimensional inputs.");
  if (x.size() == 0 || y.size() == 0)
    throw_error(op, ": inputs cannot be empty, got shapes ", x.shape(), " and ", y.shape(), ".");
  bool reverse = false;
  if (x.shape()[0] < y.shape()[0]) {
    std::swap(x, y);
    reverse = op == "correlate";
  }
  if (op == "convolve") y = numpy::flip(y, 0);
  auto const n = y.shape()[0];
  std::pair<std::int64_t, std::int64_t> pad;
  if (mode == "valid") pad = {0, 0};
  else if (mode == "same") pad = {n / 2, n - n / 2 - 1};
  else if (mode == "full") pad = {n - 1, n - 1};
  else throw Error("mode must be one of ['full', 'same', 'valid']");
  auto const out = lax::conv_general_dilated(x.reshape({1, 1, -1}), y.reshape({1, 1, -1}), {1}, {pad}).reshape({-1});
  return reverse ? numpy::flip(out, 0) : out;
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// jnp.convolve: the discrete convolution of two non-empty 1-D arrays;
/// `mode` "full" (the default: length n + m - 1), "same" (max(n, m)) or
/// "valid" (max(n, m) - min(n, m) + 1).
template <ArrayLike A, ArrayLike V>
  requires std::floating_point<float_t<promote_t<value_type_t<A>, value_type_t<V>>>>
Array<float_t<promote_t<value_type_t<A>, value_type_t<V>>>> convolve(A const& a, V const& v,
                                                                     std::string_view mode = "full") {
  using T = float_t<promote_t<value_type_t<A>, value_type_t<V>>>;
  return detail::conv1d(as_array(a).template astype<T>(), as_array(v).template astype<T>(), mode, "convolve");
}

/// jnp.correlate: the cross-correlation c[k] = sum_n a[n + k] v[n] of two
/// non-empty 1-D arrays; `mode` "valid" by default, or "same" or "full".
template <ArrayLike A, ArrayLike V>
  requires std::floating_point<float_t<promote_t<value_type_t<A>, value_type_t<V>>>>
Array<float_t<promote_t<value_type_t<A>, value_type_t<V>>>> correlate(A const& a, V const& v,
                                                                      std::string_view mode = "valid") {
  using T = float_t<promote_t<value_type_t<A>, value_type_t<V>>>;
  return detail::conv1d(as_array(a).template astype<T>(), as_array(v).template astype<T>(), mode, "correlate");
}

}  // namespace jaxcc::numpy
