// jnp::count_nonzero, nonzero, flatnonzero, argwhere, bincount
// (numpy/counting.hpp): values and dtypes against JAX's
// (tests/golden/statistics_cases.py); with a static size they run under jit
// and vmap, without one they raise JAX's error there.
#include "catch.hpp"

#include <cstdint>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "statistics_golden.hpp"
#include "support.hpp"

namespace test_counting {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using namespace jaxcc_test::statistics_golden;
using jaxcc_test::message_of;

TEST_CASE("counting matches JAX", "[counting]") {
  check({
      {"count_nonzero(i)", [] { return results(jnp::count_nonzero(i())); }},
      {"count_nonzero(i, 1)", [] { return results(jnp::count_nonzero(i(), 1)); }},
      {"count_nonzero(a > 1, 0, keepdims=True)", [] { return results(jnp::count_nonzero(a() > 1.0f, 0, true)); }},
      {"nonzero(i)", [] { return results(jnp::nonzero(i())); }},
      {"nonzero(i, size=7, fill_value=-1)", [] { return results(jnp::nonzero(i(), 7, -1)); }},
      {"nonzero(i, size=3)", [] { return results(jnp::nonzero(i(), 3)); }},
      {"flatnonzero(i)", [] { return results(jnp::flatnonzero(i())); }},
      {"flatnonzero(a > 1, size=8, fill_value=9)", [] { return results(jnp::flatnonzero(a() > 1.0f, 8, 9)); }},
      {"argwhere(i)", [] { return results(jnp::argwhere(i())); }},
      {"argwhere(i, size=6, fill_value=-2)", [] { return results(jnp::argwhere(i(), 6, -2)); }},
      {"argwhere(v)", [] { return results(jnp::argwhere(v())); }},
      {"bincount(c)", [] { return results(jnp::bincount(c())); }},
      {"bincount(c, w, 9)", [] { return results(jnp::bincount(c(), w(), 9)); }},
      {"bincount(c, length=4)", [] { return results(jnp::bincount(c(), jaxcc::none, 0, 4)); }},
  });
}

TEST_CASE("counting: a static size runs under jit and vmap", "[counting][jit][vmap]") {
  auto const nz = [](Array<std::int32_t> const& x) { return jnp::argwhere(x, 4, -1); };
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(nz, i()));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(nz, jaxcc::in_axes(0), i()));
  auto const flat = [](Array<float> const& x) { return jnp::flatnonzero(x, 3); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(flat, jaxcc::in_axes(1), a()));
  auto const counts = [](Array<std::int32_t> const& x, Array<float> const& wt) {
    return jnp::bincount(x, wt, 0, 5);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(counts, c(), w()));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(
      counts, jaxcc::in_axes(0, 0), jnp::stack({c(), c() * 0 + 2}), jnp::stack({w(), w() * 2.0f})));
  auto const count = [](Array<float> const& x) { return jnp::count_nonzero(x, 0); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(count, jaxcc::in_axes(1), a()));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges(count, a()));
  // bincount's weights carry the derivative.
  auto const g = jaxcc::grad([](Array<float> const& wt) { return jnp::sum(jnp::bincount(c(), wt, 0, 4) * 2.0f); })(w());
  CHECK(g.to_vector() == std::vector<float>{2, 2, 2, 2, 2, 0});
  // 0-d input: argwhere gives one row of no coordinates, or none.
  CHECK(jnp::argwhere(jnp::array(3.0f)).shape() == jaxcc::Shape{1, 0});
  CHECK(jnp::argwhere(jnp::array(0.0f)).shape() == jaxcc::Shape{0, 0});
  CHECK(jnp::nonzero(jnp::zeros<float>({2, 0}), 2, 7)[1].to_vector() == std::vector<std::int32_t>{0, 0});
}

TEST_CASE("counting: errors", "[counting][errors]") {
  std::string const traced =
      "Abstract tracer value encountered where concrete value is expected: nonzero of a traced array has a size that "
      "depends on its values; pass a static `size` argument to use it under jit, vmap or grad.";
  CHECK(message_of([] { jaxcc::jit([](Array<std::int32_t> const& x) { return jnp::flatnonzero(x); })(i()); }) ==
        traced);
  CHECK(message_of([] { jaxcc::vmap([](Array<std::int32_t> const& x) { return jnp::argwhere(x); })(i()); }) ==
        traced);
  CHECK(message_of([] { jaxcc::jit([](Array<std::int32_t> const& x) { return jnp::bincount(x); })(c()); }) ==
        "Abstract tracer value encountered where concrete value is expected: bincount of a traced array has a size "
        "that depends on its values; pass a static `length` argument to use it under jit, vmap or grad.");
  CHECK(message_of([] { jnp::nonzero(jnp::array(1.0f)); }) ==
        "Calling nonzero on 0d arrays is not allowed. Use jnp::atleast_1d(scalar) first, or flatnonzero.");
  CHECK(message_of([] { jnp::bincount(i()); }) == "bincount: only 1-dimensional input supported, got shape (2, 4)");
  CHECK(message_of([] { jnp::bincount(c(), wa()); }) ==
        "bincount: type of weights must match type of x. Got x: i32[6] and weights: f32[4]");
  CHECK(message_of([] { jnp::nonzero(i(), -1); }) == "nonzero: size must be non-negative, got -1");
}

}  // namespace test_counting
