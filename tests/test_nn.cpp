#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <type_traits>
#include <vector>

#include "support.hpp"

namespace test_nn {

namespace jnp = jaxcc::numpy;
namespace nn = jaxcc::nn;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc_test::message_of;
using jaxcc_test::uniform;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();

// The long double references work on rows of a 2-d array (shape rows x cols)
// reduced along `axis` (0 or 1): each lane of the other axis is one row.
struct Lanes {
  std::vector<float> const& v;
  std::int64_t rows, cols;
  int axis;
  std::int64_t count() const { return axis == 1 ? rows : cols; }
  std::int64_t length() const { return axis == 1 ? cols : rows; }
  std::size_t at(std::int64_t lane, std::int64_t k) const {
    return static_cast<std::size_t>(axis == 1 ? lane * cols + k : k * cols + lane);
  }
};

// A lane's max m and sum of exp(x - m), in long double.
std::pair<long double, long double> max_and_sum(Lanes const& l, std::int64_t lane) {
  long double m = -INFINITY;
  for (std::int64_t k = 0; k < l.length(); ++k) m = std::max(m, static_cast<long double>(l.v[l.at(lane, k)]));
  long double s = 0;
  for (std::int64_t k = 0; k < l.length(); ++k) s += std::exp(static_cast<long double>(l.v[l.at(lane, k)]) - m);
  return {m, s};
}

// log(sum(exp(x))) of one lane; -inf for a lane of -inf.
long double reference_lse(Lanes const& l, std::int64_t lane) {
  auto const [m, s] = max_and_sum(l, lane);
  return std::isinf(m) ? m : m + std::log(s);
}

// softmax (exp(x - m) / s) or log_softmax ((x - m) - log s) of every
// element; x - m stays exact where m + log s would round away log s.
std::vector<float> reference_softmax(Lanes const& l, bool log) {
  std::vector<float> out(l.v.size());
  for (std::int64_t lane = 0; lane < l.count(); ++lane) {
    auto const [m, s] = max_and_sum(l, lane);
    for (std::int64_t k = 0; k < l.length(); ++k) {
      auto const i = l.at(lane, k);
      auto const shifted = static_cast<long double>(l.v[i]) - m;
      out[i] = static_cast<float>(log ? shifted - std::log(s) : std::exp(shifted) / s);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("relu is max(x, 0) and keeps the dtype") {
  auto x = jnp::array({-2.f, -0.5f, 0.f, 0.5f, 3.f});
  REQUIRE_THAT(Array<float>(nn::relu(x)), AllClose(jnp::array({0.f, 0.f, 0.f, 0.5f, 3.f}), 0, 0));
  Array<std::int32_t> ri = nn::relu(jnp::array({-3, 0, 4}));
  REQUIRE(ri.to_vector() == std::vector<std::int32_t>{0, 0, 4});
  static_assert(std::is_same_v<jaxcc::value_type_t<decltype(nn::relu(jnp::array({1, 2})))>, std::int32_t>);
  static_assert(std::is_same_v<jaxcc::value_type_t<decltype(nn::relu(jnp::array({1.0, 2.0})))>, double>);
  // An expression fuses, and a transposed input works.
  auto m = jnp::array({{-1.f, 2.f}, {3.f, -4.f}});
  REQUIRE_THAT(Array<float>(nn::relu(m.T() * 2.f)), AllClose(jnp::array({{0.f, 6.f}, {4.f, 0.f}}), 0, 0));
  // nan passes through, as jnp.maximum(nan, 0) is nan.
  REQUIRE(std::isnan(Array<float>(nn::relu(jnp::array({nan_f}))).item()));
}

TEST_CASE("sigmoid matches 1 / (1 + exp(-x)) in long double, at the extremes too") {
  std::vector<float> v = {-1e30f, -100.f, -20.f, -1.f, 0.f, 0.5f, 1.f, 20.f, 100.f, 1e30f, -inf, inf};
  std::vector<float> want;
  for (auto e : v) want.push_back(static_cast<float>(1.0L / (1.0L + std::exp(-static_cast<long double>(e)))));
  auto x = jnp::array(v, Shape{static_cast<std::int64_t>(v.size())});
  Array<float> y = nn::sigmoid(x);
  REQUIRE_THAT(y, AllClose(jnp::array(want, x.shape()), 1e-6, 1e-30));
  Array<double> yd = nn::sigmoid(x.astype<double>());
  REQUIRE(yd.to_vector()[4] == 0.5);
  static_assert(std::is_same_v<jaxcc::value_type_t<decltype(nn::sigmoid(x))>, float>);
}

TEST_CASE("softmax and log_softmax match a long double reference along either axis") {
  std::int64_t const rows = 5, cols = 37;
  auto v = uniform<float>(rows * cols, -10, 10, 3);
  // Extreme rows: huge and tiny magnitudes, and -inf entries beside finite ones.
  for (std::int64_t c = 0; c < cols; ++c) {
    v[static_cast<std::size_t>(1 * cols + c)] = c % 3 == 0 ? 1e30f : c % 3 == 1 ? -1e30f : 0.f;
    v[static_cast<std::size_t>(2 * cols + c)] = c % 2 ? -inf : static_cast<float>(c);
    v[static_cast<std::size_t>(3 * cols + c)] = 1e-30f * static_cast<float>(c);
  }
  auto x = jnp::array(v, Shape{rows, cols});
  for (int axis : {1, 0}) {
    Lanes lanes{v, rows, cols, axis};
    auto const want = jnp::array(reference_softmax(lanes, false), x.shape());
    auto const want_log = jnp::array(reference_softmax(lanes, true), x.shape());
    CAPTURE(axis);
    REQUIRE_THAT(nn::softmax(x, axis), AllClose(want, 1e-5, 1e-30));
    REQUIRE_THAT(nn::log_softmax(x, axis), AllClose(want_log, 1e-5, 1e-5));
    REQUIRE_THAT(nn::softmax(x, axis - 2), AllClose(want, 1e-5, 1e-30));  // negative axis
    // A transposed input gives the transposed answer.
    REQUIRE_THAT(nn::softmax(x.T(), 1 - axis), AllClose(Array<float>(want.T()), 1e-5, 1e-30));
  }
  // The defaults: the last axis.
  REQUIRE_THAT(nn::softmax(x), AllClose(nn::softmax(x, 1), 0, 0));
  // Row 1 holds 13 entries of 1e30 (log_softmax -log 13 each), and -1e30
  // and 0 entries, whose log_softmax is -2e30 and -1e30 to float precision.
  auto const row1 = nn::log_softmax(x).to_vector();
  REQUIRE(row1[static_cast<std::size_t>(cols + 1)] == Catch::Approx(-2e30).epsilon(1e-6));
  REQUIRE(row1[static_cast<std::size_t>(cols + 2)] == Catch::Approx(-1e30).epsilon(1e-6));
}

TEST_CASE("softmax over several axes and all axes sums to one") {
  auto v = uniform<float>(2 * 3 * 4, -3, 3, 5);
  auto x = jnp::array(v, Shape{2, 3, 4});
  auto s = nn::softmax(x, {0, 2});
  REQUIRE_THAT(jnp::sum(s, {0, 2}), AllClose(jnp::ones<float>(Shape{3}), 1e-6));
  auto all = nn::softmax(x, jaxcc::none);
  REQUIRE(jnp::sum(all).item() == Catch::Approx(1.0).epsilon(1e-6));
  // Element 0 of softmax over everything: exp(v0) / sum(exp(v)), in long double.
  long double total = 0;
  for (auto e : v) total += std::exp(static_cast<long double>(e));
  REQUIRE(all.to_vector()[0] == Catch::Approx(static_cast<double>(std::exp(static_cast<long double>(v[0])) / total)).epsilon(1e-6));
  // Integer inputs give float32.
  auto si = nn::softmax(jnp::array({1, 1}));
  static_assert(std::is_same_v<decltype(si), Array<float>>);
  REQUIRE(si.to_vector() == std::vector<float>{0.5f, 0.5f});
}

TEST_CASE("softmax and log_softmax at infinities behave as JAX's") {
  // A row of -inf: the max is -inf and -inf - -inf is nan, so JAX gives nan.
  auto all_neg = nn::softmax(jnp::array({-inf, -inf})).to_vector();
  REQUIRE((std::isnan(all_neg[0]) && std::isnan(all_neg[1])));
  // +inf anywhere in the row: inf - inf is nan, so the row is nan (JAX's documented behaviour).
  auto pos = nn::softmax(jnp::array({inf, 1.f})).to_vector();
  REQUIRE((std::isnan(pos[0]) && std::isnan(pos[1])));
  auto log_pos = nn::log_softmax(jnp::array({inf, 1.f})).to_vector();
  REQUIRE((std::isnan(log_pos[0]) && std::isnan(log_pos[1])));
  // -inf beside finite values is an exact zero (log: -inf).
  REQUIRE(nn::softmax(jnp::array({-inf, 0.f})).to_vector() == std::vector<float>{0.f, 1.f});
  REQUIRE(nn::log_softmax(jnp::array({-inf, 0.f})).to_vector() == std::vector<float>{-inf, 0.f});
  // An empty axis is fine: the max of nothing is -inf, and there is nothing to divide.
  REQUIRE(nn::softmax(jnp::zeros<float>(Shape{2, 0})).shape() == Shape{2, 0});
}

TEST_CASE("logsumexp matches a long double reference, keepdims and axes included") {
  std::int64_t const rows = 6, cols = 70;
  auto v = uniform<float>(rows * cols, -50, 50, 9);
  for (std::int64_t c = 0; c < cols; ++c) {
    v[static_cast<std::size_t>(c)] = c % 2 ? 1e30f : -1e30f;
    v[static_cast<std::size_t>(cols + c)] = -inf;                                   // a row of -inf
    v[static_cast<std::size_t>(2 * cols + c)] = c == 5 ? 3.f : -inf;                 // one finite entry
    v[static_cast<std::size_t>(3 * cols + c)] = -1e30f + static_cast<float>(c) * 1e28f;
  }
  auto x = jnp::array(v, Shape{rows, cols});
  Lanes lanes{v, rows, cols, 1};
  std::vector<float> want;
  for (std::int64_t r = 0; r < rows; ++r) want.push_back(static_cast<float>(reference_lse(lanes, r)));
  REQUIRE(want[1] == -inf);
  REQUIRE(want[2] == 3.f);
  REQUIRE_THAT(nn::logsumexp(x, 1), AllClose(jnp::array(want, Shape{rows}), 1e-6));
  REQUIRE_THAT(nn::logsumexp(x, -1, true), AllClose(jnp::array(want, Shape{rows, 1}), 1e-6));
  REQUIRE_THAT(nn::logsumexp(x.T(), 0), AllClose(jnp::array(want, Shape{rows}), 1e-6));

  // Over all axes (the default) and over a list of axes.
  auto y = jnp::array(uniform<float>(2 * 3 * 4, -5, 5, 11), Shape{2, 3, 4});
  auto const yv = y.to_vector();
  long double total = 0;
  for (auto e : yv) total += std::exp(static_cast<long double>(e));
  REQUIRE(nn::logsumexp(y).shape() == Shape{});
  REQUIRE(nn::logsumexp(y).item() == Catch::Approx(static_cast<double>(std::log(total))).epsilon(1e-6));
  REQUIRE(nn::logsumexp(y, jaxcc::none, true).shape() == Shape{1, 1, 1});
  std::vector<float> mid;  // over axes 0 and 2, for each of the 3 middle indices
  for (std::int64_t j = 0; j < 3; ++j) {
    long double s = 0;
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t k = 0; k < 4; ++k) s += std::exp(static_cast<long double>(yv[static_cast<std::size_t>((i * 3 + j) * 4 + k)]));
    mid.push_back(static_cast<float>(std::log(s)));
  }
  REQUIRE_THAT(nn::logsumexp(y, {0, -1}), AllClose(jnp::array(mid, Shape{3}), 1e-6));
  REQUIRE_THAT(nn::logsumexp(y, {2, 0}, true), AllClose(jnp::array(mid, Shape{1, 3, 1}), 1e-6));
}

TEST_CASE("logsumexp at infinities, nan and empty axes behaves as JAX's") {
  REQUIRE(nn::logsumexp(jnp::array({-inf, -inf})).item() == -inf);
  REQUIRE(nn::logsumexp(jnp::array({inf, 1.f})).item() == inf);
  REQUIRE(nn::logsumexp(jnp::array({inf, -inf})).item() == inf);
  REQUIRE(std::isnan(nn::logsumexp(jnp::array({nan_f, 1.f})).item()));
  REQUIRE(nn::logsumexp(jnp::array({1e30f, 1e30f})).item() == Catch::Approx(1e30).epsilon(1e-6));
  // The sum of nothing is 0, whose log is -inf.
  REQUIRE(nn::logsumexp(jnp::zeros<float>(Shape{0})).item() == -inf);
  REQUIRE(nn::logsumexp(jnp::zeros<float>(Shape{2, 0}), 1).to_vector() == std::vector<float>{-inf, -inf});
  // Integers give float32; double stays double.
  auto li = nn::logsumexp(jnp::array({0, 0}));
  static_assert(std::is_same_v<decltype(li), Array<float>>);
  REQUIRE(li.item() == Catch::Approx(std::log(2.0)).epsilon(1e-6));
  static_assert(std::is_same_v<decltype(nn::logsumexp(jnp::array({0.0}))), Array<double>>);
}

TEST_CASE("activations name themselves in axis errors") {
  auto x = jnp::zeros<float>(Shape{2, 3});
  REQUIRE(message_of([&] { nn::softmax(x, 2); }) == "softmax: axis 2 is out of bounds for array of dimension 2");
  REQUIRE(message_of([&] { nn::log_softmax(x, -3); }) ==
          "log_softmax: axis -3 is out of bounds for array of dimension 2");
  REQUIRE(message_of([&] { nn::logsumexp(x, {0, 2}); }) ==
          "logsumexp: axis 2 is out of bounds for array of dimension 2");
}

}  // namespace test_nn
