// svd: the singular value decomposition x = U·diag(s)·Vᴴ of each real or
// complex (..., m, n) matrix, s descending (k = min(m, n) of them). Without
// `compute_uv` the output is s, (..., k). With it, a primitive having one
// output, this one packs lax.linalg.svd's three into (..., m + n + 1, c),
// c = max(m, n) with `full_matrices` (U m × m, V n × n) else k (U m × k,
// V n × k): U's rows, then V's (each zero-padded to c columns), then s as
// one more row; lax::linalg::svd slices them apart. The singular values are
// stored in x's type (complex with zero imaginary parts for a complex x);
// lax::linalg::svd takes their real parts. Each matrix is one
// Eigen::BDCSVD (each singular vector pair's sign or phase is the solver's).
//
// Derivatives: JAX's _svd_jvp_rule (none for full_matrices of a non-square
// matrix, as JAX), with dS = Uᴴ ȧ V, F_ij = 1 / (s_j² - s_i²) (0 where
// s_i = s_j): ṡ = Re diag(dS), U̇ = U (F ∘ (dS D + D dSᴴ) + E) [+ (I - UUᴴ)
// ȧ V D⁻¹ when m > n], V̇ = V (F ∘ (D dS + dSᴴ D)) [+ (I - VVᴴ) ȧᴴ U D⁻¹
// when n > m], D = diag(s), E = diag(dS - dSᴴ) D⁻¹ / 2 (zero for real x).
// The VJP is its transpose (JAX's non-conjugating one): with G = F ∘ UᵀŪ,
// H = F ∘ VᵀV̄, ā = conj(U) (diag(Re s̄) + (G + Gᴴ) D + D (H + Hᴴ) +
// diag(Ē - Ēᴴ) / 2) Vᵀ, Ē = UᵀŪ D⁻¹, plus the two projections' transposes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <Eigen/SVD>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/hermitian.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/pad.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/slice.hpp"

namespace jaxcc::primitives {

struct svd_p : detail::BatchesLeadingAxes<svd_p> {
  static constexpr std::string_view name = "svd";
  struct Params {
    bool full_matrices = true, compute_uv = true;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    detail::check_linalg_operands<T, 1>(name, {2}, {&x});
    auto out = x.shape();
    auto const m = out[out.size() - 2], n = out.back(), k = std::min(m, n);
    out.pop_back();
    if (!p.compute_uv) {
      out.back() = k;
    } else {
      out.back() = m + n + 1;
      out.push_back(p.full_matrices ? std::max(m, n) : k);
    }
    return out;
  }
  static std::string params_string(Params const& p) {
    auto const py = [](bool v) { return v ? "True" : "False"; };
    return std::string("compute_uv=") + py(p.compute_uv) + " full_matrices=" + py(p.full_matrices);
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    auto [out, out_data] = detail::allocate<T>(out_shape);
    T* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    detail::MatrixBatch<T> const xs(x);
    auto const m = xs.rows, n = xs.cols, k = std::min(m, n);
    auto const rows = p.compute_uv ? m + n + 1 : 1, cols = p.compute_uv ? (p.full_matrices ? std::max(m, n) : k) : k;
    unsigned const options = !p.compute_uv     ? 0
                             : p.full_matrices ? Eigen::ComputeFullU | Eigen::ComputeFullV
                                               : Eigen::ComputeThinU | Eigen::ComputeThinV;
    detail::for_each_matrix(xs.count(), 8 * m * n * k, [&](std::int64_t i) {
      using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
      detail::RowMatrixMap<T> packed(dst + i * rows * cols, rows, cols);
      packed.setZero();
      if (k == 0) {  // no singular values; full U and V are identities, as JAX's empty SVD gives
        if (p.compute_uv && p.full_matrices) {
          packed.block(0, 0, m, m).setIdentity();
          packed.block(m, 0, n, n).setIdentity();
        }
        return;
      }
      Eigen::BDCSVD<Matrix> const svd(Matrix(xs[i]), options);
      packed.row(rows - 1).head(k) = svd.singularValues().transpose().template cast<T>();
      if (!p.compute_uv) return;
      packed.block(0, 0, m, svd.matrixU().cols()) = svd.matrixU();
      packed.block(m, 0, n, svd.matrixV().cols()) = svd.matrixV();
    });
    return out;
  }

  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const& out, Array<T> const& x, Array<T> const& x_dot) {
    reject_full_matrices(p, x);
    auto const f = p.compute_uv ? Factors<T>(out, x) : Factors<T>(detail::bind<svd_p>({false, true}, x), x);
    auto const ds = detail::batch_matmul(detail::batch_matmul(detail::matrix_adjoint(f.u), x_dot), f.v);
    auto const r = x.ndim();
    auto const k = f.s.shape().back();
    auto const s_dot = detail::real_if_complex(
        detail::bind<reduce_sum_p>({{r - 2}}, Array<T>(ds * detail::identity_matrix<T>(k))));
    if (!p.compute_uv) return s_dot;
    auto const s_col = detail::matrix_transpose(f.s);
    auto const gaps = f.gaps();
    auto const ds_h = detail::matrix_adjoint(ds);
    auto u_inner = Array<T>(gaps * (ds * f.s + s_col * ds_h));
    if constexpr (ComplexElement<T>)  // the phases' part: (dS - dSᴴ) / 2 on the diagonal, over s
      u_inner = Array<T>(u_inner + Array<T>(ds - ds_h) * f.inverse_diagonal(T(0.5)));
    auto u_dot = detail::batch_matmul(f.u, u_inner);
    auto v_dot = detail::batch_matmul(f.v, Array<T>(gaps * (s_col * ds + ds_h * f.s)));
    if (f.m > f.n) {
      auto const x_v = detail::batch_matmul(x_dot, f.v);
      u_dot = Array<T>(u_dot + (x_v - detail::batch_matmul(f.u, detail::batch_matmul(detail::matrix_adjoint(f.u), x_v))) / f.s);
    }
    if (f.n > f.m) {
      auto const xh_u = detail::batch_matmul(detail::matrix_adjoint(x_dot), f.u);
      v_dot = Array<T>(v_dot + (xh_u - detail::batch_matmul(f.v, detail::batch_matmul(detail::matrix_adjoint(f.v), xh_u))) / f.s);
    }
    auto const s_row = lax::reshape(s_dot, f.s.shape());
    return lax::concatenate(std::vector<Array<T>>{u_dot, v_dot, s_row}, r - 2);
  }

  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const& out, Array<T> const& x) {
    reject_full_matrices(p, x);
    if (!p.compute_uv) {
      Factors<T> const f(detail::bind<svd_p>({false, true}, x), x);
      auto const s_bar = detail::real_if_complex(lax::reshape(ct, f.s.shape()));
      return detail::batch_matmul(Array<T>(detail::conj_if_complex(f.u) * s_bar), detail::matrix_transpose(f.v));
    }
    Factors<T> const f(out, x), bar(ct, x);
    auto const k = f.s.shape().back();
    auto const s_col = detail::matrix_transpose(f.s);
    auto const gaps = f.gaps();
    auto const ut_u_bar = detail::batch_matmul(detail::matrix_transpose(f.u), bar.u);
    auto const g = Array<T>(gaps * ut_u_bar);
    auto const h = Array<T>(gaps * detail::batch_matmul(detail::matrix_transpose(f.v), bar.v));
    auto inner = Array<T>(detail::real_if_complex(bar.s) * detail::identity_matrix<T>(k) +
                          (g + detail::matrix_adjoint(g)) * f.s + s_col * (h + detail::matrix_adjoint(h)));
    if constexpr (ComplexElement<T>) {
      auto const e = Array<T>(ut_u_bar * f.inverse_diagonal(T(0.5)));
      inner = Array<T>(inner + e - detail::matrix_adjoint(e));
    }
    // Ā = conj(U)·inner·Vᵀ, plus the projections' transposes: (Ū - conj(U) UᵀŪ) D⁻¹ Vᵀ and
    // conj(U) ((V̄ - conj(V) VᵀV̄) D⁻¹)ᴴ.
    auto const u_c = detail::conj_if_complex(f.u);
    auto left = detail::batch_matmul(u_c, inner);
    if (f.m > f.n)
      left = Array<T>(left + (bar.u - detail::batch_matmul(u_c, ut_u_bar)) / f.s);
    auto x_bar = detail::batch_matmul(left, detail::matrix_transpose(f.v));
    if (f.n > f.m) {
      auto const vt_v_bar = detail::batch_matmul(detail::matrix_transpose(f.v), bar.v);
      auto const projected = Array<T>((bar.v - detail::batch_matmul(detail::conj_if_complex(f.v), vt_v_bar)) / f.s);
      x_bar = Array<T>(x_bar + detail::batch_matmul(u_c, detail::matrix_adjoint(projected)));
    }
    return x_bar;
  }

  /// U (..., m, cu), s as a row (..., 1, k) and V (..., n, cv) of a packed
  /// output, for an m × n input.
  template <Element T>
  struct Factors {
    Array<T> u, s, v;
    std::int64_t m, n;
    Factors(Array<T> const& packed, Array<T> const& x)
        : m(x.shape()[x.shape().size() - 2]), n(x.shape().back()) {
      auto const r = static_cast<std::size_t>(packed.ndim());
      auto const c = packed.shape().back(), k = std::min(m, n);
      bool const full = c > k;  // a square input's full and thin factors agree
      auto const part = [&](std::int64_t row, std::int64_t rows, std::int64_t cols) {
        Axes start(r, 0), limit(packed.shape().begin(), packed.shape().end());
        start[r - 2] = row, limit[r - 2] = row + rows, limit[r - 1] = cols;
        return detail::bind<slice_p>({start, limit, {}}, packed);
      };
      u = part(0, m, full ? m : k);
      v = part(m, n, full ? n : k);
      s = part(m + n, 1, k);
    }
    /// `scale` / s_i on the diagonal (0 where s_i = 0), 0 off it.
    Array<T> inverse_diagonal(T scale) const {
      auto const zeros = Array<T>(fusion::cast<T>(s == T(0)));
      return Array<T>((T(1) / (s + zeros) - zeros) * (detail::identity_matrix<T>(s.shape().back()) * scale));
    }
    /// F: 1 / (s_j² - s_i²), 0 where s_i = s_j (the diagonal among them).
    Array<T> gaps() const {
      auto const s_col = detail::matrix_transpose(s);
      auto const diffs = Array<T>((s + s_col) * (s - s_col));
      auto const zeros = Array<T>(fusion::cast<T>(diffs == T(0)));
      return Array<T>(T(1) / (diffs + zeros) - zeros);
    }
  };

  /// Full matrices of a square input are the thin ones.
  template <Element T>
  static void reject_full_matrices(Params const& p, Array<T> const& x) {
    if (p.compute_uv && p.full_matrices && x.shape()[x.shape().size() - 2] != x.shape().back())
      throw Error("Singular value decomposition JVP not implemented for full matrices");
  }
};

}  // namespace jaxcc::primitives
