// jnp::unique, unique_values, unique_counts, unique_inverse, unique_all,
// union1d, intersect1d, setdiff1d, setxor1d (numpy/setops.hpp): values and
// dtypes against JAX's (tests/golden/statistics_cases.py: NaNs, repeats,
// size with and without fill_value, assume_unique); with a static size
// they run under jit and vmap, without one they raise JAX's error there.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "statistics_golden.hpp"
#include "support.hpp"

namespace test_setops {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using namespace jaxcc_test::statistics_golden;
using jaxcc_test::message_of;

TEST_CASE("set operations match JAX", "[setops]") {
  check({
      {"unique(u)", [] { return results(jnp::unique(u())); }},
      {"unique(s1)", [] { return results(jnp::unique(s1())); }},
      {"unique(s1, size=6)", [] { return results(jnp::unique(s1(), 6)); }},
      {"unique(s1, size=2)", [] { return results(jnp::unique(s1(), 2)); }},
      {"unique(u, size=7, fill_value=-1.0)", [] { return results(jnp::unique(u(), 7, -1.0)); }},
      {"unique_values(u)", [] { return results(jnp::unique_values(u())); }},
      {"unique_counts(s1)", [] { return results(jnp::unique_counts(s1())); }},
      {"unique_counts(s1, size=6, fill_value=0)", [] { return results(jnp::unique_counts(s1(), 6, 0)); }},
      {"unique_inverse(u)", [] { return results(jnp::unique_inverse(u())); }},
      {"unique_all(s1)", [] { return results(jnp::unique_all(s1())); }},
      {"unique_all(s1, size=3)", [] { return results(jnp::unique_all(s1(), 3)); }},
      {"union1d(s1, s2)", [] { return results(jnp::union1d(s1(), s2())); }},
      {"union1d(s1, s2, size=9, fill_value=-1)", [] { return results(jnp::union1d(s1(), s2(), 9, -1)); }},
      {"union1d(s1, u)", [] { return results(jnp::union1d(s1(), u())); }},
      {"setdiff1d(s1, s2)", [] { return results(jnp::setdiff1d(s1(), s2())); }},
      {"setdiff1d(s1, s2, size=4)", [] { return results(jnp::setdiff1d(s1(), s2(), false, 4)); }},
      {"setdiff1d(s1, s2, size=4, fill_value=-5)", [] { return results(jnp::setdiff1d(s1(), s2(), false, 4, -5)); }},
      {"setdiff1d(s2, s1, True)", [] { return results(jnp::setdiff1d(s2(), s1(), true)); }},
      {"setdiff1d(u, s1)", [] { return results(jnp::setdiff1d(u(), s1())); }},
      {"intersect1d(s1, s2)", [] { return results(jnp::intersect1d(s1(), s2())); }},
      {"intersect1d(s1, s2, size=4)", [] { return results(jnp::intersect1d(s1(), s2(), false, false, 4)); }},
      {"intersect1d(s1, s2, size=3, fill_value=-1)",
       [] { return results(jnp::intersect1d(s1(), s2(), false, false, 3, -1)); }},
      {"intersect1d(s2, s2 + 100, size=2)",
       [] { return results(jnp::intersect1d(s2(), s2() + 100, false, false, 2)); }},
      {"intersect1d(s2, jnp.array([9.0, 2.0, 3.0]), True)",
       [] { return results(jnp::intersect1d(s2(), jnp::array({9.0f, 2.0f, 3.0f}), true)); }},
      {"setxor1d(s1, s2)", [] { return results(jnp::setxor1d(s1(), s2())); }},
      {"setxor1d(s1, s2, size=6)", [] { return results(jnp::setxor1d(s1(), s2(), false, 6)); }},
      {"setxor1d(s2, u)", [] { return results(jnp::setxor1d(s2(), u())); }},
      {"setxor1d(s1, s2, size=3, fill_value=0)", [] { return results(jnp::setxor1d(s1(), s2(), false, 3, 0)); }},
  });
}

TEST_CASE("set operations: a static size runs under jit and vmap", "[setops][jit][vmap]") {
  auto const all = [](Array<std::int32_t> const& x) { return jnp::unique_all(x, 4, -1); };
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(all, s1()));
  auto const rows = jnp::stack({s1(), jnp::array<std::int32_t>({4, 0, 4, 2, 2, 9})});
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(all, jaxcc::in_axes(0), rows));
  auto const sets = [](Array<std::int32_t> const& x, Array<std::int32_t> const& y) {
    return std::tuple{jnp::union1d(x, y, 8), jnp::intersect1d(x, y, false, false, 3), jnp::setdiff1d(x, y, false, 3),
                      jnp::setxor1d(x, y, false, 5, -1)};
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(sets, s1(), s2()));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(sets, jaxcc::in_axes(0, jaxcc::none), rows, s2()));
  // unique's values carry the derivative of the elements they pick.
  auto const g = jaxcc::grad([](Array<float> const& x) { return jnp::sum(jnp::unique(x, 3) * jnp::array({1.0f, 2.0f, 3.0f})); })(
      jnp::array({2.0f, 0.5f, 2.0f, 4.0f}));
  CHECK(g.to_vector() == std::vector<float>{2, 1, 0, 3});
  // Empty inputs.
  CHECK(jnp::unique(jnp::zeros<float>(0)).shape() == jaxcc::Shape{0});
  CHECK(jnp::unique(jnp::zeros<float>(0), 2, 7.0).to_vector() == std::vector<float>{7, 7});
  CHECK(jnp::setdiff1d(jnp::zeros<std::int32_t>(0), s2(), false, 2, 3).to_vector() == std::vector<std::int32_t>{3, 3});
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<float> const& x) { return jnp::unique_counts(x, 3, 0.0); }, u()));
}

TEST_CASE("set operations: errors", "[setops][errors]") {
  auto const traced = [](std::string const& op) {
    return "Abstract tracer value encountered where concrete value is expected: the number of results of " + op +
           " of a traced array depends on its values. To make it compatible with jit and other transforms, specify a "
           "concrete value for the size argument, which will determine the output size.";
  };
  CHECK(message_of([] { jaxcc::jit([](Array<float> const& x) { return jnp::unique(x); })(u()); }) == traced("unique"));
  CHECK(message_of([] {
          jaxcc::jit([](Array<std::int32_t> const& x) { return jnp::setdiff1d(x, s2()); })(s1());
        }) == traced("setdiff1d"));
  CHECK(message_of([] {
          jaxcc::vmap([](Array<std::int32_t> const& x) { return jnp::intersect1d(x, s2()); })(jnp::stack({s1()}));
        }) == traced("intersect1d"));
  CHECK(message_of([] { jnp::unique(jnp::zeros<float>(0), 2); }) ==
        "unique: for zero-sized input with nonzero size argument, fill_value must be specified");
  CHECK(message_of([] { jnp::intersect1d(s1(), s2(), false, true); }) ==
        "intersect1d: return_indices=true is not implemented in jaxcc");
}

}  // namespace test_setops
