// jax.lax's slicing functions: slice, dynamic_slice, dynamic_update_slice,
// and their one-dimension forms (slice_in_dim, index_in_dim,
// dynamic_slice_in_dim, dynamic_index_in_dim, dynamic_update_slice_in_dim,
// dynamic_update_index_in_dim).
// Start indices of the dynamic ones may be ints or rank-0 int arrays; a
// negative start counts from the end once, then starts are clamped so the
// window fits, as in JAX.
#pragma once

#include <concepts>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/slice.hpp"
#include "jaxcc/primitives/squeeze.hpp"

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

/// Start indices for a one-dimension dynamic slice: `start` at `axis`, 0 elsewhere.
template <IndexElement I>
std::vector<Array<I>> starts_in_dim(std::int64_t rank, Array<I> const& start, std::int64_t axis) {
  std::vector<Array<I>> out(static_cast<std::size_t>(rank), rank0_array<I>(0));
  out[static_cast<std::size_t>(axis)] = start;
  return out;
}
template <IndexElement I>
Array<I> start_array(Array<I> const& start) {
  return start;
}
template <std::integral I>
Array<std::int32_t> start_array(I start) {
  return rank0_array<std::int32_t>(static_cast<std::int32_t>(start));
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

/// lax.slice_in_dim: elements [start_index, limit_index) of `axis`, every
/// `stride`-th; a missing bound is that end, a negative one counts from the end.
template <ArrayLike A>
Array<value_type_t<A>> slice_in_dim(A const& operand, std::optional<std::int64_t> start_index,
                                    std::optional<std::int64_t> limit_index, std::int64_t stride = 1,
                                    std::int64_t axis = 0) {
  auto const x = as_array(operand);
  auto const ax = detail::normalize_axis(axis, x.ndim(), "slice_in_dim");
  auto const n = x.shape()[static_cast<std::size_t>(ax)];
  auto start = start_index.value_or(0), limit = limit_index.value_or(n);
  if (start < 0) start += n;
  if (limit < 0) limit += n;
  Axes starts(x.shape().size(), 0), limits(x.shape().begin(), x.shape().end()), strides(x.shape().size(), 1);
  starts[static_cast<std::size_t>(ax)] = start;
  limits[static_cast<std::size_t>(ax)] = limit;
  strides[static_cast<std::size_t>(ax)] = stride;
  return slice(x, starts, limits, strides);
}

/// lax.index_in_dim: element `index` of `axis` (negative counts from the
/// end), that dimension kept as size 1 with `keepdims`.
template <ArrayLike A>
Array<value_type_t<A>> index_in_dim(A const& operand, std::int64_t index, std::int64_t axis = 0, bool keepdims = true) {
  auto const x = as_array(operand);
  auto const ax = detail::normalize_axis(axis, x.ndim(), "index_in_dim");
  auto const n = x.shape()[static_cast<std::size_t>(ax)];
  auto const wrapped = index < 0 ? index + n : index;
  if (wrapped < 0 || wrapped >= n)
    detail::throw_error("index ", index, " is out of bounds for axis ", axis, " with size ", n);
  auto const result = slice_in_dim(x, wrapped, wrapped + 1, 1, ax);
  return keepdims ? result : squeeze(result, {ax});
}

/// lax.dynamic_slice_in_dim: `slice_size` elements of `axis` from
/// `start_index` (an int or a rank-0 int array; negative counts from the
/// end, then clamped so the window fits).
template <ArrayLike A, class S>
Array<value_type_t<A>> dynamic_slice_in_dim(A const& operand, S const& start_index, std::int64_t slice_size,
                                            std::int64_t axis = 0) {
  auto const x = as_array(operand);
  auto const ax = detail::normalize_axis(axis, x.ndim(), "dynamic_slice_in_dim");
  Shape sizes = x.shape();
  sizes[static_cast<std::size_t>(ax)] = slice_size;
  return dynamic_slice(x, detail::starts_in_dim(x.ndim(), detail::start_array(start_index), ax), sizes);
}

/// lax.dynamic_index_in_dim: element `index` of `axis`, clamped into range.
template <ArrayLike A, class S>
Array<value_type_t<A>> dynamic_index_in_dim(A const& operand, S const& index, std::int64_t axis = 0,
                                            bool keepdims = true) {
  auto const x = as_array(operand);
  auto const ax = detail::normalize_axis(axis, x.ndim(), "dynamic_index_in_dim");
  auto const result = dynamic_slice_in_dim(x, index, 1, ax);
  return keepdims ? result : squeeze(result, {ax});
}

/// lax.dynamic_update_slice_in_dim: `update` written over `operand` from
/// `start_index` along `axis` (clamped so it fits).
template <ArrayLike A, ArrayLike U, class S>
Array<value_type_t<A>> dynamic_update_slice_in_dim(A const& operand, U const& update, S const& start_index,
                                                   std::int64_t axis) {
  auto const x = as_array(operand);
  auto const ax = detail::normalize_axis(axis, x.ndim(), "dynamic_update_slice_in_dim");
  return dynamic_update_slice(x, update, detail::starts_in_dim(x.ndim(), detail::start_array(start_index), ax));
}

/// lax.dynamic_update_index_in_dim: `update` written at `index` of `axis`;
/// an update of one dimension fewer than `operand` gains it at `axis`.
template <ArrayLike A, ArrayLike U, class S>
Array<value_type_t<A>> dynamic_update_index_in_dim(A const& operand, U const& update, S const& index,
                                                   std::int64_t axis) {
  auto const x = as_array(operand);
  auto u = as_array(update);
  auto const ax = detail::normalize_axis(axis, x.ndim(), "dynamic_update_index_in_dim");
  if (u.ndim() + 1 == x.ndim()) u = expand_dims(u, {ax});
  else if (u.ndim() != x.ndim())
    detail::throw_error("dynamic_update_index_in_dim: the update must have rank ", x.ndim(), " or ", x.ndim() - 1,
                        ", got shape ", u.shape());
  return dynamic_update_slice_in_dim(x, u, index, ax);
}

}  // namespace jaxcc::lax
