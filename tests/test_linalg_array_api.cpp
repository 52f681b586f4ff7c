// jnp.linalg's array-API functions (numpy/linalg_array_api.hpp), cond,
// tensorinv and tensorsolve (numpy/linalg_solve.hpp) and eigvalsh
// (numpy/linalg_decompositions.hpp): values and gradients against JAX's
// (tests/golden/linalg_array_api_cases.py; each case named by its Python
// spelling, written beside its C++ form here); derivatives to second
// order, vmap with its derivatives, jit, and the errors.
#include "catch.hpp"

#include <cmath>
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
#include "value_grad_golden.hpp"

namespace test_linalg_array_api {

namespace jnp = jaxcc::numpy;
namespace la = jaxcc::numpy::linalg;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

using Golden = value_grad_golden::Row;

std::vector<Golden> const& golden() {
  static std::vector<Golden> const all = {
#include "golden/linalg_array_api_cases.inc"
  };
  return all;
}

// The generator's inputs.
Array<float> v() { return jnp::array({3.0f, -4.0f, 0.5f, 2.0f}); }
Array<float> m() {
  return jnp::array({{1.5f, -2.0f, 0.5f, 3.0f}, {4.0f, 2.5f, -1.0f, 0.25f}, {-3.0f, 1.0f, 2.0f, 5.5f}});
}
Array<float> s() { return jnp::array({{4.0f, 1.0f, -0.5f}, {0.5f, 3.0f, 1.0f}, {-1.0f, 0.25f, 5.0f}}); }
Array<float> t() {
  return jnp::arange<float>(1, 25).reshape({2, 3, 4}) * jnp::array({1.0f, -0.5f, 0.75f, -1.25f});
}
Array<float> b3() { return jnp::array({{1.0f, 2.0f, -0.5f}, {0.5f, -1.5f, 2.0f}}); }
Array<float> c3() { return jnp::array({{-1.0f, 0.5f, 3.0f}, {2.0f, 1.0f, -0.75f}}); }
Array<float> k4() {
  return Array<float>(jnp::eye<float>(6) * 3.0f + jnp::arange<float>(36).reshape({6, 6}) / 20.0f).reshape({2, 3, 6});
}
// x[lo:hi] along axis.
Array<float> part(Array<float> const& x, std::int64_t axis, std::int64_t lo, std::int64_t hi) {
  return jaxcc::detail::axis_slice(x, axis, lo, hi);
}

std::vector<value_grad_golden::Case> cases() {
  return {
      {"cond(s)", s(), [](auto const& a) { return la::cond(a); }},
      {"cond(s, -2)", s(), [](auto const& a) { return la::cond(a, -2); }},
      {"cond(s, 1)", s(), [](auto const& a) { return la::cond(a, 1); }},
      {"cond(s, inf)", s(), [](auto const& a) { return la::cond(a, inf); }},
      {"cond(s, 'fro')", s(), [](auto const& a) { return la::cond(a, "fro"); }},
      {"cond(m)", m(), [](auto const& a) { return la::cond(a); }},
      {"cross(b3, c3)", b3(), [](auto const& a) { return la::cross(a, c3()); }},
      {"cross(b3.T, c3.T, axis=0)", b3(), [](auto const& a) { return la::cross(a.T(), c3().T(), 0); }},
      {"diagonal(t, offset=1)", t(), [](auto const& a) { return la::diagonal(a, 1); }},
      {"eigvalsh(s)", s(), [](auto const& a) { return la::eigvalsh(a); }},
      {"eigvalsh(s, 'U')", s(), [](auto const& a) { return la::eigvalsh(a, "U"); }},
      {"matmul(t, m.T)", t(), [](auto const& a) { return la::matmul(a, m().T()); }},
      {"matrix_norm(t)", t(), [](auto const& a) { return la::matrix_norm(a); }},
      {"matrix_norm(t, keepdims=True, ord=1)", t(), [](auto const& a) { return la::matrix_norm(a, true, 1); }},
      {"matrix_norm(m, ord='nuc')", m(), [](auto const& a) { return la::matrix_norm(a, false, "nuc"); }},
      {"matrix_transpose(t)", t(), [](auto const& a) { return la::matrix_transpose(a); }},
      {"multi_dot([m, m.T, s])", m(), [](auto const& a) { return la::multi_dot<float>({a, m().T(), s()}); }},
      {"multi_dot([v, m.T, s, b3.T])", v(), [](auto const& a) { return la::multi_dot<float>({a, m().T(), s(), b3().T()}); }},
      {"multi_dot([s, s[0]])", s(), [](auto const& a) { return la::multi_dot<float>({a, part(s(), 0, 0, 1).reshape({3})}); }},
      {"outer(v, v[:3])", v(), [](auto const& a) { return la::outer(a, part(v(), 0, 0, 3)); }},
      {"tensordot(t, m, axes=1)", t(), [](auto const& a) { return la::tensordot(a, m().T(), 1); }},
      {"tensordot(t, m, axes=([1, 2], [0, 1]))", t(), [](auto const& a) { return la::tensordot(a, m(), {{1, 2}, {0, 1}}); }},
      {"tensorinv(k4, 2)", k4(), [](auto const& a) { return la::tensorinv(a, 2); }},
      {"tensorinv(k4.reshape(6, 2, 3), 1)", k4(), [](auto const& a) { return la::tensorinv(a.reshape({6, 2, 3}), 1); }},
      {"tensorsolve(k4, m[:2, :3])", k4(), [](auto const& a) { return la::tensorsolve(a, part(part(m(), 0, 0, 2), 1, 0, 3)); }},
      {"tensorsolve(k4.reshape(6, 2, 3), v[:3] (x2), axes=(0,))", k4(),
       [](auto const& a) {
         auto const b = jnp::concatenate(std::vector<Array<float>>{part(v(), 0, 0, 3), part(v(), 0, 0, 3)}).reshape({2, 3});
         return la::tensorsolve(a.reshape({6, 2, 3}), b, jaxcc::Axes{0});
       }},
      {"trace(t, offset=-1)", t(), [](auto const& a) { return la::trace(a, -1); }},
      {"vecdot(b3, c3, axis=0)", b3(), [](auto const& a) { return la::vecdot(a, c3(), 0); }},
      {"vector_norm(t)", t(), [](auto const& a) { return la::vector_norm(a); }},
      {"vector_norm(t, axis=(0, 2), keepdims=True, ord=inf)", t(), [](auto const& a) { return la::vector_norm(a, {0, 2}, true, inf); }},
      {"vector_norm(t, axis=1, ord=-inf)", t(), [](auto const& a) { return la::vector_norm(a, 1, false, -inf); }},
      {"vector_norm(m, axis=0, ord=0)", m(), [](auto const& a) { return la::vector_norm(a, 0, false, 0); }},
      {"vector_norm(m, ord=1)", m(), [](auto const& a) { return la::vector_norm(a, jaxcc::none, false, 1); }},
      {"vector_norm(m, axis=1, ord=3)", m(), [](auto const& a) { return la::vector_norm(a, 1, false, 3); }},
  };
}

}  // namespace

TEST_CASE("jnp.linalg's array-API functions, cond, tensorinv, tensorsolve, eigvalsh match JAX", "[linalg]") {
  value_grad_golden::check(cases(), golden(), {5e-5, 5e-5}, {2e-4, 2e-4});
}

TEST_CASE("jnp.linalg's new functions: second derivatives, vmap and jit", "[linalg][grad][vmap][jit]") {
  using D = Array<double>;
  namespace testing = jaxcc::testing;
  D const eye3 = jnp::eye<double>(3) * 3.0;
  D const sq = jaxcc_test::smooth({3, 3}, 0.41) + eye3;             // one well-conditioned matrix
  D const sqs = jaxcc_test::smooth({2, 3, 3}, 0.37) + eye3;         // a batch of them
  D const vec = jaxcc_test::smooth({2, 4}, 0.53) + 1.5;            // vectors away from 0
  std::vector<std::pair<std::string, std::function<D(D const&)>>> const fns = {
      {"cond", [](D const& a) { return la::cond(a); }},
      {"cond 1", [](D const& a) { return la::cond(a, "fro"); }},
      {"eigvalsh", [](D const& a) { return la::eigvalsh(a); }},
      {"tensorinv", [](D const& a) { return la::tensorinv(a.reshape({9}).reshape({3, 3}), 1); }},
      {"tensorsolve", [](D const& a) { return la::tensorsolve(a, jnp::array({1.0, -2.0, 0.5})); }},
      {"multi_dot", [](D const& a) { return la::multi_dot<double>({a, a.T(), a}); }},
      {"matrix_norm", [](D const& a) { return la::matrix_norm(a, false, 1); }},
      {"vector_norm", [](D const& a) { return la::vector_norm(a, 1, false, 3); }},
  };
  for (auto const& [name, f] : fns) {
    INFO(name);
    auto const fn = f;
    REQUIRE_NOTHROW(testing::check_grads(fn, std::tuple{sq}, 2));
    REQUIRE_NOTHROW(testing::check_batching_rule(fn, jaxcc::in_axes(0), sqs));
    REQUIRE_NOTHROW(testing::check_jit(fn, sq));
  }
  auto const cr = [](D const& a) { return la::cross(a.reshape({2, 2, 3})[0], a.reshape({2, 2, 3})[1]); };
  REQUIRE_NOTHROW(testing::check_grads(cr, std::tuple{D(jaxcc_test::smooth({12}))}, 2));
  auto const vn = [](D const& a) { return la::vector_norm(a); };
  REQUIRE_NOTHROW(testing::check_batching_rule(vn, jaxcc::in_axes(1), vec));
  // By hand: cond of diag(1, 4) is 4; a singular matrix's 1-norm condition number is inf.
  CHECK(la::cond(jnp::array({{1.0, 0.0}, {0.0, 4.0}})).item() == Approx(4.0));
  CHECK(std::isinf(la::cond(jnp::ones<double>({2, 2}), 1).item()));
}

TEST_CASE("jnp.linalg's new functions: errors", "[linalg][errors]") {
  auto const o = [](Shape const& shape) { return jnp::ones<float>(shape); };
  CHECK(message_of([&] { la::cond(o({3})); }) == "jnp.linalg.cond: input array must be at least 2D; got arr.shape=(3,)");
  CHECK(message_of([&] { la::cond(o({0, 3})); }) == "jnp.linalg.cond: input array must not be empty; got arr.shape=(0, 3)");
  CHECK(message_of([&] { la::cond(o({2, 3}), 1); }) ==
        "jnp.linalg.cond: for p=1, array must be square; got arr.shape=(2, 3)");
  CHECK(message_of([&] { la::cond(o({2, 3}), "fro"); }) ==
        "jnp.linalg.cond: for p='fro', array must be square; got arr.shape=(2, 3)");
  CHECK(message_of([&] { la::cross(o({2}), o({3})); }) ==
        "Both input arrays must be (arrays of) 3-dimensional vectors, but they have x1.shape[axis]=2 and "
        "x2.shape[axis]=3");
  CHECK(message_of([&] { la::outer(o({2, 2}), o({3})); }) ==
        "Input arrays must be one-dimensional, but they are x1.ndim=2 x2.ndim=1");
  CHECK(message_of([&] { la::matrix_transpose(o({3})); }) == "matrix_transpose requires at least 2 dimensions; got ndim=1");
  CHECK(message_of([&] { la::multi_dot<float>({o({2, 2})}); }) == "multi_dot requires at least two arrays; got len(arrays)=1");
  CHECK(message_of([&] { la::multi_dot<float>({o({2, 2}), o({2, 2, 2})}); }) ==
        "multi_dot: input arrays must all be two-dimensional, except for the first and last array which may be 1 or 2 "
        "dimensional. Got array shapes [(2, 2), (2, 2, 2)]");
  CHECK(message_of([&] { la::multi_dot<float>({o({2, 3}), o({2, 2}), o({2})}); }) ==
        "multi_dot: last dimension of each array must match first dimension of following array. Got array shapes "
        "[(2, 3), (2, 2), (2,)]");
  CHECK(message_of([&] { la::tensorinv(o({2, 3}), 0); }) == "ind must be a positive integer; got ind=0");
  CHECK(message_of([&] { la::tensorinv(o({2, 3}), 1); }) ==
        "tensorinv is only possible when the product of the first `ind` dimensions equals that of the remaining "
        "dimensions. got arr.shape=(2, 3) with ind=1.");
  CHECK(message_of([&] { la::tensorsolve(o({2, 3, 6}), o({3, 2})); }) ==
        "After moving axes to end, leading shape of a must match shape of b. got a.shape=(2, 3, 6), b.shape=(3, 2)");
  CHECK(message_of([&] { la::tensorsolve(o({2, 3, 4}), o({2, 3})); }) ==
        "Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); got a.shape=(2, 3, 4), b.ndim=2.");
}

}  // namespace test_linalg_array_api
