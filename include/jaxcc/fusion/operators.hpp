// The arithmetic and comparison operators on arrays and fused expressions,
// and the dtype rules they share with jax.numpy's functions: each returns a
// fused expression (nothing is computed until it becomes an Array), with
// JAX's dtype promotion applied to the operands first (a C++ arithmetic
// scalar is weak, as a Python scalar; a 16-bit float scalar keeps its
// dtype). Primitive rules use these; numpy/elementwise.hpp adds the named
// functions.
#pragma once

#include <concepts>
#include <type_traits>

#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/fusion/evaluate.hpp"
#include "jaxcc/fusion/expr.hpp"

namespace jaxcc {

namespace detail {

template <class A>
concept ArrayOrScalar = ArrayLike<A> || Scalar<A> || TypedScalar<A>;

/// The operand of a fused region for an ArrayLike or a scalar of lane type T.
template <Element T, class A>
auto operand_as(A const& a) {
  if constexpr (Scalar<A>) return fusion::ScalarLeaf<T>{static_cast<T>(a)};
  else if constexpr (TypedScalar<A>) return fusion::ScalarLeaf<T>{static_cast<T>(static_cast<float>(a))};
  else return fusion::cast<T>(a);
}

/// JAX's result dtype of a binary op on two operands (a scalar is weak).
template <class A, class B>
struct binary_dtype;
template <ArrayLike A, ArrayLike B>
struct binary_dtype<A, B> {
  using type = promote_t<value_type_t<A>, value_type_t<B>>;
};
template <ArrayLike A, Scalar B>
struct binary_dtype<A, B> {
  using type = promote_weak_t<value_type_t<A>, B>;
};
template <Scalar A, ArrayLike B>
struct binary_dtype<A, B> {
  using type = promote_weak_t<value_type_t<B>, A>;
};
/// A 16-bit float scalar promotes as an array of its dtype.
template <ArrayLike A, TypedScalar B>
struct binary_dtype<A, B> {
  using type = promote_t<value_type_t<A>, B>;
};
template <TypedScalar A, ArrayLike B>
struct binary_dtype<A, B> {
  using type = promote_t<A, value_type_t<B>>;
};
template <Scalar A, Scalar B>
struct binary_dtype<A, B> {
  using type = detail::scalar_element_t<decltype(A{} + B{})>;
};
template <class A, class B>
using binary_dtype_t = typename binary_dtype<std::remove_cvref_t<A>, std::remove_cvref_t<B>>::type;

template <class Op, class T, class A, class B>
auto binary_as(A const& a, B const& b) {
  return fusion::make_expr<Op>(operand_as<T>(a), operand_as<T>(b));
}

template <class Op, class A, class B>
auto binary(A const& a, B const& b) {
  return binary_as<Op, binary_dtype_t<A, B>>(a, b);
}

/// Unary floating-point function: integer operands become floats first.
template <class Op, ArrayLike A>
auto float_unary(A const& a) {
  return fusion::make_expr<Op>(fusion::cast<float_t<value_type_t<A>>>(a));
}

template <class Op, ArrayLike A>
auto same_type_unary(A const& a) {
  return fusion::make_expr<Op>(a);
}

/// Operands of a bitwise op: integers or bools, after promotion.
template <class A, class B>
concept BitOperands = ArrayOrScalar<A> && ArrayOrScalar<B> && std::integral<binary_dtype_t<A, B>>;
/// Operands of a shift: integers, after promotion.
template <class A, class B>
concept ShiftOperands = BitOperands<A, B> && !std::same_as<binary_dtype_t<A, B>, bool>;

}  // namespace detail

// --- operators -----------------------------------------------------------

template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto operator+(A const& a, B const& b) {
  return detail::binary<primitives::add_p>(a, b);
}
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto operator-(A const& a, B const& b) {
  return detail::binary<primitives::sub_p>(a, b);
}
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto operator*(A const& a, B const& b) {
  return detail::binary<primitives::mul_p>(a, b);
}
/// True division: integer operands give a float result, as in JAX.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto operator/(A const& a, B const& b) {
  return detail::binary_as<primitives::div_p, float_t<detail::binary_dtype_t<A, B>>>(a, b);
}
template <ArrayLike A>
auto operator-(A const& a) {
  return detail::same_type_unary<primitives::neg_p>(a);
}

#define JAXCC_COMPARISON(op, prim)                                                                \
  template <class A, class B>                                                                     \
    requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B> \
  auto operator op(A const& a, B const& b) {                                                      \
    return detail::binary<primitives::prim>(a, b);                                                \
  }
JAXCC_COMPARISON(==, eq_p)
JAXCC_COMPARISON(!=, ne_p)
JAXCC_COMPARISON(<, lt_p)
JAXCC_COMPARISON(<=, le_p)
JAXCC_COMPARISON(>, gt_p)
JAXCC_COMPARISON(>=, ge_p)
#undef JAXCC_COMPARISON

// Bitwise operators on integers and bools; `>>` is arithmetic on signed
// integers and logical on unsigned ones, as in numpy.
#define JAXCC_BITWISE(op, prim)                                              \
  template <class A, class B>                                               \
    requires(ArrayLike<A> || ArrayLike<B>) && detail::BitOperands<A, B>     \
  auto operator op(A const& a, B const& b) {                                \
    return detail::binary<primitives::prim>(a, b);                          \
  }
JAXCC_BITWISE(&, and_p)
JAXCC_BITWISE(|, or_p)
JAXCC_BITWISE(^, xor_p)
#undef JAXCC_BITWISE
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ShiftOperands<A, B>
auto operator<<(A const& a, B const& b) {
  return detail::binary<primitives::shift_left_p>(a, b);
}
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ShiftOperands<A, B>
auto operator>>(A const& a, B const& b) {
  if constexpr (std::is_signed_v<detail::binary_dtype_t<A, B>>)
    return detail::binary<primitives::shift_right_arithmetic_p>(a, b);
  else
    return detail::binary<primitives::shift_right_logical_p>(a, b);
}
template <ArrayLike A>
  requires std::integral<value_type_t<A>>
auto operator~(A const& a) {
  return detail::same_type_unary<primitives::not_p>(a);
}

/// `x += y` rebinds x to a new array (arrays are values; nothing is written in place).
#define JAXCC_COMPOUND(op)                                            \
  template <Element T, class B>                                       \
    requires detail::ArrayOrScalar<B>                                 \
  Array<T>& operator op##=(Array<T>& x, B const& b) {                 \
    x = fusion::cast<T>(x op b);                                      \
    return x;                                                         \
  }
JAXCC_COMPOUND(+)
JAXCC_COMPOUND(-)
JAXCC_COMPOUND(*)
JAXCC_COMPOUND(/)
#undef JAXCC_COMPOUND

}  // namespace jaxcc
