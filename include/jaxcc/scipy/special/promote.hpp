// jax.scipy.special's promote_args_inexact: the operands of a function
// promote together (weakly for C++ scalars), and integers become floats
// (int32 to float32, int64 to float64).
#pragma once

#include <type_traits>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/lax/elementwise.hpp"

namespace jaxcc::detail {

/// The float dtype the operands promote to (one, two or three of them).
template <class... A>
struct inexact_dtype;
template <class A>
struct inexact_dtype<A> {
  using type = float_t<value_type_t<A>>;
};
template <class A, class B>
struct inexact_dtype<A, B> {
  using type = float_t<binary_dtype_t<A, B>>;
};
template <class A, class B, class C>
struct inexact_dtype<A, B, C> {
  // B and C promote first; an array result stays strongly typed against A.
  using BC = binary_dtype_t<B, C>;
  using type = float_t<binary_dtype_t<A, std::conditional_t<Scalar<B> && Scalar<C>, BC, Array<BC>>>>;
};
template <class... A>
using inexact_t = typename inexact_dtype<std::remove_cvref_t<A>...>::type;

/// An operand as an array of the float dtype T its promotion chose.
template <Element T, class A>
Array<T> inexact_operand(A const& a) {
  return Array<T>(array_operand<T>(a));
}

}  // namespace jaxcc::detail
