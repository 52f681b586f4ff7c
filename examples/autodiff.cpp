// Derivatives of ordinary C++ functions: grad, value_and_grad, jvp, vjp,
// jacobians, higher order, custom rules, and the traced program itself.
#include <iostream>
#include <tuple>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

// The per-example loss of the vmap tutorial: sum((w·x + b − y)²).
Array<float> loss_fn(std::tuple<Array<float>, Array<float>> const& params, Array<float> x, Array<float> y) {
  auto const& [w, b] = params;
  return jnp::sum(jnp::square(jnp::dot(w, x) + b - y));
}

int main() {
  auto params = std::tuple{jnp::array({{1.f, 2.f}, {3.f, 4.f}}), jnp::array({0.5f, 0.5f})};
  auto x = jnp::array({1.f, 1.f});
  auto y = jnp::array({1.f, 2.f});

  // Gradients have the structure of what they differentiate.
  auto [dw, db] = jaxcc::grad(loss_fn)(params, x, y);
  std::cout << "dw =\n" << dw << "\ndb = " << db << "\n\n";

  auto [value, grads] = jaxcc::value_and_grad(loss_fn, jaxcc::argnums<1, 2>)(params, x, y);
  std::cout << "loss = " << value << ", d/dx = " << std::get<0>(grads) << "\n\n";

  // Any order, either mode.
  auto f = [](Array<double> t) { return Array<double>(jnp::sin(t) * t); };
  auto t = jnp::array(1.0);
  std::cout << "f'(1) = " << jaxcc::grad(f)(t) << ", f''(1) = " << jaxcc::grad(jaxcc::grad(f))(t) << "\n";
  auto [out, tangent] = jaxcc::jvp(f, std::tuple{t}, std::tuple{jnp::array(1.0)});
  std::cout << "jvp: f(1) = " << out << ", f'(1) = " << tangent << "\n";
  auto v = jnp::array({0.5, 1.0, 2.0});
  std::cout << "jacrev of sin(v) * v =\n" << jaxcc::jacrev([](Array<double> u) { return Array<double>(jnp::sin(u) * u); })(v)
            << "\n\n";

  // A numerically safe log(1 + exp(x)) with its own derivative rule.
  auto log1pexp = jaxcc::custom_jvp([](Array<double> a) { return Array<double>(jnp::log1p(jnp::exp(a))); },
                                    [](auto const& primals, auto const& tangents) {
                                      auto const& [a] = primals;
                                      auto const& [da] = tangents;
                                      return std::pair{Array<double>(jnp::log1p(jnp::exp(a))),
                                                       Array<double>(da * (1.0 - 1.0 / (1.0 + jnp::exp(a))))};
                                    });
  std::cout << "d/dx log1pexp(100) = " << jaxcc::grad(log1pexp)(jnp::array(100.0)) << "\n\n";

  // The program a transform builds, printed as JAX prints a jaxpr.
  std::cout << jaxcc::make_jaxpr(jaxcc::grad(f))(t) << "\n";
}
