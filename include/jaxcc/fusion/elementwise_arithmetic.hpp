// The elementwise ops of arithmetic, comparison, logic and conversion, and
// the combinators their tangent rules are built with (fusion/elementwise.hpp
// is the family's header: it brings these and the floating-point functions,
// fusion/elementwise_functions.hpp).
//
// A tangent rule `tangent(args..., dargs...)` builds the expression of the
// op's output tangent from its operands and their tangents. Tangents may be
// the symbolic `fusion::Zero<T>` / `fusion::One<T>`, which the combinators
// below fold away, so a derivative carries no work for what cannot vary.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <string>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "jaxcc/core/dtype.hpp"
#include "jaxcc/fusion/expr_core.hpp"
#include "jaxcc/kernels/special_functions.hpp"

namespace jaxcc::detail {
template <class T>
inline constexpr bool is_int = std::is_integral_v<T> && !std::same_as<T, bool>;
template <class T>
inline constexpr bool is_unsigned = is_int<T> && std::is_unsigned_v<T>;
// Lanes whose order-dependent SIMD ops (compare, min, max, abs) xsimd gets
// right on every target: floats and signed integers. Unsigned lanes take the
// scalar kernels there; SSE2 has no unsigned compare.
template <class L>
inline constexpr bool ordered_simd = !std::same_as<L, bool> && !is_unsigned<L>;
/// Signed integer arithmetic wraps around, as XLA's (C++'s overflow is
/// undefined): the operation on the unsigned type of at least int's width.
template <class T, class F>
T wrapping(T a, T b, F op) {
  using W = std::make_unsigned_t<decltype(a + 0u)>;
  return static_cast<T>(op(static_cast<W>(a), static_cast<W>(b)));
}
// Whether xsimd's log (and cbrt, whose frexp makes the same select, and
// float asinh, which calls it) compile here. Without optimization GCC defines
// some AVX-512BW intrinsics as macros that cast their arguments C-style,
// and xsimd 8 passes its batch objects to them in the integer select its
// log uses: a debug build for an AVX-512 machine would not compile. There
// log, cbrt and asinh take their scalar loops.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE__) && defined(__AVX512BW__) && XSIMD_VERSION_MAJOR < 9
inline constexpr bool xsimd_log_compiles = false;
#else
inline constexpr bool xsimd_log_compiles = true;
#endif
}  // namespace jaxcc::detail

namespace jaxcc::primitives {
struct add_p;
struct sub_p;
struct mul_p;
struct div_p;
struct neg_p;
struct select_p;
}  // namespace jaxcc::primitives

namespace jaxcc::fusion {

/// Symbolic tangents: exactly zero, or exactly one (a seed), of dtype T.
template <Element T>
struct Zero {
  using value_type = T;
};
template <Element T>
struct One {
  using value_type = T;
};

template <class X>
inline constexpr bool is_zero = false;
template <Element T>
inline constexpr bool is_zero<Zero<T>> = true;
template <class X>
inline constexpr bool is_one = false;
template <Element T>
inline constexpr bool is_one<One<T>> = true;

/// A symbolic constant as an operand of an expression.
template <class X>
auto operand_of(X const& x) {
  if constexpr (is_zero<X>) return ScalarLeaf<typename X::value_type>{0};
  else if constexpr (is_one<X>) return ScalarLeaf<typename X::value_type>{1};
  else return x;
}

template <class Op, class... A>
auto ex(A const&... a) {
  return make_expr<Op>(operand_of(a)...);
}

template <class X, class Y>
auto t_add(X const& x, Y const& y) {
  if constexpr (is_zero<X>) return y;
  else if constexpr (is_zero<Y>) return x;
  else return ex<primitives::add_p>(x, y);
}
template <class X>
auto t_neg(X const& x) {
  if constexpr (is_zero<X>) return x;
  else return ex<primitives::neg_p>(x);
}
template <class X, class Y>
auto t_sub(X const& x, Y const& y) {
  if constexpr (is_zero<Y>) return x;
  else if constexpr (is_zero<X>) return t_neg(y);
  else return ex<primitives::sub_p>(x, y);
}
/// A tangent times a factor (an expression of the primals).
template <class T, class F>
auto t_scale(T const& t, F const& factor) {
  if constexpr (is_zero<T>) return t;
  else if constexpr (is_one<T>) return factor;
  else return ex<primitives::mul_p>(t, factor);
}
template <class T, class F>
auto t_div(T const& t, F const& divisor) {
  if constexpr (is_zero<T>) return t;
  else return ex<primitives::div_p>(t, divisor);
}
template <Element V, class C, class X, class Y>
auto t_select(C const& c, X const& x, Y const& y) {
  if constexpr (is_zero<X> && is_zero<Y>) return Zero<V>{};
  else return ex<primitives::select_p>(c, x, y);
}

}  // namespace jaxcc::fusion

namespace jaxcc::primitives {

using fusion::ex;
using fusion::One;
using fusion::ScalarLeaf;
using fusion::Zero;

template <class A>
using value_of = typename A::value_type;

// Ops whose result has the operand dtype.
#define JAXCC_SAME_TYPE_OP(op_name)                \
  static constexpr std::string_view name = op_name; \
  template <class T>                                \
  using result = T;

struct add_p {
  JAXCC_SAME_TYPE_OP("add")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a, T b) {
    if constexpr (std::same_as<T, bool>) return a || b;
    else if constexpr (detail::is_int<T>) return detail::wrapping(a, b, std::plus<>{});
    else return a + b;
  }
  template <class B> static B simd(B const& a, B const& b) { return a + b; }
  template <class A, class B, class DA, class DB>
  static auto tangent(A const&, B const&, DA const& da, DB const& db) { return fusion::t_add(da, db); }
  /// x + -0.0 is x for every x; x + 0.0 is not (-0.0 + 0.0 is 0.0).
  static std::optional<std::size_t> forwarded_operand(std::optional<double> a, std::optional<double> b) {
    auto const negative_zero = [](std::optional<double> v) { return v && *v == 0 && std::signbit(*v); };
    if (negative_zero(b)) return 0;
    if (negative_zero(a)) return 1;
    return std::nullopt;
  }
};
struct sub_p {
  JAXCC_SAME_TYPE_OP("sub")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a, T b) {
    if constexpr (detail::is_int<T>) return detail::wrapping(a, b, std::minus<>{});
    else return a - b;
  }
  template <class B> static B simd(B const& a, B const& b) { return a - b; }
  template <class A, class B, class DA, class DB>
  static auto tangent(A const&, B const&, DA const& da, DB const& db) { return fusion::t_sub(da, db); }
  /// x - 0.0 is x for every x (x - -0.0 is not: -0.0 - -0.0 is 0.0).
  static std::optional<std::size_t> forwarded_operand(std::optional<double>, std::optional<double> b) {
    if (b && *b == 0 && !std::signbit(*b)) return 0;
    return std::nullopt;
  }
};
struct mul_p {
  JAXCC_SAME_TYPE_OP("mul")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a, T b) {
    if constexpr (std::same_as<T, bool>) return a && b;
    else if constexpr (detail::is_int<T>) return detail::wrapping(a, b, std::multiplies<>{});
    else return a * b;
  }
  template <class B> static B simd(B const& a, B const& b) { return a * b; }
  template <class A, class B, class DA, class DB>
  static auto tangent(A const& a, B const& b, DA const& da, DB const& db) {
    return fusion::t_add(fusion::t_scale(da, b), fusion::t_scale(db, a));
  }
  static std::optional<std::size_t> forwarded_operand(std::optional<double> a, std::optional<double> b) {
    if (b == 1.0) return 0;
    if (a == 1.0) return 1;
    return std::nullopt;
  }
};
/// Floats: true division. Integers (lax.div, jnp.floor_divide): truncated,
/// with XLA's values where C++'s are undefined: x / 0 is -1 (all bits set),
/// and INT_MIN / -1 is INT_MIN.
struct div_p {
  JAXCC_SAME_TYPE_OP("div")
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
  template <class T> static T scalar(T a, T b) {
    if constexpr (detail::is_int<T>) {
      if (b == 0) return static_cast<T>(~T{0});
      if constexpr (std::is_signed_v<T>)
        if (b == -1) return static_cast<T>(std::make_unsigned_t<T>{0} - static_cast<std::make_unsigned_t<T>>(a));
      return static_cast<T>(a / b);
    } else if constexpr (std::same_as<T, bool>) {
      return b ? a : true;
    } else {
      return a / b;
    }
  }
  template <class B> static B simd(B const& a, B const& b) { return a / b; }
  template <class A, class B, class DA, class DB>
  static auto tangent(A const& a, B const& b, DA const& da, DB const& db) {
    return fusion::t_sub(fusion::t_div(da, b), fusion::t_scale(db, ex<div_p>(a, ex<mul_p>(b, b))));
  }
  static std::optional<std::size_t> forwarded_operand(std::optional<double>, std::optional<double> b) {
    if (b == 1.0) return 0;
    return std::nullopt;
  }
};
struct neg_p {
  JAXCC_SAME_TYPE_OP("neg")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a) {
    if constexpr (detail::is_int<T>) return detail::wrapping(T{0}, a, std::minus<>{});
    else return -a;
  }
  /// A float's sign bit flipped, as IEEE negation is: xsimd 8's AVX-512
  /// negation computes 0 - a, which makes -(0) +0 and quiets NaNs.
  template <class B>
  static B simd(B const& a) {
    using T = typename B::value_type;
    if constexpr (std::is_floating_point_v<T>) return a ^ B(T(-0.0));
    else return -a;
  }
  template <class A, class DA>
  static auto tangent(A const&, DA const& da) { return fusion::t_neg(da); }
};

/// select(pred, on_true, on_false): jnp.where's primitive (lax.select_n).
struct select_p {
  static constexpr std::string_view name = "select_n";
  /// lax.select_n takes the false case first: where(c, x, y) is select_n c y x.
  static constexpr std::array<int, 3> print_order{0, 2, 1};
  template <class T> using result = T;
  // Float lanes only: xsimd 8's AVX-512BW select on integer batches does not
  // compile without optimization.
  template <class L> static constexpr bool simd_for = detail::is_float<L>;
  template <class T> static T scalar(bool c, T a, T b) { return c ? a : b; }
  template <class M, class B> static B simd(M const& c, B const& a, B const& b) { return xsimd::select(c, a, b); }
  template <class C, class A, class B, class DC, class DA, class DB>
  static auto tangent(C const& c, A const&, B const&, DC const&, DA const& da, DB const& db) {
    return fusion::t_select<value_of<A>>(c, da, db);
  }
};

// Comparisons: operands share a dtype, the result is bool. Their SIMD form
// yields a lane mask that `select_p` consumes inside a fused region.
#define JAXCC_COMPARE_OP(type, op_name, op, simd_expr)                                   \
  struct type {                                                                          \
    static constexpr std::string_view name = op_name;                                    \
    template <class T> using result = bool;                                              \
    template <class L> static constexpr bool simd_for = detail::ordered_simd<L>;          \
    template <class T> static bool scalar(T a, T b) { return a op b; }                   \
    template <class B> static auto simd(B const& a, B const& b) { return simd_expr; }    \
    template <class A, class B, class DA, class DB>                                      \
    static auto tangent(A const&, B const&, DA const&, DB const&) { return Zero<bool>{}; } \
  };
JAXCC_COMPARE_OP(eq_p, "eq", ==, a == b)
// xsimd's `!=` is an ordered compare on some targets (NaN != NaN is false); numpy wants true.
JAXCC_COMPARE_OP(ne_p, "ne", !=, !(a == b))
JAXCC_COMPARE_OP(lt_p, "lt", <, a < b)
JAXCC_COMPARE_OP(le_p, "le", <=, a <= b)
JAXCC_COMPARE_OP(gt_p, "gt", >, a > b)
JAXCC_COMPARE_OP(ge_p, "ge", >=, a >= b)
#undef JAXCC_COMPARE_OP

/// JAX's `_balanced_eq(x, z, y)`: 1 where x alone attains z, 0.5 where x and
/// y tie at z, else 0 — how maximum and minimum share a gradient at ties.
template <class X, class Z, class Y>
auto balanced_eq(X const& x, Z const& z, Y const& y) {
  using T = value_of<X>;
  return ex<select_p>(ex<eq_p>(x, z), ex<select_p>(ex<eq_p>(y, z), ScalarLeaf<T>{T(0.5)}, ScalarLeaf<T>{1}),
                      ScalarLeaf<T>{0});
}

// NaN-propagating, as jnp.maximum / jnp.minimum. xsimd's `!=` on AVX-512 is
// an ordered compare (false for NaN), so the SIMD kernels ask isnan.
#define JAXCC_MINMAX_OP(type, op_name, cmp, int_kernel)                                                  \
  struct type {                                                                                         \
    JAXCC_SAME_TYPE_OP(op_name)                                                                         \
    int_kernel                                                                                          \
    template <class L> static constexpr bool simd_for = detail::ordered_simd<L>;                        \
    template <class T> static T scalar(T a, T b) {                                                      \
      if constexpr (detail::is_float<T>) {                                                              \
        if (std::isnan(a)) return a;                                                                    \
        if (std::isnan(b)) return b;                                                                    \
      }                                                                                                 \
      return a cmp b ? a : b;                                                                           \
    }                                                                                                   \
    template <class B> static B simd(B const& a, B const& b) {                                          \
      if constexpr (std::is_floating_point_v<typename B::value_type>)                                   \
        return xsimd::select(xsimd::isnan(a), a, xsimd::select(xsimd::isnan(b), b, xsimd::select(a cmp b, a, b))); \
      else /* integers: no NaN, and no integer select (see select_p) */                                \
        return simd_int(a, b);                                                                          \
    }                                                                                                   \
    template <class A, class B, class DA, class DB>                                                     \
    static auto tangent(A const& a, B const& b, DA const& da, DB const& db) {                           \
      auto const out = ex<type>(a, b);                                                                  \
      return fusion::t_add(fusion::t_scale(da, balanced_eq(a, out, b)), fusion::t_scale(db, balanced_eq(b, out, a))); \
    }                                                                                                   \
  };
#define JAXCC_MINMAX_INT(fn) \
  template <class B>         \
  static B simd_int(B const& a, B const& b) { return fn(a, b); }
JAXCC_MINMAX_OP(max_p, "max", >, JAXCC_MINMAX_INT(xsimd::max))
JAXCC_MINMAX_OP(min_p, "min", <, JAXCC_MINMAX_INT(xsimd::min))
#undef JAXCC_MINMAX_INT
#undef JAXCC_MINMAX_OP

struct log_p;
/// Scalar only: xsimd's pow (8.1 and 14.3) is wrong at IEEE's special
/// cases (pow(0, 0), pow(1, nan), pow(inf, 0) and pow(-inf, 0.5) give 0 or
/// nan where the C library and XLA give 1 or inf), on subnormal and largest
/// bases, and several ulp off elsewhere (float pow(1e10, 1) is 9.99999e9).
struct pow_p {
  JAXCC_SAME_TYPE_OP("pow")
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a, T b) {
    if constexpr (InexactElement<T>) {
      return std::pow(a, b);
    } else {  // integer power by squaring; a negative exponent gives 0 unless |a| == 1
      if constexpr (std::is_signed_v<T>)
        if (b < 0) return a == 1 ? T{1} : a == -1 ? ((b & 1) ? T{-1} : T{1}) : T{0};
      T result = 1;
      for (T base = a; b > 0; b >>= 1, base *= base)
        if (b & 1) result *= base;
      return result;
    }
  }
  // JAX's rules: d/da = b * a^(b-1) (0 where b == 0); d/db = log(a) * a^b with log(0) read as 0.
  template <class A, class B, class DA, class DB>
  static auto tangent(A const& a, B const& b, DA const& da, DB const& db) {
    using T = value_of<A>;
    ScalarLeaf<T> const zero{0}, one{1};
    auto const d_base = ex<select_p>(ex<eq_p>(b, zero), zero, ex<mul_p>(b, ex<pow_p>(a, ex<sub_p>(b, one))));
    auto const d_exponent = ex<mul_p>(ex<log_p>(ex<select_p>(ex<eq_p>(a, zero), one, a)), ex<pow_p>(a, b));
    return fusion::t_add(fusion::t_scale(da, d_base), fusion::t_scale(db, d_exponent));
  }
};

struct sign_p;
struct abs_p {
  JAXCC_SAME_TYPE_OP("abs")
  template <class L> static constexpr bool simd_for = detail::ordered_simd<L>;
  template <class T> static T scalar(T a) {
    if constexpr (std::same_as<T, bool> || detail::is_unsigned<T>) return a;
    else if constexpr (detail::is_float<T>) return std::abs(a);  // |-0.0| is 0.0, as xsimd's and XLA's
    else return a < 0 ? detail::wrapping(T{0}, a, std::minus<>{}) : a;
  }
  template <class B> static B simd(B const& a) { return xsimd::abs(a); }
  template <class A, class DA>
  static auto tangent(A const& a, DA const& da) { return fusion::t_scale(da, ex<sign_p>(a)); }
};
struct sign_p {  // sign(0) = 0, sign(nan) = nan
  JAXCC_SAME_TYPE_OP("sign")
  template <class L> static constexpr bool simd_for = detail::is_float<L>;  // uses select (see select_p)
  template <class T> static T scalar(T a) {
    if constexpr (std::same_as<T, bool>) return a;
    else if constexpr (detail::is_unsigned<T>) return a > 0 ? T(1) : T(0);
    else return a > 0 ? T(1) : a < 0 ? T(-1) : a;
  }
  template <class B> static B simd(B const& a) {
    return xsimd::select(a > B(0), B(1), xsimd::select(a < B(0), B(-1), a));
  }
  template <class A, class DA>
  static auto tangent(A const&, DA const&) { return Zero<value_of<A>>{}; }
};
struct square_p {
  JAXCC_SAME_TYPE_OP("square")
  template <class L> static constexpr bool simd_for = !std::same_as<L, bool>;
  template <class T> static T scalar(T a) {
    if constexpr (std::same_as<T, bool>) return a;
    else if constexpr (detail::is_int<T>) return detail::wrapping(a, a, std::multiplies<>{});
    else return a * a;
  }
  template <class B> static B simd(B const& a) { return a * a; }
  template <class A, class DA>
  static auto tangent(A const& a, DA const& da) {
    return fusion::t_scale(da, ex<mul_p>(ScalarLeaf<value_of<A>>{2}, a));
  }
};

// Floating-point functions, built only on float lanes (integers are
// converted first). `factor` is d out / d a as an expression of `a`.
// `is_long`: whether the SIMD kernel is a long series (a transcendental
// function's) rather than an instruction or two (fusion/loop.hpp's
// `long_kernel`).
#define JAXCC_FLOAT_UNARY_OP(type, op_name, std_fn, simd_fn, is_long, tangent_body)    \
  JAXCC_FLOAT_UNARY_OP_IF(type, op_name, std_fn, simd_fn, true, is_long, tangent_body)
/// The same, its SIMD kernel used only where `simd_compiles` holds.
#define JAXCC_FLOAT_UNARY_OP_IF(type, op_name, std_fn, simd_fn, simd_compiles, is_long, tangent_body) \
  struct type {                                                              \
    JAXCC_SAME_TYPE_OP(op_name)                                              \
    template <class L> static constexpr bool simd_for = detail::is_float<L> && (simd_compiles); \
    static constexpr bool long_kernel = is_long;                             \
    template <class T> static T scalar(T a) { return std_fn(a); }            \
    template <class B> static B simd(B const& a) { return simd_fn(a); }      \
    template <class A, class DA>                                             \
    static auto tangent([[maybe_unused]] A const& a, [[maybe_unused]] DA const& da) { \
      [[maybe_unused]] ScalarLeaf<value_of<A>> const one{1};                 \
      tangent_body                                                           \
    }                                                                        \
  };

}  // namespace jaxcc::primitives


namespace jaxcc::primitives {

// Logical ops: bool in, bool out (bitwise on integers); nothing to differentiate.
#define JAXCC_LOGICAL_OP(type, op_name, bool_expr, int_expr)                       \
  struct type {                                                                    \
    static constexpr std::string_view name = op_name;                              \
    template <class T> using result = T;                                           \
    template <class L> static constexpr bool simd_for = false;                     \
    template <class T> static T scalar(T a, T b) {                                 \
      if constexpr (std::same_as<T, bool>) return bool_expr; else return int_expr; \
    }                                                                              \
    template <class A, class B, class DA, class DB>                                \
    static auto tangent(A const&, B const&, DA const&, DB const&) { return Zero<value_of<A>>{}; } \
  };
JAXCC_LOGICAL_OP(and_p, "and", a && b, a & b)
JAXCC_LOGICAL_OP(or_p, "or", a || b, a | b)
JAXCC_LOGICAL_OP(xor_p, "xor", a != b, a ^ b)
#undef JAXCC_LOGICAL_OP

// Shifts of integers by integers of the same dtype. A shift by a negative
// amount or by the bit width or more gives 0 (or, shifting an arithmetic
// right, the sign), as in XLA, where C++ would be undefined.
#define JAXCC_SHIFT_OP(type, op_name, body)                                                     \
  struct type {                                                                                 \
    static constexpr std::string_view name = op_name;                                           \
    template <class T> using result = T;                                                        \
    template <class L> static constexpr bool simd_for = false;                                  \
    template <class T> static T scalar(T a, T b) {                                              \
      using U = std::make_unsigned_t<T>;                                                        \
      constexpr auto bits = static_cast<U>(8 * sizeof(T));                                      \
      bool const in_range = static_cast<U>(b) < bits; /* a negative b is a huge U */            \
      body                                                                                      \
    }                                                                                           \
    template <class A, class B, class DA, class DB>                                             \
    static auto tangent(A const&, B const&, DA const&, DB const&) { return Zero<value_of<A>>{}; } \
  };
JAXCC_SHIFT_OP(shift_left_p, "shift_left",
               return in_range ? static_cast<T>(static_cast<U>(static_cast<U>(a) << static_cast<U>(b))) : T{0};)
JAXCC_SHIFT_OP(shift_right_logical_p, "shift_right_logical",
               return in_range ? static_cast<T>(static_cast<U>(a) >> static_cast<U>(b)) : T{0};)
JAXCC_SHIFT_OP(shift_right_arithmetic_p, "shift_right_arithmetic",
               if constexpr (std::is_signed_v<T>) return a >> (in_range ? b : T(bits - 1));
               else return in_range ? static_cast<T>(a >> b) : T{0};)
#undef JAXCC_SHIFT_OP
// Bit counts of integers (the dtype's own width), with no derivative.
#define JAXCC_BIT_COUNT_OP(type, op_name, fn)                                                  \
  struct type {                                                                               \
    static constexpr std::string_view name = op_name;                                         \
    template <class T> using result = T;                                                      \
    template <class L> static constexpr bool simd_for = false;                                \
    template <class T> static T scalar(T a) {                                                 \
      return static_cast<T>(fn(static_cast<std::make_unsigned_t<T>>(a)));                     \
    }                                                                                         \
    template <class A, class DA>                                                              \
    static auto tangent(A const&, DA const&) { return Zero<value_of<A>>{}; }                  \
  };
/// lax.population_count: the number of bits set.
JAXCC_BIT_COUNT_OP(population_count_p, "population_count", std::popcount)
/// lax.clz: the number of leading zero bits (the bit width for 0).
JAXCC_BIT_COUNT_OP(clz_p, "clz", std::countl_zero)
#undef JAXCC_BIT_COUNT_OP

/// lax.mulhi: the high half of the double-width product of two integers.
struct mulhi_p {
  static constexpr std::string_view name = "mulhi";
  template <class T> using result = T;
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a, T b) {
    constexpr int bits = 8 * sizeof(T);
    if constexpr (bits < 64) {
      using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
      return static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >> bits);
    } else {
      __extension__ using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
      return static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >> 64);
    }
  }
  template <class A, class B, class DA, class DB>
  static auto tangent(A const&, B const&, DA const&, DB const&) { return Zero<value_of<A>>{}; }
};

/// lax.clamp(lo, x, hi) = min(max(x, lo), hi), nan propagating, with
/// JAX's rule: the tangent of x where lo < x < hi, of lo where lo > x (and
/// lo < hi), of hi where hi < x.
struct clamp_p {
  static constexpr std::string_view name = "clamp";
  template <class T> using result = T;
  template <class L> static constexpr bool simd_for = detail::ordered_simd<L>;
  template <class T> static T scalar(T lo, T x, T hi) { return min_p::scalar(max_p::scalar(x, lo), hi); }
  template <class B> static B simd(B const& lo, B const& x, B const& hi) {
    return min_p::simd(max_p::simd(x, lo), hi);
  }
  template <class L, class X, class H, class DL, class DX, class DH>
  static auto tangent(L const& lo, X const& x, H const& hi, DL const& dlo, DX const& dx, DH const& dhi) {
    using T = value_of<X>;
    auto const pick = [](auto const& c, auto const& d) { return fusion::t_select<T>(c, d, Zero<T>{}); };
    auto const d_lo = pick(ex<and_p>(ex<gt_p>(lo, x), ex<lt_p>(lo, hi)), dlo);
    auto const d_x = pick(ex<and_p>(ex<gt_p>(x, lo), ex<lt_p>(x, hi)), dx);
    auto const d_hi = pick(ex<lt_p>(hi, x), dhi);
    return fusion::t_add(fusion::t_add(d_lo, d_x), d_hi);
  }
};

/// lax.bitcast_convert_type to U, of the same width: the same bits read as U.
template <Element U>
struct bitcast_p {
  static constexpr std::string_view name = "bitcast_convert_type";
  static std::string params_string() { return "new_dtype=" + std::string(jaxcc::name(dtype_of<U>)); }
  template <class T> using result = U;
  template <class L> static constexpr bool simd_for = false;
  template <class T> static U scalar(T a) {
    static_assert(sizeof(T) == sizeof(U), "bitcast_convert_type: the dtypes must have the same width");
    return std::bit_cast<U>(a);
  }
  template <class A, class DA>
  static auto tangent(A const&, DA const&) { return Zero<U>{}; }
};

struct not_p {
  static constexpr std::string_view name = "not";
  template <class T> using result = T;
  template <class L> static constexpr bool simd_for = false;
  template <class T> static T scalar(T a) { if constexpr (std::same_as<T, bool>) return !a; else return ~a; }
  template <class A, class DA>
  static auto tangent(A const&, DA const&) { return Zero<value_of<A>>{}; }
};

/// convert_element_type to U. Float to integer saturates and maps NaN to 0
/// (a plain cast would be undefined behaviour there); complex to real takes
/// the real part, as JAX does. Tangents pass through conversions between
/// real and complex floats and stop at integers and bools.
template <Element U>
struct convert_p {
  static constexpr std::string_view name = "convert_element_type";
  static std::string params_string() { return "new_dtype=" + std::string(jaxcc::name(dtype_of<U>)) + " weak_type=False"; }
  template <class T> using result = U;
  template <class L> static constexpr bool simd_for = false;
  template <class T> static U scalar(T a) {
    if constexpr (ComplexElement<T> && ComplexElement<U>) {
      return U(a);
    } else if constexpr (ComplexElement<T>) {
      if constexpr (std::same_as<U, bool>) return a != T{0};
      else return convert_p<U>::scalar(a.real());
    } else if constexpr (ComplexElement<U>) {
      return U(static_cast<typename U::value_type>(detail::compute_t<T>(a)));
    } else if constexpr (detail::is_float<T> && detail::is_int<U>) {
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
  template <class A, class DA>
  static auto tangent(A const&, DA const& da) {
    if constexpr (!InexactElement<U> || !InexactElement<value_of<A>> || fusion::is_zero<DA>) return Zero<U>{};
    else if constexpr (fusion::is_one<DA>) return One<U>{};
    else return ex<convert_p<U>>(da);
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::fusion {

/// An operand converted to element type U (a no-op when it already is U).
template <Element U, Operand E>
auto cast(E e) {
  if constexpr (std::same_as<typename E::value_type, U>) {
    return e;
  } else if constexpr (is_scalar_leaf<E>::value) {
    return ScalarLeaf<U>{primitives::convert_p<U>::scalar(e.value)};
  } else {
    return make_expr<primitives::convert_p<U>>(std::move(e));
  }
}

}  // namespace jaxcc::fusion
