// jnp::cumsum, cumprod, cummax, cummin and their lax forms with `reverse`
// (numpy/cumulative.hpp, primitives/cumulative.hpp). Values and gradients
// are JAX's (tests/golden/sorting_cases.py; the inputs hold NaN, -0.0, ties
// and a zero inside cumprod's products); derivatives are also checked
// against finite differences to second order, vmap against a loop, jit
// against eager, and a large scan against a plain loop. lax::associative_scan
// against the cumulative ops, and with non-commutative functions.
// cumulative_sum and cumulative_prod against tests/golden/statistics_cases.py.
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "sorting_golden.hpp"
#include "statistics_golden.hpp"
#include "support.hpp"

namespace test_cumulative {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
namespace golden = jaxcc_test::sorting_golden;
using jaxcc::Array;
using jaxcc_test::message_of;

namespace {

/// jnp's `name` of x along `axis` ("none": flattened), or lax's from the end.
template <class T>
auto cumulative(std::string const& name, Array<T> const& x, std::string const& axis, bool reverse = false) {
  if (reverse) {
    auto const a = std::stoll(axis);
    if (name == "cumsum") return lax::cumsum(x, a, true);
    if (name == "cumprod") return lax::cumprod(x, a, true);
    if (name == "cummax") return lax::cummax(x, a, true);
    return lax::cummin(x, a, true);
  }
  if (golden::is_none(axis)) {
    if (name == "cumsum") return jnp::cumsum(x);
    if (name == "cumprod") return jnp::cumprod(x);
    if (name == "cummax") return jnp::cummax(x);
    return jnp::cummin(x);
  }
  auto const a = std::stoll(axis);
  if (name == "cumsum") return jnp::cumsum(x, a);
  if (name == "cumprod") return jnp::cumprod(x, a);
  if (name == "cummax") return jnp::cummax(x, a);
  return jnp::cummin(x, a);
}

/// The op a golden call names ("cumsum" or "cumsum_reverse") and whether it runs from the end.
std::pair<std::string, bool> op_of(std::string const& field) {
  auto const at = field.find("_reverse");
  return {field.substr(0, at), at != std::string::npos};
}

}  // namespace

TEST_CASE("cumulative reductions match JAX", "[cumulative]") {
  for (std::string const prefix : {"cumsum", "cumprod", "cummax", "cummin"}) {
    auto const cases = golden::cases(prefix);
    REQUIRE(cases.size() >= 15);  // 5 inputs x 3 axes, and reversed on the 2-d ones
    for (auto const& c : cases) {
      auto const f = c.fields();
      auto const [name, reverse] = op_of(f[0]);
      if (c.input == "i") golden::check(c, cumulative(name, golden::input<std::int32_t>(c.input), f[1], reverse));
      else golden::check(c, cumulative(name, golden::input<float>(c.input), f[1], reverse));
    }
  }
}

TEST_CASE("cumulative reductions: gradients match JAX's, zeros and ties included", "[cumulative][grad]") {
  std::size_t checked = 0;
  for (auto const& c : golden::cases("grad:cum")) {
    auto const f = c.fields();
    auto const op = op_of(f[1]);
    auto const name = op.first;  // not a structured binding: clang 14 cannot capture one
    bool const reverse = op.second;
    auto const axis = f[2];
    auto const x = golden::input<float>(c.input);
    auto const w = golden::weights(x.shape());
    auto const loss = [&](Array<float> const& a) { return jnp::sum(cumulative(name, a, axis, reverse) * w); };
    golden::check(c, jaxcc::grad(loss)(x), 1e-5);
    ++checked;
  }
  CHECK(checked == 3 * 4 * 3);
}

TEST_CASE("cumulative reductions: derivatives to second order, vmap, jit", "[cumulative][grad][vmap][jit]") {
  // Distinct values, one of them zero (cumprod), none tied (cummax).
  auto const x = jnp::array({{0.7, -1.3, 0.0, 2.1}, {1.9, 0.4, -0.8, 1.2}, {-0.6, 2.4, 1.1, -2.2}});
  for (std::string const name : {"cumsum", "cumprod", "cummax", "cummin"}) {
    INFO(name);
    for (bool const reverse : {false, true}) {
      auto const f = [&](Array<double> const& a) { return cumulative(name, a, "1", reverse); };
      REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{x}, 2));
      REQUIRE_NOTHROW(jaxcc::testing::check_vmap(f, jaxcc::in_axes(0), jnp::stack({x, 2.0 * x})));
      REQUIRE_NOTHROW(jaxcc::testing::check_jit(jaxcc::grad([&](Array<double> const& a) { return jnp::sum(jnp::sin(f(a))); }), x));
    }
    // vmap over the scanned axis's neighbour: the scan axis steps over the mapped one.
    auto const g = [&](Array<double> const& a) { return cumulative(name, a, "0"); };
    REQUIRE_NOTHROW(jaxcc::testing::check_vmap(g, jaxcc::in_axes(1), x));
  }
}

TEST_CASE("cumulative reductions under sharded jit", "[cumulative][partition]") {
  using jaxcc::NamedSharding;
  using jaxcc::P;
  auto const mesh = jaxcc_test::mesh_of({2}, {"x"});
  auto const x = jaxcc_test::smooth({4, 6});
  // Scans along the unsplit axis run where the rows are and stay split;
  // along the split axis the rows are gathered first.
  auto const rows = jaxcc::device_put(x, NamedSharding(mesh, P("x")));
  auto const sums = jaxcc::jit([](Array<double> const& a) { return jnp::cumsum(a, 1); })(rows);
  CHECK(sums.sharding() == NamedSharding(mesh, P("x")));
  REQUIRE_THAT(sums, jaxcc::testing::AllClose(jnp::cumsum(x, 1), 1e-12, 1e-12));
  auto const maxima = jaxcc::jit([](Array<double> const& a) { return lax::cummax(a, 1, true); })(rows);
  CHECK(maxima.sharding() == NamedSharding(mesh, P("x")));
  REQUIRE_THAT(maxima, jaxcc::testing::AllClose(lax::cummax(x, 1, true), 0, 0));
  REQUIRE_THAT(jaxcc::jit([](Array<double> const& a) { return jnp::cumprod(a, 0); })(rows),
               jaxcc::testing::AllClose(jnp::cumprod(x, 0), 1e-12, 1e-12));
}

TEST_CASE("cumulative reductions: dtypes, wrapping and a large scan", "[cumulative]") {
  // bool counts as int32, as JAX promotes it.
  auto const flags = jnp::array({true, false, true, true});
  Array<std::int32_t> const counts = jnp::cumsum(flags);
  CHECK(counts.to_vector() == std::vector<std::int32_t>{1, 1, 2, 3});
  // int32 sums wrap, as XLA's do.
  auto const big = jnp::array({std::numeric_limits<std::int32_t>::max(), 1});
  CHECK(jnp::cumsum(big).to_vector() ==
        std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min()});
  CHECK(jnp::cummax(jnp::array({-3, -7, 2, -1})).to_vector() == std::vector<std::int32_t>{-3, -3, 2, 2});

  // Along the first axis of a 300 x 257 strided view, against a plain loop.
  auto const base = jaxcc_test::smooth({257, 300});
  auto const x = base.T();
  auto const y = jnp::cumsum(x, 0);
  auto const xs = x.to_vector(), ys = y.to_vector();
  std::vector<double> expected(xs.size());
  for (std::size_t j = 0; j < 257; ++j) {
    double acc = 0;
    for (std::size_t i = 0; i < 300; ++i) expected[i * 257 + j] = acc += xs[i * 257 + j];
  }
  CHECK(ys == expected);
}

TEST_CASE("associative_scan: the scans of any associative function, forward and reversed", "[cumulative]") {
  auto const x = jnp::array({{0.7, -1.3, 0.2, 2.1, 0.5}, {1.9, 0.4, -0.8, 1.2, -2.0}});
  auto const add = [](auto const& a, auto const& b) { return a + b; };
  auto const max = [](auto const& a, auto const& b) { return jnp::maximum(a, b); };
  // Sums in a tree, not in order: equal to cumsum up to rounding.
  CHECK_THAT(lax::associative_scan(add, x, false, 1), jaxcc::testing::AllClose(lax::cumsum(x, 1), 1e-15));
  CHECK(jaxcc_test::mismatch(lax::associative_scan(max, x, true, -1), lax::cummax(x, 1, true)) == "");
  // Not commutative: "keep the later" scans to x itself; "keep the earlier" to the first element
  // (with reverse, the last), as JAX's docstring spells f(f(z, y), x).
  auto const later = [](auto const&, auto const& b) { return b; };
  auto const earlier = [](auto const& a, auto const&) { return a; };
  CHECK(jaxcc_test::mismatch(lax::associative_scan(later, x, false, 1), x) == "");
  CHECK(jaxcc_test::mismatch(lax::associative_scan(earlier, x, false, 1),
                             jnp::array({{0.7, 0.7, 0.7, 0.7, 0.7}, {1.9, 1.9, 1.9, 1.9, 1.9}})) == "");
  CHECK(jaxcc_test::mismatch(lax::associative_scan(earlier, x, true, 1),
                             jnp::array({{0.5, 0.5, 0.5, 0.5, 0.5}, {-2.0, -2.0, -2.0, -2.0, -2.0}})) == "");
  CHECK_THAT(lax::associative_scan(add, x), jaxcc::testing::AllClose(lax::cumsum(x, 0), 1e-15));
  CHECK(message_of([&] { lax::associative_scan(add, x, false, 2); }) ==
        "associative_scan: axis 2 is out of bounds for array of dimension 2");
}

TEST_CASE("cumulative reductions: errors", "[cumulative][errors]") {
  CHECK(message_of([] { lax::cumsum(jnp::array({true, false})); }) ==
        "cumsum does not accept dtype bool. Accepted dtypes are subtypes of number.");
  CHECK(message_of([] { lax::cummax(jnp::ones<float>({2, 3}), 2); }) ==
        "axis 2 is out of bounds for array of shape (2, 3)");
  CHECK(message_of([] { jnp::cumprod(jnp::ones<float>({2, 3}), -3); }) ==
        "cumprod: axis -3 is out of bounds for array of dimension 2");
}

TEST_CASE("cumulative_sum and cumulative_prod match JAX", "[cumulative]") {
  namespace sg = jaxcc_test::statistics_golden;
  using sg::results;
  sg::check({
      {"cumulative_sum(a, axis=1)", [] { return results(jnp::cumulative_sum(sg::a(), 1)); }},
      {"cumulative_sum(v, include_initial=True)",
       [] { return results(jnp::cumulative_sum(sg::v(), jaxcc::none, true)); }},
      {"cumulative_sum(i.astype(jnp.int8), axis=0, include_initial=True)",
       [] { return results(jnp::cumulative_sum(sg::i().astype<std::int8_t>(), 0, true)); }},
      {"cumulative_prod(a, axis=0, include_initial=True)",
       [] { return results(jnp::cumulative_prod(sg::a(), 0, true)); }},
      {"cumulative_prod(i > 0, axis=1)", [] { return results(jnp::cumulative_prod(sg::i() > 0, 1)); }},
      {"grad:cumulative_prod(a, axis=0, include_initial=True)",
       [] {
         return results(sg::weighted_grad([](Array<float> const& x) { return jnp::cumulative_prod(x, 0, true); }, sg::a()));
       }},
  });
  auto const f = [](Array<double> const& x) { return jnp::cumulative_sum(x, -1, true); };
  auto const x = jaxcc_test::smooth({3, 4});
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{x}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(1), x));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges(f, x));
  CHECK(message_of([] { jnp::cumulative_sum(jnp::array(1.0f)); }) ==
        "cumulative_sum: the input must be non-scalar to take a cumulative sum, however a scalar value or scalar array "
        "was given.");
  CHECK(message_of([] { jnp::cumulative_prod(jnp::ones<float>({2, 3})); }) ==
        "cumulative_prod: the input array has rank 2, however axis was not set to an explicit value. The axis "
        "argument is only optional for one-dimensional arrays.");
}

}  // namespace test_cumulative
