// cholesky: the lower factor L of L·Lᴴ = x for each (..., n, n) real or
// complex matrix, reading x's lower triangle only (lax.linalg.cholesky
// makes its input Hermitian before binding, as JAX's does); L's diagonal is
// real and positive. A matrix that is not positive definite gives NaNs in
// its lower triangle, as JAX's CPU lowering does. Each matrix is one
// Eigen::LLT.
//
// Derivatives: JAX's JVP (arXiv:1602.07527), L̇ = L Φ(L⁻¹ ṡ L⁻ᴴ) with Φ the
// lower triangle, diagonal halved; the VJP is its transpose (JAX's
// non-conjugating one), from L⁻ᵀ Φ(Lᵀ L̄) conj(L)⁻¹. Here ṡ is the tangent of
// the matrix the factorization sees, x's lower triangle mirrored (and
// conjugated; JAX takes ẋ whole: the same when lax::linalg::cholesky
// symmetrizes first, as by default). Both are
// triangular solves and products, so they differentiate and batch in turn.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include <Eigen/Cholesky>

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/hermitian.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/triangular_solve.hpp"

namespace jaxcc::primitives {

struct cholesky_p : detail::BatchesLeadingAxes<cholesky_p> {
  static constexpr std::string_view name = "cholesky";
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const&, Array<T> const& x) {
    detail::check_square_operand(name, x, "The input to cholesky must be a square matrix. Got shape ", ".");
    return x.shape();
  }

  template <Element T>
  static Array<T> impl(Params const&, Shape out_shape, Array<T> const& x) {
    auto [out, out_data] = detail::allocate<T>(out_shape);
    T* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    detail::MatrixBatch<T> const xs(x);
    auto const n = xs.rows;
    detail::for_each_matrix(xs.count(), n * n * n, [&](std::int64_t i) {
      detail::RowMatrixMap<T> l(dst + i * n * n, n, n);
      Eigen::LLT<detail::RowMatrix<T>, Eigen::Lower> const llt(xs[i]);
      if (llt.info() == Eigen::Success) l = llt.matrixL();
      else l.setZero(), l.template triangularView<Eigen::Lower>().setConstant(nan<T>());
    });
    return out;
  }

  template <Element T>
  static Array<T> jvp(Params const&, Array<T> const& l, Array<T> const&, Array<T> const& x_dot) {
    // L⁻¹ ṡ L⁻ᴴ: the right solve first, as JAX.
    auto const right = detail::bind<triangular_solve_p>({false, true, true, false}, detail::conj_if_complex(l),
                                                        detail::hermitian_from_triangle(x_dot, true));
    auto const inner = detail::bind<triangular_solve_p>({true, true, false, false}, l, right);
    return detail::batch_matmul(l, phi(inner));
  }

  template <Element T>
  static Array<T> vjp(Params const&, Array<T> const& ct, Array<T> const& l, Array<T> const&) {
    auto const p = phi(detail::batch_matmul(detail::matrix_transpose(l), ct));
    auto const left = detail::bind<triangular_solve_p>({true, true, true, false}, l, p);
    return detail::triangle_of_hermitian(
        detail::bind<triangular_solve_p>({false, true, false, false}, detail::conj_if_complex(l), left), true);
  }

 private:
  /// NaN, or NaN + NaN i as JAX's complex factor holds.
  template <Element T>
  static T nan() {
    auto const x = std::numeric_limits<real_t<T>>::quiet_NaN();
    if constexpr (ComplexElement<T>) return T(x, x);
    else return x;
  }

  /// The lower triangle with its diagonal halved.
  template <Element T>
  static Array<T> phi(Array<T> const& x) {
    auto const n = x.shape().back();
    auto [scale, data] = detail::allocate<T>(Shape{n, n});
    for (std::int64_t i = 0; i < n * n; ++i) data[i] = i % (n + 1) == 0 ? T(0.5) : T(1);
    return Array<T>(detail::matrix_triangle(x, 0, true) * scale);
  }
};

}  // namespace jaxcc::primitives
