// lax's general gather and scatters (lax/gather_scatter.hpp: gather,
// index_take, scatter, scatter_add, scatter_sub, scatter_mul, scatter_min,
// scatter_max, scatter_apply) with XLA's dimension numbers: against JAX's
// values and gradients (tests/golden/lax_more_cases.py), derivatives,
// batching, jit and JAX's errors.
#include "catch.hpp"

#include <cstdint>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "lax_more_golden.hpp"
#include "support.hpp"

namespace test_lax_gather_scatter {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::smooth;
using lax::GatherDimensionNumbers;
using lax::ScatterDimensionNumbers;
using lax_more_golden::check;
using namespace lax_more_golden;

// The generator's dimension numbers.
GatherDimensionNumbers const by_rows({1}, {0}, {0});
GatherDimensionNumbers const by_corners({1, 2}, {}, {0, 1});
GatherDimensionNumbers const batched({1}, {2}, {2}, {0}, {0});
ScatterDimensionNumbers const scalars({}, {0}, {0});

template <class A>
auto gather_corners(A const& a, std::optional<std::string_view> mode = std::nullopt) {
  return lax::gather(a, corners(), by_corners, Shape{2, 2}, false, false, mode);
}

TEST_CASE("lax gather matches JAX", "[lax][gather]") {
  check("gather(m, rows, ((1,), (0,), (0,)), (1, 4))", lax::gather(m(), rows(), by_rows, {1, 4}));
  check("gather(m, rows, ((1,), (0,), (0,)), (1, 4), mode='fill')",
        lax::gather(m(), rows(), by_rows, {1, 4}, false, false, "fill"));
  check("gather(m, corners, ((1, 2), (), (0, 1)), (2, 2))", gather_corners(m()));
  check("gather(m, corners, ((1, 2), (), (0, 1)), (2, 2), mode='fill')", gather_corners(m(), "fill"));
  check("gather(t, bidx, ((1,), (2,), (2,), (0,), (0,)), (1, 3, 1))", lax::gather(t(), bidx(), batched, {1, 3, 1}));
  auto const r = lax::slice_in_dim(rows(), 0, 1, 1, 1).reshape({3});
  check("index_take(t, (rows[:, 0], rows[:, 0]), (1, 2))", lax::index_take(t(), std::vector{r, r}, {1, 2}));
  check("grad gather(m, corners, ((1, 2), (), (0, 1)), (2, 2), mode='fill')",
        sin_grad([](Array<float> const& a) { return gather_corners(a, "fill"); }, m()));
  // By hand: a fill value given is used; "clip" clamps like the default.
  auto const filled = lax::gather(m(), rows(), by_rows, {1, 4}, false, false, "fill", -1.0);
  CHECK(lax::index_in_dim(filled, 2, 0, false).to_vector() == std::vector<float>{-1, -1, -1, -1});
  CHECK(lax::gather(m(), rows(), by_rows, {1, 4}, false, false, "clip").to_vector() ==
        lax::gather(m(), rows(), by_rows, {1, 4}).to_vector());
}

TEST_CASE("lax scatters match JAX", "[lax][scatter]") {
  check("scatter_add(z3, sidx, ups, ((), (0,), (0,)))", lax::scatter_add(z3(), sidx(), ups(), scalars));
  check("scatter_sub(z3, sidx, ups, ((), (0,), (0,)), mode='clip')",
        lax::scatter_sub(z3(), sidx(), ups(), scalars, false, false, "clip"));
  check("scatter(z3, sidx, ups, ((), (0,), (0,)))", lax::scatter(z3(), sidx(), ups(), scalars));
  check("scatter_mul(z3, sidx, ups, ((), (0,), (0,)))", lax::scatter_mul(z3(), sidx(), ups(), scalars));
  check("scatter_min(z3, sidx, ups, ((), (0,), (0,)))", lax::scatter_min(z3(), sidx(), ups(), scalars));
  check("scatter_max(z3, sidx, ups, ((), (0,), (0,)))", lax::scatter_max(z3(), sidx(), ups(), scalars));
  check("scatter(m, ridx, row_ups, ((1,), (0,), (0,)))", lax::scatter(m(), ridx(), row_ups(), {{1}, {0}, {0}}));
  check("scatter_add(m, corners, ones((4, 2, 2)), ((1, 2), (), (0, 1)))",
        lax::scatter_add(m(), corners(), jnp::ones<float>({4, 2, 2}), {{1, 2}, {}, {0, 1}}));
  check("scatter_add(t, bidx, ones((2, 3)), ((1,), (2,), (2,), (0,), (0,)))",
        lax::scatter_add(t(), bidx(), jnp::ones<float>({2, 3}), {{1}, {2}, {2}, {0}, {0}}));
  auto const twice_plus_one = [](Array<float> const& x) { return Array<float>(x * 2.0f + 1.0f); };
  check("scatter_apply(z3, sidx, x * 2 + 1, ((), (0,), (0,)), update_shape=(4,))",
        lax::scatter_apply(z3(), sidx(), twice_plus_one, scalars, {4}));
  check("grad scatter(m, ridx, row_ups, ((1,), (0,), (0,)))",
        sin_grad([](Array<float> const& a) { return lax::scatter(a, ridx(), row_ups(), {{1}, {0}, {0}}); }, m()));
  check("grad updates scatter(z3, sidx, ups, ((), (0,), (0,)))",
        sin_grad([](Array<float> const& u) { return lax::scatter(z3(), sidx(), u, scalars); }, ups()));
  check("grad updates scatter_max(z3, sidx, ups, ((), (0,), (0,)))",
        sin_grad([](Array<float> const& u) { return lax::scatter_max(z3(), sidx(), u, scalars); }, ups()));
  check("grad scatter_max(z3, sidx, ups, ((), (0,), (0,)))",
        sin_grad([](Array<float> const& a) { return lax::scatter_max(a, sidx(), ups(), scalars); }, z3()));
}

TEST_CASE("lax gather and scatters: derivatives, batching, jit", "[lax][gather][scatter][grad][vmap][jit]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  auto const idx = jnp::array<std::int32_t>({{2, 0}, {0, 3}, {1, 1}});
  GatherDimensionNumbers const g({1}, {0}, {0, 1});
  ScatterDimensionNumbers const s({1}, {0}, {0, 1});
  auto const f = [&](Array<double> const& x, Array<double> const& u) {
    auto const read = lax::gather(x, idx, g, {1, 2}, false, false, "fill", 0.0);
    return Array<double>(jnp::sin(lax::scatter_add(x, idx, Array<double>(u * read), s)) +
                         lax::scatter(x, idx, u, s, false, true) + lax::scatter_mul(x, idx, u, s, false, true) +
                         lax::scatter_max(x, idx, Array<double>(u * 3.0), s));
  };
  auto const x = smooth({3, 5}), u = smooth({3, 2}, 0.53, 0.9);
  REQUIRE_NOTHROW(check_grads(f, std::tuple{x, u}, 2));
  REQUIRE_NOTHROW(check_batching_rule(f, jaxcc::in_axes(1, 0), smooth({3, 2, 5}), smooth({2, 3, 2}, 0.53, 0.9)));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, x, u));
  // Mapped indices too.
  auto const by_index = [&](Array<double> const& x2, Array<std::int32_t> const& i) {
    return lax::scatter_add(lax::gather(x2, i, g, {1, 2}), i, jnp::ones<double>({3, 2}), s);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(by_index, jaxcc::in_axes(0, 0), smooth({2, 3, 5}),
                                             jnp::stack({idx, Array<std::int32_t>(jnp::flip(idx, 0))})));
  // A product at repeated positions has JAX's error for a derivative.
  CHECK(message_of([&] {
          jaxcc::grad([&](Array<double> const& a) { return jnp::sum(lax::scatter_mul(a, sidx(), smooth({4}), scalars)); })(
              smooth({3}));
        }) == "scatter_mul gradients are only implemented if `unique_indices=True`");
}

TEST_CASE("lax gather and scatters: JAX's errors", "[lax][gather][scatter][errors]") {
  auto const x = jnp::ones<float>({3, 4});
  auto const i = jnp::array<std::int32_t>({{2}, {0}});
  CHECK(message_of([&] { lax::gather(x, i, by_rows, {2, 4}); }) ==
        "Gather op can only collapse slice dims with bound 1, but bound is 2 for index 0 at position 0.");
  CHECK(message_of([&] { lax::gather(x, i, {{1}, {0}, {0, 1}}, {1, 4}); }) ==
        "Gather op has 2 elements in start_index_map and the bound of dimension index_vector_dim=1 of indices is 1. "
        "These two numbers must be equal.");
  CHECK(message_of([&] { lax::gather(x, i, by_rows, {1, 5}); }) ==
        "Slice size at index 1 in gather op is out of range, must be within [0, 4 + 1), got 5.");
  CHECK(message_of([&] { lax::gather(x, i, by_rows, {1, 4}, false, false, "bad"); }) == "Unknown gather mode \"bad\"");
  CHECK(message_of([&] { lax::gather(x, i, {{1}, {1, 0}, {0}}, {1, 1}); }) ==
        "collapsed_slice_dims in gather op must be sorted; got (1, 0)");
  ScatterDimensionNumbers const rows_dn({1}, {0}, {0});
  CHECK(message_of([&] { lax::scatter_add(x, i, jnp::ones<float>({2, 5}), rows_dn); }) ==
        "Bounds of the window dimensions of updates must not exceed the bounds of the corresponding dimensions of "
        "operand. For dimension 1, updates bound is 5, operand bound is 4.");
  CHECK(message_of([&] { lax::scatter_add(x, i, jnp::ones<float>({3, 4}), rows_dn); }) ==
        "Bounds of the scatter dimensions of updates must be the same as the bounds of the corresponding dimensions "
        "of scatter indices. For scatter dimension 0, updates bound is 3, indices bound is 2.");
  CHECK(message_of([&] { lax::scatter_add(x, i, jnp::ones<float>({2}), rows_dn); }) ==
        "Updates tensor must be of rank 2; got 1.");
  CHECK(message_of([&] { lax::scatter(x, i, jnp::ones<float>({2, 4}), {{1}, {}, {0}}); }) ==
        "Scatter op has window of size 1; doesn't match operand of rank 2.");
}

}  // namespace test_lax_gather_scatter
