// Compile cost baseline: an Eigen program of similar reach to mlp.cpp: a
// two-layer MLP's forward pass and hand-written gradient, an SGD loop, and
// per-example gradient norms, printed.
#include <cmath>
#include <iostream>

#include <Eigen/Dense>

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::RowVectorXf;

struct Params {
  Matrix w1, w2;
  RowVector b1, b2;
};

struct Grads {
  Matrix dw1, dw2;
  RowVector db1, db2;
  float loss;
};

Grads loss_and_grad(Params const& p, Matrix const& x, Matrix const& y) {
  Matrix h = ((x * p.w1).rowwise() + p.b1).array().tanh().matrix();
  Matrix out = (h * p.w2).rowwise() + p.b2;
  Matrix err = out - y;
  float const n = static_cast<float>(err.size());
  Matrix dout = err * (2.f / n);
  Matrix dh = ((dout * p.w2.transpose()).array() * (1.f - h.array().square())).matrix();
  return {x.transpose() * dh, h.transpose() * dout, dh.colwise().sum(), dout.colwise().sum(), err.squaredNorm() / n};
}

int main() {
  int const n = 64, d = 8, h = 16;
  Matrix x(n, d), y(n, 1);
  for (int i = 0; i < n * d; ++i) x.data()[i] = std::sin(0.37f * static_cast<float>(i));
  for (int i = 0; i < n; ++i) y(i, 0) = std::cos(0.11f * static_cast<float>(i));
  Params p{Matrix(d, h), Matrix(h, 1), RowVector::Zero(h), RowVector::Zero(1)};
  for (int i = 0; i < d * h; ++i) p.w1.data()[i] = 0.3f * std::sin(0.7f * static_cast<float>(i));
  for (int i = 0; i < h; ++i) p.w2(i, 0) = 0.3f * std::cos(0.3f * static_cast<float>(i));

  for (int i = 0; i < 100; ++i) {
    Grads g = loss_and_grad(p, x, y);
    p.w1 -= 0.1f * g.dw1;
    p.b1 -= 0.1f * g.db1;
    p.w2 -= 0.1f * g.dw2;
    p.b2 -= 0.1f * g.db2;
    if (i % 25 == 0) std::cout << "step " << i << " loss " << g.loss << '\n';
  }
  Eigen::VectorXf norms(n);
  for (int i = 0; i < n; ++i) {
    Grads g = loss_and_grad(p, x.row(i), y.row(i));
    norms(i) = std::sqrt(g.dw1.squaredNorm() + g.dw2.squaredNorm() + g.db1.squaredNorm() + g.db2.squaredNorm());
  }
  std::cout << "per-example gradient norms " << norms.transpose() << '\n';
}
