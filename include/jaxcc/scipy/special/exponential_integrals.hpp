// jax.scipy.special's exponential integrals: expi (Ei), expn (E_n) and
// exp1 (E_1 = expn(1, x)), each an op whose tangent is JAX's custom_jvp
// rule (fusion/elementwise_scipy.hpp): exp(x) / x for expi, -E_{n-1}(x)
// for expn (n is not differentiated); the sine and cosine integrals sici
// (two ops, Si and Ci, with JAX's rules sin(x) / x and cos(x) / x); and the
// dilogarithm spence, composed of Cephes' rational approximation as JAX
// composes it.
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <limits>
#include <numbers>
#include <tuple>

#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/scipy/special/error_functions.hpp"
#include "jaxcc/scipy/special/promote.hpp"

namespace jaxcc::scipy::special {

/// Ei(x), the principal value of the integral of e^t / t up to x.
template <ArrayLike A>
auto expi(A const& x) {
  return fusion::make_expr<primitives::expi_p>(detail::inexact_operand<detail::inexact_t<A>>(x));
}

/// E_n(x), the integral of e^(-x t) / t^n over t >= 1: nan for n < 0 or
/// x < 0, inf at x = 0 for n < 2, and there 1 / n for n >= 2 as JAX gives
/// (scipy's value is 1 / (n - 1)).
template <class N, class X>
  requires(ArrayLike<N> || ArrayLike<X>) && detail::ArrayOrScalar<N> && detail::ArrayOrScalar<X>
auto expn(N const& n, X const& x) {
  using T = detail::inexact_t<N, X>;
  return fusion::make_expr<primitives::expn_p>(detail::inexact_operand<T>(n), detail::inexact_operand<T>(x));
}

/// E_1(x) = expn(1, x).
template <ArrayLike A>
auto exp1(A const& x) {
  using T = detail::inexact_t<A>;
  return fusion::make_expr<primitives::expn_p>(fusion::ScalarLeaf<T>{T(1)}, detail::inexact_operand<T>(x));
}

/// (Si(x), Ci(x)): the integral of sin(t) / t from 0 to x, and
/// euler_gamma + log|x| + the integral of (cos(t) - 1) / t from 0 to x
/// (Ci's real part for x < 0, nan at -inf).
template <ArrayLike A>
std::tuple<Array<detail::inexact_t<A>>, Array<detail::inexact_t<A>>> sici(A const& x) {
  using T = detail::inexact_t<A>;
  Array<T> const a = detail::inexact_operand<T>(x);
  return {Array<T>(fusion::make_expr<primitives::sici_si_p>(a)), Array<T>(fusion::make_expr<primitives::sici_ci_p>(a))};
}

/// Spence's function, the integral of log(t) / (1 - t) from 1 to x, for
/// x >= 0 (nan below; float32 or float64 only, as in JAX).
template <ArrayLike A>
Array<value_type_t<A>> spence(A const& x_in) {
  static_assert(detail::NormalOperand<A>, "spence: x's dtype is not supported (float32 or float64 only, as in JAX)");
  using T = value_type_t<A>;
  static constexpr std::array<double, 8> A_{4.65128586073990045278E-5, 7.31589045238094711071E-3, 1.33847639578309018650E-1,
                                            8.79691311754530315341E-1, 2.71149851196553469920E0, 4.25697156008121755724E0,
                                            3.29771340985225106936E0, 1.00000000000000000126E0};
  static constexpr std::array<double, 8> B_{6.90990488912553276999E-4, 2.54043763932544379113E-2, 2.82974860602568089943E-1,
                                            1.41172597751831069617E0, 3.63800533345137075418E0, 5.03278880143316990390E0,
                                            3.54771340985225096217E0, 9.99999999999999998740E-1};
  Array<T> const x0 = as_array(x_in);
  T const pi2_6 = static_cast<T>(std::numbers::pi * std::numbers::pi / 6.0);
  auto const above_2 = x0 > T(2);
  Array<T> const x = numpy::where(above_2, T(1) / x0, x0);
  auto const above_1_5 = x > T(1.5);
  auto const below_0_5 = x < T(0.5);
  Array<T> const w = numpy::where(above_1_5, T(1) / x - T(1), numpy::where(below_0_5, -x, x - T(1)));
  Array<T> y = -w * detail::polyval(A_, w) / detail::polyval(B_, w);
  y = numpy::where(below_0_5, pi2_6 - numpy::log(x) * numpy::log(T(1) - x) - y, y);
  y = numpy::where(numpy::logical_or(above_2, above_1_5), T(-0.5) * numpy::square(numpy::log(x)) - y, y);
  return numpy::where(x0 < T(0), std::numeric_limits<T>::quiet_NaN(),
                      numpy::where(x0 == T(1), T(0), numpy::where(x0 == T(0), pi2_6, y)));
}

}  // namespace jaxcc::scipy::special
