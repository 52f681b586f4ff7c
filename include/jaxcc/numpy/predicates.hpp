// jax.numpy's comparisons of whole arrays: isclose (elementwise), allclose,
// array_equal, array_equiv (0-d Array<bool>) and isin (element's shape).
// isclose and allclose compare in the common floating dtype of their
// operands (integers and bool as float32, int64 as float64), as JAX's
// promote_args_inexact does; rtol and atol are converted to it.
#pragma once

#include <cstdint>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"

namespace jaxcc::numpy {

/// |a - b| <= atol + rtol * |b| elementwise, or a == b (equal infinities);
/// NaNs are close to each other only with `equal_nan`.
template <ArrayLike A, ArrayLike B>
Array<bool> isclose(A const& a, B const& b, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false) {
  using F = float_t<detail::binary_dtype_t<A, B>>;
  Array<F> const x = as_array(a).template astype<F>(), y = as_array(b).template astype<F>();
  auto const tolerance = static_cast<F>(atol) + static_cast<F>(rtol) * abs(y);
  Array<bool> const close = logical_or(x == y, logical_and(isfinite(y), abs(x - y) <= tolerance));
  if (!equal_nan) return close;
  return logical_or(close, logical_and(isnan(x), isnan(y)));
}

/// Whether every element of a is close to b's (isclose), as a 0-d bool.
template <ArrayLike A, ArrayLike B>
Array<bool> allclose(A const& a, B const& b, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false) {
  return all(isclose(a, b, rtol, atol, equal_nan));
}

/// Whether a1 and a2 have one shape and equal elements (NaNs equal with
/// `equal_nan`), as a 0-d bool; different shapes give false.
template <ArrayLike A, ArrayLike B>
Array<bool> array_equal(A const& a1, B const& a2, bool equal_nan = false) {
  auto const x = as_array(a1);
  auto const y = as_array(a2);
  if (x.shape() != y.shape()) return full<bool>(Shape{}, false);
  Array<bool> eq = x == y;
  if (equal_nan) eq = logical_or(eq, logical_and(isnan(x), isnan(y)));
  return all(eq);
}

/// Whether a1 and a2, broadcast together, are equal everywhere, as a 0-d
/// bool. Shapes that do not broadcast raise, as in JAX 0.10.2 (whose
/// documented `False` for them is never reached: the comparison raises
/// first).
template <ArrayLike A, ArrayLike B>
Array<bool> array_equiv(A const& a1, B const& a2) {
  return all(as_array(a1) == as_array(a2));
}

/// For each element, whether it equals one of test_elements (with `invert`,
/// whether it equals none), in element's shape. `assume_unique` changes
/// nothing here (JAX's default method compares every pair).
template <ArrayLike A, ArrayLike B>
Array<bool> isin(A const& element, B const& test_elements, bool assume_unique = false, bool invert = false) {
  (void)assume_unique;
  using T = detail::binary_dtype_t<A, B>;
  Array<T> const x = ravel(as_array(element).template astype<T>());
  Array<T> const y = ravel(as_array(test_elements).template astype<T>());
  auto const shape = as_array(element).shape();
  if (x.size() == 0 || y.size() == 0) return full<bool>(shape, invert);
  auto const column = reshape(x, Shape{x.size(), 1});
  auto const row = reshape(y, Shape{1, y.size()});
  Array<bool> const found = invert ? all(column != row, -1) : any(column == row, -1);
  return reshape(found, shape);
}

}  // namespace jaxcc::numpy
