// jacrev, jacfwd and hessian against derivatives worked out by hand.
#include "catch.hpp"

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

namespace test_jacobian {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc::testing::AllClose;

TEST_CASE("jacobian of an elementwise map is diagonal", "[jacobian]") {
  // f(v) = sin(v) * v: J = diag(cos(v) v + sin(v))
  auto f = [](Array<double> v) { return Array<double>(jnp::sin(v) * v); };
  auto x = jnp::array({0.5, 1.0, 2.0});
  std::vector<double> j(9, 0.0);
  for (int i = 0; i < 3; ++i) {
    double v = x.to_vector()[static_cast<std::size_t>(i)];
    j[static_cast<std::size_t>(i * 4)] = std::cos(v) * v + std::sin(v);
  }
  auto expected = jnp::array(j, Shape{3, 3});
  REQUIRE_THAT(jaxcc::jacrev(f)(x), AllClose(expected, 1e-12));
  REQUIRE_THAT(jaxcc::jacfwd(f)(x), AllClose(expected, 1e-12));
}

TEST_CASE("jacobian shapes are output shape ++ input shape", "[jacobian]") {
  // f(a, b) = a * b with a (2,) and b (2,): d/da = diag(b), d/db = diag(a)
  auto f = [](Array<double> a, Array<double> b) { return Array<double>(a * b); };
  auto a = jnp::array({1.0, 2.0}), b = jnp::array({3.0, 4.0});
  auto [ja, jb] = jaxcc::jacrev(f, jaxcc::argnums<0, 1>)(a, b);
  REQUIRE_THAT(ja, AllClose(jnp::array<double>({{3, 0}, {0, 4}})));
  REQUIRE_THAT(jb, AllClose(jnp::array<double>({{1, 0}, {0, 2}})));
  auto [fa, fb] = jaxcc::jacfwd(f, jaxcc::argnums<0, 1>)(a, b);
  REQUIRE_THAT(fa, AllClose(ja));
  REQUIRE_THAT(fb, AllClose(jb));
  // A (2, 3) input to a scalar output: the Jacobian has the input's shape.
  auto g = [](Array<double> m) { return Array<double>(jnp::sum(m * m)); };
  auto m = jnp::arange<double>(6).reshape({2, 3});
  REQUIRE_THAT(jaxcc::jacrev(g)(m), AllClose(Array<double>(m * 2.0)));
  REQUIRE(jaxcc::jacfwd(g)(m).shape() == Shape{2, 3});
}

TEST_CASE("hessian is jacfwd of jacrev", "[jacobian]") {
  // x^3 at 2: f'' = 6x = 12
  REQUIRE(jaxcc::hessian([](Array<double> x) { return Array<double>(x * x * x); })(jnp::array(2.0)).item() == 12.0);
  // f(v) = v0^2 v1: H = [[2 v1, 2 v0], [2 v0, 0]]
  auto f = [](Array<double> v) {
    auto v0 = jaxcc::lax::slice(v, {0}, {1});
    auto v1 = jaxcc::lax::slice(v, {1}, {2});
    return jnp::sum(v0 * v0 * v1);
  };
  REQUIRE_THAT(jaxcc::hessian(f)(jnp::array({3.0, 5.0})), AllClose(jnp::array<double>({{10, 6}, {6, 0}})));
}

struct Pair {
  Array<double> first;
  Array<double> second;
};
JAXCC_PYTREE(Pair, first, second)

// f(v) = (v * v, v0 * v), v of shape (2,): J1 = diag(2 v), J2 = [[2 v0, 0], [v1, v0]]
// (d(v0 v_i)/dv_j = v0 [i == j] + v_i [j == 0]).
auto const square_and_scaled = [](Array<double> const& v) {
  auto const v0 = jaxcc::lax::slice(v, {0}, {1});
  return std::tuple<Array<double>, Array<double>>{v * v, v0 * v};
};

TEST_CASE("a pytree output's Jacobian has the output's structure", "[jacobian]") {
  auto const v = jnp::array({3.0, 5.0});
  auto const expected_square = jnp::array<double>({{6, 0}, {0, 10}});
  auto const expected_scaled = jnp::array<double>({{6, 0}, {5, 3}});
  SECTION("a tuple of Arrays") {
    auto const [r1, r2] = jaxcc::jacrev(square_and_scaled)(v);
    REQUIRE_THAT(r1, AllClose(expected_square, 1e-12));
    REQUIRE_THAT(r2, AllClose(expected_scaled, 1e-12));
    auto const [f1, f2] = jaxcc::jacfwd(square_and_scaled)(v);
    REQUIRE_THAT(f1, AllClose(expected_square, 1e-12));
    REQUIRE_THAT(f2, AllClose(expected_scaled, 1e-12));
  }
  SECTION("a struct of Arrays, differentiated with respect to one Array") {
    auto const f = [&](Array<double> const& x) {
      auto const [a, b] = square_and_scaled(x);
      return Pair{a, b};
    };
    for (Pair const& jac : {jaxcc::jacrev(f)(v), jaxcc::jacfwd(f)(v)}) {
      REQUIRE_THAT(jac.first, AllClose(expected_square, 1e-12));
      REQUIRE_THAT(jac.second, AllClose(expected_scaled, 1e-12));
    }
  }
  SECTION("a struct whose members' Jacobians are trees: the std::tuple of the members'") {
    // g(v, w) = Pair{v * w, v0 * v}: d(v w)/dv = diag(w), d(v w)/dw = diag(v);
    // d(v0 v)/dw = 0.
    auto const g = [](Array<double> const& x, Array<double> const& w) {
      auto const x0 = jaxcc::lax::slice(x, {0}, {1});
      return Pair{x * w, x0 * x};
    };
    auto const w = jnp::array({7.0, 11.0});
    auto const rev = jaxcc::jacrev(g, jaxcc::argnums<0, 1>)(v, w);
    auto const fwd = jaxcc::jacfwd(g, jaxcc::argnums<0, 1>)(v, w);
    for (auto const* jac : {&rev, &fwd}) {
      auto const& [product_by_v, product_by_w] = std::get<0>(*jac);
      auto const& [scaled_by_v, scaled_by_w] = std::get<1>(*jac);
      REQUIRE_THAT(product_by_v, AllClose(jnp::array<double>({{7, 0}, {0, 11}}), 1e-12));
      REQUIRE_THAT(product_by_w, AllClose(jnp::array<double>({{3, 0}, {0, 5}}), 1e-12));
      REQUIRE_THAT(scaled_by_v, AllClose(expected_scaled, 1e-12));
      REQUIRE_THAT(scaled_by_w, AllClose(jnp::zeros<double>({2, 2})));
    }
  }
  SECTION("a vector and a map of Arrays, with scalar and matrix leaves") {
    // g(m) = [sum(m), m^T] for m of shape (2, 3): d sum / dm = ones(2, 3);
    // d m^T[i, j] / d m[k, l] = [i == l][j == k], shape (3, 2, 2, 3).
    auto const m = jnp::arange<double>(6).reshape({2, 3});
    std::vector<double> transpose_jacobian(36, 0.0);
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 2; ++j) transpose_jacobian[((i * 2 + j) * 2 + j) * 3 + i] = 1.0;
    auto const expected = jnp::array(transpose_jacobian, Shape{3, 2, 2, 3});
    auto const g = [](Array<double> const& x) { return std::vector<Array<double>>{jnp::sum(x), x.T()}; };
    for (auto const& jac : {jaxcc::jacrev(g)(m), jaxcc::jacfwd(g)(m)}) {
      REQUIRE(jac.size() == 2);
      REQUIRE_THAT(jac[0], AllClose(jnp::ones<double>({2, 3})));
      REQUIRE_THAT(jac[1], AllClose(expected));
    }
    auto const h = [](Array<double> const& x) {
      return std::map<std::string, Array<double>>{{"sum", jnp::sum(x)}, {"t", x.T()}};
    };
    for (auto const& jac : {jaxcc::jacrev(h)(m), jaxcc::jacfwd(h)(m)}) {
      REQUIRE_THAT(jac.at("sum"), AllClose(jnp::ones<double>({2, 3})));
      REQUIRE_THAT(jac.at("t"), AllClose(expected));
    }
  }
}

TEST_CASE("pytree in, pytree out: each output leaf holds the inputs' structure", "[jacobian]") {
  // f((a, b), c) = {"ab": a * b, "c2": c * c} with a, b of shape (2,), c a scalar.
  auto const f = [](std::pair<Array<double>, Array<double>> const& ab, Array<double> const& c) {
    return std::map<std::string, Array<double>>{{"ab", ab.first * ab.second}, {"c2", c * c}};
  };
  auto const ab = std::pair{jnp::array({1.0, 2.0}), jnp::array({3.0, 4.0})};
  auto const c = jnp::array(5.0);
  auto const check = [&](auto const& jac) {
    // d(ab)/d(a, b) = (diag(b), diag(a)), d(ab)/dc = zeros(2); d(c2)/d(a, b) = zeros(2) each, d(c2)/dc = 2c.
    auto const& [d_ab_pair, d_ab_c] = jac.at("ab");
    REQUIRE_THAT(d_ab_pair.first, AllClose(jnp::array<double>({{3, 0}, {0, 4}})));
    REQUIRE_THAT(d_ab_pair.second, AllClose(jnp::array<double>({{1, 0}, {0, 2}})));
    REQUIRE_THAT(d_ab_c, AllClose(jnp::zeros<double>({2})));
    auto const& [d_c2_pair, d_c2_c] = jac.at("c2");
    REQUIRE_THAT(d_c2_pair.first, AllClose(jnp::zeros<double>({2})));
    REQUIRE_THAT(d_c2_pair.second, AllClose(jnp::zeros<double>({2})));
    REQUIRE(d_c2_c.item() == 10.0);
  };
  check(jaxcc::jacrev(f, jaxcc::argnums<0, 1>)(ab, c));
  check(jaxcc::jacfwd(f, jaxcc::argnums<0, 1>)(ab, c));
  // One argnum: each output leaf holds that argument's structure alone.
  auto const only_c = jaxcc::jacfwd(f, jaxcc::argnums<1>)(ab, c);
  REQUIRE(only_c.at("c2").item() == 10.0);
  REQUIRE_THAT(jaxcc::jacrev(f)(ab, c).at("ab").second, AllClose(jnp::array<double>({{1, 0}, {0, 2}})));
}

TEST_CASE("the hessian of a function of a pytree is a tree of trees", "[jacobian]") {
  // f(a, b) = sum(a^2 b) with a, b of shape (2,): d2f/da2 = diag(2 b),
  // d2f/da db = diag(2 a) = d2f/db da, d2f/db2 = 0.
  auto const f = [](std::tuple<Array<double>, Array<double>> const& p) {
    auto const& [a, b] = p;
    return jnp::sum(a * a * b);
  };
  auto const p = std::tuple{jnp::array({1.0, 2.0}), jnp::array({3.0, 4.0})};
  auto const h = jaxcc::hessian(f)(p);
  auto const& [haa, hab] = std::get<0>(h);
  auto const& [hba, hbb] = std::get<1>(h);
  REQUIRE_THAT(haa, AllClose(jnp::array<double>({{6, 0}, {0, 8}})));
  REQUIRE_THAT(hab, AllClose(jnp::array<double>({{2, 0}, {0, 4}})));
  REQUIRE_THAT(hba, AllClose(jnp::array<double>({{2, 0}, {0, 4}})));
  REQUIRE_THAT(hbb, AllClose(jnp::zeros<double>({2, 2})));
}

TEST_CASE("the Jacobian of a pytree output matches finite differences", "[jacobian]") {
  // Central differences, independent of either mode, on an output mixing a
  // scalar and a matrix leaf.
  auto const f = [](Array<double> const& x) {
    return std::pair<Array<double>, Array<double>>{jnp::sum(jnp::sin(x) * x), jnp::outer(x, jnp::exp(x))};
  };
  auto const x = jnp::array({0.3, -0.7, 1.1});
  auto const rev = jaxcc::jacrev(f)(x);
  auto const fwd = jaxcc::jacfwd(f)(x);
  double const eps = 1e-6;
  auto const values = x.to_vector();
  for (std::size_t k = 0; k < values.size(); ++k) {
    auto plus = values, minus = values;
    plus[k] += eps;
    minus[k] -= eps;
    auto const fp = f(jnp::array(plus, Shape{3})), fm = f(jnp::array(minus, Shape{3}));
    auto const d_first = (fp.first.item() - fm.first.item()) / (2 * eps);
    auto const d_second = Array<double>((fp.second - fm.second) / (2 * eps));
    auto const column = [&](Array<double> const& jac) { return Array<double>(jac(jaxcc::all, jaxcc::all, k)); };
    for (auto const* jac : {&rev, &fwd}) {
      REQUIRE(std::abs(jac->first.to_vector()[k] - d_first) < 1e-6);
      REQUIRE_THAT(column(jac->second), AllClose(d_second, 1e-6));
    }
  }
}

}  // namespace test_jacobian
