// check_grads passes on correct derivatives and fails on a wrong rule.
#include "catch.hpp"

#include <string>
#include <tuple>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/check_grads.hpp>

namespace test_check_grads {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

TEST_CASE("check_grads accepts correct JVPs and VJPs to second order", "[check_grads]") {
  auto f = [](Array<double> a, Array<double> b) { return Array<double>(jnp::sin(a) * b + a / (b * b + 1.0)); };
  auto x = jnp::array({0.5, 1.0, 2.0});
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{x, x * 0.3}, 2));
}

TEST_CASE("check_grads catches a wrong derivative rule", "[check_grads]") {
  // A custom_jvp whose tangent rule is 2 t instead of cos(x) t.
  auto wrong = jaxcc::custom_jvp([](Array<double> a) { return Array<double>(jnp::sin(a)); },
                                 [](auto const& p, auto const& t) {
                                   auto const& [a] = p;
                                   auto const& [ta] = t;
                                   return std::pair{Array<double>(jnp::sin(a)), Array<double>(ta * 2.0)};
                                 });
  std::string message;
  try {
    jaxcc::testing::check_grads(wrong, std::tuple{jnp::array({0.5, 1.0})}, 1);
  } catch (jaxcc::Error const& e) {
    message = e.what();
  }
  REQUIRE(message.starts_with("check_grads: JVP of f differs from finite differences at output leaf 0, element 0"));
  jaxcc::testing::GradCheckOptions rev_only;
  rev_only.fwd = false;
  message.clear();
  try {
    jaxcc::testing::check_grads(wrong, std::tuple{jnp::array({0.5, 1.0})}, 1, rev_only);
  } catch (jaxcc::Error const& e) {
    message = e.what();
  }
  REQUIRE(message.starts_with("check_grads: VJP of f disagrees with finite differences"));
  REQUIRE_THROWS_AS(jaxcc::testing::check_grads(wrong, std::tuple{jnp::array(1.0)}, 3), jaxcc::Error);
}

}  // namespace test_check_grads
