// Scalar kernels of the incomplete gamma and beta functions: lax.igamma,
// igammac, igamma_grad_a, random_gamma_grad and regularized_incomplete_beta
// (lax.betainc). They follow the algorithms JAX lowers these primitives to
// (jax/_src/lax/special.py, ported from XLA's math library): the power
// series of P(a, x) or the continued fraction of Q(a, x), whichever
// converges faster, each carrying its derivative in a for the gradient
// modes; the Lentz-Thompson-Barnett continued fraction of I_x(a, b). Each
// runs in the operand's precision (T = float or double), with its epsilon
// as the stopping tolerance, and gives JAX's nan / 0 / 1 at the edges.
#pragma once

#include <cmath>
#include <concepts>
#include <limits>
#include <utility>

#include "jaxcc/kernels/special_functions.hpp"

namespace jaxcc::detail {

enum class IgammaMode { value, derivative, sample_derivative };

template <class T>
T lgamma_of(T x) {
  return static_cast<T>(lanczos_lgamma(static_cast<double>(x)));
}
template <class T>
T digamma_of(T x) {
  return static_cast<T>(cephes_digamma(static_cast<double>(x)));
}

/// P(a, x)'s power series (XLA's IgammaSeries), or its derivatives.
template <class T>
T igamma_series(T ax, T x, T a, IgammaMode mode) {
  constexpr T eps = std::numeric_limits<T>::epsilon();
  T r = a, c = 1, ans = 1, dc_da = 0, dans_da = 0;
  for (int i = 0; i < 100000; ++i) {
    r += 1;
    dc_da = dc_da * (x / r) - (c * x) / (r * r);
    dans_da += dc_da;
    c *= x / r;
    ans += c;
    bool const more = mode == IgammaMode::value ? c / ans > eps : std::abs(dc_da / dans_da) > eps;
    if (!more) break;
  }
  if (mode == IgammaMode::value) return (ans * ax) / a;
  T const dlogax_da = std::log(x) - digamma_of<T>(a + 1);
  if (mode == IgammaMode::derivative) return ax * (ans * dlogax_da + dans_da) / a;
  return -(dans_da + ans * dlogax_da) * x / a;
}

/// Q(a, x)'s continued fraction (XLA's IgammacContinuedFraction), or its derivatives.
template <class T>
T igammac_fraction(T ax, T x, T a, IgammaMode mode) {
  constexpr T eps = std::numeric_limits<T>::epsilon();
  T y = 1 - a, z = x + y + 1, c = 0;
  T pkm2 = 1, qkm2 = x, pkm1 = x + 1, qkm1 = z * x;
  T ans = pkm1 / qkm1;
  T dpkm2_da = 0, dqkm2_da = 0, dpkm1_da = 0, dqkm1_da = -x;
  T dans_da = (dpkm1_da - ans * dqkm1_da) / qkm1;
  while (c < 2000) {
    c += 1;
    y += 1;
    z += 2;
    T const yc = y * c;
    T const pk = pkm1 * z - pkm2 * yc;
    T const qk = qkm1 * z - qkm2 * yc;
    bool const nonzero = qk != 0;
    T const r = pk / qk;
    T const t = nonzero ? std::abs((ans - r) / r) : T(1);
    if (nonzero) ans = r;
    T const dpk_da = dpkm1_da * z - pkm1 - dpkm2_da * yc + pkm2 * c;
    T const dqk_da = dqkm1_da * z - qkm1 - dqkm2_da * yc + qkm2 * c;
    T const dans_da_new = nonzero ? (dpk_da - ans * dqk_da) / qk : dans_da;
    T const grad_change = nonzero ? std::abs(dans_da_new - dans_da) : T(1);
    dans_da = dans_da_new;
    pkm2 = pkm1, pkm1 = pk, qkm2 = qkm1, qkm1 = qk;
    dpkm2_da = dpkm1_da, dqkm2_da = dqkm1_da, dpkm1_da = dpk_da, dqkm1_da = dqk_da;
    if (std::abs(pk) > 1 / eps) {
      pkm2 *= eps, pkm1 *= eps, qkm2 *= eps, qkm1 *= eps;
      dpkm2_da *= eps, dqkm2_da *= eps, dpkm1_da *= eps, dqkm1_da *= eps;
    }
    if (!((mode == IgammaMode::value ? t : grad_change) > eps)) break;
  }
  if (mode == IgammaMode::value) return ans * ax;
  T const dlogax_da = std::log(x) - digamma_of<T>(a);
  if (mode == IgammaMode::derivative) return ax * (ans * dlogax_da + dans_da);
  return -(dans_da + ans * dlogax_da) * x;
}

/// x^a e^-x / Gamma(a), or 0 where its log underflows (the series are then skipped).
template <class T>
bool igamma_prefactor(T a, T x, T& ax) {
  T const log_ax = a * std::log(x) - x - lgamma_of<T>(a);
  ax = std::exp(log_ax);
  return !(log_ax < -std::log(std::numeric_limits<T>::max()));
}

/// The regularized lower incomplete gamma function P(a, x) (lax.igamma).
template <class T>
T igamma(T a, T x) {
  constexpr T nan = std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(a) || std::isnan(x) || x < 0 || a < 0 || (a == 0 && x == 0)) return nan;
  if (x == 0) return 0;
  if (std::isinf(x)) return 1;
  T ax;
  bool const enabled = igamma_prefactor(a, x, ax);
  if (x >= 1 && x > a) return 1 - (enabled ? igammac_fraction(ax, x, a, IgammaMode::value) : T(0));
  return enabled ? igamma_series(ax, x, a, IgammaMode::value) : T(0);
}

/// The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (lax.igammac).
template <class T>
T igammac(T a, T x) {
  constexpr T nan = std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(a) || std::isnan(x) || x < 0 || a < 0 || (a == 0 && x == 0)) return nan;
  if (std::isinf(x) || a == 0) return 0;
  T ax;
  bool const enabled = igamma_prefactor(a, x, ax);
  if (x < 1 || x < a) return 1 - (enabled ? igamma_series(ax, x, a, IgammaMode::value) : T(0));
  return enabled ? igammac_fraction(ax, x, a, IgammaMode::value) : T(0);
}

/// d/da P(a, x) (lax.igamma_grad_a), or (sample mode, lax.random_gamma_grad)
/// the derivative of a gamma sample x with respect to its shape a.
template <class T>
T igamma_grad(T a, T x, IgammaMode mode) {
  if (std::isnan(a) || std::isnan(x) || x < 0 || a <= 0) return std::numeric_limits<T>::quiet_NaN();
  if (x == 0) return 0;
  T ax;
  bool const enabled = igamma_prefactor(a, x, ax);
  if (!enabled) return 0;
  if (x > 1 && x > a) return -igammac_fraction(ax, x, a, mode);
  return igamma_series(ax, x, a, mode);
}

/// The continued fraction of I_x(a, b) (DLMF 8.17.22), Lentz-Thompson-Barnett.
template <class T>
T betainc_fraction(T a, T b, T x) {
  constexpr T small = std::numeric_limits<T>::epsilon() / 2;
  int const iterations = std::same_as<T, float> ? 200 : 600;
  T h = small, c = small, d = 0;  // the 0th partial denominator is 0
  for (int n = 1; n < iterations; ++n) {
    T numerator = 1;
    if (n > 1) {
      T const m = static_cast<T>((n - 1) / 2);
      if (n % 2 == 0)
        numerator = m == 0 ? -(a + b) * x / (a + 1) : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      else
        numerator = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    }
    c = 1 + numerator / c;
    if (std::abs(c) < small) c = small;
    d = 1 + numerator * d;
    if (std::abs(d) < small) d = small;
    d = 1 / d;
    T const delta = c * d;
    h *= delta;
    if (!(std::abs(delta - 1) >= small)) break;
  }
  return h;
}

/// The regularized incomplete beta function I_x(a, b) (lax.betainc).
template <class T>
T betainc(T a, T b, T x) {
  constexpr T inf = std::numeric_limits<T>::infinity();
  bool const a_zero = a == 0 || b == inf, b_zero = b == 0 || a == inf;
  if (a < 0 || b < 0 || x < 0 || x > 1 || (a_zero && b_zero) || std::isnan(a) || std::isnan(b) || std::isnan(x))
    return std::numeric_limits<T>::quiet_NaN();
  if (b_zero && x == 1) return 1;
  if (a_zero && x != 0) return 1;
  if ((b_zero && x != 1) || (a_zero && x == 0)) return 0;
  bool const direct = x < (a + 1) / (a + b + 2);
  if (!direct) std::swap(a, b), x = 1 - x;
  T const fraction = betainc_fraction(a, b, x);
  T const lbeta_small_a = lgamma_of<T>(b) - lgamma_of<T>(a + b);
  T const factor = a < 2 * std::numeric_limits<T>::min()
                       ? std::exp(std::log1p(-x) * b - lbeta_small_a)
                       : std::exp(std::log(x) * a + std::log1p(-x) * b - (lgamma_of<T>(a) + lbeta_small_a)) / a;
  T const result = fraction * factor;
  return direct ? result : 1 - result;
}

}  // namespace jaxcc::detail
