// jnp.linalg's solvers and determinants, lax.linalg's lu and
// triangular_solve on complex matrices, vdot's conjugation, sort_complex and
// random::normal at complex64: JAX's values and gradients
// (tests/golden/linalg_complex_cases.py), check_grads, batching and jit.
#include "catch.hpp"

#include <complex>
#include <functional>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>
#include <jaxcc/testing.hpp>

#include "support.hpp"

namespace test_linalg_complex {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using c64 = std::complex<float>;
using c128 = std::complex<double>;
using jaxcc_test::as_doubles;
using jaxcc_test::message_of;

struct LinalgCase {
  std::string spelling;
  jaxcc::Shape shape;
  std::vector<double> values, grad;
};

// JAX's answers; see tests/golden/linalg_complex_cases.py.
#include "golden/linalg_complex_cases.inc"

Array<c64> complex_array(std::vector<double> const& pairs, jaxcc::Shape const& shape) {
  std::vector<c64> v;
  for (std::size_t i = 0; i < pairs.size(); i += 2)
    v.emplace_back(static_cast<float>(pairs[i]), static_cast<float>(pairs[i + 1]));
  return jnp::array<c64>(v, shape);
}

// (Functions: the golden vectors are inline variables, initialized in no fixed order before these.)
Array<c64> a_matrix() { return complex_array(input_a, {4, 4}); }
Array<c64> b_matrix() { return complex_array(input_b, {4, 2}); }

using Fn = std::function<Array<c64>(Array<c64> const&)>;
/// Each golden case's C++ form, by its Python spelling.
std::vector<std::pair<std::string, Fn>> const functions = {
    {"solve(a, b)", [](Array<c64> const& m) { return jnp::linalg::solve(m, b_matrix()); }},
    {"solve(a, b[:, 0])", [](Array<c64> const& m) { return jnp::linalg::solve(m, lax::index_in_dim(b_matrix(), 0, 1, false)); }},
    {"inv(a)", [](Array<c64> const& m) { return jnp::linalg::inv(m); }},
    {"det(a)", [](Array<c64> const& m) { return jnp::linalg::det(m); }},
    {"det(a[:3, :3])", [](Array<c64> const& m) { return jnp::linalg::det(lax::slice(m, {0, 0}, {3, 3})); }},
    {"det(a[:2, :2])", [](Array<c64> const& m) { return jnp::linalg::det(lax::slice(m, {0, 0}, {2, 2})); }},
    {"slogdet(a)[0]", [](Array<c64> const& m) { return std::get<0>(jnp::linalg::slogdet(m)); }},
    {"slogdet(a)[1]", [](Array<c64> const& m) { auto const l = std::get<1>(jnp::linalg::slogdet(m));
       return lax::complex(l, Array<float>(l * 0.f)); }},
    {"slogdet(a[:2, :2])[0]",
     [](Array<c64> const& m) { return std::get<0>(jnp::linalg::slogdet(lax::slice(m, {0, 0}, {2, 2}))); }},
    {"matrix_power(a, -2)", [](Array<c64> const& m) { return jnp::linalg::matrix_power(m, -2); }},
    {"matrix_power(a, 5)", [](Array<c64> const& m) { return jnp::linalg::matrix_power(m, 5); }},
    {"triangular_solve(a, b, left_side, lower, transpose_a, conjugate_a)",
     [](Array<c64> const& m) { return lax::linalg::triangular_solve(m, b_matrix(), true, true, true, true); }},
    {"triangular_solve(a, b.T, conjugate_a)",
     [](Array<c64> const& m) { return lax::linalg::triangular_solve(m, jnp::transpose(b_matrix()), false, false, false, true); }},
    {"vdot(a, a.T)", [](Array<c64> const& m) { return jnp::vdot(m, jnp::transpose(a_matrix())); }},
    {"sort_complex(a)", [](Array<c64> const& m) { return jnp::sort_complex(m); }},
};

TEST_CASE("linalg on complex matrices: JAX's values and gradients", "[linalg_complex]") {
  REQUIRE(functions.size() == linalg_complex_cases.size());
  for (std::size_t k = 0; k < functions.size(); ++k) {
    auto const& spelling = functions[k].first;
    auto const& f = functions[k].second;
    auto const& c = linalg_complex_cases[k];
    INFO(spelling);
    REQUIRE(spelling == c.spelling);
    auto const a = a_matrix();
    auto const out = f(a);
    CHECK(out.shape() == c.shape);
    auto const got = as_doubles(out);
    REQUIRE(got.size() == c.values.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(c.values[i]).margin(1e-4).epsilon(1e-4));
    auto const loss = [&](Array<c64> const& m) {
      auto const y = f(m);
      return jnp::sum(Array<float>(0.7f * jnp::real(y) + 0.3f * jnp::imag(y)));
    };
    if (spelling == "sort_complex(a)") continue;  // JAX's gradient through sort: checked below
    auto const grad = as_doubles(jaxcc::grad(loss)(a));
    REQUIRE(grad.size() == c.grad.size());
    for (std::size_t i = 0; i < grad.size(); ++i) CHECK(grad[i] == Approx(c.grad[i]).margin(2e-4).epsilon(1e-3));
  }
}

TEST_CASE("linalg on complex matrices: check_grads, batching and jit", "[linalg_complex]") {
  auto const m = Array<c128>(a_matrix().astype<c128>());
  auto const rhs = Array<c128>(b_matrix().astype<c128>());
  auto const loss = [&](Array<c128> const& x) {
    auto const y = jnp::linalg::solve(x, rhs);
    return jnp::sum(Array<double>(jnp::abs(y) + 0.5 * jnp::real(jnp::linalg::det(x))));
  };
  // Order 1: the second derivative of abs of a complex number (complex_abs_p) casts a real array to complex,
  // whose transpose (complex to real) float_convert does not have yet.
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(loss, std::tuple{m}, 1));
  auto const logdet = [](Array<c128> const& x) { return std::get<1>(jnp::linalg::slogdet(x)); };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(logdet, std::tuple{m}, 1));
  auto const inverse = [](Array<c128> const& x) { return jnp::sum(Array<double>(jnp::imag(jnp::linalg::inv(x)))); };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(inverse, std::tuple{m}, 1));
  auto const stack = jnp::stack({m, Array<c128>(m * c128(0.5, 1.0) + c128(1.0, 0.0))});
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(
      [](Array<c128> const& x) { return jnp::linalg::inv(x); }, jaxcc::in_axes(0), stack));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(jaxcc::grad(loss), jaxcc::in_axes(0), stack));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit([](Array<c128> const& x) { return jnp::linalg::det(x); }, m));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(jaxcc::grad(logdet), m));
}

TEST_CASE("lu on complex matrices: LAPACK's pivots (|re| + |im|)", "[linalg_complex]") {
  auto const [lu, pivots, permutation] = lax::linalg::lu(a_matrix());
  CHECK(pivots.to_vector() == std::vector<std::int32_t>(lu_pivots.begin(), lu_pivots.end()));
  // |re| + |im| picks 3 + 3i (6) over 4.5 (modulus 4.5 > 4.24).
  auto const m = jnp::array<c64>(std::vector<c64>{c64(4.5f, 0), c64(1, 0), c64(3, 3), c64(2, 0)}, {2, 2});
  CHECK(std::get<1>(lax::linalg::lu(m)).to_vector() == std::vector<std::int32_t>{1, 1});
}

TEST_CASE("vdot conjugates its first operand", "[linalg_complex]") {
  auto const z = jnp::array<c64>(std::vector<c64>{c64(1, 1), c64(0, 2)}, {2});
  CHECK(jnp::vdot(z, z).item() == c64(6, 0));
  CHECK(jnp::vdot(jnp::array<float>({1.f, 2.f}, {2}), z).item() == c64(1, 5));
}

TEST_CASE("sort_complex: by real part, then imaginary part; complex results", "[linalg_complex]") {
  auto const z = jnp::array<c64>(std::vector<c64>{c64(1, 2), c64(1, -1), c64(0, 5), c64(-1, 0)}, {2, 2});
  CHECK(jnp::sort_complex(z).to_vector() == std::vector<c64>{c64(1, -1), c64(1, 2), c64(-1, 0), c64(0, 5)});
  auto const ints = jnp::sort_complex(jnp::array<std::int32_t>({3, 1, 2}, {3}));
  STATIC_REQUIRE(std::same_as<decltype(ints), Array<c64> const>);
  CHECK(ints.to_vector() == std::vector<c64>{c64(1), c64(2), c64(3)});
  STATIC_REQUIRE(std::same_as<decltype(jnp::sort_complex(jnp::zeros<double>({2}))), Array<c128>>);
  CHECK(message_of([] { jnp::sort_complex(jnp::array<float>(1.f)); }) ==
        "sort_complex: axis -1 is out of bounds for array of dimension 0");
  // Its derivative is the sort's permutation (the tangents of the sorted elements).
  auto const loss = [](Array<c128> const& x) {
    return jnp::sum(Array<double>(jnp::real(jnp::sort_complex(x)) * jnp::arange<double>(4.0)));
  };
  auto const g = jaxcc::grad(loss)(z.astype<c128>().reshape({4}));
  CHECK(g.to_vector() == std::vector<c128>{c128(3), c128(2), c128(1), c128(0)});
}

TEST_CASE("random::normal at complex64: JAX's numbers", "[linalg_complex]") {
  auto const z = jaxcc::random::normal<c64>(jaxcc::random::PRNGKey(7), {2, 3});
  auto const got = as_doubles(z);
  REQUIRE(got.size() == normal_c64.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(normal_c64[i]).margin(1e-6).epsilon(1e-5));
  STATIC_REQUIRE(std::same_as<decltype(jaxcc::random::normal<c128>(jaxcc::random::PRNGKey(7))), Array<c128>>);
}

}  // namespace test_linalg_complex
