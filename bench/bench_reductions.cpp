// sum over n = 2^24 floats: jnp::sum beside a hand-written xsimd reduction
// (four independent accumulators, OpenMP over chunks) in the same run.
#include <benchmark/benchmark.h>

#include <omp.h>
#include <xsimd/xsimd.hpp>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;

namespace {

constexpr std::int64_t n = std::int64_t{1} << 24;

jaxcc::Array<float> const& input() {
  static auto const x = jnp::linspace<float>(-1.0, 1.0, n);
  return x;
}

void BM_jaxcc_sum(benchmark::State& state) {
  auto const& x = input();
  for (auto _ : state) {
    auto s = jnp::sum(x);
    benchmark::DoNotOptimize(s.item());
  }
  state.SetBytesProcessed(state.iterations() * n * static_cast<std::int64_t>(sizeof(float)));
}

void BM_handwritten_xsimd_sum(benchmark::State& state) {
  using batch = xsimd::batch<float>;
  constexpr std::int64_t width = batch::size;
  float const* p = input().data();
  for (auto _ : state) {
    float total = 0;
#pragma omp parallel reduction(+ : total)
    {
      auto const threads = omp_get_num_threads();
      auto const t = omp_get_thread_num();
      std::int64_t lo = n * t / threads / (4 * width) * (4 * width);
      std::int64_t hi = t + 1 == threads ? n : n * (t + 1) / threads / (4 * width) * (4 * width);
      batch a0(0.f), a1(0.f), a2(0.f), a3(0.f);
      for (std::int64_t i = lo; i + 4 * width <= hi; i += 4 * width) {
        a0 += batch::load_aligned(p + i);
        a1 += batch::load_aligned(p + i + width);
        a2 += batch::load_aligned(p + i + 2 * width);
        a3 += batch::load_aligned(p + i + 3 * width);
      }
      total += xsimd::hadd((a0 + a1) + (a2 + a3));
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetBytesProcessed(state.iterations() * n * static_cast<std::int64_t>(sizeof(float)));
}

}  // namespace

BENCHMARK(BM_jaxcc_sum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_handwritten_xsimd_sum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
