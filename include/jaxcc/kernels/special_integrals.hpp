// Scalar kernels of jax.scipy.special's exponential integrals and of
// log_ndtr, in the operand's precision (T = float or double): Ei(x) (expi)
// by its power series up to 40 and its asymptotic series past it; E_n(x)
// (expn) by the continued fraction for x > 1 and the series with digamma
// below (Numerical Recipes' expint); log_ndtr as JAX composes it (log of
// ndtr between the float type's bounds, -ndtr(-x) above, the asymptotic
// series of order `series_order` below).
#pragma once

#include <cmath>
#include <concepts>
#include <limits>
#include <numbers>

namespace jaxcc::detail {

/// E_n(x) for whole n >= 0 and x >= 0 (nan for n < 0 or x < 0, as JAX).
template <class T>
T expn(T n, T x) {
  constexpr T inf = std::numeric_limits<T>::infinity(), eps = std::numeric_limits<T>::epsilon();
  if (std::isnan(n) || std::isnan(x) || n < 0 || x < 0) return std::numeric_limits<T>::quiet_NaN();
  // At x = 0 JAX gives 1 / n for n >= 2 (scipy: 1 / (n - 1)); kept as JAX's.
  if (x == 0) return n < 2 ? inf : 1 / n;
  if (n == 0) return std::exp(-x) / x;
  if (std::isinf(x)) return std::numeric_limits<T>::quiet_NaN();  // as JAX's continued fraction gives
  T const nm1 = n - 1;
  if (x > 1) {  // the continued fraction, Lentz's method
    T b = x + n, c = 1 / std::numeric_limits<T>::min(), d = 1 / b, h = d;
    for (int i = 1; i < 10000; ++i) {
      T const an = -static_cast<T>(i) * (nm1 + static_cast<T>(i));
      b += 2;
      d = 1 / (an * d + b);
      c = b + an / c;
      T const delta = c * d;
      h *= delta;
      if (std::abs(delta - 1) < eps) break;
    }
    return h * std::exp(-x);
  }
  constexpr T euler = std::numbers::egamma_v<T>;
  T ans = nm1 != 0 ? 1 / nm1 : -std::log(x) - euler, fact = 1;
  for (int i = 1; i < 10000; ++i) {
    T const k = static_cast<T>(i);
    fact *= -x / k;
    T delta;
    if (k != nm1) {
      delta = -fact / (k - nm1);
    } else {
      T psi = -euler;
      for (int j = 1; j <= static_cast<int>(nm1); ++j) psi += T(1) / static_cast<T>(j);
      delta = fact * (-std::log(x) + psi);
    }
    ans += delta;
    if (std::abs(delta) < std::abs(ans) * eps) break;
  }
  return ans;
}

/// Ei(x) = -E_1(-x): the power series to 40, the asymptotic series past it.
template <class T>
T expi(T x) {
  constexpr T eps = std::numeric_limits<T>::epsilon();
  // JAX gives nan at 0 and at both infinities (its piecewise rational
  // approximations are not defined there).
  if (std::isnan(x) || x == 0 || std::isinf(x)) return std::numeric_limits<T>::quiet_NaN();
  if (x < 0) return -expn<T>(1, -x);
  if (x <= 40) {
    T term = 1, sum = 0;
    for (int k = 1; k < 1000; ++k) {
      term *= x / static_cast<T>(k);
      T const add = term / static_cast<T>(k);
      sum += add;
      if (add < sum * eps / 4) break;
    }
    return std::numbers::egamma_v<T> + std::log(x) + sum;
  }
  T term = 1, sum = 1;
  for (int k = 1; k < 40; ++k) {
    T const next = term * static_cast<T>(k) / x;
    if (next > term) break;
    term = next;
    sum += term;
    if (term < sum * eps / 4) break;
  }
  return std::exp(x) / x * sum;
}

/// The standard normal distribution function, as JAX's _ndtr composes it.
template <class T>
T ndtr(T x) {
  T const half_sqrt_2 = T(0.5) * std::numbers::sqrt2_v<T>;
  T const w = x * half_sqrt_2, z = std::abs(w);
  T const y = z < half_sqrt_2 ? T(1) + std::erf(w) : (w > 0 ? T(2) - std::erfc(z) : std::erfc(z));
  return T(0.5) * y;
}

/// log(ndtr(x)), as JAX's log_ndtr computes it.
template <class T>
T log_ndtr(T x, int series_order) {
  constexpr bool wide = std::same_as<T, double>;
  constexpr T lower = wide ? T(-20) : T(-10), upper = wide ? T(8) : T(5);
  if (x > upper) return -ndtr(-x);
  if (x > lower) return std::log(ndtr(x));
  if (std::isnan(x)) return x;
  T const x_2 = x * x;
  T even = 0, odd = 0, x_2n = x_2, double_factorial = 1;
  for (int n = 1; n <= series_order; ++n) {
    T const y = double_factorial / x_2n;  // (2n - 1)!! / x^2n
    (n % 2 == 1 ? odd : even) += y;
    x_2n *= x_2;
    double_factorial *= static_cast<T>(2 * n + 1);
  }
  T const log_scale = -T(0.5) * x_2 - std::log(-x) - T(0.5 * std::log(2 * std::numbers::pi));
  return log_scale + std::log(T(1) + even - odd);
}

}  // namespace jaxcc::detail
