// jax.numpy's Bessel function and the window made of it: i0 (the modified
// Bessel function of the first kind of order 0, exp(|x|) bessel_i0e(|x|),
// with derivative 0 at 0 as JAX's rule) and kaiser (the Kaiser window).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "jaxcc/core/error.hpp"
#include "jaxcc/lax/special.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"

namespace jaxcc::numpy {

/// I_0(x); integers become floats.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> i0(A const& x) {
  using T = float_t<value_type_t<A>>;
  Array<T> const a = fusion::cast<T>(x);
  Array<T> const abs_x = abs(a);
  return exp(abs_x) * lax::bessel_i0e(abs_x);
}

/// The Kaiser window of M points with shape parameter beta:
/// i0(beta sqrt(1 - ((n - alpha) / alpha)^2)) / i0(beta), alpha = (M - 1) / 2;
/// M ones for M <= 1; M < 0 raises.
template <FloatElement T = float>
Array<T> kaiser(std::int64_t M, double beta) {
  if (M < 0) throw Error("kaiser: the window size M must be nonnegative, got " + std::to_string(M));
  if (M <= 1) return full<T>(Shape{M}, T(1));
  Array<T> const n = arange<T>(M);
  T const alpha = static_cast<T>(0.5 * static_cast<double>(M - 1));
  Array<T> const b = full<T>(Shape{}, static_cast<T>(beta));
  return i0(Array<T>(b * sqrt(T(1) - square((n - alpha) / alpha)))) / i0(b);
}

}  // namespace jaxcc::numpy
