// Forward mode: jvp, checked against derivatives worked out by hand.
#include "catch.hpp"

#include <cmath>
#include <string>
#include <tuple>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_jvp {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::testing::AllClose;
using jaxcc_test::message_of;

TEST_CASE("jvp gives the value and the directional derivative", "[jvp]") {
  // f(a, b) = sin(a) * b + a / (b^2 + 1); df = cos(a) b ta + a/(b^2+1) ... written out:
  // df/da = cos(a) b + 1/(b^2+1), df/db = sin(a) - 2ab/(b^2+1)^2.
  auto f = [](Array<double> a, Array<double> b) { return Array<double>(jnp::sin(a) * b + a / (b * b + 1.0)); };
  double const a = 0.5, b = 0.15, ta = 0.3, tb = -2.0;
  auto [out, tangent] = jaxcc::jvp(f, std::tuple{jnp::array(a), jnp::array(b)}, std::tuple{jnp::array(ta), jnp::array(tb)});
  REQUIRE(out.item() == Catch::Approx(std::sin(a) * b + a / (b * b + 1)));
  double const dfa = std::cos(a) * b + 1 / (b * b + 1);
  double const dfb = std::sin(a) - 2 * a * b / ((b * b + 1) * (b * b + 1));
  REQUIRE(tangent.item() == Catch::Approx(dfa * ta + dfb * tb));
}

TEST_CASE("jvp over arrays and pytrees, tangent shaped like the output", "[jvp][tree]") {
  auto f = [](std::pair<Array<float>, Array<float>> const& p) {
    return std::tuple{Array<float>(p.first * p.second), Array<float>(jnp::exp(p.first))};
  };
  auto x = std::pair{jnp::array({1.f, 2.f}), jnp::array({3.f, 4.f})};
  auto t = std::pair{jnp::array({1.f, 0.f}), jnp::array({0.f, 1.f})};
  // std::make_tuple, not std::tuple{x}: class template argument deduction turns a lone pair into a tuple.
  auto [out, tangent] = jaxcc::jvp(f, std::make_tuple(x), std::make_tuple(t));
  // d(x*y) = tx*y + x*ty = [3, 2]; d(exp x) = exp(x) tx = [e, 0]
  REQUIRE_THAT(std::get<0>(tangent), AllClose(jnp::array({3.f, 2.f})));
  REQUIRE_THAT(std::get<1>(tangent), AllClose(jnp::array({std::exp(1.f), 0.f})));
  REQUIRE_THAT(std::get<1>(out), AllClose(jnp::array({std::exp(1.f), std::exp(2.f)})));
}

TEST_CASE("jvp of grad: a second derivative by forward-over-reverse", "[jvp][grad]") {
  auto f = [](Array<double> x) { return Array<double>(x * x * x); };
  // f'' = 6x
  auto [g, h] = jaxcc::jvp(jaxcc::grad(f), std::tuple{jnp::array(2.0)}, std::tuple{jnp::array(1.0)});
  REQUIRE(g.item() == 12.0);
  REQUIRE(h.item() == 12.0);
}

TEST_CASE("jvp checks tangent dtypes and shapes as JAX does", "[jvp][errors]") {
  auto f = [](Array<float> x) { return Array<float>(x * 2.0f); };
  REQUIRE(message_of([&] { return jaxcc::jvp(f, std::tuple{jnp::ones<float>({3})}, std::tuple{jnp::ones<float>({4})}); }) ==
          "jvp called with different primal and tangent shapes;Got primal shape (3,) and tangent shape as (4,)");
  REQUIRE(message_of([&] { return jaxcc::jvp(f, std::tuple{jnp::ones<float>({3})}, std::tuple{jnp::ones<double>({3})}); }) ==
          "primal and tangent arguments to jaxcc::jvp do not match; dtypes must be equal. Got primal dtype float32 and "
          "so expected tangent dtype float32, but got tangent dtype float64 instead.");
}

}  // namespace test_jvp
