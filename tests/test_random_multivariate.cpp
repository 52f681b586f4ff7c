// jaxcc::random's matrix samplers (random/multivariate.hpp):
// multivariate_normal and orthogonal against JAX's own draws
// (tests/golden/random_multivariate_cases.py wrote them), their moments and
// orthogonality, gradients in the mean and covariance, vmap, jit and JAX's
// errors.
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

namespace test_random_multivariate {

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
namespace testing = jaxcc::testing;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;

struct Golden {
  std::string name;
  std::int64_t seed;
  std::vector<std::int64_t> shape;
  std::vector<double> values;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const cases = {
#include "golden/random_multivariate_cases.inc"
  };
  return cases;
}

// The means and covariances of random_multivariate_cases.py.
Array<float> mean() { return jnp::array<float>({1.0f, -2.0f, 0.5f}); }
Array<float> cov() {
  return jnp::array<float>({2.0f, 0.5f, 0.25f, 0.5f, 1.0f, -0.3f, 0.25f, -0.3f, 1.5f}).reshape({3, 3});
}
Array<float> means() { return jnp::array<float>({0.f, 0.f, 0.f, 10.f, 20.f, 30.f}).reshape({2, 3}); }
Array<float> covs() { return jnp::stack({cov(), Array<float>(2.f * jnp::eye<float>(3))}); }

Array<float> draw(Golden const& c) {
  auto const k = jr::key(static_cast<std::int32_t>(c.seed));
  auto const& n = c.name;
  for (std::string method : {"cholesky", "eigh", "svd"}) {
    if (n == "mvn_" + method) return jr::multivariate_normal(k, mean(), cov(), jaxcc::none, method);
    if (n == "mvn_" + method + "_5") return jr::multivariate_normal(k, mean(), cov(), {5}, method);
  }
  if (n == "mvn_2x4") return jr::multivariate_normal(k, mean(), cov(), {2, 4});
  if (n == "mvn_batched_mean") return jr::multivariate_normal(k, means(), cov());
  if (n == "mvn_batched_cov") return jr::multivariate_normal(k, mean(), covs(), {4, 2});
  if (n == "orthogonal_3") return jr::orthogonal(k, 3);
  if (n == "orthogonal_4_batch2") return jr::orthogonal(k, 4, {2});
  if (n == "orthogonal_3x5") return jr::orthogonal(k, 3, {}, 5);
  if (n == "orthogonal_5x2") return jr::orthogonal(k, 5, {}, 2);
  FAIL("no draw for golden case " << n);
  return {};
}

TEST_CASE("random multivariate: JAX's numbers for the same key", "[random][golden]") {
  REQUIRE(golden().size() > 30);
  for (auto const& c : golden()) {
    INFO(c.name << " seed " << c.seed);
    auto const got = draw(c);
    REQUIRE(got.shape() == Shape(c.shape.begin(), c.shape.end()));
    auto const floats = got.to_vector();
    std::vector<double> values(floats.begin(), floats.end()), expected = c.values;
    if (c.name.starts_with("mvn_eigh") || c.name.starts_with("mvn_svd")) {
      // An eigenvector's (a singular vector's) sign is arbitrary: LAPACK's,
      // under XLA, and ours differ, and each flip flips the sign of that
      // direction's component of x - mean. The components' magnitudes are
      // the same: compare those, in the eigenvectors' coordinates.
      auto const v = std::get<1>(jnp::linalg::eigh(cov()));
      auto const coords = [&](Array<float> const& x) {
        Array<float> const a = jnp::abs(jnp::matmul(Array<float>(x - mean()), v));
        auto const f = a.to_vector();
        return std::vector<double>(f.begin(), f.end());
      };
      values = coords(got);
      expected = coords(jnp::array<double>(c.values, got.shape()).astype<float>());
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      INFO("flat index " << i);
      // The factorizations and products round differently from XLA's.
      CHECK(std::abs(values[i] - expected[i]) <= 2e-5 * std::max(1.0, std::abs(expected[i])));
    }
  }
}

TEST_CASE("random multivariate: draws have the mean and covariance asked for", "[random][moments]") {
  // 10^6 draws of 3 (10^5 in the -O0 test build, about a second there);
  // every entry of the sample mean and covariance within 5 standard errors.
  constexpr std::int64_t n = jaxcc_test::moment_draws(100000);
  auto const c = cov().to_vector();
  auto const m = mean().to_vector();
  for (std::string method : {"cholesky", "eigh", "svd"}) {
    INFO(method);
    auto const x = jr::multivariate_normal(jr::key(7), mean(), cov(), {n}, method).to_vector();
    std::vector<double> s1(3, 0), s2(9, 0);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::size_t i = 0; i < 3; ++i) {
        s1[i] += x[static_cast<std::size_t>(r) * 3 + i];
        for (std::size_t j = 0; j < 3; ++j)
          s2[i * 3 + j] += (x[static_cast<std::size_t>(r) * 3 + i] - m[i]) * (x[static_cast<std::size_t>(r) * 3 + j] - m[j]);
      }
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(std::abs(s1[i] / n - m[i]) <= 5 * std::sqrt(c[i * 4] / n));
      for (std::size_t j = 0; j < 3; ++j) {
        // var of (x_i - m_i)(x_j - m_j) for a Gaussian: c_ii c_jj + c_ij^2.
        auto const se = std::sqrt((c[i * 4] * c[j * 4] + c[i * 3 + j] * c[i * 3 + j]) / n);
        CHECK(std::abs(s2[i * 3 + j] / n - c[i * 3 + j]) <= 5 * se);
      }
    }
  }
}

TEST_CASE("random multivariate: orthogonal draws are orthogonal", "[random][orthogonal]") {
  auto const k = jr::key(3);
  auto const q = jr::orthogonal(k, 4, {3});
  auto const qtq = jnp::matmul(jnp::matrix_transpose(q), q);
  CHECK(testing::allclose(qtq, jnp::broadcast_to(jnp::eye<float>(4), Shape{3, 4, 4}), 1e-5, 1e-5));
  auto const wide = jr::orthogonal(k, 2, {}, 5);  // orthonormal rows
  REQUIRE(wide.shape() == Shape{2, 5});
  CHECK(testing::allclose(jnp::matmul(wide, jnp::matrix_transpose(wide)), jnp::eye<float>(2), 1e-5, 1e-5));
  auto const tall = jr::orthogonal<double>(k, 5, {}, 2);  // orthonormal columns
  CHECK(testing::allclose(jnp::matmul(jnp::matrix_transpose(tall), tall), jnp::eye<double>(2), 1e-12, 1e-12));
}

TEST_CASE("random multivariate: differentiable in the mean and covariance", "[random][grad]") {
  using D = Array<double>;
  auto const k = jr::key(4);
  D const m = jnp::array<double>({0.5, -1.0, 2.0});
  D const a = jnp::array<double>({1.0, 0.2, -0.1, 0.0, 0.9, 0.3, 0.1, 0.0, 1.2}).reshape({3, 3});
  auto const spd = [](D const& x) { return D(jnp::matmul(x, jnp::matrix_transpose(x)) + jnp::eye<double>(3)); };
  auto const from_cov = [&](D const& x) { return jr::multivariate_normal(k, m, spd(x), {2}); };
  REQUIRE_NOTHROW(
      testing::check_grads([&](D const& mu) { return jr::multivariate_normal(k, mu, spd(a)); }, std::tuple{m}, 2));
  REQUIRE_NOTHROW(testing::check_grads(from_cov, std::tuple{a}, 2));
  auto const eigh = [&](D const& x) { return jr::multivariate_normal(k, m, spd(x), {2}, "eigh"); };
  REQUIRE_NOTHROW(testing::check_grads(eigh, std::tuple{a}, 1));
}

TEST_CASE("random multivariate: vmap over keys and means equals a loop; jit equals eager", "[random][vmap][jit]") {
  auto const keys = jr::split(jr::key(9), 3);
  auto const draws = jaxcc::vmap([](jr::KeyArray const& k) {
    return std::tuple{jr::multivariate_normal(k, mean(), cov(), {2}), jr::orthogonal(k, 3)};
  })(keys);
  for (std::int64_t i = 0; i < 3; ++i) {
    auto const row = jnp::array<std::int32_t>(static_cast<std::int32_t>(i));
    CHECK(testing::allclose(jnp::take(std::get<0>(draws), row, 0), jr::multivariate_normal(keys[i], mean(), cov(), {2}),
                            1e-6, 1e-6));
    CHECK(testing::allclose(jnp::take(std::get<1>(draws), row, 0), jr::orthogonal(keys[i], 3), 1e-5, 1e-5));
  }
  auto const k = jr::key(10);
  REQUIRE_NOTHROW(testing::check_batching_rule(
      [&](Array<float> const& mu) { return jr::multivariate_normal(k, mu, cov()); }, jaxcc::in_axes(0), means()));
  REQUIRE_NOTHROW(testing::check_batching_rule(
      [&](Array<float> const& c) { return jr::multivariate_normal(k, mean(), c, {2}, "cholesky"); }, jaxcc::in_axes(0),
      covs()));
  REQUIRE_NOTHROW(testing::check_jit(
      [](jr::KeyArray const& key, Array<float> const& c) {
        return std::tuple{jr::multivariate_normal(key, mean(), c, {4}, "svd"), jr::orthogonal(key, 3, {2}, 4)};
      },
      jr::key(12), cov()));
}

TEST_CASE("random multivariate: JAX's errors", "[random][errors]") {
  auto const k = jr::key(0);
  auto const z3 = jnp::zeros<float>({3});
  auto const i3 = jnp::eye<float>(3);
  CHECK(message_of([&] { (void)jr::multivariate_normal(k, z3, i3, jaxcc::none, "qr"); }) ==
        "method must be one of {'svd', 'eigh', 'cholesky'}");
  CHECK(message_of([&] { (void)jr::multivariate_normal(k, jnp::zeros<float>({}), i3); }) ==
        "multivariate_normal requires mean.ndim >= 1, got mean.ndim == 0");
  CHECK(message_of([&] { (void)jr::multivariate_normal(k, z3, z3); }) ==
        "multivariate_normal requires cov.ndim >= 2, got cov.ndim == 1");
  CHECK(message_of([&] { (void)jr::multivariate_normal(k, z3, jnp::eye<float>(2)); }) ==
        "multivariate_normal requires cov.shape == (..., n, n) for n=3, but got cov.shape == (2, 2).");
  CHECK(message_of([&] { (void)jr::multivariate_normal(k, jnp::zeros<float>({2, 3}), i3, {4}); }) ==
        "Incompatible shapes for broadcasting: shapes=[(4,), (2,), ()]");
  CHECK(message_of([&] { (void)jr::multivariate_normal(k, jnp::zeros<float>({2, 3}), i3, {3, 1}); }) ==
        "normal parameter shapes must be broadcast-compatible with shape argument, and the result of broadcasting "
        "the shapes must equal the shape argument, but got result (3, 2) for shape argument (3, 1).");
  CHECK(message_of([&] { (void)jr::orthogonal(jr::split(k, 2), 3); }) ==
        "orthogonal accepts a single key, but was given a key array of shape (2,) != (). Use jax.vmap for batching.");
  CHECK(jr::multivariate_normal(k, z3, i3, {0}).shape() == Shape{0, 3});
  CHECK(jr::orthogonal(k, 3, {0}).shape() == Shape{0, 3, 3});
}

}  // namespace test_random_multivariate
