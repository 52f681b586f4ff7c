// jax.scipy.special's error functions and the normal distribution's:
// erf, erfc, erfinv (lax's), ndtr, ndtri (Cephes' rational approximations,
// composed as JAX composes them), and log_ndtr, erfcx, dawsn and Owen's T
// function owens_t (ops whose tangents are JAX's custom_jvp rules;
// fusion/elementwise_scipy.hpp).
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <limits>
#include <numbers>

#include "jaxcc/core/error.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/scipy/special/promote.hpp"

namespace jaxcc::detail {
/// jnp.polyval with constant coefficients, highest power first (Horner).
template <Element T, std::size_t N>
Array<T> polyval(std::array<double, N> const& coefficients, Array<T> const& x) {
  Array<T> y = numpy::zeros_like(x);
  for (double const c : coefficients) y = y * x + static_cast<T>(c);
  return y;
}
template <class A>
concept NormalOperand = ArrayLike<A> && (std::same_as<value_type_t<A>, float> || std::same_as<value_type_t<A>, double>);
}  // namespace jaxcc::detail

namespace jaxcc::scipy::special {

template <ArrayLike A>
auto erf(A const& x) {
  return lax::erf(detail::inexact_operand<detail::inexact_t<A>>(x));
}
template <ArrayLike A>
auto erfc(A const& x) {
  return lax::erfc(detail::inexact_operand<detail::inexact_t<A>>(x));
}
/// The inverse of erf on (-1, 1).
template <ArrayLike A>
auto erfinv(A const& x) {
  return lax::erf_inv(detail::inexact_operand<detail::inexact_t<A>>(x));
}

/// The standard normal distribution function (float32 or float64 only, as in JAX).
template <ArrayLike A>
Array<value_type_t<A>> ndtr(A const& x_in) {
  static_assert(detail::NormalOperand<A>, "ndtr: x's dtype is not supported (float32 or float64 only, as in JAX)");
  using T = value_type_t<A>;
  Array<T> const x = as_array(x_in);
  T const half_sqrt_2 = T(0.5) * std::numbers::sqrt2_v<T>;
  Array<T> const w = x * half_sqrt_2;
  Array<T> const z = numpy::abs(w);
  Array<T> const y = numpy::where(z < half_sqrt_2, T(1) + lax::erf(w),
                                  numpy::where(w > T(0), T(2) - lax::erfc(z), lax::erfc(z)));
  return T(0.5) * y;
}

/// The inverse of ndtr (float32 or float64 only): Cephes' rational
/// approximations, as JAX composes them; -inf at 0, inf at 1.
template <ArrayLike A>
Array<value_type_t<A>> ndtri(A const& p_in) {
  static_assert(detail::NormalOperand<A>, "ndtri: p's dtype is not supported (float32 or float64 only, as in JAX)");
  using T = value_type_t<A>;
  static constexpr std::array<double, 5> p0{-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
                                            1.39312609387279679503E1, -1.23916583867381258016E0};
  static constexpr std::array<double, 9> q0{1.0, 1.95448858338141759834E0, 4.67627912898881538453E0,
                                            8.63602421390890590575E1, -2.25462687854119370527E2, 2.00260212380060660359E2,
                                            -8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0};
  static constexpr std::array<double, 9> p1{4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
                                            4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
                                            -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4};
  static constexpr std::array<double, 9> q1{1.0, 1.57799883256466749731E1, 4.53907635128879210584E1,
                                            4.13172038254672030440E1, 1.50425385692907503408E1, 2.50464946208309415979E0,
                                            -1.42182922854787788574E-1, -3.80806407691578277194E-2, -9.33259480895457427372E-4};
  static constexpr std::array<double, 9> p2{3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
                                            1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
                                            3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9};
  static constexpr std::array<double, 9> q2{1.0, 6.02427039364742014255E0, 3.67983563856160859403E0,
                                            1.37702099489081330271E0, 2.16236993594496635890E-1, 1.34204006088543189037E-2,
                                            3.28014464682127739104E-4, 2.89247864745380683936E-6, 6.79019408009981274425E-9};
  Array<T> const p = as_array(p_in);
  Array<T> const maybe_complement = numpy::where(p > static_cast<T>(-std::expm1(-2.0)), T(1) - p, p);
  Array<T> const sanitized = numpy::where(maybe_complement == T(0), T(0.5), maybe_complement);
  Array<T> const w = sanitized - T(0.5);
  Array<T> const ww = numpy::square(w);
  Array<T> const big = (w + w * ww * (detail::polyval(p0, ww) / detail::polyval(q0, ww))) *
                       -static_cast<T>(std::sqrt(2.0 * std::numbers::pi));
  Array<T> const z = numpy::sqrt(T(-2) * numpy::log(sanitized));
  Array<T> const first = z - numpy::log(z) / z;
  Array<T> const inv_z = T(1) / z;
  Array<T> const small_p = first - detail::polyval(p2, inv_z) / detail::polyval(q2, inv_z) / z;
  Array<T> const otherwise = first - detail::polyval(p1, inv_z) / detail::polyval(q1, inv_z) / z;
  Array<T> x = numpy::where(sanitized > static_cast<T>(std::exp(-2.0)), big, numpy::where(z >= T(8), small_p, otherwise));
  x = numpy::where(p > static_cast<T>(1.0 - std::exp(-2.0)), x, -x);
  constexpr T inf = std::numeric_limits<T>::infinity();
  return numpy::where(p == T(0), -inf, numpy::where(p == T(1), inf, x));
}

/// log(ndtr(x)), accurate far into both tails (float32 or float64 only):
/// -ndtr(-x) above 5 (float32) or 8 (float64), the asymptotic series of
/// series_order terms (0 to 30) below -10 or -20.
template <ArrayLike A>
auto log_ndtr(A const& x, int series_order = 3) {
  static_assert(detail::NormalOperand<A>, "log_ndtr: x's dtype is not supported (float32 or float64 only, as in JAX)");
  if (series_order < 0) throw Error("log_ndtr: series_order must be non-negative, got " + std::to_string(series_order));
  if (series_order > 30) throw Error("log_ndtr: series_order must be <= 30, got " + std::to_string(series_order));
  using T = value_type_t<A>;
  return fusion::make_expr<primitives::log_ndtr_p>(x, fusion::ScalarLeaf<T>{static_cast<T>(series_order)});
}

/// exp(x^2) erfc(x), without the overflow of exp(x^2) for large x.
template <ArrayLike A>
auto erfcx(A const& x) {
  return fusion::make_expr<primitives::erfcx_p>(detail::inexact_operand<detail::inexact_t<A>>(x));
}

/// Dawson's integral, exp(-x^2) times the integral of exp(t^2) from 0 to x.
template <ArrayLike A>
auto dawsn(A const& x) {
  return fusion::make_expr<primitives::dawsn_p>(detail::inexact_operand<detail::inexact_t<A>>(x));
}

/// Owen's T function, (1 / 2 pi) times the integral over [0, a] of
/// exp(-h^2 (1 + t^2) / 2) / (1 + t^2); differentiable in h and a.
template <class H, class A>
  requires(ArrayLike<H> || ArrayLike<A>) && detail::ArrayOrScalar<H> && detail::ArrayOrScalar<A>
auto owens_t(H const& h, A const& a) {
  using T = detail::inexact_t<H, A>;
  return fusion::make_expr<primitives::owens_t_p>(detail::inexact_operand<T>(h), detail::inexact_operand<T>(a));
}

}  // namespace jaxcc::scipy::special
