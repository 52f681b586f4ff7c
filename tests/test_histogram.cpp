// jnp::digitize, histogram_bin_edges, histogram (numpy/histogram.hpp):
// values, dtypes and the weights' gradient against JAX's
// (tests/golden/statistics_cases.py: a NaN, a value on an edge, decreasing
// bins, a range of width 0, density); jit and vmap; errors.
#include "catch.hpp"

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "statistics_golden.hpp"
#include "support.hpp"

namespace test_histogram {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::none;
using namespace jaxcc_test::statistics_golden;
using jaxcc_test::message_of;

TEST_CASE("binning matches JAX", "[histogram]") {
  auto const edges = jnp::array({-1.0f, 0.0f, 1.0f, 2.5f});
  check({
      {"digitize(v, jnp.array([-1.0, 0.0, 1.0, 2.5]))", [&] { return results(jnp::digitize(v(), edges)); }},
      {"digitize(v, jnp.array([-1.0, 0.0, 1.0, 2.5]), True)", [&] { return results(jnp::digitize(v(), edges, true)); }},
      {"digitize(i, jnp.array([4, 2, 0]))",
       [] { return results(jnp::digitize(i(), jnp::array<std::int32_t>({4, 2, 0}))); }},
      {"histogram_bin_edges(a, 4)", [] { return results(jnp::histogram_bin_edges(a(), 4)); }},
      {"histogram_bin_edges(i, 3, (1.0, 1.0))",
       [] { return results(jnp::histogram_bin_edges(i(), 3, std::pair{1.0, 1.0})); }},
      {"histogram(a, 7)", [] { return results(jnp::histogram(a(), 7)); }},
      {"histogram(a, 3, (-2.0, 2.0))", [] { return results(jnp::histogram(a(), 3, std::pair{-2.0, 2.0})); }},
      {"histogram(i, jnp.array([0, 1, 3, 5]), weights=i * 0.5)",
       [] {
         return results(jnp::histogram(i(), jnp::array<std::int32_t>({0, 1, 3, 5}), std::nullopt, i() * 0.5f));
       }},
      {"histogram(a, 4, density=True)", [] { return results(jnp::histogram(a(), 4, std::nullopt, none, true)); }},
      {"grad:histogram(a, 3, (-2.0, 2.0), weights=a * a)",
       [] {
         return results(weighted_grad(
             [](Array<float> const& x) { return std::get<0>(jnp::histogram(a(), 3, std::pair{-2.0, 2.0}, x * x)); },
             a()));
       }},
  });
}

TEST_CASE("binning: jit and vmap", "[histogram][jit][vmap]") {
  auto const hist = [](Array<float> const& x) { return jnp::histogram(x, 4); };
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(hist, a()));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(hist, jaxcc::in_axes(0), a()));
  auto const bins = [](Array<float> const& x, Array<float> const& e) { return jnp::digitize(x, e); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(bins, jaxcc::in_axes(0, jaxcc::none), a(), jnp::array({3.0f, 1.0f, 0.0f})));
  auto const weighted = [](Array<double> const& w) {
    return std::get<0>(jnp::histogram(jaxcc_test::smooth({3, 5}), jnp::array({-1.0, 0.0, 0.5, 1.0}), std::nullopt, w));
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(weighted, std::tuple{jaxcc_test::smooth({3, 5}, 0.5, 1.0)}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(weighted, jaxcc::in_axes(0),
                                                      jnp::stack({jaxcc_test::smooth({3, 5}), jaxcc_test::smooth({3, 5}, 0.3)})));
  CHECK(jnp::digitize(a(), jnp::zeros<float>(0)).to_vector() == std::vector<std::int32_t>(12, 0));
}

TEST_CASE("binning: errors", "[histogram][errors]") {
  CHECK(message_of([] { jnp::digitize(a(), a()); }) == "digitize: bins must be a 1-dimensional array; got shape (3, 4)");
  CHECK(message_of([] { jnp::histogram(a(), 3, std::nullopt, v()); }) ==
        "histogram: weights should have the same shape as a.");
  CHECK(message_of([] { jnp::histogram_bin_edges(a(), 0); }) ==
        "histogram_bin_edges: bins must be a positive integer, got 0");
}

}  // namespace test_histogram
