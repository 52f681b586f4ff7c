// The elementwise primitive family. Each op declares, together: its name,
// its result dtype, its scalar kernel and (where the lane type allows) its
// SIMD kernel. Fused regions (fusion/expr.hpp) are trees of these ops.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "jaxcc/core/dtype.hpp"

namespace jaxcc::detail {
template <class T>
inline constexpr bool is_float = std::is_floating_point_v<T>;
template <class T>
inline constexpr bool is_int = std::is_integral_v<T> && !std::same_as<T, bool>;
}  // namespace jaxcc::detail

namespace jaxcc::primitives {

// Ops whose result has the operand dtype. `simd_for<L>` says whether the
// SIMD kernel exists for lane type L.
#define JAXCC_SAME_TYPE_OP(op_name)                \
  static constexpr std::string_view name = op_name; \
  template <class T>                                \
  using result = T;

struct add_p {
  JAXCC_SAME_TYPE_OP("add")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a, T b) { if constexpr (std::same_as<T, bool>) return a || b; else return a + b; }
  template <class B> static B simd(B const& a, B const& b) { return a + b; }
};
struct sub_p {
  JAXCC_SAME_TYPE_OP("sub")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a, T b) { return a - b; }
  template <class B> static B simd(B const& a, B const& b) { return a - b; }
};
struct mul_p {
  JAXCC_SAME_TYPE_OP("mul")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a, T b) { if constexpr (std::same_as<T, bool>) return a && b; else return a * b; }
  template <class B> static B simd(B const& a, B const& b) { return a * b; }
};
struct div_p {  // only built on floats: integer operands are converted first (true division)
  JAXCC_SAME_TYPE_OP("div")
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
  template <class T> static T scalar(T a, T b) { return a / b; }
  template <class B> static B simd(B const& a, B const& b) { return a / b; }
};
struct pow_p {
  JAXCC_SAME_TYPE_OP("pow")
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
  template <class T> static T scalar(T a, T b) {
    if constexpr (detail::is_float<T>) {
      return std::pow(a, b);
    } else {  // integer power by squaring; negative exponents as JAX: error-free, 0 except |a| == 1
      if (b < 0) return a == 1 ? T{1} : a == -1 ? ((b & 1) ? T{-1} : T{1}) : T{0};
      T result = 1;
      for (T base = a; b > 0; b >>= 1, base *= base)
        if (b & 1) result *= base;
      return result;
    }
  }
  template <class B> static B simd(B const& a, B const& b) { return xsimd::pow(a, b); }
};
// NaN-propagating, as jnp.maximum / jnp.minimum.
struct max_p {
  JAXCC_SAME_TYPE_OP("max")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a, T b) {
    if constexpr (detail::is_float<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a > b ? a : b;
  }
  // xsimd's `!=` on AVX-512 is an ordered compare (false for NaN), so ask isnan.
  template <class B> static B simd(B const& a, B const& b) {
    if constexpr (std::is_floating_point_v<typename B::value_type>)
      return xsimd::select(xsimd::isnan(a), a, xsimd::select(xsimd::isnan(b), b, xsimd::select(a > b, a, b)));
    else
      return xsimd::select(a > b, a, b);
  }
};
struct min_p {
  JAXCC_SAME_TYPE_OP("min")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a, T b) {
    if constexpr (detail::is_float<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? a : b;
  }
  // xsimd's `!=` on AVX-512 is an ordered compare (false for NaN), so ask isnan.
  template <class B> static B simd(B const& a, B const& b) {
    if constexpr (std::is_floating_point_v<typename B::value_type>)
      return xsimd::select(xsimd::isnan(a), a, xsimd::select(xsimd::isnan(b), b, xsimd::select(a < b, a, b)));
    else
      return xsimd::select(a < b, a, b);
  }
};

struct neg_p {
  JAXCC_SAME_TYPE_OP("neg")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a) { return -a; }
  template <class B> static B simd(B const& a) { return -a; }
};
struct abs_p {
  JAXCC_SAME_TYPE_OP("abs")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a) { if constexpr (std::same_as<T, bool>) return a; else return a < 0 ? T(-a) : a; }
  template <class B> static B simd(B const& a) { return xsimd::abs(a); }
};
struct sign_p {  // sign(0) = 0, sign(nan) = nan
  JAXCC_SAME_TYPE_OP("sign")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a) {
    if constexpr (std::same_as<T, bool>) return a;
    else return a > 0 ? T(1) : a < 0 ? T(-1) : a;
  }
  template <class B> static B simd(B const& a) {
    return xsimd::select(a > B(0), B(1), xsimd::select(a < B(0), B(-1), a));
  }
};
struct square_p {
  JAXCC_SAME_TYPE_OP("square")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a) { if constexpr (std::same_as<T, bool>) return a; else return a * a; }
  template <class B> static B simd(B const& a) { return a * a; }
};

// Floating-point functions: built only on float lanes (integers are converted first).
#define JAXCC_FLOAT_UNARY_OP(type, op_name, std_fn, simd_fn)                   \
  struct type {                                                              \
    JAXCC_SAME_TYPE_OP(op_name)                                              \
    template <class L> static constexpr bool simd_for = detail::is_float<L>; \
    template <class T> static T scalar(T a) { return std_fn(a); }            \
    template <class B> static B simd(B const& a) { return simd_fn(a); }      \
  };
JAXCC_FLOAT_UNARY_OP(sqrt_p, "sqrt", std::sqrt, xsimd::sqrt)
JAXCC_FLOAT_UNARY_OP(exp_p, "exp", std::exp, xsimd::exp)
JAXCC_FLOAT_UNARY_OP(log_p, "log", std::log, xsimd::log)
JAXCC_FLOAT_UNARY_OP(log1p_p, "log1p", std::log1p, xsimd::log1p)
JAXCC_FLOAT_UNARY_OP(expm1_p, "expm1", std::expm1, xsimd::expm1)
JAXCC_FLOAT_UNARY_OP(sin_p, "sin", std::sin, xsimd::sin)
JAXCC_FLOAT_UNARY_OP(cos_p, "cos", std::cos, xsimd::cos)
JAXCC_FLOAT_UNARY_OP(tan_p, "tan", std::tan, xsimd::tan)
JAXCC_FLOAT_UNARY_OP(tanh_p, "tanh", std::tanh, xsimd::tanh)
JAXCC_FLOAT_UNARY_OP(atan_p, "atan", std::atan, xsimd::atan)
JAXCC_FLOAT_UNARY_OP(floor_p, "floor", std::floor, xsimd::floor)
// numpy rounds half to even, which is the default rounding mode's nearbyint.
JAXCC_FLOAT_UNARY_OP(round_p, "round", std::nearbyint, xsimd::nearbyint)
#undef JAXCC_FLOAT_UNARY_OP

struct logistic_p {  // 1 / (1 + exp(-x)), jax.nn.sigmoid's primitive
  JAXCC_SAME_TYPE_OP("logistic")
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
  template <class T> static T scalar(T a) { return T(1) / (T(1) + std::exp(-a)); }
  template <class B> static B simd(B const& a) { return B(1) / (B(1) + xsimd::exp(-a)); }
};

#undef JAXCC_SAME_TYPE_OP

// Comparisons: operands share a dtype, the result is bool. Their SIMD form
// yields a lane mask that `select_p` consumes inside a fused region.
#define JAXCC_COMPARE_OP(type, op_name, op, simd_expr)                     \
  struct type {                                                           \
    static constexpr std::string_view name = op_name;                     \
    template <class T> using result = bool;                               \
    template <class L> static constexpr bool simd_for = !std::same_as<L, bool>; \
    template <class T> static bool scalar(T a, T b) { return a op b; }    \
    template <class B> static auto simd(B const& a, B const& b) { return simd_expr; } \
  };
JAXCC_COMPARE_OP(eq_p, "eq", ==, a == b)
// xsimd's `!=` is an ordered compare on some targets (NaN != NaN is false); numpy wants true.
JAXCC_COMPARE_OP(ne_p, "ne", !=, !(a == b))
JAXCC_COMPARE_OP(lt_p, "lt", <, a < b)
JAXCC_COMPARE_OP(le_p, "le", <=, a <= b)
JAXCC_COMPARE_OP(gt_p, "gt", >, a > b)
JAXCC_COMPARE_OP(ge_p, "ge", >=, a >= b)
#undef JAXCC_COMPARE_OP

struct and_p {
  static constexpr std::string_view name = "and";
  template <class T> using result = T;
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a, T b) { if constexpr (std::same_as<T, bool>) return a && b; else return a & b; }
};
struct or_p {
  static constexpr std::string_view name = "or";
  template <class T> using result = T;
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a, T b) { if constexpr (std::same_as<T, bool>) return a || b; else return a | b; }
};
struct not_p {
  static constexpr std::string_view name = "not";
  template <class T> using result = T;
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a) { if constexpr (std::same_as<T, bool>) return !a; else return ~a; }
};

/// select(pred, on_true, on_false): jnp.where's primitive (lax.select_n).
struct select_p {
  static constexpr std::string_view name = "select_n";
  template <class T> using result = T;
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(bool c, T a, T b) { return c ? a : b; }
  template <class M, class B> static B simd(M const& c, B const& a, B const& b) { return xsimd::select(c, a, b); }
};

/// convert_element_type to U. Float to integer saturates and maps NaN to 0
/// (a plain cast would be undefined behaviour there).
template <Element U>
struct convert_p {
  static constexpr std::string_view name = "convert_element_type";
  template <class T> using result = U;
  template <class L> static constexpr bool simd_for = false;
  template <class T> static U scalar(T a) {
    if constexpr (detail::is_float<T> && detail::is_int<U>) {
      if (a != a) return U{0};
      if (a >= static_cast<T>(std::numeric_limits<U>::max())) return std::numeric_limits<U>::max();
      if (a <= static_cast<T>(std::numeric_limits<U>::min())) return std::numeric_limits<U>::min();
      return static_cast<U>(a);
    } else if constexpr (std::same_as<U, bool>) {
      return a != T{0};
    } else {
      return static_cast<U>(a);
    }
  }
};

}  // namespace jaxcc::primitives
