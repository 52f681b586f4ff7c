// The MLP problem the benchmark suites share: 784-128-10 weights and a batch
// of 256 inputs with one-hot labels, deterministic pseudo-random values (no
// RNG dependence between runs); its loss, one example's loss and the SGD step
// in jaxcc, and the same network by hand in Eigen for the baselines.
#pragma once

#include <cstdint>
#include <tuple>
#include <vector>

#include <Eigen/Core>

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

// The MLP in jaxcc, as a user writes it: the batch's mean cross-entropy,
// one example's, and one SGD step (the parameters minus 0.01 times their
// gradient).
inline Array<float> mlp_loss(Params const& params, Array<float> const& x, Array<float> const& y) {
  auto const& [w1, b1, w2, b2] = params;
  Array<float> h = jnp::tanh(jnp::matmul(x, w1) + b1);
  Array<float> logits = jnp::matmul(h, w2) + b2;
  return -jnp::mean(jnp::sum(y * jaxcc::nn::log_softmax(logits, -1), 1));
}

/// One example: x (784,), y (10,) one-hot.
inline Array<float> example_loss(Params const& params, Array<float> const& x, Array<float> const& y) {
  auto const& [w1, b1, w2, b2] = params;
  Array<float> h = jnp::tanh(jnp::matmul(x, w1) + b1);
  Array<float> logits = jnp::matmul(h, w2) + b2;
  return -jnp::sum(y * jaxcc::nn::log_softmax(logits, -1));
}

inline Params train_step(Params const& params, Array<float> const& x, Array<float> const& y) {
  auto const grads = jaxcc::grad(mlp_loss)(params, x, y);
  return jaxcc::tree::map([](Array<float> const& w, Array<float> const& g) { return Array<float>(w - 0.01f * g); },
                          params, grads);
}

// The same MLP by hand in Eigen, for the baselines: the weights and the
// batch as Eigen matrices, and the forward pass up to softmax's cotangent.
struct EigenMlp {
  using M = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using V = Eigen::RowVectorXf;
  M w1, w2, x, y;
  V b1, b2;
  M h{batch, n_hidden}, z{batch, n_out}, dz{batch, n_out}, dh{batch, n_hidden};

  EigenMlp() {
    auto const& p = problem();
    w1 = Eigen::Map<M const>(p.w1.data(), n_in, n_hidden);
    w2 = Eigen::Map<M const>(p.w2.data(), n_hidden, n_out);
    b1 = Eigen::Map<V const>(p.b1.data(), n_hidden);
    b2 = Eigen::Map<V const>(p.b2.data(), n_out);
    x = Eigen::Map<M const>(p.x.data(), batch, n_in);
    y = Eigen::Map<M const>(p.y.data(), batch, n_out);
  }
  /// h = tanh(x w1 + b1), z = h w2 + b2, and each example's cotangent of
  /// the logits for its cross-entropy loss, dz = softmax(z) - y.
  void forward_to_logits_cotangent() {
    h.noalias() = x * w1;
    h = (h.rowwise() + b1).array().tanh().matrix();
    z.noalias() = h * w2;
    z.rowwise() += b2;
    Eigen::VectorXf m = z.rowwise().maxCoeff();
    dz = (z.colwise() - m).array().exp().matrix();
    Eigen::VectorXf s = dz.rowwise().sum();
    dz = (dz.array().colwise() / s.array()).matrix() - y;
  }
  /// dh from dz, back through w2 and tanh.
  void back_to_hidden() {
    dh.noalias() = dz * w2.transpose();
    dh = (dh.array() * (1.f - h.array().square())).matrix();
  }
};

}  // namespace bench_mlp
