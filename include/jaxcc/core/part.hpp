// A part of an array: the [start, stop) it spans of each dimension, its
// view, and writing it into the whole. Sharded arrays are laid out by such
// parts (sharding/sharded_array.hpp); jit's microbatching runs a program on
// parts of its batch (graph/microbatch.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/core/strided.hpp"

namespace jaxcc::detail {

using PartRanges = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// Rows [first, first + count) of an array of `shape` along its leading
/// dimension, whole along the others.
inline PartRanges leading_part(Shape const& shape, std::int64_t first, std::int64_t count) {
  PartRanges ranges{{first, first + count}};
  for (std::size_t d = 1; d < shape.size(); ++d) ranges.emplace_back(0, shape[d]);
  return ranges;
}

/// A handle on the part of `x` at `ranges`: a view.
inline std::shared_ptr<ArrayImpl const> part_impl(ArrayImpl const& x, PartRanges const& ranges) {
  Shape shape;
  auto offset = x.offset;
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    shape.push_back(ranges[d].second - ranges[d].first);
    offset += ranges[d].first * x.strides[d];
  }
  return view_impl(x, std::move(shape), x.strides, offset);
}

/// The view of `x` restricted to `ranges`.
template <Element T>
Array<T> part_view(Array<T> const& x, PartRanges const& ranges) {
  return ArrayAccess::make<T>(part_impl(ArrayAccess::impl(x), ranges));
}
inline AnyArray part_view(AnyArray const& x, PartRanges const& ranges) {
  return AnyArray::from_handle(x.dtype(), part_impl(impl_of(x), ranges));
}

/// Copy `part` into the row-major array of `global_shape` at `out`, at `ranges`.
inline void write_part(AnyArray const& part, void* out, Shape const& global_shape, PartRanges const& ranges) {
  auto const strides = contiguous_strides(global_shape);
  std::int64_t start = 0;
  for (std::size_t d = 0; d < ranges.size(); ++d) start += ranges[d].first * strides[d];
  auto const item = item_size(part.dtype());
  copy_elements(impl_of(part), item, static_cast<std::byte*>(out) + start * static_cast<std::int64_t>(item), strides);
}

}  // namespace jaxcc::detail
