// Drawing 2^24 uniform float32 numbers: jaxcc::random::uniform (threefry in
// SIMD lanes, one pass from counters to floats), eager and under jit, on one
// thread and on all, beside std::mt19937 with uniform_real_distribution, the
// standard library's way. JAX's own figure, jax.random.uniform under jit on
// the same machine, comes from bench/random_jax.py. Then multivariate_normal
// (d = 64, 2^14 draws) on one thread.
#include <benchmark/benchmark.h>

#include <omp.h>

#include <random>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>

namespace jr = jaxcc::random;

namespace {

constexpr std::int64_t n = std::int64_t{1} << 24;

void set_items(benchmark::State& state) { state.SetItemsProcessed(state.iterations() * n); }

// Runs the benchmark body with `threads` OpenMP threads (0: all).
struct Threads {
  explicit Threads(int threads) : before_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~Threads() { omp_set_num_threads(before_); }
  int before_;
};

void BM_jaxcc_uniform(benchmark::State& state) {
  Threads const threads(static_cast<int>(state.range(0)));
  auto const key = jr::key(0);
  for (auto _ : state) {
    auto const u = jr::uniform(key, {n});
    benchmark::DoNotOptimize(u.data());
  }
  set_items(state);
}
BENCHMARK(BM_jaxcc_uniform)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_jaxcc_uniform_jit(benchmark::State& state) {
  Threads const threads(static_cast<int>(state.range(0)));
  auto const draw = jaxcc::jit([](jr::KeyArray const& key) { return jr::uniform(key, {n}); });
  auto const key = jr::key(0);
  for (auto _ : state) {
    auto const u = draw(key);
    benchmark::DoNotOptimize(u.data());
  }
  set_items(state);
}
BENCHMARK(BM_jaxcc_uniform_jit)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

// The baseline: one std::mt19937 stream, as most C++ code draws numbers.
void BM_mt19937_uniform_real(benchmark::State& state) {
  std::mt19937 gen(0);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> out(static_cast<std::size_t>(n));
  for (auto _ : state) {
    for (auto& v : out) v = dist(gen);
    benchmark::DoNotOptimize(out.data());
  }
  set_items(state);
}
BENCHMARK(BM_mt19937_uniform_real)->Unit(benchmark::kMillisecond)->UseRealTime();

// multivariate_normal: 2^14 draws of dimension 64 from a fixed covariance
// (its Cholesky factor, the normal draw, one matrix product). JAX's figure
// is bench/random_jax.py's jit(jax.random.multivariate_normal) beside it.
constexpr std::int64_t mvn_draws = std::int64_t{1} << 14, mvn_dim = 64;

jaxcc::Array<float> mvn_covariance() {
  namespace jnp = jaxcc::numpy;
  auto const a = jnp::sin(jnp::arange<float>(mvn_dim * mvn_dim).reshape({mvn_dim, mvn_dim}));
  return jnp::matmul(a, jnp::matrix_transpose(a)) / static_cast<float>(mvn_dim) + jnp::eye<float>(mvn_dim);
}

void BM_jaxcc_multivariate_normal(benchmark::State& state) {
  Threads const threads(static_cast<int>(state.range(0)));
  auto const mean = jaxcc::numpy::zeros<float>({mvn_dim});
  auto const cov = mvn_covariance();
  auto const key = jr::key(0);
  for (auto _ : state) {
    auto const x = jr::multivariate_normal(key, mean, cov, {mvn_draws});
    benchmark::DoNotOptimize(x.data());
  }
  state.SetItemsProcessed(state.iterations() * mvn_draws * mvn_dim);
}
BENCHMARK(BM_jaxcc_multivariate_normal)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_jaxcc_multivariate_normal_jit(benchmark::State& state) {
  Threads const threads(static_cast<int>(state.range(0)));
  auto const draw = jaxcc::jit([](jr::KeyArray const& key, jaxcc::Array<float> const& mean,
                                  jaxcc::Array<float> const& cov) {
    return jr::multivariate_normal(key, mean, cov, {mvn_draws});
  });
  auto const mean = jaxcc::numpy::zeros<float>({mvn_dim});
  auto const cov = mvn_covariance();
  auto const key = jr::key(0);
  for (auto _ : state) {
    auto const x = draw(key, mean, cov);
    benchmark::DoNotOptimize(x.data());
  }
  state.SetItemsProcessed(state.iterations() * mvn_draws * mvn_dim);
}
BENCHMARK(BM_jaxcc_multivariate_normal_jit)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
