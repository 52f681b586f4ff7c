// The test helpers themselves (testing/allclose.hpp, testing/check.hpp):
// matching computations pass; a jit-only difference, a wrong batching rule
// and a wrong gradient are each caught, with a message naming the output
// leaf and the element; NaN handling and shape mismatches.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include <cmath>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "support.hpp"

namespace test_check {

namespace jnp = jaxcc::numpy;
namespace testing = jaxcc::testing;
using jaxcc::Array;
using jaxcc::Shape;

TEST_CASE("compare names the worst element by its index, values and difference", "[testing][allclose]") {
  auto const expected = jnp::array<double>({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  auto const actual = jnp::array<double>({{1.0, 2.1, 3.0}, {4.0, 5.0, 6.5}});
  auto const report = testing::compare(actual, expected, 1e-5, 1e-8);
  REQUIRE_FALSE(report.close);
  // |6.5 - 6| = 0.5 misses by more than |2.1 - 2| = 0.1: (1, 2) is the worst of the two.
  CHECK(report.why.starts_with("2 of 6 elements differ; the worst, at index (1, 2): 6.5 vs 6 (difference 0.5"));
  CHECK(testing::compare(actual, expected, 0.06, 0.0).why.starts_with("1 of 6 elements differ; the worst, at index (1, 2)"));
  CHECK(testing::compare(expected, expected).close);
  CHECK(testing::compare(jnp::zeros<double>({2, 3}), jnp::zeros<double>({3, 2})).why == "shapes differ: (2, 3) vs (3, 2)");
  // NaN equals NaN only when asked; an infinity only itself.
  auto const nan = jnp::array<double>({1.0, std::nan("")});
  CHECK_FALSE(testing::allclose(nan, nan));
  CHECK(testing::allclose(nan, nan, 1e-5, 1e-8, true));
  CHECK_FALSE(testing::allclose(jnp::array<double>({INFINITY}), jnp::array<double>({-INFINITY})));
}

TEST_CASE("default tolerances are JAX's test tolerances per dtype", "[testing]") {
  CHECK(testing::default_tolerance(jaxcc::DType::float32) == 1e-6);
  CHECK(testing::default_tolerance(jaxcc::DType::float64) == 1e-15);
  CHECK(testing::default_tolerance(jaxcc::DType::int32) == 0);
}

TEST_CASE("jit_matches: jit against eager, traced and cached", "[testing][jit]") {
  auto const x = jnp::linspace<double>(-1.0, 1.0, 5);
  auto const f = [](Array<double> const& v) { return std::pair{Array<double>(jnp::sin(v) * 2.0), jnp::sum(v * v)}; };
  auto const passed = testing::jit_matches(f, x);
  CHECK(passed);
  CHECK(passed.message.empty());
  REQUIRE_NOTHROW(testing::check_jit(f, x));

  // A function whose value depends on how often it ran: traced once by jit
  // (its second run), it bakes in 2 where eager f used 1.
  int runs = 0;
  auto const impure = [&runs](Array<double> const& v) { return Array<double>(v * static_cast<double>(++runs)); };
  auto const failed = testing::jit_matches(impure, x);
  REQUIRE_FALSE(failed);
  CHECK(failed.message.starts_with("check_jit: jit(f), traced on its first call, differs from f at output leaf 0: "
                                   "4 of 5 elements differ; the worst, at index (0,)"));
  runs = 0;
  REQUIRE_THROWS_AS(testing::check_jit(impure, x), testing::CheckError);
}

/// Σ over the last axis of a (rows, n) array; its batching rule ignores
/// where the mapped axis is, which is right only when it is axis 0.
struct row_sum_p {
  static constexpr std::string_view name = "row_sum";
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };
  static Shape shape_rule(Params const&, Array<float> const& x) { return Shape{x.shape()[0]}; }
  static Array<float> impl(Params const&, Shape const&, Array<float> const& x) { return jnp::sum(x, -1); }
  static std::pair<Array<float>, jaxcc::graph::BatchDim> batch(Params const&, jaxcc::graph::AxisData const&,
                                                              std::span<jaxcc::graph::BatchDim const>,
                                                              Array<float> const& x) {
    return {jnp::sum(x, -1), 0};
  }
};
Array<float> row_sum(Array<float> const& x) { return jaxcc::detail::bind<row_sum_p>({}, x); }

TEST_CASE("vmap_matches: vmap against a loop of f, a wrong batching rule caught", "[testing][vmap]") {
  auto const xs = jnp::reshape(jnp::arange<float>(0, 24), {2, 3, 4});
  auto const f = [](Array<float> const& x, Array<float> const& s) { return Array<float>(jnp::tanh(x) * s); };
  CHECK(testing::vmap_matches(f, jaxcc::in_axes(0, jaxcc::none), xs, jnp::array(0.5f)));
  CHECK(testing::vmap_matches(f, jaxcc::in_axes(-1, jaxcc::none), xs, jnp::array(0.5f)));
  REQUIRE_NOTHROW(testing::check_vmap(f, jaxcc::in_axes(1, jaxcc::none), xs, jnp::array(0.5f)));

  // Mapped along axis 0, the rule's assumption holds.
  CHECK(testing::vmap_matches(row_sum, jaxcc::in_axes(0), xs));
  // Mapped along axis 2, it sums over the examples instead of each row.
  auto const wrong = testing::vmap_matches(row_sum, jaxcc::in_axes(2), xs);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.message.starts_with("check_vmap: vmap(f) differs from f at output leaf 0: shapes differ: (2, 3) vs (4, 2)"));
  REQUIRE_THROWS_AS(testing::check_vmap(row_sum, jaxcc::in_axes(2), xs), testing::CheckError);
  // Nothing mapped: nothing to loop over.
  CHECK(testing::vmap_matches(row_sum, jaxcc::in_axes(jaxcc::none), xs).message == "check_vmap: no argument is mapped");
}

TEST_CASE("grads_match: a wrong custom gradient is caught", "[testing][grad]") {
  auto const x = jnp::array<double>({0.3, -1.2, 2.0});
  auto const good = [](Array<double> const& v) { return jnp::sum(jnp::sin(v) * v); };
  CHECK(testing::grads_match(good, std::tuple{x}, 2));
  // d/dx sin(x) is cos(x); this rule says -cos(x).
  auto const bad = jaxcc::custom_vjp([](Array<double> v) { return Array<double>(jnp::sin(v)); },
                                     [](Array<double> v) { return std::pair{Array<double>(jnp::sin(v)), v}; },
                                     [](Array<double> const& v, Array<double> const& g) {
                                       return std::tuple{Array<double>(-g * jnp::cos(v))};
                                     });
  auto const failed = testing::grads_match([&](Array<double> const& v) { return jnp::sum(bad(v)); }, std::tuple{x}, 1,
                                           {.fwd = false});
  REQUIRE_FALSE(failed);
  CHECK(failed.message.starts_with("check_grads: VJP of f disagrees with finite differences"));
}

}  // namespace test_check
