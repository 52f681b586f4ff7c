// A convolution lowered to im2col (primitives/conv_general_dilated.hpp):
// the input's patches, one row per input feature and window position and
// one column per output position, times the kernels, one GEMM per block of
// input features.
#pragma once

#include <Eigen/Core>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "jaxcc/core/shape.hpp"
#include "jaxcc/kernels/gemm.hpp"
#include "jaxcc/primitives/bits/conv_geometry.hpp"
#include "jaxcc/primitives/bits/conv_gemm.hpp"

namespace jaxcc::detail {

/// im2col: rows (feature i, window position k) for i in [0, features), of
/// the input of one batch element starting at `in`; columns the output's
/// spatial positions, in rows `pitch` apart. Positions in the padding or
/// between dilated input elements read zero.
template <class T>
void conv_patches(ConvGeometry const& g, T const* in, std::int64_t features, T* patches, std::int64_t pitch) {
  auto const last = g.in.size() - 1;
  auto const row = g.out[last], step = g.lhs_spatial[last];
  auto const stride = g.strides[last] * step;
  for (std::int64_t i = 0; i < features; ++i) {
    T const* feature = in + i * g.lhs_feature_stride;
    T* window_rows = patches + i * g.window_size() * pitch;
    for_each_window_run(g, g.lhs_spatial, [&](WindowRun const& run) {
      T* dst = window_rows + run.k * pitch + run.column;
      auto const span = run.rows * row;
      if (!run.source) {
        std::fill(dst, dst + span, T{0});
      } else if (g.lhs_dilation[last] != 1) {
        for (std::int64_t r = 0; r < run.rows; ++r)
          for (std::int64_t c = 0; c < row; ++c) {
            auto const at = dilated_source(g, run.first, c);
            dst[r * row + c] = at < 0 ? T{0} : feature[*run.source + r * run.source_step + at * step];
          }
      } else if (auto const [lo, hi] = inside_columns(g, run.first); lo >= hi) {
        std::fill(dst, dst + span, T{0});
      } else if (T const* src = feature + *run.source + run.first * step; stride == 1 && run.source_step == row) {
        // The rows' inputs follow each other as their outputs do (SAME
        // padding, unit strides): one copy, whose reads between one row's
        // last inside column and the next row's first land on the padding
        // columns, zeroed after.
        std::copy(src + lo, src + (span - row) + hi, dst + lo);
        for (std::int64_t c = 0; c < lo; ++c)
          for (std::int64_t r = 0; r < run.rows; ++r) dst[r * row + c] = T{0};
        for (auto c = hi; c < row; ++c)
          for (std::int64_t r = 0; r < run.rows; ++r) dst[r * row + c] = T{0};
      } else {
        for (std::int64_t r = 0; r < run.rows; ++r, dst += row, src += run.source_step) {
          std::fill(dst, dst + lo, T{0});
          for (auto c = lo; c < hi; ++c) dst[c] = src[c * stride];
          std::fill(dst + hi, dst + row, T{0});
        }
      }
    });
  }
}

/// im2col stored by columns, for outputs with fewer positions along the
/// last spatial dim than the window (a kernel's gradient, whose window is
/// the image): column c (an output position) holds its rows (feature i,
/// window position k) contiguously, `pitch` apart, filled by runs along the
/// window's last dim, which read the input contiguously.
template <class T>
void conv_patches_by_window(ConvGeometry const& g, T const* in, std::int64_t features, T* patches,
                            std::int64_t pitch) {
  auto const nd = g.in.size(), last = nd - 1;
  auto const run = g.window[last], step = g.lhs_spatial[last];
  auto const window = g.window_size();
  Shape const outer(g.window.begin(), g.window.end() - 1);
  std::vector<std::int64_t> s(nd, 0), k(last, 0);
  std::int64_t column = 0;
  do {
    T* col = patches + column * pitch;
    for (std::int64_t i = 0; i < features; ++i) {
      T const* feature = in + i * g.lhs_feature_stride;
      T* dst = col + i * window;
      do {
        auto const source = row_source(g, s, k, g.lhs_spatial, last);
        // Along the window's last dim: position first + j * rhs_dilation for window index j.
        auto const first = s[last] * g.strides[last] - g.pad_lo[last];
        auto const dil = g.rhs_dilation[last], in_dil = g.lhs_dilation[last];
        if (!source) {
          std::fill(dst, dst + run, T{0});
        } else if (dil == 1 && in_dil == 1) {
          // Window indices [lo, hi) read inside the input, as one contiguous run when step is 1.
          auto const lo = std::clamp<std::int64_t>(-first, 0, run);
          auto const hi = std::clamp<std::int64_t>(g.in[last] - first, lo, run);
          T const* src = feature + *source + first * step;
          std::fill(dst, dst + lo, T{0});
          if (step == 1) std::copy(src + lo, src + hi, dst + lo);
          else
            for (auto j = lo; j < hi; ++j) dst[j] = src[j * step];
          std::fill(dst + hi, dst + run, T{0});
        } else {
          for (std::int64_t j = 0; j < run; ++j) {
            auto const pos = first + j * dil;
            dst[j] = pos >= 0 && pos % in_dil == 0 && pos / in_dil < g.in[last] ? feature[*source + (pos / in_dil) * step]
                                                                               : T{0};
          }
        }
        dst += run;
      } while (next_index(k, outer));
    }
    ++column;
  } while (next_index(s, g.out));
}

/// The output of `count` batch elements from n in one group: its rows
/// (features) times its columns (each element's spatial positions), summed
/// over the input features in [begin, end) — one im2col block and GEMM per
/// block of features.
template <class T>
void conv_rows(ConvGeometry const& g, ConvKernels<T> const& kernels, T const* lhs, std::int64_t n, std::int64_t count,
               std::int64_t group, std::int64_t begin, std::int64_t end, ConvResult<T>& result,
               std::vector<T>& patches) {
  auto const positions = g.out_size(), columns = count * positions, window = g.window_size();
  auto const feature0 = g.batch_groups > 1 ? 0 : group * g.in_features;
  auto const kernels_of_group = kernels.data + group * g.out_features * kernels.out_stride;
  if (begin == end) zero_rows(result);
  for (auto i0 = begin; i0 < end; i0 += kernels.block) {
    auto const features = std::min(kernels.block, end - i0);
    auto const rows = features * window;
    patches.resize(static_cast<std::size_t>(rows * columns));
    bool const by_window = g.window.back() > g.out.back();
    for (std::int64_t b = 0; b < count; ++b) {
      auto const in_batch = g.batch_groups > 1 ? group * g.out_batch + n + b : n + b;
      T const* in = lhs + in_batch * g.lhs_batch_stride + (feature0 + i0) * g.lhs_feature_stride;
      if (by_window) conv_patches_by_window(g, in, features, patches.data() + b * positions * rows, rows);
      else conv_patches(g, in, features, patches.data() + b * positions, columns);
    }
    auto const w = kernels.operand(kernels_of_group + i0 * kernels.in_stride, g.out_features, features, window);
    // The patches: column-major when stored by window, else row-major.
    GemmOperand<T> const cols = by_window ? GemmOperand<T>{patches.data(), rows, columns, 1, rows}
                                          : GemmOperand<T>{patches.data(), rows, columns, columns, 1};
    if (w.unit_strided()) {
      // The first block overwrites the rows, the others add to them.
      gemm_into<T>(w, cols, {result.data(), result.outerStride(), i0 != begin});
    } else {
      // Kernels strided both ways: Eigen's own GEMM reads them in place.
      if (i0 == begin) zero_rows(result);
      auto const weights = strided_matrix(w.data, w.rows, w.cols, w.row_stride, w.col_stride);
      if (by_window)
        result.noalias() += weights * Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> const>(patches.data(), rows, columns);
      else
        result.noalias() += weights * Eigen::Map<ConvMatrix<T> const>(patches.data(), rows, columns);
    }
  }
}

/// Input features per im2col block: about 1 MiB of patches.
template <class T>
std::int64_t conv_feature_block(ConvGeometry const& g) {
  auto const per_feature = std::max<std::int64_t>(g.window_size() * g.out_size(), 1);
  return std::max<std::int64_t>(1, (std::int64_t{1} << 20) / static_cast<std::int64_t>(sizeof(T)) / per_feature);
}

/// The whole output by im2col and GEMM, in tasks of batch elements and one
/// group, split over the threads by task where there are enough tasks,
/// else by blocks of input features where there are enough of those.
template <class T>
void conv_by_im2col(ConvGeometry const& g, ConvKernels<T> const& kernels, T const* src, ConvTarget<T> const& target) {
  auto const threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  // Batch elements share a GEMM when each has few output positions: the
  // kernels are then packed once for all of them.
  auto const per_gemm = std::clamp<std::int64_t>(256 / g.out_size(), 1, g.out_batch);
  auto const chunks = (g.out_batch + per_gemm - 1) / per_gemm;
  auto const tasks = chunks * g.groups;
  auto const blocks = (g.in_features + kernels.block - 1) / kernels.block;
  // Task t: group t % groups, batch elements [n, n + count).
  auto const first_of = [&](std::int64_t t) { return t / g.groups * per_gemm; };
  auto const count_of = [&](std::int64_t t) { return std::min(per_gemm, g.out_batch - first_of(t)); };
  if (threads > 1 && tasks >= 2 * threads) {
    // Enough tasks: one per thread at a time.
#pragma omp parallel
    {
      std::vector<T> patches, scratch;
#pragma omp for schedule(dynamic)
      for (std::int64_t t = 0; t < tasks; ++t) {
        auto result = target.result(first_of(t), count_of(t), t % g.groups, scratch);
        conv_rows(g, kernels, src, first_of(t), count_of(t), t % g.groups, 0, g.in_features, result, patches);
        target.write_rows(first_of(t), count_of(t), t % g.groups, scratch);
      }
    }
  } else if (threads > 1 && blocks >= threads) {
    // Few tasks of many feature blocks (a kernel's gradient): each thread
    // sums its share of the blocks, and the shares are added.
    std::vector<T> partial;
    for (std::int64_t t = 0; t < tasks; ++t) {
      auto const size = g.out_features * count_of(t) * g.out_size();
      partial.resize(static_cast<std::size_t>(threads * size));
      auto const share = [&](std::int64_t id) {
        return ConvResult<T>(partial.data() + id * size, g.out_features, count_of(t) * g.out_size(),
                             Eigen::OuterStride<>(count_of(t) * g.out_size()));
      };
#pragma omp parallel num_threads(threads)
      {
        std::vector<T> patches;
        auto const id = static_cast<std::int64_t>(omp_get_thread_num());
        auto const begin = std::min(g.in_features, id * blocks / threads * kernels.block);
        auto const end = std::min(g.in_features, (id + 1) * blocks / threads * kernels.block);
        auto mine = share(id);
        conv_rows(g, kernels, src, first_of(t), count_of(t), t % g.groups, begin, end, mine, patches);
      }
      std::vector<T> scratch;
      auto result = target.result(first_of(t), count_of(t), t % g.groups, scratch);
      result = share(0);
      for (std::int64_t id = 1; id < threads; ++id) result += share(id);
      target.write_rows(first_of(t), count_of(t), t % g.groups, scratch);
    }
  } else {
    // One at a time, Eigen's GEMM spreading over the threads.
    std::vector<T> patches, scratch;
    for (std::int64_t t = 0; t < tasks; ++t) {
      auto result = target.result(first_of(t), count_of(t), t % g.groups, scratch);
      conv_rows(g, kernels, src, first_of(t), count_of(t), t % g.groups, 0, g.in_features, result, patches);
      target.write_rows(first_of(t), count_of(t), t % g.groups, scratch);
    }
  }
}

}  // namespace jaxcc::detail
