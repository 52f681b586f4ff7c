// qr: the QR decomposition x = Q·R of each (..., m, n) matrix, Q with
// orthonormal columns and R upper triangular (upper trapezoidal when not
// square): Q is m × m and R m × n with `full_matrices`, else m × k and
// k × n (k = min(m, n)). A primitive has one output, so this one packs
// lax.linalg.qr's two into (..., m + n, c), c the columns of Q: Q's rows,
// then Rᵀ's; lax::linalg::qr slices them apart. Each matrix is one
// Eigen::HouseholderQR (signs as its Householder reflections make them).
//
// Derivatives: JAX's qr_jvp_rule, but for full_matrices of a tall matrix
// (not yet here). For m >= n, with Y = ẋ R⁻¹, M = Qᵀ Y, Ω = tril(M, -1) -
// tril(M, -1)ᵀ: Q̇ = Q (Ω - M) + Y, Ṙ = (M - Ω) R; a wide matrix [x1 x2]
// takes that for x1 and Ṙ2 = Q̇ᵀ x2 + Qᵀ ẋ2. The VJP is its transpose: with
// A = Qᵀ Q̄ - R̄ Rᵀ, M̄ = tril(A - Aᵀ, -1) - A, x̄ = (Q̄ + Q M̄) R⁻ᵀ (a wide
// matrix adds x2 R̄2ᵀ to Q̄ first, and x̄2 = Q R̄2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/QR>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/slice.hpp"
#include "jaxcc/primitives/triangular_solve.hpp"

namespace jaxcc::primitives {

struct qr_p : detail::BatchesLeadingAxes<qr_p> {
  static constexpr std::string_view name = "qr";
  struct Params {
    bool full_matrices = true;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    detail::check_linalg_operands<T, 1>(name, {2}, {&x});
    auto out = x.shape();
    auto const m = out[out.size() - 2], n = out.back();
    out[out.size() - 2] = m + n;
    out.back() = p.full_matrices ? m : std::min(m, n);
    return out;
  }
  static std::string params_string(Params const& p) {
    return std::string("full_matrices=") + (p.full_matrices ? "True" : "False") + " pivoting=False";
  }

  template <Element T>
  static Array<T> impl(Params const&, Shape out_shape, Array<T> const& x) {
    auto [out, out_data] = detail::allocate<T>(out_shape);
    T* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    detail::MatrixBatch<T> const xs(x);
    auto const m = xs.rows, n = xs.cols, c = out_shape.back();
    detail::for_each_matrix(xs.count(), 4 * m * n * std::min(m, n), [&](std::int64_t i) {
      using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
      Eigen::HouseholderQR<Matrix> const qr{Matrix(xs[i])};
      detail::RowMatrixMap<T> packed(dst + i * (m + n) * c, m + n, c);
      packed.topRows(m) = qr.householderQ() * Matrix::Identity(m, c);
      packed.bottomRows(n) = Matrix(qr.matrixQR().topRows(c).template triangularView<Eigen::Upper>()).transpose();
    });
    return out;
  }

  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const& out, Array<T> const& x, Array<T> const& x_dot) {
    check_differentiable(p, x);
    auto const [q, r] = unpack(out, x);
    auto const m = q.shape()[q.shape().size() - 2], n = x.shape().back(), last = x.ndim() - 1;
    if (m >= n) {
      auto const [q_dot, r_dot] = thin_jvp(q, r, x_dot);
      return pack(q_dot, r_dot);
    }
    // Wide: x = [x1 x2] with x1 square is Q [R1 R2]; R2 = Qᵀ x2, so Ṙ2 = Q̇ᵀ x2 + Qᵀ ẋ2.
    auto const [q_dot, r1_dot] = thin_jvp(q, columns(r, 0, m), columns(x_dot, 0, m));
    auto const r2_dot = Array<T>(detail::batch_matmul(detail::matrix_transpose(q_dot), columns(x, m, n)) +
                                 detail::batch_matmul(detail::matrix_transpose(q), columns(x_dot, m, n)));
    return pack(q_dot, lax::concatenate(std::vector<Array<T>>{r1_dot, r2_dot}, last));
  }

  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const& out, Array<T> const& x) {
    check_differentiable(p, x);
    auto const [q, r] = unpack(out, x);
    auto const [q_bar, r_bar] = unpack(ct, x);
    auto const m = q.shape()[q.shape().size() - 2], n = x.shape().back();
    if (m >= n) return thin_vjp(q, r, q_bar, r_bar);
    auto const r2_bar = columns(r_bar, m, n);
    auto const q_bar_all = Array<T>(q_bar + detail::batch_matmul(columns(x, m, n), detail::matrix_transpose(r2_bar)));
    return lax::concatenate(std::vector<Array<T>>{thin_vjp(q, columns(r, 0, m), q_bar_all, columns(r_bar, 0, m)),
                                                  detail::batch_matmul(q, r2_bar)},
                            x.ndim() - 1);
  }

  /// Q (..., m, c) and R (..., c, n) of a packed output, for an m × n input.
  template <Element T>
  static std::pair<Array<T>, Array<T>> unpack(Array<T> const& packed, Array<T> const& x) {
    auto const r = static_cast<std::size_t>(packed.ndim());
    auto const m = x.shape()[r - 2];
    Axes start(r, 0), limit(packed.shape().begin(), packed.shape().end());
    limit[r - 2] = m;
    auto const q = detail::bind<slice_p>({start, limit, {}}, packed);
    start[r - 2] = m, limit[r - 2] = packed.shape()[r - 2];
    return {q, detail::matrix_transpose(detail::bind<slice_p>({start, limit, {}}, packed))};
  }

 private:
  /// JAX has this derivative too (arXiv:2409.13374); jaxcc not yet.
  template <Element T>
  static void check_differentiable(Params const& p, Array<T> const& x) {
    auto const m = x.shape()[x.shape().size() - 2], n = x.shape().back();
    if (p.full_matrices && m > n)
      throw Error("qr: the derivative of the complete decomposition (full_matrices=True) of a tall matrix is not "
                  "implemented in jaxcc");
  }

  /// JAX's _thin_qr_jvp (m >= n): (Q̇, Ṙ).
  template <Element T>
  static std::pair<Array<T>, Array<T>> thin_jvp(Array<T> const& q, Array<T> const& r, Array<T> const& x_dot) {
    auto const y = detail::bind<triangular_solve_p>({false, false, false, false}, r, x_dot);
    auto const m = detail::batch_matmul(detail::matrix_transpose(q), y);
    auto const lower = detail::matrix_triangle(m, -1, true);
    auto const omega = Array<T>(lower - detail::matrix_transpose(lower));
    return {Array<T>(detail::batch_matmul(q, Array<T>(omega - m)) + y), detail::batch_matmul(Array<T>(m - omega), r)};
  }

  /// thin_jvp's transpose: x̄ from (Q̄, R̄).
  template <Element T>
  static Array<T> thin_vjp(Array<T> const& q, Array<T> const& r, Array<T> const& q_bar, Array<T> const& r_bar) {
    auto const a = Array<T>(detail::batch_matmul(detail::matrix_transpose(q), q_bar) -
                            detail::batch_matmul(r_bar, detail::matrix_transpose(r)));
    auto const m_bar = Array<T>(detail::matrix_triangle(Array<T>(a - detail::matrix_transpose(a)), -1, true) - a);
    auto const y_bar = Array<T>(q_bar + detail::batch_matmul(q, m_bar));
    return detail::bind<triangular_solve_p>({false, false, true, false}, r, y_bar);
  }

  /// The packed form of (Q, R) or of their tangents.
  template <Element T>
  static Array<T> pack(Array<T> const& q, Array<T> const& r) {
    return lax::concatenate(std::vector<Array<T>>{q, detail::matrix_transpose(r)}, q.ndim() - 2);
  }

  /// Columns [first, last) of each matrix of x.
  template <Element T>
  static Array<T> columns(Array<T> const& x, std::int64_t first, std::int64_t last) {
    auto const r = static_cast<std::size_t>(x.ndim());
    Axes start(r, 0), limit(x.shape().begin(), x.shape().end());
    start[r - 1] = first, limit[r - 1] = last;
    return detail::bind<slice_p>({start, limit, {}}, x);
  }
};

}  // namespace jaxcc::primitives
