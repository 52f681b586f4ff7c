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

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

namespace {

using bench_mlp::batch;
using bench_mlp::n_hidden;
using bench_mlp::n_in;
using bench_mlp::n_out;
using bench_mlp::Params;
using bench_mlp::problem;

// One example: x (784,), y (10,) one-hot.
Array<float> example_loss(Params const& params, Array<float> const& x, Array<float> const& y) {
  auto const& [w1, b1, w2, b2] = params;
  Array<float> h = jnp::tanh(jnp::matmul(x, w1) + b1);
  Array<float> logits = jnp::matmul(h, w2) + b2;
  return -jnp::sum(y * jaxcc::nn::log_softmax(logits, -1));
}

void BM_per_example_grads_vmap(benchmark::State& state) {
  auto const& p = problem();
  Params const params{p.w1, p.b1, p.w2, p.b2};
  auto const per_example = jaxcc::vmap(jaxcc::grad(example_loss), jaxcc::in_axes(jaxcc::none, 0, 0));
  for (auto _ : state) {
    auto grads = per_example(params, p.x, p.y);
    benchmark::DoNotOptimize(std::get<0>(grads).data());
  }
}

void BM_per_example_grads_jit_vmap(benchmark::State& state) {
  auto const& p = problem();
  Params const params{p.w1, p.b1, p.w2, p.b2};
  auto const per_example = jaxcc::jit(jaxcc::vmap(jaxcc::grad(example_loss), jaxcc::in_axes(jaxcc::none, 0, 0)));
  for (auto _ : state) {
    auto grads = per_example(params, p.x, p.y);
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
  using M = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using V = Eigen::RowVectorXf;
  auto const& p = problem();
  M w1 = Eigen::Map<M const>(p.w1.data(), n_in, n_hidden), w2 = Eigen::Map<M const>(p.w2.data(), n_hidden, n_out);
  V b1 = Eigen::Map<V const>(p.b1.data(), n_hidden), b2 = Eigen::Map<V const>(p.b2.data(), n_out);
  M x = Eigen::Map<M const>(p.x.data(), batch, n_in), y = Eigen::Map<M const>(p.y.data(), batch, n_out);
  M h(batch, n_hidden), z(batch, n_out), dz(batch, n_out), dh(batch, n_hidden);
  std::vector<float> dw1(static_cast<std::size_t>(batch * n_in * n_hidden)), dw2(static_cast<std::size_t>(batch * n_hidden * n_out));
  for (auto _ : state) {
    h.noalias() = x * w1;
    h = (h.rowwise() + b1).array().tanh().matrix();
    z.noalias() = h * w2;
    z.rowwise() += b2;
    Eigen::VectorXf m = z.rowwise().maxCoeff();
    dz = (z.colwise() - m).array().exp().matrix();
    Eigen::VectorXf s = dz.rowwise().sum();
    dz = (dz.array().colwise() / s.array()).matrix() - y;  // db2, per example
    dh.noalias() = dz * w2.transpose();
    dh = (dh.array() * (1.f - h.array().square())).matrix();  // db1, per example
    for (std::int64_t i = 0; i < batch; ++i) {
      Eigen::Map<M>(dw1.data() + i * n_in * n_hidden, n_in, n_hidden).noalias() = x.row(i).transpose() * dh.row(i);
      Eigen::Map<M>(dw2.data() + i * n_hidden * n_out, n_hidden, n_out).noalias() = h.row(i).transpose() * dz.row(i);
    }
    benchmark::DoNotOptimize(dw1.data());
    benchmark::DoNotOptimize(dw2.data());
    benchmark::DoNotOptimize(dh.data());
  }
}

}  // namespace

BENCHMARK(BM_per_example_grads_vmap)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_per_example_grads_jit_vmap)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_per_example_grads_loop_of_grad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_per_example_grads_eigen_by_hand)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
