// jax.numpy's stacking functions: atleast_1d, atleast_2d, atleast_3d,
// hstack, vstack, dstack, column_stack, concat, block, append. Each is
// expand_dims (a view) and lax::concatenate, so grad, vmap and jit go
// through their rules; none adds a primitive. A sequence of arrays is a
// braced list or a std::vector of one dtype; an array in its place stands
// for the sequence of its slices along axis 0, as in JAX.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/reshape.hpp"

namespace jaxcc::detail {

/// `x` with leading size-1 axes up to rank n (numpy's ndmin); a view.
template <Element T>
Array<T> at_least_rank(Array<T> const& x, std::int64_t n) {
  if (x.ndim() >= n) return x;
  Axes lead;
  for (std::int64_t d = 0; d < n - x.ndim(); ++d) lead.push_back(d);
  return lax::expand_dims(x, lead);
}

/// `x`'s slices along axis 0 given leading size-1 axes up to rank n, as
/// vmap(atleast_nd) gives them: the new axes follow axis 0.
template <Element T>
Array<T> slices_at_least(Array<T> const& x, std::int64_t n) {
  if (x.ndim() - 1 >= n) return x;
  Axes lead;
  for (std::int64_t d = 1; d <= n - (x.ndim() - 1); ++d) lead.push_back(d);
  return lax::expand_dims(x, lead);
}

/// atleast_3d of one array: (1, 1, 1) for 0-d, (1, n, 1) for 1-d, (m, n, 1) for 2-d.
template <Element T>
Array<T> at_least_3d(Array<T> const& x) {
  if (x.ndim() == 0) return lax::expand_dims(x, Axes{0, 1, 2});
  if (x.ndim() == 1) return lax::expand_dims(x, Axes{0, 2});
  if (x.ndim() == 2) return lax::expand_dims(x, Axes{2});
  return x;
}

/// The slices of `x` along axis 0 joined along `axis` of a slice, as
/// concatenate(list(x), axis) reads it: axis 0 moved beside `axis` and merged into it.
template <Element T>
Array<T> concatenate_slices(Array<T> const& x, std::int64_t axis, std::string_view op) {
  if (x.ndim() < 2) throw_error(op, ": zero-dimensional arrays cannot be concatenated.");
  auto const ax = normalize_axis(axis, x.ndim() - 1, op);
  auto const moved = numpy::moveaxis(x, 0, ax);
  Shape out(moved.shape().begin(), moved.shape().end());
  out[static_cast<std::size_t>(ax)] *= out[static_cast<std::size_t>(ax) + 1];
  out.erase(out.begin() + ax + 1);
  return lax::reshape(moved, out);
}

/// Each array through `f`.
template <Element T, class F>
std::vector<Array<T>> each(std::vector<Array<T>> const& arrays, F const& f) {
  std::vector<Array<T>> out;
  out.reserve(arrays.size());
  for (auto const& x : arrays) out.push_back(f(x));
  return out;
}

/// jnp.block's recursion: a list at depth d (innermost 1) joined along axis
/// -d after each part gets the rank max(d, its rank); with the list's depth.
template <Element T>
std::pair<Array<T>, std::int64_t> block_of(Array<T> const& x) {
  return {x, 1};
}
template <Element T, class V>
std::pair<Array<T>, std::int64_t> block_of(std::vector<V> const& xs) {
  if (xs.empty()) throw Error("jax.numpy.block does not allow empty list arguments");
  std::vector<Array<T>> parts;
  std::int64_t depth = 0, rank = 0;
  for (auto const& x : xs) {
    auto [part, d] = block_of<T>(x);
    depth = d;
    rank = std::max(rank, part.ndim());
    parts.push_back(std::move(part));
  }
  rank = std::max(rank, depth);
  for (auto& part : parts) part = at_least_rank(part, rank);
  return {lax::concatenate(parts, normalize_axis(-depth, rank, "block")), depth + 1};
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// `x` as an array of rank at least 1 (a 0-d array becomes shape (1,)); a view.
template <ArrayLike A>
Array<value_type_t<A>> atleast_1d(A const& x) {
  return detail::at_least_rank(as_array(x), 1);
}
/// `x` as an array of rank at least 2: leading size-1 axes added; a view.
template <ArrayLike A>
Array<value_type_t<A>> atleast_2d(A const& x) {
  return detail::at_least_rank(as_array(x), 2);
}
/// `x` as an array of rank at least 3: 0-d → (1, 1, 1), (n,) → (1, n, 1),
/// (m, n) → (m, n, 1); a view.
template <ArrayLike A>
Array<value_type_t<A>> atleast_3d(A const& x) {
  return detail::at_least_3d(as_array(x));
}
/// Several arrays of one dtype: a std::vector of each one's result.
template <ArrayLike A, ArrayLike B, ArrayLike... C>
  requires(std::same_as<value_type_t<A>, value_type_t<B>> && (std::same_as<value_type_t<A>, value_type_t<C>> && ...))
std::vector<Array<value_type_t<A>>> atleast_1d(A const& x, B const& y, C const&... rest) {
  return {atleast_1d(x), atleast_1d(y), atleast_1d(rest)...};
}
template <ArrayLike A, ArrayLike B, ArrayLike... C>
  requires(std::same_as<value_type_t<A>, value_type_t<B>> && (std::same_as<value_type_t<A>, value_type_t<C>> && ...))
std::vector<Array<value_type_t<A>>> atleast_2d(A const& x, B const& y, C const&... rest) {
  return {atleast_2d(x), atleast_2d(y), atleast_2d(rest)...};
}
template <ArrayLike A, ArrayLike B, ArrayLike... C>
  requires(std::same_as<value_type_t<A>, value_type_t<B>> && (std::same_as<value_type_t<A>, value_type_t<C>> && ...))
std::vector<Array<value_type_t<A>>> atleast_3d(A const& x, B const& y, C const&... rest) {
  return {atleast_3d(x), atleast_3d(y), atleast_3d(rest)...};
}

/// Join along axis 0 after atleast_2d: rows stacked ((n,) arrays become rows).
template <Element T>
Array<T> vstack(std::vector<Array<T>> const& tup) {
  return concatenate(detail::each(tup, [](auto const& x) { return detail::at_least_rank(x, 2); }), 0);
}
/// Join after atleast_1d: along axis 0 when the first array is 1-D, else along axis 1.
template <Element T>
Array<T> hstack(std::vector<Array<T>> const& tup) {
  auto const arrays = detail::each(tup, [](auto const& x) { return detail::at_least_rank(x, 1); });
  if (arrays.empty()) throw Error("Need at least one array to concatenate.");
  return concatenate(arrays, arrays[0].ndim() == 1 ? 0 : 1);
}
/// Join along axis 2 after atleast_3d (depth-wise).
template <Element T>
Array<T> dstack(std::vector<Array<T>> const& tup) {
  return concatenate(detail::each(tup, [](auto const& x) { return detail::at_least_3d(x); }), 2);
}
/// Join along axis 1, 1-D arrays (and 0-d ones) as columns.
template <Element T>
Array<T> column_stack(std::vector<Array<T>> const& tup) {
  return concatenate(
      detail::each(tup, [](auto const& x) { return x.ndim() < 2 ? detail::at_least_rank(x, 2).T() : x; }), 1);
}
/// The array API's concatenate: `axis` is keyword-only in JAX, the second here.
template <Element T>
Array<T> concat(std::vector<Array<T>> const& arrays, std::int64_t axis = 0) {
  return concatenate(arrays, axis);
}
template <Element T>
Array<T> concat(std::vector<Array<T>> const& arrays, none_t) {
  return concatenate(arrays, none);
}

/// An array standing for the sequence of its slices along axis 0.
template <ArrayLike A>
Array<value_type_t<A>> vstack(A const& tup) {
  auto const x = as_array(tup);
  if (x.ndim() == 0) throw Error("vstack: zero-dimensional arrays cannot be concatenated.");
  return detail::concatenate_slices(detail::slices_at_least(x, 2), 0, "vstack");
}
template <ArrayLike A>
Array<value_type_t<A>> hstack(A const& tup) {
  auto const x = as_array(tup);
  if (x.ndim() == 0) throw Error("hstack: zero-dimensional arrays cannot be concatenated.");
  if (x.ndim() == 1) return lax::reshape(x, Shape{x.size()});  // 0-d slices: a copy of x
  return detail::concatenate_slices(x, x.ndim() == 2 ? 0 : 1, "hstack");
}
template <ArrayLike A>
Array<value_type_t<A>> dstack(A const& tup) {
  auto const x = as_array(tup);
  if (x.ndim() == 0) throw Error("dstack: zero-dimensional arrays cannot be concatenated.");
  Axes at{};
  if (x.ndim() == 1) at = {1, 2, 3};
  else if (x.ndim() == 2) at = {1, 3};
  else if (x.ndim() == 3) at = {3};
  return detail::concatenate_slices(at.empty() ? x : lax::expand_dims(x, at), 2, "dstack");
}
template <ArrayLike A>
Array<value_type_t<A>> column_stack(A const& tup) {
  auto const x = as_array(tup);
  if (x.ndim() == 0) throw Error("column_stack: zero-dimensional arrays cannot be concatenated.");
  if (x.ndim() >= 3) return detail::concatenate_slices(x, 1, "column_stack");
  // Each slice as atleast_2d(slice).T: (n,) → (n, 1, 1), (n, m) → (n, m, 1).
  return detail::concatenate_slices(lax::expand_dims(x, x.ndim() == 1 ? Axes{1, 2} : Axes{2}), 1, "column_stack");
}

/// An array assembled from nested lists of blocks: the innermost lists are
/// joined along the last axis, the next along the second to last, and so on;
/// each block first gets leading size-1 axes up to the depth (or the largest
/// rank among its siblings). `block({{a, b}, {c, d}})`.
template <Element T>
Array<T> block(std::vector<Array<T>> const& arrays) {
  return detail::block_of<T>(arrays).first;
}
template <Element T>
Array<T> block(std::vector<std::vector<Array<T>>> const& arrays) {
  return detail::block_of<T>(arrays).first;
}
template <Element T>
Array<T> block(std::vector<std::vector<std::vector<Array<T>>>> const& arrays) {
  return detail::block_of<T>(arrays).first;
}

/// `values` joined after `arr` along `axis`; axis = none (default): both flattened first.
template <ArrayLike A, ArrayLike V>
  requires std::same_as<value_type_t<A>, value_type_t<V>>
Array<value_type_t<A>> append(A const& arr, V const& values, none_t = none) {
  return concatenate(std::vector<Array<value_type_t<A>>>{ravel(arr), ravel(values)}, 0);
}
template <ArrayLike A, ArrayLike V>
  requires std::same_as<value_type_t<A>, value_type_t<V>>
Array<value_type_t<A>> append(A const& arr, V const& values, std::int64_t axis) {
  return concatenate(std::vector<Array<value_type_t<A>>>{as_array(arr), as_array(values)}, axis);
}

/// Braced lists of arrays or expressions of one dtype: `hstack({a, b * 2.f})`.
#define JAXCC_STACKING_LIST(T)                                                                              \
  template <class D = void>                                                                                \
  Array<T> vstack(std::initializer_list<Array<detail::dependent_t<D, T>>> tup) {                           \
    return vstack(std::vector<Array<T>>(tup));                                                              \
  }                                                                                                         \
  template <class D = void>                                                                                \
  Array<T> hstack(std::initializer_list<Array<detail::dependent_t<D, T>>> tup) {                           \
    return hstack(std::vector<Array<T>>(tup));                                                              \
  }                                                                                                         \
  template <class D = void>                                                                                \
  Array<T> dstack(std::initializer_list<Array<detail::dependent_t<D, T>>> tup) {                           \
    return dstack(std::vector<Array<T>>(tup));                                                              \
  }                                                                                                         \
  template <class D = void>                                                                                \
  Array<T> column_stack(std::initializer_list<Array<detail::dependent_t<D, T>>> tup) {                     \
    return column_stack(std::vector<Array<T>>(tup));                                                        \
  }                                                                                                         \
  template <class D = void>                                                                                \
  Array<T> concat(std::initializer_list<Array<detail::dependent_t<D, T>>> arrays, std::int64_t axis = 0) { \
    return concatenate(std::vector<Array<T>>(arrays), axis);                                                \
  }                                                                                                         \
  template <class D = void>                                                                                \
  Array<T> concat(std::initializer_list<Array<detail::dependent_t<D, T>>> arrays, none_t) {                \
    return concatenate(std::vector<Array<T>>(arrays), none);                                                \
  }                                                                                                         \
  template <class D = void>                                                                                \
  Array<T> block(std::initializer_list<Array<detail::dependent_t<D, T>>> arrays) {                         \
    return block(std::vector<Array<T>>(arrays));                                                            \
  }                                                                                                         \
  template <class D = void>                                                                                \
  Array<T> block(std::initializer_list<std::initializer_list<Array<detail::dependent_t<D, T>>>> arrays) {  \
    std::vector<std::vector<Array<T>>> rows;                                                                \
    for (auto const& row : arrays) rows.emplace_back(row);                                                  \
    return block(rows);                                                                                     \
  }
JAXCC_FOR_EACH_ELEMENT(JAXCC_STACKING_LIST)
#undef JAXCC_STACKING_LIST

}  // namespace jaxcc::numpy
