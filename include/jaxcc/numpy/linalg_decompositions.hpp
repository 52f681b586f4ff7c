// jnp.linalg's matrix decompositions over the last two axes, any leading
// axes a batch: cholesky, eigh, qr, svd and svdvals, and pinv, matrix_rank
// and lstsq (from the SVD, as JAX's). Each calls its lax.linalg function
// (lax/linalg.hpp) as JAX's does, after promoting integers to float. Each
// takes complex matrices too, with JAX's dtypes: eigenvalues, singular
// values, norms and residuals are real (float32 for complex64).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <tuple>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/lax/linalg.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/linalg.hpp"
#include "jaxcc/numpy/norm.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/bits/hermitian.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"

namespace jaxcc::numpy::linalg {

/// jnp.linalg.cholesky: the lower factor L of L·Lᴴ = a for each matrix of
/// a (..., n, n) stack, or with `upper` its conjugate transpose U
/// (Uᴴ·U = a); with `symmetrize_input`, of (a + aᴴ) / 2, else of a's lower
/// triangle. A matrix that is not positive definite gives NaNs in the
/// factor's triangle.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> cholesky(A const& a, bool upper = false, bool symmetrize_input = true) {
  auto const l = lax::linalg::cholesky(detail::array_as<float_t<value_type_t<A>>>(a), symmetrize_input);
  return upper ? detail::matrix_adjoint(l) : l;
}

/// jnp.linalg.eigh: (w, v) of each symmetric or Hermitian (..., n, n)
/// matrix: the eigenvalues w real and ascending, the eigenvectors the
/// columns of v (each one's sign, or phase, is arbitrary). With
/// `symmetrize_input`, of (a + aᴴ) / 2, else of the triangle `UPLO` names:
/// "L" (the default) or "U".
template <ArrayLike A>
std::tuple<Array<real_t<float_t<value_type_t<A>>>>, Array<float_t<value_type_t<A>>>> eigh(
    A const& a, std::string_view UPLO = "L", bool symmetrize_input = true) {
  if (UPLO != "L" && UPLO != "U")
    detail::throw_error("UPLO must be one of None, 'L', or 'U', got ", UPLO);
  auto const [v, w] = lax::linalg::eigh(detail::array_as<float_t<value_type_t<A>>>(a), UPLO == "L", symmetrize_input);
  return {w, v};
}

/// jnp.linalg.eigvalsh: the eigenvalues w of eigh, real and ascending.
template <ArrayLike A>
Array<real_t<float_t<value_type_t<A>>>> eigvalsh(A const& a, std::string_view UPLO = "L", bool symmetrize_input = true) {
  return std::get<0>(eigh(a, UPLO, symmetrize_input));
}

/// jnp.linalg.qr: (q, r) of each (..., m, n) matrix, a = q·r: `mode`
/// "reduced" (the default) gives q m × k and r k × n (k = min(m, n)),
/// "complete" q m × m and r m × n.
template <ArrayLike A>
std::tuple<Array<float_t<value_type_t<A>>>, Array<float_t<value_type_t<A>>>> qr(A const& a,
                                                                                std::string_view mode = "reduced") {
  if (mode != "reduced" && mode != "complete")
    detail::throw_error("Unsupported QR decomposition mode '", mode, "'");
  return lax::linalg::qr(detail::array_as<float_t<value_type_t<A>>>(a), mode == "complete");
}

/// jnp.linalg.svd: (u, s, vh) of each (..., m, n) matrix, a = u·diag(s)·vh,
/// s real and descending; u m × m and vh n × n with `full_matrices` (the
/// default), else m × k and k × n (k = min(m, n)). Each singular vector
/// pair's sign (or phase) is arbitrary. (compute_uv=False is svdvals.)
template <ArrayLike A>
std::tuple<Array<float_t<value_type_t<A>>>, Array<real_t<float_t<value_type_t<A>>>>, Array<float_t<value_type_t<A>>>>
svd(A const& a, bool full_matrices = true) {
  return lax::linalg::svd(detail::array_as<float_t<value_type_t<A>>>(a), full_matrices);
}

/// jnp.linalg.svdvals: the singular values of each (..., m, n) matrix, real and descending.
template <ArrayLike A>
Array<real_t<float_t<value_type_t<A>>>> svdvals(A const& a) {
  return lax::linalg::singular_values(detail::array_as<float_t<value_type_t<A>>>(a));
}

/// jnp.linalg.pinv: the Moore-Penrose pseudo-inverse (..., n, m) of each
/// (..., m, n) matrix, from its SVD: singular values at most `rtol` times
/// the largest count as zero. rtol defaults to 10·max(m, n)·eps, as JAX's.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> pinv(A const& a_in, std::optional<double> rtol = std::nullopt) {
  using T = float_t<value_type_t<A>>;
  using R = real_t<T>;
  auto const a = detail::array_as<T>(a_in);
  auto const& shape = a.shape();
  if (a.ndim() < 2) detail::throw_error("jnp.linalg.pinv: a must have at least 2 dimensions, got shape ", shape);
  auto const m = shape[shape.size() - 2], n = shape.back();
  if (m == 0 || n == 0) {
    Shape out(shape.begin(), shape.end() - 2);
    out.push_back(n);
    out.push_back(m);
    return zeros<T>(out);
  }
  auto const tol = rtol.value_or(10.0 * static_cast<double>(std::max(m, n)) * std::numeric_limits<R>::epsilon());
  auto const [u, s, vh] = lax::linalg::svd(a, false);
  Axes start(static_cast<std::size_t>(s.ndim()), 0), limit(s.shape().begin(), s.shape().end());
  limit.back() = 1;  // the largest singular value, first
  auto const cutoff = Array<R>(static_cast<R>(tol) * lax::slice(s, start, limit));
  auto const kept = Array<R>(where(s > cutoff, s, std::numeric_limits<R>::infinity()));
  if constexpr (ComplexElement<T>) {  // vh^H (u^H / s): 1 / s as a real factor (no complex division by inf)
    auto const inverse = Array<R>(R(1) / expand_dims(kept, -1)).template astype<T>();
    return matmul(detail::matrix_adjoint(vh), Array<T>(detail::matrix_adjoint(u) * inverse));
  } else {
    return matmul(detail::matrix_transpose(vh), Array<T>(detail::matrix_transpose(u) / expand_dims(kept, -1)));
  }
}

/// jnp.linalg.matrix_rank: the rank (int32) of each (..., m, n) matrix, the
/// number of its singular values above a tolerance: by default the largest
/// singular value times max(m, n)·eps. A given `rtol` is, as in JAX's code,
/// the tolerance itself (not scaled by the largest singular value, unlike
/// numpy's). An input of fewer than two dimensions has rank 1 if any of its
/// elements is non-zero, else 0.
template <ArrayLike A>
Array<std::int32_t> matrix_rank(A const& a_in, std::optional<double> rtol = std::nullopt) {
  using T = float_t<value_type_t<A>>;
  using R = real_t<T>;
  auto const a = detail::array_as<T>(a_in);
  if (a.ndim() < 2) return any(a != T(0)).template astype<std::int32_t>();
  auto const& shape = a.shape();
  auto const m = shape[shape.size() - 2], n = shape.back();
  auto const s = lax::linalg::singular_values(a);
  if (rtol) return sum(s > static_cast<R>(*rtol), -1);
  auto const size = static_cast<R>(std::max(m, n));
  auto const tol = Array<R>(max(s, -1) * size * std::numeric_limits<R>::epsilon());
  return sum(s > expand_dims(tol, -1), -1);
}

/// jnp.linalg.lstsq: (x, resid, rank, s) for an (m, n) matrix a and b (m,)
/// or (m, k), from a's SVD as JAX's: x (n,) or (n, k) the least-squares
/// solution of a·x = b of least norm, singular values s below rcond times
/// the largest counting as zero (rcond defaults to max(m, n)·eps; a
/// negative one is eps); resid each column's squared norm of b - a·x,
/// shape (k,) ((1,) for a vector b), in every case (JAX's default
/// numpy_resid=False, not numpy's empty residuals); rank (int32) the number
/// of singular values kept. resid and s are real for complex a and b,
/// the empty s of an empty a too (JAX gives that one a's complex dtype; the
/// result's type here is one for every shape).
template <ArrayLike A, ArrayLike B>
std::tuple<Array<float_t<promote_t<value_type_t<A>, value_type_t<B>>>>,
           Array<real_t<float_t<promote_t<value_type_t<A>, value_type_t<B>>>>>, Array<std::int32_t>,
           Array<real_t<float_t<promote_t<value_type_t<A>, value_type_t<B>>>>>>
lstsq(A const& a_in, B const& b_in, std::optional<double> rcond = std::nullopt) {
  using T = float_t<promote_t<value_type_t<A>, value_type_t<B>>>;
  using R = real_t<T>;
  auto const a = detail::array_as<T>(a_in);
  auto b = detail::array_as<T>(b_in);
  if (a.ndim() == 0 || b.ndim() == 0) detail::throw_error("tuple index out of range");  // JAX's a.shape[0]
  if (a.shape()[0] != b.shape()[0]) detail::throw_error("Leading dimensions of input arrays must match");
  bool const vector = b.ndim() == 1;
  if (vector) b = expand_dims(b, -1);
  if (a.ndim() != 2) detail::throw_error(a.ndim(), "-dimensional array given. Array must be two-dimensional");
  if (b.ndim() != 2)
    detail::throw_error(b.ndim(), "-dimensional array given. Array must be one or two-dimensional");
  auto const m = a.shape()[0], n = a.shape()[1];
  auto x = zeros<T>({n, b.shape()[1]});
  auto s = zeros<R>({0});
  auto rank = zeros<std::int32_t>(Shape{});
  if (a.size() != 0) {
    constexpr R eps = std::numeric_limits<R>::epsilon();
    auto const cut = rcond ? (*rcond < 0 ? eps : static_cast<R>(*rcond))
                           : static_cast<R>(static_cast<double>(eps) * static_cast<double>(std::max(m, n)));
    auto const [u, values, vh] = lax::linalg::svd(a, false);
    s = values;
    auto const largest = lax::slice(s, {0}, {1});
    auto const mask = logical_and(s > R(0), s >= cut * largest);
    rank = sum(mask);
    auto const s_inv = Array<R>(where(mask, R(1) / where(mask, s, R(1)), R(0))).template astype<T>();
    x = matmul(detail::matrix_adjoint(vh), Array<T>(expand_dims(s_inv, -1) * matmul(detail::matrix_adjoint(u), b)));
  }
  auto const r = norm(Array<T>(b - matmul(a, x)), none, 0);
  return {vector ? x.reshape({-1}) : x, Array<R>(r * r), rank, s};
}

}  // namespace jaxcc::numpy::linalg
