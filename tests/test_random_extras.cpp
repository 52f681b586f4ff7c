// The options of jaxcc::random's basic samplers beyond their defaults
// (random/distributions.hpp) and the key utilities clone and key_impl
// (random/key.hpp): choice with probabilities and with a 0-d population,
// permutation(independent=true), categorical(replace=false), randint and
// truncated_normal with array bounds. Against JAX's own draws
// (tests/golden/random_extras_cases.py wrote them), bit for bit where the
// results are integers; then statistics, gradients, vmap, jit and errors.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_random_extras {

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
#include "golden/random_extras_cases.inc"
  };
  return cases;
}

// The arrays of random_extras_cases.py.
Array<float> p5() { return jnp::array<float>({0.1f, 0.2f, 0.3f, 0.25f, 0.15f}); }
Array<float> p3() { return jnp::array<float>({0.5f, 0.0f, 2.0f}); }
Array<float> a43() { return jnp::arange<float>(12).reshape({4, 3}); }
Array<std::int32_t> x34() { return jnp::arange<std::int32_t>(12).reshape({3, 4}); }
Array<float> logits4() { return jnp::array<float>({0.0f, 1.0f, 2.0f, -1.0f}); }
Array<float> logits25() { return jnp::arange<float>(10).reshape({2, 5}) / 3.f; }
Array<std::int32_t> lo3() { return jnp::array<std::int32_t>({0, -5, 10}); }
Array<std::int32_t> hi31() { return jnp::array<std::int32_t>({1, 100, 1000000}).reshape({3, 1}); }
Array<float> lower3() { return jnp::array<float>({-1.0f, 0.0f, 0.5f}); }


template <class A>
std::pair<Shape, std::vector<double>> result(A const& a) {
  return {a.shape(), as_doubles(a)};
}

std::pair<Shape, std::vector<double>> draw(Golden const& c) {
  auto const k = jr::key(static_cast<std::int32_t>(c.seed));
  auto const& n = c.name;
  if (n == "choice_p_replace") return result(jr::choice(k, 5, {10}, true, p5()));
  if (n == "choice_p_replace_0d") return result(jr::choice(k, 5, {}, true, p5()));
  if (n == "choice_p_no_replace") return result(jr::choice(k, 5, {3}, false, p5()));
  if (n == "choice_p_axis1") return result(jr::choice(k, a43(), {2, 2}, true, p3(), 1));
  if (n == "choice_p_axis1_no_replace") return result(jr::choice(k, a43(), {2}, false, p3(), 1));
  if (n == "choice_0d_a") return result(jr::choice(k, jnp::array<std::int32_t>(6), {4}));
  if (n == "choice_0d_a_no_replace") return result(jr::choice(k, jnp::array<std::int32_t>(6), {4}, false));
  if (n == "permutation_independent_axis1") return result(jr::permutation(k, x34(), 1, true));
  if (n == "permutation_independent_axis0") return result(jr::permutation(k, x34(), 0, true));
  if (n == "permutation_independent_1d") return result(jr::permutation(k, jnp::arange<std::int32_t>(9), 0, true));
  if (n == "permutation_independent_large")
    return result(jr::permutation(k, jnp::arange<std::int32_t>(3000).reshape({2, 1500}), 1, true));
  if (n == "categorical_no_replace") return result(jr::categorical(k, logits4(), -1, {3}, false));
  if (n == "categorical_no_replace_batch") return result(jr::categorical(k, logits25(), -1, {3, 2}, false));
  if (n == "categorical_no_replace_axis0")
    return result(jr::categorical(k, jnp::matrix_transpose(logits25()), 0, {4, 2}, false));
  if (n == "randint_array_min") return result(jr::randint(k, {4, 3}, lo3(), 20));
  if (n == "randint_array_max") return result(jr::randint(k, {3, 4}, 0, hi31()));
  if (n == "randint_array_both") return result(jr::randint(k, {3}, lo3(), jnp::full<std::int32_t>({3}, 5)));
  if (n == "truncated_normal_array") return result(jr::truncated_normal(k, lower3(), 2.0));
  if (n == "truncated_normal_array_shape") return result(jr::truncated_normal(k, lower3(), 2.0, {4, 3}));
  if (n == "truncated_normal_arrays")
    return result(jr::truncated_normal(k, Array<float>(-2.f + lower3()), Array<float>(lower3() + 0.25f)));
  FAIL("no draw for golden case " << n);
  return {};
}

TEST_CASE("random extras: JAX's numbers for the same key, integers bit for bit", "[random][golden]") {
  REQUIRE(golden().size() > 50);
  for (auto const& c : golden()) {
    INFO(c.name << " seed " << c.seed);
    auto const [shape, got] = draw(c);
    REQUIRE(shape == Shape(c.shape.begin(), c.shape.end()));
    bool const floats = c.name.starts_with("truncated_normal");
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("flat index " << i);
      if (floats) CHECK(std::abs(got[i] - c.values[i]) <= 4e-6 * std::max(1.0, std::abs(c.values[i])));
      else CHECK(got[i] == c.values[i]);
    }
  }
}

TEST_CASE("random extras: weighted draws follow p; draws without replacement are distinct", "[random][moments]") {
  // 10^6 draws (2 * 10^5 at -O0): each category's frequency within 5
  // standard errors of p.
  constexpr std::int64_t n = jaxcc_test::moment_draws(200000);
  auto const x = jr::choice(jr::key(1), 5, {n}, true, p5()).to_vector();
  auto const p = p5().to_vector();
  for (std::int32_t v = 0; v < 5; ++v) {
    auto const f = static_cast<double>(std::count(x.begin(), x.end(), v)) / n;
    CHECK(std::abs(f - p[static_cast<std::size_t>(v)]) <= 5 * std::sqrt(p[static_cast<std::size_t>(v)] * (1 - p[static_cast<std::size_t>(v)]) / n));
  }
  auto const keys = jr::split(jr::key(2), 20);
  for (std::int64_t i = 0; i < 20; ++i) {
    auto d = jr::choice(keys[i], 5, {5}, false, p5()).to_vector();
    std::sort(d.begin(), d.end());
    CHECK(d == std::vector<std::int32_t>{0, 1, 2, 3, 4});
    auto c = jr::categorical(keys[i], logits25(), -1, {5, 2}, false).to_vector();
    CHECK(std::count(c.begin(), c.end(), 0) == 2);
    CHECK(std::count(c.begin(), c.end(), 4) == 2);
    auto const rows = jr::permutation(keys[i], x34(), 1, true).to_vector();
    for (std::size_t r = 0; r < 3; ++r) {
      std::vector<std::int32_t> row(rows.begin() + static_cast<std::ptrdiff_t>(4 * r), rows.begin() + static_cast<std::ptrdiff_t>(4 * r + 4));
      std::sort(row.begin(), row.end());
      auto const first = static_cast<std::int32_t>(4 * r);
      CHECK(row == std::vector<std::int32_t>{first, first + 1, first + 2, first + 3});
    }
  }
  // A zero probability is never drawn.
  auto const z = jr::choice(jr::key(3), 3, {1000}, true, p3()).to_vector();
  CHECK(std::count(z.begin(), z.end(), 1) == 0);
  // Array bounds: every draw in [lo, hi).
  auto const r = jr::randint(jr::key(4), {1000, 3}, lo3(), jnp::array<std::int32_t>({1, 0, 13})).to_vector();
  for (std::size_t i = 0; i < r.size(); ++i) {
    auto const col = i % 3;
    if (col == 0) CHECK(r[i] == 0);
    if (col == 1) CHECK((r[i] >= -5 && r[i] < 0));
    if (col == 2) CHECK((r[i] >= 10 && r[i] < 13));
  }
}

TEST_CASE("random extras: truncated_normal is differentiable in array bounds", "[random][grad]") {
  using D = Array<double>;
  auto const k = jr::key(6);
  D const lo = jnp::array<double>({-1.0, 0.0, 0.5});
  D const hi = jnp::array<double>({1.5, 2.0, 3.0});
  auto const f = [&](D const& a, D const& b) { return jr::truncated_normal<double>(k, a, b); };
  REQUIRE_NOTHROW(testing::check_grads(f, std::tuple{lo, hi}, 2));
}

TEST_CASE("random extras: vmap over keys and arrays equals a loop; jit equals eager", "[random][vmap][jit]") {
  auto const keys = jr::split(jr::key(8), 3);
  auto const draws = jaxcc::vmap([](jr::KeyArray const& k) {
    return std::tuple{jr::choice(k, 5, {4}, true, p5()), jr::choice(k, a43(), {2}, false, p3(), 1),
                      jr::permutation(k, x34(), 1, true), jr::categorical(k, logits4(), -1, {3}, false),
                      jr::randint(k, {4, 3}, lo3(), 20)};
  })(keys);
  for (std::int64_t i = 0; i < 3; ++i) {
    auto const row = jnp::array<std::int32_t>(static_cast<std::int32_t>(i));
    auto const k = keys[i];
    CHECK(jnp::take(std::get<0>(draws), row, 0).to_vector() == jr::choice(k, 5, {4}, true, p5()).to_vector());
    CHECK(jnp::take(std::get<1>(draws), row, 0).to_vector() == jr::choice(k, a43(), {2}, false, p3(), 1).to_vector());
    CHECK(jnp::take(std::get<2>(draws), row, 0).to_vector() == jr::permutation(k, x34(), 1, true).to_vector());
    CHECK(jnp::take(std::get<3>(draws), row, 0).to_vector() ==
          jr::categorical(k, logits4(), -1, {3}, false).to_vector());
    CHECK(jnp::take(std::get<4>(draws), row, 0).to_vector() == jr::randint(k, {4, 3}, lo3(), 20).to_vector());
  }
  auto const k = jr::key(9);
  auto const weights = jnp::array<float>({1.f, 2.f, 3.f, 3.f, 2.f, 1.f}).reshape({2, 3});
  REQUIRE_NOTHROW(testing::check_batching_rule(
      [&](Array<float> const& w) { return jr::choice(k, 3, {4}, true, w); }, jaxcc::in_axes(0), weights));
  REQUIRE_NOTHROW(testing::check_batching_rule(
      [&](Array<float> const& lo) { return jr::truncated_normal(k, lo, 2.0); }, jaxcc::in_axes(0),
      Array<float>(jnp::stack({lower3(), Array<float>(lower3() - 0.5f)}))));
  REQUIRE_NOTHROW(testing::check_jit(
      [](jr::KeyArray const& key, Array<float> const& p, Array<std::int32_t> const& lo) {
        return std::tuple{jr::choice(key, 5, {6}, true, p), jr::choice(key, 5, {3}, false, p),
                          jr::randint(key, {2, 3}, lo, 30), jr::permutation(key, x34(), 0, true),
                          jr::categorical(key, logits25(), -1, {2, 2}, false)};
      },
      jr::key(10), p5(), lo3()));
}

TEST_CASE("random extras: clone and key_impl", "[random][keys]") {
  auto const k = jr::key(42);
  auto const c = jr::clone(k);
  static_assert(std::same_as<decltype(c), jr::KeyArray const>);
  CHECK(jr::uniform(c, {3}).to_vector() == jr::uniform(k, {3}).to_vector());
  auto const raw = jr::clone(jr::PRNGKey(1));
  static_assert(std::same_as<decltype(raw), Array<std::uint32_t> const>);
  CHECK(raw.to_vector() == jr::PRNGKey(1).to_vector());
  // What JAX returns: the implementation's name, for a key of any shape.
  CHECK(jr::key_impl(k) == "threefry2x32");
  CHECK(jr::key_impl(jr::split(k, 3)) == "threefry2x32");
  CHECK(jr::key_impl(jr::PRNGKey(0)) == "threefry2x32");
  auto const jitted = jaxcc::jit([](jr::KeyArray const& key) { return jr::normal(jr::clone(key), {2}); })(k);
  CHECK(testing::allclose(jitted, jr::normal(k, {2}), 1e-6, 1e-6));
}

TEST_CASE("random extras: JAX's errors", "[random][errors]") {
  auto const k = jr::key(0);
  CHECK(message_of([&] { (void)jr::choice(k, 5, {3}, true, jnp::ones<float>({4})); }) ==
        "p must be None or a 1D vector with the same size as a.shape[axis]. p has shape (4,) and a.shape[axis] is 5.");
  CHECK(message_of([&] { (void)jr::choice(k, a43(), {3}, true, p5(), 1); }) ==
        "p must be None or a 1D vector with the same size as a.shape[axis]. p has shape (5,) and a.shape[axis] is 3.");
  CHECK(message_of([&] { (void)jr::choice(k, 5, {6}, false, p5()); }) ==
        "Cannot take a larger sample (size 6) than population (size 5) when 'replace=False'");
  CHECK(message_of([&] { (void)jr::categorical(k, jnp::ones<float>({3}), -1, {4}, false); }) ==
        "Number of samples without replacement (4) cannot exceed number of categories (3).");
  CHECK(message_of([&] { (void)jr::randint(k, {2}, lo3(), 5); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2,), (3,), ()]");
  CHECK(message_of([&] { (void)jr::randint(k, {3}, hi31(), 5); }) ==
        "randint parameter shapes must be broadcast-compatible with shape argument, and the result of broadcasting "
        "the shapes must equal the shape argument, but got result (3, 3) for shape argument (3,).");
  CHECK(message_of([&] { (void)jr::truncated_normal(k, lower3(), 1.0, {2}); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2,), (3,), ()]");
  CHECK(message_of([&] { (void)jr::permutation(k, x34(), 2, true); }) ==
        "permutation: axis 2 is out of bounds for array of dimension 2");
  // No draws: zeros of `shape`, before p is looked at.
  CHECK(jr::choice(k, 5, {0}, true, jnp::ones<float>({4})).shape() == Shape{0});
  CHECK(jr::choice(k, jnp::array<std::int32_t>(0), {0}).shape() == Shape{0});
}

}  // namespace test_random_extras
