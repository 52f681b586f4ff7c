// eig: the eigendecomposition of each general square (..., n, n) matrix,
// real or complex, as lax.linalg.eig: complex eigenvalues w, and with
// `compute_left` / `compute_right` the left eigenvectors vl (uᴴ a = λ uᴴ)
// and the right ones vr (a v = λ v) as columns. The outputs are complex
// (complex64 for float32 input, complex128 for float64). A primitive has
// one output, so this one packs them into (..., 1 + n·left + n·right, n):
// w as a row, then vl's rows, then vr's; lax::linalg::eig slices them apart.
// Each matrix is one Eigen::EigenSolver (real input) or
// Eigen::ComplexEigenSolver (complex input); the left eigenvectors are the
// conjugated rows of vr⁻¹. The eigenvalues come in the order of the
// solver's Schur form, which is not LAPACK's in general. Each eigenvector
// is normalized as LAPACK's geev does: unit Euclidean norm, its component
// of largest modulus (the first of equals) real, here also positive. A
// matrix whose iteration does not converge gives NaNs, as JAX's.
//
// Derivatives: of the eigenvalues, JAX's rule ẇ = diag(vr⁻¹ ȧ vr) (distinct
// eigenvalues), vr from a second decomposition when it is not an output;
// the VJP is its transpose, ā = vr⁻ᵀ diag(w̄) vrᵀ (its real part for a real
// input). As in JAX, an eig that computes eigenvectors has no derivative
// unless `enable_eigvec_derivs`, and jaxcc does not implement the
// eigenvectors' derivative even then.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/complex_parts.hpp"
#include "jaxcc/primitives/lu.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/slice.hpp"
#include "jaxcc/primitives/triangular_solve.hpp"

namespace jaxcc::detail {

/// The complex type of a real or complex element type (JAX's to_complex_dtype).
template <class T>
using complex_of_t = std::complex<real_t<T>>;

/// LAPACK geev's normalization of each column: unit norm, the component of
/// largest modulus (the first of equals) made real and positive.
template <class C>
void normalize_eigenvectors(RowMatrix<C>& v) {
  using R = typename C::value_type;
  for (Eigen::Index j = 0; j < v.cols(); ++j) {
    auto column = v.col(j);
    R const norm = column.norm();
    if (norm == R(0)) continue;
    column /= norm;
    Eigen::Index k = 0;
    column.cwiseAbs().maxCoeff(&k);
    R const largest = std::abs(column(k));
    if (largest == R(0)) continue;
    column *= std::conj(column(k)) / largest;
    column(k) = C(column(k).real(), R(0));
  }
}

/// The eigenvalues and (right) eigenvectors of one square matrix; false when
/// the solver did not converge.
template <class T>
bool eigen_decompose(RowMatrix<T> const& a, bool vectors, Eigen::Matrix<complex_of_t<T>, Eigen::Dynamic, 1>& w,
                     RowMatrix<complex_of_t<T>>& v) {
  auto const run = [&](auto const& solver) {
    if (solver.info() != Eigen::Success) return false;
    w = solver.eigenvalues();
    if (vectors) v = solver.eigenvectors();
    return true;
  };
  if constexpr (ComplexElement<T>) return run(Eigen::ComplexEigenSolver<RowMatrix<T>>(a, vectors));
  else return run(Eigen::EigenSolver<RowMatrix<T>>(a, vectors));
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct eig_p {
  static constexpr std::string_view name = "eig";
  struct Params {
    bool compute_left = true, compute_right = true, enable_eigvec_derivs = false;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    detail::check_square_operand(name, x, "The input to eig must be a square matrix. Got shape ", ".");
    auto out = x.shape();
    out[out.size() - 2] = 1 + x.shape().back() * (std::int64_t{p.compute_left} + std::int64_t{p.compute_right});
    return out;
  }
  static std::string params_string(Params const& p) {
    auto const py = [](bool v) { return v ? "True" : "False"; };
    return std::string("compute_left_eigenvectors=") + py(p.compute_left) + " compute_right_eigenvectors=" +
           py(p.compute_right) + " enable_eigvec_derivs=" + py(p.enable_eigvec_derivs) + " implementation=None";
  }

  template <Element T>
    requires detail::linalg_element<T>
  static Array<detail::complex_of_t<T>> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    using C = detail::complex_of_t<T>;
    auto [out, out_data] = detail::allocate<C>(out_shape);
    C* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    detail::MatrixBatch<T> const xs(x);
    auto const n = xs.cols, rows = out_shape[out_shape.size() - 2];
    if (n == 0) return out;  // nothing to solve (Eigen's solvers refuse an empty matrix)
    detail::for_each_matrix(xs.count(), 10 * n * n * n, [&](std::int64_t i) {
      detail::RowMatrixMap<C> packed(dst + i * rows * n, rows, n);
      Eigen::Matrix<C, Eigen::Dynamic, 1> w;
      detail::RowMatrix<C> v;
      if (!detail::eigen_decompose<T>(detail::RowMatrix<T>(xs[i]), p.compute_left || p.compute_right, w, v)) {
        auto const nan = std::numeric_limits<real_t<T>>::quiet_NaN();
        packed.setConstant(C(nan, nan));
        return;
      }
      packed.row(0) = w.transpose();
      if (p.compute_left) {
        detail::RowMatrix<C> vl = v.partialPivLu().inverse().adjoint();
        detail::normalize_eigenvectors(vl);
        packed.middleRows(1, n) = vl;
      }
      if (p.compute_right) {
        detail::normalize_eigenvectors(v);
        packed.bottomRows(n) = v;
      }
    });
    return out;
  }

  template <Element T>
  static Array<detail::complex_of_t<T>> jvp(Params const& p, Array<detail::complex_of_t<T>> const&, Array<T> const& x,
                                            Array<T> const& x_dot) {
    using C = detail::complex_of_t<T>;
    check_differentiable(p);
    auto const v = right_vectors(p, x);
    // ẇ_i = (vr⁻¹ ȧ vr)_ii = Σ_j (vr⁻¹ ȧ)_ij vr_ji, as JAX computes it.
    auto const r = v.ndim();
    auto const terms = Array<C>(solve(v, as_complex(x_dot), false) * detail::matrix_transpose(v));
    auto w_shape = v.shape();
    w_shape[static_cast<std::size_t>(r - 2)] = 1;
    return lax::reshape(detail::bind<reduce_sum_p>({{r - 1}}, terms), w_shape);
  }

  template <Element T>
  static Array<T> vjp(Params const& p, Array<detail::complex_of_t<T>> const& ct, Array<detail::complex_of_t<T>> const&,
                      Array<T> const& x) {
    using C = detail::complex_of_t<T>;
    check_differentiable(p);
    auto const v = right_vectors(p, x);
    // vr⁻ᵀ (diag(w̄) vrᵀ): w̄ as a column scales vrᵀ's rows.
    auto const scaled = Array<C>(detail::matrix_transpose(ct) * detail::matrix_transpose(v));
    auto const x_bar = solve(v, scaled, true);
    if constexpr (ComplexElement<T>) return x_bar;
    else return detail::real_part(AnyArray(x_bar)).template as<T>();  // the transpose of T → complex
  }

  /// The mapped axis moves first (the leading axes are a batch already).
  template <Element T>
  static std::pair<Array<detail::complex_of_t<T>>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                                          std::span<graph::BatchDim const> dims,
                                                                          Array<T> const& x) {
    return {detail::bind<eig_p>(p, detail::move_axis(x, *dims[0], 0)), 0};
  }
  /// Sharded jit: the batch of matrices stays split as it is; each matrix is gathered whole.
  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& x) {
    auto want = layouts[0];
    auto const batch = want.dims.size() - 2;
    want.dims[batch].clear();
    want.dims[batch + 1].clear();
    auto const out = detail::bind<eig_p>(p, reshard(AnyArray(x), layouts[0], want).template as<T>());
    return graph::Partitioned{AnyArray(out), want};
  }

  /// Rows [first, first + count) of a packed output (w is row 0).
  template <Element C>
  static Array<C> rows(Array<C> const& packed, std::int64_t first, std::int64_t count) {
    auto const r = static_cast<std::size_t>(packed.ndim());
    Axes start(r, 0), limit(packed.shape().begin(), packed.shape().end());
    start[r - 2] = first, limit[r - 2] = first + count;
    return detail::bind<slice_p>({start, limit, {}}, packed);
  }

 private:
  static void check_differentiable(Params const& p) {
    if (!(p.compute_left || p.compute_right)) return;
    if (!p.enable_eigvec_derivs)
      throw Error(
          "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the input that JAX cannot "
          "check (see the enable_eigvec_derivs argument to lax::linalg::eig). Pass enable_eigvec_derivs=true to "
          "lax::linalg::eig to opt in. See https://github.com/jax-ml/jax/issues/2748 for discussion.");
    throw Error("lax::linalg::eig: derivatives of the eigenvectors (enable_eigvec_derivs) are not implemented in jaxcc; "
                "compute the eigenvalues only (compute_left_eigenvectors=false, compute_right_eigenvectors=false) to "
                "differentiate them");
  }

  /// vr, from a decomposition that computes it.
  template <Element T>
  static Array<detail::complex_of_t<T>> right_vectors(Params const& p, Array<T> const& x) {
    auto const packed = detail::bind<eig_p>({false, true, p.enable_eigvec_derivs}, x);
    return rows(packed, 1, x.shape().back());
  }

  template <Element T>
  static Array<detail::complex_of_t<T>> as_complex(Array<T> const& x) {
    if constexpr (ComplexElement<T>) return x;
    else return x.template astype<detail::complex_of_t<T>>();
  }

  /// v⁻¹ y, or with `transposed` v⁻ᵀ y, through P v = L U.
  template <Element C>
  static Array<C> solve(Array<C> const& v, Array<C> const& y, bool transposed) {
    lu_p::Factors<C> const f(detail::bind<lu_p>({}, v));
    if (!transposed) {
      auto const z = detail::bind<triangular_solve_p>({true, true, false, true}, f.l, detail::batch_matmul(f.p, y));
      return detail::bind<triangular_solve_p>({true, false, false, false}, f.u, z);
    }
    // vᵀ = Uᵀ Lᵀ P.
    auto const z = detail::bind<triangular_solve_p>({true, false, true, false}, f.u, y);
    auto const u = detail::bind<triangular_solve_p>({true, true, true, true}, f.l, z);
    return detail::batch_matmul(detail::matrix_transpose(f.p), u);
  }
};

}  // namespace jaxcc::primitives
