// One Adam step (optim::adam(1e-3) and apply_updates) over a pytree of
// 10M float32 parameters in three leaves, jitted and eagerly, beside a
// hand-written OpenMP loop that updates params, moments in place (the
// fastest a C++ engineer writes it; jaxcc's step returns new arrays, as
// optax's does). bench/optim_optax.py times optax's jitted step on the same
// tree on the same machine.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>

namespace jnp = jaxcc::numpy;
namespace optim = jaxcc::optim;
using jaxcc::Array;
using Tree = std::map<std::string, Array<float>>;

namespace {

constexpr float lr = 1e-3f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;

Tree filled(float scale) {
  Tree t;
  for (auto const& [name, shape] : std::map<std::string, jaxcc::Shape>{{"a", {2000, 2500}}, {"b", {1000, 4000}}, {"c", {1000, 1000}}})
    t[name] = jnp::sin(jnp::arange<float>(shape.numel()).reshape(shape) * scale);
  return t;
}

Tree const& grads() {
  static Tree const g = filled(0.37f);
  return g;
}

std::int64_t parameters() {
  std::int64_t n = 0;
  for (auto const& [k, x] : grads()) n += x.size();
  return n;
}

// Bytes a step moves at least: p, g, m, v read and p, m, v written.
void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() * parameters() * 7 * static_cast<std::int64_t>(sizeof(float)));
  state.counters["params"] = static_cast<double>(parameters());
}

auto const opt = optim::adam(lr);
using State = decltype(opt.init(std::declval<Tree const&>()));

std::pair<Tree, State> step(Tree const& p, State const& s, Tree const& g) {
  auto [u, next] = opt.update(g, s, p);
  return {optim::apply_updates(p, u), next};
}

void BM_adam_jaxcc_jit(benchmark::State& state) {
  auto const jitted = jaxcc::jit(step);
  Tree p = filled(0.11f);
  State s = opt.init(p);
  std::tie(p, s) = jitted(p, s, grads());  // compile outside the timing
  for (auto _ : state) {
    std::tie(p, s) = jitted(p, s, grads());
    benchmark::DoNotOptimize(p.at("a").data());
  }
  set_bytes(state);
}

// The same 10M params as one leaf: every step of the update is one run of
// equations of one shape, which jit fuses into one pass over memory (over
// three leaves, tree::map writes each operation leaf by leaf, so the
// shapes alternate and the plan fuses less).
void BM_adam_jaxcc_jit_one_leaf(benchmark::State& state) {
  using One = std::tuple<Array<float>>;
  auto const one_opt = optim::adam(lr);
  using OneState = decltype(one_opt.init(std::declval<One const&>()));
  auto const jitted = jaxcc::jit([&one_opt](One const& p, OneState const& s, One const& g) {
    auto [u, next] = one_opt.update(g, s, p);
    return std::pair{optim::apply_updates(p, u), next};
  });
  One const g{jnp::sin(jnp::arange<float>(parameters()) * 0.37f)};
  One p{jnp::sin(jnp::arange<float>(parameters()) * 0.11f)};
  OneState s = one_opt.init(p);
  std::tie(p, s) = jitted(p, s, g);
  for (auto _ : state) {
    std::tie(p, s) = jitted(p, s, g);
    benchmark::DoNotOptimize(std::get<0>(p).data());
  }
  set_bytes(state);
}

void BM_adam_jaxcc_eager(benchmark::State& state) {
  Tree p = filled(0.11f);
  State s = opt.init(p);
  for (auto _ : state) {
    std::tie(p, s) = step(p, s, grads());
    benchmark::DoNotOptimize(p.at("a").data());
  }
  set_bytes(state);
}

// The baseline: each leaf's params and moments updated in place, one
// OpenMP loop per leaf, with the same bias-corrected formula.
void BM_adam_handwritten(benchmark::State& state) {
  std::vector<std::vector<float>> p, m, v;
  std::vector<float const*> g;
  for (auto const& [k, x] : filled(0.11f)) {
    p.push_back(x.to_vector());
    m.emplace_back(p.back().size(), 0.0f);
    v.emplace_back(p.back().size(), 0.0f);
  }
  for (auto const& [k, x] : grads()) g.push_back(x.data());
  int t = 0;
  for (auto _ : state) {
    ++t;
    float const c1 = 1.0f - std::pow(b1, float(t)), c2 = 1.0f - std::pow(b2, float(t));
    for (std::size_t leaf = 0; leaf < p.size(); ++leaf) {
      float* pl = p[leaf].data();
      float* ml = m[leaf].data();
      float* vl = v[leaf].data();
      float const* gl = g[leaf];
      auto const n = static_cast<std::int64_t>(p[leaf].size());
#pragma omp parallel for simd schedule(static)
      for (std::int64_t i = 0; i < n; ++i) {
        float const mi = (1.0f - b1) * gl[i] + b1 * ml[i];
        float const vi = (1.0f - b2) * (gl[i] * gl[i]) + b2 * vl[i];
        ml[i] = mi;
        vl[i] = vi;
        pl[i] += -lr * ((mi / c1) / (std::sqrt(vi / c2) + eps));
      }
    }
    benchmark::DoNotOptimize(p[0].data());
  }
  set_bytes(state);
}

}  // namespace

BENCHMARK(BM_adam_jaxcc_jit)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_adam_jaxcc_jit_one_leaf)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_adam_jaxcc_eager)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_adam_handwritten)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
