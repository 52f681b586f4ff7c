// lax.dtype: the dtype of a value, as JAX canonicalizes it (jaxcc's
// defaults are JAX's without x64).
#pragma once

#include <concepts>
#include <type_traits>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/dtype.hpp"
#include "jaxcc/fusion/expr_core.hpp"

namespace jaxcc::lax {

/// An array's or expression's dtype; a 16-bit float scalar's own; a C++
/// scalar's as a Python scalar's: bool, int32 for an integer, float32 for
/// a floating-point number.
template <class A>
  requires ArrayLike<A> || std::same_as<A, AnyArray> || Scalar<A> || TypedScalar<A>
constexpr DType dtype(A const& x) {
  if constexpr (std::same_as<A, AnyArray>) return x.dtype();
  else if constexpr (ArrayLike<A>) return dtype_of<value_type_t<A>>;
  else if constexpr (TypedScalar<A>) return dtype_of<A>;
  else if constexpr (std::same_as<A, bool>) return DType::bool_;
  else if constexpr (std::is_integral_v<A>) return DType::int32;
  else return DType::float32;
}

}  // namespace jaxcc::lax
