// Square float matmul, n = 256 and 1024: jnp::matmul beside Eigen's GEMM on
// the same data in the same run.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;

namespace {

jaxcc::Array<float> matrix(std::int64_t n, float scale) {
  return jnp::sin(jnp::arange<float>(0, n * n).reshape({n, n}) * scale).eval();
}

void BM_jaxcc_matmul(benchmark::State& state) {
  auto const n = state.range(0);
  auto a = matrix(n, 0.001f), b = matrix(n, 0.002f);
  for (auto _ : state) {
    auto c = jnp::matmul(a, b);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate,
                                                  benchmark::Counter::kIs1000);
}

void BM_eigen_gemm(benchmark::State& state) {
  auto const n = state.range(0);
  using M = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  auto a = matrix(n, 0.001f), b = matrix(n, 0.002f);
  M ea = Eigen::Map<M const>(a.data(), n, n), eb = Eigen::Map<M const>(b.data(), n, n);
  M ec(n, n);
  for (auto _ : state) {
    ec.noalias() = ea * eb;
    benchmark::DoNotOptimize(ec.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate,
                                                  benchmark::Counter::kIs1000);
}

}  // namespace

BENCHMARK(BM_jaxcc_matmul)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_eigen_gemm)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
