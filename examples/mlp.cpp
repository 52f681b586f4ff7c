// Training a small MLP: parameters as a JAXCC_PYTREE struct initialized
// from jaxcc::random, a jitted value_and_grad step, and each example's
// gradient norm through vmap(grad) with the parameters unmapped (in_axes
// none).
//
// The data: 256 points x in [-2, 2], targets y = sin(2x) + x/2. The network:
// 1 -> 32 (tanh) -> 1, trained by plain gradient descent on the mean squared
// error.
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
using jaxcc::Array;

struct Params {
  Array<float> w1, b1, w2, b2;
};
JAXCC_PYTREE(Params, w1, b1, w2, b2)

Array<float> predict(Params const& p, Array<float> const& x) {
  Array<float> h = jnp::tanh(jnp::matmul(x, p.w1) + p.b1);
  return jnp::matmul(h, p.w2) + p.b2;
}

Array<float> loss(Params const& p, Array<float> const& x, Array<float> const& y) {
  Array<float> err = predict(p, x) - y;
  return jnp::mean(err * err);
}

int main() {
  std::int64_t const n = 256, hidden = 32;
  auto const x = jnp::reshape(jnp::linspace<float>(-2.0, 2.0, n), {n, 1});
  Array<float> const y = jnp::sin(2.0f * x) + 0.5f * x;

  // Initial weights as a JAX user draws them: a key split into one per
  // layer, normal weights of scale 1/sqrt(fan_in), uniform first-layer
  // biases that spread the tanh units over the inputs, a zero output bias.
  // The same seed gives the same numbers as jax.random in Python.
  auto const keys = jr::split(jr::key(0), 3);
  Params params{jr::normal(keys[0], {1, hidden}), jr::uniform(keys[1], {hidden}, -1.0f, 1.0f),
                jr::normal(keys[2], {hidden, 1}) * (1.0f / std::sqrt(float(hidden))), jnp::zeros<float>({1})};

  float const learning_rate = 0.1f;
  auto step = jaxcc::jit([learning_rate](Params const& p, Array<float> const& xb, Array<float> const& yb) {
    auto [value, g] = jaxcc::value_and_grad(loss)(p, xb, yb);
    Params next = jaxcc::tree::map(
        [&](Array<float> const& w, Array<float> const& dw) { return Array<float>(w - learning_rate * dw); }, p, g);
    return std::pair{next, value};
  });

  std::cout << std::fixed << std::setprecision(5);
  for (int i = 0; i <= 600; ++i) {
    auto [next, value] = step(params, x, y);
    if (i % 100 == 0) std::cout << "step " << std::setw(3) << i << "  loss " << value.item() << '\n';
    params = next;
  }

  // Per-example gradients: grad of one example's loss, mapped over the
  // examples (axis 0 of x and y) with the parameters shared.
  auto const example_loss = [](Params const& p, Array<float> const& xi, Array<float> const& yi) {
    return loss(p, jnp::reshape(xi, {1, 1}), jnp::reshape(yi, {1, 1}));
  };
  Params const per_example = jaxcc::vmap(jaxcc::grad(example_loss), jaxcc::in_axes(jaxcc::none, 0, 0))(params, x, y);
  // Each example's gradient norm: the square root of the sum of squares over every parameter.
  Array<float> squares = jnp::zeros<float>({n});
  for (auto const& g : jaxcc::tree::leaves(per_example))
    squares = squares + jnp::sum(jnp::reshape(g * g, {n, -1}), 1);
  Array<float> const norms = jnp::sqrt(squares);
  std::cout << "per-example gradient norms: min " << jnp::min(norms).item() << ", mean " << jnp::mean(norms).item()
            << ", max " << jnp::max(norms).item() << " (at x = " << x.to_vector()[std::size_t(jnp::argmax(norms).item())]
            << ")\n";
}
