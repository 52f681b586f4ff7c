// nn::standardize (nn/normalization.hpp): JAX's values and gradients with
// both variance algorithms, along one axis, another, all, with a given mean
// and variance, over the elements `where` picks
// (tests/golden/nn_more_cases.py); check_grads to second order,
// batching with the derivatives, jit, edges and errors.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "support.hpp"

namespace test_nn_normalization {

namespace jnp = jaxcc::numpy;
namespace nn = jaxcc::nn;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc::testing::check_grads;
using jaxcc_test::message_of;

namespace {

[[maybe_unused]] constexpr double inf = std::numeric_limits<double>::infinity();
[[maybe_unused]] constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct StandardizeCase {
  std::string label;
  int axis;  // 99: none
  double epsilon;
  std::string algorithm;
  std::vector<std::int64_t> mean_shape;
  std::vector<double> mean;
  std::vector<std::int64_t> variance_shape;
  std::vector<double> variance;
  std::vector<std::int64_t> where_shape;
  std::vector<double> where;
  std::vector<std::int64_t> x_shape;
  std::vector<double> x, w, values, dx;
};

std::vector<StandardizeCase> const& cases() {
  static std::vector<StandardizeCase> const all = {
#define JAXCC_GOLDEN_NN_STANDARDIZE
#include "golden/nn_more_cases.inc"
#undef JAXCC_GOLDEN_NN_STANDARDIZE
  };
  return all;
}

Array<float> floats(std::vector<double> const& v, std::vector<std::int64_t> const& shape) {
  return jnp::array<float>(std::vector<float>(v.begin(), v.end()), Shape(shape.begin(), shape.end()));
}

std::optional<Array<float>> given(std::vector<double> const& v, std::vector<std::int64_t> const& shape) {
  if (v.empty()) return std::nullopt;
  return floats(v, shape);
}

}  // namespace

TEST_CASE("standardize: JAX's values and gradients", "[nn][golden]") {
  int checked = 0;
  for (auto const& c : cases()) {
    INFO(c.label);
    auto const x = floats(c.x, c.x_shape);
    auto const mean = given(c.mean, c.mean_shape);
    auto const variance = given(c.variance, c.variance_shape);
    std::optional<Array<bool>> where;
    if (!c.where.empty()) where = floats(c.where, c.where_shape) != 0.f;
    jaxcc::detail::AxisArg const axis = c.axis == 99 ? jaxcc::detail::AxisArg(jaxcc::none) : c.axis;
    auto f = [&](Array<float> const& a) { return nn::standardize(a, axis, mean, variance, c.epsilon, where, c.algorithm); };
    auto const out = f(x);
    // x - mean cancels, and the sums run in another order than XLA's: each
    // element within 1e-5 of the largest one (values and gradient alike).
    auto const close = [](Array<float> const& got, std::vector<double> const& want) {
      double largest = 0;
      for (double v : want) largest = std::max(largest, std::abs(v));
      auto const g = jaxcc_test::as_doubles(got);
      REQUIRE(g.size() == want.size());
      for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == Catch::Approx(want[i]).margin(1e-5 * largest));
    };
    close(out, c.values);
    auto const w = floats(c.w, c.x_shape);
    close(jaxcc::grad([&](Array<float> const& a) { return jnp::sum(w * f(a)); })(x), c.dx);
    CHECK(jaxcc_test::mismatch(jaxcc::jit(f)(x), out) == "");
    ++checked;
  }
  CHECK(checked == 9);
}

TEST_CASE("standardize: check_grads, batching, dtypes, edges and errors", "[nn][grad][vmap]") {
  Array<double> const x = jaxcc_test::smooth({3, 4}) * 2.0 + 0.5;
  auto fast = [](Array<double> const& a) { return nn::standardize(a); };
  auto stable = [](Array<double> const& a) { return nn::standardize(a, 0, std::nullopt, std::nullopt, 1e-5, std::nullopt, "stable"); };
  auto all = [](Array<double> const& a) { return nn::standardize(a, jaxcc::none, std::nullopt, std::nullopt, 0.1); };
  auto with_stats = [](Array<double> const& a, Array<double> const& m, Array<double> const& v) {
    return nn::standardize(a, -1, m, v);
  };
  auto masked = [](Array<double> const& a) {
    return nn::standardize(a, -1, std::nullopt, std::nullopt, 1e-5, jnp::array<bool>({true, false, true, true}), "stable");
  };
  CHECK_NOTHROW(check_grads(masked, std::tuple{x}, 2));
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(masked, jaxcc::in_axes(0), x));
  Array<double> const m = jaxcc_test::smooth({3, 1}, 0.8);
  Array<double> const v = jaxcc_test::smooth({1, 4}, 0.6) + 1.5;
  CHECK_NOTHROW(check_grads(fast, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(stable, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(all, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(with_stats, std::tuple{x, m, v}, 2));
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(fast, jaxcc::in_axes(0), x));
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(fast, jaxcc::in_axes(1), x));
  auto stable_last = [](Array<double> const& a) { return nn::standardize(a, -1, std::nullopt, std::nullopt, 1e-5, std::nullopt, "stable"); };
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(stable_last, jaxcc::in_axes(1), x));
  CHECK_NOTHROW(jaxcc::testing::check_jit(stable, x));
  CHECK_NOTHROW(jaxcc::testing::check_edges(fast, x));
  // A constant row: variance 0 (the fast one clipped at 0, not below), so
  // the result is 0 / sqrt(epsilon) = 0.
  auto const flat = nn::standardize(jnp::full<float>(Shape{2, 3}, 1e4f));
  CHECK(flat.to_vector() == std::vector<float>(6, 0.f));
  // Integers become float32; double stays double.
  STATIC_REQUIRE(std::is_same_v<decltype(nn::standardize(jnp::array<std::int32_t>({1, 2}))), Array<float>>);
  STATIC_REQUIRE(std::is_same_v<decltype(nn::standardize(jnp::array<double>({1.0, 2.0}))), Array<double>>);
  auto const ints = nn::standardize(jnp::array<std::int32_t>({1, 3}), -1, std::nullopt, std::nullopt, 0.0);
  CHECK(ints.to_vector() == std::vector<float>{-1.f, 1.f});
  CHECK(message_of([&] { (void)nn::standardize(x, 2); }) == "standardize: axis 2 is out of bounds for array of dimension 2");
  CHECK(message_of([&] { (void)nn::standardize(x, -1, std::nullopt, std::nullopt, 1e-5, std::nullopt, "exact"); }) ==
        "standardize: unknown algorithm 'exact'; expected 'fast' or 'stable'");
}

}  // namespace test_nn_normalization
