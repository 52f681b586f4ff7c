// Built against an installed jaxcc; exits non-zero if the result is wrong.
#include <jaxcc/jaxcc.hpp>

int main() {
  namespace jnp = jaxcc::numpy;
  jaxcc::Array<float> y = jnp::arange<float>(4) * 2.0f + 1.0f;  // 1, 3, 5, 7
  return y.to_vector() == std::vector<float>{1, 3, 5, 7} ? 0 : 1;
}
