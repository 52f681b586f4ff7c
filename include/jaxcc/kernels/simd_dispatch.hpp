// The SIMD level jaxcc's hot kernels run at, and the hooks through which the
// precompiled runtime dispatches them (docs/simd_dispatch.md).
//
// From the headers alone every kernel is compiled for the file's own
// -march, and runtime_simd_level() names that level. Where the runtime is
// linked (JAXCC_PRECOMPILED_RUNTIME) it holds its hot kernels — the fused
// programs' row kernels (fusion::op_row) and the float GEMM — compiled once
// per x86-64 level, and picks the best level this CPU has on first use (or
// the one JAXCC_SIMD names); the kernels below then call that level's
// copies through pointers the runtime fills (runtime/simd_dispatch.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <type_traits>
#include <vector>

#if defined(JAXCC_PRECOMPILED_RUNTIME)
#include <atomic>
#endif

namespace jaxcc::detail {

/// The level the including file is compiled for: the highest of jaxcc's
/// x86-64 levels whose features the compiler may use, or the architecture's
/// own SIMD elsewhere.
constexpr std::string_view compile_time_simd_level() {
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__) && \
    defined(__AVX512CD__)
  return "avx512";
#elif defined(__AVX2__) && defined(__FMA__)
  return "avx2";
#elif defined(__SSE4_2__) && defined(__POPCNT__)
  return "sse4.2";
#elif defined(__SSE2__)
  return "sse2";
#elif defined(__ARM_NEON) || defined(__ARM_NEON__)
  return "neon";
#else
  return "scalar";
#endif
}

/// A level's place in jaxcc's order of x86-64 levels (sse2 lowest), or -1
/// for the other architectures' levels, which nothing outranks.
constexpr int simd_level_rank(std::string_view level) {
  constexpr std::string_view x86_levels[] = {"sse2", "sse4.2", "avx2", "avx512"};
  for (std::size_t k = 0; k < std::size(x86_levels); ++k)
    if (x86_levels[k] == level) return static_cast<int>(k);
  return -1;
}

/// One operand of a dispatched GEMM: a rows × cols matrix, element (i, j)
/// at data[i * row_stride + j * col_stride]: row-major (col_stride 1) or
/// column-major (row_stride 1).
template <class T>
struct GemmOperand {
  T const* data;
  std::int64_t rows, cols, row_stride, col_stride;
  bool row_major() const noexcept { return cols <= 1 || col_stride == 1; }
  bool col_major() const noexcept { return rows <= 1 || row_stride == 1; }
  /// Whether the GEMM reads it (else it is strided both ways).
  bool unit_strided() const noexcept { return row_major() || col_major(); }
};

/// The result of a dispatched GEMM: a row-major matrix, rows `row_stride`
/// apart; `accumulate`: the product is added to what it holds, else it
/// overwrites it (a convolution sums blocks of input features into its
/// output's rows in place; jit's plan adds `w - 0.01 * x·g` into a copy of
/// w); the product is multiplied by `scale` first.
template <class T>
struct GemmOutput {
  T* data;
  std::int64_t row_stride;
  bool accumulate = false;
  T scale = T{1};
};

/// out (lhs.rows × rhs.cols) = scale · lhs · rhs, or += with out.accumulate.
template <class T>
using GemmKernel = void (*)(GemmOperand<T> const& lhs, GemmOperand<T> const& rhs, GemmOutput<T> const& out);

}  // namespace jaxcc::detail

#if defined(JAXCC_PRECOMPILED_RUNTIME)

namespace jaxcc {
/// The SIMD level the runtime's kernels run at: "sse2", "sse4.2", "avx2" or
/// "avx512" on x86-64 (the best this CPU has, or JAXCC_SIMD's), else the
/// runtime's compile-time level ("neon", "scalar").
std::string_view runtime_simd_level();
/// The levels the runtime holds that this CPU runs, lowest first.
std::vector<std::string_view> runtime_simd_levels();
}  // namespace jaxcc

namespace jaxcc::detail {
/// Chooses the level (once; the runtime defines it).
void resolve_simd_dispatch();
/// Runs the runtime's kernels at `level` from now on (tests); throws
/// jaxcc::Error when the runtime does not hold it or this CPU lacks it.
void set_simd_level(std::string_view level);

inline std::atomic<bool> simd_dispatch_resolved{false};
inline void ensure_simd_dispatch() {
  if (!simd_dispatch_resolved.load(std::memory_order_acquire)) resolve_simd_dispatch();
}
/// simd_level_rank of the level the runtime's kernels run at.
inline std::atomic<int> dispatched_simd_rank{-1};
/// Whether the runtime's kernels run at a higher level than `file_level`,
/// the calling file's compile_time_simd_level(): then that file's fused
/// regions run faster as programs on the runtime's rows than on the loops
/// compiled in the file (fusion/evaluate.hpp).
inline bool runtime_outranks(std::string_view file_level) {
  ensure_simd_dispatch();
  return dispatched_simd_rank.load(std::memory_order_relaxed) > simd_level_rank(file_level);
}
/// The chosen level's GEMM (null: the caller's own).
inline std::atomic<GemmKernel<float>> dispatched_gemm_f32{nullptr};
inline std::atomic<GemmKernel<double>> dispatched_gemm_f64{nullptr};
template <class T>
GemmKernel<T> dispatched_gemm() {
  ensure_simd_dispatch();
  if constexpr (std::is_same_v<T, float>) return dispatched_gemm_f32.load(std::memory_order_relaxed);
  else if constexpr (std::is_same_v<T, double>) return dispatched_gemm_f64.load(std::memory_order_relaxed);
  else return nullptr;
}
}  // namespace jaxcc::detail

#else

namespace jaxcc {
/// The SIMD level jaxcc's kernels run at: from the headers alone, the
/// file's own compile-time level.
inline std::string_view runtime_simd_level() { return detail::compile_time_simd_level(); }
inline std::vector<std::string_view> runtime_simd_levels() { return {detail::compile_time_simd_level()}; }
}  // namespace jaxcc

namespace jaxcc::detail {
/// From the headers alone every kernel runs at the file's level.
inline bool runtime_outranks(std::string_view) { return false; }
}  // namespace jaxcc::detail

#endif
