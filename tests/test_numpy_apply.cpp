// jnp::apply_along_axis and apply_over_axes (transforms/numpy_apply.hpp)
// against JAX's values (tests/golden/shape_cases.py); apply_along_axis under
// grad and vmap; the error for a result of the wrong rank.
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
          {"fromfunction_1",
           [] {
             auto const f = [](Array<float> const& i) { return Array<float>(i * i - 2.0f); };
             return parts(jnp::fromfunction(f, {4}));
           }},
          {"fromfunction_2",
           [] {
             auto const f = [](Array<float> const& i, Array<float> const& j) {
               return Array<float>(jnp::sin(i) + 10.0f * j);
             };
             return parts(jnp::fromfunction(f, {2, 3}));
           }},
          {"fromfunction_3",
           [] {
             auto const f = [](Array<float> const& i, Array<float> const& j, Array<float> const& k) {
               return jnp::stack(std::vector<Array<float>>{i + j, j * k});
             };
             return parts(jnp::fromfunction(f, {2, 3, 2}));
           }},
      });
}

TEST_CASE("fromfunction: integer indices, a closed-over array under grad and jit", "[numpy_apply][grad][jit]") {
  auto const index = [](Array<std::int32_t> const& i, Array<std::int32_t> const& j) {
    return Array<std::int32_t>(i * 10 + j);
  };
  auto const ints = jnp::fromfunction<std::int32_t>(index, {2, 3});
  CHECK(ints.to_vector() == std::vector<std::int32_t>{0, 1, 2, 10, 11, 12});
  auto const f = [](Array<double> const& a) {
    auto const g = [&a](Array<double> const& i, Array<double> const& j) { return Array<double>(jnp::sin(a * i) + j); };
    return jnp::fromfunction<double>(g, {3, 2});
  };
  Array<double> const a = jnp::array(0.7);
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{a}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, a));
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
