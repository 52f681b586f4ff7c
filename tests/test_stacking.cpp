// jnp's stacking functions (numpy/stacking.hpp): atleast_1d/2d/3d, hstack,
// vstack, dstack, column_stack (of lists and of arrays), concat, block,
// append against JAX's values (tests/golden/shape_cases.py); derivatives,
// vmap and jit of a function built from all of them; 0-d and empty inputs;
// the errors.
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

namespace test_stacking {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::shape_golden::parts;

TEST_CASE("stacking matches JAX", "[stacking]") {
  jaxcc_test::shape_golden::Inputs const in;
  auto const col = [&](std::int64_t a, std::int64_t b) { return in.m23(jaxcc::all, jaxcc::slice(a, b)); };
  jaxcc_test::shape_golden::check_cases(
      "stacking/",
      {
          {"atleast_1d_0d", [&] { return parts(jnp::atleast_1d(in.s)); }},
          {"atleast_2d_1d", [&] { return parts(jnp::atleast_2d(in.v3)); }},
          {"atleast_3d_0d", [&] { return parts(jnp::atleast_3d(in.s)); }},
          {"atleast_3d_1d", [&] { return parts(jnp::atleast_3d(in.v3)); }},
          {"atleast_3d_2d", [&] { return parts(jnp::atleast_3d(in.m23)); }},
          {"atleast_2d_many", [&] { return parts(jnp::atleast_2d(in.s, in.v3, in.m23)); }},
          {"hstack_1d", [&] { return parts(jnp::hstack({in.v2, in.v3, in.s})); }},
          {"hstack_2d", [&] { return parts(jnp::hstack({in.m23, col(0, 1)})); }},
          {"vstack_1d", [&] { return parts(jnp::vstack({in.v3, in.v3 * 2.f, in.m23})); }},
          {"vstack_0d", [&] { return parts(jnp::vstack({in.s, in.s})); }},
          {"dstack", [&] { return parts(jnp::dstack({in.m23, in.m23 * 2.f})); }},
          {"dstack_1d", [&] { return parts(jnp::dstack({in.v3, in.v3})); }},
          {"column_stack", [&] { return parts(jnp::column_stack({in.v2, in.m23, in.v2 * 3.f})); }},
          {"column_stack_0d", [&] { return parts(jnp::column_stack({in.s, in.s})); }},
          {"concat_1", [&] { return parts(jnp::concat({in.m23, in.m23 * 2.f}, 1)); }},
          {"concat_none", [&] { return parts(jnp::concat({in.m23, in.v2}, jaxcc::none)); }},
          {"vstack_array_2d", [&] { return parts(jnp::vstack(in.m23)); }},
          {"vstack_array_1d", [&] { return parts(jnp::vstack(in.v3)); }},
          {"hstack_array_1d", [&] { return parts(jnp::hstack(in.v3)); }},
          {"hstack_array_2d", [&] { return parts(jnp::hstack(in.m23)); }},
          {"hstack_array_3d", [&] { return parts(jnp::hstack(in.t234)); }},
          {"dstack_array_1d", [&] { return parts(jnp::dstack(in.v3)); }},
          {"dstack_array_2d", [&] { return parts(jnp::dstack(in.m23)); }},
          {"dstack_array_3d", [&] { return parts(jnp::dstack(in.t234)); }},
          {"column_stack_array_1d", [&] { return parts(jnp::column_stack(in.v3)); }},
          {"column_stack_array_2d", [&] { return parts(jnp::column_stack(in.m23)); }},
          {"column_stack_array_3d", [&] { return parts(jnp::column_stack(in.t234)); }},
          {"block_1", [&] { return parts(jnp::block({in.v2, in.v3, in.s})); }},
          {"block_2", [&] { return parts(jnp::block({{in.m22, in.m22 * 2.f}, {col(0, 2), col(1, 3)}})); }},
          {"block_2_ranks", [&] { return parts(jnp::block({{in.s, in.v2}, {in.v3}})); }},
          {"block_3d", [&] { return parts(jnp::block({{in.t234, in.t234(jaxcc::all, jaxcc::all, jaxcc::slice(0, 1))}})); }},
          {"append_none", [&] { return parts(jnp::append(in.m23, in.v2)); }},
          {"append_0", [&] { return parts(jnp::append(in.m23, in.m23(jaxcc::slice(0, 1)), 0)); }},
      });
}

TEST_CASE("stacking under grad, vmap and jit; 0-d and empty inputs", "[stacking][grad][vmap][jit]") {
  auto const xs = jaxcc_test::smooth({3, 2, 3});
  auto const f = [](Array<double> const& x) {
    auto const r = jnp::ravel(x);
    return jnp::sum(jnp::hstack({x, x * x}) * 0.5) + jnp::sum(jnp::vstack({r, r * 3.0})) +
           jnp::sum(jnp::dstack({x, x}) * jnp::dstack({x, x})) + jnp::sum(jnp::column_stack({r, r * r})) +
           jnp::sum(jnp::block({{x, x}, {x * x, x}}) * 0.25) + jnp::sum(jnp::append(x, r * r)) +
           jnp::sum(jnp::vstack(x) * jnp::vstack(x)) + jnp::sum(jnp::atleast_3d(x) * 2.0);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{jaxcc_test::example(xs, 0, 1)}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0), xs));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, jaxcc_test::example(xs, 0, 2)));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<float> const& x) { return jnp::hstack({x, x}); },
                                              jnp::ones<float>({2, 3})));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<float> const& x) { return jnp::column_stack(x); },
                                              jnp::ones<float>({2, 3})));
  // atleast_nd are views of their input.
  auto const v = jnp::ones<float>(3);
  CHECK(jaxcc_test::shares_buffer(jnp::atleast_3d(v), v));
}

TEST_CASE("stacking: errors", "[stacking][errors]") {
  auto const m = jnp::ones<float>({2, 3});
  CHECK(message_of([] { jnp::block(std::vector<Array<float>>{}); }) ==
        "jax.numpy.block does not allow empty list arguments");
  CHECK(message_of([] { jnp::hstack(std::vector<Array<float>>{}); }) == "Need at least one array to concatenate.");
  CHECK(message_of([&] { jnp::hstack(jnp::array(1.f)); }) ==
        "hstack: zero-dimensional arrays cannot be concatenated.");
  CHECK(message_of([&] { jnp::concat({m, m}, 2); }) == "concatenate: axis 2 is out of bounds for array of dimension 2");
  CHECK_FALSE(message_of([&] { jnp::vstack({jnp::ones<float>(2), jnp::ones<float>(3)}); }).empty());
}

}  // namespace test_stacking
