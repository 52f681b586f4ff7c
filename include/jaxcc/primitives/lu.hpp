// lu: the LU decomposition with partial pivoting of each (..., m, n)
// matrix, as LAPACK's getrf (and so lax.linalg.lu) computes it: at step k
// the row of the largest magnitude in column k (the first of equals) is
// swapped up. A primitive has one output, so this one packs
// lax.linalg.lu's three into (..., m, n + 2): the factors (L below the
// diagonal, unit diagonal implied, U on and above it), then the row
// permutation, then the swap made at each step (`pivots`, min(m, n) of
// them, zero below), both as exact small integers of the element type.
// lax::linalg::lu (lax/linalg.hpp) slices them apart.
//
// Derivatives: JAX's _lu_jvp_inner, with X = L⁻¹ P ȧ U⁻¹ (L and U padded
// to square), the factors' tangent L·tril(X, -1) + triu(X)·U; the VJP is its
// transpose, X̄ = tril(Lᵀ C, -1) + triu(C Uᵀ), ā = Pᵀ L⁻ᵀ X̄ U⁻ᵀ. The
// permutation and pivots carry no tangent.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>

#include <Eigen/Core>

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/pad.hpp"
#include "jaxcc/primitives/slice.hpp"
#include "jaxcc/primitives/triangular_solve.hpp"

namespace jaxcc::primitives {

struct lu_p : detail::BatchesLeadingAxes<lu_p> {
  static constexpr std::string_view name = "lu";
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const&, Array<T> const& x) {
    detail::check_linalg_operands<T, 1>(name, {2}, {&x});
    auto out = x.shape();
    out.back() += 2;
    return out;
  }

  template <Element T>
  static Array<T> impl(Params const&, Shape out_shape, Array<T> const& x) {
    auto [out, out_data] = detail::allocate<T>(out_shape);
    T* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    detail::MatrixBatch<T> const xs(x);
    auto const m = xs.rows, n = xs.cols, steps = std::min(m, n);
    detail::for_each_matrix(xs.count(), m * n * steps, [&](std::int64_t i) {
      detail::RowMatrix<T> a = xs[i];
      detail::RowMatrixMap<T> packed(dst + i * m * (n + 2), m, n + 2);
      packed.col(n + 1).setZero();
      for (std::int64_t r = 0; r < m; ++r) packed(r, n) = static_cast<T>(r);
      for (std::int64_t k = 0; k < steps; ++k) {
        Eigen::Index p = 0;
        // LAPACK's i?amax: |x| for reals, |re| + |im| for complex numbers.
        if constexpr (ComplexElement<T>)
          (a.col(k).tail(m - k).real().cwiseAbs() + a.col(k).tail(m - k).imag().cwiseAbs()).maxCoeff(&p);
        else a.col(k).tail(m - k).cwiseAbs().maxCoeff(&p);
        p += k;
        packed(k, n + 1) = static_cast<T>(p);
        if (p != k) {
          a.row(k).swap(a.row(p));
          std::swap(packed(k, n), packed(p, n));
        }
        if (a(k, k) != T(0)) a.col(k).tail(m - k - 1) /= a(k, k);
        a.bottomRightCorner(m - k - 1, n - k - 1).noalias() -= a.col(k).tail(m - k - 1) * a.row(k).tail(n - k - 1);
      }
      packed.leftCols(n) = a;
    });
    return out;
  }

  template <Element T>
  static Array<T> jvp(Params const&, Array<T> const& packed, Array<T> const&, Array<T> const& x_dot) {
    Factors<T> const f(packed);
    auto const la = detail::bind<triangular_solve_p>({true, true, false, true}, f.l, detail::batch_matmul(f.p, x_dot));
    auto const lau = detail::bind<triangular_solve_p>({false, false, false, false}, f.u, la);
    auto const lu_dot = Array<T>(detail::batch_matmul(f.l, detail::matrix_triangle(lau, -1, true)) +
                                 detail::batch_matmul(detail::matrix_triangle(lau, 0, false), f.u));
    return lax::pad(lu_dot, T(0), last_axis_padding(lu_dot.ndim(), 0, 2));
  }

  template <Element T>
  static Array<T> vjp(Params const&, Array<T> const& ct, Array<T> const& packed, Array<T> const&) {
    Factors<T> const f(packed);
    auto const c = lax::pad(ct, T(0), last_axis_padding(ct.ndim(), 0, -2));
    auto const x_bar = Array<T>(detail::matrix_triangle(detail::batch_matmul(detail::matrix_transpose(f.l), c), -1, true) +
                                detail::matrix_triangle(detail::batch_matmul(c, detail::matrix_transpose(f.u)), 0, false));
    auto const la_bar = detail::bind<triangular_solve_p>({false, false, true, false}, f.u, x_bar);
    auto const pa_bar = detail::bind<triangular_solve_p>({true, true, true, true}, f.l, la_bar);
    return detail::batch_matmul(detail::matrix_transpose(f.p), pa_bar);
  }

  /// The packed output read for the derivatives (and by qr's, which
  /// solves with it): L (m × m, unit lower), U (n × n, upper; the identity
  /// continues it past row min(m, n)) and the permutation as a matrix P (P x
  /// permutes x's rows), so that P a = L U.
  template <Element T>
  struct Factors {
    Array<T> l, u, p;
    explicit Factors(Array<T> const& packed) {
      auto const r = packed.ndim();
      auto const m = packed.shape()[static_cast<std::size_t>(r - 2)], n = packed.shape().back() - 2;
      auto const k = std::min(m, n);
      auto const factors = lax::pad(packed, T(0), last_axis_padding(r, 0, -2));
      // L: the first k columns below the diagonal, widened to m; U: the first k rows, deepened to n.
      auto const l_part = lax::pad(detail::matrix_triangle(factors, -1, true), T(0), last_axis_padding(r, 0, m - n));
      l = Array<T>(l_part + detail::identity_matrix<T>(m));
      auto widths = last_axis_padding(r, 0, 0);
      widths[static_cast<std::size_t>(r - 2)] = {0, n - m, 0};
      u = Array<T>(lax::pad(detail::matrix_triangle(factors, 0, false), T(0), widths) + detail::identity_matrix<T>(n, k));
      auto const permutation = lax::pad(packed, T(0), last_axis_padding(r, -n, -1));  // (..., m, 1)
      p = detail::permutation_matrix<T>(permutation);
    }
  };

 private:
  /// Padding (or, negative, cropping) of the last axis only, for lax::pad.
  static pad_p::PaddingConfig last_axis_padding(std::int64_t rank, std::int64_t lo, std::int64_t hi) {
    pad_p::PaddingConfig config(static_cast<std::size_t>(rank), {0, 0, 0});
    config.back() = {lo, hi, 0};
    return config;
  }
};

}  // namespace jaxcc::primitives
