// <jaxcc/random.hpp> alone is enough to draw, compute with and print
// samples (parsed by the test headers_standalone).
#include <iostream>

#include <jaxcc/random.hpp>

int main() {
  auto const key = jaxcc::random::key(0);
  std::cout << jaxcc::random::normal<float>(key, {3}) * 2.0f << '\n';
}
