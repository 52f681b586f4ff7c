// checkpoint: same values and derivatives as the plain function; its
// intermediates are recomputed in the backward pass instead of stored.
#include "catch.hpp"

#include <cmath>
#include <tuple>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check_grads.hpp>

namespace test_checkpoint {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

TEST_CASE("checkpoint keeps values and derivatives", "[checkpoint]") {
  auto h = [](Array<double> a) { return Array<double>(jnp::sin(a) * jnp::exp(a)); };
  auto ch = jaxcc::checkpoint(h);
  auto x = jnp::array(0.7);
  REQUIRE(ch(x).item() == h(x).item());
  // (sin a e^a)' = (cos a + sin a) e^a
  REQUIRE(jaxcc::grad(ch)(x).item() == Catch::Approx((std::cos(0.7) + std::sin(0.7)) * std::exp(0.7)));
  REQUIRE(jaxcc::grad(jaxcc::grad(ch))(x).item() == Catch::Approx(jaxcc::grad(jaxcc::grad(h))(x).item()));
  jaxcc::testing::check_grads(ch, std::tuple{jnp::array({0.1, -0.4})}, 2);
}

TEST_CASE("checkpoint recomputes its forward pass during the backward pass", "[checkpoint]") {
  // The backward pass applies the region's VJP rule twice: once while
  // recomputing inside the checkpoint's own VJP, none stored from outside.
  auto h = jaxcc::checkpoint([](Array<double> a) { return Array<double>(jnp::sin(a) * a); });
  jaxcc::graph::counters().vjp_rules_applied = 0;
  (void)jaxcc::grad(h)(jnp::array(0.5));
  // One for the checkpoint equation in the outer program, one for the fused
  // region inside it, run on recomputed values.
  REQUIRE(jaxcc::graph::counters().vjp_rules_applied == 2);
}

TEST_CASE("checkpoint closes over outer traced values", "[checkpoint]") {
  // d/dy checkpoint(x -> x * y)(x) at x = 2 is x = 2: y is read from the
  // enclosing grad's trace and becomes an operand of the checkpoint.
  auto f = [](Array<double> y) {
    auto inner = jaxcc::checkpoint([&](Array<double> x) { return Array<double>(x * y); });
    return inner(jnp::array(2.0));
  };
  REQUIRE(jaxcc::grad(f)(jnp::array(5.0)).item() == 2.0);
}

}  // namespace test_checkpoint
