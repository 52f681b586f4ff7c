// The GEMM that dot_general and the convolution run: Eigen's, on operands
// read in place (row- or column-major, with a stride) and into a strided
// row-major result, overwritten or added to. Where the precompiled runtime
// is linked it holds this kernel once per x86-64 level and calls the level
// this CPU runs (kernels/simd_dispatch.hpp), so that a file of any -march
// gets the GEMM at its CPU's width.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <type_traits>

#include "jaxcc/kernels/simd_dispatch.hpp"

namespace jaxcc::detail {

template <class T, int Order>
using ConstMatrixMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order> const, Eigen::Unaligned,
                                  Eigen::OuterStride<>>;

/// `out` (lhs.rows × rhs.cols) = out.scale · lhs · rhs, or += with
/// out.accumulate, on Eigen: the kernel the precompiled runtime holds once
/// per SIMD level (kernels/simd_dispatch.hpp). The scale multiplies the lhs
/// map, where Eigen's GEMM takes it as its alpha (no pass of its own).
template <class T>
void gemm_kernel(GemmOperand<T> const& lhs, GemmOperand<T> const& rhs, GemmOutput<T> const& out) {
  Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, Eigen::Unaligned, Eigen::OuterStride<>>
      result(out.data, lhs.rows, rhs.cols, Eigen::OuterStride<>(out.row_stride));
  auto map = [&]<int Order>(GemmOperand<T> const& m, std::integral_constant<int, Order>) {
    auto const outer = Order == Eigen::RowMajor ? m.row_stride : m.col_stride;
    return ConstMatrixMap<T, Order>(m.data, m.rows, m.cols, Eigen::OuterStride<>(outer));
  };
  auto const store = [&](auto const& product) {
    if (out.accumulate) result.noalias() += product;
    else result.noalias() = product;
  };
  using Row = std::integral_constant<int, Eigen::RowMajor>;
  using Col = std::integral_constant<int, Eigen::ColMajor>;
  if (lhs.row_major() && rhs.row_major()) store((out.scale * map(lhs, Row{})) * map(rhs, Row{}));
  else if (lhs.row_major()) store((out.scale * map(lhs, Row{})) * map(rhs, Col{}));
  else if (rhs.row_major()) store((out.scale * map(lhs, Col{})) * map(rhs, Row{}));
  else store((out.scale * map(lhs, Col{})) * map(rhs, Col{}));
}

/// gemm_kernel, where the runtime is linked through its kernel for the
/// chosen SIMD level. Each operand is row-major (col_stride 1) or
/// column-major (row_stride 1).
template <class T>
void gemm_into(GemmOperand<T> const& lhs, GemmOperand<T> const& rhs, GemmOutput<T> const& out) {
#if defined(JAXCC_PRECOMPILED_RUNTIME)
  if (auto const kernel = dispatched_gemm<T>()) return kernel(lhs, rhs, out);
#endif
  gemm_kernel(lhs, rhs, out);
}

}  // namespace jaxcc::detail
