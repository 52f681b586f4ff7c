// jaxcc in a minute: arrays, fused elementwise math, reductions, contractions
// and printing that matches JAX's repr.
#include <iostream>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;

int main() {
  // The (w, b) and xs of the vmap tutorial: predict(x) = w·x + b for each row.
  auto w = jnp::array({{1.0f, 2.0f}, {3.0f, 4.0f}});
  auto b = jnp::array({0.5f, 0.5f});
  auto xs = jnp::array({{1.0f, 1.0f}, {2.0f, 0.0f}, {0.0f, 3.0f}});
  std::cout << "xs @ w.T + b =\n" << jnp::matmul(xs, w.T()) + b << "\n\n";

  // One fused loop, no temporaries: the expression's type is its graph.
  auto x = jnp::linspace<float>(0.0, 3.0, 7);
  jaxcc::Array<float> y = 2.0f * x + 0.5f * jnp::sin(x);
  std::cout << "2x + sin(x)/2 = " << y << '\n';
  std::cout << "sum = " << jnp::sum(y) << ", max = " << jnp::max(y) << "\n\n";

  // Broadcasting, dtype promotion and numerically stable softmax.
  auto logits = jnp::array({{1.0, 2.0, 3.0}, {1000.0, 1000.0, 1000.0}});
  std::cout << "softmax =\n" << jaxcc::nn::softmax(logits, -1) << "\n\n";

  // Bad shapes are reported where they happen, worded as JAX words them.
  try {
    auto bad = jnp::ones<float>({3, 4}) + jnp::ones<float>({5});
    (void)bad;
  } catch (jaxcc::Error const& e) {
    std::cout << "jaxcc::Error: " << e.what() << '\n';
  }
}
