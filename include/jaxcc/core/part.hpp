// A part of an array: the [start, stop) it spans of each dimension, its
// view, and writing it into the whole. Sharded arrays are laid out by such
// parts (sharding/sharded_array.hpp); jit's microbatching runs a program on
// parts of its batch (graph/microbatch.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "jaxcc/bits/strided.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/shape.hpp"

namespace jaxcc::detail {

using PartRanges = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// Rows [first, first + count) of an array of `shape` along its leading
/// dimension, whole along the others.
inline PartRanges leading_part(Shape const& shape, std::int64_t first, std::int64_t count) {
  PartRanges ranges{{first, first + count}};
  for (std::size_t d = 1; d < shape.size(); ++d) ranges.emplace_back(0, shape[d]);
  return ranges;
}

/// The view of `x` restricted to `ranges`.
template <Element T>
Array<T> part_view(Array<T> const& x, PartRanges const& ranges) {
  Shape shape;
  auto offset = offset_of(x);
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    shape.push_back(ranges[d].second - ranges[d].first);
    offset += ranges[d].first * x.strides()[d];
  }
  return view(x, std::move(shape), x.strides(), offset);
}

/// Copy `part` into the row-major array of `global_shape` at `out`, at `ranges`.
template <Element T>
void write_part(Array<T> const& part, T* out, Shape const& global_shape, PartRanges const& ranges) {
  auto const strides = contiguous_strides(global_shape);
  std::int64_t start = 0;
  for (std::size_t d = 0; d < ranges.size(); ++d) start += ranges[d].first * strides[d];
  auto layout = merge_dimensions<2>(part.shape(), {part.strides(), strides});
  T const* in = part.data();
  T* dst = out + start;
  for_each_row(layout, [&](auto const& off, std::int64_t n, auto const& st) {
    for (std::int64_t i = 0; i < n; ++i) dst[off[1] + i * st[1]] = in[off[0] + i * st[0]];
  });
}

}  // namespace jaxcc::detail
