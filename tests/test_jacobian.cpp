// jacrev, jacfwd and hessian against derivatives worked out by hand.
#include "catch.hpp"

#include <cmath>
#include <tuple>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

namespace test_jacobian {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc::testing::AllClose;

TEST_CASE("jacobian of an elementwise map is diagonal", "[jacobian]") {
  // f(v) = sin(v) * v: J = diag(cos(v) v + sin(v))
  auto f = [](Array<double> v) { return Array<double>(jnp::sin(v) * v); };
  auto x = jnp::array({0.5, 1.0, 2.0});
  std::vector<double> j(9, 0.0);
  for (int i = 0; i < 3; ++i) {
    double v = x.to_vector()[static_cast<std::size_t>(i)];
    j[static_cast<std::size_t>(i * 4)] = std::cos(v) * v + std::sin(v);
  }
  auto expected = jnp::array(j, Shape{3, 3});
  REQUIRE_THAT(jaxcc::jacrev(f)(x), AllClose(expected, 1e-12));
  REQUIRE_THAT(jaxcc::jacfwd(f)(x), AllClose(expected, 1e-12));
}

TEST_CASE("jacobian shapes are output shape ++ input shape", "[jacobian]") {
  // f(a, b) = a * b with a (2,) and b (2,): d/da = diag(b), d/db = diag(a)
  auto f = [](Array<double> a, Array<double> b) { return Array<double>(a * b); };
  auto a = jnp::array({1.0, 2.0}), b = jnp::array({3.0, 4.0});
  auto [ja, jb] = jaxcc::jacrev(f, jaxcc::argnums<0, 1>)(a, b);
  REQUIRE_THAT(ja, AllClose(jnp::array<double>({{3, 0}, {0, 4}})));
  REQUIRE_THAT(jb, AllClose(jnp::array<double>({{1, 0}, {0, 2}})));
  auto [fa, fb] = jaxcc::jacfwd(f, jaxcc::argnums<0, 1>)(a, b);
  REQUIRE_THAT(fa, AllClose(ja));
  REQUIRE_THAT(fb, AllClose(jb));
  // A (2, 3) input to a scalar output: the Jacobian has the input's shape.
  auto g = [](Array<double> m) { return Array<double>(jnp::sum(m * m)); };
  auto m = jnp::arange<double>(6).reshape({2, 3});
  REQUIRE_THAT(jaxcc::jacrev(g)(m), AllClose(Array<double>(m * 2.0)));
  REQUIRE(jaxcc::jacfwd(g)(m).shape() == Shape{2, 3});
}

TEST_CASE("hessian is jacfwd of jacrev", "[jacobian]") {
  // x^3 at 2: f'' = 6x = 12
  REQUIRE(jaxcc::hessian([](Array<double> x) { return Array<double>(x * x * x); })(jnp::array(2.0)).item() == 12.0);
  // f(v) = v0^2 v1: H = [[2 v1, 2 v0], [2 v0, 0]]
  auto f = [](Array<double> v) {
    auto v0 = jaxcc::lax::slice(v, {0}, {1});
    auto v1 = jaxcc::lax::slice(v, {1}, {2});
    return jnp::sum(v0 * v0 * v1);
  };
  REQUIRE_THAT(jaxcc::hessian(f)(jnp::array({3.0, 5.0})), AllClose(jnp::array<double>({{10, 6}, {6, 0}})));
}

}  // namespace test_jacobian
