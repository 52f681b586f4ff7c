// Elementwise ops for the jax.scipy.special functions that JAX defines with
// a custom_jvp rule over an elementwise body: xlogy, xlog1py, xlogx (entr's
// and rel_entr's), log_ndtr, expi, expn, erfcx, dawsn, sici's Si and Ci,
// and owens_t. As for jnp.logaddexp
// (logaddexp_p), the custom rule is the op's tangent rule, so the function
// fuses and differentiates as in JAX (make_jaxpr prints the op's name where
// JAX prints a custom_jvp_call). Kernels: kernels/special_integrals.hpp,
// kernels/special_rational.hpp.
#pragma once

#include <cmath>
#include <limits>
#include <numbers>
#include <string_view>

#include "jaxcc/core/dtype.hpp"
#include "jaxcc/fusion/elementwise_arithmetic.hpp"
#include "jaxcc/fusion/elementwise_functions.hpp"
#include "jaxcc/kernels/special_integrals.hpp"
#include "jaxcc/kernels/special_rational.hpp"

#define JAXCC_SCIPY_OP(op_name)                                     \
  static constexpr std::string_view name = op_name;                 \
  template <class T>                                                \
  using result = T;                                                 \
  template <class L>                                                \
  static constexpr bool simd_for = false;

namespace jaxcc::primitives {

/// x log(y), 0 where x = 0 unless y is nan; JAX's rule: dx log(y) + dy x / y.
struct xlogy_p {
  JAXCC_SCIPY_OP("xlogy")
  template <class T> static T scalar(T x, T y) { return x != T(0) || y != y ? T(x * std::log(y)) : T(0); }
  template <class X, class Y, class DX, class DY>
  static auto tangent(X const& x, Y const& y, DX const& dx, DY const& dy) {
    return fusion::t_add(fusion::t_scale(dx, ex<log_p>(y)), fusion::t_scale(dy, ex<div_p>(x, y)));
  }
};

/// x log(1 + y), 0 where x = 0 unless y is nan; JAX's rule: dx log1p(y) + dy x / (1 + y).
struct xlog1py_p {
  JAXCC_SCIPY_OP("xlog1py")
  template <class T> static T scalar(T x, T y) { return x != T(0) || y != y ? T(x * std::log1p(y)) : T(0); }
  template <class X, class Y, class DX, class DY>
  static auto tangent(X const& x, Y const& y, DX const& dx, DY const& dy) {
    using T = value_of<X>;
    return fusion::t_add(fusion::t_scale(dx, ex<log1p_p>(y)),
                         fusion::t_scale(dy, ex<div_p>(x, ex<add_p>(ScalarLeaf<T>{1}, y))));
  }
};

/// x log(x) (0 at 0); JAX's _xlogx rule: dx (log(x) + 1).
struct xlogx_p {
  JAXCC_SCIPY_OP("xlogx")
  template <class T> static T scalar(T x) { return xlogy_p::scalar(x, x); }
  template <class X, class DX>
  static auto tangent(X const& x, DX const& dx) {
    using T = value_of<X>;
    return fusion::t_scale(dx, ex<add_p>(ex<log_p>(x), ScalarLeaf<T>{1}));
  }
};

/// log(ndtr(x)) with series_order (a constant operand) terms of the
/// asymptotic series far left; JAX's rule: dx exp(norm_logpdf(x) - log_ndtr(x)).
struct log_ndtr_p {
  JAXCC_SCIPY_OP("log_ndtr")
  template <class T> static T scalar(T x, T order) {
    using C = jaxcc::detail::compute_t<T>;
    return static_cast<T>(jaxcc::detail::log_ndtr<C>(static_cast<C>(x), static_cast<int>(order)));
  }
  template <class X, class O, class DX, class DO>
  static auto tangent(X const& x, O const& order, DX const& dx, DO const&) {
    using T = value_of<X>;
    auto const logpdf = ex<sub_p>(ex<mul_p>(ScalarLeaf<T>{T(-0.5)}, ex<square_p>(x)),
                                  ScalarLeaf<T>{static_cast<T>(std::log(std::sqrt(2 * std::numbers::pi)))});
    return fusion::t_scale(dx, ex<exp_p>(ex<sub_p>(logpdf, ex<log_ndtr_p>(x, order))));
  }
};

/// Ei(x); JAX's rule: dx exp(x) / x.
struct expi_p {
  JAXCC_SCIPY_OP("expi")
  template <class T> static T scalar(T x) {
    using C = jaxcc::detail::compute_t<T>;
    return static_cast<T>(jaxcc::detail::expi<C>(static_cast<C>(x)));
  }
  template <class X, class DX>
  static auto tangent(X const& x, DX const& dx) {
    return fusion::t_scale(dx, ex<div_p>(ex<exp_p>(x), x));
  }
};

/// E_n(x); n is not differentiated (JAX's nondiff_argnums); JAX's rule: -dx E_{n-1}(x).
struct expn_p {
  JAXCC_SCIPY_OP("expn")
  template <class T> static T scalar(T n, T x) {
    using C = jaxcc::detail::compute_t<T>;
    return static_cast<T>(jaxcc::detail::expn<C>(static_cast<C>(n), static_cast<C>(x)));
  }
  template <class N, class X, class DN, class DX>
  static auto tangent(N const& n, X const& x, DN const&, DX const& dx) {
    using T = value_of<X>;
    return fusion::t_neg(fusion::t_scale(dx, ex<expn_p>(ex<sub_p>(n, ScalarLeaf<T>{1}), x)));
  }
};

/// exp(x^2) erfc(x); JAX's rule: dx (2 x erfcx(x) - 2 / sqrt(pi)).
struct erfcx_p {
  JAXCC_SCIPY_OP("erfcx")
  template <class T> static T scalar(T x) {
    using C = jaxcc::detail::compute_t<T>;
    return static_cast<T>(jaxcc::detail::erfcx<C>(static_cast<C>(x)));
  }
  template <class X, class DX>
  static auto tangent(X const& x, DX const& dx) {
    using T = value_of<X>;
    return fusion::t_scale(dx, ex<sub_p>(ex<mul_p>(ex<mul_p>(ScalarLeaf<T>{2}, x), ex<erfcx_p>(x)),
                                         ScalarLeaf<T>{static_cast<T>(2 / std::sqrt(std::numbers::pi))}));
  }
};

/// Dawson's integral exp(-x^2) int_0^x exp(t^2) dt; JAX's rule: dx (1 - 2 x dawsn(x)).
struct dawsn_p {
  JAXCC_SCIPY_OP("dawsn")
  template <class T> static T scalar(T x) {
    using C = jaxcc::detail::compute_t<T>;
    return static_cast<T>(jaxcc::detail::dawsn<C>(static_cast<C>(x)));
  }
  template <class X, class DX>
  static auto tangent(X const& x, DX const& dx) {
    using T = value_of<X>;
    return fusion::t_scale(dx, ex<sub_p>(ScalarLeaf<T>{1}, ex<mul_p>(ex<mul_p>(ScalarLeaf<T>{2}, x), ex<dawsn_p>(x))));
  }
};

/// sici's sine integral Si(x); JAX's rule: dx sinc(x / pi) = dx sin(x) / x (1 at 0).
struct sici_si_p {
  JAXCC_SCIPY_OP("sici_si")
  template <class T> static T scalar(T x) {
    using C = jaxcc::detail::compute_t<T>;
    C si, ci;
    jaxcc::detail::sici<C>(static_cast<C>(x), si, ci);
    return static_cast<T>(si);
  }
  template <class X, class DX>
  static auto tangent(X const& x, DX const& dx) {
    using T = value_of<X>;
    auto const zero = ex<eq_p>(x, ScalarLeaf<T>{0});
    auto const safe = ex<select_p>(zero, ScalarLeaf<T>{1}, x);
    return fusion::t_scale(dx, ex<select_p>(zero, ScalarLeaf<T>{1}, ex<div_p>(ex<sin_p>(safe), safe)));
  }
};

/// sici's cosine integral Ci(x); JAX's rule: dx cos(x) / x.
struct sici_ci_p {
  JAXCC_SCIPY_OP("sici_ci")
  template <class T> static T scalar(T x) {
    using C = jaxcc::detail::compute_t<T>;
    C si, ci;
    jaxcc::detail::sici<C>(static_cast<C>(x), si, ci);
    return static_cast<T>(ci);
  }
  template <class X, class DX>
  static auto tangent(X const& x, DX const& dx) {
    return fusion::t_scale(dx, ex<div_p>(ex<cos_p>(x), x));
  }
};

/// Owen's T function T(h, a); JAX's rule: dh -exp(-h^2/2) erf(a h / sqrt 2) / (2 sqrt(2 pi))
/// + da exp(-(a^2 + 1) h^2 / 2) / (2 pi (a^2 + 1)).
struct owens_t_p {
  JAXCC_SCIPY_OP("owens_t")
  template <class T> static T scalar(T h, T a) {
    using C = jaxcc::detail::compute_t<T>;
    return static_cast<T>(jaxcc::detail::owens_t<C>(static_cast<C>(h), static_cast<C>(a)));
  }
  template <class H, class A, class DH, class DA>
  static auto tangent(H const& h, A const& a, DH const& dh, DA const& da) {
    using T = value_of<H>;
    auto const h2 = ex<square_p>(h);
    auto const a2p1 = ex<add_p>(ex<square_p>(a), ScalarLeaf<T>{1});
    auto const dout_dh = ex<div_p>(
        ex<neg_p>(ex<mul_p>(ex<exp_p>(ex<mul_p>(ScalarLeaf<T>{T(-0.5)}, h2)),
                            ex<erf_p>(ex<div_p>(ex<mul_p>(a, h), ScalarLeaf<T>{std::numbers::sqrt2_v<T>})))),
        ScalarLeaf<T>{static_cast<T>(2 * std::sqrt(2 * std::numbers::pi))});
    auto const dout_da = ex<div_p>(ex<exp_p>(ex<mul_p>(ex<mul_p>(ScalarLeaf<T>{T(-0.5)}, a2p1), h2)),
                                   ex<mul_p>(ScalarLeaf<T>{static_cast<T>(2 * std::numbers::pi)}, a2p1));
    return fusion::t_add(fusion::t_scale(dh, dout_dh), fusion::t_scale(da, dout_da));
  }
};

}  // namespace jaxcc::primitives

#undef JAXCC_SCIPY_OP
