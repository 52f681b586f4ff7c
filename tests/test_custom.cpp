// custom_vjp, custom_jvp and stop_gradient.
#include "catch.hpp"

#include <cmath>
#include <string>
#include <tuple>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "support.hpp"

namespace test_custom {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc_test::message_of;

namespace {

// JAX's custom_jvp example: log(1 + exp(x)) with a tangent rule that stays
// finite where exp overflows.
auto const log1pexp = jaxcc::custom_jvp([](Array<double> x) { return Array<double>(jnp::log1p(jnp::exp(x))); },
                                        [](auto const& primals, auto const& tangents) {
                                          auto const& [x] = primals;
                                          auto const& [t] = tangents;
                                          Array<double> out = jnp::log1p(jnp::exp(x));
                                          Array<double> tout = t * (1.0 - 1.0 / (1.0 + jnp::exp(x)));
                                          return std::pair{out, tout};
                                        });
}  // namespace

TEST_CASE("custom_jvp: the user's rule replaces the traced derivative", "[custom]") {
  auto const plain = [](Array<double> x) { return Array<double>(jnp::log1p(jnp::exp(x))); };
  REQUIRE(std::isnan(jaxcc::grad(plain)(jnp::array(1000.0)).item()));  // exp overflows: inf/inf
  REQUIRE(jaxcc::grad(log1pexp)(jnp::array(1000.0)).item() == 1.0);
  // At moderate x both agree with the exact derivative, sigmoid(x).
  REQUIRE(jaxcc::grad(log1pexp)(jnp::array(0.3)).item() == Catch::Approx(1 / (1 + std::exp(-0.3))));
  auto [out, t] = jaxcc::jvp(log1pexp, std::tuple{jnp::array(0.3)}, std::tuple{jnp::array(2.0)});
  REQUIRE(t.item() == Catch::Approx(2 / (1 + std::exp(-0.3))));
  jaxcc::testing::check_grads(log1pexp, std::tuple{jnp::array({-1.0, 0.2, 3.0})}, 2);
  // Without a transform it is a plain call.
  REQUIRE(log1pexp(jnp::array(0.0)).item() == Catch::Approx(std::log(2.0)));
}

TEST_CASE("custom_vjp: gradient clipping in the backward pass", "[custom]") {
  auto clip_gradient = jaxcc::custom_vjp([](Array<double> x) { return x; },
                                         [](Array<double> x) { return std::pair{x, x}; },
                                         [](Array<double> const&, Array<double> const& g) {
                                           return std::tuple{Array<double>(jnp::clip(g, -1.0, 1.0))};
                                         });
  // d/dx clip_gradient(10 x) with the identity forward: the cotangent 1 is
  // clipped to 1, then the chain rule through 10 x gives 10.
  REQUIRE(jaxcc::grad([&](Array<double> x) { return clip_gradient(x * 10.0); })(jnp::array(1.0)).item() == 10.0);
  // d/dx 3 * clip_gradient(x): cotangent 3 is clipped to 1.
  REQUIRE(jaxcc::grad([&](Array<double> x) { return Array<double>(3.0 * clip_gradient(x)); })(jnp::array(1.0)).item() == 1.0);
  REQUIRE(message_of([&] { return jaxcc::jvp(clip_gradient, std::tuple{jnp::array(1.0)}, std::tuple{jnp::array(1.0)}); }) ==
          "can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
}

TEST_CASE("custom_vjp with residuals and several arguments", "[custom]") {
  // f(x, y) = x * y with residuals (x, y); bwd returns (g y, g x).
  auto f = jaxcc::custom_vjp([](Array<double> x, Array<double> y) { return Array<double>(x * y); },
                             [](Array<double> x, Array<double> y) { return std::pair{Array<double>(x * y), std::pair{x, y}}; },
                             [](std::pair<Array<double>, Array<double>> const& res, Array<double> const& g) {
                               return std::tuple{Array<double>(g * res.second), Array<double>(g * res.first)};
                             });
  auto [gx, gy] = jaxcc::grad(f, jaxcc::argnums<0, 1>)(jnp::array(2.0), jnp::array(5.0));
  REQUIRE(gx.item() == 5.0);
  REQUIRE(gy.item() == 2.0);
}

TEST_CASE("stop_gradient blocks derivatives", "[custom]") {
  // d/dx x * stop_gradient(x) = stop_gradient(x) = x
  REQUIRE(jaxcc::grad([](Array<double> x) { return Array<double>(x * jaxcc::stop_gradient(x)); })(jnp::array(3.0)).item() == 3.0);
  REQUIRE(jaxcc::lax::stop_gradient(jnp::array(2.0)).item() == 2.0);
}

}  // namespace test_custom
