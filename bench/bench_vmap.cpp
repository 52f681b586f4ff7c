// Per-example gradients of an MLP (784-128-10, tanh, softmax cross-entropy,
// batch 256), in the same run:
//  - jaxcc::vmap(jaxcc::grad(loss)) over the batch;
//  - the same under jaxcc::jit;
//  - a loop of jaxcc::grad over the examples (what vmap replaces);
//  - a hand-written batched Eigen version: one batched forward pass, then
//    each example's gradients as outer products written into preallocated
//    buffers.
#include <benchmark/benchmark.h>

#include <cmath>
#include <tuple>
#include <vector>

#include <Eigen/Core>

#include <jaxcc/jaxcc.hpp>

#include "mlp_problem.hpp"

namespace {

using namespace bench_mlp;  // the problem, its sizes, jnp and Array

// Per-example gradients by `per_example` (vmap of grad, or jit of it).
template <class PerExample>
void run_per_example(benchmark::State& state, PerExample const& per_example) {
  auto const& p = problem();
  Params const params{p.w1, p.b1, p.w2, p.b2};
  for (auto _ : state) {
    auto grads = per_example(params, p.x, p.y);
    benchmark::DoNotOptimize(std::get<0>(grads).data());
  }
}

void BM_per_example_grads_vmap(benchmark::State& state) {
  run_per_example(state, jaxcc::vmap(jaxcc::grad(example_loss), jaxcc::in_axes(jaxcc::none, 0, 0)));
}

void BM_per_example_grads_jit_vmap(benchmark::State& state) {
  run_per_example(state, jaxcc::jit(jaxcc::vmap(jaxcc::grad(example_loss), jaxcc::in_axes(jaxcc::none, 0, 0))));
}

// As a user writes the loop: each call's gradients kept in a variable until
// the next call replaces them.
void BM_per_example_grads_jit_vmap_as_user(benchmark::State& state) {
  auto const& p = problem();
  Params const params{p.w1, p.b1, p.w2, p.b2};
  auto const per_example = jaxcc::jit(jaxcc::vmap(jaxcc::grad(example_loss), jaxcc::in_axes(jaxcc::none, 0, 0)));
  Params grads;
  for (auto _ : state) {
    grads = per_example(params, p.x, p.y);
    benchmark::DoNotOptimize(std::get<0>(grads).data());
  }
}

void BM_per_example_grads_loop_of_grad(benchmark::State& state) {
  auto const& p = problem();
  Params const params{p.w1, p.b1, p.w2, p.b2};
  auto const g = jaxcc::grad(example_loss);
  std::vector<Array<float>> xs, ys;
  auto const row = [](Array<float> const& m, std::int64_t i) {
    return jaxcc::lax::reshape(jaxcc::lax::slice(m, {i, 0}, {i + 1, m.shape()[1]}), {m.shape()[1]});
  };
  for (std::int64_t i = 0; i < batch; ++i) {
    xs.push_back(row(p.x, i));
    ys.push_back(row(p.y, i));
  }
  for (auto _ : state) {
    for (std::int64_t i = 0; i < batch; ++i) {
      auto grads = g(params, xs[static_cast<std::size_t>(i)], ys[static_cast<std::size_t>(i)]);
      benchmark::DoNotOptimize(std::get<0>(grads).data());
    }
  }
}

// By hand: dlogits = softmax - y per example, back through both layers;
// each example's weight gradients are outer products (dw1_i = x_i ⊗ dh_i).
void BM_per_example_grads_eigen_by_hand(benchmark::State& state) {
  using M = EigenMlp::M;
  EigenMlp mlp;
  std::vector<float> dw1(static_cast<std::size_t>(batch * n_in * n_hidden)), dw2(static_cast<std::size_t>(batch * n_hidden * n_out));
  for (auto _ : state) {
    mlp.forward_to_logits_cotangent();  // dz: db2, per example
    mlp.back_to_hidden();               // dh: db1, per example
    for (std::int64_t i = 0; i < batch; ++i) {
      Eigen::Map<M>(dw1.data() + i * n_in * n_hidden, n_in, n_hidden).noalias() = mlp.x.row(i).transpose() * mlp.dh.row(i);
      Eigen::Map<M>(dw2.data() + i * n_hidden * n_out, n_hidden, n_out).noalias() = mlp.h.row(i).transpose() * mlp.dz.row(i);
    }
    benchmark::DoNotOptimize(dw1.data());
    benchmark::DoNotOptimize(dw2.data());
    benchmark::DoNotOptimize(mlp.dh.data());
  }
}

}  // namespace

BENCHMARK(BM_per_example_grads_vmap)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_per_example_grads_jit_vmap)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_per_example_grads_jit_vmap_as_user)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_per_example_grads_loop_of_grad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_per_example_grads_eigen_by_hand)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
