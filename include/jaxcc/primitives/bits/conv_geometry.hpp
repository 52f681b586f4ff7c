// A convolution's geometry for its kernels (primitives/conv_general_dilated.hpp):
// the operands' dims in canonical order with their strides, and the walk
// that both of its orders share: for each window position, the output's
// rows by runs that read consecutive input rows or only padding.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "jaxcc/core/shape.hpp"

namespace jaxcc::detail {

/// A convolution's geometry in canonical order (batch, feature, then the
/// spatial dims in the rhs's order), with each operand's element strides.
/// A convolution without spatial dims gets one of size 1.
struct ConvGeometry {
  std::int64_t out_batch = 0, groups = 1, batch_groups = 1;
  std::int64_t in_features = 0;   // per group: the rhs's input features
  std::int64_t out_features = 0;  // per group
  Shape in, window, out;
  Axes strides, pad_lo, lhs_dilation, rhs_dilation;
  std::int64_t lhs_batch_stride = 0, lhs_feature_stride = 0, rhs_out_stride = 0, rhs_in_stride = 0,
               out_batch_stride = 0, out_feature_stride = 0;
  Strides lhs_spatial, rhs_spatial, out_spatial;

  std::int64_t window_size() const { return window.numel(); }
  std::int64_t out_size() const { return out.numel(); }
};

/// The stride with which `sizes`/`strides` can be walked as one flat run
/// (row-major order), if they can.
inline std::optional<std::int64_t> flat_stride(Shape const& sizes, Strides const& strides) {
  std::optional<std::int64_t> step;
  std::int64_t expected = 0;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (!step) {
      step = strides[d];
    } else if (strides[d] != expected) {
      return std::nullopt;
    }
    expected = strides[d] * sizes[d];
  }
  return step.value_or(1);
}

/// Advance a row-major multi-index over `sizes`; false after the last.
inline bool next_index(std::vector<std::int64_t>& index, Shape const& sizes) {
  for (auto d = static_cast<std::ptrdiff_t>(index.size()) - 1; d >= 0; --d) {
    auto const u = static_cast<std::size_t>(d);
    if (++index[u] < sizes[u]) return true;
    index[u] = 0;
  }
  return false;
}

/// The offset, through `in_strides`, of the input row that output position
/// s reads at window position k along the first `dims` spatial dims; none
/// when that row is padding or between dilated elements.
inline std::optional<std::int64_t> row_source(ConvGeometry const& g, std::vector<std::int64_t> const& s,
                                              std::vector<std::int64_t> const& k, Strides const& in_strides,
                                              std::size_t dims) {
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < dims; ++d) {
    auto const pos = s[d] * g.strides[d] + k[d] * g.rhs_dilation[d] - g.pad_lo[d];
    auto const dil = g.lhs_dilation[d];
    if (pos < 0 || pos % dil != 0 || pos / dil >= g.in[d]) return std::nullopt;
    offset += (pos / dil) * in_strides[d];
  }
  return offset;
}

/// Output rows (runs along the last spatial dim) that read input rows at
/// one window position: `rows` rows, the first at flat output position
/// `column`, each the next along the dim before the last (`row` positions
/// on), reading input rows `source_step` apart (through the walk's
/// strides) from `source`, or all padding or between dilated elements (no
/// source). `first` is the dilated position along the last dim that
/// column 0 reads.
struct WindowRun {
  std::int64_t k, column, rows, first, source_step;
  std::optional<std::int64_t> source;
};

/// Where the window's position k (flat) reads for every row of output
/// positions: `visit(WindowRun)` for each run of rows that read consecutive
/// input rows or none, a few per window position: the work per row is then
/// the caller's inner loop, not a walk over every dim.
template <class Visit>
void for_each_window_run(ConvGeometry const& g, Strides const& in_strides, Visit&& visit) {
  auto const nd = g.in.size(), last = nd - 1;
  auto const row = g.out[last];
  std::vector<std::int64_t> k(nd, 0);
  std::int64_t kk = 0;
  do {
    auto const first = k[last] * g.rhs_dilation[last] - g.pad_lo[last];
    if (nd == 1) {
      visit(WindowRun{kk++, 0, 1, first, 0, 0});
      continue;
    }
    // Runs go along dim `along`; the dims before it are walked one by one.
    auto const along = nd - 2;
    Shape const outer(g.out.begin(), g.out.begin() + static_cast<std::ptrdiff_t>(along));
    std::vector<std::int64_t> s(along, 0);
    std::int64_t column = 0;
    auto const stride = g.strides[along], dil = g.lhs_dilation[along], in = g.in[along], count = g.out[along];
    auto const offset = k[along] * g.rhs_dilation[along] - g.pad_lo[along];
    auto const reads = [&](std::int64_t r) {
      auto const pos = r * stride + offset;
      return pos >= 0 && (dil == 1 ? pos < in : pos % dil == 0 && pos / dil < in);
    };
    do {
      auto const base = row_source(g, s, k, in_strides, along);
      for (std::int64_t r = 0; r < count;) {
        bool const inside = base && reads(r);
        auto end = r + 1;
        // Undilated inside rows read consecutive input rows; dilated ones go one by one.
        if (!inside || dil == 1)
          while (end < count && (base && reads(end)) == inside) ++end;
        std::optional<std::int64_t> source;
        if (inside) source = *base + (r * stride + offset) / dil * in_strides[along];
        visit(WindowRun{kk, column + r * row, end - r, first, stride * in_strides[along], source});
        r = end;
      }
      column += count * row;
    } while (next_index(s, outer));
    ++kk;
  } while (next_index(k, g.window));
}

/// Along the last spatial dim: the output columns [lo, hi) whose position
/// first + c * stride falls inside the (undilated) input.
inline std::pair<std::int64_t, std::int64_t> inside_columns(ConvGeometry const& g, std::int64_t first) {
  auto const last = g.in.size() - 1;
  auto const stride = g.strides[last], row = g.out[last], in = g.in[last];
  auto const lo = std::min(first >= 0 ? 0 : (-first + stride - 1) / stride, row);
  auto const hi = std::clamp<std::int64_t>(in - first <= 0 ? 0 : (in - first + stride - 1) / stride, lo, row);
  return {lo, hi};
}

/// Along a dilated last dim: the input index column c reads, or -1.
inline std::int64_t dilated_source(ConvGeometry const& g, std::int64_t first, std::int64_t c) {
  auto const last = g.in.size() - 1;
  auto const pos = first + c * g.strides[last];
  auto const dil = g.lhs_dilation[last];
  return pos >= 0 && pos % dil == 0 && pos / dil < g.in[last] ? pos / dil : -1;
}

}  // namespace jaxcc::detail
