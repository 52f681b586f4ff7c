// The eigendecomposition of general matrices: jnp::linalg::eig and eigvals,
// lax::linalg::eig (primitives/eig.hpp). JAX's eigenvalues as sets, its
// eigenvectors up to a sign (tests/golden/eig_cases.py), residuals, the
// normalization, the eigenvalues' derivative, batching, jit and errors.
#include "catch.hpp"

#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing.hpp>

#include "support.hpp"

namespace test_eig {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using c64 = std::complex<float>;
using c128 = std::complex<double>;
using jaxcc_test::message_of;

struct EigCase {
  std::string name, dtype;
  jaxcc::Shape shape;
  std::vector<double> input, w, vr, vl, grad;
};

// JAX's answers; see tests/golden/eig_cases.py.
#include "golden/eig_cases.inc"

/// Complex numbers from re, im pairs.
std::vector<c128> pairs(std::vector<double> const& v) {
  std::vector<c128> out;
  for (std::size_t i = 0; i < v.size(); i += 2) out.emplace_back(v[i], v[i + 1]);
  return out;
}

template <class T>
std::vector<c128> values(Array<T> const& a) {
  auto const dense = jaxcc::detail::contiguous(a);
  std::vector<c128> out;
  for (std::int64_t i = 0; i < dense.size(); ++i) out.emplace_back(dense.data()[i]);
  return out;
}

/// The case's input matrix, at float32 or complex64.
jaxcc::AnyArray input_of(EigCase const& c) {
  if (c.dtype == "float32") {
    std::vector<float> v(c.input.begin(), c.input.end());
    return jaxcc::AnyArray(jnp::array<float>(v, c.shape));
  }
  std::vector<c64> v;
  for (auto const z : pairs(c.input)) v.emplace_back(z);
  return jaxcc::AnyArray(jnp::array<c64>(v, c.shape));
}

/// For each eigenvalue of `ours` (one matrix's n), the index of the nearest of JAX's.
std::vector<std::size_t> matching(std::vector<c128> const& ours, std::vector<c128> const& jax) {
  std::vector<std::size_t> out;
  for (auto const z : ours) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < jax.size(); ++j)
      if (std::abs(jax[j] - z) < std::abs(jax[best] - z)) best = j;
    out.push_back(best);
  }
  return out;
}

/// Checks eig's outputs for one golden case: eigenvalues as a set,
/// eigenvectors (columns) up to a sign, left ones too.
void check_case(EigCase const& c, std::vector<c128> const& w, std::vector<c128> const& vr, std::vector<c128> const& vl) {
  auto const n = static_cast<std::size_t>(c.shape.back());
  auto const jw = pairs(c.w), jvr = pairs(c.vr), jvl = pairs(c.vl);
  for (std::size_t b = 0; b < w.size() / n; ++b) {
    std::vector<c128> const ours(w.begin() + static_cast<std::ptrdiff_t>(b * n),
                                 w.begin() + static_cast<std::ptrdiff_t>((b + 1) * n));
    std::vector<c128> const theirs(jw.begin() + static_cast<std::ptrdiff_t>(b * n),
                                   jw.begin() + static_cast<std::ptrdiff_t>((b + 1) * n));
    auto const match = matching(ours, theirs);
    auto sorted = match;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());  // a permutation
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(std::abs(ours[i] - theirs[match[i]]) < 1e-4);
      for (auto const* pair : {&vr, &vl}) {
        auto const& mine = *pair;
        auto const& jax = pair == &vr ? jvr : jvl;
        // Column i against JAX's column match[i], up to a sign.
        auto const at = [&](std::vector<c128> const& m, std::size_t row, std::size_t col) { return m[b * n * n + row * n + col]; };
        double plus = 0, minus = 0;
        for (std::size_t r = 0; r < n; ++r) {
          plus = std::max(plus, std::abs(at(mine, r, i) - at(jax, r, match[i])));
          minus = std::max(minus, std::abs(at(mine, r, i) + at(jax, r, match[i])));
        }
        CHECK(std::min(plus, minus) < 1e-4);
      }
    }
  }
}

TEST_CASE("eig: JAX's eigenvalues and eigenvectors (up to order and sign)", "[eig]") {
  for (auto const& c : eig_cases) {
    INFO(c.name);
    auto const a = input_of(c);
    if (c.dtype == "float32") {
      auto const x = a.as<float>();
      auto const [w, v] = jnp::linalg::eig(x);
      STATIC_REQUIRE(std::same_as<decltype(w), Array<c64> const>);
      auto const left = lax::linalg::eig(x, true, false);
      REQUIRE(left.size() == 2);
      check_case(c, values(w), values(v), values(left[1]));
      check_case(c, values(jnp::linalg::eigvals(x)), values(v), values(left[1]));
    } else {
      auto const x = a.as<c64>();
      auto const [w, v] = jnp::linalg::eig(x);
      check_case(c, values(w), values(v), values(lax::linalg::eig(x, true, false)[1]));
    }
  }
}

TEST_CASE("eig: residuals, normalization and left eigenvectors", "[eig]") {
  auto const check = [](auto const& a) {
    auto const out = lax::linalg::eig(a);
    REQUIRE(out.size() == 3);
    auto const& w = out[0];
    auto const& vl = out[1];
    auto const& vr = out[2];
    using C = typename std::remove_cvref_t<decltype(w)>::value_type;
    auto const ac = a.template astype<C>();
    // a vr = vr diag(w), vlᴴ a = diag(w) vlᴴ.
    auto const right = jnp::max(jnp::abs(Array<C>(jnp::matmul(ac, vr) - vr * jnp::expand_dims(w, -2))));
    auto const vlh = jnp::conj(jnp::matrix_transpose(vl));
    auto const left = jnp::max(jnp::abs(Array<C>(jnp::matmul(vlh, ac) - jnp::expand_dims(w, -1) * vlh)));
    CHECK(right.item() < 1e-9);
    CHECK(left.item() < 1e-9);
    // Unit columns, the component of largest modulus real and positive.
    for (auto const& v : {vl, vr}) {
      auto const norms = jnp::sqrt(jnp::sum(Array<double>(jnp::square(jnp::abs(v))), -2));
      CHECK(jnp::max(jnp::abs(Array<double>(norms - 1.0))).item() < 1e-12);
      auto const big = jnp::take_along_axis(v, jnp::expand_dims(jnp::argmax(jnp::abs(v), -2), -2), -2);
      CHECK(jnp::max(jnp::abs(jnp::imag(big))).item() == 0.0);
      CHECK(jnp::min(jnp::real(big)).item() > 0.0);
    }
  };
  check(jnp::array<double>({4., 1., -2., 0.5, 3., 1., 0., -1., 2., 1.5, 1., 0., -3., 2., 0.5, 1.}, {4, 4}));
  check(jnp::array<double>({0., -1., 1., 0.}, {2, 2}));  // eigenvalues ±i
  check(Array<c128>(jnp::array<double>({1., 2., 0., -1., 3., 1., 2., 0., 1.5}, {3, 3}).astype<c128>() *
                        c128(0.5, -1.0) +
                    c128(0.0, 1.0) * jnp::eye<double>(3).astype<c128>()));
}

TEST_CASE("eig: shapes, dtypes, batches and empty matrices", "[eig]") {
  auto const a = jnp::arange<float>(12).reshape({3, 2, 2});
  auto const out = lax::linalg::eig(a, false, false);
  REQUIRE(out.size() == 1);
  CHECK(out[0].shape() == jaxcc::Shape{3, 2});
  auto const [w, v] = jnp::linalg::eig(jnp::array<std::int32_t>({2, 0, 0, 3}, {2, 2}));
  STATIC_REQUIRE(std::same_as<decltype(v), Array<c64> const>);
  CHECK(jnp::sort_complex(w).to_vector() == std::vector<c64>{c64(2), c64(3)});
  auto const [w0, v0] = jnp::linalg::eig(jnp::zeros<double>({2, 0, 0}));
  STATIC_REQUIRE(std::same_as<decltype(w0), Array<c128> const>);
  CHECK(w0.shape() == jaxcc::Shape{2, 0});
  CHECK(v0.shape() == jaxcc::Shape{2, 0, 0});
  // Batched as a vmap: each matrix's own decomposition.
  auto const batched = jaxcc::vmap([](Array<float> const& m) { return jnp::linalg::eigvals(m); })(a);
  CHECK(jaxcc::testing::allclose(batched, out[0]));
}

TEST_CASE("eig: errors", "[eig]") {
  auto const rect = jnp::zeros<float>({2, 3});
  CHECK(message_of([&] { jnp::linalg::eig(rect); }) == "The input to eig must be a square matrix. Got shape (2, 3).");
  CHECK(message_of([&] { jnp::linalg::eigvals(jnp::zeros<float>({3})); }).find("must have rank at least 2") !=
        std::string::npos);
  auto const sq = jnp::array<double>({1., 2., 3., 5.}, {2, 2});
  auto const loss = [](Array<double> const& m) {
    return jnp::sum(jnp::abs(std::get<0>(jnp::linalg::eig(m))));
  };
  CHECK(message_of([&] { jaxcc::grad(loss)(sq); }).find("Derivatives of non-symmetric eigenvectors") !=
        std::string::npos);
}

TEST_CASE("eigvals: JAX's gradient, check_grads, batching and jit", "[eig]") {
  auto const loss = [](auto const& m) { return jnp::sum(jnp::abs(jnp::linalg::eigvals(m))); };
  for (auto const& c : eig_cases) {
    INFO(c.name);
    auto const a = input_of(c);
    std::vector<double> got;
    if (c.dtype == "float32") {
      for (auto const z : values(jaxcc::grad(loss)(a.as<float>()))) got.push_back(z.real());
    } else {
      for (auto const z : values(jaxcc::grad(loss)(a.as<c64>()))) got.push_back(z.real()), got.push_back(z.imag());
    }
    REQUIRE(got.size() == c.grad.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(c.grad[i]).margin(2e-4).epsilon(1e-3));
  }
  // Order 1, as JAX's eigenvalue derivative (its second order needs the eigenvectors').
  auto const real = jnp::array<double>({1., 2., 0., 0.5, 3., 1., 0.2, -1., 2.}, {3, 3});
  auto const real_loss = [](Array<double> const& m) {
    auto const w = jnp::linalg::eigvals(m);
    return jnp::sum(Array<double>(jnp::abs(w) + 0.3 * jnp::real(w)));
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(real_loss, std::tuple{real}, 1));
  auto const cplx = Array<c128>(real.astype<c128>() + c128(0, 0.5) * jnp::eye<double>(3).astype<c128>());
  auto const cplx_loss = [](Array<c128> const& m) {
    auto const w = jnp::linalg::eigvals(m);
    return jnp::sum(Array<double>(jnp::abs(w) + 0.3 * jnp::imag(w)));
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(cplx_loss, std::tuple{cplx}, 1));
  auto const stack = jnp::stack({real, Array<double>(real * 2.0 + 1.0)});
  // (check_vmap: check_batching_rule also differentiates, and the second derivative raises, as in JAX.)
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(jaxcc::grad(real_loss), jaxcc::in_axes(0), stack));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(real_loss, real));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit([](Array<double> const& m) { return std::get<1>(jnp::linalg::eig(m)); }, real));
}

}  // namespace test_eig
