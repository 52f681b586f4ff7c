// jit: trace once per signature, optimize, replay a cached plan.
// The vmap tutorial's per-example gradients, jitted; a static
// argument driving C++ control flow; and what the optimized program looks
// like (make_jaxpr of the jitted function).
#include <iostream>
#include <tuple>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::in_axes;
using jaxcc::none;
using Params = std::tuple<Array<float>, Array<float>>;

Array<float> loss_fn(Params const& params, Array<float> x, Array<float> y) {
  auto const& [w, b] = params;
  return jnp::sum(jnp::square(jnp::dot(w, x) + b - y));
}

int main() {
  auto const w = jnp::array({{1.f, 2.f}, {3.f, 4.f}});
  auto const b = jnp::array({0.5f, -0.5f});
  auto const xs = jnp::stack({jnp::array({1.f, 1.f}), jnp::array({2.f, 0.f}), jnp::array({0.f, 3.f})});
  auto const ys = jnp::stack({jnp::array({1.f, 1.f}), jnp::array({0.f, 0.f}), jnp::array({1.f, 1.f})});

  // jit(vmap(grad(f))): the first call traces and optimizes, later calls with
  // the same shapes and dtypes run the cached plan.
  auto const per_example = jaxcc::jit(jaxcc::vmap(jaxcc::grad(loss_fn), in_axes(none, 0, 0)));
  auto const [dw, db] = per_example(Params{w, b}, xs, ys);
  std::cout << "dw:\n" << dw << "\ndb:\n" << db << "\n";
  per_example(Params{w * 2.f, b}, xs, ys);
  std::cout << "cache_size after two calls of one signature: " << per_example.cache_size() << "\n\n";

  // A static argument is a C++ value: it may drive C++ control flow, and
  // each value is its own trace.
  auto const power = jaxcc::jit(
      [](Array<float> x, int n) {
        Array<float> y = jnp::ones_like(x);
        for (int i = 0; i < n; ++i) y = y * x;
        return y;
      },
      jaxcc::static_argnums<1>);
  std::cout << "x^3: " << power(jnp::array({1.f, 2.f, 3.f}), 3) << "\n";
  std::cout << "x^2: " << power(jnp::array({1.f, 2.f, 3.f}), 2) << "\n";
  std::cout << "cache_size: " << power.cache_size() << "\n\n";

  // The optimized program: sum(x) written twice is computed once (CSE), and
  // a value that reaches no output is dropped (DCE).
  auto const f = [](Array<float> x) {
    auto const unused = Array<float>(jnp::exp(x));
    return Array<float>(jnp::sum(x) * jnp::sum(x));
  };
  std::cout << jaxcc::make_jaxpr(jaxcc::jit(f))(jnp::ones<float>({3})) << "\n";
}
