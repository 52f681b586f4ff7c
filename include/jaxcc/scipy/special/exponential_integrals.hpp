// jax.scipy.special's exponential integrals: expi (Ei), expn (E_n) and
// exp1 (E_1 = expn(1, x)). Each is an op whose tangent is JAX's custom_jvp
// rule (fusion/elementwise_scipy.hpp): exp(x) / x for expi, -E_{n-1}(x)
// for expn (n is not differentiated).
#pragma once

#include "jaxcc/fusion/elementwise.hpp"
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

}  // namespace jaxcc::scipy::special
