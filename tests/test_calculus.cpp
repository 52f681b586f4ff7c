// jnp's finite differences, integrals and interpolation (numpy/calculus.hpp),
// 1-D convolutions (numpy/signal.hpp), vector products
// (numpy/tensor_contractions.hpp) and polynomials (numpy/polynomial.hpp):
// values and gradients against JAX's (tests/golden/calculus_cases.py; each
// case named by its Python spelling, written beside its C++ form here);
// derivatives to second order, vmap with its derivatives, jit, edge
// shapes, and the errors.
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"
#include "value_grad_golden.hpp"

namespace test_calculus {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::none;
using jaxcc::Shape;
using jaxcc_test::message_of;

namespace {

using Golden = value_grad_golden::Row;

std::vector<Golden> const& golden() {
  static std::vector<Golden> const all = {
#include "golden/calculus_cases.inc"
  };
  return all;
}

// The generator's inputs.
Array<float> v() { return jnp::array({1.0f, 3.0f, 6.5f, 10.0f, 12.0f}); }
Array<float> u() { return jnp::array({0.5f, -1.0f, 2.0f}); }
Array<float> m() {
  return jnp::array({{1.5f, -2.0f, 0.5f, 3.0f}, {4.0f, 2.5f, -1.0f, 0.25f}, {-3.0f, 1.0f, 2.0f, 5.5f}});
}
Array<float> xs() { return jnp::array({0.0f, 0.5f, 1.5f, 3.0f, 3.5f}); }
Array<float> q() { return jnp::array({-1.0f, 0.25f, 2.5f, 3.0f, 4.75f, 6.0f}); }
Array<float> w() { return jnp::array({0.1f, 3.5f, -2.9f, 0.4f, 6.0f, 0.2f}); }
Array<float> b3() { return jnp::array({{1.0f, 2.0f, -0.5f}, {0.5f, -1.5f, 2.0f}}); }
Array<float> c3() { return jnp::array({{-1.0f, 0.5f, 3.0f}, {2.0f, 1.0f, -0.75f}}); }
Array<float> p() { return jnp::array({2.0f, -3.0f, 0.5f, 1.0f}); }
// x[lo:hi] along axis.
Array<float> part(Array<float> const& x, std::int64_t axis, std::int64_t lo, std::int64_t hi) {
  return jaxcc::detail::axis_slice(x, axis, lo, hi);
}
template <class T>
Array<float> stacked(std::vector<Array<T>> const& parts) { return jnp::stack(parts); }
template <class T>
Array<float> joined(std::tuple<Array<T>, Array<T>> const& parts) {
  return jnp::concatenate(std::vector<Array<T>>{std::get<0>(parts), std::get<1>(parts)});
}

std::vector<value_grad_golden::Case> cases() {
  return {
      {"diff(v)", v(), [](auto const& a) { return jnp::diff(a); }},
      {"diff(v, 2)", v(), [](auto const& a) { return jnp::diff(a, 2); }},
      {"diff(m, 1, 0)", m(), [](auto const& a) { return jnp::diff(a, 1, 0); }},
      {"diff(m, 2, -1, prepend=1.0, append=m[:, :1])", m(),
       [](auto const& a) { return jnp::diff(a, 2, -1, 1.0, part(m(), 1, 0, 1)); }},
      {"ediff1d(m, to_end=u, to_begin=2.0)", m(), [](auto const& a) { return jnp::ediff1d(a, u(), 2.0); }},
      {"gradient(v)", v(), [](auto const& a) { return jnp::gradient(a)[0]; }},
      {"gradient(v, 0.5)", v(), [](auto const& a) { return jnp::gradient(a, {0.5}, 0); }},
      {"gradient(v, xs)", v(), [](auto const& a) { return jnp::gradient(a, {xs()}, 0); }},
      {"stack(gradient(m))", m(), [](auto const& a) { return stacked(jnp::gradient(a)); }},
      {"gradient(m, 2.0, axis=0)", m(), [](auto const& a) { return jnp::gradient(a, {2.0}, 0); }},
      {"stack(gradient(m, 2.0, xs[:4], axis=(0, 1)))", m(),
       [](auto const& a) { return stacked(jnp::gradient(a, {2.0, part(xs(), 0, 0, 4)}, {0, 1})); }},
      {"trapezoid(v)", v(), [](auto const& a) { return jnp::trapezoid(a); }},
      {"trapezoid(v, xs)", v(), [](auto const& a) { return jnp::trapezoid(a, xs()); }},
      {"trapezoid(m, dx=0.5, axis=0)", m(), [](auto const& a) { return jnp::trapezoid(a, none, 0.5, 0); }},
      {"trapezoid(m, m * m, axis=1)", m(), [](auto const& a) { return jnp::trapezoid(a, Array<float>(m() * m()), 1.0, 1); }},
      {"trapezoid(m, dx=xs[:3])", m(), [](auto const& a) { return jnp::trapezoid(a, none, part(xs(), 0, 0, 3)); }},
      {"interp(q, xs, v)", q(), [](auto const& a) { return jnp::interp(a, xs(), v()); }},
      {"interp(q, xs, v, -5.0, 7.0) (wrt fp)", v(), [](auto const& a) { return jnp::interp(q(), xs(), a, -5.0, 7.0); }},
      {"interp(q, xs, v, 'extrapolate', 'extrapolate')", q(),
       [](auto const& a) { return jnp::interp(a, xs(), v(), "extrapolate", "extrapolate"); }},
      {"interp(q, xs, v, period=2.5)", q(), [](auto const& a) { return jnp::interp(a, xs(), v(), none, none, 2.5); }},
      {"unwrap(w)", w(), [](auto const& a) { return jnp::unwrap(a); }},
      {"unwrap(w, 2.0, period=4.0)", w(), [](auto const& a) { return jnp::unwrap(a, 2.0, -1, 4.0); }},
      {"unwrap(m * 2, axis=0)", m(), [](auto const& a) { return jnp::unwrap(Array<float>(a * 2.0f), std::nullopt, 0); }},
      {"convolve(v, u)", v(), [](auto const& a) { return jnp::convolve(a, u()); }},
      {"convolve(u, v, 'same')", u(), [](auto const& a) { return jnp::convolve(a, v(), "same"); }},
      {"convolve(v, u[:2], 'same')", v(), [](auto const& a) { return jnp::convolve(a, part(u(), 0, 0, 2), "same"); }},
      {"convolve(v, u, 'valid')", v(), [](auto const& a) { return jnp::convolve(a, u(), "valid"); }},
      {"correlate(v, u)", v(), [](auto const& a) { return jnp::correlate(a, u()); }},
      {"correlate(u, v, 'full')", u(), [](auto const& a) { return jnp::correlate(a, v(), "full"); }},
      {"correlate(v, u[:2], 'same')", v(), [](auto const& a) { return jnp::correlate(a, part(u(), 0, 0, 2), "same"); }},
      {"cross(b3, c3)", b3(), [](auto const& a) { return jnp::cross(a, c3()); }},
      {"cross(b3[:, :2], c3)", b3(), [](auto const& a) { return jnp::cross(part(a, 1, 0, 2), c3()); }},
      {"cross(b3[:, :2], c3[:, 1:])", b3(), [](auto const& a) { return jnp::cross(part(a, 1, 0, 2), part(c3(), 1, 1, 3)); }},
      {"cross(b3.T, c3, axisa=0, axisc=0)", b3(), [](auto const& a) { return jnp::cross(a.T(), c3(), 0, -1, 0); }},
      {"kron(m, u)", m(), [](auto const& a) { return jnp::kron(a, u()); }},
      {"kron(b3, m)", b3(), [](auto const& a) { return jnp::kron(a, m()); }},
      {"vecdot(b3, c3)", b3(), [](auto const& a) { return jnp::vecdot(a, c3()); }},
      {"vecdot(b3[:, :1], c3, axis=0)", b3(), [](auto const& a) { return jnp::vecdot(part(a, 1, 0, 1), c3(), 0); }},
      {"matvec(m, v[:4])", m(), [](auto const& a) { return jnp::matvec(a, part(v(), 0, 0, 4)); }},
      {"matvec(m, ones((2, 1, 4)) * v[:4])", m(),
       [](auto const& a) { return jnp::matvec(a, Array<float>(jnp::ones<float>({2, 1, 4}) * part(v(), 0, 0, 4))); }},
      {"vecmat(u, m)", u(), [](auto const& a) { return jnp::vecmat(a, m()); }},
      {"vander(u)", u(), [](auto const& a) { return jnp::vander(a); }},
      {"vander(v, 3, True)", v(), [](auto const& a) { return jnp::vander(a, 3, true); }},
      {"polyval(p, v)", p(), [](auto const& a) { return jnp::polyval(a, v()); }},
      {"polyval(p, m) (wrt x)", m(), [](auto const& a) { return jnp::polyval(p(), a); }},
      {"polyadd(p, u)", p(), [](auto const& a) { return jnp::polyadd(a, u()); }},
      {"polysub(u, p)", u(), [](auto const& a) { return jnp::polysub(a, p()); }},
      {"polymul(p, u)", p(), [](auto const& a) { return jnp::polymul(a, u()); }},
      {"polyder(p)", p(), [](auto const& a) { return jnp::polyder(a); }},
      {"polyder(v, 3)", v(), [](auto const& a) { return jnp::polyder(a, 3); }},
      {"polyint(p)", p(), [](auto const& a) { return jnp::polyint(a); }},
      {"polyint(p, 2, 1.5)", p(), [](auto const& a) { return jnp::polyint(a, 2, 1.5); }},
      {"polyint(p, 2, u[:2])", p(), [](auto const& a) { return jnp::polyint(a, 2, part(u(), 0, 0, 2)); }},
      {"concatenate(polydiv(v, u))", v(), [](auto const& a) { return joined(jnp::polydiv(a, u())); }},
      {"concatenate(polydiv(v, p)) (wrt v)", p(), [](auto const& a) { return joined(jnp::polydiv(v(), a)); }},
      {"poly(u)", u(), [](auto const& a) { return jnp::poly(a); }},
      {"polyfit(xs, v, 2)", v(), [](auto const& a) { return jnp::polyfit(xs(), a, 2); }},
      {"polyfit(xs, v, 2, w=xs + 1)", v(),
       [](auto const& a) { return jnp::polyfit(xs(), a, 2, std::nullopt, false, Array<float>(xs() + 1.0f)); }},
      {"polyfit(xs, stack([v, v * v], 1), 1)", v(),
       [](auto const& a) { return jnp::polyfit(xs(), jnp::stack(std::vector<Array<float>>{a, a * a}, 1), 1); }},
  };
}

}  // namespace

TEST_CASE("calculus, signal, products and polynomials match JAX: values and gradients", "[calculus]") {
  value_grad_golden::check(cases(), golden(), {2e-5, 2e-5}, {2e-5, 2e-5});
}

}  // namespace test_calculus

namespace test_calculus {

TEST_CASE("calculus, signal, products and polynomials: second derivatives, vmap and jit", "[calculus][grad][vmap][jit]") {
  using D = Array<double>;
  namespace testing = jaxcc::testing;
  D const x5 = jaxcc_test::smooth({5}) + 1.0;         // one vector
  D const xs = jaxcc_test::smooth({3, 5}, 0.61) + 1.0;  // a batch of them
  D const mats = jaxcc_test::smooth({3, 4, 3}, 0.23);
  D const grid = jnp::array({0.0, 0.4, 1.1, 1.5, 2.6});
  D const vals = jnp::array({1.0, -0.5, 2.0, 0.25, 1.5});
  D const k3 = jnp::array({0.5, -1.0, 2.0});
  std::vector<std::pair<std::string, std::function<D(D const&)>>> const fns = {
      {"diff", [](D const& a) { return jnp::diff(a, 2, -1, 0.5); }},
      {"ediff1d", [](D const& a) { return jnp::ediff1d(a, 1.0); }},
      {"gradient", [&](D const& a) { return jnp::gradient(a, {grid}, 0); }},
      {"trapezoid", [&](D const& a) { return jnp::trapezoid(a, grid); }},
      {"interp", [&](D const& a) { return jnp::interp(Array<double>(a * 2.0 - 0.3), grid, vals); }},
      {"interp (fp)", [&](D const& a) { return jnp::interp(jnp::array({0.2, 1.3, 3.0}), grid, a, "extrapolate"); }},
      {"unwrap", [](D const& a) { return jnp::unwrap(Array<double>(a * 4.0)); }},
      {"convolve", [&](D const& a) { return jnp::convolve(a, k3, "same"); }},
      {"correlate", [&](D const& a) { return jnp::correlate(k3, a, "full"); }},
      {"kron", [&](D const& a) { return jnp::kron(a, k3); }},
      {"vecdot", [&](D const& a) { return jnp::vecdot(a * a, vals); }},
      {"matvec", [&](D const& a) { return jnp::matvec(jnp::outer(a, a), vals); }},
      {"vander", [](D const& a) { return jnp::vander(a, 4); }},
      {"polyval", [&](D const& a) { return jnp::polyval(a, vals); }},
      {"polymul", [&](D const& a) { return jnp::polymul(a, a); }},
      {"polyder", [](D const& a) { return jnp::polyder(a * a, 2); }},
      {"polyint", [](D const& a) { return jnp::polyint(a * a, 2, 0.5); }},
      {"polydiv", [&](D const& a) { return std::get<1>(jnp::polydiv(a, Array<double>(k3 + a[0]))); }},
      {"poly", [](D const& a) { return jnp::poly(a); }},
      {"polyfit", [&](D const& a) { return jnp::polyfit(grid, a, 2); }},
  };
  for (auto const& [name, f] : fns) {
    INFO(name);
    auto const fn = f;
    REQUIRE_NOTHROW(testing::check_grads(fn, std::tuple{x5}, 2));
    REQUIRE_NOTHROW(testing::check_batching_rule(fn, jaxcc::in_axes(0), xs));
    REQUIRE_NOTHROW(testing::check_jit(fn, x5));
  }
  // cross of five 3-vectors with themselves scaled.
  auto const c = [](D const& a) {
    return jnp::cross(a.reshape({5, 3}), Array<double>(jnp::array({1.0, -2.0, 0.5}) * a.reshape({5, 3})));
  };
  D const x15 = jaxcc_test::smooth({15}) + 1.0, b15 = jaxcc_test::smooth({3, 15}) + 1.0;
  REQUIRE_NOTHROW(testing::check_grads(c, std::tuple{x15}, 2));
  REQUIRE_NOTHROW(testing::check_batching_rule(c, jaxcc::in_axes(0), b15));
  // Matrix-valued arguments: gradient and trapezoid along axis 0, vecmat of a batch.
  auto const grad0 = [](D const& a) { return jnp::gradient(a, {0.5}, 0); };
  REQUIRE_NOTHROW(testing::check_grads(grad0, std::tuple{D(mats[0])}, 2));
  REQUIRE_NOTHROW(testing::check_batching_rule(grad0, jaxcc::in_axes(2), mats));
  auto const vm = [&](D const& a) { return jnp::vecmat(k3, a); };
  REQUIRE_NOTHROW(testing::check_batching_rule(vm, jaxcc::in_axes(2), mats));
  // Edge shapes (0-d, empty): raise or run, eagerly as under jit.
  REQUIRE_NOTHROW(testing::check_edges([](D const& a) { return jnp::diff(a); }, x5));
  REQUIRE_NOTHROW(testing::check_edges([](D const& a) { return jnp::trapezoid(a); }, x5));
  REQUIRE_NOTHROW(testing::check_edges([](D const& a) { return jnp::ediff1d(a); }, x5));
  REQUIRE_NOTHROW(testing::check_edges([](D const& a) { return jnp::unwrap(a); }, x5));
  REQUIRE_NOTHROW(testing::check_edges([&](D const& a) { return jnp::interp(a, grid, vals); }, x5));
  REQUIRE_NOTHROW(testing::check_edges([&](D const& a) { return jnp::convolve(a, k3); }, x5));
  REQUIRE_NOTHROW(testing::check_edges([&](D const& a) { return jnp::kron(a, k3); }, x5));
  REQUIRE_NOTHROW(testing::check_edges([&](D const& a) { return jnp::polyval(a, vals); }, x5));
  REQUIRE_NOTHROW(testing::check_edges([](D const& a) { return jnp::poly(a); }, x5));
  // By hand: the roots 1 and 2 make x² - 3x + 2; its derivative at 4 is 5.
  CHECK(jaxcc_test::as_doubles(jnp::poly(jnp::array({1.0, 2.0}))) == std::vector<double>{1.0, -3.0, 2.0});
  CHECK(jnp::polyval(jnp::polyder(jnp::array({1.0, -3.0, 2.0})), jnp::array(4.0)).item() == 5.0);
  CHECK(jnp::gradient(jnp::ones<float>({})).empty());  // no axis: no gradient (JAX's [])
  CHECK(jnp::convolve(jnp::array({1, 2}), jnp::array({1, 1})).dtype() == jaxcc::DType::float32);
}

TEST_CASE("calculus, signal, products and polynomials: errors", "[calculus][errors]") {
  auto const v = jnp::ones<float>({3});
  auto const m = jnp::ones<float>({3, 4});
  CHECK(message_of([&] { jnp::diff(jnp::ones<float>({})); }) ==
        "diff requires input that is at least one dimensional; got an array of shape ()");
  CHECK(message_of([&] { jnp::diff(v, -1); }) == "order must be non-negative but got -1");
  CHECK(message_of([&] { jnp::diff(v, 1, 2); }) == "diff: axis 2 is out of bounds for array of dimension 1");
  CHECK(message_of([&] { jnp::gradient(jnp::ones<float>({1})); }) ==
        "Shape of array too small to calculate a numerical gradient, at least 2 elements are required.");
  CHECK(message_of([&] { jnp::gradient(m, {1.0, 2.0, 3.0}); }) == "Invalid number of spacing arguments 3 for axis=None");
  CHECK(message_of([&] { jnp::gradient(m, {1.0, 2.0}, 0); }) == "Invalid number of spacing arguments 2 for axis=0");
  CHECK(message_of([&] { jnp::gradient(v, {jnp::ones<float>({2})}, 0); }) ==
        "Spacing arrays must have the same length as the dimension along which the gradient is calculated.");
  CHECK(message_of([&] { jnp::gradient(v, {jnp::ones<float>({3, 3})}, 0); }) ==
        "Spacing arrays must be 1D arrays or scalars.");
  CHECK(message_of([&] { jnp::interp(v, v, jnp::ones<float>({4})); }) ==
        "xp and fp must be one-dimensional arrays of equal size");
  CHECK(message_of([&] { jnp::interp(v, v, v, "x"); }) ==
        "the only valid string value of `left` is 'extrapolate', but got: 'x'");
  CHECK(message_of([&] { jnp::interp(v, v, v, none, "y"); }) ==
        "the only valid string value of `right` is 'extrapolate', but got: 'y'");
  CHECK(message_of([&] { jnp::trapezoid(jnp::ones<float>({0})); }) == "index is out of bounds for axis 0 with size 0");
  CHECK(message_of([&] { jnp::convolve(v, v, "bad"); }) == "mode must be one of ['full', 'same', 'valid']");
  CHECK(message_of([&] { jnp::correlate(jnp::ones<float>({3, 1}), v); }) == "correlate() only support 1-dimensional inputs.");
  CHECK(message_of([&] { jnp::correlate(v, jnp::ones<float>({0})); }) ==
        "correlate: inputs cannot be empty, got shapes (3,) and (0,).");
  CHECK(message_of([&] { jnp::cross(jnp::ones<float>({4}), v); }) == "Dimension must be either 2 or 3 for cross product");
  CHECK(message_of([&] { jnp::vecdot(v, jnp::ones<float>({4})); }) ==
        "axes must match; got shapes (3,) and (4,) with axis=-1");
  CHECK(message_of([&] { jnp::vecdot(jnp::ones<float>({5, 3}), jnp::ones<float>({4, 3})); }) ==
        "Incompatible shapes for broadcasting: shapes=[(5,), (4,)]");
  CHECK(message_of([&] { jnp::matvec(jnp::ones<float>({2, 3}), jnp::ones<float>({4})); }) ==
        "inconsistent size for core dimension 'm': 4 vs 3 on vectorized function with excluded=frozenset() and "
        "signature='(n,m),(m)->(n)'");
  CHECK(message_of([&] { jnp::matvec(v, v); }) ==
        "input with shape (3,) does not have enough dimensions for all core dimensions ('n', 'm') on vectorized "
        "function with excluded=frozenset() and signature='(n,m),(m)->(n)'");
  CHECK(message_of([&] { jnp::vecmat(v, jnp::ones<float>({4, 2})); }) ==
        "inconsistent size for core dimension 'n': 4 vs 3 on vectorized function with excluded=frozenset() and "
        "signature='(n),(n,m)->(m)'");
  CHECK(message_of([&] { jnp::vander(m); }) == "x must be a one-dimensional array");
  CHECK(message_of([&] { jnp::vander(v, -1); }) == "N must be nonnegative");
  CHECK(message_of([&] { jnp::polyder(v, -1); }) == "Order of derivative must be positive");
  CHECK(message_of([&] { jnp::polyint(v, -1); }) == "Order of integral must be positive (see polyder)");
  CHECK(message_of([&] { jnp::polyint(v, 2, v); }) == "k must be a scalar or a rank-1 array of length 1 or m.");
  CHECK(message_of([&] { jnp::poly(jnp::ones<float>({2, 3})); }) == "input must be 1d or non-empty square 2d array.");
  CHECK(message_of([&] { jnp::polyfit(v, v, -1); }) == "expected deg >= 0");
  CHECK(message_of([&] { jnp::polyfit(v, jnp::ones<float>({4}), 1); }) == "expected x and y to have same length");
  CHECK(message_of([&] { jnp::polyfit(jnp::ones<float>({3, 1}), v, 1); }) == "expected 1D vector for x");
}

}  // namespace test_calculus
