// lax::linalg (triangular_solve, cholesky, lu) and jnp::linalg's cholesky,
// solve, inv, det, slogdet, matrix_power, matrix_rank and lstsq (lax/linalg.hpp,
// numpy/linalg_decompositions.hpp, numpy/linalg_solve.hpp): values and
// gradients against JAX's (tests/golden/linalg_decompositions_cases.py;
// each case named by its Python spelling, written beside its C++ form
// here), factorizations that rebuild their input, batch axes, vmap against
// a loop, jit against eager, derivatives to second order, and the errors.
#include "catch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"

namespace test_linalg_decompositions {

namespace jnp = jaxcc::numpy;
namespace la = jaxcc::lax::linalg;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;

namespace {

struct Golden {
  std::string name;
  Shape shape;
  std::vector<double> values, grad;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const all = {
#include "golden/linalg_decompositions_cases.inc"
  };
  return all;
}

// The generator's inputs.
Array<float> a() { return jnp::array({{2.0f, -1.0f, 0.5f}, {4.0f, 1.5f, -2.0f}, {-1.0f, 3.0f, 1.0f}}); }
Array<float> a4() {
  return jnp::array({{1.0f, 2.0f, -1.0f, 0.5f}, {3.0f, -1.0f, 2.0f, 1.0f}, {0.5f, 1.0f, 4.0f, -2.0f},
                     {-2.0f, 0.5f, 1.0f, 3.0f}});
}
Array<float> ab() { return jnp::stack({a(), Array<float>(a().T() + jnp::eye<float>(3))}); }
Array<float> spd() { return jnp::array({{4.0f, 1.0f, -0.5f}, {1.0f, 3.0f, 0.25f}, {-0.5f, 0.25f, 2.0f}}); }
Array<float> spdb() { return jnp::stack({spd(), Array<float>(spd() + 0.5f * jnp::eye<float>(3))}); }
Array<float> low() { return jnp::array({{2.0f, 0.0f, 0.0f}, {1.0f, -1.5f, 0.0f}, {0.5f, 2.0f, 3.0f}}); }
Array<float> b() { return jnp::array({{1.0f, -2.0f}, {0.5f, 3.0f}, {-1.0f, 1.0f}}); }
Array<float> v() { return jnp::array({1.0f, 2.0f, -3.0f}); }
Array<float> wide() { return jnp::array({{1.0f, 2.0f, 3.0f, 4.0f}, {2.0f, -1.0f, 0.5f, 1.0f}, {4.0f, 0.0f, 1.0f, -2.0f}}); }
Array<float> tall() { return wide().T(); }
Array<float> v4() { return jnp::array({1.0f, -2.0f, 0.5f, 3.0f}); }
Array<float> b4() { return jnp::array({{1.0f, 0.5f}, {-2.0f, 1.0f}, {0.5f, -1.5f}, {3.0f, 2.0f}}); }
// Rank 2: the third column is the sum of tall's first two.
Array<float> defic() { return jnp::array({{1.0f, 2.0f, 3.0f}, {2.0f, -1.0f, 1.0f}, {3.0f, 0.5f, 3.5f}, {4.0f, 1.0f, 5.0f}}); }
Array<float> top_left(Array<float> const& x, std::int64_t n) { return jaxcc::lax::slice(x, {0, 0}, {n, n}); }

using Fn = std::function<Array<float>(Array<float> const&)>;
std::vector<std::tuple<std::string, Array<float>, Fn>> cases() {
  using jnp::linalg::cholesky, jnp::linalg::solve, jnp::linalg::inv, jnp::linalg::det, jnp::linalg::slogdet,
      jnp::linalg::matrix_power, jnp::linalg::eigh, jnp::linalg::qr, jnp::linalg::svd, jnp::linalg::svdvals,
      jnp::linalg::pinv, jnp::linalg::matrix_rank, jnp::linalg::lstsq, jnp::linalg::norm;
  auto const squared = [](Array<float> const& x) { return Array<float>(x * x); };
  auto const as_float = [](Array<std::int32_t> const& k) { return k.astype<float>(); };  // ranks
  auto const lu_part = [](int k) {
    return [k](Array<float> const& x) {
      auto const [factors, pivots, permutation] = la::lu(x);
      return k == 0 ? factors : (k == 1 ? pivots : permutation).astype<float>();
    };
  };
  return {
      {"triangular_solve(low, b, left_side=True, lower=True)", low(),
       [](auto const& x) { return la::triangular_solve(x, b(), true, true); }},
      {"triangular_solve(low, b.T, lower=True, transpose_a=True)", low(),
       [](auto const& x) { return la::triangular_solve(x, b().T(), false, true, true); }},
      {"triangular_solve(low.T, b, left_side=True, transpose_a=True, unit_diagonal=True)", low().T(),
       [](auto const& x) { return la::triangular_solve(x, b(), true, false, true, false, true); }},
      {"triangular_solve(low.T, b.T, unit_diagonal=True)", low().T(),
       [](auto const& x) { return la::triangular_solve(x, b().T(), false, false, false, false, true); }},
      {"triangular_solve(low, x, left_side=True, lower=True) wrt b", b(),
       [](auto const& x) { return la::triangular_solve(low(), x, true, true); }},
      {"triangular_solve(low, v, left_side=True, lower=True)", low(),
       [](auto const& x) { return la::triangular_solve(x, v(), true, true); }},
      {"cholesky(spd)", spd(), [](auto const& x) { return cholesky(x); }},
      {"cholesky(spdb)", spdb(), [](auto const& x) { return cholesky(x); }},
      {"cholesky(spd, upper=True)", spd(), [](auto const& x) { return cholesky(x, true); }},
      {"lax.linalg.cholesky(spd, symmetrize_input=False)", spd(), [](auto const& x) { return la::cholesky(x, false); }},
      {"lu(a)[0]", a(), lu_part(0)},
      {"lu(a)[1]", a(), lu_part(1)},
      {"lu(a)[2]", a(), lu_part(2)},
      {"lu(ab)[0]", ab(), lu_part(0)},
      {"lu(wide)[0]", wide(), lu_part(0)},
      {"lu(wide)[1]", wide(), lu_part(1)},
      {"lu(tall)[0]", tall(), lu_part(0)},
      {"lu(tall)[2]", tall(), lu_part(2)},
      {"solve(a, b)", a(), [](auto const& x) { return solve(x, b()); }},
      {"solve(a, x) wrt b", b(), [](auto const& x) { return solve(a(), x); }},
      {"solve(a, v)", a(), [](auto const& x) { return solve(x, v()); }},
      {"solve(ab, b)", ab(), [](auto const& x) { return solve(x, b()); }},
      {"solve(ab, v)", ab(), [](auto const& x) { return solve(x, v()); }},
      {"inv(a)", a(), [](auto const& x) { return inv(x); }},
      {"inv(ab)", ab(), [](auto const& x) { return inv(x); }},
      {"det(a)", a(), [](auto const& x) { return det(x); }},
      {"det(a4)", a4(), [](auto const& x) { return det(x); }},
      {"det(ab)", ab(), [](auto const& x) { return det(x); }},
      {"det(a[:2, :2])", top_left(a(), 2), [](auto const& x) { return det(x); }},
      {"slogdet(a4)[0]", a4(), [](auto const& x) { return std::get<0>(slogdet(x)); }},
      {"slogdet(a4)[1]", a4(), [](auto const& x) { return std::get<1>(slogdet(x)); }},
      {"slogdet(ab)[1]", ab(), [](auto const& x) { return std::get<1>(slogdet(x)); }},
      {"slogdet(a[:2, :2])[1]", top_left(a(), 2), [](auto const& x) { return std::get<1>(slogdet(x)); }},
      {"slogdet(-a[:1, :1])[0]", Array<float>(-top_left(a(), 1)), [](auto const& x) { return std::get<0>(slogdet(x)); }},
      {"matrix_power(a, 3)", a(), [](auto const& x) { return matrix_power(x, 3); }},
      {"matrix_power(a, 5)", a(), [](auto const& x) { return matrix_power(x, 5); }},
      {"matrix_power(a, -2)", a(), [](auto const& x) { return matrix_power(x, -2); }},
      {"matrix_power(ab, 0)", ab(), [](auto const& x) { return matrix_power(x, 0); }},
      {"matrix_power(a, -1)", a(), [](auto const& x) { return matrix_power(x, -1); }},
      {"matrix_power(a, -3)", a(), [](auto const& x) { return matrix_power(x, -3); }},
      {"matrix_power(ab, -3)", ab(), [](auto const& x) { return matrix_power(x, -3); }},
      {"eigh(spd)[0]", spd(), [](auto const& x) { return std::get<0>(eigh(x)); }},
      {"eigh(spd)[1] ** 2", spd(), [=](auto const& x) { return squared(std::get<1>(eigh(x))); }},
      {"eigh(a)[0]", a(), [](auto const& x) { return std::get<0>(eigh(x)); }},
      {"eigh(a, UPLO='U')[0]", a(), [](auto const& x) { return std::get<0>(eigh(x, "U")); }},
      {"eigh(a, symmetrize_input=False)[1] ** 2", a(), [=](auto const& x) { return squared(std::get<1>(eigh(x, "L", false))); }},
      {"eigh(spdb)[0]", spdb(), [](auto const& x) { return std::get<0>(eigh(x)); }},
      {"qr(tall)[0] ** 2", tall(), [=](auto const& x) { return squared(std::get<0>(qr(x))); }},
      {"qr(tall)[1] ** 2", tall(), [=](auto const& x) { return squared(std::get<1>(qr(x))); }},
      {"qr(ab)[1] ** 2", ab(), [=](auto const& x) { return squared(std::get<1>(qr(x))); }},
      {"qr(tall, mode='complete')[0] ** 2", tall(), [=](auto const& x) { return squared(std::get<0>(qr(x, "complete"))); }},
      {"qr(wide)[1] ** 2", wide(), [=](auto const& x) { return squared(std::get<1>(qr(x))); }},
      {"svd(a)[1]", a(), [](auto const& x) { return std::get<1>(svd(x)); }},
      {"svd(a, full_matrices=False)[0] ** 2", a(), [=](auto const& x) { return squared(std::get<0>(svd(x, false))); }},
      {"svd(tall, full_matrices=False)[0] ** 2", tall(), [=](auto const& x) { return squared(std::get<0>(svd(x, false))); }},
      {"svd(tall, full_matrices=False)[2] ** 2", tall(), [=](auto const& x) { return squared(std::get<2>(svd(x, false))); }},
      {"svd(wide, full_matrices=False)[0] ** 2", wide(), [=](auto const& x) { return squared(std::get<0>(svd(x, false))); }},
      {"svd(wide, full_matrices=False)[2] ** 2", wide(), [=](auto const& x) { return squared(std::get<2>(svd(x, false))); }},
      {"svd(wide)[2] ** 2", wide(), [=](auto const& x) { return squared(std::get<2>(svd(x))); }},
      {"svdvals(wide)", wide(), [](auto const& x) { return svdvals(x); }},
      {"svdvals(ab)", ab(), [](auto const& x) { return svdvals(x); }},
      {"pinv(a)", a(), [](auto const& x) { return pinv(x); }},
      {"pinv(wide)", wide(), [](auto const& x) { return pinv(x); }},
      {"pinv(tall)", tall(), [](auto const& x) { return pinv(x); }},
      {"matrix_rank(a)", a(), [=](auto const& x) { return as_float(matrix_rank(x)); }},
      {"matrix_rank(defic)", defic(), [=](auto const& x) { return as_float(matrix_rank(x)); }},
      {"matrix_rank(jnp.stack([tall, defic]))", jnp::stack({tall(), defic()}),
       [=](auto const& x) { return as_float(matrix_rank(x)); }},
      {"matrix_rank(v)", v(), [=](auto const& x) { return as_float(matrix_rank(x)); }},
      {"matrix_rank(0 * v)", Array<float>(0.0f * v()), [=](auto const& x) { return as_float(matrix_rank(x)); }},
      {"matrix_rank(a, rtol=2.0)", a(), [=](auto const& x) { return as_float(matrix_rank(x, 2.0)); }},
      {"lstsq(tall, v4)[0]", tall(), [](auto const& x) { return std::get<0>(lstsq(x, v4())); }},
      {"lstsq(tall, v4)[1]", tall(), [](auto const& x) { return std::get<1>(lstsq(x, v4())); }},
      {"lstsq(tall, b4)[0]", tall(), [](auto const& x) { return std::get<0>(lstsq(x, b4())); }},
      {"lstsq(tall, x)[0] wrt b", b4(), [](auto const& x) { return std::get<0>(lstsq(tall(), x)); }},
      {"lstsq(tall, b4)[1]", tall(), [](auto const& x) { return std::get<1>(lstsq(x, b4())); }},
      {"lstsq(tall, b4)[2]", tall(), [=](auto const& x) { return as_float(std::get<2>(lstsq(x, b4()))); }},
      {"lstsq(tall, b4)[3]", tall(), [](auto const& x) { return std::get<3>(lstsq(x, b4())); }},
      {"lstsq(tall, v4, rcond=0.5)[0]", tall(), [](auto const& x) { return std::get<0>(lstsq(x, v4(), 0.5)); }},
      {"lstsq(tall, v4, rcond=0.5)[2]", tall(),
       [=](auto const& x) { return as_float(std::get<2>(lstsq(x, v4(), 0.5))); }},
      {"lstsq(wide, v)[0]", wide(), [](auto const& x) { return std::get<0>(lstsq(x, v())); }},
      {"lstsq(wide, x)[0] wrt b", v(), [](auto const& x) { return std::get<0>(lstsq(wide(), x)); }},
      {"lstsq(wide, v)[2]", wide(), [=](auto const& x) { return as_float(std::get<2>(lstsq(x, v()))); }},
      {"lstsq(defic, v4)[0]", defic(), [](auto const& x) { return std::get<0>(lstsq(x, v4())); }},
      {"lstsq(defic, v4)[1]", defic(), [](auto const& x) { return std::get<1>(lstsq(x, v4())); }},
      {"lstsq(defic, v4)[2]", defic(), [=](auto const& x) { return as_float(std::get<2>(lstsq(x, v4()))); }},
      {"norm(a, 2)", a(), [](auto const& x) { return norm(x, 2); }},
      {"norm(a, -2)", a(), [](auto const& x) { return norm(x, -2); }},
      {"norm(wide, 'nuc')", wide(), [](auto const& x) { return norm(x, "nuc"); }},
      {"norm(ab, 2, axis=(0, 2), keepdims=True)", ab(), [](auto const& x) { return norm(x, 2, {0, 2}, true); }},
  };
}

/// "" when got matches expected within rtol of each value, plus an absolute
/// slack of rtol times the largest magnitude (float32 cancellations near 0).
std::string differences(std::vector<double> const& got, std::vector<double> const& expected, double rtol) {
  if (got.size() != expected.size()) return "size " + std::to_string(got.size()) + " vs " + std::to_string(expected.size());
  double scale = 0;
  for (auto e : expected) scale = std::max(scale, std::abs(e));
  std::ostringstream os;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - expected[i]) <= rtol * (std::abs(expected[i]) + scale)))
      os << "element " << i << ": " << got[i] << " vs " << expected[i] << "; ";
  return os.str();
}

/// sum(y * (1, 4, 9, ...)), the generator's loss.
Array<float> weighted_sum(Array<float> const& y) {
  auto const k = jnp::arange<float>(1, static_cast<float>(y.size()) + 1).reshape(y.shape());
  return jnp::sum(y * k * k);
}

Array<double> well_conditioned(Shape const& shape) {
  auto const n = shape.back();
  return Array<double>(jaxcc_test::smooth(shape) + 3.0 * jnp::eye<double>(n));
}

}  // namespace

TEST_CASE("linalg decompositions match JAX: values and gradients", "[linalg]") {
  auto const all = cases();
  REQUIRE(all.size() == golden().size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto const& [name, x, f] = all[i];
    auto const& g = golden()[i];
    INFO(name);
    REQUIRE(g.name == name);
    auto const y = f(x);
    CHECK(y.shape() == g.shape);
    CHECK(differences(jaxcc_test::as_doubles(y), g.values, 2e-5) == "");
    auto const fn = f;  // not structured bindings: clang 14 cannot capture one
    auto const input = x;
    auto const grad_of_f = [&] { return jaxcc::grad([&](Array<float> const& arg) { return weighted_sum(fn(arg)); })(input); };
    if (g.grad.empty()) {  // JAX has no derivative here, and says so
      CHECK(message_of(grad_of_f) == "Singular value decomposition JVP not implemented for full matrices");
    } else if (name == "eigh(a, symmetrize_input=False)[1] ** 2") {
      // JAX differentiates the eigenvectors of (a + aᵀ) / 2 there, not of the
      // lower triangle it decomposed; jaxcc's derivative is the latter's
      // (checked against finite differences below).
      CHECK(grad_of_f().shape() == x.shape());
    } else if (name == "lax.linalg.cholesky(spd, symmetrize_input=False)") {
      // JAX's cotangent G there spans the whole matrix, though only the lower
      // triangle is read; jaxcc's is that triangle's: G's plus the mirror of
      // G's upper part.
      auto const n = x.shape()[0];
      std::vector<double> lower(g.grad.size(), 0.0);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j <= i; ++j)
          lower[static_cast<std::size_t>(i * n + j)] =
              g.grad[static_cast<std::size_t>(i * n + j)] + (i == j ? 0.0 : g.grad[static_cast<std::size_t>(j * n + i)]);
      CHECK(differences(jaxcc_test::as_doubles(grad_of_f()), lower, 2e-5) == "");
    } else {
      CHECK(differences(jaxcc_test::as_doubles(grad_of_f()), g.grad, 2e-5) == "");
    }
  }
}

TEST_CASE("linalg factorizations rebuild their input, batched", "[linalg]") {
  auto const x = well_conditioned({2, 3, 4, 4});
  auto const s = Array<double>(jnp::matmul(x, jnp::swapaxes(x, -1, -2)));
  auto const l = jnp::linalg::cholesky(s);
  CHECK(jaxcc::testing::allclose(jnp::matmul(l, jnp::swapaxes(l, -1, -2)), s, 1e-12, 1e-12));
  CHECK(jaxcc::testing::allclose(jnp::triu(l, 1), jnp::zeros<double>({2, 3, 4, 4})));
  auto const [factors, pivots, permutation] = la::lu(x);
  CHECK(pivots.shape() == Shape{2, 3, 4});
  CHECK(permutation.shape() == Shape{2, 3, 4});
  auto const lower = Array<double>(jnp::tril(factors, -1) + jnp::eye<double>(4));
  auto const permuted = jnp::take_along_axis(x, jnp::expand_dims(permutation, -1), -2);
  CHECK(jaxcc::testing::allclose(jnp::matmul(lower, jnp::triu(factors)), permuted, 1e-12, 1e-12));
  auto const rhs = jaxcc_test::smooth({3, 4, 2}, 0.5);  // batch (3,) broadcast against (2, 3)
  auto const sol = jnp::linalg::solve(x, rhs);
  CHECK(sol.shape() == Shape{2, 3, 4, 2});
  CHECK(jaxcc::testing::allclose(jnp::matmul(x, sol), jnp::broadcast_to(rhs, {2, 3, 4, 2}), 1e-12, 1e-12));
  CHECK(jaxcc::testing::allclose(jnp::matmul(x, jnp::linalg::inv(x)), jnp::broadcast_to(jnp::eye<double>(4), x.shape()),
                                 1e-12, 1e-12));
  auto const [sign, logdet] = jnp::linalg::slogdet(x);
  CHECK(jaxcc::testing::allclose(jnp::linalg::det(x), sign * jnp::exp(logdet), 1e-12, 1e-12));
  CHECK(jaxcc::testing::allclose(jnp::linalg::matrix_power(x, -3),
                                 jnp::linalg::inv(jnp::matmul(jnp::matmul(x, x), x)), 1e-10, 1e-10));
  // By hand: det [[1, 2], [3, 4]] = -2; a singular matrix's slogdet is (0, -inf), as JAX's.
  CHECK(jnp::linalg::det(jnp::array({{1, 2}, {3, 4}})).item() == -2.0f);
  auto const [zero_sign, minus_inf] = jnp::linalg::slogdet(jnp::array({{1.0, 2.0, 3.0}, {2.0, 4.0, 6.0}, {1.0, 1.0, 1.0}}));
  CHECK(zero_sign.item() == 0.0);
  CHECK(minus_inf.item() == -std::numeric_limits<double>::infinity());
}

TEST_CASE("cholesky of a matrix that is not positive definite is NaN, as JAX's", "[linalg]") {
  auto const l = jnp::linalg::cholesky(jnp::array({{{1.0f, 2.0f}, {2.0f, 1.0f}}, {{2.0f, 0.0f}, {0.0f, 2.0f}}}));
  auto const e = l.to_vector();
  CHECK(std::isnan(e[0]));
  CHECK(e[1] == 0.0f);
  CHECK(std::isnan(e[2]));
  CHECK(std::isnan(e[3]));
  CHECK(e[4] == std::sqrt(2.0f));
  CHECK(e[7] == std::sqrt(2.0f));
}

TEST_CASE("lstsq: residuals in every case, empty inputs, transforms; matrix_rank under vmap and jit",
          "[linalg][vmap][jit][grad]") {
  using jaxcc::in_axes;
  using jaxcc::testing::check_grads, jaxcc::testing::check_jit, jaxcc::testing::check_vmap;
  // An underdetermined system is solved exactly; its residual is still
  // computed (JAX's numpy_resid=False), shape (1,) for a vector b.
  auto const [x, resid, rank, s] = jnp::linalg::lstsq(wide(), v());
  CHECK(resid.shape() == Shape{1});
  CHECK(resid.item() < 1e-8f);
  CHECK(rank.item() == 3);
  CHECK(jaxcc::testing::allclose(jnp::matmul(wide(), x), v(), 1e-5, 1e-5));
  // A negative rcond is eps.
  auto const eps = static_cast<double>(std::numeric_limits<float>::epsilon());
  CHECK(jaxcc::testing::allclose(std::get<0>(jnp::linalg::lstsq(tall(), b4(), -1.0)),
                                 std::get<0>(jnp::linalg::lstsq(tall(), b4(), eps)), 0.0, 0.0));
  // Empty inputs, as JAX's: x zeros, rank 0, no singular values, resid |b|².
  auto const [x0, resid0, rank0, s0] = jnp::linalg::lstsq(jnp::zeros<float>({0, 3}), jnp::zeros<float>({0, 2}));
  CHECK(jaxcc::testing::allclose(x0, jnp::zeros<float>({3, 2}), 0.0, 0.0));
  CHECK(jaxcc::testing::allclose(resid0, jnp::zeros<float>({2}), 0.0, 0.0));
  CHECK(rank0.item() == 0);
  CHECK(s0.shape() == Shape{0});
  auto const [x1, resid1, rank1, s1] = jnp::linalg::lstsq(jnp::zeros<float>({3, 0}), jnp::ones<float>({3}));
  CHECK(x1.shape() == Shape{0});
  CHECK(jaxcc::testing::allclose(resid1, jnp::array({3.0f}), 0.0, 0.0));
  CHECK(rank1.item() == 0);
  CHECK(s1.shape() == Shape{0});
  // Integers are solved as float32, as JAX's.
  auto const [xi, resid_i, rank_i, s_i] = jnp::linalg::lstsq(jnp::array({{1, 2}, {3, 4}}), jnp::array({5, 6}));
  CHECK(jaxcc::testing::allclose(xi, jnp::array({-4.0f, 4.5f}), 1e-5, 1e-5));
  // Derivatives of x and of the residuals with respect to a and b, to second order.
  auto const overdetermined = tall().astype<double>(), under = wide().astype<double>();
  auto const rhs = b4().astype<double>(), rhs3 = jaxcc_test::smooth({3, 2}, 0.3, 1.0);
  auto const solution = [](Array<double> const& a, Array<double> const& b) { return std::get<0>(jnp::linalg::lstsq(a, b)); };
  auto const residuals = [](Array<double> const& a, Array<double> const& b) { return std::get<1>(jnp::linalg::lstsq(a, b)); };
  REQUIRE_NOTHROW(check_grads(solution, std::tuple{overdetermined, rhs}, 2));
  REQUIRE_NOTHROW(check_grads(residuals, std::tuple{overdetermined, rhs}, 2));
  REQUIRE_NOTHROW(check_grads(solution, std::tuple{under, rhs3}, 2));
  // vmap against a loop, jit against eager, all four results.
  auto const all = [](Array<double> const& a, Array<double> const& b) { return jnp::linalg::lstsq(a, b); };
  auto const as = jnp::stack({overdetermined, Array<double>(overdetermined + 0.5 * jnp::eye<double>(4, 3))});
  REQUIRE_NOTHROW(check_vmap(all, in_axes(0, jaxcc::none), as, rhs));
  REQUIRE_NOTHROW(check_vmap(all, in_axes(jaxcc::none, 2), overdetermined, jnp::stack({rhs, Array<double>(-rhs)}, 2)));
  REQUIRE_NOTHROW(check_jit(all, overdetermined, rhs));
  auto const rank_of = [](Array<double> const& a) { return jnp::linalg::matrix_rank(a); };
  auto const ranks = jnp::stack({overdetermined, defic().astype<double>(), jnp::zeros<double>({4, 3})});
  REQUIRE_NOTHROW(check_vmap(rank_of, in_axes(0), ranks));
  REQUIRE_NOTHROW(check_jit(rank_of, ranks));
  CHECK(jaxcc::testing::allclose(rank_of(ranks), jnp::array({3, 2, 0}), 0.0, 0.0));
}

TEST_CASE("linalg under vmap, jit and second derivatives", "[linalg][vmap][jit][grad]") {
  using jaxcc::in_axes;
  using jaxcc::testing::check_grads, jaxcc::testing::check_jit, jaxcc::testing::check_vmap;
  auto const xs = well_conditioned({3, 4, 4});
  auto const rhs = jaxcc_test::smooth({3, 4, 2}, 0.3, 1.0);
  auto const x = well_conditioned({4, 4});
  auto const tri = [](Array<double> const& a, Array<double> const& b) {
    return la::triangular_solve(a, b, true, true, false, false, false);
  };
  auto const tri_right_t = [](Array<double> const& a, Array<double> const& b) {
    return la::triangular_solve(a, jnp::swapaxes(b, -1, -2), false, false, true, false, true);
  };
  auto const chol = [](Array<double> const& a) {
    return jnp::linalg::cholesky(Array<double>(jnp::matmul(a, jnp::swapaxes(a, -1, -2))));
  };
  auto const lu0 = [](Array<double> const& a) { return std::get<0>(la::lu(a)); };
  auto const solve = [](Array<double> const& a, Array<double> const& b) { return jnp::linalg::solve(a, b); };
  auto const inv = [](Array<double> const& a) { return jnp::linalg::inv(a); };
  auto const det = [](Array<double> const& a) { return jnp::linalg::det(a); };
  auto const logdet = [](Array<double> const& a) { return std::get<1>(jnp::linalg::slogdet(a)); };
  auto const power = [](Array<double> const& a) { return jnp::linalg::matrix_power(a, 5); };
  // Vectors only up to sign: their squares.
  auto const sq = [](Array<double> const& x) { return Array<double>(x * x); };
  auto const eigh_w = [](Array<double> const& a) { return std::get<0>(jnp::linalg::eigh(a)); };
  auto const eigh_v = [=](Array<double> const& a) { return sq(std::get<1>(jnp::linalg::eigh(a))); };
  auto const qr_q = [=](Array<double> const& a) { return sq(std::get<0>(jnp::linalg::qr(a))); };
  auto const qr_r = [=](Array<double> const& a) { return sq(std::get<1>(jnp::linalg::qr(a))); };
  auto const svd_u = [=](Array<double> const& a) { return sq(std::get<0>(jnp::linalg::svd(a))); };
  auto const svd_vh = [=](Array<double> const& a) { return sq(std::get<2>(jnp::linalg::svd(a, false))); };
  auto const eigh_lower = [=](Array<double> const& a) { return sq(std::get<1>(jnp::linalg::eigh(a, "L", false))); };
  auto const eigh_upper = [](Array<double> const& a) { return std::get<0>(jnp::linalg::eigh(a, "U", false)); };
  auto const chol_lower = [](Array<double> const& a) {
    return la::cholesky(Array<double>(a + 4.0 * jnp::eye<double>(4)), false);
  };
  auto const svdvals = [](Array<double> const& a) { return jnp::linalg::svdvals(a); };
  auto const pinv = [](Array<double> const& a) { return jnp::linalg::pinv(a); };
  auto const norm2 = [](Array<double> const& a) { return jnp::linalg::norm(a, 2, {-2, -1}); };
  auto const nuc = [](Array<double> const& a) { return jnp::linalg::norm(a, "nuc", {-1, -2}); };
  for (auto const& [name, f] : std::vector<std::pair<std::string, std::function<Array<double>(Array<double> const&)>>>{
           {"cholesky", chol}, {"lu", lu0}, {"inv", inv}, {"det", det}, {"slogdet", logdet}, {"matrix_power", power},
           {"eigh w", eigh_w}, {"eigh v", eigh_v}, {"eigh of the lower triangle", eigh_lower},
           {"eigh of the upper triangle", eigh_upper}, {"cholesky of the lower triangle", chol_lower}, {"qr q", qr_q}, {"qr r", qr_r}, {"svd u", svd_u}, {"svd vh", svd_vh},
           {"svdvals", svdvals}, {"pinv", pinv}, {"norm 2", norm2}, {"norm nuc", nuc}}) {
    INFO(name);
    auto const fn = f;  // not a structured binding: clang 14 cannot capture one
    REQUIRE_NOTHROW(check_vmap(fn, in_axes(0), xs));
    REQUIRE_NOTHROW(check_vmap(fn, in_axes(1), jnp::swapaxes(xs, 0, 1)));
    REQUIRE_NOTHROW(check_jit(fn, xs));
    REQUIRE_NOTHROW(check_grads(fn, std::tuple{x}, 2));
  }
  // The complete Q and R of a tall matrix (the completion's derivative,
  // arXiv:2409.13374), at the full-rank matrix of JAX's gradients above.
  auto const tall = test_linalg_decompositions::tall().astype<double>();
  for (auto const& [name, f] : std::vector<std::pair<std::string, std::function<Array<double>(Array<double> const&)>>>{
           {"qr q, complete", [=](Array<double> const& a) { return sq(std::get<0>(jnp::linalg::qr(a, "complete"))); }},
           {"qr r, complete", [=](Array<double> const& a) { return sq(std::get<1>(jnp::linalg::qr(a, "complete"))); }}}) {
    INFO(name);
    auto const fn = f;
    REQUIRE_NOTHROW(check_vmap(fn, in_axes(0), jnp::stack(std::vector<Array<double>>{tall, Array<double>(tall * 0.5 + 0.1)})));
    REQUIRE_NOTHROW(check_grads(fn, std::tuple{tall}, 2));
  }
  for (auto const& [name, f] : std::vector<std::pair<std::string, std::function<Array<double>(Array<double> const&, Array<double> const&)>>>{
           {"triangular_solve left", tri}, {"triangular_solve right transposed", tri_right_t}, {"solve", solve}}) {
    INFO(name);
    auto const fn = f;
    REQUIRE_NOTHROW(check_vmap(fn, in_axes(0, 0), xs, rhs));
    REQUIRE_NOTHROW(check_vmap(fn, in_axes(0, jaxcc::none), xs, jaxcc::lax::slice(rhs, {0, 0, 0}, {1, 4, 2}).reshape({4, 2})));
    REQUIRE_NOTHROW(check_vmap(fn, in_axes(jaxcc::none, 2), x, rhs.reshape({4, 2, 3})));
    REQUIRE_NOTHROW(check_jit(fn, xs, rhs));
    REQUIRE_NOTHROW(check_grads(fn, std::tuple{x, Array<double>(jaxcc_test::smooth({4, 2}, 0.3, 1.0))}, 2));
  }
}

TEST_CASE("linalg under sharded jit: a split batch of matrices stays split", "[linalg][partition]") {
  using jaxcc::NamedSharding;
  using jaxcc::P;
  auto const mesh = jaxcc_test::mesh_of({2}, {"x"});
  auto const x = well_conditioned({4, 3, 3});
  Array<double> const spd_batch = jnp::matmul(x, jnp::swapaxes(x, -1, -2));
  auto const split = [&](Array<double> const& a) { return jaxcc::device_put(a, NamedSharding(mesh, P("x"))); };
  auto const factor = [](Array<double> const& a) { return jnp::linalg::cholesky(a); };
  auto const l = jaxcc::jit(factor)(split(spd_batch));
  CHECK(l.sharding() == NamedSharding(mesh, P("x")));
  REQUIRE_THAT(l, jaxcc::testing::AllClose(factor(spd_batch), 1e-12, 1e-12));
  // triangular_solve with both operands' batches split alike, and solve
  // (lu, then triangular solves) on a split batch.
  auto const b = jaxcc_test::smooth({4, 3, 2});
  auto const solve_l = [](Array<double> const& a, Array<double> const& rhs) {
    return la::triangular_solve(a, rhs, true, true);
  };
  auto const y = jaxcc::jit(solve_l)(split(l), split(b));
  CHECK(y.sharding() == NamedSharding(mesh, P("x")));
  REQUIRE_THAT(y, jaxcc::testing::AllClose(solve_l(factor(spd_batch), b), 1e-12, 1e-12));
  auto const solved = jaxcc::jit([](Array<double> const& a, Array<double> const& rhs) { return jnp::linalg::solve(a, rhs); })(
      split(x), split(b));
  REQUIRE_THAT(solved, jaxcc::testing::AllClose(jnp::linalg::solve(x, b), 1e-10, 1e-12));
  // A matrix split across devices is gathered whole first.
  auto const x4 = well_conditioned({2, 4, 4});
  Array<double> const spd4 = jnp::matmul(x4, jnp::swapaxes(x4, -1, -2));
  auto const rows = jaxcc::device_put(spd4, NamedSharding(mesh, P(jaxcc::none, "x")));
  REQUIRE_THAT(jaxcc::jit(factor)(rows), jaxcc::testing::AllClose(factor(spd4), 1e-12, 1e-12));
}

TEST_CASE("linalg: errors", "[linalg][errors]") {
  auto const z = [](Shape const& s) { return jnp::zeros<float>(s); };
  CHECK(message_of([&] { la::triangular_solve(z({3}), z({3, 3}), true); }) ==
        "Input 0 to triangular_solve must have rank at least 2, but got shape=(3,)");
  CHECK(message_of([&] { la::triangular_solve(z({3, 4}), z({3, 2}), true); }) ==
        "The first input to triangular_solve must be a square matrix. Got shape (3, 4).");
  CHECK(message_of([&] { la::triangular_solve(z({3, 3}), z({4, 2}), true); }) ==
        "Incompatible shapes for arguments to triangular_solve: (3, 3) and (4, 2).");
  CHECK(message_of([&] { la::triangular_solve(z({3, 3}), z({3, 2})); }) ==
        "Incompatible shapes for arguments to triangular_solve: (3, 3) and (3, 2).");
  CHECK(message_of([&] { la::triangular_solve(z({2, 3, 3}), z({3, 3, 2, 1}), true); }) ==
        "All inputs to triangular_solve must have the same number of batch dimensions, but got [1, 2] batch "
        "dimensions for the inputs.");
  CHECK(message_of([&] { la::triangular_solve(z({2, 3, 3}), z({4, 3, 2}), true); }) ==
        "triangular_solve: the batch dimensions of the inputs must be equal, but got (2,) and (4,) (broadcast them "
        "first)");
  CHECK(message_of([&] { jnp::linalg::cholesky(z({3})); }) == "Input 0 to cholesky must have rank at least 2, but got shape=(3,)");
  CHECK(message_of([&] { jnp::linalg::cholesky(z({3, 4})); }) ==
        "The input to cholesky must be a square matrix. Got shape (3, 4).");
  CHECK(message_of([&] { la::lu(z({3})); }) == "Input 0 to lu must have rank at least 2, but got shape=(3,)");
  CHECK(message_of([&] { jnp::linalg::solve(z({3}), z({3})); }) ==
        "left hand array must be at least two dimensional; got a.shape=(3,)");
  CHECK(message_of([&] { jnp::linalg::solve(z({2, 3, 3}), z({2, 3})); }) ==
        "Invalid shapes for solve: (2, 3, 3), (2, 3). Prior to JAX v0.5.0, this would have been treated as a batched "
        "1-dimensional solve. To recover this behavior, use solve(a, b[..., None]).squeeze(-1).");
  CHECK(message_of([&] { jnp::linalg::solve(z({3, 4}), z({3})); }) ==
        "inconsistent size for core dimension 'm': 4 vs 3 on vectorized function with excluded=frozenset() and "
        "signature='(m,m),(m)->(m)'");
  CHECK(message_of([&] { jnp::linalg::solve(z({3, 3}), z({4})); }) ==
        "inconsistent size for core dimension 'm': 4 vs 3 on vectorized function with excluded=frozenset() and "
        "signature='(m,m),(m)->(m)'");
  CHECK(message_of([&] { jnp::linalg::solve(z({3, 3}), z({4, 2})); }) ==
        "inconsistent size for core dimension 'm': 4 vs 3 on vectorized function with excluded=frozenset() and "
        "signature='(m,m),(m,n)->(m,n)'");
  CHECK(message_of([&] { jnp::linalg::solve(z({3, 3}), z({})); }) ==
        "input with shape () does not have enough dimensions for all core dimensions ('m', 'n') on vectorized "
        "function with excluded=frozenset() and signature='(m,m),(m,n)->(m,n)'");
  CHECK(message_of([&] { jnp::linalg::solve(z({2, 3, 3}), z({4, 3, 2})); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2,), (4,)]");
  CHECK(message_of([&] { jnp::linalg::inv(z({3, 4})); }) == "Argument to inv must have shape [..., n, n], got (3, 4).");
  CHECK(message_of([&] { jnp::linalg::inv(z({3})); }) == "Argument to inv must have shape [..., n, n], got (3,).");
  CHECK(message_of([&] { jnp::linalg::det(z({3, 4})); }) == "Argument to _det() must have shape [..., n, n], got (3, 4)");
  CHECK(message_of([&] { jnp::linalg::slogdet(z({3, 4})); }) ==
        "Argument to slogdet() must have shape [..., n, n], got (3, 4)");
  CHECK(message_of([&] { jnp::linalg::matrix_power(z({3, 4}), 2); }) == "Last 2 dimensions of the array must be square");
  CHECK(message_of([&] { jnp::linalg::matrix_power(z({3}), 2); }) ==
        "1-dimensional array given. Array must be at least two-dimensional");
  CHECK(message_of([&] { jnp::linalg::eigh(z({3, 4})); }) ==
        "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape (3, 4)");
  CHECK(message_of([&] { jnp::linalg::eigh(z({3})); }) == "Input 0 to eigh must have rank at least 2, but got shape=(3,)");
  CHECK(message_of([&] { jnp::linalg::eigh(z({3, 3}), "X"); }) == "UPLO must be one of None, 'L', or 'U', got X");
  CHECK(message_of([&] { jnp::linalg::qr(z({3})); }) == "Input 0 to qr must have rank at least 2, but got shape=(3,)");
  CHECK(message_of([&] { jnp::linalg::qr(z({3, 3}), "raw"); }) == "Unsupported QR decomposition mode 'raw'");
  CHECK(message_of([&] { jnp::linalg::svd(z({3})); }) == "Input 0 to svd must have rank at least 2, but got shape=(3,)");
  CHECK(message_of([&] { jnp::linalg::svdvals(z({3})); }) == "Input 0 to svd must have rank at least 2, but got shape=(3,)");
  CHECK(message_of([&] { jnp::linalg::pinv(z({3})); }) ==
        "jnp.linalg.pinv: a must have at least 2 dimensions, got shape (3,)");
  CHECK(jnp::linalg::pinv(z({2, 0, 3})).shape() == Shape{2, 3, 0});  // empty, as JAX's
  {
    // An empty matrix: no singular values; full U and V are identities (JAX's svd of zeros((0, 3)) gives
    // u (0, 0), s (0,), vh eye(3)).
    auto const [u, s, vh] = jnp::linalg::svd(z({0, 3}));
    CHECK(u.shape() == Shape{0, 0});
    CHECK(s.shape() == Shape{0});
    CHECK(vh.to_vector() == jnp::eye<float>(3).to_vector());
    CHECK(jnp::linalg::svdvals(z({2, 0})).shape() == Shape{0});
  }
  CHECK(message_of([&] { jnp::linalg::lstsq(z({2, 3, 3}), z({2, 3})); }) ==
        "3-dimensional array given. Array must be two-dimensional");
  CHECK(message_of([&] { jnp::linalg::lstsq(z({3}), z({3})); }) ==
        "1-dimensional array given. Array must be two-dimensional");
  CHECK(message_of([&] { jnp::linalg::lstsq(z({3, 3}), z({3, 3, 1})); }) ==
        "3-dimensional array given. Array must be one or two-dimensional");
  CHECK(message_of([&] { jnp::linalg::lstsq(z({3, 3}), z({4})); }) == "Leading dimensions of input arrays must match");
  CHECK(message_of([&] { jnp::linalg::lstsq(z({}), z({4})); }) == "tuple index out of range");
  CHECK(message_of([&] { jnp::linalg::lstsq(z({3, 3}), z({})); }) == "tuple index out of range");
  // An empty matrix has no singular values: no default tolerance (their
  // max), as JAX's; a given one counts none.
  CHECK(message_of([&] { jnp::linalg::matrix_rank(z({0, 3})); }) ==
        "zero-size array to reduction operation max which has no identity (shape (0,), axes (0,))");
  CHECK(jnp::linalg::matrix_rank(z({2, 3, 0}), 0.1).to_vector() == std::vector<std::int32_t>{0, 0});
}

}  // namespace test_linalg_decompositions
