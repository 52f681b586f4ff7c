// <jaxcc/numpy.hpp> alone is enough to make, compute with and print arrays
// and fused expressions (parsed by the test headers_standalone).
#include <iostream>

#include <jaxcc/numpy.hpp>

namespace jnp = jaxcc::numpy;

int main() {
  auto const x = jnp::linspace<float>(0.0, 1.0, 5);
  std::cout << x << '\n' << 2.0f * x + jnp::sin(x) << '\n' << jnp::sum(x) << '\n' << jnp::matmul(x, x) << '\n';
  std::cout << jnp::linalg::norm(x) << '\n' << jnp::fft::fft(x) << '\n';
}
