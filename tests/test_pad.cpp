// jnp::pad (numpy/pad.hpp) in every mode against JAX's values and
// gradients (tests/golden/pad_cases.py: float and int inputs, widths
// shorter and longer than the axes, reflect_type, stat_length), then vmap
// against a loop, jit against eager, derivatives to second order, and the
// errors.
#include "catch.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"

namespace test_pad {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;

namespace {

struct Case {
  std::string input, mode;
  std::vector<std::int64_t> widths;
  double constant, end;
  std::int64_t stat_length;
  std::string reflect_type;
  Shape shape;
  std::vector<double> values, grad;
};

std::vector<Case> const& cases() {
  static std::vector<Case> const all = {
#include "golden/pad_cases.inc"
  };
  return all;
}

template <class T>
Array<T> padded(Case const& c, Array<T> const& x) {
  std::vector<std::array<std::int64_t, 2>> widths;
  for (std::size_t i = 0; i < c.widths.size(); i += 2) widths.push_back({c.widths[i], c.widths[i + 1]});
  if (c.mode == "constant") return jnp::pad(x, widths, c.mode, jnp::constant_values(c.constant));
  if (c.mode == "linear_ramp") return jnp::pad(x, widths, c.mode, jnp::end_values(c.end));
  if (c.mode == "reflect" || c.mode == "symmetric") return jnp::pad(x, widths, c.mode, jnp::reflect_type(c.reflect_type));
  if (c.stat_length) return jnp::pad(x, widths, c.mode, jnp::stat_length(c.stat_length));
  return jnp::pad(x, widths, c.mode);
}

/// w[i] = 1 + (i % 7): the gradient cases' weights.
Array<float> weights(Shape const& shape) {
  std::vector<float> w(static_cast<std::size_t>(shape.numel()));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 1.0f + static_cast<float>(i % 7);
  return jnp::array(w, shape);
}

}  // namespace

TEST_CASE("pad matches JAX in every mode, values and gradients", "[pad]") {
  auto const m = jnp::array({{1.5f, -2.0f, 0.5f, 3.0f}, {4.0f, 2.5f, -1.0f, 0.25f}, {-3.0f, 1.0f, 2.0f, 5.0f}});
  auto const i = jnp::array({3, -1, 4, 1, -5});
  REQUIRE(cases().size() == 30);
  for (auto const& c : cases()) {
    INFO(c.mode << " of " << c.input << " (stat_length " << c.stat_length << ", " << c.reflect_type << ")");
    if (c.input == "i") {
      auto const got = padded(c, i);
      CHECK(got.shape() == c.shape);
      CHECK(jaxcc_test::mismatches<float>(jaxcc_test::as_doubles(got), c.values, 0) == "");
      continue;
    }
    auto const got = padded(c, m);
    CHECK(got.shape() == c.shape);
    CHECK(jaxcc_test::mismatches<float>(jaxcc_test::as_doubles(got), c.values, 1e-6) == "");
    if (c.grad.empty()) continue;
    auto const w = weights(c.shape);
    auto const g = jaxcc::grad([&](Array<float> const& a) { return jnp::sum(w * padded(c, a)); })(m);
    CHECK(jaxcc_test::mismatches<float>(jaxcc_test::as_doubles(g), c.grad, 1e-6) == "");
  }
}

TEST_CASE("pad under vmap, jit and second derivatives", "[pad][vmap][jit][grad]") {
  auto const xs = jaxcc_test::smooth({3, 4, 5});
  for (std::string const mode : {"constant", "edge", "wrap", "reflect", "symmetric", "linear_ramp", "mean", "median"}) {
    INFO(mode);
    auto const f = [&](Array<double> const& a) { return jnp::pad(a, {{2, 1}, {0, 6}}, mode); };
    REQUIRE_NOTHROW(jaxcc::testing::check_vmap(f, jaxcc::in_axes(0), xs));
    REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, jaxcc_test::example(xs, 0, 1)));
    REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{jaxcc_test::example(xs, 0, 2)}, 2));
  }
  // By hand: reflect [1, 2, 3] by 2 on each side is [3, 2, 1, 2, 3, 2, 1]; symmetric, [2, 1, 1, 2, 3, 3, 2].
  auto const v = jnp::array({1, 2, 3});
  CHECK(jnp::pad(v, 2, "reflect").to_vector() == std::vector<int>{3, 2, 1, 2, 3, 2, 1});
  CHECK(jnp::pad(v, 2, "symmetric").to_vector() == std::vector<int>{2, 1, 1, 2, 3, 3, 2});
  CHECK(jnp::pad(v, {1, 0}, "constant", jnp::constant_values(9)).to_vector() == std::vector<int>{9, 1, 2, 3});
}

TEST_CASE("pad: errors", "[pad][errors]") {
  auto const x = jnp::ones<float>({2, 3});
  CHECK(message_of([&] { jnp::pad(x, -1); }) == "index can't contain negative values");
  CHECK(message_of([&] { jnp::pad(x, 1, "cubic"); }) == "Unimplemented padding mode 'cubic' for np.pad.");
  CHECK(message_of([&] { jnp::pad(x, {{1, 1}, {1, 1}, {1, 1}}); }) ==
        "jnp.pad: pad_width with nd=2 has unsupported shape (3, 2). Valid shapes are (2, 2), (1, 2), (2,), (1,), or ().");
  CHECK(message_of([&] { jnp::pad(jnp::ones<float>({0, 3}), 1, "edge"); }) == "Cannot apply 'edge' padding to empty axis");
  CHECK(message_of([&] { jnp::pad(x, 1, "mean", jnp::stat_length(0)); }) == "stat_length of 0 yields no value for padding");
  CHECK(message_of([&] { jnp::pad(x, 1, "edge", jnp::constant_values(1)); }) ==
        "unsupported keyword arguments for mode 'edge': {'constant_values'}");
  CHECK(message_of([&] { jnp::pad(x, 1, "reflect", jnp::reflect_type("odds")); }) ==
        "reflect_type must be 'even' or 'odd', got 'odds'");
}

}  // namespace test_pad
