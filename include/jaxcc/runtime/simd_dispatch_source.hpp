// The precompiled runtime's choice of SIMD level, and the query and test
// hooks of kernels/simd_dispatch.hpp: compiled in the runtime's dispatch
// source only (cmake/runtime.cmake generates it, defining
// JAXCC_RUNTIME_SIMD_LEVELS(X) as X("level", entry point) for each level
// it builds, lowest first, each entry point declared extern "C").
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "jaxcc/core/error.hpp"
#include "jaxcc/runtime/simd_dispatch.hpp"

namespace jaxcc::detail {

struct SimdLevelEntry {
  std::string_view name;
  void (*fill)(SimdTable*);
};

/// The levels the runtime holds, lowest first (none off x86-64).
inline std::vector<SimdLevelEntry> const& built_simd_levels() {
#define JAXCC_SIMD_LEVEL_ENTRY(name, entry) SimdLevelEntry{name, &entry},
  static std::vector<SimdLevelEntry> const levels{JAXCC_RUNTIME_SIMD_LEVELS(JAXCC_SIMD_LEVEL_ENTRY)};
#undef JAXCC_SIMD_LEVEL_ENTRY
  return levels;
}

/// Whether this CPU (and its OS, for the wide registers' state) runs `level`.
inline bool cpu_runs_simd_level(std::string_view level) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (level == "sse2") return __builtin_cpu_supports("sse2");
  bool const v2 = __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1") &&
                  __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt");
  if (level == "sse4.2") return v2;
  unsigned a = 0, b = 0, c = 0, d = 0;
  bool const f16c_movbe = __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1) && (c >> 22 & 1);
  bool const lzcnt = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c >> 5 & 1);
  bool const v3 = v2 && __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
                  __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
                  f16c_movbe && lzcnt;
  if (level == "avx2") return v3;
  if (level == "avx512")
    return v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512cd");
  return false;
#else
  return level == compile_time_simd_level();
#endif
}

inline std::string joined(std::vector<std::string_view> const& names) {
  std::string out;
  for (auto n : names) out.append(out.empty() ? "" : ", ").append(n);
  return out.empty() ? "none" : out;
}

struct SimdState {
  std::mutex mutex;
  std::string_view level = compile_time_simd_level();
  std::vector<SimdTable> tables;  // built_simd_levels()'s, filled once
};
inline SimdState& simd_state() {
  static SimdState state;
  return state;
}

/// Points every hook at `table`'s kernels (null: the runtime's own).
inline void install_simd_table(SimdTable const* table) {
  std::size_t i = 0;
#define JAXCC_SIMD_INSTALL(...)                                                                           \
  fusion::dispatched_op_row<__VA_ARGS__>.store(table ? table->op_rows[i] : nullptr, std::memory_order_relaxed); \
  ++i;
  JAXCC_RUNTIME_OP_RULES(JAXCC_SIMD_INSTALL)
#undef JAXCC_SIMD_INSTALL
  dispatched_gemm_f32.store(table ? table->gemm_f32 : nullptr, std::memory_order_relaxed);
  dispatched_gemm_f64.store(table ? table->gemm_f64 : nullptr, std::memory_order_relaxed);
}

/// Why `level` can't run here, or empty. The caller holds the state's mutex.
/// (Appends only: GCC 12 at -O3 reports false -Wrestrict overlaps for
/// chains of string operator+.)
inline std::string simd_level_refusal(std::string_view level) {
  std::vector<std::string_view> built;
  for (auto const& l : built_simd_levels()) built.push_back(l.name);
  std::string why;
  if (built.empty()) {
    if (level != compile_time_simd_level())
      why.append("this runtime dispatches no SIMD levels: it runs at ").append(compile_time_simd_level());
    return why;
  }
  bool known = false;
  for (auto n : built) known = known || n == level;
  if (!known)
    why.append("'").append(level).append("' is not one of the runtime's levels (").append(joined(built)).append(")");
  else if (!cpu_runs_simd_level(level))
    why.append("this CPU does not run ").append(level).append(" (it runs ").append(joined(runtime_simd_levels())).append(")");
  return why;
}

/// Runs at `level`, which the caller has checked. Holds the state's mutex.
inline void use_simd_level(SimdState& state, std::string_view level) {
  auto const& levels = built_simd_levels();
  if (state.tables.empty()) {
    state.tables.resize(levels.size());
    for (std::size_t k = 0; k < levels.size(); ++k) levels[k].fill(&state.tables[k]);
  }
  SimdTable const* table = nullptr;
  std::string_view name = compile_time_simd_level();
  for (std::size_t k = 0; k < levels.size(); ++k)
    if (levels[k].name == level) {
      table = &state.tables[k];
      name = levels[k].name;
    }
  if (table) {
    // Every level's table lists the rows of the one generated list.
    std::size_t expected = 0;
#define JAXCC_SIMD_COUNT(...) ++expected;
    JAXCC_RUNTIME_OP_RULES(JAXCC_SIMD_COUNT)
#undef JAXCC_SIMD_COUNT
    if (table->op_row_count != expected || table->level != level) {
      std::fprintf(stderr, "jaxcc: the runtime's %.*s kernels do not match its list; running its own\n",
                   static_cast<int>(level.size()), level.data());
      table = nullptr;
      name = compile_time_simd_level();
    }
  }
  state.level = name;
  dispatched_simd_rank.store(simd_level_rank(name), std::memory_order_relaxed);
  install_simd_table(table);
  simd_dispatch_resolved.store(true, std::memory_order_release);
}

void resolve_simd_dispatch() {
  auto& state = simd_state();
  std::lock_guard lock(state.mutex);
  if (simd_dispatch_resolved.load(std::memory_order_acquire)) return;
  std::string_view best = compile_time_simd_level();
  for (auto const& l : built_simd_levels())
    if (cpu_runs_simd_level(l.name)) best = l.name;
  // Read while a kernel may be starting inside a parallel region, where no
  // error could reach the caller: a level that can't run is reported on
  // stderr and the best one runs instead.
  if (char const* forced = std::getenv("JAXCC_SIMD"); forced && *forced) {
    auto const why = simd_level_refusal(forced);
    if (why.empty()) best = forced;
    else std::fprintf(stderr, "jaxcc: JAXCC_SIMD=%s: %s; running at %.*s\n", forced, why.c_str(),
                      static_cast<int>(best.size()), best.data());
  }
  use_simd_level(state, best);
}

void set_simd_level(std::string_view level) {
  auto& state = simd_state();
  std::lock_guard lock(state.mutex);
  if (auto const why = simd_level_refusal(level); !why.empty())
    throw Error(std::string("jaxcc::detail::set_simd_level(\"").append(level).append("\"): ").append(why));
  use_simd_level(state, level);
}

}  // namespace jaxcc::detail

namespace jaxcc {

std::string_view runtime_simd_level() {
  detail::ensure_simd_dispatch();
  auto& state = detail::simd_state();
  std::lock_guard lock(state.mutex);
  return state.level;
}

std::vector<std::string_view> runtime_simd_levels() {
  std::vector<std::string_view> out;
  for (auto const& l : detail::built_simd_levels())
    if (detail::cpu_runs_simd_level(l.name)) out.push_back(l.name);
  if (detail::built_simd_levels().empty()) out.push_back(detail::compile_time_simd_level());
  return out;
}

}  // namespace jaxcc
