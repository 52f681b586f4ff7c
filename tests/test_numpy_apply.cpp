// jnp::apply_along_axis and apply_over_axes (transforms/numpy_apply.hpp)
// against JAX's values (tests/golden/shape_cases.py); apply_along_axis under
// grad and vmap; the error for a result of the wrong rank.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <tuple>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "shape_golden.hpp"
#include "support.hpp"

namespace test_numpy_apply {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc_test::message_of;
using jaxcc_test::shape_golden::parts;

TEST_CASE("apply_along_axis and apply_over_axes match JAX", "[numpy_apply]") {
  jaxcc_test::shape_golden::Inputs const in;
  auto const sum = [](Array<float> const& v) { return jnp::sum(v); };
  auto const cumsum = [](Array<float> const& v) { return jnp::cumsum(v, 0); };
  auto const outer = [](Array<float> const& v) {
    return Array<float>(jnp::expand_dims(v(jaxcc::slice(0, 2)), 1) * v(jaxcc::slice(1, 3)));
  };
  jaxcc_test::shape_golden::check_cases(
      "numpy_apply/",
      {
          {"along_sum", [&] { return parts(jnp::apply_along_axis(sum, 1, in.t234)); }},
          {"along_cumsum", [&] { return parts(jnp::apply_along_axis(cumsum, 0, in.t234)); }},
          {"along_outer", [&] { return parts(jnp::apply_along_axis(outer, -1, in.m23)); }},
          {"over_sum",
           [&] {
             return parts(jnp::apply_over_axes([](Array<float> const& a, std::int64_t ax) { return jnp::sum(a, ax); },
                                               in.t234, Axes{0, 2}));
           }},
          {"over_neg",
           [&] {
             return parts(jnp::apply_over_axes([](Array<float> const& a, std::int64_t ax) { return jnp::flip(a, ax); },
                                               in.t234, Axes{-1}));
           }},
      });
}

TEST_CASE("apply_along_axis under grad and vmap; apply_over_axes's error", "[numpy_apply][grad][vmap][errors]") {
  auto const xs = jaxcc_test::smooth({3, 2, 4});
  auto const f = [](Array<double> const& x) {
    return jnp::apply_along_axis([](Array<double> const& v) { return Array<double>(v * jnp::sum(v * v)); }, 1, x);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{jaxcc_test::example(xs, 0, 1)}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0), xs));
  CHECK(message_of([] {
    jnp::apply_over_axes([](Array<float> const& a, std::int64_t) { return jnp::sum(a); }, jnp::ones<float>({2, 2, 2}),
                         Axes{0});
  }) == "function is not returning an array of the correct shape");
}

}  // namespace test_numpy_apply
