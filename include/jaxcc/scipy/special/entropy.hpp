// jax.scipy.special's information-theory functions and Box-Cox transforms:
// xlogy, xlog1py, entr, rel_entr, kl_div, boxcox, boxcox1p. xlogy, xlog1py
// and entr's x log x are ops whose tangent rules are JAX's custom_jvp rules
// (fusion/elementwise_scipy.hpp), so they are 0 at x = 0 with a derivative.
#pragma once

#include <limits>

#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/scipy/special/promote.hpp"

namespace jaxcc::scipy::special {

/// x log(y), 0 where x = 0 (unless y is nan).
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto xlogy(A const& x, B const& y) {
  using T = detail::inexact_t<A, B>;
  return fusion::make_expr<primitives::xlogy_p>(detail::inexact_operand<T>(x), detail::inexact_operand<T>(y));
}

/// x log(1 + y), 0 where x = 0 (unless y is nan).
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto xlog1py(A const& x, B const& y) {
  using T = detail::inexact_t<A, B>;
  return fusion::make_expr<primitives::xlog1py_p>(detail::inexact_operand<T>(x), detail::inexact_operand<T>(y));
}

/// -x log(x) for x > 0, 0 at 0, -inf for x < 0.
template <ArrayLike A>
Array<detail::inexact_t<A>> entr(A const& x) {
  using T = detail::inexact_t<A>;
  Array<T> const a = detail::inexact_operand<T>(x);
  return numpy::where(a < T(0), -std::numeric_limits<T>::infinity(), -fusion::make_expr<primitives::xlogx_p>(a));
}

/// p log(p / q) for p, q > 0; 0 where p = 0 and q >= 0; inf elsewhere.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
Array<detail::inexact_t<A, B>> rel_entr(A const& p_in, B const& q_in) {
  using T = detail::inexact_t<A, B>;
  Array<T> const p = detail::inexact_operand<T>(p_in), q = detail::inexact_operand<T>(q_in);
  auto const both_positive = numpy::logical_and(p > T(0), q > T(0));
  auto const p_zero = numpy::logical_and(p == T(0), q >= T(0));
  Array<T> const safe_p = numpy::where(both_positive, p, T(1)), safe_q = numpy::where(both_positive, q, T(1));
  Array<T> const log_val = fusion::make_expr<primitives::xlogx_p>(safe_p) - xlogy(safe_p, safe_q);
  return numpy::where(both_positive, log_val, numpy::where(p_zero, T(0), std::numeric_limits<T>::infinity()));
}

/// rel_entr(p, q) - p + q.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
Array<detail::inexact_t<A, B>> kl_div(A const& p_in, B const& q_in) {
  using T = detail::inexact_t<A, B>;
  Array<T> const p = detail::inexact_operand<T>(p_in), q = detail::inexact_operand<T>(q_in);
  return rel_entr(p, q) - p + q;
}

/// (x^lmbda - 1) / lmbda, log(x) where lmbda = 0.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
Array<detail::inexact_t<A, B>> boxcox(A const& x_in, B const& lmbda_in) {
  using T = detail::inexact_t<A, B>;
  Array<T> const x = detail::inexact_operand<T>(x_in), lmbda = detail::inexact_operand<T>(lmbda_in);
  auto const lmbda_zero = lmbda == T(0);
  Array<T> const safe = numpy::where(lmbda_zero, T(1), lmbda);
  Array<T> const log_x = numpy::log(x);
  return numpy::where(lmbda_zero, log_x, numpy::expm1(safe * log_x) / safe);
}

/// ((1 + x)^lmbda - 1) / lmbda, log1p(x) where lmbda = 0.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
Array<detail::inexact_t<A, B>> boxcox1p(A const& x_in, B const& lmbda_in) {
  using T = detail::inexact_t<A, B>;
  Array<T> const x = detail::inexact_operand<T>(x_in), lmbda = detail::inexact_operand<T>(lmbda_in);
  auto const lmbda_zero = lmbda == T(0);
  Array<T> const safe = numpy::where(lmbda_zero, T(1), lmbda);
  Array<T> const log1p_x = numpy::log1p(x);
  return numpy::where(lmbda_zero, log1p_x, numpy::expm1(safe * log1p_x) / safe);
}

}  // namespace jaxcc::scipy::special
