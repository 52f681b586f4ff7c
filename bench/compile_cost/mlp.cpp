// Compile cost: a typical file. A two-layer MLP whose parameters are a
// JAXCC_PYTREE struct; its loss and gradient with value_and_grad, a jitted
// SGD step, and per-example gradient norms through vmap(grad).
#include <cstdint>
#include <iostream>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

struct Params {
  Array<float> w1, b1, w2, b2;
};
JAXCC_PYTREE(Params, w1, b1, w2, b2);

Array<float> predict(Params const& p, Array<float> const& x) {
  Array<float> h = jnp::tanh(jnp::matmul(x, p.w1) + p.b1);
  return jnp::matmul(h, p.w2) + p.b2;
}

Array<float> loss(Params const& p, Array<float> const& x, Array<float> const& y) {
  Array<float> err = predict(p, x) - y;
  return jnp::mean(err * err);
}

int main() {
  std::int64_t const n = 64, d = 8, h = 16;
  auto x = jnp::reshape(jnp::sin(jnp::arange<float>(0, n * d) * 0.37f), {n, d});
  auto y = jnp::reshape(jnp::cos(jnp::arange<float>(0, n) * 0.11f), {n, 1});
  Params p{jnp::reshape(jnp::sin(jnp::arange<float>(0, d * h) * 0.7f) * 0.3f, {d, h}), jnp::zeros<float>({h}),
           jnp::reshape(jnp::cos(jnp::arange<float>(0, h) * 0.3f) * 0.3f, {h, 1}), jnp::zeros<float>({1})};

  auto step = jaxcc::jit([](Params const& p, Array<float> const& x, Array<float> const& y) {
    auto [value, g] = jaxcc::value_and_grad(loss)(p, x, y);
    Params next = jaxcc::tree::map([](Array<float> const& w, Array<float> const& dw) { return Array<float>(w - 0.1f * dw); },
                                   p, g);
    return std::pair{next, value};
  });
  for (int i = 0; i < 100; ++i) {
    auto [next, value] = step(p, x, y);
    p = next;
    if (i % 25 == 0) std::cout << "step " << i << " loss " << value << '\n';
  }

  // Each example's gradient norm: vmap over the examples of grad of its loss.
  auto example_grad_norm = [&p](Array<float> const& xi, Array<float> const& yi) {
    Params g = jaxcc::grad(loss)(p, jnp::reshape(xi, {1, d}), jnp::reshape(yi, {1, 1}));
    Array<float> total = jnp::zeros<float>({});
    for (auto const& leaf : jaxcc::tree::leaves(g)) total = total + jnp::sum(leaf * leaf);
    return Array<float>(jnp::sqrt(total));
  };
  std::cout << "per-example gradient norms " << jaxcc::vmap(example_grad_norm)(x, y) << '\n';
}
