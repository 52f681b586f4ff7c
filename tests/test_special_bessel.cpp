// jax.scipy.special's modified Bessel functions (scipy/special/bessel.hpp;
// lax.bessel_i0e and bessel_i1e, lax/special.hpp), jnp::i0 and
// jnp::kaiser (numpy/bessel.hpp) and the exponential integrals expi, exp1,
// expn, sici and the dilogarithm spence (scipy/special/exponential_integrals.hpp): values at float32 and
// float64 and gradients against JAX's (tests/golden/special_cases.py),
// edge values among them; check_grads, vmap and jit.
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

namespace test_special_bessel {

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
  if (name == "i0e") return [](Args<T> const& a) { return Array<T>(sp::i0e(a[0])); };
  if (name == "i0") return [](Args<T> const& a) { return Array<T>(sp::i0(a[0])); };
  if (name == "i1e") return [](Args<T> const& a) { return Array<T>(sp::i1e(a[0])); };
  if (name == "i1") return [](Args<T> const& a) { return Array<T>(sp::i1(a[0])); };
  if (name == "jnp_i0") return [](Args<T> const& a) { return jnp::i0(a[0]); };
  if (name == "expi") return [](Args<T> const& a) { return Array<T>(sp::expi(a[0])); };
  if (name == "exp1") return [](Args<T> const& a) { return Array<T>(sp::exp1(a[0])); };
  if (name == "spence") return [](Args<T> const& a) { return sp::spence(a[0]); };
  if (name == "sici_si") return [](Args<T> const& a) { return std::get<0>(sp::sici(a[0])); };
  if (name == "sici_ci") return [](Args<T> const& a) { return std::get<1>(sp::sici(a[0])); };
  if (name == "expn") return [](Args<T> const& a) { return Array<T>(sp::expn(a[0], a[1])); };
  throw std::runtime_error("no function " + name);
}

template <class T>
void check_all(std::vector<std::string> const& names, double rtol32, double rtol64) {
  bool const wide = sizeof(T) == 8;
  for (auto const& name : names)
    CHECK(check_values<T>(name, function_of<T>(name), wide ? rtol64 : rtol32, wide ? 1e-15 : 1e-7) == "");
}

}  // namespace

TEST_CASE("i0e, i0, i1e, i1 and jnp::i0: JAX's values, with 0, inf and nan", "[special][golden]") {
  std::vector<std::string> const names{"i0e", "i0", "i1e", "i1", "jnp_i0"};
  check_all<float>(names, 2e-6, 1e-14);
  check_all<double>(names, 2e-6, 1e-14);
}

TEST_CASE("expi, exp1, expn, spence, sici: JAX's values and edges", "[special][golden]") {
  std::vector<std::string> const names{"expi", "exp1", "expn", "spence", "sici_si", "sici_ci"};
  check_all<float>(names, 2e-6, 1e-13);
  check_all<double>(names, 2e-6, 1e-13);
}

TEST_CASE("kaiser: JAX's window", "[special][golden]") {
  CHECK(special_golden::mismatch("kaiser", special_golden::as_doubles(jnp::kaiser(6, 2.5)),
                                 special_golden::find("kaiser", 32).values, 1e-6, 1e-7) == "");
  CHECK(special_golden::mismatch("kaiser", special_golden::as_doubles(jnp::kaiser<double>(6, 2.5)),
                                 special_golden::find("kaiser", 64).values, 1e-14, 1e-15) == "");
  CHECK(jnp::kaiser(1, 2.5).to_vector() == std::vector<float>{1.0f});
  CHECK(jnp::kaiser(0, 2.5).shape() == jaxcc::Shape{0});
  CHECK(jaxcc_test::message_of([] { (void)jnp::kaiser(-1, 2.5); }) ==
        "kaiser: the window size M must be nonnegative, got -1");
}

TEST_CASE("the Bessel functions' and exponential integrals' gradients are JAX's", "[special][golden][grad]") {
  CHECK(check_grad("i0e_grad", function_of<double>("i0e"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("i1e_grad", function_of<double>("i1e"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("jnp_i0", function_of<double>("jnp_i0"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("expi_grad", function_of<double>("expi"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("exp1_grad", function_of<double>("exp1"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("spence_grad", function_of<double>("spence"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("sici_si_grad", function_of<double>("sici_si"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("sici_ci_grad", function_of<double>("sici_ci"), 0, 1e-12, 1e-15) == "");
  CHECK(check_grad("expn_grad", function_of<double>("expn"), 1, 1e-12, 1e-15) == "");
}

TEST_CASE("the Bessel functions and exponential integrals pass check_grads, check_batching_rule and check_jit",
          "[special][grad][vmap]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  auto const x = jnp::array<double>({-3.5, -0.4, 0.3, 1.7, 12.0});
  auto const pos = jnp::array<double>({0.2, 0.9, 1.7, 4.0, 12.0});
  auto const i0e = [](Array<double> const& a) { return Array<double>(sp::i0e(a)); };
  auto const i1 = [](Array<double> const& a) { return Array<double>(sp::i1(a)); };
  auto const expi = [](Array<double> const& a) { return Array<double>(sp::expi(a)); };
  auto const expn3 = [](Array<double> const& a) { return Array<double>(sp::expn(3, a)); };
  CHECK_NOTHROW(check_grads(i0e, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(i1, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(expi, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(expn3, std::tuple{pos}, 2));
  CHECK_NOTHROW(check_grads([](Array<double> const& a) { return sp::spence(a); }, std::tuple{pos}, 2));
  auto const sici = [](Array<double> const& a) { return sp::sici(a); };
  CHECK_NOTHROW(check_grads(sici, std::tuple{x}, 2));
  auto const xs = jnp::array<double>({{-3.5, -0.4, 0.3}, {1.7, 12.0, 0.8}});
  CHECK_NOTHROW(check_batching_rule(i1, jaxcc::in_axes(0), xs));
  CHECK_NOTHROW(check_batching_rule(sici, jaxcc::in_axes(0), xs));
  CHECK_NOTHROW(check_batching_rule(expi, jaxcc::in_axes(1), xs));
  CHECK_NOTHROW(check_batching_rule(expn3, jaxcc::in_axes(0), Array<double>(jnp::abs(xs))));
  CHECK_NOTHROW(jaxcc::testing::check_jit(i0e, xs));
  CHECK_NOTHROW(jaxcc::testing::check_jit(expn3, Array<double>(jnp::abs(xs))));
  CHECK_NOTHROW(jaxcc::testing::check_edges([](Array<double> const& a) { return jnp::i0(a); }, jnp::array<double>({0.3})));
  STATIC_REQUIRE(std::is_same_v<decltype(jnp::i0(jnp::array<std::int32_t>({1}))), Array<float>>);
}

}  // namespace test_special_bessel
