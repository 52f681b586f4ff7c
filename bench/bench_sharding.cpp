// Scaling over devices, each figure beside its one-device run in the same
// binary (Arg = the number of devices of a one-axis 'data' mesh; runs go up
// to device_count(), one device per core by default):
//  - the data-parallel MLP training step (784-128-10, batch 1024): params
//    replicated, the batch split over 'data', under jit;
//  - a fused elementwise op y = a*x + b*sin(x) (n = 2^24) on an array split
//    over 'data', under jit;
//  - a matmul (2048 x 1024) @ (1024 x 1024) with the lhs rows split.
// The unsharded jit of each is listed for reference: it runs on the calling
// thread, whose kernels' OpenMP loops may use every core.
#include <benchmark/benchmark.h>

#include <tuple>

#include <jaxcc/jaxcc.hpp>

#include "mlp_problem.hpp"

namespace {

using namespace bench_mlp;  // jnp, Array, pseudo_random, Params
using jaxcc::NamedSharding;
using jaxcc::none;
using jaxcc::P;

constexpr std::int64_t big_batch = 1024;

jaxcc::Mesh data_mesh(std::int64_t devices) {
  auto const& all = jaxcc::devices();
  return jaxcc::Mesh(std::vector<jaxcc::Device>(all.begin(), all.begin() + devices), {devices}, {"data"});
}

Array<float> mlp_loss(Params const& params, Array<float> const& x, Array<float> const& y) {
  auto const& [w1, b1, w2, b2] = params;
  Array<float> h = jnp::tanh(jnp::matmul(x, w1) + b1);
  Array<float> logits = jnp::matmul(h, w2) + b2;
  return -jnp::mean(jnp::sum(y * jaxcc::nn::log_softmax(logits, -1), 1));
}

Params train_step(Params const& params, Array<float> const& x, Array<float> const& y) {
  auto const grads = jaxcc::grad(mlp_loss)(params, x, y);
  return jaxcc::tree::map([](Array<float> const& w, Array<float> const& g) { return Array<float>(w - 0.01f * g); },
                          params, grads);
}

struct Batch {
  Array<float> x = pseudo_random({big_batch, n_in}, 1.0f, 0.5f);
  Array<float> y = [] {
    std::vector<float> v(big_batch * n_out, 0.f);
    for (std::int64_t i = 0; i < big_batch; ++i) v[static_cast<std::size_t>(i * n_out + (i * 7) % n_out)] = 1.f;
    return jnp::array(v, jaxcc::Shape{big_batch, n_out});
  }();
};

void BM_train_step_sharded(benchmark::State& state) {
  auto const mesh = data_mesh(state.range(0));
  auto const& p = problem();
  Batch const batch;
  auto params = jaxcc::device_put(Params{p.w1, p.b1, p.w2, p.b2}, NamedSharding(mesh, P()));
  auto const x = jaxcc::device_put(batch.x, NamedSharding(mesh, P("data", none)));
  auto const y = jaxcc::device_put(batch.y, NamedSharding(mesh, P("data", none)));
  auto step = jaxcc::jit(train_step);
  for (auto _ : state) {
    params = step(params, x, y);
    benchmark::DoNotOptimize(std::get<0>(params).data());
  }
}

void BM_train_step_unsharded(benchmark::State& state) {
  auto const& p = problem();
  Batch const batch;
  Params params{p.w1, p.b1, p.w2, p.b2};
  auto step = jaxcc::jit(train_step);
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
  auto const x = pseudo_random({n_elementwise}, 1.f, 0.3f);
  auto f = jaxcc::jit(axpb_sin);
  for (auto _ : state) benchmark::DoNotOptimize(f(x).data());
  state.SetBytesProcessed(state.iterations() * n_elementwise * 2 * static_cast<std::int64_t>(sizeof(float)));
}

void BM_matmul_sharded(benchmark::State& state) {
  auto const mesh = data_mesh(state.range(0));
  auto const a = jaxcc::device_put(pseudo_random({2048, 1024}, 1.f, 0.1f), NamedSharding(mesh, P("data", none)));
  auto const b = jaxcc::device_put(pseudo_random({1024, 1024}, 1.f, 0.2f), NamedSharding(mesh, P()));
  auto f = jaxcc::jit([](Array<float> const& l, Array<float> const& r) { return jnp::matmul(l, r); });
  for (auto _ : state) benchmark::DoNotOptimize(f(a, b).data());
}

void BM_matmul_unsharded(benchmark::State& state) {
  auto const a = pseudo_random({2048, 1024}, 1.f, 0.1f);
  auto const b = pseudo_random({1024, 1024}, 1.f, 0.2f);
  auto f = jaxcc::jit([](Array<float> const& l, Array<float> const& r) { return jnp::matmul(l, r); });
  for (auto _ : state) benchmark::DoNotOptimize(f(a, b).data());
}

/// 1, 2, 4, ... devices, and every device.
void device_counts(benchmark::internal::Benchmark* b) {
  auto const all = jaxcc::device_count();
  for (int d = 1; d < all; d *= 2) b->Arg(d);
  b->Arg(all);
}

}  // namespace

BENCHMARK(BM_train_step_sharded)->Apply(device_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_train_step_unsharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_elementwise_sharded)->Apply(device_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_elementwise_unsharded)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_matmul_sharded)->Apply(device_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_matmul_unsharded)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
