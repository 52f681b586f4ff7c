// A convolution as a GEMM then shift-and-add (primitives/conv_general_dilated.hpp),
// for kernels with fewer output than input features: the products of the
// transposed kernels with the input, each output position adding up those
// its window reads.
#pragma once

#include <Eigen/Core>
#include <omp.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "jaxcc/core/shape.hpp"
#include "jaxcc/kernels/gemm.hpp"
#include "jaxcc/primitives/bits/conv_geometry.hpp"
#include "jaxcc/primitives/bits/conv_gemm.hpp"

namespace jaxcc::detail {

/// The transpose of conv_patches for one output feature: each window
/// position's row of `z` (the products with the input, over the input's
/// positions in row-major order) added to the output positions reading it.
template <class T>
void conv_shift_add(ConvGeometry const& g, Strides const& z_strides, T const* z, std::int64_t z_pitch, T* out) {
  auto const last = g.in.size() - 1;
  auto const row = g.out[last], stride = g.strides[last];
  for_each_window_run(g, z_strides, [&](WindowRun const& run) {
    if (!run.source) return;
    T* dst = out + run.column;
    T const* src = z + run.k * z_pitch + *run.source;
    if (g.lhs_dilation[last] == 1) {
      auto const [lo, hi] = inside_columns(g, run.first);
      src += run.first;
      for (std::int64_t r = 0; r < run.rows; ++r, dst += row, src += run.source_step) {
        if (stride == 1)
          for (auto c = lo; c < hi; ++c) dst[c] += src[c];
        else
          for (auto c = lo; c < hi; ++c) dst[c] += src[c * stride];
      }
    } else {
      for (std::int64_t r = 0; r < run.rows; ++r, dst += row, src += run.source_step)
        for (std::int64_t c = 0; c < row; ++c)
          if (auto const at = dilated_source(g, run.first, c); at >= 0) dst[c] += src[at];
    }
  });
}

/// The other order, for kernels with fewer output than input features (a
/// gradient with respect to the input): per batch element, z = W' x, the
/// (features · window) × input-positions products of the transposed kernels
/// with the input, then each output position adds up the products that its
/// window reads (conv_shift_add). Its intermediate is out_features/in_features
/// of im2col's.
template <class T>
struct ConvByShifts {
  std::vector<T> transposed;  // per group: (out_features · window) × in_features, dense
  std::int64_t in_step;       // the input's flat spatial stride
  Strides z_strides;          // row-major over the input's spatial shape

  static std::optional<ConvByShifts> planned(ConvGeometry const& g, ConvKernels<T> const& kernels) {
    auto const in_step = flat_stride(g.in, g.lhs_spatial);
    if (!in_step || g.out_features * g.in.numel() >= g.in_features * g.out_size()) return std::nullopt;
    ConvByShifts plan;
    plan.in_step = *in_step;
    plan.z_strides = contiguous_strides(g.in);
    auto const window = g.window_size();
    plan.transposed.resize(static_cast<std::size_t>(g.groups * g.out_features * window * g.in_features));
    T* w = plan.transposed.data();
    for (std::int64_t group = 0; group < g.groups; ++group)
      for (std::int64_t o = 0; o < g.out_features; ++o)
        for (std::int64_t k = 0; k < window; ++k)
          for (std::int64_t i = 0; i < g.in_features; ++i)
            *w++ = kernels.data[(group * g.out_features + o) * kernels.out_stride + i * kernels.in_stride +
                                k * kernels.window_stride];
    return plan;
  }

  void rows(ConvGeometry const& g, T const* lhs, std::int64_t n, std::int64_t group, ConvResult<T>& result,
            std::vector<T>& z) const {
    auto const window = g.window_size(), positions = g.in.numel();
    auto const in_batch = g.batch_groups > 1 ? group * g.out_batch + n : n;
    auto const feature0 = g.batch_groups > 1 ? 0 : group * g.in_features;
    T const* x = lhs + in_batch * g.lhs_batch_stride + feature0 * g.lhs_feature_stride;
    T const* w = transposed.data() + group * g.out_features * window * g.in_features;
    auto const products = g.out_features * window;
    z.resize(static_cast<std::size_t>(products * positions));
    GemmOperand<T> const input{x, g.in_features, positions, g.lhs_feature_stride, in_step};
    if (input.unit_strided()) {
      gemm_into<T>({w, products, g.in_features, g.in_features, 1}, input, {z.data(), positions});
    } else {
      // The input strided both ways: Eigen's own GEMM reads it in place.
      Eigen::Map<ConvMatrix<T>>(z.data(), products, positions).noalias() =
          Eigen::Map<ConvMatrix<T> const>(w, products, g.in_features) *
          strided_matrix(x, g.in_features, positions, g.lhs_feature_stride, in_step);
    }
    zero_rows(result);
    for (std::int64_t o = 0; o < g.out_features; ++o)
      conv_shift_add(g, z_strides, z.data() + o * window * positions, positions, result.row(o).data());
  }

  /// The whole output: a task per batch element and group, split over the
  /// threads when there are enough of them.
  void convolve(ConvGeometry const& g, T const* src, ConvTarget<T> const& target) const {
    auto const threads = omp_in_parallel() ? 1 : omp_get_max_threads();
    auto const tasks = g.out_batch * g.groups;
    auto const run = [&](std::int64_t t, std::vector<T>& z, std::vector<T>& scratch) {
      auto result = target.result(t / g.groups, 1, t % g.groups, scratch);
      rows(g, src, t / g.groups, t % g.groups, result, z);
      target.write_rows(t / g.groups, 1, t % g.groups, scratch);
    };
    if (threads > 1 && tasks >= threads) {
#pragma omp parallel
      {
        std::vector<T> z, scratch;
#pragma omp for schedule(dynamic)
        for (std::int64_t t = 0; t < tasks; ++t) run(t, z, scratch);
      }
    } else {
      std::vector<T> z, scratch;
      for (std::int64_t t = 0; t < tasks; ++t) run(t, z, scratch);
    }
  }
};

}  // namespace jaxcc::detail
