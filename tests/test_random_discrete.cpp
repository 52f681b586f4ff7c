// jaxcc::random's counting samplers (random/discrete.hpp) against JAX's own
// draws (tests/golden/random_discrete_cases.py wrote them), bit for bit; the
// first two moments of large draws; the draws under vmap and jit.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_random_discrete {

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::as_doubles;
using jaxcc_test::message_of;

struct Golden {
  std::string name;
  std::int64_t seed;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> positions;
  std::vector<double> values;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const cases = {
#include "golden/random_discrete_cases.inc"
  };
  return cases;
}


// The parameters of the array cases (as the script's lams, ns and ps).
Array<float> lams() { return jnp::array<float>({0.f, 0.5f, 3.f, 9.99f, 10.f, 12.f, 30.f, 100.f, 1000.f}); }
Array<float> ns() {
  return jnp::array<float>({0.f, 5.f, 21.f, 10.f, 200.f, 1000.f, 7.5f, 4.f, -1.f, INFINITY, NAN, 30.f});
}
Array<float> ps() { return jnp::array<float>({0.3f, 0.5f, 0.5f, 0.f, 0.7f, 0.02f, 0.4f, 1.f, 0.5f, 0.5f, 0.5f, 1.5f}); }

std::vector<double> draw(Golden const& c) {
  auto const k = jr::key(static_cast<std::int32_t>(c.seed));
  Shape const shape(c.shape.begin(), c.shape.end());
  auto const& n = c.name;
  if (n == "poisson_3") return as_doubles(jr::poisson(k, 3.0, shape));
  if (n == "poisson_30") return as_doubles(jr::poisson(k, 30.0, shape));
  if (n == "poisson_array") return as_doubles(jr::poisson(k, lams()));
  if (n == "poisson_broadcast") return as_doubles(jr::poisson(k, lams(), Shape{2, 9}));
  if (n == "binomial_10_0.3") return as_doubles(jr::binomial(k, 10.0, 0.3, shape));
  if (n == "binomial_200_0.7") return as_doubles(jr::binomial(k, 200.0, 0.7, shape));
  if (n == "binomial_array") return as_doubles(jr::binomial(k, ns(), ps()));
  if (n == "multinomial") return as_doubles(jr::multinomial(k, 20.0, jnp::array<float>({0.2f, 0.3f, 0.5f})));
  if (n == "multinomial_batch")
    return as_doubles(jr::multinomial(k, jnp::array<float>({10.f, 100.f}), jnp::array<float>({0.1f, 0.6f, 0.f, 0.3f}),
                                      Shape{2, 4}));
  FAIL("no draw for golden case " << n);
  return {};
}

TEST_CASE("random counts: JAX's numbers, bit for bit, on both sides of each branch point", "[random][discrete][golden]") {
  REQUIRE(golden().size() > 40);
  for (auto const& c : golden()) {
    Shape const shape(c.shape.begin(), c.shape.end());
    INFO(c.name << " seed " << c.seed << " shape " << shape);
    auto const got = draw(c);
    REQUIRE(static_cast<std::int64_t>(got.size()) == shape.numel());
    for (std::size_t i = 0; i < c.positions.size(); ++i) {
      INFO("flat index " << c.positions[i]);
      auto const actual = got[static_cast<std::size_t>(c.positions[i])];
      auto const expected = c.values[i];
      if (std::isnan(expected)) CHECK(std::isnan(actual));
      else CHECK(actual == expected);
    }
  }
}

// Mean and second moment within 5 standard errors (estimated from the draw).
template <class T>
void check_moments(Array<T> const& draws, double mean, double variance) {
  auto const v = draws.to_vector();
  auto const n = static_cast<double>(v.size());
  double s1 = 0, s2 = 0, s4 = 0;
  for (auto x : v) {
    auto const d = static_cast<double>(x);
    s1 += d;
    s2 += d * d;
    s4 += d * d * d * d;
  }
  double const m1 = s1 / n, m2 = s2 / n;
  CHECK(std::abs(m1 - mean) <= 5 * std::sqrt((m2 - m1 * m1) / n));
  CHECK(std::abs(m2 - (variance + mean * mean)) <= 5 * std::sqrt((s4 / n - m2 * m2) / n));
}

TEST_CASE("random counts: the first two moments of 10^6 draws (2 * 10^4 at -O0)", "[random][discrete][moments]") {
  constexpr std::int64_t n = jaxcc_test::moment_draws(20000);
  auto const keys = jr::split(jr::key(77), 5);
  auto const [p3, p30, b_inv, b_btrs, multi] = jaxcc::jit([](jr::KeyArray const& ks) {
    Shape const s{n};
    return std::tuple{jr::poisson(ks[0], 3.0, s), jr::poisson(ks[1], 30.0, s), jr::binomial(ks[2], 10.0, 0.3, s),
                      jr::binomial(ks[3], 200.0, 0.7, s),
                      jr::multinomial(ks[4], 20.0, jnp::array<float>({0.2f, 0.3f, 0.5f}), Shape{n / 4, 3})};
  })(keys);
  check_moments(p3, 3.0, 3.0);
  check_moments(p30, 30.0, 30.0);
  check_moments(b_inv, 3.0, 2.1);
  check_moments(b_btrs, 140.0, 42.0);
  double const probs[] = {0.2, 0.3, 0.5};
  for (std::int32_t j = 0; j < 3; ++j) {
    auto const p = probs[j];
    check_moments(Array<float>(jnp::take(multi, jnp::array<std::int32_t>(j), 1)), 20 * p, 20 * p * (1 - p));
  }
  // Every multinomial row sums to n.
  CHECK(jnp::all(jnp::sum(multi, -1) == 20.f).item());
}

TEST_CASE("random counts: vmap over keys and parameters equals a loop; jit equals eager", "[random][discrete][vmap]") {
  auto const keys = jr::split(jr::key(5), 4);
  auto const lam = jnp::array<float>({0.5f, 3.f, 12.f, 40.f});
  auto const pois = jaxcc::vmap([](jr::KeyArray const& k, Array<float> const& l) { return jr::poisson(k, l, Shape{5}); })(
      keys, lam);
  auto const bin = jaxcc::vmap([](jr::KeyArray const& k, Array<float> const& count) {
    return jr::binomial(k, count, 0.4, Shape{5});
  })(keys, lam);
  for (std::int32_t i = 0; i < 4; ++i) {
    auto const row = jnp::array<std::int32_t>(i);
    auto const l = lam.to_vector()[static_cast<std::size_t>(i)];
    CHECK(jnp::take(pois, row, 0).to_vector() == jr::poisson(keys[i], l, Shape{5}).to_vector());
    CHECK(jnp::take(bin, row, 0).to_vector() == jr::binomial(keys[i], l, 0.4, Shape{5}).to_vector());
  }
  auto const multi = [](Array<std::uint32_t> const& k, Array<float> const& p) { return jr::multinomial(k, 9.0, p); };
  CHECK_NOTHROW(jaxcc::testing::check_vmap(multi, jaxcc::in_axes(0, 0), jr::key_data(jr::split(jr::key(2), 3)),
                                           jnp::array<float>({.2f, .8f, .5f, .5f, .9f, .1f}).reshape({3, 2})));
  auto const all = [](jr::KeyArray const& k, Array<float> const& l) {
    return std::tuple{jr::poisson(k, l), jr::binomial(k, l, 0.3), jr::multinomial(k, 6.0, l / jnp::sum(l))};
  };
  CHECK_NOTHROW(jaxcc::testing::check_jit(all, jr::key(3), lam));
}

TEST_CASE("random counts: shapes, dtypes and JAX's errors", "[random][discrete][errors]") {
  auto const k = jr::key(0);
  static_assert(std::same_as<decltype(jr::poisson(k, 1.0)), Array<std::int32_t>>);
  static_assert(std::same_as<decltype(jr::binomial(k, 3.0, 0.5)), Array<float>>);
  static_assert(std::same_as<decltype(jr::multinomial(k, 3.0, jnp::ones<float>({2}))), Array<float>>);
  CHECK(jr::poisson<std::int64_t>(k, 2.0, Shape{3}).shape() == Shape{3});
  CHECK(jr::poisson(k, jnp::ones<float>({3}), Shape{2, 3}).shape() == Shape{2, 3});
  CHECK(jr::poisson(k, 1.0, Shape{0}).shape() == Shape{0});
  CHECK(jr::binomial(k, jnp::ones<float>({2, 1}), jnp::full<float>({3}, 0.5f)).shape() == Shape{2, 3});
  // 0-d and empty parameters, eager and under jit.
  CHECK_NOTHROW(jaxcc::testing::check_edges([](Array<std::uint32_t> const& key, Array<float> const& l) {
    return std::tuple{jr::poisson(key, l), jr::binomial(key, l, 0.5), jr::multinomial(key, 4.0, l)};
  }, jr::key_data(k), jnp::full<float>({2, 3}, 0.25f)));
  CHECK(message_of([&] { (void)jr::poisson(k, jnp::ones<float>({3}), Shape{2}); }) ==
        "Incompatible shapes for broadcasting: (3,) and requested shape (2,)");
  CHECK(message_of([&] { (void)jr::binomial(k, jnp::ones<float>({3}), 0.5, Shape{2}); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2,), (3,), ()]");
  CHECK(message_of([&] { (void)jr::multinomial(k, 5.0, jnp::ones<float>({3}), Shape{2, 4}); }) ==
        "Incompatible shapes for broadcasting: (3,) and requested shape (2, 4)");
  CHECK(message_of([&] { (void)jr::multinomial(k, 4.0, jnp::array<float>(0.3f)); }) ==
        "axis -1 is out of bounds for array of dimension 0");
  CHECK(jr::multinomial(k, 4.0, jnp::ones<float>({2, 0})).shape() == Shape{2, 0});
  CHECK(message_of([&] { (void)jr::poisson(jr::split(k, 2), 1.0); }) ==
        "poisson accepts a single key, but was given a key array of shape (2,) != (). Use jax.vmap for batching.");
}

}  // namespace test_random_discrete
