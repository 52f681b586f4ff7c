// The 16-bit floats beside float32, in the same run: the fused a*x + b*sin(x)
// over 2^24 elements, and a 1024 x 1024 matmul, on one thread (issue 22's
// figures). bfloat16 moves half the bytes; each of its ops computes in
// float32 and rounds (docs/architecture.md, "dtypes").
#include <benchmark/benchmark.h>

#include <omp.h>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

namespace {

constexpr std::int64_t elements = std::int64_t{1} << 24;

template <class T>
Array<T> filled(jaxcc::Shape const& shape) {
  return jnp::reshape(jnp::sin(jnp::arange<float>(shape.numel()) * 0.001f), shape).template astype<T>();
}

template <class T>
void BM_fused_axpb_sin(benchmark::State& state) {
  omp_set_num_threads(1);
  auto const x = filled<T>({elements});
  for (auto _ : state) {
    Array<T> y = 1.5 * x + 0.25 * jnp::sin(x);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * elements * 2 * static_cast<std::int64_t>(sizeof(T)));
}

template <class T>
void BM_matmul_1024(benchmark::State& state) {
  omp_set_num_threads(1);
  auto const a = filled<T>({1024, 1024}), b = filled<T>({1024, 1024});
  for (auto _ : state) {
    auto c = jnp::matmul(a, b);
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(state.iterations() * 2 * 1024 * 1024 * 1024);
}

}  // namespace

BENCHMARK(BM_fused_axpb_sin<float>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_fused_axpb_sin<jaxcc::bfloat16>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_fused_axpb_sin<jaxcc::float16>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_matmul_1024<float>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_matmul_1024<jaxcc::bfloat16>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
