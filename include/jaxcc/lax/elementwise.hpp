// jax.lax's elementwise functions: operands share a dtype, as lax requires
// (jax.numpy's functions, numpy/elementwise.hpp, promote first). Each returns
// a fused expression of the elementwise ops (fusion/elementwise.hpp);
// lax::add, max and min, which are also reduce_window computations, are in
// lax/windowed_reductions.hpp.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/fusion/operators.hpp"

namespace jaxcc {

namespace detail {
/// An operand of a composed function as an array of dtype T (the dtype its
/// weak promotion already chose): a scalar becomes a 0-d array.
template <Element T, class A>
auto array_operand(A const& a) {
  if constexpr (Scalar<A>) return rank0_array(static_cast<T>(a));
  else return fusion::cast<T>(a);
}

/// Operands of a lax binary function: one dtype, or a plain number beside an array.
template <class A, class B>
concept SameDtypeOperands = (ArrayLike<A> || ArrayLike<B>) && ArrayOrScalar<A> && ArrayOrScalar<B> &&
                            (Scalar<A> || Scalar<B> || std::same_as<value_type_t<A>, value_type_t<B>>);

/// on_true where pred holds, else on_false, broadcasting as a fused region
/// does; the cases share a dtype (lax.select's kernel, without its checks).
template <class P, ArrayLike T, ArrayLike F>
  requires std::same_as<value_type_t<T>, value_type_t<F>>
auto select_expr(P const& pred, T const& on_true, F const& on_false) {
  return fusion::make_expr<primitives::select_p>(operand_as<bool>(pred), operand_as<value_type_t<T>>(on_true),
                                                 operand_as<value_type_t<T>>(on_false));
}
}  // namespace detail

namespace lax {

template <Element U, Element T>
Array<U> convert_element_type(Array<T> const& x) {
  if constexpr (std::same_as<T, U>) return x;
  else return fusion::cast<U>(x);
}

/// lax's elementwise functions that jax.numpy spells otherwise. Operands
/// share a dtype, as lax requires.
template <ArrayLike A> auto erf(A const& a) { return detail::float_unary<primitives::erf_p>(a); }
template <ArrayLike A> auto erf_inv(A const& a) { return detail::float_unary<primitives::erf_inv_p>(a); }
template <ArrayLike A> auto erfc(A const& a) { return detail::float_unary<primitives::erfc_p>(a); }
/// log |Gamma(a)|; +inf at 0, -1, -2, ...
template <ArrayLike A> auto lgamma(A const& a) { return detail::float_unary<primitives::lgamma_p>(a); }
/// The derivative of lgamma; nan at 0, -1, -2, ...
template <ArrayLike A> auto digamma(A const& a) { return detail::float_unary<primitives::digamma_p>(a); }
/// The m-th derivative of digamma (m = 0, 1, 2, ...; m = 0 is digamma).
template <std::integral M, ArrayLike A>
auto polygamma(M m, A const& x) {
  using T = float_t<value_type_t<A>>;
  return fusion::make_expr<primitives::polygamma_p>(fusion::ScalarLeaf<T>{static_cast<T>(m)},
                                                    detail::array_operand<T>(x));
}
/// lax.cbrt takes floats only, as in JAX; jnp::cbrt converts integers first.
template <ArrayLike A>
  requires FloatElement<value_type_t<A>>
auto cbrt(A const& a) {
  return fusion::make_expr<primitives::cbrt_p>(a);
}
template <ArrayLike A>
  requires FloatElement<value_type_t<A>>
auto is_finite(A const& a) {
  return fusion::make_expr<primitives::is_finite_p>(a);
}
template <ArrayLike A, ArrayLike B>
  requires std::same_as<value_type_t<A>, value_type_t<B>> && FloatElement<value_type_t<A>>
auto atan2(A const& a, B const& b) {
  return fusion::make_expr<primitives::atan2_p>(a, b);
}
template <ArrayLike A, ArrayLike B>
  requires std::same_as<value_type_t<A>, value_type_t<B>>
auto rem(A const& a, B const& b) {
  return fusion::make_expr<primitives::rem_p>(a, b);
}
#define JAXCC_LAX_SHIFT(fn, prim)                                                       \
  template <ArrayLike A, class B>                                                       \
    requires detail::ShiftOperands<A, B> && (Scalar<B> || std::same_as<value_type_t<A>, value_type_t<B>>) \
  auto fn(A const& a, B const& b) {                                                     \
    return detail::binary_as<primitives::prim, value_type_t<A>>(a, b);                  \
  }
JAXCC_LAX_SHIFT(shift_left, shift_left_p)
JAXCC_LAX_SHIFT(shift_right_logical, shift_right_logical_p)
JAXCC_LAX_SHIFT(shift_right_arithmetic, shift_right_arithmetic_p)
#undef JAXCC_LAX_SHIFT

// lax's float functions: floats only, as in JAX (jnp's forms convert integers first).
#define JAXCC_LAX_FLOAT_UNARY(fn, prim)               \
  template <ArrayLike A>                              \
    requires FloatElement<value_type_t<A>>            \
  auto fn(A const& a) {                               \
    return fusion::make_expr<primitives::prim>(a);    \
  }
JAXCC_LAX_FLOAT_UNARY(sin, sin_p)
JAXCC_LAX_FLOAT_UNARY(cos, cos_p)
JAXCC_LAX_FLOAT_UNARY(tan, tan_p)
JAXCC_LAX_FLOAT_UNARY(asin, asin_p)
JAXCC_LAX_FLOAT_UNARY(acos, acos_p)
JAXCC_LAX_FLOAT_UNARY(atan, atan_p)
JAXCC_LAX_FLOAT_UNARY(sinh, sinh_p)
JAXCC_LAX_FLOAT_UNARY(cosh, cosh_p)
JAXCC_LAX_FLOAT_UNARY(tanh, tanh_p)
JAXCC_LAX_FLOAT_UNARY(asinh, asinh_p)
JAXCC_LAX_FLOAT_UNARY(acosh, acosh_p)
JAXCC_LAX_FLOAT_UNARY(atanh, atanh_p)
JAXCC_LAX_FLOAT_UNARY(exp, exp_p)
JAXCC_LAX_FLOAT_UNARY(exp2, exp2_p)
JAXCC_LAX_FLOAT_UNARY(expm1, expm1_p)
JAXCC_LAX_FLOAT_UNARY(log, log_p)
JAXCC_LAX_FLOAT_UNARY(log1p, log1p_p)
JAXCC_LAX_FLOAT_UNARY(logistic, logistic_p)
JAXCC_LAX_FLOAT_UNARY(sqrt, sqrt_p)
JAXCC_LAX_FLOAT_UNARY(rsqrt, rsqrt_p)
JAXCC_LAX_FLOAT_UNARY(floor, floor_p)
#undef JAXCC_LAX_FLOAT_UNARY
/// ceil(x) = -floor(-x) (the same value, -0.0 included).
template <ArrayLike A>
  requires FloatElement<value_type_t<A>>
auto ceil(A const& a) {
  return -lax::floor(-a);
}
/// lax.reciprocal: 1 / x (JAX's integer_pow(x, -1), which XLA computes so).
template <ArrayLike A>
  requires FloatElement<value_type_t<A>>
auto reciprocal(A const& a) {
  using T = value_type_t<A>;
  return fusion::make_expr<primitives::div_p>(fusion::ScalarLeaf<detail::compute_t<T>>{1}, a);
}

/// lax.RoundingMethod: how round breaks ties.
enum class RoundingMethod { AWAY_FROM_ZERO = 0, TO_NEAREST_EVEN = 1 };
/// lax.round: to the nearest integer, halves away from zero by default (numpy's round is TO_NEAREST_EVEN).
template <ArrayLike A>
  requires FloatElement<value_type_t<A>>
Array<value_type_t<A>> round(A const& a, RoundingMethod rounding_method = RoundingMethod::AWAY_FROM_ZERO) {
  if (rounding_method == RoundingMethod::TO_NEAREST_EVEN) return fusion::make_expr<primitives::round_p>(a);
  return fusion::make_expr<primitives::round_away_p>(a);
}

// Numeric functions of one operand (not bool), with the operand's dtype.
template <ArrayLike A>
  requires(!std::same_as<value_type_t<A>, bool>)
auto neg(A const& a) {
  return fusion::make_expr<primitives::neg_p>(a);
}
template <ArrayLike A>
  requires(!std::same_as<value_type_t<A>, bool>)
auto sign(A const& a) {
  return fusion::make_expr<primitives::sign_p>(a);
}
template <ArrayLike A>
  requires(!std::same_as<value_type_t<A>, bool>)
auto square(A const& a) {
  return fusion::make_expr<primitives::square_p>(a);
}
/// lax.abs: signed integers and floats.
template <ArrayLike A>
  requires(FloatElement<value_type_t<A>> || std::signed_integral<value_type_t<A>>)
auto abs(A const& a) {
  return fusion::make_expr<primitives::abs_p>(a);
}

// Binary functions of operands of one dtype (a plain number takes the array's dtype).
#define JAXCC_LAX_BINARY(fn, prim, ...)                              \
  template <class A, class B>                                        \
    requires detail::SameDtypeOperands<A, B> && (__VA_ARGS__)              \
  auto fn(A const& a, B const& b) {                                  \
    return detail::binary<primitives::prim>(a, b);                   \
  }
JAXCC_LAX_BINARY(sub, sub_p, !std::same_as<detail::binary_dtype_t<A, B>, bool>)
JAXCC_LAX_BINARY(mul, mul_p, true)
/// lax.div: true division of floats; integers truncate (x / 0 is -1, as XLA's).
JAXCC_LAX_BINARY(div, div_p, !std::same_as<detail::binary_dtype_t<A, B>, bool>)
JAXCC_LAX_BINARY(pow, pow_p, FloatElement<detail::binary_dtype_t<A, B>>)
JAXCC_LAX_BINARY(nextafter, nextafter_p, FloatElement<detail::binary_dtype_t<A, B>>)
JAXCC_LAX_BINARY(eq, eq_p, true)
JAXCC_LAX_BINARY(ne, ne_p, true)
JAXCC_LAX_BINARY(lt, lt_p, true)
JAXCC_LAX_BINARY(le, le_p, true)
JAXCC_LAX_BINARY(gt, gt_p, true)
JAXCC_LAX_BINARY(ge, ge_p, true)
JAXCC_LAX_BINARY(bitwise_and, and_p, std::integral<detail::binary_dtype_t<A, B>>)
JAXCC_LAX_BINARY(bitwise_or, or_p, std::integral<detail::binary_dtype_t<A, B>>)
JAXCC_LAX_BINARY(bitwise_xor, xor_p, std::integral<detail::binary_dtype_t<A, B>>)
/// lax.mulhi: the high half of the double-width product of integers.
JAXCC_LAX_BINARY(mulhi, mulhi_p, detail::is_int<detail::binary_dtype_t<A, B>>)
#undef JAXCC_LAX_BINARY
template <ArrayLike A>
  requires std::integral<value_type_t<A>>
auto bitwise_not(A const& a) {
  return fusion::make_expr<primitives::not_p>(a);
}
/// lax.population_count: the number of bits set, in the operand's dtype.
template <ArrayLike A>
  requires detail::is_int<value_type_t<A>>
auto population_count(A const& a) {
  return fusion::make_expr<primitives::population_count_p>(a);
}
/// lax.clz: the number of leading zero bits, in the operand's dtype.
template <ArrayLike A>
  requires detail::is_int<value_type_t<A>>
auto clz(A const& a) {
  return fusion::make_expr<primitives::clz_p>(a);
}

/// lax.integer_pow(x, y): x multiplied by itself |y| times by repeated
/// squaring, as XLA expands it, and 1 / that for y < 0 (floats only:
/// JAX refuses a negative power of an integer). The derivative is the
/// product rule's, y x^(y-1).
template <ArrayLike A>
  requires(!std::same_as<value_type_t<A>, bool>)
Array<value_type_t<A>> integer_pow(A const& x, int y) {
  using T = value_type_t<A>;
  Array<T> const base = as_array(x);
  if (y < 0 && !FloatElement<T>) {
    std::string dims;
    for (auto const d : base.shape()) dims += (dims.empty() ? "" : ",") + std::to_string(d);
    throw Error("Integers cannot be raised to negative powers, got integer_pow(" + std::string(name(dtype_of<T>)) + "[" +
                dims + "], " + std::to_string(y) + ")");
  }
  if (y == 0) return detail::filled<T>(base.shape(), 1);  // nan and inf too, as JAX's full_like(x, 1)
  std::optional<Array<T>> acc;
  Array<T> power = base;
  for (unsigned n = y < 0 ? 0u - static_cast<unsigned>(y) : static_cast<unsigned>(y); n > 0; n >>= 1) {
    if (n & 1u) acc = acc ? Array<T>(*acc * power) : power;
    if (n > 1) power = power * power;
  }
  if constexpr (FloatElement<T>)
    if (y < 0) return lax::reciprocal(*acc);
  return *acc;
}

/// lax.clamp(min, x, max): x limited to [min, max]. min and max have x's
/// shape or are scalars, and share its dtype.
template <class L, ArrayLike X, class H>
  requires detail::SameDtypeOperands<L, X> && detail::SameDtypeOperands<H, X>
Array<value_type_t<X>> clamp(L const& min, X const& x, H const& max) {
  using T = value_type_t<X>;
  auto const operand = as_array(x);
  auto const check = [&](auto const& bound, char const* which) {
    if constexpr (ArrayLike<std::remove_cvref_t<decltype(bound)>>) {
      auto const shape = as_array(bound).shape();
      if (shape.size() != 0 && !(shape == operand.shape()))
        throw Error(std::string("clamp requires ") + which + ".shape == operand.shape or " + which +
                    ".shape == (), got " + which + ".shape=" + to_string(shape) +
                    ", operand.shape=" + to_string(operand.shape()) + ".");
    }
  };
  check(min, "min");
  check(max, "max");
  return fusion::make_expr<primitives::clamp_p>(detail::operand_as<T>(min), operand, detail::operand_as<T>(max));
}

/// lax.select_n(which, cases): cases[which] elementwise. which is bool (two
/// cases) or int32 (any number, which in [0, n)); it is a scalar or has the
/// cases' shape, and the cases share one shape and dtype.
template <ArrayLike W, Element T>
Array<T> select_n(W const& which, std::vector<Array<T>> const& cases) {
  using I = value_type_t<W>;
  static_assert(std::same_as<I, bool> || std::same_as<I, std::int32_t>, "lax::select_n: which must be bool or int32");
  if (cases.empty()) throw Error("select_n() must have at least one case");
  if (std::same_as<I, bool> && cases.size() > 2) throw Error("select with boolean `which` cannot have > 2 cases.");
  auto const w = as_array(which);
  for (auto const& c : cases)
    if (!(c.shape() == cases[0].shape()))
      throw Error("select cases must have the same shapes, got [" + to_string(cases[0].shape()) + ", " +
                  to_string(c.shape()) + "].");
  if (w.ndim() != 0 && !(w.shape() == cases[0].shape()))
    throw Error("select `which` must be scalar or have the same shape as cases, got `which` shape " + to_string(w.shape()) +
                " but case shape " + to_string(cases[0].shape()) + ".");
  Array<T> out = cases.back();
  for (auto i = static_cast<std::int32_t>(cases.size()) - 2; i >= 0; --i) {
    if constexpr (std::same_as<I, bool>) out = detail::select_expr(w, out, cases[static_cast<std::size_t>(i)]);
    else out = detail::select_expr(w <= i, cases[static_cast<std::size_t>(i)], out);
  }
  return out;
}

/// lax.bitcast_convert_type<U>(x): x's bits read as dtype U, of the same width (not 16-bit floats).
template <Element U, ArrayLike A>
  requires(sizeof(U) == sizeof(value_type_t<A>) && !detail::is_half_float<U> && !detail::is_half_float<value_type_t<A>>)
auto bitcast_convert_type(A const& a) {
  return fusion::make_expr<primitives::bitcast_p<U>>(a);
}

/// lax.select: on_true where pred holds, else on_false, elementwise. The
/// cases have the same shape; pred has it too, or is a scalar.
template <ArrayLike P, ArrayLike T, ArrayLike F>
auto select(P const& pred, T const& on_true, F const& on_false) {
  static_assert(std::same_as<value_type_t<P>, bool>, "lax::select: pred must be a boolean array");
  static_assert(std::same_as<value_type_t<T>, value_type_t<F>>,
                "lax::select: on_true and on_false must have the same dtype");
  auto const p = as_array(pred);
  auto const t = as_array(on_true);
  auto const f = as_array(on_false);
  if (!(t.shape() == f.shape()))
    throw Error("select cases must have the same shapes, got [" + to_string(f.shape()) + ", " + to_string(t.shape()) + "].");
  if (p.ndim() != 0 && !(p.shape() == t.shape()))
    throw Error("select `which` must be scalar or have the same shape as cases, got `which` shape " + to_string(p.shape()) +
                " but case shape " + to_string(t.shape()) + ".");
  return Array<value_type_t<T>>(detail::select_expr(p, t, f));
}

}  // namespace lax

}  // namespace jaxcc
