// The elementwise ops of jax.lax's special functions that XLA computes by
// series and continued fractions: igamma, igammac, igamma_grad_a,
// random_gamma_grad, regularized_incomplete_beta (lax.betainc), zeta,
// bessel_i0e and bessel_i1e (kernels/special_incomplete.hpp,
// kernels/special_bessel.hpp, kernels/special_functions.hpp; scalar
// kernels only). Their tangent rules are JAX's; a derivative that JAX does
// not define (igamma_grad_a, random_gamma_grad, betainc in a and b, zeta
// in x) raises jaxcc::Error when it is asked for.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "jaxcc/core/dtype.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/fusion/elementwise_arithmetic.hpp"
#include "jaxcc/fusion/elementwise_functions.hpp"
#include "jaxcc/kernels/special_bessel.hpp"
#include "jaxcc/kernels/special_functions.hpp"
#include "jaxcc/kernels/special_incomplete.hpp"

namespace jaxcc::detail {
/// Raises, for a tangent that JAX has no rule for, when there is one.
template <class D>
void no_tangent_for(std::string_view what) {
  if constexpr (!fusion::is_zero<D>) throw Error(std::string(what));
}
/// A float kernel applied in the operands' computing precision.
template <class T, class F, class... A>
T in_compute_precision(F const& f, A... a) {
  using C = compute_t<T>;
  return static_cast<T>(f(static_cast<C>(a)...));
}
}  // namespace jaxcc::detail

#define JAXCC_SPECIAL_OP(op_name)                                   \
  static constexpr std::string_view name = op_name;                 \
  template <class T>                                                \
  using result = T;                                                 \
  template <class L>                                                \
  static constexpr bool simd_for = false;

namespace jaxcc::primitives {

struct igamma_grad_a_p;
struct bessel_i0e_p;
struct bessel_i1e_p;

/// d/dx P(a, x) = exp(-x + (a - 1) log x - lgamma(a)), JAX's igamma_gradx.
template <class A, class X>
auto igamma_dx(A const& a, X const& x) {
  using T = value_of<X>;
  return ex<exp_p>(ex<sub_p>(ex<sub_p>(ex<mul_p>(ex<sub_p>(a, ScalarLeaf<T>{1}), ex<log_p>(x)), x), ex<lgamma_p>(a)));
}

/// lax.igamma(a, x): the regularized lower incomplete gamma function P(a, x).
struct igamma_p {
  JAXCC_SPECIAL_OP("igamma")
  template <class T> static T scalar(T a, T x) {
    return jaxcc::detail::in_compute_precision<T>([](auto p, auto q) { return jaxcc::detail::igamma(p, q); }, a, x);
  }
  template <class A, class X, class DA, class DX>
  static auto tangent(A const& a, X const& x, DA const& da, DX const& dx) {
    return fusion::t_add(fusion::t_scale(da, ex<igamma_grad_a_p>(a, x)), fusion::t_scale(dx, igamma_dx(a, x)));
  }
};

/// lax.igammac(a, x) = 1 - igamma(a, x), without the cancellation.
struct igammac_p {
  JAXCC_SPECIAL_OP("igammac")
  template <class T> static T scalar(T a, T x) {
    return jaxcc::detail::in_compute_precision<T>([](auto p, auto q) { return jaxcc::detail::igammac(p, q); }, a, x);
  }
  template <class A, class X, class DA, class DX>
  static auto tangent(A const& a, X const& x, DA const& da, DX const& dx) {
    return fusion::t_neg(
        fusion::t_add(fusion::t_scale(da, ex<igamma_grad_a_p>(a, x)), fusion::t_scale(dx, igamma_dx(a, x))));
  }
};

/// lax.igamma_grad_a(a, x): d/da igamma(a, x). JAX defines no derivative of it.
struct igamma_grad_a_p {
  JAXCC_SPECIAL_OP("igamma_grad_a")
  template <class T> static T scalar(T a, T x) {
    return jaxcc::detail::in_compute_precision<T>(
        [](auto p, auto q) { return jaxcc::detail::igamma_grad(p, q, jaxcc::detail::IgammaMode::derivative); }, a, x);
  }
  template <class A, class X, class DA, class DX>
  static auto tangent(A const&, X const&, DA const&, DX const&) {
    jaxcc::detail::no_tangent_for<DA>("igamma_grad_a: differentiation rule not implemented (as in JAX)");
    jaxcc::detail::no_tangent_for<DX>("igamma_grad_a: differentiation rule not implemented (as in JAX)");
    return Zero<value_of<A>>{};
  }
};

/// lax.random_gamma_grad(a, x): the derivative of a Gamma(a) sample x with
/// respect to a (JAX defines no derivative of it).
struct random_gamma_grad_p {
  JAXCC_SPECIAL_OP("random_gamma_grad")
  template <class T> static T scalar(T a, T x) {
    return jaxcc::detail::in_compute_precision<T>(
        [](auto p, auto q) { return jaxcc::detail::igamma_grad(p, q, jaxcc::detail::IgammaMode::sample_derivative); },
        a, x);
  }
  template <class A, class X, class DA, class DX>
  static auto tangent(A const&, X const&, DA const&, DX const&) {
    jaxcc::detail::no_tangent_for<DA>("random_gamma_grad: differentiation rule not implemented (as in JAX)");
    jaxcc::detail::no_tangent_for<DX>("random_gamma_grad: differentiation rule not implemented (as in JAX)");
    return Zero<value_of<A>>{};
  }
};

/// lax.betainc(a, b, x): the regularized incomplete beta function I_x(a, b).
/// JAX differentiates it in x only.
struct regularized_incomplete_beta_p {
  JAXCC_SPECIAL_OP("regularized_incomplete_beta")
  template <class T> static T scalar(T a, T b, T x) {
    return jaxcc::detail::in_compute_precision<T>(
        [](auto p, auto q, auto r) { return jaxcc::detail::betainc(p, q, r); }, a, b, x);
  }
  // JAX's betainc_gradx: exp((b - 1) log1p(-x) + (a - 1) log x - lbeta(a, b)).
  template <class A, class B, class X, class DA, class DB, class DX>
  static auto tangent(A const& a, B const& b, X const& x, DA const&, DB const&, DX const& dx) {
    jaxcc::detail::no_tangent_for<DA>("betainc: the gradient with respect to a and b is not supported (as in JAX)");
    jaxcc::detail::no_tangent_for<DB>("betainc: the gradient with respect to a and b is not supported (as in JAX)");
    using T = value_of<X>;
    ScalarLeaf<T> const one{1};
    auto const lbeta = ex<sub_p>(ex<add_p>(ex<lgamma_p>(a), ex<lgamma_p>(b)), ex<lgamma_p>(ex<add_p>(a, b)));
    auto const log_density = ex<sub_p>(ex<add_p>(ex<mul_p>(ex<sub_p>(b, one), ex<log1p_p>(ex<neg_p>(x))),
                                                 ex<mul_p>(ex<sub_p>(a, one), ex<log_p>(x))),
                                       lbeta);
    return fusion::t_scale(dx, ex<exp_p>(log_density));
  }
};

/// lax.zeta(x, q): the Hurwitz zeta function sum_k (k + q)^-x. Its
/// derivative in q is -x zeta(x + 1, q) (jax.scipy.special.zeta's rule);
/// the one in x raises.
struct zeta_p {
  JAXCC_SPECIAL_OP("zeta")
  template <class T> static T scalar(T x, T q) {
    // XLA's zeta is nan at the poles q = 0, -1, -2, ... (hurwitz_zeta: inf).
    if (q <= T(0) && q == std::floor(q)) return std::numeric_limits<T>::quiet_NaN();
    return static_cast<T>(jaxcc::detail::hurwitz_zeta(static_cast<double>(x), static_cast<double>(q)));
  }
  template <class X, class Q, class DX, class DQ>
  static auto tangent(X const& x, Q const& q, DX const&, DQ const& dq) {
    jaxcc::detail::no_tangent_for<DX>("zeta: the derivative with respect to x is not implemented");
    using T = value_of<X>;
    return fusion::t_scale(dq, ex<neg_p>(ex<mul_p>(x, ex<zeta_p>(ex<add_p>(x, ScalarLeaf<T>{1}), q))));
  }
};

/// lax.bessel_i0e: e^-|x| I_0(x).
struct bessel_i0e_p {
  JAXCC_SPECIAL_OP("bessel_i0e")
  template <class T> static T scalar(T x) {
    return static_cast<T>(jaxcc::detail::bessel_i0e(static_cast<double>(x)));
  }
  // JAX's rule: i1e(x) - sign(x) i0e(x).
  template <class A, class DA>
  static auto tangent(A const& a, DA const& da) {
    return fusion::t_scale(da, ex<sub_p>(ex<bessel_i1e_p>(a), ex<mul_p>(ex<sign_p>(a), ex<bessel_i0e_p>(a))));
  }
};

/// lax.bessel_i1e: e^-|x| I_1(x).
struct bessel_i1e_p {
  JAXCC_SPECIAL_OP("bessel_i1e")
  template <class T> static T scalar(T x) {
    return static_cast<T>(jaxcc::detail::bessel_i1e(static_cast<double>(x)));
  }
  // JAX's rule: i0e(x) - i1e(x) (sign(x) + 1/x), and 1/2 where |x| <= eps.
  template <class A, class DA>
  static auto tangent(A const& a, DA const& da) {
    using T = value_of<A>;
    ScalarLeaf<T> const eps{std::numeric_limits<T>::epsilon()};
    auto const not_tiny = ex<gt_p>(ex<abs_p>(a), eps);
    auto const safe = ex<select_p>(not_tiny, a, eps);
    auto const slope = ex<sub_p>(ex<bessel_i0e_p>(safe),
                                 ex<mul_p>(ex<bessel_i1e_p>(a), ex<add_p>(ex<sign_p>(safe), ex<div_p>(ScalarLeaf<T>{1}, safe))));
    return fusion::t_scale(da, ex<select_p>(not_tiny, slope, ScalarLeaf<T>{T(0.5)}));
  }
};

}  // namespace jaxcc::primitives

#undef JAXCC_SPECIAL_OP
