// jax.lax.linalg: triangular_solve, cholesky, lu, eig, eigh, qr and svd
// over the last two axes of real and complex float arrays, any leading
// axes a batch. Each binds its
// primitive (primitives/triangular_solve.hpp, cholesky.hpp, lu.hpp,
// eig.hpp, eigh.hpp, qr.hpp, svd.hpp) with
// JAX's arguments and wrapping, and slices apart the outputs that a
// primitive packs into one.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <tuple>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/lax/complex.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/hermitian.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/cholesky.hpp"
#include "jaxcc/primitives/eig.hpp"
#include "jaxcc/primitives/eigh.hpp"
#include "jaxcc/primitives/lu.hpp"
#include "jaxcc/primitives/qr.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/squeeze.hpp"
#include "jaxcc/primitives/svd.hpp"
#include "jaxcc/primitives/triangular_solve.hpp"

namespace jaxcc::lax::linalg {

/// lax.linalg.triangular_solve: X with op(a) · X = b (`left_side`) or
/// X · op(a) = b, op(a) being aᵀ when `transpose_a`; a is (..., m, m) and
/// only its `lower` (else upper) triangle is read, its diagonal taken as
/// ones with `unit_diagonal`. b is (..., m, n) on the left, (..., n, m) on
/// the right, or one rank less (a batch of vectors). `conjugate_a` solves
/// with a's conjugate instead (op(a) = aᴴ with `transpose_a`); it has no
/// effect on real arrays.
template <ArrayLike A, ArrayLike B>
  requires detail::linalg_element<value_type_t<A>> && std::same_as<value_type_t<A>, value_type_t<B>>
Array<value_type_t<A>> triangular_solve(A const& a, B const& b, bool left_side = false, bool lower = false,
                                        bool transpose_a = false, bool conjugate_a = false,
                                        bool unit_diagonal = false) {
  auto x = as_array(a);
  // op(a) = aᴴ: the conjugate of a, transposed (a no-op on real arrays).
  if constexpr (ComplexElement<value_type_t<A>>)
    if (conjugate_a) x = lax::conj(x);
  auto y = as_array(b);
  bool const singleton = y.ndim() == x.ndim() - 1;
  if (singleton) y = lax::expand_dims(y, {left_side ? y.ndim() : y.ndim() - 1});
  auto out = detail::bind<primitives::triangular_solve_p>({left_side, lower, transpose_a, unit_diagonal}, x, y);
  if (singleton) out = lax::squeeze(out, {left_side ? out.ndim() - 1 : out.ndim() - 2});
  return out;
}

/// lax.linalg.cholesky: the lower factor L of L·Lᴴ = x for each (..., n, n)
/// real or complex matrix; with `symmetrize_input`, of (x + xᴴ) / 2, else of
/// x's lower triangle (read as Hermitian). A matrix that is not positive
/// definite gives NaNs.
template <ArrayLike A>
  requires detail::linalg_element<value_type_t<A>>
Array<value_type_t<A>> cholesky(A const& x, bool symmetrize_input = true) {
  using T = value_type_t<A>;
  auto a = as_array(x);
  // The shape rule's message, not the symmetrizing transpose's.
  primitives::cholesky_p::shape_rule({}, a);
  if (symmetrize_input) a = Array<T>((a + detail::matrix_adjoint(a)) / T(2));
  return detail::bind<primitives::cholesky_p>({}, a);
}

/// lax.linalg.lu: (lu, pivots, permutation) of each (..., m, n) matrix,
/// with partial pivoting: lu holds L below its diagonal (unit diagonal
/// implied) and U on and above it; pivots[i] is the row swapped with row i
/// at step i (min(m, n) of them); permutation is the rows' order, so that
/// x[permutation] = L·U. Both int32.
template <ArrayLike A>
  requires detail::linalg_element<value_type_t<A>>
std::tuple<Array<value_type_t<A>>, Array<std::int32_t>, Array<std::int32_t>> lu(A const& x) {
  auto const packed = detail::bind<primitives::lu_p>({}, as_array(x));
  auto const r = packed.ndim();
  auto const m = packed.shape()[static_cast<std::size_t>(r - 2)], n = packed.shape().back() - 2;
  auto const columns = [&](std::int64_t first, std::int64_t last, std::int64_t rows) {
    Axes start(static_cast<std::size_t>(r), 0), limit(packed.shape().begin(), packed.shape().end());
    start.back() = first;
    limit.back() = last;
    limit[static_cast<std::size_t>(r - 2)] = rows;
    return lax::slice(packed, start, limit);
  };
  auto const index_column = [&](std::int64_t column, std::int64_t rows) {
    auto const indices = lax::squeeze(columns(column, column + 1, rows), {r - 1});
    if constexpr (ComplexElement<value_type_t<A>>) return lax::real(indices).template astype<std::int32_t>();
    else return indices.template astype<std::int32_t>();
  };
  return {columns(0, n, m), index_column(n + 1, std::min(m, n)), index_column(n, m)};
}

/// lax.linalg.eigh: (v, w) of each symmetric or Hermitian (..., n, n)
/// matrix: the eigenvalues w ascending (real: float32 for complex64), the
/// eigenvectors the columns of v. With `symmetrize_input`, of (x + xᴴ) / 2,
/// else of x's `lower` (or upper) triangle.
template <ArrayLike A>
  requires detail::linalg_element<value_type_t<A>>
std::tuple<Array<value_type_t<A>>, Array<real_t<value_type_t<A>>>> eigh(A const& x, bool lower = true,
                                                                       bool symmetrize_input = true) {
  using T = value_type_t<A>;
  auto a = as_array(x);
  primitives::eigh_p::shape_rule({}, a);  // its message, not the symmetrizing transpose's
  if (symmetrize_input) a = Array<T>((a + detail::matrix_adjoint(a)) / T(2));
  auto const [v, w] = primitives::eigh_p::unpack(detail::bind<primitives::eigh_p>({lower}, a));
  return {v, detail::real_values(lax::squeeze(w, {-2}))};
}

/// lax.linalg.eig: [w, vl, vr] of each general (..., n, n) matrix, real
/// or complex, all complex: the eigenvalues w (..., n), and the left (uᴴ x
/// = λ uᴴ) and right (x v = λ v) eigenvectors as columns, each present only
/// when asked for. Each eigenvector has unit norm and its component of
/// largest modulus real and positive (LAPACK's normalization, up to that
/// sign); the eigenvalues come in the solver's order, not LAPACK's.
/// Eigenvalues-only decompositions are differentiable (distinct
/// eigenvalues); eigenvectors' derivatives raise, as JAX's do unless
/// `enable_eigvec_derivs` (which jaxcc does not implement).
template <ArrayLike A>
  requires detail::linalg_element<value_type_t<A>>
std::vector<Array<detail::complex_of_t<value_type_t<A>>>> eig(A const& x, bool compute_left_eigenvectors = true,
                                                              bool compute_right_eigenvectors = true,
                                                              bool enable_eigvec_derivs = false) {
  auto const a = as_array(x);
  auto const packed = detail::bind<primitives::eig_p>(
      {compute_left_eigenvectors, compute_right_eigenvectors, enable_eigvec_derivs}, a);
  auto const n = a.shape().back();
  std::vector<Array<detail::complex_of_t<value_type_t<A>>>> out{
      lax::squeeze(primitives::eig_p::rows(packed, 0, 1), {-2})};
  if (compute_left_eigenvectors) out.push_back(primitives::eig_p::rows(packed, 1, n));
  if (compute_right_eigenvectors)
    out.push_back(primitives::eig_p::rows(packed, 1 + (compute_left_eigenvectors ? n : 0), n));
  return out;
}

/// lax.linalg.qr: (q, r) of each real or complex (..., m, n) matrix,
/// x = q·r, q with orthonormal columns, r upper triangular: q m × m and r
/// m × n with `full_matrices`, else m × k and k × n (k = min(m, n)).
template <ArrayLike A>
  requires detail::linalg_element<value_type_t<A>>
std::tuple<Array<value_type_t<A>>, Array<value_type_t<A>>> qr(A const& x, bool full_matrices = true) {
  auto const a = as_array(x);
  auto const [q, r] = primitives::qr_p::unpack(detail::bind<primitives::qr_p>({full_matrices}, a), a);
  return {q, r};
}

/// lax.linalg.svd: (u, s, vh) of each real or complex (..., m, n) matrix,
/// x = u·diag(s)·vh, s real and descending (k = min(m, n) of them); u is
/// m × m and vh n × n with `full_matrices`, else m × k and k × n.
template <ArrayLike A>
  requires detail::linalg_element<value_type_t<A>>
std::tuple<Array<value_type_t<A>>, Array<real_t<value_type_t<A>>>, Array<value_type_t<A>>> svd(
    A const& x, bool full_matrices = true) {
  auto const a = as_array(x);
  primitives::svd_p::Factors<value_type_t<A>> const f(
      detail::bind<primitives::svd_p>({full_matrices, true}, a), a);
  return {f.u, detail::real_values(lax::squeeze(f.s, {-2})), detail::matrix_adjoint(f.v)};
}

/// lax.linalg.svd with compute_uv=False: the singular values (..., k), real and descending.
template <ArrayLike A>
  requires detail::linalg_element<value_type_t<A>>
Array<real_t<value_type_t<A>>> singular_values(A const& x) {
  return detail::real_values(detail::bind<primitives::svd_p>({false, false}, as_array(x)));
}

}  // namespace jaxcc::lax::linalg
