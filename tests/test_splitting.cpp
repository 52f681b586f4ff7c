// jnp's splitting functions (numpy/splitting.hpp): array_split, hsplit,
// vsplit, dsplit, unstack against JAX's values (tests/golden/shape_cases.py);
// derivatives, vmap and jit; views; the errors.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "shape_golden.hpp"
#include "support.hpp"

namespace test_splitting {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc_test::message_of;
using jaxcc_test::shape_golden::parts;

TEST_CASE("splitting matches JAX", "[splitting]") {
  jaxcc_test::shape_golden::Inputs const in;
  jaxcc_test::shape_golden::check_cases(
      "splitting/",
      {
          {"array_split_3", [&] { return parts(jnp::array_split(in.i6(jaxcc::slice(0, 5)), 3)); }},
          {"array_split_4_axis1", [&] { return parts(jnp::array_split(in.t234, 3, -1)); }},
          {"array_split_indices", [&] { return parts(jnp::array_split(in.i6, {1, 4})); }},
          {"array_split_more", [&] { return parts(jnp::array_split(in.v3, 5)); }},
          {"hsplit_1d", [&] { return parts(jnp::hsplit(in.i6, 3)); }},
          {"hsplit_2d", [&] { return parts(jnp::hsplit(in.m23, {1})); }},
          {"vsplit", [&] { return parts(jnp::vsplit(in.t234, 2)); }},
          {"dsplit", [&] { return parts(jnp::dsplit(in.t234, {1, 3})); }},
          {"unstack_0", [&] { return parts(jnp::unstack(in.m23)); }},
          {"unstack_neg", [&] { return parts(jnp::unstack(in.t234, -2)); }},
      });
}

TEST_CASE("splitting under grad, vmap and jit; views", "[splitting][grad][vmap][jit]") {
  auto const xs = jaxcc_test::smooth({3, 4, 5});
  auto const f = [](Array<double> const& x) {
    auto const a = jnp::array_split(x, 3, 1);
    auto const u = jnp::unstack(x, -1);
    auto const h = jnp::hsplit(x, {2});
    return jnp::sum(a[0] * 2.0) + jnp::sum(a[2] * a[2]) + jnp::sum(u[1] * u[4]) + jnp::sum(h[1]) +
           jnp::sum(jnp::vsplit(x, 2)[1] * 3.0);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{jaxcc_test::example(xs, 0, 1)}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0), xs));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, jaxcc_test::example(xs, 0, 2)));
  auto const m = jnp::ones<float>({4, 6});
  for (auto const& part : jnp::array_split(m, 4, 1)) CHECK(jaxcc_test::shares_buffer(part, m));
  CHECK(jnp::unstack(jnp::ones<float>({0, 2})).empty());
  CHECK(jnp::unstack(jnp::ones<float>({2, 0}), 1).empty());
  CHECK(jnp::array_split(jnp::ones<float>(0), 2).size() == 2);
}

TEST_CASE("splitting: errors", "[splitting][errors]") {
  auto const m = jnp::ones<float>({2, 3});
  CHECK(message_of([&] { jnp::hsplit(m, 2); }) == "array split does not result in an equal division: rest is 1");
  CHECK(message_of([&] { jnp::array_split(m, 0); }) == "array_split: number sections must be larger than 0.");
  CHECK(message_of([&] { jnp::dsplit(m, 2); }) == "dsplit: axis 2 is out of bounds for array of dimension 2");
  CHECK(message_of([&] { jnp::unstack(jnp::array(1.f)); }) == "unstack: axis 0 is out of bounds for array of dimension 0");
  CHECK(message_of([&] { jnp::vsplit(m, {3, 1}); }) == "Sizes passed to split must be nonnegative, got [3, -2, 1]");
}

}  // namespace test_splitting
