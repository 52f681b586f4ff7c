// The precompiled runtime's SIMD dispatch (docs/simd_dispatch.md), in one
// run: the workloads whose kernels it dispatches — jit of a*x + b*sin(x) over
// 2^24 floats, the jitted MLP train step, per-example gradients
// jit(vmap(grad)) — at every level the runtime holds that this CPU runs
// (`<workload>/<level>`), switched in-process. Built against a runtime (the
// target below: by hand, `-DJAXCC_PRECOMPILED_RUNTIME` and
// libjaxcc_runtime.a), its ratios are each level's time over the best
// level's; from the headers alone it runs each once, at the compile-time level.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <tuple>

#include <jaxcc/jaxcc.hpp>

#include "mlp_problem.hpp"

namespace {

using namespace bench_mlp;  // the problem, its sizes, jnp and Array

void at_level(std::string_view level) {
#if defined(JAXCC_PRECOMPILED_RUNTIME)
  jaxcc::detail::set_simd_level(level);
#else
  (void)level;
#endif
}

Array<float> fused(Array<float> const& x) { return Array<float>(x * 1.5f + jnp::sin(x) * 0.75f); }

void BM_fused_jit(benchmark::State& state, std::string_view level) {
  at_level(level);
  static Array<float> const x = jnp::linspace<float>(-10.0, 10.0, std::int64_t{1} << 24);
  auto const f = jaxcc::jit(fused);
  for (auto _ : state) benchmark::DoNotOptimize(f(x).data());
}

void BM_train_step_jit(benchmark::State& state, std::string_view level) {
  at_level(level);
  auto const& p = problem();
  Params params{p.w1, p.b1, p.w2, p.b2};
  auto step = jaxcc::jit(train_step);
  for (auto _ : state) {
    params = step(params, p.x, p.y);
    benchmark::DoNotOptimize(std::get<0>(params).data());
  }
}

void BM_per_example_grads_jit(benchmark::State& state, std::string_view level) {
  at_level(level);
  auto const& p = problem();
  Params const params{p.w1, p.b1, p.w2, p.b2};
  auto const per_example = jaxcc::jit(jaxcc::vmap(jaxcc::grad(example_loss), jaxcc::in_axes(jaxcc::none, 0, 0)));
  for (auto _ : state) {
    auto grads = per_example(params, p.x, p.y);
    benchmark::DoNotOptimize(std::get<0>(grads).data());
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (auto const level : jaxcc::runtime_simd_levels()) {
    std::string const name(level);
    benchmark::RegisterBenchmark(("fused_jit/" + name).c_str(), BM_fused_jit, level)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("train_step_jit/" + name).c_str(), BM_train_step_jit, level)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("per_example_grads_jit/" + name).c_str(), BM_per_example_grads_jit, level)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
