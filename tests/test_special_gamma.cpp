// jax.scipy.special's gamma family (scipy/special/gamma.hpp), incomplete
// gamma and beta functions (scipy/special/incomplete.hpp, lax/special.hpp's
// igamma, igammac, igamma_grad_a, random_gamma_grad, betainc) and zeta and
// bernoulli (scipy/special/zeta.hpp): values at float32 and float64 and
// gradients against JAX's (tests/golden/special_cases.py), edge values
// (poles, 0, inf, nan) among them; check_grads, vmap and jit; the
// derivatives JAX does not define raise.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "special_golden.hpp"
#include "support.hpp"

namespace test_special_gamma {

namespace jnp = jaxcc::numpy;
namespace sp = jaxcc::scipy::special;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using special_golden::check_grad;
using special_golden::check_values;
using special_golden::Fn;

namespace {

template <class T>
using Args = std::vector<Array<T>>;

template <class T>
Fn<T> function_of(std::string const& name) {
  if (name == "gammaln") return [](Args<T> const& a) { return sp::gammaln(a[0]); };
  if (name == "gammasgn") return [](Args<T> const& a) { return sp::gammasgn(a[0]); };
  if (name == "gamma") return [](Args<T> const& a) { return sp::gamma(a[0]); };
  if (name == "loggamma") return [](Args<T> const& a) { return sp::loggamma(a[0]); };
  if (name == "digamma") return [](Args<T> const& a) { return sp::digamma(a[0]); };
  if (name == "polygamma")
    return [](Args<T> const& a) { return sp::polygamma(a[0].template astype<std::int32_t>(), a[1]); };
  if (name == "beta") return [](Args<T> const& a) { return sp::beta(a[0], a[1]); };
  if (name == "betaln") return [](Args<T> const& a) { return sp::betaln(a[0], a[1]); };
  if (name == "factorial") return [](Args<T> const& a) { return sp::factorial(a[0]); };
  if (name == "comb") return [](Args<T> const& a) { return sp::comb(a[0], a[1]); };
  if (name == "comb_repetition") return [](Args<T> const& a) { return sp::comb(a[0], a[1], true); };
  if (name == "poch") return [](Args<T> const& a) { return sp::poch(a[0], a[1]); };
  if (name == "multigammaln") return [](Args<T> const& a) { return sp::multigammaln(a[0], 3); };
  if (name == "gammainc") return [](Args<T> const& a) { return Array<T>(sp::gammainc(a[0], a[1])); };
  if (name == "gammaincc") return [](Args<T> const& a) { return Array<T>(sp::gammaincc(a[0], a[1])); };
  if (name == "igamma_grad_a") return [](Args<T> const& a) { return Array<T>(lax::igamma_grad_a(a[0], a[1])); };
  if (name == "random_gamma_grad")
    return [](Args<T> const& a) { return Array<T>(lax::random_gamma_grad(a[0], a[1])); };
  if (name == "betainc") return [](Args<T> const& a) { return Array<T>(sp::betainc(a[0], a[1], a[2])); };
  if (name == "zeta") return [](Args<T> const& a) { return Array<T>(sp::zeta(a[0], a[1])); };
  throw std::runtime_error("no function " + name);
}

// float32: jaxcc computes lgamma and digamma in double and rounds, XLA in
// float32, so a few ulp apart (more where gamma and beta exponentiate).
template <class T>
void check_all(std::vector<std::string> const& names, double rtol32, double rtol64) {
  bool const wide = sizeof(T) == 8;
  for (auto const& name : names)
    CHECK(check_values<T>(name, function_of<T>(name), wide ? rtol64 : rtol32, wide ? 1e-14 : 1e-6) == "");
}

}  // namespace

TEST_CASE("gammaln, gammasgn, gamma, loggamma, digamma, polygamma: JAX's values at the poles, 0, inf and nan",
          "[special][golden]") {
  std::vector<std::string> const names{"gammaln", "gammasgn", "gamma", "loggamma", "digamma", "polygamma"};
  check_all<float>(names, 2e-5, 1e-12);
  check_all<double>(names, 2e-5, 1e-12);
}

TEST_CASE("beta, betaln, factorial, comb, poch, multigammaln: JAX's values", "[special][golden]") {
  std::vector<std::string> const names{"beta", "betaln", "factorial", "comb", "comb_repetition", "poch", "multigammaln"};
  check_all<float>(names, 5e-5, 1e-12);
  check_all<double>(names, 5e-5, 1e-12);
}

TEST_CASE("gammainc, gammaincc, igamma_grad_a, random_gamma_grad, betainc, zeta: JAX's values and edges",
          "[special][golden]") {
  std::vector<std::string> const names{"gammainc", "gammaincc", "igamma_grad_a", "random_gamma_grad", "betainc", "zeta"};
  check_all<float>(names, 2e-5, 1e-11);
  check_all<double>(names, 2e-5, 1e-11);
}

TEST_CASE("bernoulli: JAX's first Bernoulli numbers", "[special][golden]") {
  auto const& c32 = special_golden::find("bernoulli", 32);
  CHECK(special_golden::mismatch("bernoulli", special_golden::as_doubles(sp::bernoulli(12)), c32.values, 1e-6, 1e-7) == "");
  auto const& c64 = special_golden::find("bernoulli", 64);
  CHECK(special_golden::mismatch("bernoulli", special_golden::as_doubles(sp::bernoulli<double>(12)), c64.values, 1e-13,
                                 1e-15) == "");
  CHECK(sp::bernoulli(1).to_vector() == std::vector<float>{1.0f, -0.5f});
  CHECK(jaxcc_test::message_of([] { (void)sp::bernoulli(-1); }) ==
        "bernoulli: n must be a non-negative integer, got -1");
}

TEST_CASE("the gamma family's gradients are JAX's", "[special][golden][grad]") {
  CHECK(check_grad("gammaln_grad", function_of<double>("gammaln"), 0, 1e-12, 1e-14) == "");
  CHECK(check_grad("gamma_grad", function_of<double>("gamma"), 0, 1e-12, 1e-14) == "");
  CHECK(check_grad("polygamma", function_of<double>("polygamma"), 1, 1e-10, 1e-14) == "");
  CHECK(check_grad("beta", function_of<double>("beta"), 0, 1e-10, 1e-14) == "");
  CHECK(check_grad("betaln", function_of<double>("betaln"), 0, 1e-10, 1e-14) == "");
  CHECK(check_grad("poch", function_of<double>("poch"), 0, 1e-10, 1e-14) == "");
  CHECK(check_grad("multigammaln", function_of<double>("multigammaln"), 0, 1e-12, 1e-14) == "");
  CHECK(check_grad("gammainc_grad_x", function_of<double>("gammainc"), 1, 1e-10, 1e-14) == "");
  CHECK(check_grad("gammainc_grad_a", function_of<double>("gammainc"), 0, 1e-9, 1e-14) == "");
  CHECK(check_grad("gammaincc_grad_a", function_of<double>("gammaincc"), 0, 1e-9, 1e-14) == "");
  CHECK(check_grad("betainc_grad", function_of<double>("betainc"), 2, 1e-10, 1e-14) == "");
  CHECK(check_grad("zeta_grad_q", function_of<double>("zeta"), 1, 1e-10, 1e-14) == "");
}

TEST_CASE("the gamma family passes check_grads, check_batching_rule and check_jit", "[special][grad][vmap]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  auto const x = jnp::array<double>({0.7, 1.5, 3.25, 6.0});
  auto const y = jnp::array<double>({1.2, 0.4, 2.5, 5.0});
  auto const u = jnp::array<double>({0.2, 0.45, 0.7, 0.9});
  auto const gamma = [](Array<double> const& a) { return sp::gamma(a); };
  auto const betaln = [](Array<double> const& a, Array<double> const& b) { return sp::betaln(a, b); };
  auto const comb = [](Array<double> const& a, Array<double> const& b) { return sp::comb(Array<double>(a + 6.0), b); };
  // Second order in x; in a the second derivative would differentiate igamma_grad_a, which JAX does not.
  auto const gammainc_x = [y](Array<double> const& b) { return Array<double>(sp::gammainc(y, b)); };
  auto const gammainc = [](Array<double> const& a, Array<double> const& b) { return Array<double>(sp::gammainc(a, b)); };
  auto const betainc_x = [x, y](Array<double> const& b) { return Array<double>(sp::betainc(x, y, b)); };
  auto const zeta_q = [x](Array<double> const& q) { return Array<double>(sp::zeta(Array<double>(x + 1.5), q)); };
  CHECK_NOTHROW(check_grads(gamma, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(betaln, std::tuple{x, y}, 2));
  CHECK_NOTHROW(check_grads(comb, std::tuple{x, y}, 2));
  CHECK_NOTHROW(check_grads(gammainc_x, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(gammainc, std::tuple{x, y}, 1));
  CHECK_NOTHROW(check_grads(betainc_x, std::tuple{u}, 2));
  CHECK_NOTHROW(check_grads(zeta_q, std::tuple{y}, 2));
  auto const xs = jnp::array<double>({{0.7, 1.5, 3.25}, {2.0, 4.5, 0.3}});
  auto const ys = jnp::array<double>({{1.2, 0.4, 2.5}, {0.5, 3.0, 1.1}});
  CHECK_NOTHROW(check_batching_rule(gammainc, jaxcc::in_axes(0, 0), xs, ys));
  CHECK_NOTHROW(check_batching_rule(betaln, jaxcc::in_axes(1, 0), xs.T(), ys));
  CHECK_NOTHROW(check_batching_rule(zeta_q, jaxcc::in_axes(1), jnp::array<double>({{1.2, 0.4}, {2.5, 5.0}, {0.7, 3.0}, {1.5, 0.9}})));
  CHECK_NOTHROW(jaxcc::testing::check_jit(gammainc, xs, ys));
  CHECK_NOTHROW(jaxcc::testing::check_jit(betainc_x, u));
}

TEST_CASE("the derivatives JAX does not define raise, and the dtypes promote as JAX's", "[special][grad][errors]") {
  auto const x = jnp::array<double>({0.5, 2.0});
  auto const sum_of = [](auto f) { return [f](Array<double> const& a) { return jnp::sum(f(a)); }; };
  CHECK(jaxcc_test::message_of([&] {
          (void)jaxcc::grad(sum_of([&](Array<double> const& a) { return Array<double>(sp::betainc(a, x, 0.5)); }))(x);
        }) == "betainc: the gradient with respect to a and b is not supported (as in JAX)");
  CHECK(jaxcc_test::message_of([&] {
          (void)jaxcc::grad(sum_of([&](Array<double> const& a) { return Array<double>(lax::igamma_grad_a(a, x)); }))(x);
        }) == "igamma_grad_a: differentiation rule not implemented (as in JAX)");
  CHECK(jaxcc_test::message_of([&] {
          (void)jaxcc::grad(sum_of([&](Array<double> const& a) { return Array<double>(sp::zeta(a, x)); }))(
              Array<double>(x + 2.0));
        }) == "zeta: the derivative with respect to x is not implemented");
  CHECK(jaxcc_test::message_of([&] { (void)sp::factorial(x, true); }) ==
        "factorial: exact=true is not implemented (as in JAX)");
  auto const i32 = jnp::array<std::int32_t>({1, 2, 3});
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(sp::gammainc(i32, 1.5))>, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(sp::gamma(i32)), Array<float>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sp::betaln(i32, jnp::array<std::int64_t>({1}))), Array<double>>);
  CHECK(sp::factorial(i32).to_vector() == std::vector<float>{1.0f, 2.0f, 6.0f});
}

TEST_CASE("the gamma family at 0-d and empty inputs", "[special][edges]") {
  CHECK_NOTHROW(jaxcc::testing::check_edges([](Array<double> const& a) { return sp::gamma(a); }, jnp::array<double>({1.5})));
  CHECK_NOTHROW(jaxcc::testing::check_edges(
      [](Array<double> const& a, Array<double> const& b) { return Array<double>(sp::gammainc(a, b)); },
      jnp::array<double>({1.5}), jnp::array<double>({0.5})));
}

}  // namespace test_special_gamma
