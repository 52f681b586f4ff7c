// jax.numpy's partial sorts and lexicographic sort: partition and
// argpartition (JAX's two lax.top_k calls, so their order is JAX's: the
// kth+1 smallest ascending, then the rest largest first; argpartition's
// rest in ascending position order; floats in XLA's total order, so -NaN
// comes first and NaN last, -0 before 0), and lexsort (the last key primary,
// int32 positions). partition composes top_k's gather, so grad, vmap and
// jit come with it.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <optional>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/lax/shape_ops.hpp"
#include "jaxcc/lax/sorting.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/sort.hpp"

namespace jaxcc::detail {

/// The axis and kth, checked as JAX's canonicalize_axis checks them.
template <Element T>
std::pair<std::int64_t, std::int64_t> partition_axes(Array<T> const& x, std::int64_t kth, std::int64_t axis,
                                                     char const* op) {
  auto const ax = normalize_axis(axis, x.ndim(), op);
  auto const n = x.shape()[static_cast<std::size_t>(ax)];
  if (kth < -n || kth >= n)
    throw_error(op, ": kth ", kth, " is out of bounds for axis ", ax, " of size ", n);
  return {ax, kth < 0 ? kth + n : kth};
}

/// A key that orders as lax.top_k orders `x` (XLA's total order: -NaN <
/// -inf < ... < -0 < 0 < ... < inf < NaN): floats' bits as signed integers,
/// the magnitude bits flipped where the sign is set. Other dtypes: x itself.
template <Element T>
auto top_k_key(Array<T> const& x) {
  if constexpr (std::floating_point<T> && !jaxcc::detail::is_half_float<T>) {
    using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
    Array<I> const bits = jaxcc::lax::bitcast_convert_type<I>(x);
    Array<I> const magnitude = jaxcc::lax::full<I>(bits.shape(), std::numeric_limits<I>::max());
    Array<I> const flipped = jaxcc::lax::bitwise_xor(bits, magnitude);
    return Array<I>(jaxcc::lax::select(Array<bool>(bits < I{0}), flipped, bits));
  } else {
    return x;
  }
}

/// The positions of the k smallest along the last axis, smallest first, as
/// JAX's lax.top_k(-x) (for unsigned integers -(x + 1), keeping 0 the smallest).
template <Element T>
Array<std::int32_t> bottom_k_positions(Array<T> const& x, std::int64_t k) {
  if constexpr (std::is_unsigned_v<T> && !std::same_as<T, bool>) return std::get<1>(lax::top_k(-(x + T{1}), k));
  else return std::get<1>(lax::top_k(top_k_key(Array<T>(-x)), k));
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// `a` partially sorted along `axis`: the kth+1 smallest first (ascending),
/// then the others, largest first.
template <ArrayLike A>
Array<value_type_t<A>> partition(A const& a, std::int64_t kth, std::int64_t axis = -1) {
  using T = value_type_t<A>;
  Array<T> const x = as_array(a);
  auto const [ax, k] = detail::partition_axes(x, kth, axis, "partition");
  auto const last = x.ndim() - 1;
  auto const arr = detail::move_axis(x, ax, last);
  auto const n = arr.shape().back();
  auto const bottom = jaxcc::detail::along_last(arr, detail::bottom_k_positions(arr, k + 1));
  auto const top = jaxcc::detail::along_last(arr, std::get<1>(lax::top_k(detail::top_k_key(arr), n - k - 1)));
  return detail::move_axis(concatenate(std::vector<Array<T>>{bottom, top}, last), last, ax);
}

/// The int32 positions that partition `a` along `axis` (partition's order).
template <ArrayLike A>
Array<std::int32_t> argpartition(A const& a, std::int64_t kth, std::int64_t axis = -1) {
  using T = value_type_t<A>;
  Array<T> const x = as_array(a);
  auto const [ax, k] = detail::partition_axes(x, kth, axis, "argpartition");
  auto const last = x.ndim() - 1;
  auto const arr = detail::move_axis(x, ax, last);
  auto const n = arr.shape().back();
  auto const bottom = detail::bottom_k_positions(arr, k + 1);
  // The rest: the positions not among `bottom`, ascending (top_k of a 0/1 proxy).
  auto const iota = jaxcc::lax::broadcasted_iota<std::int32_t>(arr.shape(), last);
  auto const hits = Array<bool>(expand_dims(iota, -1) == expand_dims(bottom, -2)).template astype<float>();
  auto const proxy = 1.0f - sum(hits, -1);
  auto const top = std::get<1>(lax::top_k(proxy, n - k - 1));
  return detail::move_axis(concatenate(std::vector<Array<std::int32_t>>{bottom, top}, last), last, ax);
}

/// The int32 positions that sort `keys` lexicographically along `axis`, the
/// last key primary. Keys share one shape; a 0-d key gives 0.
template <Element T>
Array<std::int32_t> lexsort(std::vector<Array<T>> const& keys, std::int64_t axis = -1) {
  if (keys.empty()) throw Error("lexsort: need sequence of keys with len > 0");
  for (auto const& key : keys)
    if (!(key.shape() == keys[0].shape())) throw Error("lexsort: all keys need to be the same shape");
  if (keys[0].ndim() == 0) return jaxcc::lax::full<std::int32_t>(Shape{}, 0);
  auto const ax = detail::normalize_axis(axis, keys[0].ndim(), "lexsort");
  auto const last = keys[0].ndim() - 1;
  std::optional<Array<std::int32_t>> order;
  for (auto const& key : keys) order = jaxcc::detail::refine_order(detail::move_axis(key, ax, last), order);
  return detail::move_axis(*order, last, ax);
}

/// `x` converted to dtype U (lax.convert_element_type).
template <Element U, ArrayLike A>
Array<U> astype(A const& x) {
  return as_array(x).template astype<U>();
}

}  // namespace jaxcc::numpy
