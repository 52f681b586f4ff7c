// <jaxcc/transforms.hpp> beside <jaxcc/numpy.hpp>: grad, jit and vmap of a
// numpy function, their results printed (parsed by the test headers_standalone).
#include <iostream>

#include <jaxcc/numpy.hpp>
#include <jaxcc/transforms.hpp>

namespace jnp = jaxcc::numpy;

int main() {
  auto const f = [](jaxcc::Array<float> const& x) { return jnp::sum(x * x); };
  auto const x = jnp::ones<float>({3});
  std::cout << jaxcc::grad(f)(x) << '\n' << jaxcc::jit(f)(x) << '\n';
  std::cout << jaxcc::vmap([](jaxcc::Array<float> const& v) { return v * 2.0f; })(x) << '\n';
}
