// jnp.linalg's decompositions on complex matrices (cholesky, eigh,
// eigvalsh, qr, svd, svdvals) and what builds on them (pinv, lstsq,
// matrix_rank, norm, cond): JAX's values and gradients
// (tests/golden/linalg_complex2_cases.py), phase-invariant checks of the
// eigenvectors and singular vectors, check_grads, batching and jit.
#include "catch.hpp"

#include <complex>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing.hpp>

#include "support.hpp"

namespace test_linalg_complex2 {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc_test::as_doubles;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

struct LinalgCase2 {
  std::string spelling, input;
  jaxcc::Shape shape;
  std::vector<double> values, grad;
};

// JAX's answers; see tests/golden/linalg_complex2_cases.py.
#include "golden/linalg_complex2_cases.inc"

Array<c64> complex_array(std::vector<double> const& pairs, jaxcc::Shape const& shape) {
  std::vector<c64> v;
  for (std::size_t i = 0; i < pairs.size(); i += 2)
    v.emplace_back(static_cast<float>(pairs[i]), static_cast<float>(pairs[i + 1]));
  return jnp::array<c64>(v, shape);
}

// (Functions: the golden vectors are inline variables, initialized in no fixed order before these.)
Array<c64> input(std::string const& name) {
  if (name == "h") return complex_array(input_h, {3, 3});
  if (name == "a") return complex_array(input_a, {3, 3});
  if (name == "g") return complex_array(input_g, {4, 3});
  return complex_array(input_w, {3, 4});
}
Array<c64> b_vector() { return complex_array(input_b, {4}); }

/// A real result as complex (zero imaginary parts), so that every case has one type.
template <class T>
Array<c64> as_c64(Array<T> const& x) {
  if constexpr (jaxcc::ComplexElement<T>) return x;
  else return x.template astype<float>().template astype<c64>();
}

/// v[:, j] v[:, j]^H, and u[:, j] vh[j, :]: invariant under each vector's phase.
Array<c64> projector(Array<c64> const& v, std::int64_t j) {
  auto const column = lax::slice_in_dim(v, j, j + 1, 1, 1);
  return Array<c64>(column * jnp::conj(jnp::transpose(column)));
}
Array<c64> pair(std::tuple<Array<c64>, Array<float>, Array<c64>> const& usv, std::int64_t j) {
  return Array<c64>(lax::slice_in_dim(std::get<0>(usv), j, j + 1, 1, 1) * lax::slice_in_dim(std::get<2>(usv), j, j + 1, 1, 0));
}

using Fn = std::function<Array<c64>(Array<c64> const&)>;
constexpr double inf = std::numeric_limits<double>::infinity();
/// Each golden case's C++ form, by its Python spelling.
std::vector<std::pair<std::string, Fn>> const functions = {
    {"cholesky(h)", [](Array<c64> const& m) { return jnp::linalg::cholesky(m); }},
    {"cholesky(h, upper=True)", [](Array<c64> const& m) { return jnp::linalg::cholesky(m, true); }},
    {"cholesky(a @ a^H)",
     [](Array<c64> const& m) { return jnp::linalg::cholesky(jnp::matmul(m, jnp::conj(jnp::transpose(m)))); }},
    {"eigvalsh(h)", [](Array<c64> const& m) { return as_c64(jnp::linalg::eigvalsh(m)); }},
    {"eigh(h, UPLO='U', symmetrize_input=False)[0]",
     [](Array<c64> const& m) { return as_c64(std::get<0>(jnp::linalg::eigh(m, "U", false))); }},
    {"abs(eigh(h)[1])", [](Array<c64> const& m) { return as_c64(jnp::abs(std::get<1>(jnp::linalg::eigh(m)))); }},
    {"projector(eigh(h)[1], 0)", [](Array<c64> const& m) { return projector(std::get<1>(jnp::linalg::eigh(m)), 0); }},
    {"projector(eigh(h)[1], 2)", [](Array<c64> const& m) { return projector(std::get<1>(jnp::linalg::eigh(m)), 2); }},
    {"qr(g)[0]", [](Array<c64> const& m) { return std::get<0>(jnp::linalg::qr(m)); }},
    {"qr(g)[1]", [](Array<c64> const& m) { return std::get<1>(jnp::linalg::qr(m)); }},
    {"qr(g, 'complete')[0]", [](Array<c64> const& m) { return std::get<0>(jnp::linalg::qr(m, "complete")); }},
    {"qr(w)[0]", [](Array<c64> const& m) { return std::get<0>(jnp::linalg::qr(m)); }},
    {"qr(w)[1]", [](Array<c64> const& m) { return std::get<1>(jnp::linalg::qr(m)); }},
    {"svdvals(g)", [](Array<c64> const& m) { return as_c64(jnp::linalg::svdvals(m)); }},
    {"svdvals(w)", [](Array<c64> const& m) { return as_c64(jnp::linalg::svdvals(m)); }},
    {"svd(a)[1]", [](Array<c64> const& m) { return as_c64(std::get<1>(jnp::linalg::svd(m))); }},
    {"abs(svd(a)[0])", [](Array<c64> const& m) { return as_c64(jnp::abs(std::get<0>(jnp::linalg::svd(m)))); }},
    {"pair(svd(a), 0)", [](Array<c64> const& m) { return pair(jnp::linalg::svd(m), 0); }},
    {"pair(svd(g, full_matrices=False), 1)", [](Array<c64> const& m) { return pair(jnp::linalg::svd(m, false), 1); }},
    {"pair(svd(w, full_matrices=False), 2)", [](Array<c64> const& m) { return pair(jnp::linalg::svd(m, false), 2); }},
    {"pinv(a)", [](Array<c64> const& m) { return jnp::linalg::pinv(m); }},
    {"pinv(g)", [](Array<c64> const& m) { return jnp::linalg::pinv(m); }},
    {"pinv(w)", [](Array<c64> const& m) { return jnp::linalg::pinv(m); }},
    {"lstsq(g, b)[0]", [](Array<c64> const& m) { return std::get<0>(jnp::linalg::lstsq(m, b_vector())); }},
    {"lstsq(g, b)[1]", [](Array<c64> const& m) { return as_c64(std::get<1>(jnp::linalg::lstsq(m, b_vector()))); }},
    {"lstsq(g, b)[3]", [](Array<c64> const& m) { return as_c64(std::get<3>(jnp::linalg::lstsq(m, b_vector()))); }},
    {"matrix_rank(g)", [](Array<c64> const& m) { return as_c64(jnp::linalg::matrix_rank(m)); }},
    {"norm(a)", [](Array<c64> const& m) { return as_c64(jnp::linalg::norm(m)); }},
    {"norm(a, 2)", [](Array<c64> const& m) { return as_c64(jnp::linalg::norm(m, 2)); }},
    {"norm(a, -2)", [](Array<c64> const& m) { return as_c64(jnp::linalg::norm(m, -2)); }},
    {"norm(a, 'nuc')", [](Array<c64> const& m) { return as_c64(jnp::linalg::norm(m, "nuc")); }},
    {"norm(a, 1)", [](Array<c64> const& m) { return as_c64(jnp::linalg::norm(m, 1)); }},
    {"norm(a, inf)", [](Array<c64> const& m) { return as_c64(jnp::linalg::norm(m, inf)); }},
    {"norm(g, axis=0)", [](Array<c64> const& m) { return as_c64(jnp::linalg::norm(m, jaxcc::none, 0)); }},
    {"norm(g, 3, axis=1)", [](Array<c64> const& m) { return as_c64(jnp::linalg::norm(m, 3, 1)); }},
    {"norm(g, -inf, axis=1)", [](Array<c64> const& m) { return as_c64(jnp::linalg::norm(m, -inf, 1)); }},
    {"norm(g, 0, axis=1)", [](Array<c64> const& m) { return as_c64(jnp::linalg::norm(m, 0, 1)); }},
    {"vector_norm(g)", [](Array<c64> const& m) { return as_c64(jnp::linalg::vector_norm(m)); }},
    {"cond(a)", [](Array<c64> const& m) { return as_c64(jnp::linalg::cond(m)); }},
    {"cond(a, 1)", [](Array<c64> const& m) { return as_c64(jnp::linalg::cond(m, 1)); }},
    {"cond(a, 'fro')", [](Array<c64> const& m) { return as_c64(jnp::linalg::cond(m, "fro")); }},
};

TEST_CASE("complex decompositions: JAX's values and gradients", "[linalg_complex2]") {
  REQUIRE(functions.size() == linalg_complex2_cases.size());
  for (std::size_t k = 0; k < functions.size(); ++k) {
    auto const& spelling = functions[k].first;
    auto const& f = functions[k].second;
    auto const& c = linalg_complex2_cases[k];
    INFO(spelling);
    REQUIRE(spelling == c.spelling);
    auto const x = input(c.input);
    auto const out = f(x);
    CHECK(out.shape() == c.shape);
    auto got = as_doubles(out);
    if (c.values.size() == static_cast<std::size_t>(out.size())) {  // a real result: its real parts
      std::vector<double> re;
      for (std::size_t i = 0; i < got.size(); i += 2) re.push_back(got[i]);
      got = re;
    }
    REQUIRE(got.size() == c.values.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(c.values[i]).margin(1e-4).epsilon(1e-4));
    if (c.grad.empty()) continue;
    auto const loss = [&](Array<c64> const& m) {
      auto const y = f(m);
      return jnp::sum(Array<float>(0.7f * jnp::real(y) + 0.3f * jnp::imag(y)));
    };
    auto const grad = as_doubles(jaxcc::grad(loss)(x));
    REQUIRE(grad.size() == c.grad.size());
    for (std::size_t i = 0; i < grad.size(); ++i) CHECK(grad[i] == Approx(c.grad[i]).margin(5e-4).epsilon(2e-3));
  }
}

/// max |x - y| over two complex arrays.
double distance(Array<c128> const& x, Array<c128> const& y) {
  return jnp::max(jnp::abs(Array<c128>(x - y))).item();
}
Array<c128> eye(std::int64_t n) { return jnp::eye<c128>(n); }

TEST_CASE("complex decompositions: their defining identities, and JAX's dtypes", "[linalg_complex2]") {
  auto const h32 = input("h").astype<c128>();
  auto const h = Array<c128>((h32 + jnp::conj(jnp::transpose(h32))) * 0.5);  // Hermitian in double precision
  auto const g = input("g").astype<c128>();
  auto const [w, v] = jnp::linalg::eigh(h);
  STATIC_REQUIRE(std::same_as<decltype(w), Array<double> const>);
  CHECK(distance(jnp::matmul(h, v), Array<c128>(v * w.astype<c128>())) < 1e-12);
  CHECK(distance(jnp::matmul(jnp::conj(jnp::transpose(v)), v), eye(3)) < 1e-12);
  auto const [u, s, vh] = jnp::linalg::svd(g);
  STATIC_REQUIRE(std::same_as<decltype(s), Array<double> const>);
  CHECK(u.shape() == jaxcc::Shape{4, 4});
  CHECK(distance(jnp::matmul(jnp::conj(jnp::transpose(u)), u), eye(4)) < 1e-12);
  CHECK(distance(jnp::matmul(vh, jnp::conj(jnp::transpose(vh))), eye(3)) < 1e-12);
  auto const thin_u = lax::slice_in_dim(u, 0, 3, 1, 1);
  CHECK(distance(jnp::matmul(Array<c128>(thin_u * s.astype<c128>()), vh), g) < 1e-12);
  auto const [q, r] = jnp::linalg::qr(g, "complete");
  CHECK(distance(jnp::matmul(q, r), g) < 1e-12);
  CHECK(distance(jnp::matmul(jnp::conj(jnp::transpose(q)), q), eye(4)) < 1e-12);
  auto const l = jnp::linalg::cholesky(h);
  CHECK(distance(jnp::matmul(l, jnp::conj(jnp::transpose(l))), h) < 1e-12);
  STATIC_REQUIRE(std::same_as<decltype(jnp::linalg::norm(g)), Array<double>>);
  STATIC_REQUIRE(std::same_as<decltype(jnp::linalg::cond(input("a"))), Array<float>>);
  STATIC_REQUIRE(std::same_as<decltype(lax::linalg::singular_values(g)), Array<double>>);
  // Not positive definite: NaN + NaN i in the factor's lower triangle, as JAX's.
  auto const bad = jnp::linalg::cholesky(jnp::array<c64>(std::vector<c64>{c64(1), c64(2), c64(2), c64(1)}, {2, 2}));
  auto const values = bad.to_vector();
  CHECK(std::isnan(values[2].real()));
  CHECK(std::isnan(values[2].imag()));
  CHECK(values[1] == c64(0));
}

TEST_CASE("complex decompositions: check_grads, batching and jit", "[linalg_complex2]") {
  using jaxcc::testing::check_grads;
  auto const h = input("h").astype<c128>();
  auto const a = input("a").astype<c128>();
  auto const g = input("g").astype<c128>();
  auto const w = input("w").astype<c128>();
  auto const chol = [](Array<c128> const& x) {
    auto const l = jnp::linalg::cholesky(x);
    return jnp::sum(Array<double>(jnp::real(jnp::trace(l)) + 0.5 * jnp::imag(l)));
  };
  REQUIRE_NOTHROW(check_grads(chol, std::tuple{h}, 2));
  auto const eigvals = [](Array<c128> const& x) {
    auto const e = jnp::linalg::eigvalsh(x);
    return jnp::sum(Array<double>(e * e));
  };
  REQUIRE_NOTHROW(check_grads(eigvals, std::tuple{h}, 2));
  auto const eig_projector = [](Array<c128> const& x) {
    auto const v = std::get<1>(jnp::linalg::eigh(x));
    auto const column = lax::slice_in_dim(v, 1, 2, 1, 1);
    auto const p = Array<c128>(column * jnp::conj(jnp::transpose(column)));
    return jnp::sum(Array<double>(jnp::real(p) + 0.5 * jnp::imag(p)));
  };
  REQUIRE_NOTHROW(check_grads(eig_projector, std::tuple{h}, 2));
  auto const qr_loss = [](Array<c128> const& x) {
    auto const [q, r] = jnp::linalg::qr(x);
    return Array<double>(jnp::sum(jnp::real(r)) + 0.3 * jnp::sum(jnp::imag(q)));
  };
  REQUIRE_NOTHROW(check_grads(qr_loss, std::tuple{g}, 2));
  REQUIRE_NOTHROW(check_grads(qr_loss, std::tuple{w}, 2));
  auto const complete = [](Array<c128> const& x) {
    return jnp::sum(Array<double>(jnp::imag(std::get<0>(jnp::linalg::qr(x, "complete")))));
  };
  REQUIRE_NOTHROW(check_grads(complete, std::tuple{g}, 2));
  auto const singular = [](Array<c128> const& x) { return jnp::sum(jnp::linalg::svdvals(x)); };
  REQUIRE_NOTHROW(check_grads(singular, std::tuple{g}, 2));
  auto const pairs = [](Array<c128> const& x) {
    auto const [u, s, vh] = jnp::linalg::svd(x, false);
    auto const p = Array<c128>(lax::slice_in_dim(u, 0, 1, 1, 1) * lax::slice_in_dim(vh, 0, 1, 1, 0));
    return jnp::sum(Array<double>(jnp::real(p) - 0.4 * jnp::imag(p)));
  };
  REQUIRE_NOTHROW(check_grads(pairs, std::tuple{a}, 2));
  REQUIRE_NOTHROW(check_grads(pairs, std::tuple{g}, 2));
  REQUIRE_NOTHROW(check_grads(pairs, std::tuple{w}, 2));
  auto const pseudo = [](Array<c128> const& x) { return jnp::sum(Array<double>(jnp::imag(jnp::linalg::pinv(x)))); };
  REQUIRE_NOTHROW(check_grads(pseudo, std::tuple{w}, 2));
  auto const fro = [](Array<c128> const& x) { return jnp::linalg::norm(x, "fro"); };
  REQUIRE_NOTHROW(check_grads(fro, std::tuple{a}, 2));

  auto const stack = jnp::stack({h, Array<c128>(h * 0.5 + eye(3))});
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule([](Array<c128> const& x) { return jnp::linalg::cholesky(x); },
                                                       jaxcc::in_axes(0), stack));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule([](Array<c128> const& x) { return jnp::linalg::eigvalsh(x); },
                                                       jaxcc::in_axes(0), stack));
  auto const tall = jnp::stack({g, Array<c128>(g * c128(0.5, 1.0))});
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule([](Array<c128> const& x) { return jnp::linalg::svdvals(x); },
                                                       jaxcc::in_axes(0), tall));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule([](Array<c128> const& x) { return jnp::linalg::pinv(x); },
                                                       jaxcc::in_axes(0), tall));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(jaxcc::grad(qr_loss), jaxcc::in_axes(0), tall));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(jaxcc::grad(eigvals), jaxcc::in_axes(0), stack));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(jaxcc::grad(singular), g));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(jaxcc::grad(chol), h));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit([](Array<c128> const& x) { return jnp::linalg::norm(x, 2); }, a));
}

TEST_CASE("complex decompositions: 0-d and empty inputs, eager and under jit", "[linalg_complex2]") {
  using jaxcc::testing::check_edges;
  auto const g = input("g");
  auto const h = input("h");
  REQUIRE_NOTHROW(check_edges([](Array<c64> const& x) { return jnp::linalg::cholesky(x); }, h));
  REQUIRE_NOTHROW(check_edges([](Array<c64> const& x) { return jnp::linalg::eigh(x); }, h));
  REQUIRE_NOTHROW(check_edges([](Array<c64> const& x) { return jnp::linalg::qr(x, "complete"); }, g));
  REQUIRE_NOTHROW(check_edges([](Array<c64> const& x) { return jnp::linalg::svd(x); }, g));
  REQUIRE_NOTHROW(check_edges([](Array<c64> const& x) { return jnp::linalg::svdvals(x); }, g));
  REQUIRE_NOTHROW(check_edges([](Array<c64> const& x) { return jnp::linalg::pinv(x); }, g));
  REQUIRE_NOTHROW(check_edges([](Array<c64> const& x) { return jnp::linalg::matrix_rank(x); }, g));
  REQUIRE_NOTHROW(check_edges([](Array<c64> const& x) { return jnp::linalg::norm(x, "nuc"); }, g));
  REQUIRE_NOTHROW(check_edges([](Array<c64> const& x) { return jnp::linalg::norm(x); }, g));
}

}  // namespace test_linalg_complex2
