// jnp::sort, jnp::argsort, lax::top_k and jnp::searchsorted
// (numpy/sorting.hpp, primitives/sort.hpp, primitives/searchsorted.hpp).
// Values, positions and gradients are JAX's (tests/golden/sorting_cases.py;
// the inputs hold NaN, -0.0 and ties, so the order, its stability and
// descending order are JAX's exactly); derivatives are also checked against
// finite differences to second order, vmap against a loop, jit against
// eager, and a large sort against std::sort.
#include "catch.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "sorting_golden.hpp"
#include "support.hpp"

namespace test_sorting {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
namespace golden = jaxcc_test::sorting_golden;
using jaxcc::Array;
using jaxcc_test::message_of;

namespace {

/// The golden call `c` on its input as an array of T, checked.
template <class T>
void check_call(golden::Case const& c) {
  auto const x = golden::input<T>(c.input);
  auto const f = c.fields();
  if (f[0] == "sort" || f[0] == "argsort") {
    bool const descending = f[2] == "desc";
    if (f[0] == "sort") {
      golden::check(c, golden::is_none(f[1]) ? jnp::sort(x, jaxcc::none, descending)
                                             : jnp::sort(x, std::stoll(f[1]), descending));
    } else {
      golden::check(c, golden::is_none(f[1]) ? jnp::argsort(x, jaxcc::none, descending)
                                             : jnp::argsort(x, std::stoll(f[1]), descending));
    }
  } else if (f[0].starts_with("top_k")) {
    auto const [values, indices] = lax::top_k(x, std::stoll(f[1]), f[0].ends_with("axis0") ? 0 : -1);
    if (f[0].starts_with("top_k_values")) golden::check(c, values);
    else golden::check(c, indices);
  } else {
    auto const sorted = jnp::array({-3.0f, -0.0f, 1.0f, 1.0f, 2.0f, 2.0f, 2.0f, 5.0f, NAN});  // as the generator's
    golden::check(c, jnp::searchsorted(sorted, x, f[1]));
  }
}

}  // namespace

TEST_CASE("sort, argsort, top_k and searchsorted match JAX", "[sorting]") {
  std::size_t checked = 0;
  for (std::string const prefix : {"sort:", "argsort:", "top_k", "searchsorted:"})
    for (auto const& c : golden::cases(prefix)) {
      if (c.input == "i") check_call<std::int32_t>(c);
      else check_call<float>(c);
      ++checked;
    }
  CHECK(checked == 2 * 3 * 3 * 2 + 4 * 3 * 2 + 2 + 2 * 2);
}

TEST_CASE("sort and top_k: gradients match JAX's", "[sorting][grad]") {
  std::size_t checked = 0;
  for (auto const& c : golden::cases("grad:sort:")) {
    auto const x = golden::input<float>(c.input);
    auto const axis = std::stoll(c.fields()[2]);
    auto const w = golden::weights(x.shape());
    golden::check(c, jaxcc::grad([&](Array<float> const& a) { return jnp::sum(jnp::sort(a, axis) * w); })(x));
    ++checked;
  }
  for (auto const& c : golden::cases("grad:top_k:")) {
    auto const x = golden::input<float>(c.input);
    auto shape = x.shape();
    shape.back() = 2;
    auto const w = golden::weights(shape);
    golden::check(c, jaxcc::grad([&](Array<float> const& a) { return jnp::sum(std::get<0>(lax::top_k(a, 2)) * w); })(x));
    ++checked;
  }
  CHECK(checked == 3 * 2 + 3);
}

TEST_CASE("sort and top_k: derivatives to second order, vmap, jit", "[sorting][grad][vmap][jit]") {
  auto const x = jnp::array({{0.7, -1.3, 0.1, 2.1}, {1.9, 0.4, -0.8, 1.2}, {-0.6, 2.4, 1.1, -2.2}});
  for (bool const descending : {false, true}) {
    auto const f = [&](Array<double> const& a) { return jnp::sort(a, 1, descending); };
    REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{x}, 2));
    auto const along_last = [&](Array<double> const& a) { return jnp::sort(a, -1, descending); };
    REQUIRE_NOTHROW(jaxcc::testing::check_vmap(along_last, jaxcc::in_axes(1), x));
    REQUIRE_NOTHROW(jaxcc::testing::check_vmap(along_last, jaxcc::in_axes(0), jnp::stack({x, -x})));
    auto const g = [&](Array<double> const& a) { return jnp::argsort(a, 0, descending); };
    REQUIRE_NOTHROW(jaxcc::testing::check_vmap(g, jaxcc::in_axes(1), x));
  }
  auto const top2 = [](Array<double> const& a) { return std::get<0>(lax::top_k(a, 2)); };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(top2, std::tuple{x}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(top2, jaxcc::in_axes(0), x));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap([](Array<double> const& a) { return std::get<1>(lax::top_k(a, 3)); },
                                             jaxcc::in_axes(1), x));
  auto const loss = [](Array<double> const& a) { return jnp::sum(jnp::sin(jnp::sort(a, 0)) * jnp::arange<double>(4)); };
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(jaxcc::grad(loss), x));
}

TEST_CASE("searchsorted: its int32 positions are constants under grad and jvp", "[sorting][grad]") {
  // f(a, x) = sum(x * pos(a, x) + a), with pos = searchsorted(a, x) (left):
  // 0.5 goes before 1 (position 0), 2.5 between 2 and 3 (position 2). The
  // positions are piecewise constant, so df/dx = pos and df/da = 1.
  auto const a = jnp::array({1.0f, 2.0f, 3.0f});
  auto const x = jnp::array({0.5f, 2.5f});
  auto const f = [](Array<float> const& sorted, Array<float> const& v) {
    return jnp::sum(v * jnp::searchsorted(sorted, v).astype<float>()) + jnp::sum(sorted);
  };
  auto const [da, dx] = jaxcc::grad(f, jaxcc::argnums<0, 1>)(a, x);
  CHECK(da.to_vector() == std::vector<float>{1.0f, 1.0f, 1.0f});
  CHECK(dx.to_vector() == std::vector<float>{0.0f, 2.0f});
  // Forward mode: the tangent along x = (1, 1) is pos · (1, 1) = 2; along a = (1, 1, 1) it is 3.
  auto const [value, tangent] = jaxcc::jvp(f, std::tuple{a, x}, std::tuple{jnp::ones<float>({3}), jnp::ones<float>({2})});
  CHECK(value.item() == 0.5f * 0.0f + 2.5f * 2.0f + 6.0f);
  CHECK(tangent.item() == 5.0f);
}

TEST_CASE("searchsorted: vmap over the sorted array, the values, or both", "[sorting][vmap]") {
  auto const sorted = jnp::array({{-1.0, 0.5, 0.5, 2.0, 3.0}, {0.0, 1.0, 1.0, 1.0, 4.0}});
  auto const values = jnp::array({{0.5, 1.0, -2.0}, {5.0, 1.0, 0.25}});
  auto const left = [](Array<double> const& a, Array<double> const& v) { return jnp::searchsorted(a, v); };
  auto const right = [](Array<double> const& a, Array<double> const& v) { return jnp::searchsorted(a, v, "right"); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(left, jaxcc::in_axes(0, 0), sorted, values));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(right, jaxcc::in_axes(0, 1), sorted, values.T()));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(left, jaxcc::in_axes(0, jaxcc::none), sorted, values));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(right, jaxcc::in_axes(jaxcc::none, 0), jaxcc_test::example(sorted, 0, 1), values));
  // By hand: 1.0 goes before the ties in [0, 1, 1, 1, 4] on the left, after them on the right.
  CHECK(jnp::searchsorted(jaxcc_test::example(sorted, 0, 1), 1.0).to_vector() == std::vector<std::int32_t>{1});
  CHECK(jnp::searchsorted(jaxcc_test::example(sorted, 0, 1), 1.0, "right").to_vector() == std::vector<std::int32_t>{4});
}

TEST_CASE("sort, argsort, top_k and searchsorted under sharded jit", "[sorting][partition]") {
  using jaxcc::NamedSharding;
  using jaxcc::P;
  auto const mesh = jaxcc_test::mesh_of({2}, {"x"});
  // Rounded to quarters: ties in every row.
  Array<double> const x = jnp::round(jaxcc_test::smooth({6, 8}) * 4.0) / 4.0;
  auto const rows = jaxcc::device_put(x, NamedSharding(mesh, P("x")));
  // Along the unsplit axis each device sorts its rows, and they stay split.
  auto const sorted = jaxcc::jit([](Array<double> const& a) { return jnp::sort(a, 1); })(rows);
  CHECK(sorted.sharding() == NamedSharding(mesh, P("x")));
  REQUIRE_THAT(sorted, jaxcc::testing::AllClose(jnp::sort(x, 1), 0, 0));
  auto const order = jaxcc::jit([](Array<double> const& a) { return jnp::argsort(a, 1, true); })(rows);
  CHECK(order.sharding() == NamedSharding(mesh, P("x")));
  CHECK(order.to_vector() == jnp::argsort(x, 1, true).to_vector());
  auto const top = jaxcc::jit([](Array<double> const& a) { return lax::top_k(a, 3); })(rows);
  CHECK(std::get<0>(top).to_vector() == std::get<0>(lax::top_k(x, 3)).to_vector());
  CHECK(std::get<1>(top).to_vector() == std::get<1>(lax::top_k(x, 3)).to_vector());
  // Along the split axis: gathered whole first.
  CHECK(jaxcc::jit([](Array<double> const& a) { return jnp::argsort(a, 0); })(rows).to_vector() ==
        jnp::argsort(x, 0).to_vector());
  // searchsorted of each row's values in that row (batch dims split alike).
  auto const values = jaxcc_test::smooth({6, 3}, 0.91, 0.4);
  auto const search = jaxcc::jit(jaxcc::vmap([](Array<double> const& a, Array<double> const& v) {
    return jnp::searchsorted(a, v);
  }));
  auto const found = search(jaxcc::device_put(sorted, NamedSharding(mesh, P("x"))),
                            jaxcc::device_put(values, NamedSharding(mesh, P("x"))));
  CHECK(found.sharding() == NamedSharding(mesh, P("x")));
  CHECK(found.to_vector() == jaxcc::vmap([](Array<double> const& a, Array<double> const& v) {
                               return jnp::searchsorted(a, v);
                             })(jnp::sort(x, 1), values).to_vector());
}

TEST_CASE("sort: dtypes, strided input and a large sort against std::sort", "[sorting]") {
  CHECK(jnp::sort(jnp::array({true, false, true, false})).to_vector() == std::vector<bool>{false, false, true, true});
  CHECK(jnp::argsort(jnp::array({true, false, true, false})).to_vector() == std::vector<std::int32_t>{1, 3, 0, 2});
  auto const u = jnp::array({7u, 4294967295u, 0u});
  CHECK(jnp::sort(u).to_vector() == std::vector<std::uint32_t>{0u, 7u, 4294967295u});

  // 200 lanes of 700, along the first axis of a transposed view: enough
  // work to split over threads.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(-50, 50);  // many ties
  std::vector<double> data(700 * 200);
  for (auto& v : data) v = dist(rng) * 0.5;
  auto const x = jnp::array(data, {200, 700}).T();
  auto const sorted = jnp::sort(x, 0).to_vector();
  auto const order = jnp::argsort(x, 0).to_vector();
  bool sorted_ok = true, order_ok = true;
  for (std::size_t lane = 0; lane < 200; ++lane) {
    std::vector<double> expected(data.begin() + static_cast<std::ptrdiff_t>(lane * 700),
                                 data.begin() + static_cast<std::ptrdiff_t>(lane * 700 + 700));
    std::vector<std::int32_t> positions(700);
    for (std::int32_t i = 0; i < 700; ++i) positions[static_cast<std::size_t>(i)] = i;
    std::stable_sort(positions.begin(), positions.end(),
                     [&](std::int32_t a, std::int32_t b) { return expected[static_cast<std::size_t>(a)] < expected[static_cast<std::size_t>(b)]; });
    std::sort(expected.begin(), expected.end());
    for (std::size_t i = 0; i < 700; ++i) {
      sorted_ok = sorted_ok && sorted[i * 200 + lane] == expected[i];
      order_ok = order_ok && order[i * 200 + lane] == positions[i];
    }
  }
  CHECK(sorted_ok);
  CHECK(order_ok);
}

TEST_CASE("sorting: errors", "[sorting][errors]") {
  auto const x = jnp::ones<float>({2, 3});
  CHECK(message_of([&] { jnp::sort(x, 2); }) == "sort: axis 2 is out of bounds for array of dimension 2");
  CHECK(message_of([&] { jnp::argsort(x, -3); }) == "argsort: axis -3 is out of bounds for array of dimension 2");
  CHECK(message_of([&] { lax::top_k(x, 4); }) ==
        "k argument to top_k must be no larger than size along axis; got k=4 with shape=(2, 3) and axis=1");
  CHECK(message_of([&] { lax::top_k(x, -1); }) == "k argument to top_k must be nonnegative, got -1");
  CHECK(message_of([&] { lax::top_k(jnp::array(1.0f), 1); }) == "top_k operand must have >= 1 dimension, got ()");
  CHECK(message_of([&] { jnp::searchsorted(x, 1.0f); }) == "a should be 1-dimensional");
  CHECK(message_of([&] { jnp::searchsorted(jnp::ones<float>({3}), 1.0f, "middle"); }) ==
        "invalid argument side='middle', expected 'left' or 'right'");
  CHECK(message_of([&] { jnp::sort(jnp::array(1.0f)); }) == "sort: axis -1 is out of bounds for array of dimension 0");
  CHECK(message_of([&] { lax::top_k(x, 1, 2); }) == "axis argument out of range: axis=2 for operand.shape=(2, 3)");
  // The primitives' own checks, which the jnp functions' normalizing keeps from users.
  CHECK(message_of([&] { jaxcc::detail::bind<jaxcc::primitives::argsort_p>({2}, x); }) ==
        "argsort: axis 2 is out of bounds for operand shape (2, 3)");
  CHECK(message_of([&] {
          jaxcc::detail::bind<jaxcc::primitives::searchsorted_p>({false, 1}, x, jnp::ones<float>({3, 1}));
        }) == "searchsorted: batch dimensions of a (2, 3) and v (3, 1) differ");
}

}  // namespace test_sorting
