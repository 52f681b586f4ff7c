// Sharded jit beside unsharded jit on the same cores, in the same binary.
// Each workload runs four ways:
//  - unsharded/threads:1 — jit on plain arrays, its kernels' OpenMP loops
//    on one thread (what one device's share of the cores gives);
//  - unsharded/threads:0 — the same on every core (the default);
//  - sharded/D — the inputs laid out on a one-axis 'data' mesh of the first
//    D devices (1, 2, 4, ... device_count(); one device per core by
//    default), under the same jit.
// The workloads: the data-parallel MLP training step (784-128-10, batch
// 1024 or 4096: params replicated, the batch split), written with x @ W and
// with x @ W.T; a fused elementwise op y = a*x + b*sin(x) (n = 2^24) split
// over 'data'; a matmul (2048 x 1024) @ (1024 x 1024) with the lhs rows
// split; and a call too small to split (the dispatch). The elementwise op
// also runs as a user writes the loop (`_as_user`: the mesh from make_mesh,
// each output kept until the next call replaces it).
#include <benchmark/benchmark.h>

#include <tuple>
#include <vector>

#include <omp.h>

#include <jaxcc/jaxcc.hpp>

#include "mlp_problem.hpp"

namespace {

using namespace bench_mlp;  // jnp, Array, pseudo_random, Params
using jaxcc::NamedSharding;
using jaxcc::none;
using jaxcc::P;

jaxcc::Mesh data_mesh(std::int64_t devices) {
  auto const& all = jaxcc::devices();
  return jaxcc::Mesh(std::vector<jaxcc::Device>(all.begin(), all.begin() + devices), {devices}, {"data"});
}

/// Runs the unsharded benchmarks on `threads` OpenMP threads (0: the
/// default), restoring the default after.
class Threads {
 public:
  explicit Threads(std::int64_t threads) : default_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(static_cast<int>(threads));
  }
  Threads(Threads const&) = delete;
  Threads& operator=(Threads const&) = delete;
  ~Threads() { omp_set_num_threads(default_); }

 private:
  int default_;
};

template <bool Transposed>
Array<float> mlp_loss(Params const& params, Array<float> const& x, Array<float> const& y) {
  auto const& [w1, b1, w2, b2] = params;
  Array<float> h;
  if constexpr (Transposed) h = jnp::tanh(jnp::matmul(x, w1.T()) + b1);  // w1 stored (hidden, in)
  else h = jnp::tanh(jnp::matmul(x, w1) + b1);
  Array<float> logits = jnp::matmul(h, w2) + b2;
  return -jnp::mean(jnp::sum(y * jaxcc::nn::log_softmax(logits, -1), 1));
}

template <bool Transposed>
Params train_step(Params const& params, Array<float> const& x, Array<float> const& y) {
  auto const grads = jaxcc::grad(mlp_loss<Transposed>)(params, x, y);
  return jaxcc::tree::map([](Array<float> const& w, Array<float> const& g) { return Array<float>(w - 0.01f * g); },
                          params, grads);
}

template <bool Transposed>
Params initial_params() {
  auto const& p = problem();
  return {Transposed ? Array<float>(p.w1.T()) : p.w1, p.b1, p.w2, p.b2};
}

struct Batch {
  explicit Batch(std::int64_t rows)
      : x(pseudo_random({rows, n_in}, 1.0f, 0.5f)), y([rows] {
          std::vector<float> v(static_cast<std::size_t>(rows * n_out), 0.f);
          for (std::int64_t i = 0; i < rows; ++i) v[static_cast<std::size_t>(i * n_out + (i * 7) % n_out)] = 1.f;
          return jnp::array(v, jaxcc::Shape{rows, n_out});
        }()) {}
  Array<float> x, y;
};

// Args: {devices, batch}.
template <bool Transposed>
void BM_train_step_sharded(benchmark::State& state) {
  auto const mesh = data_mesh(state.range(0));
  Batch const batch(state.range(1));
  auto params = jaxcc::device_put(initial_params<Transposed>(), NamedSharding(mesh, P()));
  auto const x = jaxcc::device_put(batch.x, NamedSharding(mesh, P("data", none)));
  auto const y = jaxcc::device_put(batch.y, NamedSharding(mesh, P("data", none)));
  auto step = jaxcc::jit(train_step<Transposed>);
  for (auto _ : state) {
    params = step(params, x, y);
    benchmark::DoNotOptimize(std::get<0>(params).data());
  }
}

// Args: {threads, batch}.
template <bool Transposed>
void BM_train_step_unsharded(benchmark::State& state) {
  Threads const threads(state.range(0));
  Batch const batch(state.range(1));
  auto params = initial_params<Transposed>();
  auto step = jaxcc::jit(train_step<Transposed>);
  for (auto _ : state) {
    params = step(params, batch.x, batch.y);
    benchmark::DoNotOptimize(std::get<0>(params).data());
  }
}

constexpr std::int64_t n_elementwise = std::int64_t{1} << 24;

Array<float> axpb_sin(Array<float> const& x) {
  Array<float> const ax = x * 1.5f;
  Array<float> const s = jnp::sin(x);
  Array<float> const bs = s * 0.5f;
  return Array<float>(ax + bs);
}

void BM_elementwise_sharded(benchmark::State& state) {
  auto const mesh = data_mesh(state.range(0));
  auto const x = jaxcc::device_put(pseudo_random({n_elementwise}, 1.f, 0.3f), NamedSharding(mesh, P("data")));
  auto f = jaxcc::jit(axpb_sin);
  for (auto _ : state) benchmark::DoNotOptimize(f(x).data());
  state.SetBytesProcessed(state.iterations() * n_elementwise * 2 * static_cast<std::int64_t>(sizeof(float)));
}

void BM_elementwise_unsharded(benchmark::State& state) {
  Threads const threads(state.range(0));
  auto const x = pseudo_random({n_elementwise}, 1.f, 0.3f);
  auto f = jaxcc::jit(axpb_sin);
  for (auto _ : state) benchmark::DoNotOptimize(f(x).data());
  state.SetBytesProcessed(state.iterations() * n_elementwise * 2 * static_cast<std::int64_t>(sizeof(float)));
}

// As a user writes the loop: the mesh made once by make_mesh, each call's
// output kept in a variable until the next call replaces it (so the call
// runs while the previous output is still alive).
void run_keeping_outputs(benchmark::State& state, Array<float> const& x) {
  auto f = jaxcc::jit(axpb_sin);
  Array<float> y;
  for (auto _ : state) {
    y = f(x);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * n_elementwise * 2 * static_cast<std::int64_t>(sizeof(float)));
}

void BM_elementwise_sharded_as_user(benchmark::State& state) {
  auto const mesh = jaxcc::make_mesh({state.range(0)}, {"data"});
  run_keeping_outputs(state, jaxcc::device_put(pseudo_random({n_elementwise}, 1.f, 0.3f), NamedSharding(mesh, P("data"))));
}

void BM_elementwise_unsharded_as_user(benchmark::State& state) {
  Threads const threads(state.range(0));
  run_keeping_outputs(state, pseudo_random({n_elementwise}, 1.f, 0.3f));
}

Array<float> matmul(Array<float> const& l, Array<float> const& r) { return jnp::matmul(l, r); }

void BM_matmul_sharded(benchmark::State& state) {
  auto const mesh = data_mesh(state.range(0));
  auto const a = jaxcc::device_put(pseudo_random({2048, 1024}, 1.f, 0.1f), NamedSharding(mesh, P("data", none)));
  auto const b = jaxcc::device_put(pseudo_random({1024, 1024}, 1.f, 0.2f), NamedSharding(mesh, P()));
  auto f = jaxcc::jit(matmul);
  for (auto _ : state) benchmark::DoNotOptimize(f(a, b).data());
}

void BM_matmul_unsharded(benchmark::State& state) {
  Threads const threads(state.range(0));
  auto const a = pseudo_random({2048, 1024}, 1.f, 0.1f);
  auto const b = pseudo_random({1024, 1024}, 1.f, 0.2f);
  auto f = jaxcc::jit(matmul);
  for (auto _ : state) benchmark::DoNotOptimize(f(a, b).data());
}

// The cost of a call itself: y = 2x + 1 on 4096 floats, where waking the
// devices and meeting again is most of the time.
constexpr std::int64_t n_dispatch = 4096;

Array<float> twice_plus_one(Array<float> const& x) { return Array<float>(x * 2.f + 1.f); }

void BM_dispatch_sharded(benchmark::State& state) {
  auto const mesh = data_mesh(state.range(0));
  auto const x = jaxcc::device_put(pseudo_random({n_dispatch}, 1.f, 0.3f), NamedSharding(mesh, P("data")));
  auto f = jaxcc::jit(twice_plus_one);
  for (auto _ : state) benchmark::DoNotOptimize(f(x).data());
}

void BM_dispatch_unsharded(benchmark::State& state) {
  Threads const threads(state.range(0));
  auto const x = pseudo_random({n_dispatch}, 1.f, 0.3f);
  auto f = jaxcc::jit(twice_plus_one);
  for (auto _ : state) benchmark::DoNotOptimize(f(x).data());
}

/// 1, 2, 4, ... devices, and every device.
std::vector<std::int64_t> device_counts() {
  std::vector<std::int64_t> counts;
  auto const all = jaxcc::device_count();
  for (int d = 1; d < all; d *= 2) counts.push_back(d);
  counts.push_back(all);
  return counts;
}

void sharded(benchmark::internal::Benchmark* b) {
  b->ArgName("devices");
  for (auto d : device_counts()) b->Arg(d);
}
void unsharded(benchmark::internal::Benchmark* b) { b->ArgName("threads")->Arg(1)->Arg(0); }
void step_sharded(benchmark::internal::Benchmark* b) {
  b->ArgNames({"devices", "batch"});
  for (auto batch : {1024, 4096})
    for (auto d : device_counts()) b->Args({d, batch});
}
void step_unsharded(benchmark::internal::Benchmark* b) {
  b->ArgNames({"threads", "batch"});
  for (auto batch : {1024, 4096}) b->Args({1, batch})->Args({0, batch});
}

}  // namespace

BENCHMARK(BM_train_step_unsharded<false>)->Apply(step_unsharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_train_step_sharded<false>)->Apply(step_sharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_train_step_unsharded<true>)->Apply(step_unsharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_train_step_sharded<true>)->Apply(step_sharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_elementwise_unsharded)->Apply(unsharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_elementwise_sharded)->Apply(sharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_elementwise_unsharded_as_user)->Apply(unsharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_elementwise_sharded_as_user)->Apply(sharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_matmul_unsharded)->Apply(unsharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_matmul_sharded)->Apply(sharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_dispatch_unsharded)->Apply(unsharded)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_dispatch_sharded)->Apply(sharded)->Unit(benchmark::kMicrosecond)->UseRealTime();

BENCHMARK_MAIN();
