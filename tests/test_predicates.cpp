// jnp::isclose, allclose, array_equal, array_equiv, isin
// (numpy/predicates.hpp): values and dtypes against JAX's
// (tests/golden/statistics_cases.py), jit and vmap, 0-d and empty inputs.
#include "catch.hpp"

#include <cstdint>
#include <tuple>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "statistics_golden.hpp"
#include "support.hpp"

namespace test_predicates {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using namespace jaxcc_test::statistics_golden;
using jaxcc_test::message_of;

TEST_CASE("predicates match JAX", "[predicates]") {
  auto const tiled = jnp::stack({a()(1), a()(1)});
  check({
      {"isclose(p, q)", [] { return results(jnp::isclose(p(), q())); }},
      {"isclose(p, q, equal_nan=True)", [] { return results(jnp::isclose(p(), q(), 1e-5, 1e-8, true)); }},
      {"isclose(p, q, 0.0, 0.2)", [] { return results(jnp::isclose(p(), q(), 0.0, 0.2)); }},
      {"isclose(i, i + 1, 0.0, 1.0)", [] { return results(jnp::isclose(i(), i() + 1, 0.0, 1.0)); }},
      {"allclose(p, q)", [] { return results(jnp::allclose(p(), q())); }},
      {"allclose(a, a + 1e-6)", [] { return results(jnp::allclose(a(), a() + 1e-6f)); }},
      {"allclose(n, n, equal_nan=True)", [] { return results(jnp::allclose(n(), n(), 1e-5, 1e-8, true)); }},
      {"array_equal(a, a)", [] { return results(jnp::array_equal(a(), a())); }},
      {"array_equal(a, a[:2])", [] { return results(jnp::array_equal(a(), a()(jaxcc::slice(0, 2)))); }},
      {"array_equal(n, n)", [] { return results(jnp::array_equal(n(), n())); }},
      {"array_equal(n, n, equal_nan=True)", [] { return results(jnp::array_equal(n(), n(), true)); }},
      {"array_equiv(a[0], a)", [] { return results(jnp::array_equiv(a()(0), a())); }},
      {"array_equiv(a[1], jnp.tile(a[1], (2, 1)))", [&] { return results(jnp::array_equiv(a()(1), tiled)); }},
      {"isin(i, c)", [] { return results(jnp::isin(i(), c())); }},
      {"isin(i, c, invert=True)", [] { return results(jnp::isin(i(), c(), false, true)); }},
      {"isin(a, v)", [] { return results(jnp::isin(a(), v())); }},
  });
}

TEST_CASE("predicates: jit, vmap, edges", "[predicates][jit][vmap]") {
  auto const close = [](Array<float> const& x, Array<float> const& y) { return jnp::isclose(x, y, 0.0, 0.5); };
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(close, a(), a() * 1.1f));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(close, jaxcc::in_axes(0, 1), a(), a().T()));
  auto const equal = [](Array<float> const& x, Array<float> const& y) { return jnp::array_equal(x, y); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(equal, jaxcc::in_axes(0, 0), a(), a()));
  auto const in = [](Array<std::int32_t> const& x) { return jnp::isin(x, jnp::array<std::int32_t>({0, 5})); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(in, jaxcc::in_axes(1), i()));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<float> const& x) { return jnp::allclose(x, x); }, a()));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<float> const& x) { return jnp::isin(x, x); }, a()));
  // No test element: nothing is in it.
  CHECK(jnp::isin(a(), jnp::zeros<float>(0)).to_vector() == std::vector<bool>(12, false));
  CHECK(jnp::isin(a(), jnp::zeros<float>(0), false, true).shape() == jaxcc::Shape{3, 4});
}

TEST_CASE("predicates: errors", "[predicates][errors]") {
  CHECK(message_of([] { jnp::isclose(a(), v()); }) != "<no error>");
  // JAX 0.10.2 raises here too: its comparison fails before its `False` for
  // unbroadcastable shapes is reached.
  CHECK(message_of([] { jnp::array_equiv(a(), a()(jaxcc::all, jaxcc::slice(0, 2))); }) ==
        "eq got incompatible shapes for broadcasting: (3, 4), (3, 2)");
}

}  // namespace test_predicates
