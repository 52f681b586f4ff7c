// Reverse mode against hand-derived gradients, in the same run:
//  - the gradient of an MLP loss (784-128-10, tanh, softmax cross-entropy,
//    batch 256) by jaxcc::grad, and under jit, beside a hand-written Eigen
//    forward+backward; a jitted SGD training step beside Eigen's;
//  - a long chain of small elementwise steps: grad beside the primal alone
//    and beside the gradient derived by hand (reverse-mode overhead); the
//    primal and the gradient also under jit.
#include <benchmark/benchmark.h>

#include <cmath>
#include <tuple>

#include <Eigen/Core>

#include <jaxcc/jaxcc.hpp>

#include "mlp_problem.hpp"

namespace {

using namespace bench_mlp;  // the problem, its sizes, jnp and Array

void BM_mlp_grad_jaxcc(benchmark::State& state) {
  auto const& p = problem();
  Params params{p.w1, p.b1, p.w2, p.b2};
  auto g = jaxcc::grad(mlp_loss);
  for (auto _ : state) {
    auto grads = g(params, p.x, p.y);
    benchmark::DoNotOptimize(std::get<0>(grads).data());
  }
}

// The same gradient under jit: traced once, replayed as a plan.
void BM_mlp_grad_jit(benchmark::State& state) {
  auto const& p = problem();
  Params params{p.w1, p.b1, p.w2, p.b2};
  auto g = jaxcc::jit(jaxcc::grad(mlp_loss));
  for (auto _ : state) {
    auto grads = g(params, p.x, p.y);
    benchmark::DoNotOptimize(std::get<0>(grads).data());
  }
}

void BM_mlp_train_step_jit(benchmark::State& state) {
  auto const& p = problem();
  Params params{p.w1, p.b1, p.w2, p.b2};
  auto step = jaxcc::jit(train_step);
  for (auto _ : state) {
    params = step(params, p.x, p.y);
    benchmark::DoNotOptimize(std::get<0>(params).data());
  }
}

// The batch-mean loss's gradient by hand: dlogits is (softmax - y) / batch,
// then back through the two layers.
struct EigenMlpGradient : bench_mlp::EigenMlp {
  M dw1{n_in, n_hidden}, dw2{n_hidden, n_out};
  V db1{n_hidden}, db2{n_out};

  void gradients() {
    forward_to_logits_cotangent();
    dz /= static_cast<float>(batch);
    dw2.noalias() = h.transpose() * dz;
    db2 = dz.colwise().sum();
    back_to_hidden();
    dw1.noalias() = x.transpose() * dh;
    db1 = dh.colwise().sum();
  }
  void sgd_step() {
    gradients();
    w1 -= 0.01f * dw1;
    b1 -= 0.01f * db1;
    w2 -= 0.01f * dw2;
    b2 -= 0.01f * db2;
  }
};

void BM_mlp_grad_eigen_by_hand(benchmark::State& state) {
  EigenMlpGradient mlp;
  for (auto _ : state) {
    mlp.gradients();
    benchmark::DoNotOptimize(mlp.dw1.data());
    benchmark::DoNotOptimize(mlp.db1.data());
  }
}

void BM_mlp_train_step_eigen_by_hand(benchmark::State& state) {
  EigenMlpGradient mlp;
  for (auto _ : state) {
    mlp.sgd_step();
    benchmark::DoNotOptimize(mlp.w1.data());
  }
}

constexpr int chain_steps = 200;

Array<double> chain(Array<double> x) {
  for (int i = 0; i < chain_steps; ++i) x = x * 0.99 + jnp::sin(x) * 0.01;
  return jnp::sum(x);
}

Array<double> const& chain_input() {
  static auto const x = jnp::linspace<double>(0.0, 1.0, 64);
  return x;
}

void BM_chain_primal(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(chain(chain_input()).item());
}

void BM_chain_grad_jaxcc(benchmark::State& state) {
  auto g = jaxcc::grad(chain);
  for (auto _ : state) benchmark::DoNotOptimize(g(chain_input()).data());
}

// The same under jit: traced once, replayed as a plan each call.
void BM_chain_primal_jit(benchmark::State& state) {
  auto f = jaxcc::jit(chain);
  for (auto _ : state) benchmark::DoNotOptimize(f(chain_input()).item());
}

void BM_chain_grad_jit(benchmark::State& state) {
  auto g = jaxcc::jit(jaxcc::grad(chain));
  for (auto _ : state) benchmark::DoNotOptimize(g(chain_input()).data());
}

// d/dx of x <- 0.99 x + 0.01 sin x is 0.99 + 0.01 cos x, multiplied along the chain.
void BM_chain_grad_by_hand(benchmark::State& state) {
  auto xs = chain_input().to_vector();
  std::vector<double> d(xs.size());
  for (auto _ : state) {
    for (std::size_t k = 0; k < xs.size(); ++k) {
      double v = xs[k], g = 1.0;
      for (int i = 0; i < chain_steps; ++i) {
        g *= 0.99 + 0.01 * std::cos(v);
        v = v * 0.99 + std::sin(v) * 0.01;
      }
      d[k] = g;
    }
    benchmark::DoNotOptimize(d.data());
  }
}

}  // namespace

BENCHMARK(BM_mlp_grad_jaxcc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mlp_grad_jit)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mlp_grad_eigen_by_hand)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mlp_train_step_jit)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mlp_train_step_eigen_by_hand)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_chain_primal)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_chain_grad_jaxcc)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_chain_primal_jit)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_chain_grad_jit)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_chain_grad_by_hand)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_MAIN();
