// jax.lax's special-function primitives that XLA computes by series and
// continued fractions (fusion/elementwise_special.hpp): igamma, igammac,
// igamma_grad_a, random_gamma_grad, betainc, zeta, bessel_i0e, bessel_i1e.
// As in JAX the operands are floats of one dtype (jax.scipy.special's
// functions, scipy/special/, promote first); each returns a fused
// expression. lgamma, digamma, polygamma, erf, erfc and erf_inv are in
// lax/elementwise.hpp.
#pragma once

#include <concepts>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/fusion/expr.hpp"

namespace jaxcc::detail {
/// lax's special functions take float arrays of one dtype.
template <class A, class... B>
concept SpecialOperands = ArrayLike<A> && FloatElement<value_type_t<A>> &&
                          ((ArrayLike<B> && std::same_as<value_type_t<A>, value_type_t<B>>) && ...);
}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// The regularized lower incomplete gamma function P(a, x); nan for a < 0,
/// x < 0 or a = x = 0. Differentiable in a (igamma_grad_a) and x.
template <class A, class X>
  requires detail::SpecialOperands<A, X>
auto igamma(A const& a, X const& x) {
  return fusion::make_expr<primitives::igamma_p>(a, x);
}
/// The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).
template <class A, class X>
  requires detail::SpecialOperands<A, X>
auto igammac(A const& a, X const& x) {
  return fusion::make_expr<primitives::igammac_p>(a, x);
}
/// d/da P(a, x) (not differentiable itself, as in JAX).
template <class A, class X>
  requires detail::SpecialOperands<A, X>
auto igamma_grad_a(A const& a, X const& x) {
  return fusion::make_expr<primitives::igamma_grad_a_p>(a, x);
}
/// The derivative of a Gamma(a) sample x with respect to a, as
/// jax.random.gamma's gradient uses it (not differentiable itself).
template <class A, class X>
  requires detail::SpecialOperands<A, X>
auto random_gamma_grad(A const& a, X const& x) {
  return fusion::make_expr<primitives::random_gamma_grad_p>(a, x);
}
/// The regularized incomplete beta function I_x(a, b) (the primitive
/// regularized_incomplete_beta); differentiable in x only, as in JAX.
template <class A, class B, class X>
  requires detail::SpecialOperands<A, B, X>
auto betainc(A const& a, B const& b, X const& x) {
  return fusion::make_expr<primitives::regularized_incomplete_beta_p>(a, b, x);
}
/// The Hurwitz zeta function sum_k (k + q)^-x: inf at x = 1, nan for x < 1.
/// Differentiable in q (-x zeta(x + 1, q)); the derivative in x raises.
template <class X, class Q>
  requires detail::SpecialOperands<X, Q>
auto zeta(X const& x, Q const& q) {
  return fusion::make_expr<primitives::zeta_p>(x, q);
}
/// e^-|x| I_0(x), the exponentially scaled modified Bessel function of order 0.
template <class X>
  requires detail::SpecialOperands<X>
auto bessel_i0e(X const& x) {
  return fusion::make_expr<primitives::bessel_i0e_p>(x);
}
/// e^-|x| I_1(x), the exponentially scaled modified Bessel function of order 1.
template <class X>
  requires detail::SpecialOperands<X>
auto bessel_i1e(X const& x) {
  return fusion::make_expr<primitives::bessel_i1e_p>(x);
}

}  // namespace jaxcc::lax
