// qr: the QR decomposition x = Q·R of each (..., m, n) matrix, Q with
// orthonormal columns and R upper triangular (upper trapezoidal when not
// square): Q is m × m and R m × n with `full_matrices`, else m × k and
// k × n (k = min(m, n)). A primitive has one output, so this one packs
// lax.linalg.qr's two into (..., m + n, c), c the columns of Q: Q's rows,
// then Rᵀ's; lax::linalg::qr slices them apart. Each matrix is one
// Eigen::HouseholderQR (signs as its Householder reflections make them).
//
// Complex matrices take the same rules with conjugate transposes (ᴴ; ᵀ
// on real ones), as JAX's.
//
// Derivatives: JAX's qr_jvp_rule. For m >= n, with Y = ẋ R⁻¹, M = Qᴴ Y,
// Ω = tril(M, -1) - tril(M, -1)ᴴ + i Im(diag(M)): Q̇ = Q (Ω - M) + Y,
// Ṙ = (M - Ω) R; a wide matrix [x1 x2] takes that for x1 and
// Ṙ2 = Q̇ᴴ x2 + Qᴴ ẋ2. The complete Q of a tall matrix, [Q1 Q2] with Q1 the
// thin one (rows split n | m - n: Q1 = [Qa; Qb]), takes arXiv:2409.13374's
// completion, as JAX: with Z = Qb (Qa - I)⁻¹,
// Q̇2 = Q̇1 Zᴴ - (Q1 + Q2 Z)(Q̇b - Z Q̇a)ᴴ, and Ṙ is the thin Ṙ above zero
// rows. The VJP is its transpose (JAX's non-conjugating one): with
// A = Qᵀ Q̄ - R̄ Rᵀ, M̄ = tril(A - Aᴴ, -1) - A + i Im(diag(A)),
// x̄ = (Q̄ + conj(Q) M̄) R⁻ᵀ (a wide matrix adds conj(x2) R̄2ᴴ to Q̄ first,
// and x̄2 = conj(Q) R̄2; the complete Q of a tall one adds Q̄2 conj(Z) to
// Q̄1 and, with D̄ = -Q̄2ᴴ conj(Q1 + Q2 Z), D̄ to Q̄b and -Zᵀ D̄ to Q̄a).
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
#include "jaxcc/primitives/bits/hermitian.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/lu.hpp"
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
    auto const [q, r] = unpack(out, x);
    auto const m = q.shape()[q.shape().size() - 2], n = x.shape().back(), last = x.ndim() - 1;
    if (p.full_matrices && m > n) {
      auto const q1 = columns(q, 0, n);
      auto const [q1_dot, r1_dot] = thin_jvp(q1, rows(r, 0, n), x_dot);
      auto const z = completion(q, n);
      auto const d = Array<T>(rows(q1_dot, n, m) - detail::batch_matmul(z, rows(q1_dot, 0, n)));
      auto const q2_dot = Array<T>(detail::batch_matmul(q1_dot, detail::matrix_adjoint(z)) -
                                   detail::batch_matmul(completed(q, z, n), detail::matrix_adjoint(d)));
      auto zero_rows = r1_dot.shape();
      zero_rows[zero_rows.size() - 2] = m - n;
      return pack(lax::concatenate(std::vector<Array<T>>{q1_dot, q2_dot}, last),
                  lax::concatenate(std::vector<Array<T>>{r1_dot, detail::filled<T>(zero_rows, 0)}, last - 1));
    }
    if (m >= n) {
      auto const [q_dot, r_dot] = thin_jvp(q, r, x_dot);
      return pack(q_dot, r_dot);
    }
    // Wide: x = [x1 x2] with x1 square is Q [R1 R2]; R2 = Qᴴ x2, so Ṙ2 = Q̇ᴴ x2 + Qᴴ ẋ2.
    auto const [q_dot, r1_dot] = thin_jvp(q, columns(r, 0, m), columns(x_dot, 0, m));
    auto const r2_dot = Array<T>(detail::batch_matmul(detail::matrix_adjoint(q_dot), columns(x, m, n)) +
                                 detail::batch_matmul(detail::matrix_adjoint(q), columns(x_dot, m, n)));
    return pack(q_dot, lax::concatenate(std::vector<Array<T>>{r1_dot, r2_dot}, last));
  }

  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const& out, Array<T> const& x) {
    auto const [q, r] = unpack(out, x);
    auto const [q_bar, r_bar] = unpack(ct, x);
    auto const m = q.shape()[q.shape().size() - 2], n = x.shape().back();
    if (p.full_matrices && m > n) {
      auto const z = completion(q, n);
      auto const q2_bar = columns(q_bar, n, m);
      auto const d_bar = Array<T>(
          -detail::batch_matmul(detail::matrix_adjoint(q2_bar), detail::conj_if_complex(completed(q, z, n))));
      auto const moved = lax::concatenate(
          std::vector<Array<T>>{Array<T>(-detail::batch_matmul(detail::matrix_transpose(z), d_bar)), d_bar}, x.ndim() - 2);
      auto const q1_bar = Array<T>(columns(q_bar, 0, n) + detail::batch_matmul(q2_bar, detail::conj_if_complex(z)) + moved);
      return thin_vjp(columns(q, 0, n), rows(r, 0, n), q1_bar, rows(r_bar, 0, n));
    }
    if (m >= n) return thin_vjp(q, r, q_bar, r_bar);
    auto const r2_bar = columns(r_bar, m, n);
    auto const q_bar_all = Array<T>(
        q_bar + detail::batch_matmul(detail::conj_if_complex(columns(x, m, n)), detail::matrix_adjoint(r2_bar)));
    return lax::concatenate(std::vector<Array<T>>{thin_vjp(q, columns(r, 0, m), q_bar_all, columns(r_bar, 0, m)),
                                                  detail::batch_matmul(detail::conj_if_complex(q), r2_bar)},
                            x.ndim() - 1);
  }

  /// Q (..., m, c) and R (..., c, n) of a packed output, for an m × n input.
  template <Element T>
  static std::pair<Array<T>, Array<T>> unpack(Array<T> const& packed, Array<T> const& x) {
    auto const m = x.shape()[x.shape().size() - 2], total = packed.shape()[packed.shape().size() - 2];
    return {rows(packed, 0, m), detail::matrix_transpose(rows(packed, m, total))};
  }

 private:
  /// Z = Qb (Qa - I)⁻¹ of the complete Q (m × m) of a tall matrix, its thin
  /// part's rows split n | m - n: Zᵀ solves (Qa - I)ᵀ Zᵀ = Qbᵀ, through
  /// P (Qa - I) = L U as (Qa - I)ᵀ = Uᵀ Lᵀ P.
  template <Element T>
  static Array<T> completion(Array<T> const& q, std::int64_t n) {
    auto const m = q.shape()[q.shape().size() - 2];
    auto const q1 = columns(q, 0, n);
    auto const a = Array<T>(rows(q1, 0, n) - detail::identity_matrix<T>(n));
    lu_p::Factors<T> const lu(detail::bind<lu_p>({}, a));
    auto const y = detail::bind<triangular_solve_p>({true, false, true, false}, lu.u,
                                                    detail::matrix_transpose(rows(q1, n, m)));
    auto const w = detail::bind<triangular_solve_p>({true, true, true, true}, lu.l, y);
    return detail::matrix_transpose(detail::batch_matmul(detail::matrix_transpose(lu.p), w));
  }
  /// Q1 + Q2 Z.
  template <Element T>
  static Array<T> completed(Array<T> const& q, Array<T> const& z, std::int64_t n) {
    auto const m = q.shape()[q.shape().size() - 2];
    return Array<T>(columns(q, 0, n) + detail::batch_matmul(columns(q, n, m), z));
  }

  /// JAX's _thin_qr_jvp (m >= n): (Q̇, Ṙ).
  template <Element T>
  static std::pair<Array<T>, Array<T>> thin_jvp(Array<T> const& q, Array<T> const& r, Array<T> const& x_dot) {
    auto const y = detail::bind<triangular_solve_p>({false, false, false, false}, r, x_dot);
    auto const m = detail::batch_matmul(detail::matrix_adjoint(q), y);
    auto const lower = detail::matrix_triangle(m, -1, true);
    auto omega = Array<T>(lower - detail::matrix_adjoint(lower));
    if constexpr (ComplexElement<T>) omega = Array<T>(omega + imaginary_diagonal(m));
    return {Array<T>(detail::batch_matmul(q, Array<T>(omega - m)) + y), detail::batch_matmul(Array<T>(m - omega), r)};
  }

  /// thin_jvp's transpose: x̄ from (Q̄, R̄).
  template <Element T>
  static Array<T> thin_vjp(Array<T> const& q, Array<T> const& r, Array<T> const& q_bar, Array<T> const& r_bar) {
    auto const a = Array<T>(detail::batch_matmul(detail::matrix_transpose(q), q_bar) -
                            detail::batch_matmul(r_bar, detail::matrix_transpose(r)));
    auto m_bar = Array<T>(detail::matrix_triangle(Array<T>(a - detail::matrix_adjoint(a)), -1, true) - a);
    if constexpr (ComplexElement<T>) m_bar = Array<T>(m_bar + imaginary_diagonal(a));
    auto const y_bar = Array<T>(q_bar + detail::batch_matmul(detail::conj_if_complex(q), m_bar));
    return detail::bind<triangular_solve_p>({false, false, true, false}, r, y_bar);
  }

  /// i Im(diag(x)) as a diagonal matrix, for a complex x (JAX's correction
  /// for complex inputs). Its own transpose.
  template <Element T>
  static Array<T> imaginary_diagonal(Array<T> const& x) {
    return Array<T>((x - detail::real_if_complex(x)) * detail::identity_matrix<T>(x.shape().back()));
  }

  /// The packed form of (Q, R) or of their tangents.
  template <Element T>
  static Array<T> pack(Array<T> const& q, Array<T> const& r) {
    return lax::concatenate(std::vector<Array<T>>{q, detail::matrix_transpose(r)}, q.ndim() - 2);
  }

  /// Rows [first, last) of each matrix of x.
  template <Element T>
  static Array<T> rows(Array<T> const& x, std::int64_t first, std::int64_t last) {
    return along(x, x.ndim() - 2, first, last);
  }
  /// Columns [first, last) of each matrix of x.
  template <Element T>
  static Array<T> columns(Array<T> const& x, std::int64_t first, std::int64_t last) {
    return along(x, x.ndim() - 1, first, last);
  }
  /// Indices [first, last) of x's dimension `dim`.
  template <Element T>
  static Array<T> along(Array<T> const& x, std::int64_t dim, std::int64_t first, std::int64_t last) {
    Axes start(static_cast<std::size_t>(x.ndim()), 0), limit(x.shape().begin(), x.shape().end());
    start[static_cast<std::size_t>(dim)] = first, limit[static_cast<std::size_t>(dim)] = last;
    return detail::bind<slice_p>({start, limit, {}}, x);
  }
};

}  // namespace jaxcc::primitives
