// The MLP problem the autodiff and vmap suites share: 784-128-10 weights and
// a batch of 256 inputs with one-hot labels, deterministic pseudo-random
// values (no RNG dependence between runs).
#pragma once

#include <cstdint>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>

namespace bench_mlp {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

constexpr std::int64_t batch = 256, n_in = 784, n_hidden = 128, n_out = 10;

inline Array<float> pseudo_random(jaxcc::Shape shape, float scale, float phase) {
  auto n = shape.numel();
  return Array<float>(jnp::sin(jnp::arange<float>(0, n) * 0.7311f + phase) * scale).reshape(shape);
}

struct Problem {
  Array<float> w1 = pseudo_random({n_in, n_hidden}, 0.05f, 0.1f);
  Array<float> b1 = pseudo_random({n_hidden}, 0.01f, 0.2f);
  Array<float> w2 = pseudo_random({n_hidden, n_out}, 0.1f, 0.3f);
  Array<float> b2 = pseudo_random({n_out}, 0.01f, 0.4f);
  Array<float> x = pseudo_random({batch, n_in}, 1.0f, 0.5f);
  Array<float> y = [] {  // one-hot labels
    std::vector<float> v(batch * n_out, 0.f);
    for (std::int64_t i = 0; i < batch; ++i) v[static_cast<std::size_t>(i * n_out + (i * 7) % n_out)] = 1.f;
    return jnp::array(v, jaxcc::Shape{batch, n_out});
  }();
};

inline Problem const& problem() {
  static Problem const p;
  return p;
}

using Params = std::tuple<Array<float>, Array<float>, Array<float>, Array<float>>;

}  // namespace bench_mlp
