// Walking N strided operands of one shape together, row by row: dimensions
// that are contiguous for every operand are merged first, so a contiguous
// or broadcast-scalar operand costs one long row, not many short ones.
#pragma once

#include <array>
#include <cstdint>
#include <vector>
#include <omp.h>

#include "jaxcc/core/shape.hpp"

namespace jaxcc::detail {

/// Below this many elements work runs on the calling thread alone.
inline constexpr std::int64_t parallel_grain = std::int64_t{1} << 16;

/// run(first, last) over [0, count): split evenly over OpenMP threads when
/// there is more than one item and `elements` (the work) reaches the grain,
/// else on the calling thread.
template <class Run>
void split_over_threads(std::int64_t count, std::int64_t elements, Run&& run) {
  if (count > 1 && elements >= parallel_grain && !omp_in_parallel()) {
#pragma omp parallel
    {
      auto const threads = omp_get_num_threads();
      auto const t = omp_get_thread_num();
      run(count * t / threads, count * (t + 1) / threads);
    }
  } else {
    run(std::int64_t{0}, count);
  }
}

template <std::size_t N>
struct StridedLayout {
  Shape shape;                    // merged dimensions, outermost first (rank >= 1)
  std::array<Strides, N> strides;  // per operand, over the merged dimensions
};

/// Merge dimensions that every operand walks contiguously; drop size-1 ones.
template <std::size_t N>
StridedLayout<N> merge_dimensions(Shape const& shape, std::array<Strides, N> const& strides) {
  StridedLayout<N> out;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !out.shape.empty();
    for (std::size_t k = 0; merge && k < N; ++k)
      merge = out.strides[k].back() == strides[k][d] * shape[d];
    if (merge) {
      out.shape.back() *= shape[d];
      for (std::size_t k = 0; k < N; ++k) out.strides[k].back() = strides[k][d];
    } else {
      out.shape.push_back(shape[d]);
      for (std::size_t k = 0; k < N; ++k) out.strides[k].push_back(strides[k][d]);
    }
  }
  if (out.shape.empty()) {
    out.shape.push_back(shape.numel());  // rank 0, or only size-1 dims (or an empty dim)
    for (std::size_t k = 0; k < N; ++k) out.strides[k].push_back(1);
  }
  return out;
}

/// Call `row(offsets, n, inner_strides)` for each innermost row of the merged
/// layout; `offsets[k]` is operand k's element offset at the row's start.
/// Rows are split over OpenMP threads when the work is large.
template <std::size_t N, class Row>
void for_each_row(StridedLayout<N> const& layout, Row&& row) {
  auto const rank = layout.shape.size();
  auto const inner = layout.shape[rank - 1];
  std::array<std::int64_t, N> inner_strides;
  for (std::size_t k = 0; k < N; ++k) inner_strides[k] = layout.strides[k][rank - 1];
  std::int64_t rows = 1;
  for (std::size_t d = 0; d + 1 < rank; ++d) rows *= layout.shape[d];
  if (rows == 0 || inner == 0) return;

  auto run = [&](std::int64_t first, std::int64_t last) {
    // Multi-index of row `first`, then step it like an odometer.
    Shape index(rank - 1, 0);
    std::array<std::int64_t, N> offsets{};
    for (std::int64_t r = first, d = static_cast<std::int64_t>(rank) - 2; d >= 0; --d) {
      auto const ud = static_cast<std::size_t>(d);
      index[ud] = r % layout.shape[ud];
      r /= layout.shape[ud];
      for (std::size_t k = 0; k < N; ++k) offsets[k] += index[ud] * layout.strides[k][ud];
    }
    for (std::int64_t r = first; r < last; ++r) {
      row(offsets, inner, inner_strides);
      for (std::size_t d = rank - 1; d-- > 0;) {
        for (std::size_t k = 0; k < N; ++k) offsets[k] += layout.strides[k][d];
        if (++index[d] < layout.shape[d]) break;
        for (std::size_t k = 0; k < N; ++k) offsets[k] -= layout.strides[k][d] * layout.shape[d];
        index[d] = 0;
      }
    }
  };

  split_over_threads(rows, rows * inner, run);
}

/// The element offset, in a strided view's buffer, of each position of the
/// view in row-major order.
inline std::vector<std::int64_t> element_offsets(Shape const& shape, Strides const& strides) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(shape.numel()));
  auto layout = merge_dimensions<2>(shape, {strides, contiguous_strides(shape)});
  for_each_row(layout, [&](auto const& off, std::int64_t n, auto const& step) {
    for (std::int64_t i = 0; i < n; ++i) out[static_cast<std::size_t>(off[1] + i * step[1])] = off[0] + i * step[0];
  });
  return out;
}

/// Call `lane(offsets)` for each 1-D lane of `shape` along `axis`:
/// offsets[k] is operand k's element offset at the lane's start, from which
/// it steps by strides[k][axis]. Lanes are split over OpenMP threads when
/// the work is large. (Sorts and scans, whose lanes must not merge.)
template <std::size_t N, class Lane>
void for_each_lane(Shape const& shape, std::size_t axis, std::array<Strides, N> const& strides, Lane&& lane) {
  if (shape.numel() == 0) return;
  Shape outer;
  std::array<Strides, N> outer_strides;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (d != axis) {
      outer.push_back(shape[d]);
      for (std::size_t k = 0; k < N; ++k) outer_strides[k].push_back(strides[k][d]);
    }
  std::array<std::vector<std::int64_t>, N> starts;
  for (std::size_t k = 0; k < N; ++k) starts[k] = element_offsets(outer, outer_strides[k]);
  auto const lanes = static_cast<std::int64_t>(starts[0].size());
  auto run = [&](std::int64_t first, std::int64_t last) {
    for (auto l = first; l < last; ++l) {
      std::array<std::int64_t, N> offsets;
      for (std::size_t k = 0; k < N; ++k) offsets[k] = starts[k][static_cast<std::size_t>(l)];
      lane(offsets);
    }
  };
  split_over_threads(lanes, shape.numel(), run);
}

/// Split [0, n) into per-thread chunks whose starts are multiples of `align`.
template <class Chunk>
void parallel_chunks(std::int64_t n, std::int64_t align, Chunk&& chunk) {
  if (n < parallel_grain || omp_in_parallel()) {
    chunk(std::int64_t{0}, n);
    return;
  }
#pragma omp parallel
  {
    auto const threads = omp_get_num_threads();
    auto const t = omp_get_thread_num();
    auto cut = [&](std::int64_t i) { return i == threads ? n : (n * i / threads) / align * align; };
    chunk(cut(t), cut(t + 1));
  }
}

}  // namespace jaxcc::detail
