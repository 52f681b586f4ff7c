// jaxcc::random's one-dimensional samplers (random/univariate.hpp) against
// JAX's own draws (tests/golden/random_univariate_cases.py wrote them), their
// first two moments over many draws, their gradients in their parameters,
// and vmap, jit and JAX's errors.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_random_univariate {

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
namespace testing = jaxcc::testing;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::as_doubles;
using jaxcc_test::message_of;

struct Golden {
  std::string name;
  std::int64_t seed;
  std::vector<std::int64_t> shape;
  std::vector<double> values;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const cases = {
#include "golden/random_univariate_cases.inc"
  };
  return cases;
}


// The parameter arrays of random_univariate_cases.py.
Array<float> sigmas() { return jnp::array<float>({0.5f, 1.0f, 1.5f}); }
Array<float> bs() { return jnp::array<float>({1.0f, 2.0f, 3.0f, 4.0f}).reshape({1, 4}); }
Array<float> scales() { return jnp::array<float>({0.5f, 2.0f, 3.0f}); }
Array<float> means() { return jnp::array<float>({0.5f, 1.0f, 2.0f}); }
Array<float> ps() { return jnp::array<float>({0.1f, 0.5f, 0.9f}); }
Array<float> locs() { return jnp::array<float>({0.0f, 1.0f}); }
Array<float> tri_lefts() { return jnp::array<float>({-1.0f, 0.0f, 2.0f}); }
Array<float> tri_modes() { return jnp::array<float>({0.0f, 0.25f, 2.5f}); }
Array<float> tri_rights() { return jnp::array<float>({1.0f, 1.0f, 4.0f}); }

// The draw a case names, from our implementation.
std::vector<double> draw(Golden const& c) {
  auto const k = jr::key(static_cast<std::int32_t>(c.seed));
  Shape const shape(c.shape.begin(), c.shape.end());
  auto const& n = c.name;
  if (n == "laplace") return as_doubles(jr::laplace(k, shape));
  if (n == "cauchy") return as_doubles(jr::cauchy(k, shape));
  if (n == "logistic") return as_doubles(jr::logistic(k, shape));
  if (n == "maxwell") return as_doubles(jr::maxwell(k, shape));
  if (n == "rademacher") return as_doubles(jr::rademacher(k, shape));
  if (n == "rademacher_f32") return as_doubles(jr::rademacher<float>(k, shape));
  if (n == "lognormal") return as_doubles(jr::lognormal(k, 0.5, shape));
  if (n == "pareto") return as_doubles(jr::pareto(k, 2.5, shape));
  if (n == "rayleigh") return as_doubles(jr::rayleigh(k, 1.5, shape));
  if (n == "wald") return as_doubles(jr::wald(k, 2.0, shape));
  if (n == "weibull_min") return as_doubles(jr::weibull_min(k, 2.0, 1.5, shape));
  if (n == "double_sided_maxwell") return as_doubles(jr::double_sided_maxwell(k, 1.0, 2.0, shape));
  if (n == "geometric") return as_doubles(jr::geometric(k, 0.3, shape));
  if (n == "lognormal_default") return as_doubles(jr::lognormal(k));
  if (n == "lognormal_array") return as_doubles(jr::lognormal(k, sigmas()));
  if (n == "pareto_array") return as_doubles(jr::pareto(k, bs(), {2, 4}));
  if (n == "rayleigh_array") return as_doubles(jr::rayleigh(k, scales(), {4, 3}));
  if (n == "wald_array") return as_doubles(jr::wald(k, means()));
  if (n == "weibull_min_array") return as_doubles(jr::weibull_min(k, scales(), 0.5, {2, 3}));
  if (n == "double_sided_maxwell_array") return as_doubles(jr::double_sided_maxwell(k, locs(), 1.0, {3}));
  if (n == "double_sided_maxwell_array_noshape") return as_doubles(jr::double_sided_maxwell(k, locs(), 1.0));
  if (n == "geometric_array") return as_doubles(jr::geometric(k, ps(), {4, 3}));
  if (n == "triangular") return as_doubles(jr::triangular(k, -1.0, 0.5, 2.0, shape));
  if (n == "triangular_array") return as_doubles(jr::triangular(k, tri_lefts(), tri_modes(), tri_rights()));
  if (n == "triangular_array_shape") return as_doubles(jr::triangular(k, tri_lefts(), 0.5, 4.0, {2, 3}));
  if (n == "triangular_mode_left") return as_doubles(jr::triangular(k, 0.0, 0.0, 1.0, shape));
  if (n == "triangular_mode_right") return as_doubles(jr::triangular(k, 0.0, 1.0, 1.0, shape));
  if (n == "laplace_large") {
    auto const all = as_doubles(jr::laplace(k, {70001}));
    std::vector<double> every;
    for (std::size_t i = 0; i < all.size(); i += 997) every.push_back(all[i]);
    return every;
  }
  FAIL("no draw for golden case " << n);
  return {};
}

// What the case's result shape is, as jaxcc gives it.
Shape result_shape(Golden const& c) {
  if (c.name == "laplace_large") return Shape{static_cast<std::int64_t>(c.values.size())};
  return Shape(c.shape.begin(), c.shape.end());
}

TEST_CASE("random univariate: every sampler gives JAX's numbers for the same key", "[random][golden]") {
  REQUIRE(golden().size() > 100);
  for (auto const& c : golden()) {
    INFO(c.name << " seed " << c.seed << " shape " << result_shape(c));
    auto const got = draw(c);
    REQUIRE(got.size() == c.values.size());
    bool const exact = c.name.starts_with("rademacher") || c.name.starts_with("geometric");
    // float32 rounding of the functions applied to the same bits: XLA's and
    // ours differ by an ulp or two; tan near its pole magnifies that.
    double const rtol = c.name == "cauchy" ? 2e-5 : 4e-6;
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("flat index " << i);
      if (exact) CHECK(got[i] == c.values[i]);
      else CHECK(std::abs(got[i] - c.values[i]) <= rtol * std::max(1.0, std::abs(c.values[i])));
    }
  }
}

// The sample mean and mean square of a draw, each against its expected value
// within 5 standard errors (from the sample's own second and fourth moments).
void check_moments(std::vector<double> const& x, double mean, double mean_square) {
  double s1 = 0, s2 = 0, s4 = 0;
  for (double v : x) {
    s1 += v;
    s2 += v * v;
    s4 += v * v * v * v;
  }
  auto const n = static_cast<double>(x.size());
  s1 /= n;
  s2 /= n;
  s4 /= n;
  CHECK(std::abs(s1 - mean) <= 5 * std::sqrt((s2 - s1 * s1) / n));
  CHECK(std::abs(s2 - mean_square) <= 5 * std::sqrt((s4 - s2 * s2) / n));
}

// 10^6 draws each (2 * 10^5 at -O0: 10^6 take about 15 s in all there).
TEST_CASE("random univariate: many draws have the distributions' first two moments", "[random][moments]") {
  constexpr std::int64_t n = jaxcc_test::moment_draws(200000);
  auto const k = jr::key(2024);
  double const pi = 3.141592653589793;
  auto const draws = [&](auto const& a) { return as_doubles(a); };
  SECTION("laplace") { check_moments(draws(jr::laplace(k, {n})), 0, 2); }
  SECTION("logistic") { check_moments(draws(jr::logistic(k, {n})), 0, pi * pi / 3); }
  SECTION("lognormal") { check_moments(draws(jr::lognormal(k, 0.5, {n})), std::exp(0.125), std::exp(0.5)); }
  SECTION("pareto") { check_moments(draws(jr::pareto(k, 5.0, {n})), 5.0 / 4, 5.0 / 3); }
  SECTION("rayleigh") { check_moments(draws(jr::rayleigh(k, 1.5, {n})), 1.5 * std::sqrt(pi / 2), 2 * 1.5 * 1.5); }
  SECTION("wald") { check_moments(draws(jr::wald(k, 0.8, {n})), 0.8, 0.8 * 0.8 * 0.8 + 0.8 * 0.8); }
  SECTION("weibull_min") {
    check_moments(draws(jr::weibull_min(k, 2.0, 1.5, {n})), 2 * std::tgamma(1 + 1 / 1.5), 4 * std::tgamma(1 + 2 / 1.5));
  }
  SECTION("maxwell") { check_moments(draws(jr::maxwell(k, {n})), 2 * std::sqrt(2 / pi), 3); }
  SECTION("double_sided_maxwell") {
    check_moments(draws(jr::double_sided_maxwell(k, 1.0, 2.0, {n})), 1, 1 + 3 * 4);
  }
  SECTION("rademacher") { check_moments(draws(jr::rademacher(k, {n})), 0, 1); }
  SECTION("geometric") { check_moments(draws(jr::geometric(k, 0.3, {n})), 1 / 0.3, (2 - 0.3) / (0.3 * 0.3)); }
  SECTION("cauchy") {
    // No moments: its quartiles are -1 and 1, so half the draws lie in (-1, 1).
    auto const x = draws(jr::cauchy(k, {n}));
    double inside = 0;
    for (double v : x) inside += std::abs(v) < 1;
    CHECK(std::abs(inside / n - 0.5) <= 5 * std::sqrt(0.25 / n));
  }
}

TEST_CASE("random univariate: 10^6 triangular draws have its first two moments", "[random][moments]") {
  auto const x = as_doubles(jr::triangular(jr::key(2025), -1.0, 0.5, 2.0, {1000000}));
  double const a = -1, c = 0.5, b = 2;
  double const mean = (a + b + c) / 3, var = (a * a + b * b + c * c - a * b - a * c - b * c) / 18;
  check_moments(x, mean, var + mean * mean);
  CHECK(*std::min_element(x.begin(), x.end()) >= a);
  CHECK(*std::max_element(x.begin(), x.end()) <= b);
}

TEST_CASE("random univariate: triangular is differentiable in left, mode and right", "[random][grad]") {
  using D = Array<double>;
  auto const k = jr::key(4);
  // The draws lie away from the kink u = (mode - left) / (right - left),
  // on both of its sides.
  auto const u = as_doubles(jr::uniform<double>(k, {6}));
  CHECK(std::none_of(u.begin(), u.end(), [](double v) { return std::abs(v - 1.3 / 3) < 0.02; }));
  CHECK(std::count_if(u.begin(), u.end(), [](double v) { return v < 1.3 / 3; }) > 0);
  CHECK(std::count_if(u.begin(), u.end(), [](double v) { return v > 1.3 / 3; }) > 0);
  auto const tri = [&](D const& left, D const& mode, D const& right) {
    return jr::triangular<double>(k, left, mode, right, {6});
  };
  D const left = jnp::array<double>({-1.0}), mode = jnp::array<double>({0.3}), right = jnp::array<double>({2.0});
  REQUIRE_NOTHROW(testing::check_grads(tri, std::tuple{left, mode, right}, 2));
  // Location-scale: shifting all three shifts every draw by as much.
  auto const g = jaxcc::grad([&](D const& shift) {
    return jnp::sum(jr::triangular<double>(k, Array<double>(left + shift), Array<double>(mode + shift),
                                           Array<double>(right + shift), {6}));
  })(jnp::array<double>(0.0));
  CHECK(std::abs(g.item() - 6.0) < 1e-9);
  REQUIRE_NOTHROW(testing::check_batching_rule(
      [&](Array<float> const& m) { return jr::triangular(k, -1.0, m, 2.0, {3}); }, jaxcc::in_axes(0),
      jnp::array<float>({-0.5f, 0.0f, 1.0f, 1.5f}).reshape({4, 1})));
  REQUIRE_NOTHROW(testing::check_jit([](jr::KeyArray const& key, Array<float> const& l) {
    return jr::triangular(key, l, 0.0, 1.0);
  }, k, jnp::array<float>({-2.f, -1.f, 0.f})));
}

TEST_CASE("random: key_dtype is key<fry>, the dtype of typed keys", "[random][keys]") {
  CHECK(jr::key_dtype() == jr::key(0).dtype());
  CHECK(jr::key_dtype("threefry2x32").name() == "key<fry>");
  CHECK(jr::key_dtype().impl() == jr::key_impl(jr::key(1)));
  CHECK(jaxcc_test::streamed(jr::key_dtype()) == "key<fry>");
  CHECK(message_of([] { (void)jr::key_dtype("foo"); }) ==
        "unrecognized PRNG implementation \"foo\". Did you mean one of: \"threefry2x32\"?");
  CHECK(message_of([] { (void)jr::key_dtype("rbg"); }) ==
        "key_dtype: the PRNG implementation \"rbg\" is not implemented in jaxcc, which has \"threefry2x32\" only");
}

TEST_CASE("random univariate: the reparameterized samplers are differentiable in their parameters", "[random][grad]") {
  using D = Array<double>;
  auto const k = jr::key(11);
  D const s = jnp::array<double>({0.5, 1.0, 1.5});
  auto const lognormal = [&](D const& sigma) { return jr::lognormal<double>(k, sigma); };
  auto const pareto = [&](D const& b) { return jr::pareto<double>(k, b); };
  auto const rayleigh = [&](D const& scale) { return jr::rayleigh<double>(k, scale, {2, 3}); };
  auto const wald = [&](D const& mean) { return jr::wald<double>(k, mean); };
  auto const weibull = [&](D const& scale, D const& c) { return jr::weibull_min<double>(k, scale, c, {3}); };
  auto const dsm = [&](D const& loc, D const& scale) { return jr::double_sided_maxwell<double>(k, loc, scale, {2}); };
  REQUIRE_NOTHROW(testing::check_grads(lognormal, std::tuple{s}, 2));
  REQUIRE_NOTHROW(testing::check_grads(pareto, std::tuple{s}, 2));
  REQUIRE_NOTHROW(testing::check_grads(rayleigh, std::tuple{s}, 2));
  REQUIRE_NOTHROW(testing::check_grads(wald, std::tuple{s}, 2));
  REQUIRE_NOTHROW(testing::check_grads(weibull, std::tuple{s, D(s + 1.0)}, 2));
  REQUIRE_NOTHROW(testing::check_grads(dsm, std::tuple{s, D(s + 1.0)}, 2));
  // The gradient of a location-scale draw: d/dloc = 1, d/dscale = the unit draw.
  auto const g = jaxcc::grad([&](D const& scale) { return jnp::sum(jr::rayleigh<double>(k, scale)); })(s);
  CHECK(testing::allclose(g, jr::rayleigh<double>(k, 1.0, {3}), 1e-12, 1e-12));
}

TEST_CASE("random univariate: vmap over keys and parameters equals a loop", "[random][vmap]") {
  auto const keys = jr::split(jr::key(3), 4);
  auto const by_key = jaxcc::vmap([](jr::KeyArray const& k) {
    return std::tuple{jr::laplace(k, {3}), jr::wald(k, 2.0, {3}), jr::geometric(k, 0.4, {3}), jr::rademacher(k, {3})};
  })(keys);
  for (std::int64_t i = 0; i < 4; ++i) {
    auto const row = jnp::array<std::int32_t>(static_cast<std::int32_t>(i));
    CHECK(jnp::take(std::get<0>(by_key), row, 0).to_vector() == jr::laplace(keys[i], {3}).to_vector());
    CHECK(testing::allclose(jnp::take(std::get<1>(by_key), row, 0), jr::wald(keys[i], 2.0, {3}), 1e-6, 1e-6));
    CHECK(jnp::take(std::get<2>(by_key), row, 0).to_vector() == jr::geometric(keys[i], 0.4, {3}).to_vector());
    CHECK(jnp::take(std::get<3>(by_key), row, 0).to_vector() == jr::rademacher(keys[i], {3}).to_vector());
  }
  auto const k = jr::key(5);
  Array<float> const params = jnp::array<float>({0.5f, 1.0f, 2.0f, 3.0f, 0.7f, 1.2f}).reshape({2, 3});
  REQUIRE_NOTHROW(testing::check_batching_rule([&](Array<float> const& m) { return jr::wald(k, m); },
                                               jaxcc::in_axes(0), params));
  REQUIRE_NOTHROW(testing::check_batching_rule(
      [&](Array<float> const& s) { return jr::weibull_min(k, s, 1.5, {3}); }, jaxcc::in_axes(1),
      Array<float>(params.reshape({3, 2}))));
  REQUIRE_NOTHROW(testing::check_batching_rule(
      [&](Array<float> const& p) { return jr::geometric(k, Array<float>(p / 4.f)); }, jaxcc::in_axes(0), params));
}

TEST_CASE("random univariate: jit gives the eager values", "[random][jit]") {
  auto const f = [](jr::KeyArray const& k, Array<float> const& s) {
    auto const keys = jr::split(k, 4);
    return std::tuple{jr::cauchy(keys[0], {3}), jr::lognormal(keys[1], s), jr::double_sided_maxwell(keys[2], s, 1.0),
                      jr::geometric(keys[3], 0.25, {5}), jr::maxwell(keys[0], {2})};
  };
  REQUIRE_NOTHROW(testing::check_jit(f, jr::key(8), jnp::array<float>({0.5f, 1.5f})));
  REQUIRE_NOTHROW(testing::check_jit([](Array<float> const& m) { return jr::wald(jr::key(1), m); },
                                     jnp::array<float>({0.5f, 1.5f, 3.f})));
}

TEST_CASE("random univariate: JAX's errors for shapes that do not fit the parameters", "[random][errors]") {
  auto const k = jr::key(0);
  CHECK(message_of([&] { (void)jr::pareto(k, jnp::ones<float>({3}), {2}); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]");
  CHECK(message_of([&] { (void)jr::pareto(k, jnp::ones<float>({2, 3}), {3}); }) ==
        "pareto parameter shapes must be broadcast-compatible with shape argument, and the result of broadcasting "
        "the shapes must equal the shape argument, but got result (2, 3) for shape argument (3,).");
  CHECK(message_of([&] { (void)jr::geometric(k, jnp::full<float>({2, 3}, 0.5f), {3}); }) ==
        "geometric parameter shapes must be broadcast-compatible with shape argument, and the result of "
        "broadcasting the shapes must equal the shape argument, but got result (2, 3) for shape argument (3,).");
  CHECK(message_of([&] { (void)jr::laplace(jr::split(k, 2), {2}); }) ==
        "laplace accepts a single key, but was given a key array of shape (2,) != (). Use jax.vmap for batching.");
  CHECK(message_of([&] { (void)jr::lognormal(k, jnp::ones<float>({2}), {3, 3}); }) ==
        "Incompatible shapes for broadcasting: shapes=[(3, 3), (2,)]");
  CHECK(message_of([&] { (void)jr::rayleigh(k, 1.0, {-1}); }) == "random_uniform: shape (-1,) has a negative dimension");
  CHECK(message_of([&] { (void)jr::triangular(k, jnp::zeros<float>({3}), 2.0, 3.0, {2}); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2,), (3,), (), ()]");
  CHECK(message_of([&] { (void)jr::triangular(k, 0.0, jnp::ones<float>({2, 3}), 3.0, {3}); }) ==
        "triangular parameter shapes must be broadcast-compatible with shape argument, and the result of "
        "broadcasting the shapes must equal the shape argument, but got result (2, 3) for shape argument (3,).");
}

TEST_CASE("random univariate: 0-d and empty shapes", "[random][edges]") {
  auto const k = jr::key(1);
  CHECK(jr::laplace(k, {0, 3}).shape() == Shape{0, 3});
  CHECK(jr::maxwell(k, {0}).shape() == Shape{0});
  CHECK(jr::geometric(k, jnp::zeros<float>({0})).shape() == Shape{0});
  CHECK(jr::wald(k, 1.0).shape() == Shape{});
  CHECK(jr::triangular(k, 0.0, 0.5, 1.0).shape() == Shape{});
  CHECK(jr::triangular(k, 0.0, 0.5, 1.0, {0, 2}).shape() == Shape{0, 2});
  REQUIRE_NOTHROW(testing::check_edges([&](Array<float> const& m) { return jr::triangular(k, -1.0, m, 1.0); },
                                       jnp::array<float>({0.f, 0.5f})));
  REQUIRE_NOTHROW(testing::check_edges([&](Array<float> const& s) { return jr::rayleigh(k, s); },
                                       jnp::array<float>({1.f, 2.f})));
}

}  // namespace test_random_univariate
