// jax.scipy.special's error functions and normal distribution
// (scipy/special/error_functions.hpp), logistic functions (logistic.hpp),
// information-theory functions and Box-Cox transforms (entropy.hpp) and
// logsumexp, softmax and log_softmax (logsumexp.hpp), with erfcx, dawsn and
// owens_t: values at float32 and
// float64 and gradients against JAX's (tests/golden/special_cases.py), edge
// values among them; check_grads, vmap and jit; the errors.
#include "catch.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "special_golden.hpp"
#include "support.hpp"

namespace test_special_error_functions {

namespace jnp = jaxcc::numpy;
namespace sp = jaxcc::scipy::special;
using jaxcc::Array;
using special_golden::check_grad;
using special_golden::check_values;
using special_golden::Fn;

namespace {

template <class T>
using Args = std::vector<Array<T>>;

template <class T>
Fn<T> function_of(std::string const& name) {
  if (name == "erf") return [](Args<T> const& a) { return Array<T>(sp::erf(a[0])); };
  if (name == "erfc") return [](Args<T> const& a) { return Array<T>(sp::erfc(a[0])); };
  if (name == "erfinv") return [](Args<T> const& a) { return Array<T>(sp::erfinv(a[0])); };
  if (name == "ndtr") return [](Args<T> const& a) { return sp::ndtr(a[0]); };
  if (name == "ndtri") return [](Args<T> const& a) { return sp::ndtri(a[0]); };
  if (name == "log_ndtr") return [](Args<T> const& a) { return Array<T>(sp::log_ndtr(a[0])); };
  if (name == "log_ndtr_order5") return [](Args<T> const& a) { return Array<T>(sp::log_ndtr(a[0], 5)); };
  if (name == "erfcx") return [](Args<T> const& a) { return Array<T>(sp::erfcx(a[0])); };
  if (name == "dawsn") return [](Args<T> const& a) { return Array<T>(sp::dawsn(a[0])); };
  if (name == "owens_t") return [](Args<T> const& a) { return Array<T>(sp::owens_t(a[0], a[1])); };
  if (name == "expit") return [](Args<T> const& a) { return Array<T>(sp::expit(a[0])); };
  if (name == "logit") return [](Args<T> const& a) { return Array<T>(sp::logit(a[0])); };
  if (name == "xlogy") return [](Args<T> const& a) { return Array<T>(sp::xlogy(a[0], a[1])); };
  if (name == "xlog1py") return [](Args<T> const& a) { return Array<T>(sp::xlog1py(a[0], a[1])); };
  if (name == "entr") return [](Args<T> const& a) { return sp::entr(a[0]); };
  if (name == "rel_entr") return [](Args<T> const& a) { return sp::rel_entr(a[0], a[1]); };
  if (name == "kl_div") return [](Args<T> const& a) { return sp::kl_div(a[0], a[1]); };
  if (name == "boxcox") return [](Args<T> const& a) { return sp::boxcox(a[0], a[1]); };
  if (name == "boxcox1p") return [](Args<T> const& a) { return sp::boxcox1p(a[0], a[1]); };
  throw std::runtime_error("no function " + name);
}

// erf and ndtr (which takes erf of every element) at float64 are checked at
// finite arguments only: lax::erf's float64 SIMD kernel (xsimd::erf) turns
// exp(-x^2) into an integer exponent that is undefined for inf and nan
// arguments (UndefinedBehaviorSanitizer reports it; erf_p, in
// fusion/elementwise_functions.hpp, has no exp_domain guard).
template <class T>
void check_all(std::vector<std::string> const& names, double rtol32, double rtol64) {
  bool const wide = sizeof(T) == 8;
  for (auto const& name : names) {
    bool const finite = wide && (name == "erf" || name == "ndtr");
    CHECK(check_values<T>(name, function_of<T>(name), wide ? rtol64 : rtol32, wide ? 1e-15 : 1e-7, finite) == "");
  }
}

template <class T>
Array<T> matrix() {
  constexpr T inf = std::numeric_limits<T>::infinity();
  return jnp::array<T>({{T(0.5), T(-1.0), T(2.0)}, {T(3.0), T(0.25), -inf}});
}
template <class T>
Array<T> scales() {
  return jnp::array<T>({{T(1.0), T(-2.0), T(0.5)}, {T(0.0), T(1.5), T(2.0)}});
}

template <class T>
void check_reductions(double rtol) {
  auto const m = matrix<T>(), b = scales<T>();
  int const bits = sizeof(T) * 8;
  auto const check = [&](std::string const& name, Array<T> const& got) {
    CHECK(special_golden::mismatch(name, special_golden::as_doubles(got), special_golden::find(name, bits).values, rtol,
                                   1e-7) == "");
  };
  check("logsumexp", sp::logsumexp(m));
  check("logsumexp_axis1", sp::logsumexp(m, 1));
  check("logsumexp_b", sp::logsumexp(m, 1, b));
  check("logsumexp_b_axis0", sp::logsumexp(m, 0, b, true));
  check("softmax", sp::softmax(m));
  check("log_softmax", sp::log_softmax(m, 0));
  CHECK(sp::logsumexp(m, 0, b, true).shape() == jaxcc::Shape{1, 3});
}

}  // namespace

TEST_CASE("erf, erfc, erfinv, ndtr, ndtri, log_ndtr, erfcx, dawsn: JAX's values, tails and edges", "[special][golden]") {
  std::vector<std::string> const names{"erf",      "erfc",  "erfinv", "ndtr", "ndtri", "log_ndtr", "log_ndtr_order5",
                                       "erfcx",    "dawsn", "owens_t"};
  check_all<float>(names, 1e-5, 1e-13);
  check_all<double>(names, 1e-5, 1e-13);
}

TEST_CASE("expit, logit, xlogy, xlog1py, entr, rel_entr, kl_div, boxcox, boxcox1p: JAX's values and edges",
          "[special][golden]") {
  std::vector<std::string> const names{"expit", "logit", "xlogy", "xlog1py", "entr", "rel_entr", "kl_div", "boxcox", "boxcox1p"};
  check_all<float>(names, 1e-6, 1e-14);
  check_all<double>(names, 1e-6, 1e-14);
}

TEST_CASE("logsumexp (with scale factors b), softmax and log_softmax: JAX's values", "[special][golden]") {
  check_reductions<float>(1e-6);
  check_reductions<double>(1e-14);
}

TEST_CASE("the gradients are JAX's, its custom rules at x = 0 included", "[special][golden][grad]") {
  CHECK(check_grad("ndtr_grad", function_of<double>("ndtr"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("ndtri_grad", function_of<double>("ndtri"), 0, 1e-10, 1e-15) == "");
  CHECK(check_grad("log_ndtr_grad", function_of<double>("log_ndtr"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("erfcx_grad", function_of<double>("erfcx"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("dawsn_grad", function_of<double>("dawsn"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("owens_t_grad_h", function_of<double>("owens_t"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("owens_t_grad_a", function_of<double>("owens_t"), 1, 1e-12, 1e-15) == "");
  CHECK(check_grad("logit_grad", function_of<double>("logit"), 0, 1e-13, 1e-15) == "");
  CHECK(check_grad("xlogy_grad", function_of<double>("xlogy"), 0, 1e-13, 1e-15) == "");
  CHECK(check_grad("xlogy_grad_y", function_of<double>("xlogy"), 1, 1e-13, 1e-15) == "");
  CHECK(check_grad("xlog1py_grad", function_of<double>("xlog1py"), 0, 1e-13, 1e-15) == "");
  CHECK(check_grad("entr_grad", function_of<double>("entr"), 0, 1e-13, 1e-15) == "");
  CHECK(check_grad("kl_div_grad", function_of<double>("kl_div"), 0, 1e-13, 1e-15) == "");
  CHECK(check_grad("boxcox", function_of<double>("boxcox"), 0, 1e-13, 1e-15) == "");
}

TEST_CASE("the error and entropy functions pass check_grads, check_batching_rule and check_jit", "[special][grad][vmap]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  auto const x = jnp::array<double>({-2.5, -0.4, 0.3, 1.7});
  auto const p = jnp::array<double>({0.2, 0.35, 0.6, 0.8});
  auto const q = jnp::array<double>({0.5, 1.5, 0.2, 2.0});
  auto const log_ndtr = [](Array<double> const& a) { return Array<double>(sp::log_ndtr(a)); };
  auto const ndtri = [](Array<double> const& a) { return sp::ndtri(a); };
  auto const logit = [](Array<double> const& a) { return Array<double>(sp::logit(a)); };
  auto const xlogy = [](Array<double> const& a, Array<double> const& b) { return Array<double>(sp::xlogy(a, b)); };
  auto const kl_div = [](Array<double> const& a, Array<double> const& b) { return sp::kl_div(a, b); };
  auto const boxcox1p = [](Array<double> const& a, Array<double> const& b) { return sp::boxcox1p(a, b); };
  auto const logsumexp_b = [](Array<double> const& a, Array<double> const& b) { return sp::logsumexp(a, 0, b); };
  CHECK_NOTHROW(check_grads(log_ndtr, std::tuple{Array<double>(x * 10.0)}, 2));
  CHECK_NOTHROW(check_grads(ndtri, std::tuple{p}, 2));
  CHECK_NOTHROW(check_grads(logit, std::tuple{p}, 2));
  CHECK_NOTHROW(check_grads([](Array<double> const& a) { return Array<double>(sp::erfcx(a)); }, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads([](Array<double> const& a) { return Array<double>(sp::dawsn(a)); }, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(xlogy, std::tuple{x, q}, 2));
  auto const owens_t = [](Array<double> const& h, Array<double> const& a) { return Array<double>(sp::owens_t(h, a)); };
  CHECK_NOTHROW(check_grads(owens_t, std::tuple{x, Array<double>(q - 1.0)}, 2));
  CHECK_NOTHROW(check_grads(kl_div, std::tuple{p, q}, 2));
  CHECK_NOTHROW(check_grads(boxcox1p, std::tuple{q, x}, 2));
  CHECK_NOTHROW(check_grads(logsumexp_b, std::tuple{x, q}, 2));
  auto const xs = jnp::array<double>({{-2.5, -0.4, 0.3}, {1.7, 0.0, 4.0}});
  auto const ys = jnp::array<double>({{0.5, 1.5, 0.2}, {2.0, 0.7, 1.1}});
  CHECK_NOTHROW(check_batching_rule(xlogy, jaxcc::in_axes(0, 1), xs, ys.T()));
  CHECK_NOTHROW(check_batching_rule(log_ndtr, jaxcc::in_axes(0), Array<double>(xs * 8.0)));
  CHECK_NOTHROW(check_batching_rule(owens_t, jaxcc::in_axes(1, 0), xs.T(), ys));
  CHECK_NOTHROW(check_batching_rule(logsumexp_b, jaxcc::in_axes(1, 1), xs, ys));
  CHECK_NOTHROW(jaxcc::testing::check_jit(kl_div, ys, ys.T().T()));
  CHECK_NOTHROW(jaxcc::testing::check_jit(ndtri, Array<double>(ys / 3.0)));
}

TEST_CASE("xlogy and entr differentiate at 0 as JAX's custom rules; errors and dtypes", "[special][grad][errors]") {
  // d/dx xlogy(x, y) at x = 0 is log(y) (JAX's rule), not the 0 of where(x != 0, ...).
  auto const dx = jaxcc::grad([](Array<double> const& a) { return jnp::sum(sp::xlogy(a, 2.0)); })(jnp::array<double>({0.0}));
  CHECK(Array<double>(dx).to_vector()[0] == Catch::Approx(std::log(2.0)));
  CHECK(jaxcc_test::message_of([] { (void)sp::log_ndtr(jnp::array<double>({1.0}), 31); }) ==
        "log_ndtr: series_order must be <= 30, got 31");
  CHECK(jaxcc_test::message_of([] { (void)sp::log_ndtr(jnp::array<double>({1.0}), -1); }) ==
        "log_ndtr: series_order must be non-negative, got -1");
  auto const i32 = jnp::array<std::int32_t>({0, 1, 2});
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(sp::xlogy(i32, 2))>, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(sp::entr(jnp::array<std::int64_t>({1}))), Array<double>>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(sp::expit(i32))>, float>);
  CHECK(Array<float>(sp::xlogy(i32, 2)).to_vector() == std::vector<float>{0.0f, std::log(2.0f), 2 * std::log(2.0f)});
  CHECK_NOTHROW(jaxcc::testing::check_edges([](Array<double> const& a) { return sp::ndtri(a); }, jnp::array<double>({0.3})));
  CHECK_NOTHROW(jaxcc::testing::check_edges(
      [](Array<double> const& a, Array<double> const& b) { return sp::rel_entr(a, b); }, jnp::array<double>({0.3}),
      jnp::array<double>({0.6})));
}

}  // namespace test_special_error_functions
