// jnp::quantile and jnp::median (numpy/quantile.hpp). Values and gradients
// are JAX's (tests/golden/sorting_cases.py: every method, axis, keepdims,
// q as a number and as an array, inputs with NaN and ties, integer input);
// derivatives are also checked against finite differences, vmap against a
// loop and jit against eager.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "sorting_golden.hpp"
#include "support.hpp"

namespace test_quantile {

namespace jnp = jaxcc::numpy;
namespace golden = jaxcc_test::sorting_golden;
using jaxcc::Array;
using jaxcc_test::message_of;

namespace {

/// The golden call `c` (quantile:<method>:<axis>:<q>[:keepdims] or
/// median:<axis>[:keepdims]) on its input as T; q "q3" is [0, 0.6, 1].
template <class T>
Array<float> call(golden::Case const& c, Array<T> const& x) {
  auto const f = c.fields();
  bool const keepdims = f.back() == "keepdims";
  if (f[0] == "median") {
    if (golden::is_none(f[1])) return jnp::median(x, jaxcc::none, keepdims);
    return jnp::median(x, std::stoll(f[1]), keepdims);
  }
  auto const& method = f[1];
  auto const quantiles = [&](auto&& at) {
    if (f[3] == "q3") return at(jnp::array({0.0f, 0.6f, 1.0f}));
    return at(0.3);
  };
  return quantiles([&](auto const& q) -> Array<float> {
    if (golden::is_none(f[2])) return jnp::quantile(x, q, jaxcc::none, method, keepdims);
    return jnp::quantile(x, q, std::stoll(f[2]), method, keepdims);
  });
}

}  // namespace

TEST_CASE("quantile and median match JAX", "[quantile]") {
  std::size_t checked = 0;
  for (std::string const prefix : {"quantile:", "median:"})
    for (auto const& c : golden::cases(prefix)) {
      if (c.input == "i") golden::check(c, call(c, golden::input<std::int32_t>(c.input)));
      else golden::check(c, call(c, golden::input<float>(c.input)));
      ++checked;
    }
  CHECK(checked == 4 * (5 * 3 + 2 + 3));
}

TEST_CASE("quantile and median: gradients match JAX's", "[quantile][grad]") {
  std::size_t checked = 0;
  for (auto const& c : golden::cases("grad:median:")) {
    auto const x = golden::input<float>(c.input);
    auto shape = x.shape();
    shape.pop_back();
    auto const w = golden::weights(shape);
    golden::check(c, jaxcc::grad([&](Array<float> const& a) { return jnp::sum(jnp::median(a, -1) * w); })(x));
    ++checked;
  }
  for (auto const& c : golden::cases("grad:quantile:")) {
    auto const x = golden::input<float>(c.input);
    auto const w = golden::weights(jaxcc::Shape(x.shape().begin() + 1, x.shape().end()));
    golden::check(c, jaxcc::grad([&](Array<float> const& a) { return jnp::sum(jnp::quantile(a, 0.3, 0) * w); })(x));
    ++checked;
  }
  CHECK(checked == 2 * 3);
}

TEST_CASE("quantile: derivatives to second order, vmap, jit", "[quantile][grad][vmap][jit]") {
  auto const x = jnp::array({{0.7, -1.3, 0.1, 2.1, 0.9}, {1.9, 0.4, -0.8, 1.2, 3.0}, {-0.6, 2.4, 1.1, -2.2, 0.2}});
  auto const q = [](Array<double> const& a) { return jnp::quantile(a, jnp::array({0.1, 0.5, 0.85}), -1); };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(q, std::tuple{x}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(q, jaxcc::in_axes(0), x));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(q, jaxcc::in_axes(1), x));
  auto const med = [](Array<double> const& a) { return jnp::median(a, 0); };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(med, std::tuple{x}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(med, jaxcc::in_axes(0), x));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(jaxcc::grad([&](Array<double> const& a) { return jnp::sum(q(a)); }), x));
  // By hand: the median of 1..4 is 2.5, its 0.25-quantile 1 + 0.75 = 1.75.
  CHECK(jnp::median(jnp::array({4.0, 1.0, 3.0, 2.0})).to_vector() == std::vector<double>{2.5});
  CHECK(jnp::quantile(jnp::array({4.0, 1.0, 3.0, 2.0}), 0.25).to_vector() == std::vector<double>{1.75});
}

TEST_CASE("quantile: errors", "[quantile][errors]") {
  auto const x = jnp::ones<float>({2, 3});
  CHECK(message_of([&] { jnp::quantile(x, 0.5, 0, "cubic"); }) ==
        "method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or 'inverted_cdf'");
  CHECK(message_of([&] { jnp::quantile(x, jnp::ones<float>({2, 2}), 0); }) == "q must be have rank <= 1, got shape (2, 2)");
  CHECK(message_of([&] { jnp::median(x, 2); }) == "quantile: axis 2 is out of bounds for array of dimension 2");
  CHECK(message_of([&] { jnp::quantile(x, 0.5, 0, "inverted_cdf"); }) ==
        "quantile: method 'inverted_cdf' is not implemented in jaxcc");
  CHECK(message_of([&] { jnp::median(jnp::ones<float>({0, 3}), 0); }) ==
        "quantile: cannot take a quantile of an empty axis, shape (0, 3)");
}

}  // namespace test_quantile
