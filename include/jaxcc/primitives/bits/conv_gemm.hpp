// A convolution's GEMM operands (primitives/conv_general_dilated.hpp):
// the kernels as a matrix read in place where their layout allows, and
// where the output's rows go, the output itself where it is one strided
// matrix.
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/kernels/simd_dispatch.hpp"
#include "jaxcc/primitives/bits/conv_geometry.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::detail {

template <class T>
using ConvMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A matrix read in place, rows `row_stride` and elements `column_stride`
/// apart (for operands strided both ways, which kernels/gemm.hpp's GEMM
/// does not read).
template <class T>
auto strided_matrix(T const* data, std::int64_t rows, std::int64_t columns, std::int64_t row_stride,
                    std::int64_t column_stride) {
  using Stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
  return Eigen::Map<ConvMatrix<T> const, Eigen::Unaligned, Stride>(data, rows, columns, Stride(row_stride, column_stride));
}

/// The kernels as GEMM operands: for a block of input features, an
/// (out_features × features·window) matrix with uniform strides, read in
/// place when its features and window merge into one run (the default
/// OIHW), else from a dense copy in that order, unless the window is longer
/// than the output. Read in place, such kernels (HWIO) make a GEMM per
/// input feature over the window alone, each adding into the whole output:
/// that costs a pass over the output per feature, the copy one pass over
/// the kernels, so the copy wins where the window is the shorter (a 3x3
/// convolution's kernels), and not where it is the longer (the cotangent a
/// weight gradient reads as its kernels).
template <class T>
struct ConvKernels {
  T const* data;
  std::int64_t out_stride, in_stride, window_stride;
  std::int64_t block;  // input features per GEMM: 1 when read in place without merging
  Array<T> owner;      // the dense copy, when one was made

  ConvKernels(ConvGeometry const& g, Array<T> const& rhs, Axes const& rhs_spec, std::int64_t block_limit) {
    auto const window_step = flat_stride(g.window, g.rhs_spatial);
    bool const merges = window_step && (g.in_features == 1 || g.rhs_in_stride == g.window_size() * *window_step);
    bool const in_place = window_step && (merges || g.window_size() >= g.out_size());
    if (in_place) {
      data = rhs.data();
      out_stride = g.rhs_out_stride;
      in_stride = g.rhs_in_stride;
      window_stride = *window_step;
    } else {
      // Copy to (out, in, window...) order: everything merges.
      auto const dense = detail::contiguous(lax::transpose(rhs, rhs_spec));
      owner = dense;
      data = dense.data();
      window_stride = 1;
      in_stride = g.window_size();
      out_stride = g.in_features * in_stride;
    }
    block = in_place && !merges ? 1 : std::clamp<std::int64_t>(block_limit, 1, g.in_features);
  }

  /// The kernels of input features [i0, i0 + features) as a GEMM operand.
  GemmOperand<T> operand(T const* first, std::int64_t out_features, std::int64_t features, std::int64_t window) const {
    return {first, out_features, features * window, out_stride, window_stride};
  }
};

template <class T>
using ConvResult = Eigen::Map<ConvMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

/// Zeros a result row by row, each row one memset: Eigen's setZero on a
/// strided map stores vectors, reading each line first.
template <class T>
void zero_rows(ConvResult<T>& result) {
  for (Eigen::Index r = 0; r < result.rows(); ++r) std::fill_n(result.row(r).data(), result.cols(), T{0});
}

/// Where the output rows of `count` batch elements from n and one group go:
/// the output itself when that is one strided matrix, else `scratch`
/// (features × count·positions), which write_rows then scatters.
template <class T>
struct ConvTarget {
  ConvGeometry const& g;
  T* out;
  bool flat;

  ConvTarget(ConvGeometry const& geometry, T* output) : g(geometry), out(output) {
    auto const step = flat_stride(g.out, g.out_spatial);
    flat = step && *step == 1;
  }
  T* rows_of(std::int64_t n, std::int64_t group) const {
    return out + n * g.out_batch_stride + group * g.out_features * g.out_feature_stride;
  }
  bool direct(std::int64_t count) const { return flat && count == 1; }
  ConvResult<T> result(std::int64_t n, std::int64_t count, std::int64_t group, std::vector<T>& scratch) const {
    auto const columns = count * g.out_size();
    if (direct(count)) return {rows_of(n, group), g.out_features, columns, Eigen::OuterStride<>(g.out_feature_stride)};
    scratch.resize(static_cast<std::size_t>(g.out_features * columns));
    return {scratch.data(), g.out_features, columns, Eigen::OuterStride<>(columns)};
  }
  void write_rows(std::int64_t n, std::int64_t count, std::int64_t group, std::vector<T> const& scratch) const {
    if (direct(count)) return;
    auto const columns = count * g.out_size();
    std::vector<std::int64_t> offsets;
    std::vector<std::int64_t> s(g.out.size(), 0);
    do {
      std::int64_t offset = 0;
      for (std::size_t d = 0; d < s.size(); ++d) offset += s[d] * g.out_spatial[d];
      offsets.push_back(offset);
    } while (next_index(s, g.out));
    // Features innermost (NHWC): each position's features are written as
    // one run (their rows' lines stay in cache from one position to the next).
    bool const features_inner = g.out_feature_stride == 1;
    for (std::int64_t b = 0; b < count; ++b) {
      T* dst = rows_of(n + b, group);
      T const* src = scratch.data() + b * g.out_size();
      if (features_inner) {
        for (std::size_t c = 0; c < offsets.size(); ++c)
          for (std::int64_t o = 0; o < g.out_features; ++o)
            dst[offsets[c] + o] = src[o * columns + static_cast<std::int64_t>(c)];
      } else {
        for (std::int64_t o = 0; o < g.out_features; ++o)
          for (std::size_t c = 0; c < offsets.size(); ++c)
            dst[o * g.out_feature_stride + offsets[c]] = src[o * columns + static_cast<std::int64_t>(c)];
      }
    }
  }
};

}  // namespace jaxcc::detail
