// eigh: the eigendecomposition of each symmetric (real) or Hermitian
// (complex) (..., n, n) matrix, reading its `lower` (else upper) triangle:
// eigenvalues w ascending, eigenvectors as the columns of a unitary V (each
// one's sign or phase is the solver's). A primitive has one output, so this
// one packs lax.linalg.eigh's two into (..., n + 1, n): V's rows, then w as
// one more row (real numbers stored in V's type, so complex ones with zero
// imaginary parts for a complex input); lax::linalg::eigh slices them apart.
// Each matrix is one Eigen::SelfAdjointEigenSolver.
//
// Derivatives: JAX's eigh JVP (distinct eigenvalues), with F_ij =
// 1 / (w_j - w_i) off the diagonal and 0 on it: V̇ = V (F ∘ Vᴴ ṡ V), ẇ =
// diag(Vᴴ ṡ V); the VJP is its transpose (JAX's non-conjugating one), from
// conj(V) (diag(w̄) + F ∘ Vᵀ V̄) Vᵀ. Here ṡ is the tangent of the matrix the
// solver sees, the read triangle mirrored (and conjugated; JAX takes ȧ
// whole, and the eigenvectors of (a + aᴴ) / 2: the same when
// lax::linalg::eigh symmetrizes its input first, as by default, but not
// the derivative of what it computes when it does not).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <Eigen/Eigenvalues>

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/hermitian.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/slice.hpp"

namespace jaxcc::primitives {

struct eigh_p : detail::BatchesLeadingAxes<eigh_p> {
  static constexpr std::string_view name = "eigh";
  struct Params {
    bool lower = true;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const&, Array<T> const& x) {
    detail::check_square_operand(name, x, "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape ", "");
    auto out = x.shape();
    ++out[out.size() - 2];
    return out;
  }
  static std::string params_string(Params const& p) { return std::string("lower=") + (p.lower ? "True" : "False"); }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    auto [out, out_data] = detail::allocate<T>(out_shape);
    T* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    detail::MatrixBatch<T> const xs(x);
    auto const n = xs.cols;
    if (n == 0) return out;  // nothing to solve (Eigen's solver refuses an empty matrix)
    detail::for_each_matrix(xs.count(), 4 * n * n * n, [&](std::int64_t i) {
      detail::RowMatrixMap<T> packed(dst + i * (n + 1) * n, n + 1, n);
      // The solver reads the lower triangle: the upper one is the adjoint's.
      Eigen::SelfAdjointEigenSolver<detail::RowMatrix<T>> const solver(
          p.lower ? detail::RowMatrix<T>(xs[i]) : detail::RowMatrix<T>(xs[i].adjoint()));
      packed.topRows(n) = solver.eigenvectors();
      packed.row(n) = solver.eigenvalues().transpose().template cast<T>();
    });
    return out;
  }

  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const& packed, Array<T> const&, Array<T> const& x_dot) {
    auto const [v, w] = unpack(packed);
    auto const sym_dot = detail::hermitian_from_triangle(x_dot, p.lower);
    auto const vt_x_v = detail::batch_matmul(detail::batch_matmul(detail::matrix_adjoint(v), sym_dot), v);
    auto const v_dot = detail::batch_matmul(v, Array<T>(gaps(w) * vt_x_v));
    // diag(Vᴴ ṡ V), as a row: the diagonal masked out and summed down its columns.
    auto const r = v.ndim();
    auto w_shape = w.shape();
    auto const w_dot = lax::reshape(detail::bind<reduce_sum_p>({{r - 2}}, Array<T>(vt_x_v * detail::identity_matrix<T>(w_shape.back()))), w_shape);
    return lax::concatenate(std::vector<Array<T>>{v_dot, w_dot}, r - 2);
  }

  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const& packed, Array<T> const&) {
    auto const [v, w] = unpack(packed);
    auto const [v_bar, w_bar] = unpack(ct);
    auto const n = v.shape().back();
    auto const inner = Array<T>(gaps(w) * detail::batch_matmul(detail::matrix_transpose(v), v_bar) +
                                w_bar * detail::identity_matrix<T>(n));
    return detail::triangle_of_hermitian(
        detail::batch_matmul(detail::batch_matmul(detail::conj_if_complex(v), inner), detail::matrix_transpose(v)), p.lower);
  }

  /// V (..., n, n) and w as a row (..., 1, n) of a packed output.
  template <Element T>
  static std::pair<Array<T>, Array<T>> unpack(Array<T> const& packed) {
    auto const r = static_cast<std::size_t>(packed.ndim());
    auto const n = packed.shape().back();
    Axes start(r, 0), limit(packed.shape().begin(), packed.shape().end());
    limit[r - 2] = n;
    auto const v = detail::bind<slice_p>({start, limit, {}}, packed);
    start[r - 2] = n, limit[r - 2] = n + 1;
    return {v, detail::bind<slice_p>({start, limit, {}}, packed)};
  }

 private:
  /// F: 1 / (w_j - w_i) off the diagonal, 0 on it, from w as a row.
  template <Element T>
  static Array<T> gaps(Array<T> const& w_row) {
    auto const eye = detail::identity_matrix<T>(w_row.shape().back());
    return Array<T>(T(1) / (eye + w_row - detail::matrix_transpose(w_row)) - eye);
  }
};

}  // namespace jaxcc::primitives
