// Moving and making mapped axes: the building blocks of batching rules
// (JAX's batching.moveaxis, broadcast, bdim_at_front, matchaxis). Each binds
// transpose or broadcast_in_dim, so under an enclosing trace it is recorded.
// Those two are named here only: including their headers from this one
// would close include cycles through the primitives that use these helpers;
// every TU that batches a traced value includes them (through
// <jaxcc/jaxcc.hpp>, or numpy/creation.hpp and numpy/layout.hpp).
#pragma once

#include <cstdint>
#include <span>

#include "jaxcc/core/array.hpp"
#include "jaxcc/graph/batch_dim.hpp"
#include "jaxcc/primitives/bind.hpp"

namespace jaxcc::primitives {
struct transpose_p;
struct broadcast_in_dim_p;
}  // namespace jaxcc::primitives

namespace jaxcc::detail {

using graph::BatchDim;

/// x with axis `from` moved to position `to`, the others in order (an
/// Array, or an AnyArray: transpose is dtype-generic).
template <class A>
A move_axis(A const& x, std::int64_t from, std::int64_t to) {
  if (from == to) return x;
  Axes perm;
  for (std::int64_t i = 0; i < x.ndim(); ++i)
    if (i != from) perm.push_back(i);
  perm.insert(perm.begin() + to, from);
  return jaxcc::detail::bind<primitives::transpose_p>({perm}, x);
}

/// x repeated `size` times along a new axis at `axis` (an Array, or an
/// AnyArray: broadcast_in_dim is dtype-generic).
template <class A>
A broadcast_axis(A const& x, std::int64_t size, std::int64_t axis) {
  Shape shape = x.shape();
  shape.insert(shape.begin() + axis, size);
  Axes dims;
  for (std::int64_t i = 0; i <= x.ndim(); ++i)
    if (i != axis) dims.push_back(i);
  return jaxcc::detail::bind<primitives::broadcast_in_dim_p>({shape, dims}, x);
}

/// x with its mapped axis first; an unmapped x is broadcast to `size`.
template <Element T>
Array<T> bdim_at_front(Array<T> const& x, BatchDim dim, std::int64_t size) {
  return dim ? move_axis(x, *dim, 0) : broadcast_axis(x, size, 0);
}

/// x with its mapped axis at `to`; an unmapped x is broadcast to `size` there.
template <Element T>
Array<T> bdim_at(Array<T> const& x, BatchDim dim, std::int64_t size, std::int64_t to) {
  return dim ? move_axis(x, *dim, to) : broadcast_axis(x, size, to);
}

/// x with its mapped axis first, or x itself when it is unmapped.
template <Element T>
Array<T> mapped_at_front(Array<T> const& x, BatchDim dim) {
  return dim ? move_axis(x, *dim, 0) : x;
}

/// For numpy-style broadcasting: x's mapped axis first, then size-1 axes so
/// that its per-example part has `rank` axes, right-aligned (an unmapped x
/// is returned as it is: it broadcasts on its own).
template <Element T>
Array<T> batched_for_broadcast(Array<T> const& x, BatchDim dim, std::int64_t rank) {
  if (!dim) return x;
  auto const front = move_axis(x, *dim, 0);
  auto const missing = rank - (x.ndim() - 1);
  if (missing == 0) return front;
  Shape shape{x.shape()[static_cast<std::size_t>(*dim)]};
  for (std::int64_t i = 0; i < missing; ++i) shape.push_back(1);
  Axes dims{0};
  for (std::int64_t i = 1; i < front.ndim(); ++i) {
    shape.push_back(front.shape()[static_cast<std::size_t>(i)]);
    dims.push_back(i + missing);
  }
  return jaxcc::detail::bind<primitives::broadcast_in_dim_p>({shape, dims}, front);
}

/// The first mapped dimension's index among `dims` (there is one).
inline std::size_t first_mapped(std::span<BatchDim const> dims) {
  std::size_t i = 0;
  while (!dims[i]) ++i;
  return i;
}

}  // namespace jaxcc::detail
