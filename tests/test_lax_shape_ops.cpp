// lax's shape functions (lax/shape_ops.hpp: reshape with dimensions, broadcast, broadcast_like,
// broadcast_shapes, broadcast_to_rank, iota, broadcasted_iota, collapse,
// rev, tile, full, full_like, empty, stack, unstack, split) and the
// one-dimension slicing forms (lax/slicing.hpp: slice_in_dim, index_in_dim,
// dynamic_slice_in_dim, dynamic_index_in_dim, dynamic_update_slice_in_dim,
// dynamic_update_index_in_dim): against JAX's values
// (tests/golden/lax_more_cases.py), derivatives, batching, jit, edges and
// JAX's errors.
#include "catch.hpp"

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "lax_more_golden.hpp"
#include "support.hpp"

namespace test_lax_shape_ops {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::smooth;
using lax_more_golden::check;
using namespace lax_more_golden;

TEST_CASE("lax shape functions match JAX", "[lax][shape_ops]") {
  check("broadcast(m, (2,))", lax::broadcast(m(), {2}));
  check("broadcast_like(v, m)", lax::broadcast_like(v(), m()));
  check("broadcast_to_rank(v, 3)", lax::broadcast_to_rank(v(), 3));
  check("broadcasted_iota(int32, (2, 3), 1)", lax::broadcasted_iota<std::int32_t>({2, 3}, 1));
  check("iota(float32, 5)", lax::iota<float>(5));
  check("collapse(t, 1)", lax::collapse(t(), 1));
  check("collapse(t, 0, 2)", lax::collapse(t(), 0, 2));
  check("collapse(t, -2)", lax::collapse(t(), -2));
  check("rev(m, (0, 1))", lax::rev(m(), {0, 1}));
  check("rev(t, (1,))", lax::rev(t(), {1}));
  check("tile(m, (2, 3))", lax::tile(m(), {2, 3}));
  check("full((2, 3), 1.5)", lax::full<float>({2, 3}, 1.5));
  check("full_like(m, 2)", lax::full_like(m(), 2));
  auto const ints = lax::full_like<std::int32_t>(m(), 7, Shape{3});
  STATIC_REQUIRE(std::same_as<decltype(ints), Array<std::int32_t> const>);
  check("full_like(m, 7, int32, (3,))", ints);
  check("stack([v, v * 2], 1)", lax::stack(std::vector{v(), Array<float>(v() * 2.0f)}, 1));
  check("unstack(m, 1)[2]", lax::unstack(m(), 1)[2]);
  check("split(m, (1, 3), 1)[1]", lax::split(m(), {1, 3}, 1)[1]);
  // By hand: broadcast_shapes is numpy's rule; empty is zeros, as JAX gives.
  CHECK(lax::broadcast_shapes(Shape{2, 1}, Shape{3}, Shape{1, 1, 1}) == Shape{1, 2, 3});
  CHECK(lax::broadcast_shapes(std::vector<Shape>{}) == Shape{});
  CHECK(lax::empty<double>({2}).to_vector() == std::vector<double>{0, 0});
  CHECK(lax::unstack(m(), 0).size() == 3);
  // By hand (JAX gives the same): reshape with dimensions (1, 0) reads [[0, 1, 2], [3, 4, 5]]
  // column by column: 0, 3, 1, 4, 2, 5.
  auto const r = lax::reshape(jnp::arange<float>(0, 6).reshape({2, 3}), {3, 2}, {1, 0});
  CHECK(r.shape() == Shape{3, 2});
  CHECK(r.to_vector() == std::vector<float>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("lax one-dimension slicing matches JAX", "[lax][slicing]") {
  check("slice_in_dim(m, 1, None, 2, 1)", lax::slice_in_dim(m(), 1, std::nullopt, 2, 1));
  check("slice_in_dim(m, -2, None)", lax::slice_in_dim(m(), -2, std::nullopt));
  check("index_in_dim(m, -1, 1, False)", lax::index_in_dim(m(), -1, 1, false));
  check("index_in_dim(m, 1)", lax::index_in_dim(m(), 1));
  check("dynamic_slice_in_dim(m, 2, 2, 1)", lax::dynamic_slice_in_dim(m(), 2, 2, 1));
  check("dynamic_slice_in_dim(m, 5, 2, 0)", lax::dynamic_slice_in_dim(m(), jnp::array<std::int32_t>(5), 2, 0));
  check("dynamic_index_in_dim(m, -1, 0, False)", lax::dynamic_index_in_dim(m(), -1, 0, false));
  auto const u = lax::slice_in_dim(row_ups().T(), 0, 3);
  check("dynamic_update_slice_in_dim(m, row_ups.T[:3], 3, 1)", lax::dynamic_update_slice_in_dim(m(), u, 3, 1));
  check("dynamic_update_index_in_dim(m, v, 1, 0)", lax::dynamic_update_index_in_dim(m(), v(), jnp::array(1), 0));
}

TEST_CASE("lax shape functions: derivatives, batching, jit, edges", "[lax][shape_ops][grad][vmap][jit]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  auto const x = smooth({2, 3, 4});
  auto const composed = [](Array<double> const& a) {
    auto const parts = lax::split(lax::rev(a, {0, 2}), {1, 2}, 1);
    auto const s = lax::stack(std::vector{lax::collapse(parts[0], 1), lax::collapse(lax::tile(parts[0], {1, 1, 1}), 1)});
    return Array<double>(jnp::sum(lax::broadcast(s, {2})) + jnp::sum(jnp::sin(lax::unstack(parts[1], 2)[3])) +
                         jnp::sum(jnp::cos(lax::tile(a, {1, 2, 1}))));
  };
  REQUIRE_NOTHROW(check_grads(composed, std::tuple{x}, 2));
  REQUIRE_NOTHROW(check_batching_rule(composed, jaxcc::in_axes(1), smooth({3, 2, 3, 4})));
  auto const sliced = [](Array<double> const& a, Array<std::int32_t> const& i) {
    auto const d = lax::dynamic_slice_in_dim(a, i, 2, 1);
    auto const upd = lax::dynamic_update_index_in_dim(a, Array<double>(jnp::sin(lax::index_in_dim(a, 0, 1, false))), i, 1);
    return Array<double>(jnp::sum(d * d) + jnp::sum(jnp::cos(upd)) + jnp::sum(lax::slice_in_dim(a, 1, std::nullopt, 2, 2)) +
                         jnp::sum(lax::dynamic_index_in_dim(a, i, 2, false)));
  };
  auto const i = jnp::array<std::int32_t>(1);
  REQUIRE_NOTHROW(check_grads([&](Array<double> const& a) { return sliced(a, i); }, std::tuple{x}, 2));
  REQUIRE_NOTHROW(check_batching_rule(sliced, jaxcc::in_axes(0, 0), smooth({3, 2, 3, 4}),
                                      jnp::array<std::int32_t>({0, 2, -1})));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(sliced, x, i));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(composed, x));
  // full with an array fill value is a broadcast: its gradient is the count of elements.
  auto const g = jaxcc::grad([](Array<double> const& f) { return Array<double>(jnp::sum(lax::full(Shape{2, 3}, f))); })(
      jnp::array(0.5));
  CHECK(g.item() == 6.0);
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<float> const& a) { return lax::rev(lax::broadcast(a, {2}), {0}); },
                                              jnp::ones<float>({3})));
}

TEST_CASE("lax shape functions: JAX's errors", "[lax][shape_ops][errors]") {
  auto const x = jnp::ones<float>({2, 3});
  CHECK(message_of([&] { lax::reshape(x, {3, 2}, {0, 0}); }) ==
        "reshape dimensions must be a permutation of operand dimensions, got dimensions (0, 0) for shape (2, 3).");
  CHECK(message_of([&] { lax::rev(x, {-1}); }) == "rev dimensions must have every element be nonnegative, got (-1,).");
  CHECK(message_of([&] { lax::rev(x, {2}); }) ==
        "rev dimensions must all be less than operand ndim, got dimensions (2,) for operand ndim 2.");
  CHECK(message_of([&] { lax::rev(x, {1, 1}); }) == "rev dimensions must be unique, got (1, 1).");
  CHECK(message_of([&] { lax::tile(x, {2}); }) == "reps length must be equal to the ndim of x, got len(reps)=1 and x.ndim=2.");
  CHECK(message_of([&] { lax::split(jnp::ones<float>({5}), {2, 2}); }) ==
        "Sum of sizes 4 must be equal to dimension 0 of the operand shape [5]");
  CHECK(message_of([&] { lax::split(jnp::ones<float>({5}), {6, -1}); }) ==
        "Sizes passed to split must be nonnegative, got [6, -1]");
  CHECK(message_of([&] { lax::collapse(jnp::ones<float>({2, 3, 4}), 2, 1); }) ==
        "Invalid dimension range passed to collapse: (2, 3, 4)[2:1]");
  CHECK(message_of([&] { lax::broadcast_shapes(Shape{2}, Shape{3}); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]");
  CHECK(message_of([&] { lax::full(Shape{2}, jnp::ones<float>({2})); }) ==
        "full must be called with scalar fill_value, got fill_value.shape (2,).");
  CHECK(message_of([&] { lax::index_in_dim(jnp::ones<float>({3}), 3); }) == "index 3 is out of bounds for axis 0 with size 3");
  CHECK(message_of([&] { lax::stack(std::vector{jnp::ones<float>({2}), jnp::ones<float>({3})}); }) ==
        "All input arrays must have the same shape. Got (2,), (3,).");
  CHECK(message_of([&] { lax::unstack(jnp::ones<float>({})); }) == "unstack: axis 0 is out of bounds for array of dimension 0");
  CHECK(message_of([&] { lax::broadcasted_iota<std::int32_t>({2, 3}, 2); }) ==
        "iota dimension must be between 0 and len(shape), got dimension=2 for shape=(2, 3)");
  CHECK(message_of([&] { lax::broadcast_like(jnp::ones<float>({3}), x.T()); }) ==
        "Incompatible shapes for broadcasting: (3,) and requested shape (3, 2)");
}

}  // namespace test_lax_shape_ops
