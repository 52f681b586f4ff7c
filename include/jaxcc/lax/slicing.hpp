// jax.lax's slicing functions: slice, dynamic_slice, dynamic_update_slice.
// Start indices of the dynamic ones may be ints or rank-0 int arrays; a
// negative start counts from the end once, then starts are clamped so the
// window fits, as in JAX.
#pragma once

#include <initializer_list>
#include <sstream>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/slice.hpp"

namespace jaxcc::detail {

template <Element T>
void check_start_count(Array<T> const& x, std::size_t count) {
  if (static_cast<std::int64_t>(count) != x.ndim()) {
    std::ostringstream os;
    os << "Length of slice indices must match number of operand dimensions (" << count << " vs " << x.shape() << ")";
    throw Error(os.str());
  }
}

/// Static start indices, negatives counted from the end, as rank-0 arrays.
template <Element T>
std::vector<Array<std::int64_t>> start_arrays(Array<T> const& x, Axes const& starts) {
  check_start_count(x, starts.size());
  std::vector<Array<std::int64_t>> out;
  for (std::size_t d = 0; d < starts.size(); ++d)
    out.push_back(rank0_array<std::int64_t>(starts[d] < 0 ? starts[d] + x.shape()[d] : starts[d]));
  return out;
}

/// Start indices given as arrays: negatives counted from the end.
template <Element T, IndexElement I>
std::vector<Array<I>> start_arrays(Array<T> const& x, std::vector<Array<I>> const& starts) {
  check_start_count(x, starts.size());
  std::vector<Array<I>> out;
  for (std::size_t d = 0; d < starts.size(); ++d)
    out.push_back(select_expr(starts[d] < 0, starts[d] + static_cast<I>(x.shape()[d]), starts[d]));
  return out;
}

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.slice: elements start_indices[d] <= i < limit_indices[d] of each
/// dimension, every strides[d]-th (strides empty: all 1). A view.
template <ArrayLike A>
Array<value_type_t<A>> slice(A const& operand, Axes const& start_indices, Axes const& limit_indices,
                             Axes const& strides = {}) {
  return detail::bind<primitives::slice_p>({start_indices, limit_indices, strides}, as_array(operand));
}

/// lax.dynamic_slice: the window of `slice_sizes` starting at
/// `start_indices`, each start clamped into [0, shape[d] - slice_sizes[d]]. A view.
template <ArrayLike A>
Array<value_type_t<A>> dynamic_slice(A const& operand, Axes const& start_indices, Shape const& slice_sizes) {
  auto const x = as_array(operand);
  return detail::bind<primitives::dynamic_slice_p>({slice_sizes}, x, detail::start_arrays(x, start_indices));
}
template <ArrayLike A, IndexElement I>
Array<value_type_t<A>> dynamic_slice(A const& operand, std::vector<Array<I>> const& start_indices,
                                     Shape const& slice_sizes) {
  auto const x = as_array(operand);
  return detail::bind<primitives::dynamic_slice_p>({slice_sizes}, x, detail::start_arrays(x, start_indices));
}
template <ArrayLike A, IndexElement I>
Array<value_type_t<A>> dynamic_slice(A const& operand, std::initializer_list<Array<I>> start_indices,
                                     Shape const& slice_sizes) {
  return dynamic_slice(operand, std::vector<Array<I>>(start_indices), slice_sizes);
}

/// lax.dynamic_update_slice: `operand` with `update` written over the window
/// at `start_indices` (clamped so the update fits). A new array.
template <ArrayLike A, ArrayLike U>
Array<value_type_t<A>> dynamic_update_slice(A const& operand, U const& update, Axes const& start_indices) {
  static_assert(std::same_as<value_type_t<A>, value_type_t<U>>,
                "lax::dynamic_update_slice: the update must have the operand's dtype; convert it with astype<T>()");
  auto const x = as_array(operand);
  return detail::bind<primitives::dynamic_update_slice_p>({}, x, as_array(update),
                                                         detail::start_arrays(x, start_indices));
}
template <ArrayLike A, ArrayLike U, IndexElement I>
Array<value_type_t<A>> dynamic_update_slice(A const& operand, U const& update,
                                            std::vector<Array<I>> const& start_indices) {
  static_assert(std::same_as<value_type_t<A>, value_type_t<U>>,
                "lax::dynamic_update_slice: the update must have the operand's dtype; convert it with astype<T>()");
  auto const x = as_array(operand);
  return detail::bind<primitives::dynamic_update_slice_p>({}, x, as_array(update),
                                                         detail::start_arrays(x, start_indices));
}
template <ArrayLike A, ArrayLike U, IndexElement I>
Array<value_type_t<A>> dynamic_update_slice(A const& operand, U const& update,
                                            std::initializer_list<Array<I>> start_indices) {
  return dynamic_update_slice(operand, update, std::vector<Array<I>>(start_indices));
}

}  // namespace jaxcc::lax
