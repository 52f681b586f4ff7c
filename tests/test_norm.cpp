// jnp::linalg::norm (numpy/norm.hpp): vector norms of every order, matrix
// norms over any two axes, keepdims, against JAX's values and gradients
// (tests/golden/norm_cases.py; each case named by its Python spelling,
// written beside its C++ form here); vmap against a loop, jit against eager,
// derivatives to second order, and the errors.
#include "catch.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"

namespace test_norm {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jnp::linalg::norm;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

struct Golden {
  std::string name;
  Shape shape;
  std::vector<double> values, grad;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const all = {
#include "golden/norm_cases.inc"
  };
  return all;
}

// The generator's inputs.
Array<float> v() { return jnp::array({3.0f, -4.0f, 0.5f, 2.0f, -1.5f}); }
Array<float> m() {
  return jnp::array({{1.5f, -2.0f, 0.5f, 3.0f}, {4.0f, 2.5f, -1.0f, 0.25f}, {-3.0f, 1.0f, 2.0f, 5.5f}});
}
Array<float> t() {
  return jnp::arange<float>(1, 25).reshape({2, 3, 4}) * jnp::array({1.0f, -0.5f, 0.75f, -1.25f});
}

using Norm = std::function<Array<float>(Array<float> const&)>;
std::vector<std::tuple<std::string, Array<float>, Norm>> cases() {
  return {
      {"norm(v)", v(), [](auto const& a) { return norm(a); }},
      {"norm(v, 1)", v(), [](auto const& a) { return norm(a, 1); }},
      {"norm(v, inf)", v(), [](auto const& a) { return norm(a, inf); }},
      {"norm(v, -inf)", v(), [](auto const& a) { return norm(a, -inf); }},
      {"norm(v, 0)", v(), [](auto const& a) { return norm(a, 0); }},
      {"norm(v, 3)", v(), [](auto const& a) { return norm(a, 3); }},
      {"norm(v, 0.5)", v(), [](auto const& a) { return norm(a, 0.5); }},
      {"norm(v, -1)", v(), [](auto const& a) { return norm(a, -1); }},
      {"norm(m)", m(), [](auto const& a) { return norm(a); }},
      {"norm(m, 'fro')", m(), [](auto const& a) { return norm(a, "fro"); }},
      {"norm(m, 1)", m(), [](auto const& a) { return norm(a, 1); }},
      {"norm(m, -1)", m(), [](auto const& a) { return norm(a, -1); }},
      {"norm(m, inf)", m(), [](auto const& a) { return norm(a, inf); }},
      {"norm(m, -inf)", m(), [](auto const& a) { return norm(a, -inf); }},
      {"norm(m, axis=1)", m(), [](auto const& a) { return norm(a, jaxcc::none, 1); }},
      {"norm(m, 3, axis=0, keepdims=True)", m(), [](auto const& a) { return norm(a, 3, 0, true); }},
      {"norm(t)", t(), [](auto const& a) { return norm(a); }},
      {"norm(t, axis=(0, 2))", t(), [](auto const& a) { return norm(a, jaxcc::none, {0, 2}); }},
      {"norm(t, 1, axis=(2, 0))", t(), [](auto const& a) { return norm(a, 1, {2, 0}); }},
      {"norm(t, inf, axis=(1, 2), keepdims=True)", t(), [](auto const& a) { return norm(a, inf, {1, 2}, true); }},
      {"norm(t, -inf, axis=(0, 1))", t(), [](auto const& a) { return norm(a, -inf, {0, 1}); }},
  };
}

}  // namespace

TEST_CASE("norm matches JAX: values and gradients", "[norm]") {
  auto const all = cases();
  REQUIRE(all.size() == golden().size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto const& [name, x, f] = all[i];
    auto const& g = golden()[i];
    INFO(name);
    REQUIRE(g.name == name);
    auto const y = f(x);
    CHECK(y.shape() == g.shape);
    CHECK(jaxcc_test::mismatches<float>(jaxcc_test::as_doubles(y), g.values, 2e-6) == "");
    auto const fn = f;  // not a structured binding: clang 14 cannot capture one
    // A zero cotangent's sign is the order of XLA's products: compare zeros as zeros.
    auto unsigned_zeros = jaxcc_test::as_doubles(jaxcc::grad([&](Array<float> const& a) { return jnp::sum(fn(a)); })(x));
    for (auto& e : unsigned_zeros) e += 0.0;
    CHECK(jaxcc_test::mismatches<float>(unsigned_zeros, g.grad, 2e-6) == "");
  }
}

TEST_CASE("norm under vmap, jit and second derivatives", "[norm][vmap][jit][grad]") {
  Array<double> const xs = jaxcc_test::smooth({3, 4, 5}) + 2.0;  // away from 0, where |x| has no derivative
  for (double const ord : {2.0, 1.0, 3.0, inf}) {
    INFO(ord);
    auto const vec = [&](Array<double> const& a) { return norm(a, ord, -1); };
    REQUIRE_NOTHROW(jaxcc::testing::check_vmap(vec, jaxcc::in_axes(0), xs));
    REQUIRE_NOTHROW(jaxcc::testing::check_jit(vec, xs));
    if (ord != inf) REQUIRE_NOTHROW(jaxcc::testing::check_grads(vec, std::tuple{xs}, 2));
  }
  auto const fro = [](Array<double> const& a) { return norm(a, "fro", {0, 1}); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(fro, jaxcc::in_axes(2), xs));
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(fro, std::tuple{xs}, 2));
  // By hand: |(3, -4)| = 5; the 1-norm of [[1, -2], [3, 4]] is its largest column sum, 6.
  CHECK(norm(jnp::array({3.0, -4.0})).item() == 5.0);
  CHECK(norm(jnp::array({{1.0, -2.0}, {3.0, 4.0}}), 1).item() == 6.0);
  CHECK(norm(jnp::array({3, 4})).item() == 5.0f);  // integers as float32
  // The singular values of [[3, 0], [0, -4]] are 4 and 3 (against JAX: tests/test_linalg_decompositions.cpp).
  auto const d = jnp::array({{3.0, 0.0}, {0.0, -4.0}});
  CHECK(norm(d, 2).item() == Approx(4.0));
  CHECK(norm(d, -2).item() == Approx(3.0));
  CHECK(norm(d, "nuc").item() == Approx(7.0));
  CHECK(norm(jnp::ones<float>({2, 3, 4}), "nuc", {0, 1}).shape() == Shape{4});
}

TEST_CASE("norm: errors", "[norm][errors]") {
  auto const x = jnp::ones<float>({2, 3, 4});
  CHECK(message_of([&] { norm(x, 1); }) ==
        "Improper number of axes for norm: axis=(0, 1, 2). Pass one axis to compute a vector-norm, or two axes to "
        "compute a matrix-norm.");
  CHECK(message_of([&] { norm(x, 3, {0, 1}); }) == "Invalid order '3' for matrix norm.");
  CHECK(message_of([&] { norm(x, "fro", 0); }) == "Invalid order 'fro' for vector norm.");
  CHECK(message_of([&] { norm(x, "nuc", 0); }) == "Invalid order 'nuc' for vector norm.");
  CHECK(message_of([&] { norm(x, "max", {0, 1}); }) == "Invalid order 'max' for matrix norm.");
}

}  // namespace test_norm
