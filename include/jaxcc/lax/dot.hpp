// lax.dot and lax.batch_matmul: dot_general with the dimension numbers
// they imply. `precision` has no meaning on the CPU and is not taken;
// preferred_element_type is the template argument `Out` (the operands are
// converted to it, so the products accumulate in it).
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/primitives/dot_general.hpp"

namespace jaxcc::detail {

/// The result dtype of lax.dot: `Out` if given, else the operands' common dtype.
template <class Out, class A, class B>
using dot_out_t = std::conditional_t<std::is_void_v<Out>, promote_t<value_type_t<A>, value_type_t<B>>, Out>;

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.dot: with no dimension numbers, the un-batched matrix-matrix,
/// matrix-vector or vector-vector product (lhs 1-D or 2-D, its last axis
/// contracted with rhs's first); with them, dot_general.
template <class Out = void, ArrayLike A, ArrayLike B>
Array<detail::dot_out_t<Out, A, B>> dot(A const& lhs, B const& rhs,
                                        std::optional<DotDimensionNumbers> const& dimension_numbers = std::nullopt) {
  using T = detail::dot_out_t<Out, A, B>;
  auto numbers = dimension_numbers;
  if (!numbers) {
    auto const ln = lhs.ndim(), rn = rhs.ndim();
    if (ln < 1 || ln > 2 || rn < 1 || rn > 2 || lhs.shape().back() != rhs.shape()[0])
      detail::throw_error("jax.lax.dot: dimension_numbers must be specified when not performing simple un-batched "
                          "matrix-matrix, matrix-vector, or vector-vector products; got lhs_shape=", lhs.shape(),
                          " rhs_shape=", rhs.shape());
    numbers = DotDimensionNumbers{{ln - 1}, {0}, {}, {}};
  }
  return dot_general(detail::array_as<T>(lhs), detail::array_as<T>(rhs), *numbers);
}

/// lax.batch_matmul: matrix products over the last two axes, batched over
/// the leading ones (both operands of one rank, at least 2).
template <ArrayLike A, ArrayLike B>
Array<promote_t<value_type_t<A>, value_type_t<B>>> batch_matmul(A const& lhs, B const& rhs) {
  auto const ln = lhs.ndim(), rn = rhs.ndim();
  if (std::min(ln, rn) < 2)
    detail::throw_error("Arguments to batch_matmul must be at least 2D, got ", ln, ", ", rn);
  if (ln != rn) detail::throw_error("Arguments to batch_matmul must have same ndim, got ", ln, ", ", rn);
  Axes batch;
  for (std::int64_t i = 0; i < ln - 2; ++i) batch.push_back(i);
  return dot_general(lhs, rhs, {{ln - 1}, {rn - 2}, batch, batch});
}

}  // namespace jaxcc::lax
