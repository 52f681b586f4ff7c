// jax.scipy.special's gamma family, composed of lax.lgamma, digamma and
// polygamma as JAX composes it: gammaln, gammasgn, gamma, loggamma,
// digamma, polygamma, betaln (scipy's algdiv for large arguments), beta,
// factorial, comb, poch, multigammaln. Operands promote as
// promote_args_inexact (integers become floats).
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <numbers>

#include "jaxcc/core/error.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/scipy/special/promote.hpp"

namespace jaxcc::detail {
/// scipy's algdiv (JAX's port): lgamma(b) - lgamma(a + b) for b >= 8, a <= b.
template <Element T>
Array<T> algdiv(Array<T> const& a, Array<T> const& b) {
  constexpr T c0 = T(0.833333333333333e-01), c1 = T(-0.277777777760991e-02), c2 = T(0.793650666825390e-03),
              c3 = T(-0.595202931351870e-03), c4 = T(0.837308034031215e-03), c5 = T(-0.165322962780713e-02);
  Array<T> const h = a / b;
  Array<T> const c = h / (T(1) + h);
  Array<T> const& x = c;
  Array<T> const d = b + (a - T(0.5));
  Array<T> const x2 = x * x;
  Array<T> const s3 = T(1) + (x + x2);
  Array<T> const s5 = T(1) + (x + x2 * s3);
  Array<T> const s7 = T(1) + (x + x2 * s5);
  Array<T> const s9 = T(1) + (x + x2 * s7);
  Array<T> const s11 = T(1) + (x + x2 * s9);
  Array<T> const t = numpy::square(T(1) / b);
  Array<T> w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0;
  w = w * (c / b);
  Array<T> const u = d * numpy::log1p(a / b);
  Array<T> const v = a * (numpy::log(b) - T(1));
  return numpy::where(u <= v, (w - v) - u, (w - u) - v);
}
}  // namespace jaxcc::detail

namespace jaxcc::scipy::special {

/// log |Gamma(x)|: lax.lgamma, +inf at 0, -1, -2, ...
template <ArrayLike A>
Array<detail::inexact_t<A>> gammaln(A const& x) {
  return lax::lgamma(detail::inexact_operand<detail::inexact_t<A>>(x));
}

/// The sign of Gamma(x): nan at the poles and at -inf and nan, -1 on the
/// negative intervals of odd floor and at -0.0, else 1.
template <ArrayLike A>
Array<detail::inexact_t<A>> gammasgn(A const& x) {
  using T = detail::inexact_t<A>;
  Array<T> const a = detail::inexact_operand<T>(x);
  Array<T> const floor_x = numpy::floor(a);
  auto const negative = a < T(0);
  auto const is_nan = numpy::logical_or(numpy::logical_and(negative, a == floor_x), a != a);
  auto const is_neg = numpy::logical_or(numpy::logical_and(negative, lax::rem(floor_x, Array<T>(numpy::full_like(a, T(2)))) != T(0)),
                                      numpy::logical_and(a == T(0), T(1) / a < T(0)));
  return numpy::where(is_nan, std::numeric_limits<T>::quiet_NaN(), numpy::where(is_neg, T(-1), T(1)));
}

/// Gamma(x) = gammasgn(x) exp(lgamma(x)).
template <ArrayLike A>
Array<detail::inexact_t<A>> gamma(A const& x) {
  using T = detail::inexact_t<A>;
  Array<T> const a = detail::inexact_operand<T>(x);
  return gammasgn(a) * numpy::exp(lax::lgamma(a));
}

/// log Gamma(x) for real x: lgamma where x > 0, nan elsewhere.
template <ArrayLike A>
Array<detail::inexact_t<A>> loggamma(A const& x) {
  using T = detail::inexact_t<A>;
  Array<T> const a = detail::inexact_operand<T>(x);
  return numpy::where(a > T(0), lax::lgamma(a), std::numeric_limits<T>::quiet_NaN());
}

/// The derivative of lgamma.
template <ArrayLike A>
Array<detail::inexact_t<A>> digamma(A const& x) {
  return lax::digamma(detail::inexact_operand<detail::inexact_t<A>>(x));
}

/// The n-th derivative of digamma. n is an integer (a number or an integer
/// array, as JAX requires), not differentiated.
template <class N, class A>
  requires(std::integral<N> || (ArrayLike<N> && std::integral<value_type_t<N>>)) && detail::ArrayOrScalar<A>
Array<detail::inexact_t<N, A>> polygamma(N const& n, A const& x) {
  using T = detail::inexact_t<N, A>;
  return fusion::make_expr<primitives::polygamma_p>(detail::inexact_operand<T>(n), detail::inexact_operand<T>(x));
}


/// log |B(a, b)|, accurate for large arguments (JAX's port of scipy's betaln).
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
Array<detail::inexact_t<A, B>> betaln(A const& a_in, B const& b_in) {
  using T = detail::inexact_t<A, B>;
  Array<T> const x = detail::inexact_operand<T>(a_in), y = detail::inexact_operand<T>(b_in);
  Array<T> const a = numpy::minimum(x, y), b = numpy::maximum(x, y);
  Array<T> const small_b = lax::lgamma(a) + (lax::lgamma(b) - lax::lgamma(a + b));
  Array<T> const large_b = lax::lgamma(a) + detail::algdiv(a, b);
  return numpy::where(b < T(8), small_b, large_b);
}

/// B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b), its sign from gammasgn.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
Array<detail::inexact_t<A, B>> beta(A const& a_in, B const& b_in) {
  using T = detail::inexact_t<A, B>;
  Array<T> const a = detail::inexact_operand<T>(a_in), b = detail::inexact_operand<T>(b_in);
  Array<T> const sign = gammasgn(a) * gammasgn(b) * gammasgn(Array<T>(a + b));
  return sign * numpy::exp(betaln(a, b));
}

/// n! as a float, exp(lgamma(n + 1)); 0 for n < 0. exact = true is not
/// supported (as in JAX).
template <ArrayLike A>
Array<detail::inexact_t<A>> factorial(A const& n, bool exact = false) {
  if (exact) throw Error("factorial: exact=true is not implemented (as in JAX)");
  using T = detail::inexact_t<A>;
  Array<T> const a = detail::inexact_operand<T>(n);
  return numpy::where(a < T(0), T(0), numpy::exp(lax::lgamma(a + T(1))));
}

/// The binomial coefficient N choose k as a float (0 for N < 0, k < 0 or
/// k > N); with repetition, N + k - 1 choose k (1 where k = 0 and N >= 0).
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
Array<detail::inexact_t<A, B>> comb(A const& N_in, B const& k_in, bool repetition = false) {
  using T = detail::inexact_t<A, B>;
  Array<T> const N = detail::inexact_operand<T>(N_in), k = detail::inexact_operand<T>(k_in);
  if (repetition)
    return numpy::where(numpy::logical_and(k == T(0), N >= T(0)), T(1), comb(Array<T>(N + k - T(1)), k, false));
  auto const ok = numpy::logical_and(numpy::logical_and(k <= N, N >= T(0)), k >= T(0));
  Array<T> const safe_N = numpy::where(ok, N, T(0)), safe_k = numpy::where(ok, k, T(0));
  Array<T> const result = numpy::exp(lax::lgamma(safe_N + T(1)) - lax::lgamma(safe_k + T(1)) -
                                   lax::lgamma(safe_N + T(1) - safe_k));
  return numpy::where(ok, result, T(0));
}

/// The Pochhammer symbol (z)_m = Gamma(z + m) / Gamma(z); 1 where m = 0.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
Array<detail::inexact_t<A, B>> poch(A const& z_in, B const& m_in) {
  using T = detail::inexact_t<A, B>;
  Array<T> const z = detail::inexact_operand<T>(z_in), m = detail::inexact_operand<T>(m_in);
  return numpy::where(m == T(0), T(1), gamma(Array<T>(z + m)) / gamma(z));
}

/// log of the multivariate gamma function of dimension d:
/// d (d - 1) / 4 log(pi) + sum_{i < d} lgamma(a - i / 2).
template <ArrayLike A>
Array<detail::inexact_t<A>> multigammaln(A const& a_in, std::int64_t d) {
  using T = detail::inexact_t<A>;
  Array<T> const a = detail::inexact_operand<T>(a_in);
  T const dd = static_cast<T>(d);
  T const constant = T(0.25) * dd * (dd - T(1)) * std::log(std::numbers::pi_v<T>);
  Array<T> sum = numpy::zeros_like(a);
  for (std::int64_t i = 0; i < d; ++i) sum = sum + lax::lgamma(a - static_cast<T>(i) / T(2));
  return sum + constant;
}

}  // namespace jaxcc::scipy::special
