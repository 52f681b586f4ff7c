// jaxcc::random's gamma family (random/gamma.hpp, primitives/random_gamma.hpp)
// against JAX's own draws (tests/golden/random_gamma_cases.py wrote them),
// the first two moments of large draws, the reparameterization gradient in
// the shape parameters, and the draws under vmap and jit.
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

namespace test_random_gamma {

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
#include "golden/random_gamma_cases.inc"
  };
  return cases;
}


// The shape parameters of the array cases (as the script's a_array).
Array<float> a_array() { return jnp::array<float>({0.05f, 0.5f, 0.999f, 1.0f, 2.5f, 40.0f}); }

// The draw the case names, from our implementation.
std::vector<double> draw(Golden const& c) {
  auto const k = jr::key(static_cast<std::int32_t>(c.seed));
  Shape const shape(c.shape.begin(), c.shape.end());
  auto const& n = c.name;
  for (double a : {0.1, 0.5, 1.0, 3.0}) {
    char name[32];
    std::snprintf(name, sizeof name, "gamma_%g", a);
    if (n == name) return as_doubles(jr::gamma(k, a, shape));
  }
  if (n == "gamma_array") return as_doubles(jr::gamma(k, a_array()));
  if (n == "gamma_broadcast") return as_doubles(jr::gamma(k, a_array(), Shape{2, 6}));
  if (n == "gamma_tiny") return as_doubles(jr::gamma(k, 1e-3, shape));
  if (n == "gamma_f64") return as_doubles(jr::gamma<double>(k, 0.7, shape));
  if (n == "loggamma_0.01") return as_doubles(jr::loggamma(k, 0.01, shape));
  if (n == "loggamma_array") return as_doubles(jr::loggamma(k, a_array()));
  if (n == "beta_0.5_0.5") return as_doubles(jr::beta(k, 0.5, 0.5, shape));
  if (n == "beta_array") return as_doubles(jr::beta(k, a_array(), 2.0));
  if (n == "dirichlet") return as_doubles(jr::dirichlet(k, jnp::array<float>({0.3f, 1.0f, 2.5f}), Shape{4}));
  if (n == "dirichlet_2d") return as_doubles(jr::dirichlet(k, jnp::array<float>({0.5f, 0.5f, 2.0f, 7.0f}).reshape({2, 2})));
  if (n == "chisquare_3") return as_doubles(jr::chisquare(k, 3.0, shape));
  if (n == "chisquare_0.7") return as_doubles(jr::chisquare(k, 0.7, shape));
  if (n == "f_3_7") return as_doubles(jr::f(k, 3.0, 7.0, shape));
  if (n == "t_2.5") return as_doubles(jr::t(k, 2.5, shape));
  if (n == "t_array") return as_doubles(jr::t(k, a_array()));
  if (n == "generalized_normal_0.5") return as_doubles(jr::generalized_normal(k, 0.5, shape));
  if (n == "generalized_normal_1") return as_doubles(jr::generalized_normal(k, 1.0, shape));
  if (n == "generalized_normal_2") return as_doubles(jr::generalized_normal(k, 2.0, shape));
  if (n == "ball_3_2") return as_doubles(jr::ball(k, 3, 2.0, {4}));
  if (n == "ball_4_1") return as_doubles(jr::ball(k, 4, 1.0, {2}));
  FAIL("no draw for golden case " << n);
  return {};
}

TEST_CASE("random gamma family: JAX's numbers for the same key, shape and parameters", "[random][gamma][golden]") {
  REQUIRE(golden().size() > 90);
  for (auto const& c : golden()) {
    Shape const shape(c.shape.begin(), c.shape.end());
    INFO(c.name << " seed " << c.seed << " shape " << shape);
    auto const got = draw(c);
    REQUIRE(static_cast<std::int64_t>(got.size()) == shape.numel());
    for (std::size_t i = 0; i < c.positions.size(); ++i) {
      INFO("flat index " << c.positions[i]);
      auto const actual = got[static_cast<std::size_t>(c.positions[i])];
      auto const expected = c.values[i];
      // The same rejection steps and draws; the float math (XLA's log, pow
      // and erf_inv beside the C library's) agrees to a few ulp.
      CHECK(std::abs(actual - expected) <= 2e-6 * std::abs(expected) + 1e-37);
    }
  }
}

// Mean and second moment of a draw within 5 standard errors (each estimated
// from the draw itself) of the distribution's.
void check_moments(Array<float> const& draws, double mean, double second) {
  auto const v = draws.to_vector();
  auto const n = static_cast<double>(v.size());
  double s1 = 0, s2 = 0, s4 = 0;
  for (float x : v) {
    double const d = x;
    s1 += d;
    s2 += d * d;
    s4 += d * d * d * d;
  }
  double const m1 = s1 / n, m2 = s2 / n;
  CHECK(std::abs(m1 - mean) <= 5 * std::sqrt((m2 - m1 * m1) / n));
  CHECK(std::abs(m2 - second) <= 5 * std::sqrt((s4 / n - m2 * m2) / n));
}

// A column of a (rows, k) draw.
Array<float> column(Array<float> const& x, std::int32_t j) {
  return jnp::take(x, jnp::array<std::int32_t>(j), 1);
}

TEST_CASE("random gamma family: the first two moments of 10^6 draws (5 * 10^4 at -O0)", "[random][gamma][moments]") {
  constexpr std::int64_t n = jaxcc_test::moment_draws(50000);
  auto const keys = jr::split(jr::key(2024), 12);
  auto const draws = jaxcc::jit([](jr::KeyArray const& ks) {
    Shape const s{n};
    return std::tuple{jr::gamma(ks[0], 0.5, s), jr::gamma(ks[1], 3.0, s), jr::loggamma(ks[2], 2.0, s),
                      jr::beta(ks[3], 2.0, 3.0, s), jr::chisquare(ks[4], 3.0, s), jr::f(ks[5], 5.0, 20.0, s),
                      jr::t(ks[6], 10.0, s), jr::generalized_normal(ks[7], 1.0, s),
                      jr::dirichlet(ks[8], jnp::array<float>({1.f, 2.f, 3.f}), Shape{n / 4}),
                      jr::ball(ks[9], 3, 2.0, {n / 4})};
  })(keys);
  auto const& [g05, g3, lg2, b23, chi3, f520, t10, gn1, dir, ball3] = draws;
  check_moments(g05, 0.5, 0.5 + 0.25);  // Gamma(a): mean a, variance a
  check_moments(g3, 3.0, 3.0 + 9.0);
  // log Gamma(2): mean digamma(2), variance trigamma(2).
  double const dg2 = 0.42278433509846713, tg2 = 0.6449340668482264;
  check_moments(lg2, dg2, tg2 + dg2 * dg2);
  check_moments(b23, 0.4, 0.04 + 0.16);  // Beta(2, 3)
  check_moments(chi3, 3.0, 6.0 + 9.0);
  double const f_mean = 20.0 / 18.0, f_var = 2.0 * 400.0 * 23.0 / (5.0 * 324.0 * 16.0);
  check_moments(f520, f_mean, f_var + f_mean * f_mean);
  check_moments(t10, 0.0, 10.0 / 8.0);
  check_moments(gn1, 0.0, 2.0);  // p = 1: Laplace
  // Dirichlet(1, 2, 3): each component Beta(a_i, 6 - a_i).
  for (std::int32_t j = 0; j < 3; ++j) {
    double const a = j + 1.0, m = a / 6.0;
    check_moments(column(dir, j), m, a * (6.0 - a) / (36.0 * 7.0) + m * m);
  }
  // Uniform in the unit 3-ball: each coordinate mean 0, E[x^2] = 1 / (d + 2).
  for (std::int32_t j = 0; j < 3; ++j) check_moments(column(ball3, j), 0.0, 0.2);
}

// The derivative of a Gamma(a) sample z in a, as JAX's own test computes
// it: -(d/da CDF(z; a)) / pdf(z; a), the CDF's derivative by central
// differences of the regularized incomplete gamma function.
std::vector<double> implicit_gamma_grad(std::vector<double> const& a, std::vector<double> const& z) {
  std::vector<double> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double const eps = 0.01 * a[i] / (1.0 + std::sqrt(a[i]));
    auto const cdf = [&](double alpha) {
      return Array<double>(jaxcc::lax::igamma(jnp::array<double>(alpha), jnp::array<double>(z[i]))).item();
    };
    double const cdf_dot = (cdf(a[i] + eps) - cdf(a[i] - eps)) / (2 * eps);
    double const pdf = std::exp((a[i] - 1) * std::log(z[i]) - z[i] - std::lgamma(a[i]));
    out.push_back(-cdf_dot / pdf);
  }
  return out;
}

TEST_CASE("random gamma family: gradients flow to the shape parameters (JAX's implicit reparameterization)",
          "[random][gamma][grad]") {
  auto const k = jr::key(11);
  auto const a = jnp::array<double>({0.3, 0.9, 1.7, 4.0, 12.0});
  auto const sum_of = [](auto sampler) { return [sampler](Array<double> const& x) { return jnp::sum(sampler(x)); }; };
  // gamma: the gradient is -dCDF/da / pdf at the sample, to the error of
  // the central differences (1e-5 relative here) (finite differences
  // of the sampler itself would not give it: the rejection sampler's path
  // in a is not the quantile path the reparameterization differentiates).
  auto const z = jr::gamma<double>(k, a);
  auto const g = jaxcc::grad(sum_of([&](Array<double> const& x) { return jr::gamma<double>(k, x); }))(a);
  auto const expected = implicit_gamma_grad(a.to_vector(), z.to_vector());
  for (std::size_t i = 0; i < expected.size(); ++i) CHECK(std::abs(g.to_vector()[i] - expected[i]) <= 1e-4 * std::abs(expected[i]));
  // loggamma: d log z / da = (dz / da) / z.
  auto const lz = jr::loggamma<double>(k, a);
  auto const lg = jaxcc::grad(sum_of([&](Array<double> const& x) { return jr::loggamma<double>(k, x); }))(a);
  auto const expected_log = implicit_gamma_grad(a.to_vector(), Array<double>(jnp::exp(lz)).to_vector());
  for (std::size_t i = 0; i < expected_log.size(); ++i)
    CHECK(std::abs(lg.to_vector()[i] - expected_log[i] / std::exp(lz.to_vector()[i])) <= 1e-4 * std::abs(lg.to_vector()[i]));
  // Forward mode gives the same: the JVP along t is t times the gradient.
  auto const t = jnp::array<double>({1.0, -2.0, 0.5, 3.0, 1.0});
  auto const [value, tangent] = jaxcc::jvp([&](Array<double> const& x) { return jr::gamma<double>(k, x); }, std::tuple{a},
                                           std::tuple{t});
  CHECK(jaxcc::testing::allclose(value, z, 0, 0));
  CHECK(jaxcc::testing::allclose(tangent, t * g, 1e-12, 0));

  // beta(a, b) = ga / (ga + gb) for ga, gb the log-gamma draws of split(key):
  // d/da = gb / (ga + gb)^2 * dga/da, with dga/da = random_gamma_grad(a, ga).
  auto const b = jnp::array<double>({2.0, 0.5, 1.0, 3.0, 0.7});
  auto const keys = jr::split(k);
  auto const ga = jnp::exp(jr::loggamma<double>(keys[0], a)), gb = jnp::exp(jr::loggamma<double>(keys[1], b));
  auto const beta_grad = jaxcc::grad(sum_of([&](Array<double> const& x) { return jr::beta<double>(k, x, b); }))(a);
  Array<double> const beta_expected = gb / ((ga + gb) * (ga + gb)) * jaxcc::lax::random_gamma_grad(a, ga);
  CHECK(jaxcc::testing::allclose(beta_grad, beta_expected, 1e-9, 1e-12));

  // dirichlet(alpha) = G / sum(G), G = exp(loggamma(key, alpha)): the
  // gradient of sum(w * x) in alpha_j is (w_j S - sum(w G)) / S^2 dG_j.
  auto const w = jnp::array<double>({1.0, -1.0, 2.0, 0.5, 0.0});
  auto const dg = jaxcc::grad([&](Array<double> const& x) { return jnp::sum(w * jr::dirichlet<double>(k, x)); })(a);
  auto const gs = jnp::exp(jr::loggamma<double>(k, a));
  auto const s = jnp::sum(gs);
  Array<double> const dir_expected = (w * s - jnp::sum(w * gs)) / (s * s) * jaxcc::lax::random_gamma_grad(a, gs);
  CHECK(jaxcc::testing::allclose(dg, dir_expected, 1e-9, 1e-12));

  // JAX defines no derivative of random_gamma_grad: order 2 raises.
  CHECK(message_of([&] {
          (void)jaxcc::grad([&](Array<double> const& x) {
            return jnp::sum(jaxcc::grad(sum_of([&](Array<double> const& y) { return jr::gamma<double>(k, y); }))(x));
          })(a);
        }) == "random_gamma_grad: differentiation rule not implemented (as in JAX)");
}

TEST_CASE("random gamma family: vmap over keys and parameters equals a loop; jit equals eager", "[random][gamma][vmap]") {
  auto const keys = jr::split(jr::key(5), 4);
  auto const as = jnp::array<float>({0.2f, 0.7f, 1.5f, 6.0f});
  // Keys and a both mapped: random_gamma's batching rule.
  auto const both = jaxcc::vmap([](jr::KeyArray const& k, Array<float> const& a) { return jr::gamma(k, a, Shape{3}); })(
      keys, as);
  for (std::int32_t i = 0; i < 4; ++i) {
    auto const row = jnp::take(both, jnp::array<std::int32_t>(i), 0);
    CHECK(row.to_vector() == jr::gamma(keys[i], as.to_vector()[static_cast<std::size_t>(i)], Shape{3}).to_vector());
  }
  // One key, mapped parameters; and the batching rule's derivatives.
  auto const key_data = jr::key_data(jr::key(8));
  auto const f = [](Array<std::uint32_t> const& k, Array<double> const& a) { return jr::beta<double>(k, a, 2.0, Shape{2}); };
  auto const a2 = jnp::array<double>({0.4, 0.9, 3.0});
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(jaxcc::none, 0), key_data, a2));
  auto const gk = [](Array<std::uint32_t> const& k, Array<double> const& a) { return jr::loggamma<double>(k, a); };
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(gk, jaxcc::in_axes(0, 0), jr::key_data(jr::split(jr::key(1), 3)),
                                                    jnp::array<double>({0.4, 0.9, 3.0, 0.1, 2.0, 5.0}).reshape({3, 2})));
  // jit gives the eager values.
  auto const all = [](jr::KeyArray const& k, Array<float> const& a) {
    return std::tuple{jr::gamma(k, a), jr::t(k, a), jr::dirichlet(k, a, Shape{2}), jr::ball(k, 2, 1.5, {3}),
                      jr::generalized_normal(k, 3.0, {4})};
  };
  CHECK_NOTHROW(jaxcc::testing::check_jit(all, jr::key(3), as));
}

TEST_CASE("random gamma family: JAX's errors for bad shapes and parameters", "[random][gamma][errors]") {
  auto const k = jr::key(0);
  auto const a3 = jnp::ones<float>({3});
  CHECK(message_of([&] { (void)jr::gamma(k, a3, Shape{2}); }) == "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]");
  CHECK(message_of([&] { (void)jr::gamma(k, a3, Shape{2, 1}); }) ==
        "gamma parameter shapes must be broadcast-compatible with shape argument, and the result of broadcasting the "
        "shapes must equal the shape argument, but got result (2, 3) for shape argument (2, 1).");
  CHECK(message_of([&] { (void)jr::beta(k, a3, 1.0, Shape{4}); }) ==
        "Incompatible shapes for broadcasting: shapes=[(4,), (3,), ()]");
  CHECK(message_of([&] { (void)jr::dirichlet(k, jnp::array<float>(1.f)); }) ==
        "dirichlet requires alpha.ndim >= 1, got alpha.ndim == 0");
  CHECK(message_of([&] { (void)jr::dirichlet(k, jnp::ones<float>({2, 3}), Shape{4}); }) ==
        "Incompatible shapes for broadcasting: shapes=[(4,), (2,)]");
  CHECK(message_of([&] { (void)jr::gamma(jr::split(k, 2), 1.0); }) ==
        "gamma accepts a single key, but was given a key array of shape (2,) != (). Use jax.vmap for batching.");
  // Shapes: a's by default, or the given one; empty draws.
  CHECK(jr::gamma(k, jnp::ones<float>({2, 3})).shape() == Shape{2, 3});
  CHECK(jr::gamma(k, a3, Shape{4, 3}).shape() == Shape{4, 3});
  CHECK(jr::gamma(k, 1.0, Shape{0, 2}).shape() == Shape{0, 2});
  CHECK(jr::dirichlet(k, jnp::ones<float>({0, 3})).shape() == Shape{0, 3});
  CHECK(jr::ball(k, 0, 2.0, {2}).shape() == Shape{2, 0});
  // 0-d and empty parameters, eager and under jit.
  auto const kd = jr::key_data(k);
  CHECK_NOTHROW(jaxcc::testing::check_edges([](Array<std::uint32_t> const& key, Array<float> const& a) {
    return std::tuple{jr::gamma(key, a), jr::beta(key, a, a), jr::t(key, a)};
  }, kd, jnp::full<float>({2, 3}, 1.5f)));
  CHECK_NOTHROW(jaxcc::testing::check_edges([](Array<std::uint32_t> const& key, Array<float> const& a) {
    return jr::dirichlet(key, a);
  }, kd, jnp::full<float>({2, 3}, 1.5f)));
  // a = nan gives nan, a = 0 gives 0, as in JAX.
  auto const edge = jr::gamma(k, jnp::array<float>({NAN, 0.f})).to_vector();
  CHECK(std::isnan(edge[0]));
  CHECK(edge[1] == 0.f);
}

}  // namespace test_random_gamma
