// Compile cost baseline for gtest_kernels.cpp: the same four kernels on
// Eigen, each with its gradient written by hand, under GoogleTest: the
// gradient checked against central finite differences (and the gradient's
// own derivative along a direction, the second order), a batch computed at
// once against a loop over its rows, and a second evaluation against the
// first.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <functional>
#include <random>

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXd;

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
  return m;
}

/// A kernel of the flattened input x: its value, and the VJP of a cotangent.
struct Kernel {
  std::function<Matrix(Matrix const&)> f;
  std::function<Matrix(Matrix const&, Matrix const&)> vjp;  // (x, ct) -> ct of x
};

/// <vjp(ct), t> against <ct, (f(x + eps t) - f(x - eps t)) / 2eps>.
void expect_vjp_matches_finite_differences(Kernel const& k, Matrix const& x, unsigned seed) {
  double const eps = 1e-4;
  Matrix const t = random_matrix(x.rows(), x.cols(), seed);
  Matrix const out = k.f(x);
  Matrix const ct = random_matrix(out.rows(), out.cols(), seed + 1);
  Matrix const numerical = (k.f(x + eps * t) - k.f(x - eps * t)) / (2 * eps);
  double const expected = (ct.array() * numerical.array()).sum();
  double const got = (k.vjp(x, ct).array() * t.array()).sum();
  EXPECT_NEAR(got, expected, 1e-5 + 1e-5 * std::abs(expected));
  // Second order: the VJP's own derivative along t, against its finite differences.
  Matrix const second = (k.vjp(x + eps * t, ct) - k.vjp(x - eps * t, ct)) / (2 * eps);
  Matrix const s = random_matrix(x.rows(), x.cols(), seed + 2);
  double const h = 1e-3;
  Matrix const second_h = (k.vjp(x + h * t, ct) - k.vjp(x - h * t, ct)) / (2 * h);
  double const at_h = (second_h.array() * s.array()).sum();
  EXPECT_NEAR((second.array() * s.array()).sum(), at_h, 1e-3 * (1 + std::abs(at_h)));
}

/// The kernel on all rows at once against each row on its own.
void expect_rows_match_loop(Kernel const& k, Matrix const& x) {
  Matrix const batched = k.f(x);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    Matrix const row = k.f(x.row(i));
    ASSERT_EQ(row.size(), batched.row(i).size());
    for (Eigen::Index j = 0; j < row.size(); ++j) EXPECT_NEAR(row(0, j), batched(i, j), 1e-12);
  }
  Matrix const again = k.f(x);
  EXPECT_TRUE(again.isApprox(batched, 1e-15));
}

Kernel const softplus{
    [](Matrix const& x) -> Matrix { return x.array().exp().log1p().matrix(); },
    [](Matrix const& x, Matrix const& ct) -> Matrix { return (ct.array() / (1 + (-x.array()).exp())).matrix(); }};

Kernel const row_norm{
    [](Matrix const& x) -> Matrix { return x.rowwise().norm(); },
    [](Matrix const& x, Matrix const& ct) -> Matrix {
      Vector const n = x.rowwise().norm();
      return ((ct.col(0).array() / n.array()).matrix().asDiagonal() * x).eval();
    }};

Kernel dense_kernel(Matrix const& w, Eigen::RowVectorXd const& b) {
  return {[w, b](Matrix const& x) -> Matrix { return ((x * w).rowwise() + b).array().tanh().matrix(); },
          [w, b](Matrix const& x, Matrix const& ct) -> Matrix {
            Matrix const y = ((x * w).rowwise() + b).array().tanh().matrix();
            return (ct.array() * (1 - y.array().square())).matrix() * w.transpose();
          }};
}

Kernel const row_logsumexp{
    [](Matrix const& x) -> Matrix {
      Vector const m = x.rowwise().maxCoeff();
      return ((x.colwise() - m).array().exp().rowwise().sum().log().matrix() + m);
    },
    [](Matrix const& x, Matrix const& ct) -> Matrix {
      Vector const m = x.rowwise().maxCoeff();
      Matrix const e = (x.colwise() - m).array().exp().matrix();
      Vector const total = e.rowwise().sum();
      return ((ct.col(0).array() / total.array()).matrix().asDiagonal() * e).eval();
    }};

TEST(Kernels, Softplus) {
  Matrix const x = random_matrix(4, 3, 0);
  expect_vjp_matches_finite_differences(softplus, x, 10);
  expect_rows_match_loop(softplus, x);
}

TEST(Kernels, RowNorm) {
  Matrix const x = random_matrix(4, 3, 1);
  expect_vjp_matches_finite_differences(row_norm, x, 20);
  expect_rows_match_loop(row_norm, x);
}

TEST(Kernels, Dense) {
  Matrix const x = random_matrix(4, 3, 2);
  Kernel const dense = dense_kernel(random_matrix(3, 2, 3), random_matrix(1, 2, 4));
  expect_vjp_matches_finite_differences(dense, x, 30);
  expect_rows_match_loop(dense, x);
}

TEST(Kernels, RowLogsumexp) {
  Matrix const x = random_matrix(4, 3, 5);
  expect_vjp_matches_finite_differences(row_logsumexp, x, 40);
  expect_rows_match_loop(row_logsumexp, x);
}

}  // namespace
