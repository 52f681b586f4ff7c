// Derivatives of nn::softmax, log_softmax and logsumexp. check_grads
// compares them, to second order, with central differences in float64; the
// closed forms (grad logsumexp = softmax, softmax's VJP y (ct - <y, ct>),
// log_softmax's VJP ct - softmax sum(ct)) are checked against reference
// loops written here, also at extreme inputs (1e30), where every gradient
// must stay finite. As in JAX, the max that shifts the exponentials is under
// stop_gradient, so no derivative goes through it. gelu, silu, softplus,
// log_sigmoid and one_hot are checked against JAX's own values and
// derivatives (tests/golden/elementwise_nn_cases.py).
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "elementwise_nn_golden.hpp"
#include "support.hpp"

namespace test_nn_grad {

namespace jnp = jaxcc::numpy;
namespace nn = jaxcc::nn;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc::testing::check_grads;
using AxisArg = jaxcc::detail::AxisArg;
using jaxcc_test::jaxpr_of;
using jaxcc_test::message_of;

namespace {

// jaxcc_test::smooth doubled: values in [-2, 2].
Array<double> wide(Shape const& shape, double scale = 0.37) { return jaxcc_test::smooth(shape, scale) * 2.0; }

/// softmax of each row of a rows x cols matrix (row-major), in long double.
std::vector<double> reference_softmax(std::vector<double> const& x, std::size_t cols) {
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r < x.size() / cols; ++r) {
    long double m = -INFINITY, s = 0;
    for (std::size_t c = 0; c < cols; ++c) m = std::max(m, static_cast<long double>(x[r * cols + c]));
    for (std::size_t c = 0; c < cols; ++c) s += std::exp(static_cast<long double>(x[r * cols + c]) - m);
    for (std::size_t c = 0; c < cols; ++c)
      y[r * cols + c] = static_cast<double>(std::exp(static_cast<long double>(x[r * cols + c]) - m) / s);
  }
  return y;
}

bool all_finite(Array<double> const& a) {
  for (double v : a.to_vector())
    if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace

TEST_CASE("softmax, log_softmax and logsumexp pass check_grads to second order", "[nn][grad]") {
  auto const x = wide({2, 3, 4});
  std::vector<std::pair<std::string, AxisArg>> const axis_sets{
      {"-1", -1}, {"0", 0}, {"1", 1}, {"(0, 2)", {0, 2}}, {"all", jaxcc::none}};
  for (auto const& [name, axis] : axis_sets) {
    INFO("axis " << name);
    auto softmax = [axis = axis](Array<double> const& a) { return nn::softmax(a, axis); };
    auto log_softmax = [axis = axis](Array<double> const& a) { return nn::log_softmax(a, axis); };
    REQUIRE_NOTHROW(check_grads(softmax, std::tuple{x}, 2));
    REQUIRE_NOTHROW(check_grads(log_softmax, std::tuple{x}, 2));
    for (bool keepdims : {false, true}) {
      INFO("keepdims " << keepdims);
      auto lse = [axis = axis, keepdims](Array<double> const& a) { return nn::logsumexp(a, axis, keepdims); };
      REQUIRE_NOTHROW(check_grads(lse, std::tuple{x}, 2));
    }
  }
  // Ties at the max do not matter: the shift is under stop_gradient.
  auto const tied = jnp::array<double>({{1, 3, 3}, {2, 2, 2}});
  REQUIRE_NOTHROW(check_grads([](Array<double> const& a) { return nn::logsumexp(a, 1); }, std::tuple{tied}, 2));
  REQUIRE_NOTHROW(check_grads([](Array<double> const& a) { return nn::softmax(a); }, std::tuple{tied}, 2));
}

TEST_CASE("closed forms of the derivatives, against reference loops", "[nn][grad]") {
  auto const x = wide({3, 5});
  auto const xv = x.to_vector();
  auto const y = jnp::array<double>(reference_softmax(xv, 5), Shape{3, 5});
  auto const ct = wide({3, 5}, 1.3);
  auto const cv = ct.to_vector();

  SECTION("grad of logsumexp is softmax") {
    auto g = jaxcc::grad([](Array<double> const& a) { return jnp::sum(nn::logsumexp(a, 1)); });
    REQUIRE_THAT(g(x), AllClose(y, 1e-12, 1e-14));
    auto all = jaxcc::grad([](Array<double> const& a) { return nn::logsumexp(a); });
    auto const flat = jnp::array<double>(reference_softmax(xv, 15), Shape{3, 5});
    REQUIRE_THAT(all(x), AllClose(flat, 1e-12, 1e-14));
  }
  SECTION("softmax's VJP is y (ct - <y, ct>) per row") {
    std::vector<double> expected(xv.size());
    auto const yv = y.to_vector();
    for (std::size_t r = 0; r < 3; ++r) {
      double dot = 0;
      for (std::size_t c = 0; c < 5; ++c) dot += yv[r * 5 + c] * cv[r * 5 + c];
      for (std::size_t c = 0; c < 5; ++c) expected[r * 5 + c] = yv[r * 5 + c] * (cv[r * 5 + c] - dot);
    }
    auto [out, pullback] = jaxcc::vjp([](Array<double> const& a) { return nn::softmax(a); }, x);
    REQUIRE_THAT(out, AllClose(y, 1e-12, 1e-14));
    REQUIRE_THAT(std::get<0>(pullback(ct)), AllClose(jnp::array<double>(expected, Shape{3, 5}), 1e-12, 1e-14));
  }
  SECTION("log_softmax's VJP is ct - y sum(ct) per row") {
    std::vector<double> expected(xv.size());
    auto const yv = y.to_vector();
    for (std::size_t r = 0; r < 3; ++r) {
      double total = 0;
      for (std::size_t c = 0; c < 5; ++c) total += cv[r * 5 + c];
      for (std::size_t c = 0; c < 5; ++c) expected[r * 5 + c] = cv[r * 5 + c] - yv[r * 5 + c] * total;
    }
    auto [out, pullback] = jaxcc::vjp([](Array<double> const& a) { return nn::log_softmax(a); }, x);
    REQUIRE_THAT(std::get<0>(pullback(ct)), AllClose(jnp::array<double>(expected, Shape{3, 5}), 1e-12, 1e-14));
  }
  SECTION("the JVP of logsumexp is <softmax, t>") {
    auto [out, t] = jaxcc::jvp([](Array<double> const& a) { return nn::logsumexp(a, 1); }, std::tuple{x}, std::tuple{ct});
    auto const yv = y.to_vector();
    std::vector<double> expected(3, 0.0);
    for (std::size_t r = 0; r < 3; ++r)
      for (std::size_t c = 0; c < 5; ++c) expected[r] += yv[r * 5 + c] * cv[r * 5 + c];
    REQUIRE_THAT(t, AllClose(jnp::array<double>(expected, Shape{3}), 1e-12, 1e-14));
  }
}

TEST_CASE("gradients stay finite and exact at extreme inputs", "[nn][grad][extreme]") {
  auto glse = jaxcc::grad([](Array<double> const& a) { return nn::logsumexp(a); });
  SECTION("hand-worked: 1e30 apart, softmax is one-hot (or split evenly between tied maxima)") {
    auto const x = jnp::array<double>({1e30, 0, -1e30});
    REQUIRE_THAT(glse(x), AllClose(jnp::array<double>({1, 0, 0})));
    REQUIRE_THAT(nn::softmax(x), AllClose(jnp::array<double>({1, 0, 0})));
    // exp(0) twice and exp(-2e30) once: (1/2, 1/2, 0).
    REQUIRE_THAT(glse(jnp::array<double>({1e30, 1e30, -1e30})), AllClose(jnp::array<double>({0.5, 0.5, 0})));
    // log_softmax's VJP ct - y sum(ct) with ct = (1, 2, 3), y = (1, 0, 0):
    // (1 - 6, 2, 3).
    auto const w = jnp::array<double>({1, 2, 3});
    auto gls = jaxcc::grad([&](Array<double> const& a) { return jnp::sum(w * nn::log_softmax(a)); });
    REQUIRE_THAT(gls(x), AllClose(jnp::array<double>({-5, 2, 3})));
    // softmax's VJP y (ct - <y, ct>) = (1 (1 - 1), 0, 0).
    auto gs = jaxcc::grad([&](Array<double> const& a) { return jnp::sum(w * nn::softmax(a)); });
    REQUIRE_THAT(gs(x), AllClose(jnp::zeros<double>({3})));
    // Second order: softmax's Jacobian diag(y) - y y^T is 0 at a one-hot y.
    auto hvp = jaxcc::grad([&](Array<double> const& a) { return jnp::sum(glse(a) * w); });
    REQUIRE_THAT(hvp(x), AllClose(jnp::zeros<double>({3})));
  }
  SECTION("a whole matrix at 1e30 scale: finite and equal to softmax") {
    Array<double> const x = wide({4, 6}) * 1e30;
    auto const expected = jnp::array<double>(reference_softmax(x.to_vector(), 6), Shape{4, 6});
    auto g = jaxcc::grad([](Array<double> const& a) { return jnp::sum(nn::logsumexp(a, -1)); });
    auto const gx = g(x);
    REQUIRE(all_finite(gx));
    REQUIRE_THAT(gx, AllClose(expected));
    auto const w = wide({4, 6}, 0.9);
    auto gs = jaxcc::grad([&](Array<double> const& a) { return jnp::sum(w * nn::softmax(a)); });
    auto gls = jaxcc::grad([&](Array<double> const& a) { return jnp::sum(w * nn::log_softmax(a)); });
    REQUIRE(all_finite(gs(x)));
    REQUIRE(all_finite(gls(x)));
    auto [out, t] = jaxcc::jvp([](Array<double> const& a) { return nn::logsumexp(a, 1, true); }, std::tuple{x},
                               std::tuple{w});
    REQUIRE(all_finite(out));
    REQUIRE(all_finite(t));
  }
  SECTION("float32 at 1e30") {
    auto gf = jaxcc::grad([](Array<float> const& a) { return nn::logsumexp(a); });
    REQUIRE_THAT(gf(jnp::array<float>({1e30f, 5e29f, -1e30f})), AllClose(jnp::array<float>({1, 0, 0})));
  }
  SECTION("-inf entries get zero gradient") {
    // softmax of (-inf, 0, 1) is (0, 1, e) / (1 + e).
    double const inf = std::numeric_limits<double>::infinity();
    double const e = std::exp(1.0);
    REQUIRE_THAT(glse(jnp::array<double>({-inf, 0, 1})), AllClose(jnp::array<double>({0, 1 / (1 + e), e / (1 + e)})));
  }
}

TEST_CASE("the max shift is under stop_gradient, as in JAX", "[nn][grad][make_jaxpr]") {
  auto const x = jnp::zeros<float>({2, 3});
  auto softmax = [](Array<float> const& a) { return nn::softmax(a); };
  REQUIRE(jaxpr_of(softmax, x).find("stop_gradient") != std::string::npos);
  // The derivatives never reach reduce_max's rule (which would compare the
  // operand with the max: an `eq` equation).
  auto g_lse = jaxcc::grad([](Array<float> const& a) { return nn::logsumexp(a); });
  auto g_softmax = jaxcc::grad([](Array<float> const& a) { return jnp::sum(nn::softmax(a) * nn::softmax(a)); });
  auto g_log_softmax = jaxcc::grad([](Array<float> const& a) { return jnp::sum(jnp::square(nn::log_softmax(a, 0))); });
  for (auto const& text : {jaxpr_of(g_lse, x), jaxpr_of(g_softmax, x), jaxpr_of(g_log_softmax, x)}) {
    INFO(text);
    REQUIRE(text.find("reduce_max") != std::string::npos);
    REQUIRE(text.find(" eq ") == std::string::npos);
  }
}

namespace golden = jaxcc_test::elementwise_nn_golden;

namespace {

template <class T>
golden::Function<T> golden_function(std::string const& name) {
  using F = golden::Function<T>;
  if (name == "gelu") return F([](Array<T> const& x, Array<T> const&) { return nn::gelu(x); });
  if (name == "gelu_exact") return F([](Array<T> const& x, Array<T> const&) { return nn::gelu(x, false); });
  if (name == "silu") return F([](Array<T> const& x, Array<T> const&) -> Array<T> { return nn::silu(x); });
  if (name == "softplus") return F([](Array<T> const& x, Array<T> const&) -> Array<T> { return nn::softplus(x); });
  if (name == "log_sigmoid") return F([](Array<T> const& x, Array<T> const&) -> Array<T> { return nn::log_sigmoid(x); });
  return {};
}

}  // namespace

TEST_CASE("gelu, silu, softplus and log_sigmoid: JAX's values and derivatives", "[nn][grad][golden]") {
  int checked = 0;
  for (auto const& c : golden::cases()) {
    // float32 within 8 ulp of XLA's (its tanh, exp, log1p and erfc are not
    // libm's); float64 within 50. Except: approximate gelu's 1 + tanh(...)
    // cancels near x = -3, multiplying tanh's ulps by some 600; exact
    // gelu's erfc(20) is the C library's, 100 ulp from XLA's.
    bool const gelu = c.function == "gelu";
    if (c.bits == 32) {
      if (auto const f = golden_function<float>(c.function))
        golden::check_case<float>(c, f, gelu ? 1e-4 : 1e-6), ++checked;
    } else {
      if (auto const f = golden_function<double>(c.function))
        golden::check_case<double>(c, f, gelu ? 1e-12 : c.function == "gelu_exact" ? 1e-13 : 1e-14), ++checked;
    }
  }
  CHECK(checked == 20);
  // swish is silu; integers become floats, as JAX's logaddexp(x, 0) makes them.
  auto const x = jnp::array<float>({-1.5f, 0.f, 2.f});
  CHECK(jaxcc_test::mismatch(Array<float>(nn::swish(x)), Array<float>(nn::silu(x))) == "");
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(nn::softplus(jnp::array<std::int32_t>({1})))>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(nn::log_sigmoid(jnp::array<std::int64_t>({1})))>, double>);
  STATIC_REQUIRE(std::is_same_v<decltype(nn::gelu(jnp::array<std::int32_t>({1}))), Array<float>>);
}

TEST_CASE("gelu, silu, softplus and log_sigmoid pass check_grads to second order", "[nn][grad]") {
  auto const x = wide({3, 4}) * 3.0;
  for (bool approximate : {true, false}) {
    INFO("approximate " << approximate);
    REQUIRE_NOTHROW(check_grads([approximate](Array<double> const& a) { return nn::gelu(a, approximate); }, std::tuple{x}, 2));
  }
  REQUIRE_NOTHROW(check_grads([](Array<double> const& a) { return Array<double>(nn::silu(a)); }, std::tuple{x}, 2));
  REQUIRE_NOTHROW(check_grads([](Array<double> const& a) { return Array<double>(nn::softplus(a)); }, std::tuple{x}, 2));
  REQUIRE_NOTHROW(check_grads([](Array<double> const& a) { return Array<double>(nn::log_sigmoid(a)); }, std::tuple{x}, 2));
}

TEST_CASE("one_hot matches JAX's along every axis, under vmap and jit too", "[nn][one_hot][golden]") {
  auto const indices = jnp::array<std::int32_t>({{0, 3, -1}, {2, 4, 1}});
  for (auto const& c : golden::one_hot_cases()) {
    INFO("axis " << c.axis);
    auto const got = nn::one_hot(indices, 4, c.axis);
    CHECK(got.shape() == Shape(c.shape.begin(), c.shape.end()));
    CHECK(jaxcc_test::mismatches<float>(jaxcc_test::as_doubles(got), c.values, 0) == "");
    auto const jitted = jaxcc::jit([axis = c.axis](Array<std::int32_t> const& i) { return nn::one_hot(i, 4, axis); });
    CHECK(jaxcc_test::mismatch(jitted(indices), got) == "");
  }
  // vmap over the rows: each row's encoding, stacked.
  auto const rows = jaxcc::vmap([](Array<std::int32_t> const& i) { return nn::one_hot<double>(i, 4); })(indices);
  auto const expected = nn::one_hot<double>(indices, 4);
  CHECK(jaxcc_test::mismatch(rows, expected) == "");
  CHECK(nn::one_hot(jnp::array<std::int64_t>({1}), 0).shape() == Shape{1, 0});
  CHECK(message_of([&] { (void)nn::one_hot(indices, 4, 3); }) == "one_hot: axis 3 is out of bounds for array of dimension 3");
  CHECK(message_of([&] { (void)nn::one_hot(indices, -1); }) == "one_hot: num_classes must be nonnegative, got -1");
}

}  // namespace test_nn_grad
