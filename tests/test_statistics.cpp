// jnp::average, ptp, amax, amin, cov, corrcoef (numpy/statistics.hpp,
// numpy/reductions.hpp) and jnp::percentile (numpy/quantile.hpp): values,
// dtypes and gradients against JAX's (tests/golden/statistics_cases.py);
// derivatives to second order against finite differences, batching rules
// against loops, jit against eager; JAX's errors.
#include "catch.hpp"

#include <cstdint>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "statistics_golden.hpp"
#include "support.hpp"

namespace test_statistics {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::none;
using namespace jaxcc_test::statistics_golden;
using jaxcc_test::message_of;

TEST_CASE("statistics match JAX", "[statistics]") {
  auto const q3 = jnp::array({10.0f, 50.0f, 90.0f});
  check(
      {
          {"average(a)", [] { return results(jnp::average(a())); }},
          {"average(a, 1)", [] { return results(jnp::average(a(), 1)); }},
          {"average(a, 1, wa)", [] { return results(jnp::average(a(), 1, wa())); }},
          {"average(a, 1, wa, returned=True)", [] { return results(jnp::average(a(), 1, wa(), jnp::returned)); }},
          {"average(a, None, a * a, keepdims=True)",
           [] { return results(jnp::average(a(), none, a() * a(), false, true)); }},
          {"average(i, 0, returned=True)", [] { return results(jnp::average(i(), 0, none, jnp::returned)); }},
          {"ptp(a)", [] { return results(jnp::ptp(a())); }},
          {"ptp(a, 1)", [] { return results(jnp::ptp(a(), 1)); }},
          {"ptp(i, 0, keepdims=True)", [] { return results(jnp::ptp(i(), 0, true)); }},
          {"cov(a)", [] { return results(jnp::cov(a())); }},
          {"cov(a, rowvar=False)", [] { return results(jnp::cov(a(), none, false)); }},
          {"cov(a[0], a[1])", [] { return results(jnp::cov(a()(0), a()(1))); }},
          {"cov(a[0])", [] { return results(jnp::cov(a()(0))); }},
          {"cov(a, bias=True)", [] { return results(jnp::cov(a(), none, true, true)); }},
          {"cov(a, ddof=2)", [] { return results(jnp::cov(a(), none, true, false, 2)); }},
          {"cov(a, fweights=f)", [] { return results(jnp::cov(a(), none, true, false, std::nullopt, f())); }},
          {"cov(a, aweights=wa)",
           [] { return results(jnp::cov(a(), none, true, false, std::nullopt, none, wa())); }},
          {"cov(a, fweights=f, aweights=wa)",
           [] { return results(jnp::cov(a(), none, true, false, std::nullopt, f(), wa())); }},
          {"cov(a, a[:, :2] * 2, False)",
           [] { return results(jnp::cov(a(), a()(jaxcc::all, jaxcc::slice(0, 2)) * 2.0f, false)); }},
          {"corrcoef(a)", [] { return results(jnp::corrcoef(a())); }},
          {"corrcoef(a[0], a[2])", [] { return results(jnp::corrcoef(a()(0), a()(2))); }},
          {"corrcoef(a[0])", [] { return results(jnp::corrcoef(a()(0))); }},
          {"corrcoef(i, rowvar=False)", [] { return results(jnp::corrcoef(i(), none, false)); }},
          {"percentile(a, 30)", [] { return results(jnp::percentile(a(), 30)); }},
          {"percentile(a, jnp.array([10.0, 50.0, 90.0]), 1)", [&] { return results(jnp::percentile(a(), q3, 1)); }},
          {"percentile(i, 75, 0, 'lower', True)", [] { return results(jnp::percentile(i(), 75, 0, "lower", true)); }},
      },
      2e-5);
}

TEST_CASE("statistics: gradients match JAX's", "[statistics][grad]") {
  auto const q3 = jnp::array({10.0f, 50.0f, 90.0f});
  auto const grad_of = [](auto const& f) { return [f] { return results(weighted_grad(f, a())); }; };
  check(
      {
          {"grad:average(a, 1, wa)", grad_of([](Array<float> const& x) { return jnp::average(x, 1, wa()); })},
          {"grad:average(a, None, a * a, keepdims=True)",
           grad_of([](Array<float> const& x) { return jnp::average(x, none, x * x, false, true); })},
          {"grad:ptp(a, 1)", grad_of([](Array<float> const& x) { return jnp::ptp(x, 1); })},
          {"grad:cov(a)", grad_of([](Array<float> const& x) { return jnp::cov(x); })},
          {"grad:cov(a, fweights=f, aweights=wa)",
           grad_of([](Array<float> const& x) { return jnp::cov(x, none, true, false, std::nullopt, f(), wa()); })},
          {"grad:corrcoef(a)", grad_of([](Array<float> const& x) { return jnp::corrcoef(x); })},
          {"grad:percentile(a, jnp.array([10.0, 50.0, 90.0]), 1)",
           grad_of([q3](Array<float> const& x) { return jnp::percentile(x, q3, 1); })},
      },
      2e-5);
}

TEST_CASE("statistics: derivatives to second order, batching rules, jit", "[statistics][grad][vmap][jit]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  auto const x = jaxcc_test::smooth({3, 5});
  auto const wt = jnp::array({0.5, 1.5, 1.0, 2.0, 0.75});
  auto const avg = [&](Array<double> const& m, Array<double> const& weights) { return jnp::average(m, -1, weights); };
  REQUIRE_NOTHROW(check_grads(avg, std::tuple{x, wt}, 2));
  REQUIRE_NOTHROW(check_batching_rule(avg, jaxcc::in_axes(0, jaxcc::none), x, wt));
  auto const ret = [](Array<double> const& m) { return jnp::average(m, 0, m * m, jnp::returned); };
  REQUIRE_NOTHROW(check_grads(ret, std::tuple{x}, 2));
  REQUIRE_NOTHROW(check_batching_rule(ret, jaxcc::in_axes(1), x));
  auto const range = [](Array<double> const& m) { return jnp::ptp(m, -1); };
  REQUIRE_NOTHROW(check_grads(range, std::tuple{x}, 2));
  REQUIRE_NOTHROW(check_batching_rule(range, jaxcc::in_axes(0), x));
  auto const covariance = [&](Array<double> const& m) { return jnp::cov(m, none, true, false, std::nullopt, none, wt); };
  REQUIRE_NOTHROW(check_grads(covariance, std::tuple{x}, 2));
  REQUIRE_NOTHROW(check_batching_rule(covariance, jaxcc::in_axes(2), jnp::stack({x, x * x}, 2)));
  auto const corr = [](Array<double> const& m) { return jnp::corrcoef(m, none, false); };
  REQUIRE_NOTHROW(check_grads(corr, std::tuple{x.T()}, 2));
  REQUIRE_NOTHROW(check_batching_rule(corr, jaxcc::in_axes(0), jnp::stack({x, jnp::cos(x)})));
  auto const pct = [](Array<double> const& m) { return jnp::percentile(m, jnp::array({20.0, 65.0}), 0); };
  REQUIRE_NOTHROW(check_grads(pct, std::tuple{x}, 2));
  REQUIRE_NOTHROW(check_batching_rule(pct, jaxcc::in_axes(1), x));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(jaxcc::grad([](Array<double> const& m) { return jnp::sum(jnp::cov(m)); }), x));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges(range, x));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<double> const& m) { return jnp::cov(m); }, x));
  // amax and amin are max and min.
  CHECK(jnp::amax(a(), 1).to_vector() == jnp::max(a(), 1).to_vector());
  CHECK(jnp::amin(a(), jaxcc::none, true, -10.0).to_vector() == std::vector<float>{-10.0f});
}

TEST_CASE("statistics: errors", "[statistics][errors]") {
  CHECK(message_of([] { jnp::average(a(), none, wa()); }) ==
        "average: axis must be specified when shapes of a and weights differ.");
  CHECK(message_of([] { jnp::average(a(), 0, wa()); }) ==
        "average: shape of weights (4,) must be consistent with shape of a (3, 4) along the specified axis: (3,)");
  CHECK(message_of([] { jnp::average(a(), 1, wa(), true); }) ==
        "average: returned=true gives two results: pass jnp::returned for the (average, sum of weights) tuple");
  CHECK(message_of([] { jnp::cov(jnp::zeros<float>({2, 2, 2})); }) ==
        "cov: m has more than 2 dimensions (shape (2, 2, 2))");
  CHECK(message_of([] { jnp::cov(a(), none, true, false, std::nullopt, jnp::array<std::int32_t>({1, 2})); }) ==
        "cov: incompatible numbers of samples and fweights: 4 and 2");
  CHECK(message_of([] { jnp::cov(a(), none, true, false, std::nullopt, none, jnp::ones<float>({4, 1})); }) ==
        "cov: cannot handle multidimensional aweights (shape (4, 1))");
  CHECK(message_of([] { jnp::ptp(jnp::zeros<float>({0, 2}), 0); }) ==
        "zero-size array to reduction operation max which has no identity (shape (0, 2), axes (0,))");
}

}  // namespace test_statistics
