// jnp.histogramdd and histogram2d (numpy/histogram.hpp): counts and edges
// against JAX (tests/golden/histogram2d_cases.py), derivatives and
// batching in the weights, jit, and JAX's errors.
#define CATCH_CONFIG_ENABLE_ALL_STRINGMAKERS
#include "catch.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"

namespace test_histogram2d {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using Ranges = std::vector<std::pair<double, double>>;

struct Golden {
  std::string name;
  Shape shape;
  std::vector<double> counts;
  std::vector<std::vector<double>> edges;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const all = {
#include "golden/histogram2d_cases.inc"
  };
  return all;
}

// The generator's inputs.
Array<float> s() {
  return jnp::array(
      {{0.0f, 1.0f, 2.0f}, {2.0f, 3.0f, -1.0f}, {1.0f, 1.0f, 0.5f}, {0.5f, 2.5f, 2.0f}, {2.0f, 1.5f, 1.0f}});
}
Array<float> w() { return jnp::array({1.0f, 2.0f, 0.5f, 1.5f, 3.0f}); }
Array<std::int32_t> x() { return jnp::array({1, 2, 3, 0, 2, 5}); }
Array<float> y() { return jnp::array({1.0f, 2.0f, 3.0f, 0.5f, 2.0f, 4.0f}); }
Array<float> wxy() { return jnp::array({0.5f, 1.0f, 2.0f, 1.0f, 1.5f, 0.25f}); }

std::tuple<Array<float>, std::vector<Array<float>>> evaluate(std::string const& name) {
  using V = std::vector<std::int64_t>;
  if (name == "dd:3") return jnp::histogramdd(s(), 3);
  if (name == "dd:[2,3,4]:density") return jnp::histogramdd(s(), V{2, 3, 4}, std::nullopt, jaxcc::none, true);
  if (name == "dd:2:range:weights") return jnp::histogramdd(s(), 2, Ranges{{0, 2}, {1, 3}, {-1, 3}}, w());
  if (name == "dd:2:weights:density") return jnp::histogramdd(s(), 2, std::nullopt, w(), true);
  auto const as_dd = [](auto const& r) {
    return std::tuple{std::get<0>(r), std::vector<Array<float>>{std::get<1>(r), std::get<2>(r)}};
  };
  if (name == "2d:4") return as_dd(jnp::histogram2d(x(), y(), 4));
  if (name == "2d:[3,2]:range:weights")
    return as_dd(jnp::histogram2d(x(), y(), V{3, 2}, Ranges{{0, 6}, {0, 4}}, wxy()));
  std::vector<Array<float>> const edges{jnp::array({0.0f, 2.0f, 4.0f}), jnp::array({0.0f, 1.5f, 3.0f, 4.5f})};
  return as_dd(jnp::histogram2d(x(), y(), edges, std::nullopt, jaxcc::none, true));
}

TEST_CASE("histogramdd and histogram2d match JAX", "[histogram]") {
  REQUIRE(golden().size() == 7);
  for (auto const& g : golden()) {
    INFO(g.name);
    auto const [counts, edges] = evaluate(g.name);
    CHECK(counts.shape() == g.shape);
    CHECK(jaxcc_test::mismatches<float>(jaxcc_test::as_doubles(counts), g.counts, 2e-6) == "");
    REQUIRE(edges.size() == g.edges.size());
    for (std::size_t i = 0; i < edges.size(); ++i)
      CHECK(jaxcc_test::mismatches<float>(jaxcc_test::as_doubles(edges[i]), g.edges[i], 2e-6) == "");
  }
}

TEST_CASE("histogramdd: gradients and batching in the weights, jit", "[histogram][grad][vmap][jit]") {
  Array<double> const sample = jaxcc_test::smooth({6, 2}) * 3.0;
  auto const f = [sample](Array<double> const& weights) {
    return std::get<0>(jnp::histogramdd(sample, 3, std::nullopt, weights, true));
  };
  Array<double> const weights = jaxcc_test::smooth({6}) + 2.0;
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{weights}, 2));
  Array<double> const batch = jaxcc_test::smooth({3, 6}) + 2.0;
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0), batch));
  auto const g = [](Array<double> const& xs, Array<double> const& ys) {
    return std::get<0>(jnp::histogram2d(xs, ys, std::vector<std::int64_t>{2, 3}, Ranges{{-1, 1}, {-1, 1}}));
  };
  Array<double> const xs = jaxcc_test::smooth({3, 6}), ys = jaxcc_test::smooth({3, 6}, 0.5);
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(g, jaxcc::in_axes(0, 0), xs, ys));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(g, jaxcc_test::smooth({6}), jaxcc_test::smooth({6}, 0.5)));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges(f, weights));
}

TEST_CASE("histogramdd and histogram2d raise JAX's errors", "[histogram][errors]") {
  using jaxcc_test::message_of;
  CHECK(message_of([] { (void)jnp::histogramdd(s(), 2, std::nullopt, jnp::ones<float>(Shape{4})); }) ==
        "histogramdd: should have one weight for each sample.");
  CHECK(message_of([] { (void)jnp::histogramdd(s(), 2, Ranges{{0, 1}}); }) ==
        "histogramdd: for sample.shape=(5, 3), range must be a sequence of 3 pairs; got 1");
  CHECK(message_of([] { (void)jnp::histogramdd(s(), std::vector<std::int64_t>{2, 2}); }) ==
        "histogramdd: should be a bin for each dimension.");
  CHECK(message_of([] { (void)jnp::histogramdd(w(), 2); }) ==
        "histogramdd: sample must be 2-D, of shape (N, D); got shape (5,)");
  CHECK(message_of([] { (void)jnp::histogram2d(x(), w()); }).starts_with("histogram2d: x and y must be 1-D"));
}

}  // namespace test_histogram2d
