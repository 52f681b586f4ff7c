// jax.scipy.special's incomplete gamma and beta functions: gammainc,
// gammaincc and betainc, lax.igamma, igammac and betainc after
// promote_args_inexact.
#pragma once

#include "jaxcc/lax/special.hpp"
#include "jaxcc/scipy/special/promote.hpp"

namespace jaxcc::scipy::special {

/// The regularized lower incomplete gamma function P(a, x).
template <class A, class X>
  requires(ArrayLike<A> || ArrayLike<X>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<X>
auto gammainc(A const& a, X const& x) {
  using T = detail::inexact_t<A, X>;
  return lax::igamma(detail::inexact_operand<T>(a), detail::inexact_operand<T>(x));
}

/// The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).
template <class A, class X>
  requires(ArrayLike<A> || ArrayLike<X>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<X>
auto gammaincc(A const& a, X const& x) {
  using T = detail::inexact_t<A, X>;
  return lax::igammac(detail::inexact_operand<T>(a), detail::inexact_operand<T>(x));
}

/// The regularized incomplete beta function I_x(a, b); differentiable in x only (as in JAX).
template <class A, class B, class X>
  requires(ArrayLike<A> || ArrayLike<B> || ArrayLike<X>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B> &&
          detail::ArrayOrScalar<X>
auto betainc(A const& a, B const& b, X const& x) {
  using T = detail::inexact_t<A, B, X>;
  return lax::betainc(detail::inexact_operand<T>(a), detail::inexact_operand<T>(b), detail::inexact_operand<T>(x));
}

}  // namespace jaxcc::scipy::special
