// Derivatives of the contractions: dot_general's JVP and VJP rules, and
// through them jnp dot, matmul, vdot, inner, outer, tensordot and einsum.
// check_grads compares JVPs and VJPs, to second order, with central
// differences in float64 (each function ends in a nonlinearity so that the
// second order means something); hand-worked values are explained beside
// them, and the MLP gradient is also checked against backpropagation written
// out with plain loops.
#include "catch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "support.hpp"

namespace test_linalg_grad {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc::testing::check_grads;
using jaxcc_test::smooth;

namespace {

/// The product f(a, b) made nonlinear, so second derivatives are not zero.
template <class F>
auto tanh_of(F f) {
  return [f](Array<double> const& a, Array<double> const& b) { return Array<double>(jnp::tanh(f(a, b))); };
}

}  // namespace

TEST_CASE("dot_general with batch dims and contracting dims out of order", "[linalg][grad][dot_general]") {
  // lhs (4, 3, 6, 2): batch 1, contracting 3 and 0 (paired with rhs 0 and 3),
  // free 2. rhs (2, 5, 3, 4): batch 2, free 1. Output (3, 6, 5).
  auto f = tanh_of([](Array<double> const& a, Array<double> const& b) {
    return lax::dot_general(a, b, {{3, 0}, {0, 3}, {1}, {2}});
  });
  auto a = smooth({4, 3, 6, 2}), b = smooth({2, 5, 3, 4}, 0.23, -0.4);
  REQUIRE(f(a, b).shape() == Shape{3, 6, 5});
  REQUIRE_NOTHROW(check_grads(f, std::tuple{a, b}, 2));

  // The same pairs listed the other way round: now the rhs's contracting
  // dims are the unsorted ones (the lhs's cotangent must sort by them).
  auto g = tanh_of([](Array<double> const& a, Array<double> const& b) {
    return lax::dot_general(a, b, {{0, 3}, {3, 0}, {1}, {2}});
  });
  REQUIRE_NOTHROW(check_grads(g, std::tuple{a, b}, 2));

  // Two batch dims listed in opposite orders, nothing contracted.
  auto h = tanh_of([](Array<double> const& a, Array<double> const& b) {
    return lax::dot_general(a, b, {{}, {}, {2, 0}, {0, 1}});
  });
  REQUIRE_NOTHROW(check_grads(h, std::tuple{smooth({2, 3, 4}), smooth({4, 2, 5}, 0.3, 1.0)}, 2));

  // Everything contracted: a scalar.
  auto full = tanh_of([](Array<double> const& a, Array<double> const& b) {
    return lax::dot_general(a, b, {{0, 1}, {1, 0}});
  });
  REQUIRE_NOTHROW(check_grads(full, std::tuple{smooth({2, 3}), smooth({3, 2}, 0.5)}, 2));
}

TEST_CASE("grad of sum(A @ B) is ones @ B^T and A^T @ ones", "[linalg][grad][matmul]") {
  // d/dA sum_ij (AB)_ij = 1 B^T: every row is B's row sums. With B's rows
  // (1,2), (3,4), (5,6), the row sums are 3, 7, 11. Likewise d/dB = A^T 1:
  // every column is A's column sums, 1+4, 2+5, 3+6 = 5, 7, 9.
  auto f = [](Array<double> const& a, Array<double> const& b) { return jnp::sum(jnp::matmul(a, b)); };
  auto a = jnp::array({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  auto b = jnp::array({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  auto [da, db] = jaxcc::grad(f, jaxcc::argnums<0, 1>)(a, b);
  REQUIRE_THAT(da, AllClose(jnp::array({{3.0, 7.0, 11.0}, {3.0, 7.0, 11.0}})));
  REQUIRE_THAT(db, AllClose(jnp::array({{5.0, 5.0}, {7.0, 7.0}, {9.0, 9.0}})));

  // Non-contiguous inputs (transposed views) give the same gradients.
  auto [da_t, db_t] = jaxcc::grad(f, jaxcc::argnums<0, 1>)(a.T().T(), Array<double>(b.T()).T());
  REQUIRE_THAT(da_t, AllClose(da));
  REQUIRE_THAT(db_t, AllClose(db));

  // A broadcast view as an operand: B with every row (1, 2); row sums 3.
  auto b_rows = jnp::broadcast_to(jnp::array({1.0, 2.0}), Shape{3, 2});
  REQUIRE_THAT(jaxcc::grad(f)(a, b_rows), AllClose(jnp::full<double>(Shape{2, 3}, 3.0)));
}

TEST_CASE("the per-example loss of the vmap tutorial, by hand", "[linalg][grad][seed]") {
  // loss((w, b), x, y) = sum((w·x + b − y)^2). With w = [[1,2],[3,4]],
  // b = [0.5, 0.5], x = [1, 1], y = [1, 2]: w·x + b = [3.5, 7.5], so the
  // residual is r = [2.5, 5.5]; dL/db = 2r = [5, 11], dL/dw = 2 r x^T =
  // [[5, 5], [11, 11]], and dL/dx = 2 w^T r = [2*(2.5+16.5), 2*(5+22)] = [38, 54].
  auto loss = [](std::tuple<Array<double>, Array<double>> const& params, Array<double> const& x,
                 Array<double> const& y) {
    auto const& [w, b] = params;
    return jnp::sum(jnp::square(jnp::dot(w, x) + b - y));
  };
  auto params = std::tuple{jnp::array({{1.0, 2.0}, {3.0, 4.0}}), jnp::array({0.5, 0.5})};
  auto x = jnp::array({1.0, 1.0}), y = jnp::array({1.0, 2.0});
  auto [dparams, dx] = jaxcc::grad(loss, jaxcc::argnums<0, 1>)(params, x, y);
  auto const& [dw, db] = dparams;
  REQUIRE_THAT(dw, AllClose(jnp::array({{5.0, 5.0}, {11.0, 11.0}})));
  REQUIRE_THAT(db, AllClose(jnp::array({5.0, 11.0})));
  REQUIRE_THAT(dx, AllClose(jnp::array({38.0, 54.0})));
  REQUIRE_NOTHROW(check_grads(loss, std::tuple{params, x, y}, 2));
}

TEST_CASE("matmul: broadcast batch dims and 1-D operands", "[linalg][grad][matmul]") {
  auto f = tanh_of([](Array<double> const& a, Array<double> const& b) { return jnp::matmul(a, b); });
  SECTION("batch dims broadcast against size 1 and against missing ones") {
    auto a = smooth({2, 1, 3, 4}), b = smooth({5, 4, 2}, 0.29, 0.7);
    REQUIRE(f(a, b).shape() == Shape{2, 5, 3, 2});
    REQUIRE_NOTHROW(check_grads(f, std::tuple{a, b}, 2));
    REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({3, 4}), smooth({2, 3, 4, 2}, 0.29, 0.7)}, 2));
    REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({2, 3, 3, 4}), smooth({2, 1, 4, 2}, 0.29, 0.7)}, 2));
  }
  SECTION("1-D operands") {
    REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({4}), smooth({2, 4, 3}, 0.29, 0.7)}, 2));
    REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({2, 3, 4}), smooth({4}, 0.29, 0.7)}, 2));
    REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({4}), smooth({4}, 0.29, 0.7)}, 2));
  }
  SECTION("non-contiguous operands") {
    REQUIRE_NOTHROW(check_grads(f, std::tuple{Array<double>(smooth({4, 3}).T()), smooth({4, 2}, 0.29, 0.7)}, 2));
  }
}

TEST_CASE("dot, vdot, inner, outer and tensordot", "[linalg][grad]") {
  auto a = smooth({2, 3}), b = smooth({3, 4}, 0.31, -0.5);
  auto dot = tanh_of([](Array<double> const& x, Array<double> const& y) { return jnp::dot(x, y); });
  REQUIRE_NOTHROW(check_grads(dot, std::tuple{a, b}, 2));
  // numpy.dot stacks (does not broadcast) batch dims: (2,3,4) · (5,4,2).
  REQUIRE_NOTHROW(check_grads(dot, std::tuple{smooth({2, 3, 4}), smooth({5, 4, 2}, 0.31, -0.5)}, 2));
  // A rank-0 operand scales.
  REQUIRE_NOTHROW(check_grads(dot, std::tuple{jnp::array(0.7), b}, 2));

  auto vdot = tanh_of([](Array<double> const& x, Array<double> const& y) { return jnp::vdot(x, y); });
  REQUIRE_NOTHROW(check_grads(vdot, std::tuple{a, smooth({3, 2}, 0.31, -0.5)}, 2));
  // d vdot(x, y) / dx = y, reshaped like x.
  auto g = jaxcc::grad([](Array<double> const& x, Array<double> const& y) { return jnp::vdot(x, y); })(
      a, jnp::array({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}));
  REQUIRE_THAT(g, AllClose(jnp::array({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}})));

  auto inner = tanh_of([](Array<double> const& x, Array<double> const& y) { return jnp::inner(x, y); });
  REQUIRE_NOTHROW(check_grads(inner, std::tuple{a, smooth({4, 3}, 0.31, -0.5)}, 2));

  auto outer = tanh_of([](Array<double> const& x, Array<double> const& y) { return jnp::outer(x, y); });
  REQUIRE_NOTHROW(check_grads(outer, std::tuple{a, smooth({4}, 0.31, -0.5)}, 2));

  auto tensordot2 = tanh_of([](Array<double> const& x, Array<double> const& y) { return jnp::tensordot(x, y); });
  REQUIRE_NOTHROW(check_grads(tensordot2, std::tuple{smooth({2, 3, 4}), smooth({3, 4, 2}, 0.31, -0.5)}, 2));
  auto tensordot_axes = tanh_of([](Array<double> const& x, Array<double> const& y) {
    return jnp::tensordot(x, y, std::pair{Axes{0, -1}, Axes{2, 0}});
  });
  REQUIRE_NOTHROW(check_grads(tensordot_axes, std::tuple{smooth({2, 3, 4}), smooth({4, 5, 2}, 0.31, -0.5)}, 2));
}

TEST_CASE("einsum differentiates, traces and diagonals included", "[linalg][grad][einsum]") {
  auto two = [](std::string spec) {
    return tanh_of([spec](Array<double> const& x, Array<double> const& y) { return jnp::einsum(spec, x, y); });
  };
  REQUIRE_NOTHROW(check_grads(two("ij,jk->ik"), std::tuple{smooth({2, 3}), smooth({3, 4}, 0.3, 1.0)}, 2));
  REQUIRE_NOTHROW(check_grads(two("bij,bjk->bik"), std::tuple{smooth({2, 2, 3}), smooth({2, 3, 4}, 0.3, 1.0)}, 2));
  REQUIRE_NOTHROW(check_grads(two("ij,kj->jki"), std::tuple{smooth({2, 3}), smooth({4, 3}, 0.3, 1.0)}, 2));
  REQUIRE_NOTHROW(check_grads(two("ij,ij->"), std::tuple{smooth({2, 3}), smooth({2, 3}, 0.3, 1.0)}, 2));
  REQUIRE_NOTHROW(check_grads(two("...ij,...jk"), std::tuple{smooth({2, 1, 2, 3}), smooth({5, 3, 2}, 0.3, 1.0)}, 2));
  // A label repeated inside an operand (its diagonal) and one summed alone.
  REQUIRE_NOTHROW(check_grads(two("iij,jk->ik"), std::tuple{smooth({3, 3, 2}), smooth({2, 4}, 0.3, 1.0)}, 2));
  REQUIRE_NOTHROW(check_grads(two("ijk,j->i"), std::tuple{smooth({2, 3, 4}), smooth({3}, 0.3, 1.0)}, 2));

  auto one = [](std::string spec) {
    return [spec](Array<double> const& x) { return Array<double>(jnp::tanh(jnp::einsum(spec, x))); };
  };
  REQUIRE_NOTHROW(check_grads(one("ii->i"), std::tuple{smooth({3, 3})}, 2));
  REQUIRE_NOTHROW(check_grads(one("ii"), std::tuple{smooth({3, 3})}, 2));
  REQUIRE_NOTHROW(check_grads(one("ij->j"), std::tuple{smooth({3, 4})}, 2));
  REQUIRE_NOTHROW(check_grads(one("iji->j"), std::tuple{smooth({3, 2, 3})}, 2));

  auto three = [](Array<double> const& x, Array<double> const& y, Array<double> const& z) {
    return Array<double>(jnp::tanh(jnp::einsum("ij,jk,kl->il", x, y, z)));
  };
  REQUIRE_NOTHROW(check_grads(three, std::tuple{smooth({2, 3}), smooth({3, 4}, 0.3, 1.0), smooth({4, 2}, 0.4, -1.0)}, 2));

  // d trace(x) / dx = I, and d sum(diag(x)^2) / dx = 2 diag(x) on the diagonal.
  auto x = jnp::array({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}, {7.0, 8.0, 9.0}});
  auto trace = [](Array<double> const& m) { return jnp::einsum("ii", m); };
  REQUIRE_THAT(jaxcc::grad(trace)(x), AllClose(jnp::eye<double>(3)));
  auto diag_squares = [](Array<double> const& m) { return jnp::sum(jnp::square(jnp::einsum("ii->i", m))); };
  REQUIRE_THAT(jaxcc::grad(diag_squares)(x),
               AllClose(jnp::array({{2.0, 0.0, 0.0}, {0.0, 10.0, 0.0}, {0.0, 0.0, 18.0}})));
}

TEST_CASE("second order: the Hessian of a quadratic form is A + A^T", "[linalg][grad][hessian]") {
  // f(x) = x · (A x) = sum_ij x_i A_ij x_j, so d^2f / dx_k dx_l = A_kl + A_lk:
  // [[2, 1, 0.5], [1, 6, 4], [0.5, 4, 4]] for the A below. Row k of the
  // Hessian is the gradient of x -> grad f(x) · e_k (grad of grad).
  auto a = jnp::array({{1.0, 2.0, 0.0}, {-1.0, 3.0, 4.0}, {0.5, 0.0, 2.0}});
  auto f = [a](Array<double> const& x) { return jnp::dot(x, jnp::matmul(a, x)); };
  auto const x0 = jnp::array({0.3, -1.2, 2.0});
  auto hessian_row = [&](Array<double> const& v) {
    return jaxcc::grad([&](Array<double> const& x) { return jnp::vdot(jaxcc::grad(f)(x), v); })(x0);
  };
  REQUIRE_THAT(hessian_row(jnp::array({1.0, 0.0, 0.0})), AllClose(jnp::array({2.0, 1.0, 0.5})));
  REQUIRE_THAT(hessian_row(jnp::array({0.0, 1.0, 0.0})), AllClose(jnp::array({1.0, 6.0, 4.0})));
  REQUIRE_THAT(hessian_row(jnp::array({0.0, 0.0, 1.0})), AllClose(jnp::array({0.5, 4.0, 4.0})));
  // Along v = (1, 0, -1): (A + A^T) v = (2 - 0.5, 1 - 4, 0.5 - 4).
  REQUIRE_THAT(hessian_row(jnp::array({1.0, 0.0, -1.0})), AllClose(jnp::array({1.5, -3.0, -3.5})));
  // Forward over reverse: the JVP of grad f along v is the same product.
  auto [g, hv] = jaxcc::jvp(jaxcc::grad(f), std::tuple{x0}, std::tuple{jnp::array({1.0, 0.0, -1.0})});
  REQUIRE_THAT(hv, AllClose(jnp::array({1.5, -3.0, -3.5})));
  // grad f = (A + A^T) x.
  REQUIRE_THAT(g, AllClose(jnp::array({0.3 * 2 - 1.2 * 1 + 2.0 * 0.5, 0.3 * 1 - 1.2 * 6 + 2.0 * 4, 0.3 * 0.5 - 1.2 * 4 + 2.0 * 4})));
}

TEST_CASE("dtypes: promoted operands get cotangents of their own dtype, integers none", "[linalg][grad][dtype]") {
  // float32 · float64 promotes to float64; the float32 operand's gradient is
  // float32. d sum(a @ b) / da = rows of b's row sums: 1+2 = 3, 3+4 = 7.
  auto f = [](Array<float> const& a, Array<double> const& b) { return jnp::sum(jnp::matmul(a, b)); };
  auto a = jnp::array({{1.f, 2.f}});
  auto a_wide = jnp::array({{1.0, 2.0}});
  auto b = jnp::array({{1.0, 2.0}, {3.0, 4.0}});
  auto [ga, gb] = jaxcc::grad(f, jaxcc::argnums<0, 1>)(a, b);
  STATIC_REQUIRE(std::is_same_v<decltype(ga), Array<float>>);
  REQUIRE_THAT(ga, AllClose(jnp::array({{3.f, 7.f}})));
  REQUIRE_THAT(gb, AllClose(jnp::array({{1.0, 1.0}, {2.0, 2.0}})));

  // An int32 operand takes no cotangent (zeros), the float one does: the
  // cotangent of a in a @ n is ct @ n^T = [1, 1] @ [[1, 3], [2, 4]] = [3, 7].
  auto mixed = [](Array<double> const& x, Array<std::int32_t> const& n) { return jnp::matmul(x, n); };
  auto n = jnp::array({{1, 2}, {3, 4}});
  auto [out, pullback] = jaxcc::vjp(mixed, a_wide, n);
  REQUIRE_THAT(out, AllClose(jnp::array({{7.0, 10.0}})));
  auto [ct_x, ct_n] = pullback(jnp::array({{1.0, 1.0}}));
  REQUIRE_THAT(ct_x, AllClose(jnp::array({{3.0, 7.0}})));
  REQUIRE_THAT(ct_n, AllClose(jnp::zeros<std::int32_t>(Shape{2, 2})));

  // An integer product has no derivative at all.
  auto ints = [](Array<std::int32_t> const& p, Array<std::int32_t> const& q) { return jnp::matmul(p, q); };
  auto [int_out, int_pullback] = jaxcc::vjp(ints, n, n);
  REQUIRE_THAT(int_out, AllClose(jnp::array({{7, 10}, {15, 22}})));
  auto [ct_p, ct_q] = int_pullback(jnp::ones<std::int32_t>(Shape{2, 2}));
  REQUIRE_THAT(ct_p, AllClose(jnp::zeros<std::int32_t>(Shape{2, 2})));
  REQUIRE_THAT(ct_q, AllClose(jnp::zeros<std::int32_t>(Shape{2, 2})));
  auto [jvp_out, jvp_tangent] = jaxcc::jvp(ints, std::tuple{n, n}, std::tuple{n, n});
  REQUIRE_THAT(jvp_tangent, AllClose(jnp::zeros<std::int32_t>(Shape{2, 2})));
}

TEST_CASE("empty and rank-0 products", "[linalg][grad][edge]") {
  auto f = [](Array<double> const& a, Array<double> const& b) { return jnp::sum(jnp::matmul(a, b)); };
  // Nothing contracted (k = 0): the sum is 0 whatever a and b are, and the
  // gradients are empty like the operands.
  auto [da, db] = jaxcc::grad(f, jaxcc::argnums<0, 1>)(jnp::zeros<double>(Shape{2, 0}), jnp::zeros<double>(Shape{0, 3}));
  REQUIRE(da.shape() == Shape{2, 0});
  REQUIRE(db.shape() == Shape{0, 3});
  // No rows in a: the output is empty, so b's gradient is all zeros.
  auto db_empty = jaxcc::grad(f, jaxcc::argnums<1>)(jnp::zeros<double>(Shape{0, 3}), smooth({3, 2}));
  REQUIRE_THAT(db_empty, AllClose(jnp::zeros<double>(Shape{3, 2})));
  // Rank 0 times a vector: d/ds sum(s v) = sum(v) = 6, d/dv = s.
  auto [ds, dv] = jaxcc::grad([](Array<double> const& s, Array<double> const& v) { return jnp::sum(jnp::dot(s, v)); },
                              jaxcc::argnums<0, 1>)(jnp::array(2.5), jnp::array({1.0, 2.0, 3.0}));
  REQUIRE(ds.shape() == Shape{});
  REQUIRE(ds.item() == Catch::Approx(6.0));
  REQUIRE_THAT(dv, AllClose(jnp::full<double>(Shape{3}, 2.5)));
}

namespace {

using MlpParams = std::tuple<Array<double>, Array<double>, Array<double>, Array<double>>;

/// Mean softmax cross-entropy of a tanh MLP, 8-6-3.
Array<double> mlp_loss(MlpParams const& params, Array<double> const& x, Array<double> const& labels) {
  auto const& [w1, b1, w2, b2] = params;
  auto const hidden = jnp::tanh(jnp::matmul(x, w1) + b1);
  auto const logits = jnp::matmul(hidden, w2) + b2;
  return -jnp::mean(jnp::sum(labels * jaxcc::nn::log_softmax(logits), 1));
}

using Matrix = std::vector<std::vector<double>>;

Matrix rows_of(Array<double> const& a) {
  auto const v = a.to_vector();
  auto const n = a.ndim() == 1 ? 1 : a.shape()[0];
  auto const m = a.size() / n;
  Matrix out(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(m)));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) out[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = v[static_cast<std::size_t>(i * m + j)];
  return out;
}

Array<double> array_of(Matrix const& m, Shape const& shape) {
  std::vector<double> flat;
  for (auto const& row : m) flat.insert(flat.end(), row.begin(), row.end());
  return jnp::array(flat, shape);
}

}  // namespace

TEST_CASE("MLP loss: gradient as backpropagation by hand, and check_grads", "[linalg][grad][mlp]") {
  std::size_t const batch = 4, in = 8, hid = 6, out = 3;
  MlpParams params{smooth({8, 6}, 0.41, 0.1) * 0.5, smooth({6}, 0.7, -0.3) * 0.1, smooth({6, 3}, 0.53, 0.9) * 0.5,
                   smooth({3}, 1.1, 0.4) * 0.1};
  auto x = smooth({4, 8}, 0.77, -1.0);
  auto labels = jnp::array({{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}, {0.0, 1.0, 0.0}});

  // Backpropagation written out: h = tanh(x W1 + b1), z = h W2 + b2,
  // dz = (softmax(z) - y) / batch, dW2 = h^T dz, db2 = sum dz,
  // dh = dz W2^T, da = dh (1 - h^2), dW1 = x^T da, db1 = sum da.
  auto const W1 = rows_of(std::get<0>(params)), W2 = rows_of(std::get<2>(params));
  auto const B1 = std::get<1>(params).to_vector(), B2 = std::get<3>(params).to_vector();
  auto const X = rows_of(x), Y = rows_of(labels);
  Matrix H(batch, std::vector<double>(hid)), DZ(batch, std::vector<double>(out)), DA(batch, std::vector<double>(hid));
  for (std::size_t n = 0; n < batch; ++n) {
    for (std::size_t j = 0; j < hid; ++j) {
      double s = B1[j];
      for (std::size_t i = 0; i < in; ++i) s += X[n][i] * W1[i][j];
      H[n][j] = std::tanh(s);
    }
    std::vector<double> z(out);
    double zmax = -1e300, total = 0;
    for (std::size_t k = 0; k < out; ++k) {
      z[k] = B2[k];
      for (std::size_t j = 0; j < hid; ++j) z[k] += H[n][j] * W2[j][k];
      zmax = std::max(zmax, z[k]);
    }
    for (std::size_t k = 0; k < out; ++k) total += std::exp(z[k] - zmax);
    for (std::size_t k = 0; k < out; ++k) DZ[n][k] = (std::exp(z[k] - zmax) / total - Y[n][k]) / double(batch);
    for (std::size_t j = 0; j < hid; ++j) {
      double dh = 0;
      for (std::size_t k = 0; k < out; ++k) dh += DZ[n][k] * W2[j][k];
      DA[n][j] = dh * (1 - H[n][j] * H[n][j]);
    }
  }
  Matrix dW1(in, std::vector<double>(hid)), dW2(hid, std::vector<double>(out));
  std::vector<double> db1(hid), db2(out);
  for (std::size_t n = 0; n < batch; ++n) {
    for (std::size_t i = 0; i < in; ++i)
      for (std::size_t j = 0; j < hid; ++j) dW1[i][j] += X[n][i] * DA[n][j];
    for (std::size_t j = 0; j < hid; ++j) {
      db1[j] += DA[n][j];
      for (std::size_t k = 0; k < out; ++k) dW2[j][k] += H[n][j] * DZ[n][k];
    }
    for (std::size_t k = 0; k < out; ++k) db2[k] += DZ[n][k];
  }

  auto const [g1, gb1, g2, gb2] = jaxcc::grad(mlp_loss)(params, x, labels);
  REQUIRE_THAT(g1, AllClose(array_of(dW1, Shape{8, 6}), 1e-10, 1e-12));
  REQUIRE_THAT(gb1, AllClose(jnp::array(db1, Shape{6}), 1e-10, 1e-12));
  REQUIRE_THAT(g2, AllClose(array_of(dW2, Shape{6, 3}), 1e-10, 1e-12));
  REQUIRE_THAT(gb2, AllClose(jnp::array(db2, Shape{3}), 1e-10, 1e-12));

  REQUIRE_NOTHROW(check_grads(mlp_loss, std::tuple{params, x, labels}, 2));
}

}  // namespace test_linalg_grad
