// The call overhead of jit: a jitted function of a 4-element input beside
// the same function run eagerly and beside a hand-written loop, in the same
// run. (jit's other figures sit beside their baselines in bench_elementwise,
// bench_autodiff and bench_vmap.)
#include <benchmark/benchmark.h>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

namespace {

Array<float> small_function(Array<float> const& x) { return Array<float>(x * 2.0f + 1.0f); }

Array<float> const& small_input() {
  static auto const x = jnp::array<float>({1.f, 2.f, 3.f, 4.f});
  return x;
}

void BM_call_jit(benchmark::State& state) {
  auto const f = jaxcc::jit(small_function);
  for (auto _ : state) benchmark::DoNotOptimize(f(small_input()).data());
}

void BM_call_eager(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(small_function(small_input()).data());
}

void BM_call_by_hand(benchmark::State& state) {
  float out[4];
  float const* in = small_input().data();
  for (auto _ : state) {
    for (int i = 0; i < 4; ++i) out[i] = in[i] * 2.f + 1.f;
    benchmark::DoNotOptimize(out);
  }
}

}  // namespace

BENCHMARK(BM_call_jit);
BENCHMARK(BM_call_eager);
BENCHMARK(BM_call_by_hand);
BENCHMARK_MAIN();
