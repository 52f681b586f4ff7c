// jax.numpy's elementwise functions. Each returns a fused expression
// (nothing is computed until it becomes an Array), with JAX's dtype
// promotion applied to the operands first; the operators are in
// fusion/operators.hpp.
#pragma once

#include <concepts>
#include <limits>
#include <optional>

#include "jaxcc/core/creation.hpp"
#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/primitives/complex_parts.hpp"

namespace jaxcc {



namespace numpy {

template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto add(A const& a, B const& b) { return detail::binary<primitives::add_p>(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto subtract(A const& a, B const& b) { return detail::binary<primitives::sub_p>(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto multiply(A const& a, B const& b) { return detail::binary<primitives::mul_p>(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto divide(A const& a, B const& b) {
  return detail::binary_as<primitives::div_p, float_t<detail::binary_dtype_t<A, B>>>(a, b);
}
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto true_divide(A const& a, B const& b) { return divide(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto power(A const& a, B const& b) { return detail::binary<primitives::pow_p>(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto maximum(A const& a, B const& b) { return detail::binary<primitives::max_p>(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto minimum(A const& a, B const& b) { return detail::binary<primitives::min_p>(a, b); }

template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto equal(A const& a, B const& b) { return detail::binary<primitives::eq_p>(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto not_equal(A const& a, B const& b) { return detail::binary<primitives::ne_p>(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto less(A const& a, B const& b) { return detail::binary<primitives::lt_p>(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto less_equal(A const& a, B const& b) { return detail::binary<primitives::le_p>(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto greater(A const& a, B const& b) { return detail::binary<primitives::gt_p>(a, b); }
template <class A, class B> requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto greater_equal(A const& a, B const& b) { return detail::binary<primitives::ge_p>(a, b); }

template <ArrayLike A, class B> requires detail::ArrayOrScalar<B>
auto logical_and(A const& a, B const& b) { return detail::binary_as<primitives::and_p, bool>(a, b); }
template <ArrayLike A, class B> requires detail::ArrayOrScalar<B>
auto logical_or(A const& a, B const& b) { return detail::binary_as<primitives::or_p, bool>(a, b); }
template <ArrayLike A>
auto logical_not(A const& a) { return fusion::make_expr<primitives::not_p>(fusion::cast<bool>(a)); }

template <ArrayLike A> auto negative(A const& a) { return detail::same_type_unary<primitives::neg_p>(a); }
/// |a|; of a complex array, a real one.
template <ArrayLike A>
auto abs(A const& a) {
  if constexpr (ComplexElement<value_type_t<A>>) return detail::complex_abs(as_array(a));
  else return detail::same_type_unary<primitives::abs_p>(a);
}
template <ArrayLike A> auto absolute(A const& a) { return abs(a); }
template <ArrayLike A> auto sign(A const& a) { return detail::same_type_unary<primitives::sign_p>(a); }
template <ArrayLike A> auto square(A const& a) { return detail::same_type_unary<primitives::square_p>(a); }

template <ArrayLike A> auto sqrt(A const& a) { return detail::float_unary<primitives::sqrt_p>(a); }
template <ArrayLike A> auto exp(A const& a) { return detail::float_unary<primitives::exp_p>(a); }
template <ArrayLike A> auto log(A const& a) { return detail::float_unary<primitives::log_p>(a); }
template <ArrayLike A> auto log1p(A const& a) { return detail::float_unary<primitives::log1p_p>(a); }
template <ArrayLike A> auto expm1(A const& a) { return detail::float_unary<primitives::expm1_p>(a); }
template <ArrayLike A> auto sin(A const& a) { return detail::float_unary<primitives::sin_p>(a); }
template <ArrayLike A> auto cos(A const& a) { return detail::float_unary<primitives::cos_p>(a); }
template <ArrayLike A> auto tan(A const& a) { return detail::float_unary<primitives::tan_p>(a); }
template <ArrayLike A> auto tanh(A const& a) { return detail::float_unary<primitives::tanh_p>(a); }
template <ArrayLike A> auto arctan(A const& a) { return detail::float_unary<primitives::atan_p>(a); }
/// The real cube root: cbrt(-8) = -2 (power(x, 1/3) is nan there).
template <ArrayLike A> auto cbrt(A const& a) { return detail::float_unary<primitives::cbrt_p>(a); }

/// floor, ceil and round keep integer inputs as they are (they are already whole).
template <ArrayLike A>
auto floor(A const& a) {
  if constexpr (FloatElement<value_type_t<A>>) return fusion::make_expr<primitives::floor_p>(a);
  else return as_array(a);
}
/// ceil(x) = -floor(-x) (the same value, -0.0 included, and zero tangent).
template <ArrayLike A>
auto ceil(A const& a) {
  if constexpr (FloatElement<value_type_t<A>>) return -numpy::floor(-a);
  else return as_array(a);
}
/// Round half to even, as numpy (jnp.round with decimals=0).
template <ArrayLike A>
auto round(A const& a) {
  if constexpr (FloatElement<value_type_t<A>>) return fusion::make_expr<primitives::round_p>(a);
  else return as_array(a);
}

/// where(condition, x, y): x where condition holds, else y; all three broadcast.
template <class C, class A, class B>
  requires(ArrayLike<C> || Scalar<C>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto where(C const& condition, A const& x, B const& y) {
  using T = detail::binary_dtype_t<A, B>;
  return fusion::make_expr<primitives::select_p>(detail::operand_as<bool>(condition), detail::operand_as<T>(x),
                                                 detail::operand_as<T>(y));
}

/// arctan2(a, b): the angle of the point (b, a), in the quadrant the signs pick.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto arctan2(A const& a, B const& b) {
  return detail::binary_as<primitives::atan2_p, float_t<detail::binary_dtype_t<A, B>>>(a, b);
}

/// log(exp(a) + exp(b)) without overflow, with JAX's derivative (see logaddexp_p).
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto logaddexp(A const& a, B const& b) {
  return detail::binary_as<primitives::logaddexp_p, float_t<detail::binary_dtype_t<A, B>>>(a, b);
}

/// sqrt(a^2 + b^2) without overflow, as JAX composes it: the larger leg
/// times sqrt(1 + (smaller / larger)^2), 0 where both are 0, and inf where
/// either is infinite (even against nan).
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto hypot(A const& a, B const& b) {
  using T = float_t<detail::binary_dtype_t<A, B>>;
  constexpr T inf = std::numeric_limits<T>::infinity();
  auto const x1 = abs(detail::array_operand<T>(a));
  auto const x2 = abs(detail::array_operand<T>(b));
  auto const either_inf = logical_or(x1 == inf, x2 == inf);
  auto const hi = maximum(x1, x2);
  auto const lo = minimum(x1, x2);
  auto const legs = where(hi == T(0), hi, hi * sqrt(T(1) + square(lo / where(hi == T(0), T(1), hi))));
  return where(either_inf, inf, legs);
}

/// x != x: true only for nan (never for integers and bools).
template <ArrayLike A> auto isnan(A const& a) { return a != a; }
/// |x| == inf for floats; integers and bools are never infinite (x != x is all false).
template <ArrayLike A>
auto isinf(A const& a) {
  if constexpr (FloatElement<value_type_t<A>>)
    return abs(a) == std::numeric_limits<detail::compute_t<value_type_t<A>>>::infinity();
  else return a != a;
}
/// Neither infinite nor nan (lax.is_finite); integers and bools always are (x == x is all true).
template <ArrayLike A>
auto isfinite(A const& a) {
  if constexpr (FloatElement<value_type_t<A>>) return lax::is_finite(a);
  else return a == a;
}

/// nan_to_num(x, nan, posinf, neginf): nan, +inf and -inf replaced; the
/// infinities by default with the dtype's largest and lowest finite values,
/// as JAX. Integers and bools come back as they are.
template <ArrayLike A>
auto nan_to_num(A const& x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                std::optional<double> neginf = std::nullopt) {
  using T = value_type_t<A>;
  if constexpr (FloatElement<T>) {
    using C = detail::compute_t<T>;  // a 16-bit float's values as C++ numbers (weakly typed beside x)
    constexpr C inf = std::numeric_limits<C>::infinity();
    auto const largest = static_cast<double>(std::numeric_limits<T>::max());
    auto const no_nan = where(isnan(x), static_cast<C>(nan), x);
    auto const no_posinf = where(no_nan == inf, static_cast<C>(posinf.value_or(largest)), no_nan);
    return where(no_posinf == -inf, static_cast<C>(neginf.value_or(-largest)), no_posinf);
  } else {
    return as_array(x);
  }
}

/// fmod(a, b): the remainder with the dividend's sign (lax.rem), as jnp.fmod.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto fmod(A const& a, B const& b) {
  return detail::binary<primitives::rem_p>(a, b);
}

// Bitwise functions, on integers and bools (shifts: integers only); the
// operators of fusion/operators.hpp under numpy's names.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::BitOperands<A, B>
auto bitwise_and(A const& a, B const& b) {
  return a & b;
}
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::BitOperands<A, B>
auto bitwise_or(A const& a, B const& b) {
  return a | b;
}
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::BitOperands<A, B>
auto bitwise_xor(A const& a, B const& b) {
  return a ^ b;
}
template <ArrayLike A>
  requires std::integral<value_type_t<A>>
auto bitwise_not(A const& a) {
  return ~a;
}
template <ArrayLike A>
  requires std::integral<value_type_t<A>>
auto invert(A const& a) {
  return ~a;
}
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ShiftOperands<A, B>
auto left_shift(A const& a, B const& b) {
  return a << b;
}
/// Arithmetic for signed integers, logical for unsigned ones.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ShiftOperands<A, B>
auto right_shift(A const& a, B const& b) {
  return a >> b;
}

/// clip(x, lo, hi) = minimum(maximum(x, lo), hi), as jnp.clip.
template <ArrayLike A, class Lo, class Hi>
  requires detail::ArrayOrScalar<Lo> && detail::ArrayOrScalar<Hi>
auto clip(A const& x, Lo const& lo, Hi const& hi) {
  return minimum(maximum(x, lo), hi);
}

}  // namespace numpy

}  // namespace jaxcc
