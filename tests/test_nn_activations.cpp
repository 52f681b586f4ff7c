// The elementwise activations of nn/activations.hpp beyond the first ones
// (relu6, hard_sigmoid, hard_silu, hard_tanh, leaky_relu, elu, celu, selu,
// mish, soft_sign, squareplus, sparse_plus, sparse_sigmoid, log1mexp,
// tanh, identity), relu's derivative, glu and logmeanexp: values and
// derivatives against JAX's own (tests/golden/nn_more_cases.py), the
// derivative at each kink JAX's subgradient; check_grads to second order
// away from the kinks, batching of the function and of its JVP and VJP, jit
// and 0-d / empty inputs.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "elementwise_nn_golden.hpp"
#include "support.hpp"

namespace test_nn_activations {

namespace jnp = jaxcc::numpy;
namespace nn = jaxcc::nn;
namespace golden = jaxcc_test::elementwise_nn_golden;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc::testing::check_grads;
using jaxcc_test::message_of;

namespace {

using golden::inf;
using golden::nan;

std::vector<golden::Case> const& activation_cases() {
  static std::vector<golden::Case> const all = {
#define JAXCC_GOLDEN_NN_ELEMENTWISE
#include "golden/nn_more_cases.inc"
#undef JAXCC_GOLDEN_NN_ELEMENTWISE
  };
  return all;
}

struct ReductionCase {
  std::string function;
  int axis;  // 99: none; 100 + 10 a + b: (a, b)
  bool keepdims;
  std::vector<std::int64_t> x_shape;
  std::vector<double> x, w;
  std::vector<std::int64_t> shape;
  std::vector<double> values, dx;
};

std::vector<ReductionCase> const& reduction_cases() {
  static std::vector<ReductionCase> const all = {
#define JAXCC_GOLDEN_NN_REDUCTIONS
#include "golden/nn_more_cases.inc"
#undef JAXCC_GOLDEN_NN_REDUCTIONS
  };
  return all;
}

// Each activation as a function of an Array<T> returning Array<T>.
template <class T>
using Unary = std::function<Array<T>(Array<T> const&)>;

template <class T>
std::map<std::string, Unary<T>> activations() {
  using U = Unary<T>;
  return {
      {"relu", U([](Array<T> const& x) -> Array<T> { return nn::relu(x); })},
      {"relu6", U([](Array<T> const& x) -> Array<T> { return nn::relu6(x); })},
      {"hard_sigmoid", U([](Array<T> const& x) -> Array<T> { return nn::hard_sigmoid(x); })},
      {"hard_silu", U([](Array<T> const& x) -> Array<T> { return nn::hard_silu(x); })},
      {"hard_tanh", U([](Array<T> const& x) -> Array<T> { return nn::hard_tanh(x); })},
      {"leaky_relu", U([](Array<T> const& x) -> Array<T> { return nn::leaky_relu(x); })},
      {"leaky_relu_0.2", U([](Array<T> const& x) -> Array<T> { return nn::leaky_relu(x, 0.2); })},
      {"elu", U([](Array<T> const& x) -> Array<T> { return nn::elu(x); })},
      {"elu_0.5", U([](Array<T> const& x) -> Array<T> { return nn::elu(x, 0.5); })},
      {"celu", U([](Array<T> const& x) -> Array<T> { return nn::celu(x); })},
      {"celu_2", U([](Array<T> const& x) -> Array<T> { return nn::celu(x, 2.0); })},
      {"selu", U([](Array<T> const& x) -> Array<T> { return nn::selu(x); })},
      {"mish", U([](Array<T> const& x) -> Array<T> { return nn::mish(x); })},
      {"soft_sign", U([](Array<T> const& x) -> Array<T> { return nn::soft_sign(x); })},
      {"squareplus", U([](Array<T> const& x) -> Array<T> { return nn::squareplus(x); })},
      {"squareplus_2.5", U([](Array<T> const& x) -> Array<T> { return nn::squareplus(x, 2.5); })},
      {"sparse_plus", U([](Array<T> const& x) -> Array<T> { return nn::sparse_plus(x); })},
      {"sparse_sigmoid", U([](Array<T> const& x) -> Array<T> { return nn::sparse_sigmoid(x); })},
      {"log1mexp", U([](Array<T> const& x) -> Array<T> { return nn::log1mexp(x); })},
      {"tanh", U([](Array<T> const& x) -> Array<T> { return nn::tanh(x); })},
  };
}

// The functions whose derivative is smooth on the points that
// smooth_points gives (none of them is a kink).
std::vector<std::string> const smooth_everywhere = {"mish", "soft_sign", "squareplus", "squareplus_2.5", "selu",
                                                    "tanh", "celu", "celu_2"};

// Points in (0.1, 5.9) away from every kink (0, +-1, +-3, 6), mixed in sign
// for the functions defined on both sides.
Array<double> smooth_points(bool positive) {
  auto const x = jnp::array<double>({{0.35, 1.6, 2.4, 3.7}, {4.3, 0.55, 5.2, 2.8}, {1.3, 0.8, 5.7, 4.6}});
  return positive ? x : Array<double>(x * jnp::array<double>({1.0, -1.0, 1.0, -1.0}));
}

// jaxcc's SIMD expm1 and log1p give +0 for -0 (the scalar ones, as XLA's,
// -0), so elu's and selu's value at -0, log1mexp's at large x (log1p(-0))
// and log1mexp's slope at 0 (1 / -expm1(-0)) take the sign of the zero
// from whichever kernel ran. Those points are left out for these
// functions; the sign of zero is the kernels' to fix, not the activations'.
golden::Case without_signed_zeros(golden::Case c) {
  if (c.function != "elu" && c.function != "elu_0.5" && c.function != "selu" && c.function != "log1mexp") return c;
  golden::Case kept = c;
  kept.x.clear(), kept.values.clear(), kept.dx.clear();
  for (std::size_t i = 0; i < c.x.size(); ++i) {
    if (c.x[i] == 0 || (c.values[i] == 0 && std::signbit(c.values[i]))) continue;
    kept.x.push_back(c.x[i]);
    kept.values.push_back(c.values[i]);
    if (!c.dx.empty()) kept.dx.push_back(c.dx[i]);
  }
  return kept;
}

}  // namespace

TEST_CASE("activations: JAX's values and derivatives, kinks included, under jit and vmap too", "[nn][golden]") {
  auto const f32 = activations<float>();
  auto const f64 = activations<double>();
  int checked = 0;
  for (auto const& golden_case : activation_cases()) {
    auto const c = without_signed_zeros(golden_case);
    // float32 within 8 ulp of XLA's (its tanh, exp, expm1 and log1p are not
    // libm's); float64 within 50. Except tanh's derivative 1 - tanh^2,
    // which near |x| = 6 magnifies tanh's last-place differences 10^4-fold
    // (10^6 at 7.5; JAX's own is as far from sech^2 there).
    bool const tanh_slope = c.function == "tanh" && !c.dx.empty();
    if (c.bits == 32)
      golden::check_case<float>(c, [&](auto const& x, auto const&) { return f32.at(c.function)(x); },
                                tanh_slope ? 0.1 : 1e-6);
    else
      golden::check_case<double>(c, [&](auto const& x, auto const&) { return f64.at(c.function)(x); },
                                 tanh_slope ? 1e-9 : 1e-14);
    ++checked;
  }
  CHECK(checked == 2 * 2 * static_cast<int>(f32.size()));
}

TEST_CASE("activations pass check_grads to second order and batch with their derivatives", "[nn][grad][vmap]") {
  auto const all = activations<double>();
  for (auto const& [name, f] : all) {
    INFO(name);
    // log1mexp lives on x > 0; the others see both signs, away from their kinks.
    auto const x = smooth_points(name == "log1mexp" || name == "relu" || name == "relu6" || name == "hard_sigmoid" ||
                                 name == "hard_silu");
    CHECK_NOTHROW(check_grads(f, std::tuple{x}, 2));
    CHECK_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0), x));
    CHECK_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(1), x));
  }
  // Those smooth everywhere also across 0.
  auto const across = jnp::array<double>({{-0.2, 0.15, -2.5}, {3.5, -4.2, 0.7}});
  for (auto const& name : smooth_everywhere) {
    INFO(name);
    CHECK_NOTHROW(check_grads(all.at(name), std::tuple{across}, 2));
  }
  // Array parameters broadcast against x, and their derivatives flow too.
  auto const alpha = jnp::array<double>({0.5, 1.0, 2.0, 3.0});
  auto const x = smooth_points(false);
  CHECK_NOTHROW(check_grads([](Array<double> const& a, Array<double> const& s) -> Array<double> { return nn::elu(a, s); },
                            std::tuple{x, alpha}, 2));
  CHECK_NOTHROW(check_grads([](Array<double> const& a, Array<double> const& s) -> Array<double> { return nn::celu(a, s); },
                            std::tuple{x, alpha}, 2));
  CHECK_NOTHROW(check_grads(
      [](Array<double> const& a, Array<double> const& s) -> Array<double> { return nn::leaky_relu(a, s); },
      std::tuple{x, alpha}, 2));
  CHECK_NOTHROW(check_grads(
      [](Array<double> const& a, Array<double> const& b) -> Array<double> { return nn::squareplus(a, b); },
      std::tuple{x, alpha}, 2));
}

TEST_CASE("activations: dtypes, jit, identity, and 0-d and empty inputs", "[nn]") {
  auto const i = jnp::array<std::int32_t>({-4, -1, 0, 2, 7});
  // Integers become float32 where JAX's float constants promote them; hard_tanh and relu keep them.
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(nn::relu6(i))>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(nn::elu(i))>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(nn::leaky_relu(i))>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(nn::sparse_plus(i))>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(nn::hard_tanh(i))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(nn::relu(i))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(nn::selu(jnp::array<double>({1.0})))>, double>);
  CHECK(Array<std::int32_t>(nn::hard_tanh(i)).to_vector() == std::vector<std::int32_t>{-1, -1, 0, 1, 1});
  CHECK(Array<float>(nn::relu6(i)).to_vector() == std::vector<float>{0, 0, 0, 2, 6});
  CHECK(Array<float>(nn::leaky_relu(i)).to_vector() == std::vector<float>{-0.04f, -0.01f, 0, 2, 7});
  CHECK(Array<float>(nn::soft_sign(i)).to_vector() == std::vector<float>{-0.8f, -0.5f, 0, 2.f / 3.f, 0.875f});
  // A float32 array parameter keeps float32; a float64 one promotes.
  auto const x = jnp::array<float>({-1.f, 2.f});
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(nn::elu(x, jnp::array<double>({2.0, 2.0})))>, double>);
  // identity hands x back with its dtype; nn::tanh is jnp::tanh.
  CHECK(jaxcc_test::mismatch(nn::identity(i), i) == "");
  CHECK(jaxcc_test::mismatch(Array<float>(nn::tanh(x)), Array<float>(jnp::tanh(x))) == "");
  CHECK(jaxcc_test::mismatch(nn::identity(x * 2.f), jnp::array<float>({-2.f, 4.f})) == "");
  // The jitted gradient of relu6 is 0 at both corners, as eager's.
  auto const slope = jaxcc::grad([](Array<float> const& a) { return jnp::sum(nn::relu6(a)); });
  auto const corners = jnp::array<float>({0.f, 3.f, 6.f});
  CHECK(jaxcc::jit(slope)(corners).to_vector() == std::vector<float>{0, 1, 0});
  for (auto const& [name, f] : activations<double>()) {
    INFO(name);
    CHECK_NOTHROW(jaxcc::testing::check_jit(f, smooth_points(false)));
    CHECK_NOTHROW(jaxcc::testing::check_edges(f, smooth_points(true)));
  }
}

namespace {

jaxcc::detail::AxisArg axis_of(int code) {
  if (code == 99) return jaxcc::none;
  if (code >= 100) return {(code - 100) / 10, (code - 100) % 10};
  return code;
}

}  // namespace

TEST_CASE("glu and logmeanexp: JAX's values and gradients along several axes", "[nn][golden]") {
  int checked = 0;
  for (auto const& c : reduction_cases()) {
    INFO(c.function << " axis code " << c.axis << " keepdims " << c.keepdims);
    auto const x = jnp::array<float>(golden::narrowed<float>(c.x), Shape(c.x_shape.begin(), c.x_shape.end()));
    std::function<Array<float>(Array<float> const&)> f;
    if (c.function == "glu") f = [axis = c.axis](Array<float> const& a) { return nn::glu(a, axis); };
    else f = [&c](Array<float> const& a) { return nn::logmeanexp(a, axis_of(c.axis), c.keepdims); };
    auto const out = f(x);
    CHECK(out.shape() == Shape(c.shape.begin(), c.shape.end()));
    CHECK(jaxcc_test::mismatches<float>(jaxcc_test::as_doubles(out), c.values, 1e-6) == "");
    auto const w = jnp::array<float>(golden::narrowed<float>(c.w), out.shape());
    auto const g = jaxcc::grad([&](Array<float> const& a) { return jnp::sum(w * f(a)); })(x);
    CHECK(jaxcc_test::mismatches<float>(jaxcc_test::as_doubles(g), c.dx, 1e-5) == "");
    CHECK(jaxcc_test::mismatch(jaxcc::jit(f)(x), out) == "");
    ++checked;
  }
  CHECK(checked == 8);
}

TEST_CASE("glu and logmeanexp: check_grads, batching, edges and errors", "[nn][grad][vmap]") {
  Array<double> const x = jaxcc_test::smooth({3, 4}) * 2.0;
  auto glu = [](Array<double> const& a) { return nn::glu(a); };
  auto glu0 = [](Array<double> const& a) { return nn::glu(a, 0); };
  auto lme = [](Array<double> const& a) { return nn::logmeanexp(a, 1); };
  auto lme_all = [](Array<double> const& a) { return nn::logmeanexp(a, jaxcc::none, true); };
  CHECK_NOTHROW(check_grads(glu, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(glu0, std::tuple{jaxcc_test::smooth({4, 3})}, 2));
  CHECK_NOTHROW(check_grads(lme, std::tuple{x}, 2));
  CHECK_NOTHROW(check_grads(lme_all, std::tuple{x}, 2));
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(glu, jaxcc::in_axes(0), x));
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(glu0, jaxcc::in_axes(1), jaxcc_test::smooth({4, 3})));
  auto lme_last = [](Array<double> const& a) { return nn::logmeanexp(a, -1, true); };
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(lme_last, jaxcc::in_axes(0), x));
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(lme_last, jaxcc::in_axes(1), x));
  CHECK_NOTHROW(jaxcc::testing::check_edges(lme, x));
  // logmeanexp of nothing: -inf - log 0 is nan, as in JAX.
  CHECK(std::isnan(nn::logmeanexp(jnp::zeros<float>(Shape{0})).item()));
  CHECK(nn::logmeanexp(jnp::array<std::int32_t>({2, 2})).item() == Catch::Approx(2.0).epsilon(1e-6));
  CHECK(message_of([&] { (void)nn::glu(jnp::zeros<float>(Shape{2, 3})); }) ==
        "glu: axis size must be divisible by 2, got 3 along axis -1 of shape (2, 3)");
  CHECK(message_of([&] { (void)nn::glu(jnp::zeros<float>(Shape{2, 3}), 2); }) ==
        "glu: axis 2 is out of bounds for array of dimension 2");
  CHECK(message_of([&] { (void)nn::logmeanexp(jnp::zeros<float>(Shape{2, 3}), 2); }) ==
        "logmeanexp: axis 2 is out of bounds for array of dimension 2");
}

}  // namespace test_nn_activations
