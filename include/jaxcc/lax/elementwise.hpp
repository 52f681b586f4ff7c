// jax.lax's elementwise functions: operands share a dtype, as lax requires
// (jax.numpy's functions, numpy/elementwise.hpp, promote first). Each returns
// a fused expression of the elementwise ops (fusion/elementwise.hpp);
// lax::add, max and min, which are also reduce_window computations, are in
// lax/windowed_reductions.hpp.
#pragma once

#include <concepts>
#include <string>

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
