// <jaxcc/lax.hpp> alone is enough to make, compute with and print arrays
// and fused expressions (parsed by the test headers_standalone).
#include <iostream>

#include <jaxcc/lax.hpp>

namespace lax = jaxcc::lax;

int main() {
  auto const x = lax::iota<float>(5);
  std::cout << x << '\n' << lax::exp(x) + x << '\n' << lax::reduce_sum(x, {0}) << '\n';
}
