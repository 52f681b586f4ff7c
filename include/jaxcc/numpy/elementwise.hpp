// jax.numpy's elementwise functions. Each returns a fused expression
// (nothing is computed until it becomes an Array), with JAX's dtype
// promotion applied to the operands first; the operators are in
// fusion/operators.hpp.
#pragma once

#include <concepts>

#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/primitives/elementwise.hpp"

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
template <ArrayLike A> auto abs(A const& a) { return detail::same_type_unary<primitives::abs_p>(a); }
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

/// floor and round keep integer inputs as they are (they are already whole).
template <ArrayLike A>
auto floor(A const& a) {
  if constexpr (std::is_floating_point_v<value_type_t<A>>) return fusion::make_expr<primitives::floor_p>(a);
  else return as_array(a);
}
/// Round half to even, as numpy (jnp.round with decimals=0).
template <ArrayLike A>
auto round(A const& a) {
  if constexpr (std::is_floating_point_v<value_type_t<A>>) return fusion::make_expr<primitives::round_p>(a);
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

}  // namespace lax
}  // namespace jaxcc
