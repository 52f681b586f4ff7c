// The elementwise ops of the floating-point functions: exponentials and
// logarithms, trigonometric and hyperbolic functions, roots, erf and its
// inverse, the gamma family, and the fused a * b + c (fusion/elementwise.hpp
// brings them with the arithmetic ops their tangent rules use).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "jaxcc/core/dtype.hpp"
#include "jaxcc/fusion/elementwise_arithmetic.hpp"
#include "jaxcc/kernels/special_functions.hpp"

namespace jaxcc::detail {

/// xsimd's exp family turns its argument into an integer exponent before it
/// checks the range, and without a hardware 64-bit conversion (below AVX-512)
/// that conversion is undefined past the integer range, NaN included. Past
/// ±1000 the results are already 0, ±1 or inf, so the SIMD kernels clamp
/// there first; double NaN lanes go in as 0 and come out as the NaN they
/// were (float converts in hardware, where NaN is defined).
template <class B>
B exp_domain(B const& a) {
  auto const clamped = xsimd::select(a > B(1000), B(1000), xsimd::select(a < B(-1000), B(-1000), a));
  if constexpr (std::same_as<typename B::value_type, double>) return xsimd::select(xsimd::isnan(a), B(0), clamped);
  else return clamped;
}
template <class B, class F>
B on_exp_domain(B const& a, F&& f) {
  if constexpr (std::same_as<typename B::value_type, double>) return xsimd::select(xsimd::isnan(a), a, f(exp_domain(a)));
  else return f(exp_domain(a));
}
template <class B>
B simd_exp(B const& a) {
  return on_exp_domain(a, [](B const& x) { return xsimd::exp(x); });
}
/// expm1 and log1p keep a zero's sign, as the C library's and XLA's do
/// (xsimd's give +0 for -0).
template <class B>
B simd_expm1(B const& a) {
  return xsimd::select(a == B(0), a, on_exp_domain(a, [](B const& x) { return xsimd::expm1(x); }));
}
template <class B>
B simd_log1p(B const& a) {
  return xsimd::select(a == B(0), a, xsimd::log1p(a));
}
template <class B>
B simd_tanh(B const& a) {
  return on_exp_domain(a, [](B const& x) { return xsimd::tanh(x); });
}
/// xsimd's erf goes through its exp, so an infinite or NaN argument meets
/// the same undefined conversion (exp_domain). erf is ±1 past |a| = 6 in
/// both precisions: the argument is clamped to ±10 first, and a double
/// NaN lane comes out as the NaN it was. erf is odd and keeps its
/// argument's sign, -0 included (xsimd's gives +0 there).
template <class B>
B simd_erf(B const& a) {
  auto const clamped = xsimd::select(a > B(10), B(10), xsimd::select(a < B(-10), B(-10), a));
  if constexpr (std::same_as<typename B::value_type, double>)
    return xsimd::select(xsimd::isnan(a), a,
                         xsimd::copysign(xsimd::erf(xsimd::select(xsimd::isnan(a), B(0), clamped)), a));
  else return xsimd::copysign(xsimd::erf(clamped), a);
}

/// xsimd's cbrt, right for float64 subnormals too. Its own rescaling of a
/// subnormal (xsimd 8.1 and 14.3) multiplies by 2^52 and divides the root
/// by the cube root of 2^53, 21% low (cbrt(5e-324) gives 1.35e-108, not
/// 1.70e-108); scaled here by 2^54 = (2^18)^3 first, the argument is
/// normal, and the root is scaled back exactly. float32's is right.
template <class B>
B simd_cbrt(B const& a) {
  using T = typename B::value_type;
  if constexpr (std::same_as<T, double>) {
    auto const subnormal = xsimd::abs(a) < B(std::numeric_limits<double>::min());
    auto const root = xsimd::cbrt(xsimd::select(subnormal, a * B(0x1p54), a));
    return xsimd::select(subnormal, root * B(0x1p-18), root);
  } else {
    return xsimd::cbrt(a);
  }
}

template <class T>
T scalar_rsqrt(T a) {
  return T(1) / std::sqrt(a);
}
template <class B>
B simd_rsqrt(B const& a) {
  return B(typename B::value_type(1)) / xsimd::sqrt(a);
}
template <class B>
B simd_sinh(B const& a) {
  return on_exp_domain(a, [](B const& x) { return xsimd::sinh(x); });
}
template <class B>
B simd_cosh(B const& a) {
  return on_exp_domain(a, [](B const& x) { return xsimd::cosh(x); });
}
/// xsimd's exp2, right up to the largest finite results: its own overflows
/// a half exponent early (float exp2(127.5) and double exp2(1023.5) come
/// out inf, in xsimd 8.1 and 14.3), so the top binade is exp2(x - 1) * 2.
/// Its domain is clamped at +-2000 (past every float's range) for the
/// reason of exp_domain.
template <class B>
B simd_exp2(B const& a) {
  using T = typename B::value_type;
  auto const top = B(T(std::numeric_limits<T>::max_exponent - 1));
  auto x = xsimd::select(a > B(2000), B(2000), xsimd::select(a < B(-2000), B(-2000), a));
  if constexpr (std::same_as<T, double>) x = xsimd::select(xsimd::isnan(a), B(0), x);
  auto const out = xsimd::select(x > top, xsimd::exp2(x - B(1)) * B(2), xsimd::exp2(x));
  return xsimd::select(xsimd::isnan(a), a, out);
}
/// xsimd's acosh, nan below 1 as the C library's: xsimd's float acosh of
/// large negative arguments is -inf (acosh(-1e5), xsimd 8.1 and 14.3).
template <class B>
B simd_acosh(B const& a) {
  using T = typename B::value_type;
  return xsimd::select(a < B(1), B(std::numeric_limits<T>::quiet_NaN()), xsimd::acosh(a));
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct cos_p;
struct sin_p;
struct tan_p;
struct tanh_p;
struct exp_p;
struct expm1_p;
struct sqrt_p;
struct cbrt_p;
struct sinh_p;
struct cosh_p;
struct rsqrt_p;
JAXCC_FLOAT_UNARY_OP(sqrt_p, "sqrt", std::sqrt, xsimd::sqrt, false,
                     return fusion::t_div(da, ex<mul_p>(ScalarLeaf<value_of<A>>{2}, ex<sqrt_p>(a)));)
// The real cube root (cbrt(-8) = -2); JAX's rule: g * (1/3) * cbrt(a)^-2,
// its integer_pow(ans, -2) being 1 / (ans * ans).
JAXCC_FLOAT_UNARY_OP_IF(cbrt_p, "cbrt", std::cbrt, detail::simd_cbrt, detail::xsimd_log_compiles, true,
                        using T = value_of<A>;
                        return fusion::t_scale(da, ex<mul_p>(ScalarLeaf<T>{T(1.0 / 3.0)},
                                                             ex<div_p>(one, ex<square_p>(ex<cbrt_p>(a)))));)
JAXCC_FLOAT_UNARY_OP(exp_p, "exp", std::exp, detail::simd_exp, true, return fusion::t_scale(da, ex<exp_p>(a));)
JAXCC_FLOAT_UNARY_OP_IF(log_p, "log", std::log, xsimd::log, detail::xsimd_log_compiles, true, return fusion::t_div(da, a);)
JAXCC_FLOAT_UNARY_OP(log1p_p, "log1p", std::log1p, detail::simd_log1p, true, return fusion::t_div(da, ex<add_p>(one, a));)
JAXCC_FLOAT_UNARY_OP(expm1_p, "expm1", std::expm1, detail::simd_expm1, true,
                     return fusion::t_scale(da, ex<add_p>(ex<expm1_p>(a), one));)
JAXCC_FLOAT_UNARY_OP(sin_p, "sin", std::sin, xsimd::sin, true, return fusion::t_scale(da, ex<cos_p>(a));)
JAXCC_FLOAT_UNARY_OP(cos_p, "cos", std::cos, xsimd::cos, true, return fusion::t_neg(fusion::t_scale(da, ex<sin_p>(a)));)
JAXCC_FLOAT_UNARY_OP(tan_p, "tan", std::tan, xsimd::tan, true,
                     return fusion::t_scale(da, ex<add_p>(one, ex<square_p>(ex<tan_p>(a))));)
JAXCC_FLOAT_UNARY_OP(tanh_p, "tanh", std::tanh, detail::simd_tanh, true,
                     return fusion::t_scale(da, ex<sub_p>(one, ex<square_p>(ex<tanh_p>(a))));)
JAXCC_FLOAT_UNARY_OP(atan_p, "atan", std::atan, xsimd::atan, true,
                     return fusion::t_div(da, ex<add_p>(one, ex<square_p>(a)));)
// The hyperbolic functions and the inverse trigonometric and hyperbolic
// ones, with JAX's rules (asin: g rsqrt(1 - x^2); acosh: g rsqrt(x^2 - 1);
// atanh: (1 / (1 + x)) (g / (1 - x))).
JAXCC_FLOAT_UNARY_OP(sinh_p, "sinh", std::sinh, detail::simd_sinh, true, return fusion::t_scale(da, ex<cosh_p>(a));)
JAXCC_FLOAT_UNARY_OP(cosh_p, "cosh", std::cosh, detail::simd_cosh, true, return fusion::t_scale(da, ex<sinh_p>(a));)
JAXCC_FLOAT_UNARY_OP(asin_p, "asin", std::asin, xsimd::asin, true,
                     return fusion::t_scale(da, ex<rsqrt_p>(ex<sub_p>(one, ex<square_p>(a))));)
JAXCC_FLOAT_UNARY_OP(acos_p, "acos", std::acos, xsimd::acos, true,
                     return fusion::t_scale(da, ex<neg_p>(ex<rsqrt_p>(ex<sub_p>(one, ex<square_p>(a)))));)
// xsimd 8's float asinh makes log's integer select (detail::xsimd_log_compiles).
JAXCC_FLOAT_UNARY_OP_IF(asinh_p, "asinh", std::asinh, xsimd::asinh, detail::xsimd_log_compiles, true,
                        return fusion::t_scale(da, ex<rsqrt_p>(ex<add_p>(ex<square_p>(a), one)));)
JAXCC_FLOAT_UNARY_OP(acosh_p, "acosh", std::acosh, detail::simd_acosh, true,
                     return fusion::t_scale(da, ex<rsqrt_p>(ex<sub_p>(ex<square_p>(a), one)));)
JAXCC_FLOAT_UNARY_OP(atanh_p, "atanh", std::atanh, xsimd::atanh, true,
                     return fusion::t_scale(fusion::t_div(da, ex<sub_p>(one, a)), ex<div_p>(one, ex<add_p>(one, a)));)
// 2^x; JAX's rule: log(2) * (g * exp2(x)).
JAXCC_FLOAT_UNARY_OP(exp2_p, "exp2", std::exp2, detail::simd_exp2, true,
                     using T = value_of<A>;
                     return fusion::t_scale(fusion::t_scale(da, ex<exp2_p>(a)), ScalarLeaf<T>{T(0.69314718055994531)});)
// 1 / sqrt(x), correctly rounded twice (xsimd's rsqrt is an estimate); JAX's rule: g * (-0.5 * (ans / x)).
JAXCC_FLOAT_UNARY_OP(rsqrt_p, "rsqrt", detail::scalar_rsqrt, detail::simd_rsqrt, false,
                     using T = value_of<A>;
                     return fusion::t_scale(da, ex<mul_p>(ScalarLeaf<T>{T(-0.5)}, ex<div_p>(ex<rsqrt_p>(a), a)));)
JAXCC_FLOAT_UNARY_OP(floor_p, "floor", std::floor, xsimd::floor, false, return Zero<value_of<A>>{};)
#define JAXCC_ROUND_OP(type, method, std_fn, simd_fn)                                      \
  struct type {                                                                           \
    JAXCC_SAME_TYPE_OP("round")                                                           \
    static std::string params_string() { return "rounding_method=" #method; }             \
    template <class L> static constexpr bool simd_for = detail::is_float<L>;              \
    static constexpr bool long_kernel = false;                                            \
    template <class T> static T scalar(T a) { return std_fn(a); }                         \
    template <class B> static B simd(B const& a) { return simd_fn(a); }                   \
    template <class A, class DA>                                                          \
    static auto tangent(A const&, DA const&) { return Zero<value_of<A>>{}; }              \
  };
// lax.round with RoundingMethod.TO_NEAREST_EVEN (1), as numpy rounds: the
// default rounding mode's nearbyint.
JAXCC_ROUND_OP(round_p, 1, std::nearbyint, xsimd::nearbyint)
// lax.round's default, RoundingMethod.AWAY_FROM_ZERO (0): halves away from zero.
JAXCC_ROUND_OP(round_away_p, 0, std::round, xsimd::round)
#undef JAXCC_ROUND_OP
#undef JAXCC_FLOAT_UNARY_OP
#undef JAXCC_FLOAT_UNARY_OP_IF

struct logistic_p {  // 1 / (1 + exp(-x)), jax.nn.sigmoid's primitive
  JAXCC_SAME_TYPE_OP("logistic")
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
  static constexpr bool long_kernel = true;
  template <class T> static T scalar(T a) { return T(1) / (T(1) + std::exp(-a)); }
  template <class B> static B simd(B const& a) { return B(1) / (B(1) + detail::simd_exp(B(-a))); }
  template <class A, class DA>
  static auto tangent(A const& a, DA const& da) {
    auto const s = ex<logistic_p>(a);
    return fusion::t_scale(da, ex<mul_p>(s, ex<sub_p>(ScalarLeaf<value_of<A>>{1}, s)));
  }
};

/// a * b + c rounded once. XLA on CPU contracts jax.random.uniform's
/// `floats * (maxval - minval) + minval` into one, so the samplers use this
/// to give its bits. SIMD only where the target has the instruction: xsimd
/// emulates fma elsewhere with two roundings; std::fma is exact everywhere.
struct fma_p {
  JAXCC_SAME_TYPE_OP("fma")
#ifdef __FMA__
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
#else
  template <class L> static constexpr bool simd_for = false;
#endif
  template <class T> static T scalar(T a, T b, T c) {
    if constexpr (detail::is_float<T>) return std::fma(a, b, c);
    else return static_cast<T>(a * b + c);
  }
  template <class B> static B simd(B const& a, B const& b, B const& c) { return xsimd::fma(a, b, c); }
  template <class A, class B, class C, class DA, class DB, class DC>
  static auto tangent(A const& a, B const& b, C const&, DA const& da, DB const& db, DC const& dc) {
    return fusion::t_add(fusion::t_add(fusion::t_scale(da, b), fusion::t_scale(db, a)), dc);
  }
};

/// lax.rem: the remainder of truncated division, with the dividend's sign
/// (C's `%`, fmod on floats). An integer remainder by zero is the dividend,
/// and INT_MIN % -1 is 0, as XLA defines them.
struct div_p;
struct rem_p {
  JAXCC_SAME_TYPE_OP("rem")
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a, T b) {
    if constexpr (detail::is_float<T>) {
      return std::fmod(a, b);
    } else if constexpr (std::same_as<T, bool>) {
      return b ? false : a;
    } else {
      if (b == 0) return a;
      if constexpr (std::is_signed_v<T>)
        if (b == -1) return 0;
      return static_cast<T>(a % b);
    }
  }
  // JAX's rule: d/da = 1; d/db = -sign(a / b) * floor(|a / b|).
  template <class A, class B, class DA, class DB>
  static auto tangent(A const& a, B const& b, DA const& da, DB const& db) {
    auto const q = ex<div_p>(a, b);
    return fusion::t_add(da, fusion::t_neg(fusion::t_scale(db, ex<mul_p>(ex<sign_p>(q), ex<floor_p>(ex<abs_p>(q))))));
  }
};

struct erf_p {
  JAXCC_SAME_TYPE_OP("erf")
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
  static constexpr bool long_kernel = true;
  template <class T> static T scalar(T a) { return std::erf(a); }
  template <class B> static B simd(B const& a) { return detail::simd_erf(a); }
  template <class A, class DA>
  static auto tangent(A const& a, DA const& da) {  // 2/sqrt(pi) exp(-a^2)
    using T = value_of<A>;
    return fusion::t_scale(da, ex<mul_p>(ScalarLeaf<T>{T(1.1283791670955126)}, ex<exp_p>(ex<neg_p>(ex<square_p>(a)))));
  }
};

struct erfc_p {  // 1 - erf(a), without the cancellation for large a
  JAXCC_SAME_TYPE_OP("erfc")
  // float64 scalar only: xsimd's double erfc is off by 1e-9 relative in the
  // tail (erfc(20)), where the C library's is within an ulp of XLA's.
  template <class L> static constexpr bool simd_for = std::same_as<L, float>;
  static constexpr bool long_kernel = true;
  template <class T> static T scalar(T a) { return std::erfc(a); }
  // erfc is never negative; xsimd's gives -0.0 past its underflow, XLA's 0.0.
  template <class B> static B simd(B const& a) { return xsimd::abs(xsimd::erfc(a)); }
  template <class A, class DA>
  static auto tangent(A const& a, DA const& da) {  // -2/sqrt(pi) exp(-a^2)
    using T = value_of<A>;
    return fusion::t_scale(da, ex<mul_p>(ScalarLeaf<T>{T(-1.1283791670955126)}, ex<exp_p>(ex<neg_p>(ex<square_p>(a)))));
  }
};

/// lax.atan2(a, b): the angle of the point (b, a), in the quadrant the signs pick.
struct atan2_p {
  JAXCC_SAME_TYPE_OP("atan2")
  // Scalar only: xsimd 8's atan2 gives nan at (0, 0) and (-inf, -inf), where IEEE (and XLA) give 0 and -3pi/4.
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a, T b) { return std::atan2(a, b); }
  // JAX's rule: d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
  template <class A, class B, class DA, class DB>
  static auto tangent(A const& a, B const& b, DA const& da, DB const& db) {
    auto const norm = ex<add_p>(ex<square_p>(a), ex<square_p>(b));
    return fusion::t_add(fusion::t_scale(da, ex<div_p>(b, norm)), fusion::t_scale(db, ex<div_p>(ex<neg_p>(a), norm)));
  }
};

/// jnp.logaddexp, log(exp(a) + exp(b)) without overflow, computed as JAX
/// does: max(a, b) + log1p(exp(-|a - b|)), or a + b where a - b is nan (a
/// nan operand, or infinities of one sign). JAX defines it with a
/// custom_jvp; here that rule is the op's tangent rule, so it fuses.
struct logaddexp_p {
  JAXCC_SAME_TYPE_OP("logaddexp")
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
  static constexpr bool long_kernel = true;
  template <class T> static T scalar(T a, T b) {
    T const delta = a - b;
    if (std::isnan(delta)) return a + b;
    return std::max(a, b) + std::log1p(std::exp(-std::abs(delta)));
  }
  template <class B> static B simd(B const& a, B const& b) {
    B const delta = a - b;
    return xsimd::select(xsimd::isnan(delta), a + b,
                         xsimd::max(a, b) + xsimd::log1p(detail::simd_exp(B(-xsimd::abs(delta)))));
  }
  // JAX's custom_jvp rule: d/da = exp(a - out), d/db = exp(b - out), with
  // +inf read as 0 on both sides of each difference, so that an infinite
  // operand gives 1 (or 0), not nan.
  template <class A, class B, class DA, class DB>
  static auto tangent(A const& a, B const& b, DA const& da, DB const& db) {
    using T = value_of<A>;
    auto const replace_inf = [](auto const& x) {
      return ex<select_p>(ex<eq_p>(x, ScalarLeaf<T>{std::numeric_limits<T>::infinity()}), ScalarLeaf<T>{0}, x);
    };
    auto const out = replace_inf(ex<logaddexp_p>(a, b));
    return fusion::t_add(fusion::t_scale(da, ex<exp_p>(ex<sub_p>(replace_inf(a), out))),
                         fusion::t_scale(db, ex<exp_p>(ex<sub_p>(replace_inf(b), out))));
  }
};

/// jnp.logaddexp2, log2(2^a + 2^b), as logaddexp_p in base 2: max(a, b) +
/// log1p(exp2(-|a - b|)) / log(2), or a + b where a - b is nan, with JAX's
/// custom_jvp rule (exp2(a - out), exp2(b - out), +inf read as 0) as its
/// tangent rule.
struct logaddexp2_p {
  JAXCC_SAME_TYPE_OP("logaddexp2")
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
  static constexpr bool long_kernel = true;
  static constexpr double inverse_log2 = 1.4426950408889634;
  template <class T> static T scalar(T a, T b) {
    T const delta = a - b;
    if (std::isnan(delta)) return a + b;
    return std::max(a, b) + T(inverse_log2) * std::log1p(std::exp2(-std::abs(delta)));
  }
  template <class B> static B simd(B const& a, B const& b) {
    using T = typename B::value_type;
    B const delta = a - b;
    return xsimd::select(xsimd::isnan(delta), a + b,
                         xsimd::max(a, b) + B(T(inverse_log2)) * xsimd::log1p(detail::simd_exp2(B(-xsimd::abs(delta)))));
  }
  template <class A, class B, class DA, class DB>
  static auto tangent(A const& a, B const& b, DA const& da, DB const& db) {
    using T = value_of<A>;
    auto const replace_inf = [](auto const& x) {
      return ex<select_p>(ex<eq_p>(x, ScalarLeaf<T>{std::numeric_limits<T>::infinity()}), ScalarLeaf<T>{0}, x);
    };
    auto const out = replace_inf(ex<logaddexp2_p>(a, b));
    return fusion::t_add(fusion::t_scale(da, ex<exp2_p>(ex<sub_p>(replace_inf(a), out))),
                         fusion::t_scale(db, ex<exp2_p>(ex<sub_p>(replace_inf(b), out))));
  }
};

/// lax.nextafter(a, b): the float after a in the direction of b. Scalar
/// only: xsimd's is wrong at zeros, infinities, the largest finite values
/// and nan directions (8.1 and 14.3). JAX defines no derivative; here it is 0.
struct nextafter_p {
  JAXCC_SAME_TYPE_OP("nextafter")
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a, T b) { return std::nextafter(a, b); }
  template <class A, class B, class DA, class DB>
  static auto tangent(A const&, B const&, DA const&, DB const&) { return Zero<value_of<A>>{}; }
};

/// lax.is_finite: neither infinite nor nan. Its SIMD form is a lane mask, as a comparison's.
struct is_finite_p {
  static constexpr std::string_view name = "is_finite";
  template <class T> using result = bool;
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
  template <class T> static bool scalar(T a) { return std::isfinite(a); }
  template <class B> static auto simd(B const& a) { return xsimd::isfinite(a); }
  template <class A, class DA>
  static auto tangent(A const&, DA const&) { return Zero<bool>{}; }
};

}  // namespace jaxcc::primitives

namespace jaxcc::detail {

/// XLA's float32 erf_inv (Giles' single-precision approximation), written
/// once for scalars and SIMD lanes so that normal samples are XLA's to the
/// ulp of log1p: w = -log1p(-x^2), a degree-8 polynomial in w - 2.5 below
/// w = 5 and in sqrt(w) - 3 above, times x; erf_inv(+-1) = +-inf. Where
/// every lane lies below w = 5 (`all` of the mask: most batches of a
/// normal draw, |x| < 0.9966), the central polynomial alone: the same
/// operations on those lanes, without the other branch and the selects.
template <class V, class Select, class Sqrt, class Log1p, class Abs, class All>
V giles_erf_inv(V const& x, Select select, Sqrt sqrt_fn, Log1p log1p_fn, Abs abs_fn, All all) {
  static constexpr float small[] = {2.81022636e-08f, 3.43273939e-07f, -3.5233877e-06f, -4.39150654e-06f, 0.00021858087f,
                                    -0.00125372503f, -0.00417768164f, 0.246640727f,    1.50140941f};
  static constexpr float large[] = {-0.000200214257f, 0.000100950558f, 0.00134934322f, -0.00367342844f, 0.00573950773f,
                                    -0.0076224613f,   0.00943887047f,  1.00167406f,    2.83297682f};
  V w = -log1p_fn(-(x * x));
  auto const lt = w < V(5.0f);
  if (all(lt)) {
    w = w - V(2.5f);
    V p = V(small[0]);
    for (int i = 1; i < 9; ++i) p = V(small[i]) + p * w;
    return p * x;
  }
  w = select(lt, w - V(2.5f), sqrt_fn(w) - V(3.0f));
  V p = select(lt, V(small[0]), V(large[0]));
  for (int i = 1; i < 9; ++i) p = select(lt, V(small[i]), V(large[i])) + p * w;
  return select(abs_fn(x) == V(1.0f), x * V(std::numeric_limits<float>::infinity()), p * x);
}

/// erf_inv in float64: the float32 estimate refined by two Newton steps on
/// erf(y) = x, which reach double precision from float precision.
inline double erf_inv_double(double x) {
  if (!(std::abs(x) < 1.0)) return std::abs(x) == 1.0 ? x * std::numeric_limits<double>::infinity() : std::nan("");
  auto y = static_cast<double>(giles_erf_inv<float>(
      static_cast<float>(x), [](bool c, float a, float b) { return c ? a : b; }, [](float v) { return std::sqrt(v); },
      [](float v) { return std::log1p(v); }, [](float v) { return std::abs(v); }, [](bool c) { return c; }));
  if (std::isinf(y)) y = std::copysign(5.9, x);  // x rounded to +-1 in float: start near erf_inv(1 - 2^-53)
  for (int i = 0; i < 2; ++i) y -= (std::erf(y) - x) / (1.1283791670955126 * std::exp(-y * y));
  return y;
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

/// lax.erf_inv: the inverse of erf on (-1, 1); what normal samples are made of.
struct erf_inv_p {
  JAXCC_SAME_TYPE_OP("erf_inv")
  template <class L> static constexpr bool simd_for = std::same_as<L, float>;
  static constexpr bool long_kernel = true;
  template <class T> static T scalar(T a) {
    if constexpr (std::same_as<T, float>)
      return detail::giles_erf_inv<float>(
          a, [](bool c, float x, float y) { return c ? x : y; }, [](float v) { return std::sqrt(v); },
          [](float v) { return std::log1p(v); }, [](float v) { return std::abs(v); }, [](bool c) { return c; });
    else
      return static_cast<T>(detail::erf_inv_double(static_cast<double>(a)));
  }
  template <class B> static B simd(B const& a) {
    return detail::giles_erf_inv<B>(
        a, [](auto const& c, B const& x, B const& y) { return xsimd::select(c, x, y); },
        [](B const& v) { return xsimd::sqrt(v); }, [](B const& v) { return xsimd::log1p(v); },
        [](B const& v) { return xsimd::abs(v); }, [](auto const& c) { return xsimd::all(c); });
  }
  template <class A, class DA>
  static auto tangent(A const& a, DA const& da) {  // sqrt(pi)/2 exp(erf_inv(a)^2)
    using T = value_of<A>;
    return fusion::t_scale(da, ex<mul_p>(ScalarLeaf<T>{T(0.88622692545275801)}, ex<exp_p>(ex<square_p>(ex<erf_inv_p>(a)))));
  }
};

struct polygamma_p;
/// lax.lgamma: log |Gamma(a)| (bits/special_functions.hpp; scalar).
struct lgamma_p {
  JAXCC_SAME_TYPE_OP("lgamma")
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a) { return static_cast<T>(detail::lanczos_lgamma(static_cast<double>(a))); }
  template <class A, class DA>
  static auto tangent(A const& a, DA const& da);  // digamma(a), below
};
/// lax.digamma: the derivative of lgamma.
struct digamma_p {
  JAXCC_SAME_TYPE_OP("digamma")
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a) { return static_cast<T>(detail::cephes_digamma(static_cast<double>(a))); }
  template <class A, class DA>
  static auto tangent(A const& a, DA const& da) {  // polygamma(1, a)
    using T = value_of<A>;
    return fusion::t_scale(da, ex<polygamma_p>(ScalarLeaf<T>{T(1)}, a));
  }
};
/// lax.polygamma(m, x): the m-th derivative of digamma. jaxcc takes m as a
/// number, so it is never differentiated (JAX raises for a tangent of m).
struct polygamma_p {
  JAXCC_SAME_TYPE_OP("polygamma")
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T m, T x) {
    return static_cast<T>(detail::polygamma(static_cast<double>(m), static_cast<double>(x)));
  }
  template <class A, class B, class DA, class DB>
  static auto tangent(A const& m, B const& x, DA const&, DB const& dx) {  // polygamma(m + 1, x)
    using T = value_of<B>;
    return fusion::t_scale(dx, ex<polygamma_p>(ex<add_p>(m, ScalarLeaf<T>{T(1)}), x));
  }
};
template <class A, class DA>
auto lgamma_p::tangent(A const& a, DA const& da) {
  return fusion::t_scale(da, ex<digamma_p>(a));
}

}  // namespace jaxcc::primitives

#undef JAXCC_SAME_TYPE_OP
