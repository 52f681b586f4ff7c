// The precompiled runtime's SIMD dispatch (docs/simd_dispatch.md): its own
// sources include this, no user file does.
//
// The runtime compiles its hot kernels — every listed op's row kernel
// (fusion::op_row, which fused programs run) and the float GEMM — once per
// x86-64 level, each level in a source of its own built with that level's
// flags (JAXCC_RUNTIME_SIMD_KERNELS_SOURCE: fill_simd_table below). Each
// level's objects are linked into one private blob that exports only its
// entry point (cmake/runtime.cmake), so that none of the inline code it
// compiled with its level's instructions can stand in for the runtime's own.
// On first use the runtime (JAXCC_RUNTIME_SIMD_DISPATCH_SOURCE) picks the
// best level this CPU runs, or the one JAXCC_SIMD names, and points the
// kernels' hooks (kernels/simd_dispatch.hpp) at that level's copies.
#pragma once

#include <cstddef>
#include <string_view>

#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/fusion/program.hpp"
#include "jaxcc/kernels/gemm.hpp"
#include "jaxcc/kernels/simd_dispatch.hpp"
#include "jaxcc/runtime/runtime_instances.hpp"

namespace jaxcc::detail {

/// One level's kernels, as its blob hands them over.
struct SimdTable {
  std::string_view level;  // the level the blob was compiled for
  fusion::OpKernel::Row const* op_rows = nullptr;  // in JAXCC_RUNTIME_OP_RULES's order
  std::size_t op_row_count = 0;
  GemmKernel<float> gemm_f32 = nullptr;
  GemmKernel<double> gemm_f64 = nullptr;
};

#if defined(JAXCC_RUNTIME_SIMD_KERNELS_SOURCE)
/// The kernels of the level this source is compiled for.
inline void fill_simd_table(SimdTable& table) {
#define JAXCC_SIMD_ROW(...) &fusion::op_row<__VA_ARGS__>,
  static constexpr fusion::OpKernel::Row rows[] = {JAXCC_RUNTIME_OP_RULES(JAXCC_SIMD_ROW)};
#undef JAXCC_SIMD_ROW
  table.level = compile_time_simd_level();
  table.op_rows = rows;
  table.op_row_count = sizeof(rows) / sizeof(rows[0]);
  table.gemm_f32 = &gemm_kernel<float>;
  table.gemm_f64 = &gemm_kernel<double>;
}
#endif

}  // namespace jaxcc::detail
