#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

namespace jnp = jaxcc::numpy;

TEST_CASE("smoke: fused expression matches a reference loop") {
  auto x = jnp::arange<float>(0, 100);
  jaxcc::Array<float> y = 2.0f * x + 3.0f * jnp::sin(x);
  auto xs = x.to_vector();
  auto ys = y.to_vector();
  for (std::size_t i = 0; i < xs.size(); ++i) CHECK(ys[i] == Catch::Approx(2 * xs[i] + 3 * std::sin(xs[i])).epsilon(1e-6));
}
