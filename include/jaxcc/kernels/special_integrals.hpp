// Scalar kernels of jax.scipy.special's exponential integrals and of
// log_ndtr, in the operand's precision (T = float or double): Ei(x) (expi)
// by its power series up to 40 and its asymptotic series past it; E_n(x)
// (expn) by the continued fraction for x > 1 and the series with digamma
// below (Numerical Recipes' expint); log_ndtr as JAX composes it (log of
// ndtr between the float type's bounds, -ndtr(-x) above, the asymptotic
// series of order `series_order` below); Si and Ci (sici) by Cephes'
// rational approximations, as JAX composes them; Owen's T (owens_t) by
// JAX's 13-point quadrature (Patefield and Tandy's method T5).
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <numbers>

#include "jaxcc/kernels/special_rational.hpp"

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

inline constexpr std::array<double, 6> sici_sn{-8.39167827910303881427E-11, 4.62591714427012837309E-8, -9.75759303843632795789E-6, 9.76945438170435310816E-4, -4.13470316229406538752E-2, 1.00000000000000000302E0};
inline constexpr std::array<double, 6> sici_sd{2.03269266195951942049E-12, 1.27997891179943299903E-9, 4.41827842801218905784E-7, 9.96412122043875552487E-5, 1.42085239326149893930E-2, 9.99999999999999996984E-1};
inline constexpr std::array<double, 6> sici_cn{2.02524002389102268789E-11, -1.35249504915790756375E-8, 3.59325051419993077021E-6, -4.74007206873407909465E-4, 2.89159652607555242092E-2, -1.00000000000000000080E0};
inline constexpr std::array<double, 6> sici_cd{4.07746040061880559506E-12, 3.06780997581887812692E-9, 1.23210355685883423679E-6, 3.17442024775032769882E-4, 5.10028056236446052392E-2, 4.00000000000000000080E0};
inline constexpr std::array<double, 7> sici_fn4{4.23612862892216586994E0, 5.45937717161812843388E0, 1.62083287701538329132E0, 1.67006611831323023771E-1, 6.81020132472518137426E-3, 1.08936580650328664411E-4, 5.48900223421373614008E-7};
inline constexpr std::array<double, 8> sici_fd4{1, 8.16496634205391016773E0, 7.30828822505564552187E0, 1.86792257950184183883E0, 1.78792052963149907262E-1, 7.01710668322789753610E-3, 1.10034357153915731354E-4, 5.48900252756255700982E-7};
inline constexpr std::array<double, 8> sici_gn4{8.71001698973114191777E-2, 6.11379109952219284151E-1, 3.97180296392337498885E-1, 7.48527737628469092119E-2, 5.38868681462177273157E-3, 1.61999794598934024525E-4, 1.97963874140963632189E-6, 7.82579040744090311069E-9};
inline constexpr std::array<double, 8> sici_gd4{1, 1.64402202413355338886E0, 6.66296701268987968381E-1, 9.88771761277688796203E-2, 6.22396345441768420760E-3, 1.73221081474177119497E-4, 2.02659182086343991969E-6, 7.82579218933534490868E-9};
inline constexpr std::array<double, 9> sici_fn8{4.55880873470465315206E-1, 7.13715274100146711374E-1, 1.60300158222319456320E-1, 1.16064229408124407915E-2, 3.49556442447859055605E-4, 4.86215430826454749482E-6, 3.20092790091004902806E-8, 9.41779576128512936592E-11, 9.70507110881952024631E-14};
inline constexpr std::array<double, 9> sici_fd8{1.0, 9.17463611873684053703E-1, 1.78685545332074536321E-1, 1.22253594771971293032E-2, 3.58696481881851580297E-4, 4.92435064317881464393E-6, 3.21956939101046018377E-8, 9.43720590350276732376E-11, 9.70507110881952025725E-14};
inline constexpr std::array<double, 9> sici_gn8{6.97359953443276214934E-1, 3.30410979305632063225E-1, 3.84878767649974295920E-2, 1.71718239052347903558E-3, 3.48941165502279436777E-5, 3.47131167084116673800E-7, 1.70404452782044526189E-9, 3.85945925430276600453E-12, 3.14040098946363334640E-15};
inline constexpr std::array<double, 10> sici_gd8{1.0, 1.68548898811011640017E0, 4.87852258695304967486E-1, 4.67913194259625806320E-2, 1.90284426674399523638E-3, 3.68475504442561108162E-5, 3.57043223443740838771E-7, 1.72693748966316146736E-9, 3.87830166023954706752E-12, 3.14040098946363335242E-15};

/// Si(x) and Ci(x) (Ci of |x|: its real part for x < 0; nan at -inf), as
/// JAX's sici: the series to |x| = 4, the auxiliary functions f and g to
/// 1e9, and pi/2 - cos(x)/x, sin(x)/x beyond.
template <class T>
void sici(T x, T& si, T& ci) {
  constexpr T half_pi = std::numbers::pi_v<T> / 2;
  T const ax = std::abs(x);
  if (ax <= 4) {
    T const t = ax * ax;
    si = ax == 0 ? T(0) : ax * polyval_scalar(sici_sn, t) / polyval_scalar(sici_sd, t);
    ci = ax == 0 ? -std::numeric_limits<T>::infinity()
                 : std::numbers::egamma_v<T> + std::log(ax) + t * polyval_scalar(sici_cn, t) / polyval_scalar(sici_cd, t);
  } else if (ax <= T(1e9)) {
    T const s = std::sin(ax), c = std::cos(ax), z = 1 / (ax * ax);
    bool const near = ax < 8;
    T const f = near ? polyval_scalar(sici_fn4, z) / (ax * polyval_scalar(sici_fd4, z))
                     : polyval_scalar(sici_fn8, z) / (ax * polyval_scalar(sici_fd8, z));
    T const g = near ? z * polyval_scalar(sici_gn4, z) / polyval_scalar(sici_gd4, z)
                     : z * polyval_scalar(sici_gn8, z) / polyval_scalar(sici_gd8, z);
    si = half_pi - f * c - g * s;
    ci = f * s - g * c;
  } else {
    si = std::isinf(ax) ? half_pi : half_pi - std::cos(ax) / ax;
    ci = std::isinf(ax) ? T(0) : std::sin(ax) / ax;
  }
  si *= x > 0 ? T(1) : x < 0 ? T(-1) : x;  // sign(x); nan stays nan
  if (x == -std::numeric_limits<T>::infinity()) ci = std::numeric_limits<T>::quiet_NaN();
}

inline constexpr std::array<double, 13> owens_t_points{
    0.0035082039676451715, 0.031279042338030754, 0.085266826283219451, 0.16245071730812277, 0.25851196049125435,
    0.36807553840697534,   0.48501092905604697,  0.60277514152618577,  0.71477884217753227, 0.81475510988760099,
    0.89711029755948966,   0.95723808085944262,  0.99178832974629704};
inline constexpr std::array<double, 13> owens_t_weights{
    0.018831438115323503, 0.018567086243977649, 0.018042093461223386,  0.017263829606398753, 0.016243219975989857,
    0.014994592034116705, 0.013535474469662088, 0.011886351605820165,  0.010070377242777432, 0.0081130545742299587,
    0.0060419009528470239, 0.0038862217010742058, 0.0016793031084546090};

/// Owen's T function, as JAX's owens_t computes it.
template <class T>
T owens_t(T h_in, T a) {
  if (std::isnan(a) || std::isnan(h_in)) return std::numeric_limits<T>::quiet_NaN();
  T const root_2 = std::numbers::sqrt2_v<T>, two_pi = static_cast<T>(2 * std::numbers::pi);
  T const h = std::abs(h_in), abs_a = std::abs(a), h_normed = h / root_2;
  T const ma = abs_a <= 1 ? abs_a : 1 / abs_a, mh = abs_a <= 1 ? h : abs_a * h;
  T sum = 0;
  for (std::size_t i = 0; i < owens_t_points.size(); ++i) {
    T const r = ma * ma * static_cast<T>(owens_t_points[i]);
    sum += std::exp(T(-0.5) * mh * mh * (1 + r)) / (1 + r) * static_cast<T>(owens_t_weights[i]);
  }
  T result = ma * sum;
  if (mh == 0) result = std::atan(ma) / two_pi;
  if (ma == 1) result = T(0.125) * std::erfc(-mh / root_2) * std::erfc(mh / root_2);
  if (abs_a > 1) {
    T const normh = std::erfc(h_normed), normah = std::erfc(abs_a * h_normed);
    result = abs_a * h <= T(0.67) ? T(0.25) - T(0.25) * std::erf(h_normed) * std::erf(abs_a * h_normed) - result
                                  : T(0.25) * (normh + normah - normh * normah) - result;
  }
  return (a > 0 ? T(1) : a < 0 ? T(-1) : T(0)) * result;
}

}  // namespace jaxcc::detail
