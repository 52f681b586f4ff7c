// jnp.linalg's matrix decompositions over the last two axes, any leading
// axes a batch: cholesky, eigh, qr, svd and svdvals, and pinv (from the
// SVD, as JAX's). Each calls its lax.linalg function
// (lax/linalg.hpp) as JAX's does, after promoting integers to float.
#pragma once

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>
#include <tuple>

#include "jaxcc/core/array.hpp"
#include "jaxcc/lax/linalg.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/linalg.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"

namespace jaxcc::numpy::linalg {

/// jnp.linalg.cholesky: the lower factor L of L·Lᵀ = a for each matrix of
/// a (..., n, n) stack, or with `upper` its transpose U (Uᵀ·U = a); with
/// `symmetrize_input`, of (a + aᵀ) / 2, else of a's lower triangle. A matrix
/// that is not positive definite gives NaNs in the factor's triangle.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> cholesky(A const& a, bool upper = false, bool symmetrize_input = true) {
  auto const l = lax::linalg::cholesky(detail::array_as<float_t<value_type_t<A>>>(a), symmetrize_input);
  return upper ? detail::matrix_transpose(l) : l;
}

/// jnp.linalg.eigh: (w, v) of each symmetric (..., n, n) matrix: the
/// eigenvalues w ascending, the eigenvectors the columns of v (each one's
/// sign is arbitrary). With `symmetrize_input`, of (a + aᵀ) / 2, else of
/// the triangle `UPLO` names: "L" (the default) or "U".
template <ArrayLike A>
std::tuple<Array<float_t<value_type_t<A>>>, Array<float_t<value_type_t<A>>>> eigh(A const& a,
                                                                                  std::string_view UPLO = "L",
                                                                                  bool symmetrize_input = true) {
  if (UPLO != "L" && UPLO != "U")
    detail::throw_error("UPLO must be one of None, 'L', or 'U', got ", UPLO);
  auto const [v, w] = lax::linalg::eigh(detail::array_as<float_t<value_type_t<A>>>(a), UPLO == "L", symmetrize_input);
  return {w, v};
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
/// s descending; u m × m and vh n × n with `full_matrices` (the default),
/// else m × k and k × n (k = min(m, n)). Each singular vector pair's sign
/// is arbitrary. (compute_uv=False is svdvals.)
template <ArrayLike A>
std::tuple<Array<float_t<value_type_t<A>>>, Array<float_t<value_type_t<A>>>, Array<float_t<value_type_t<A>>>> svd(
    A const& a, bool full_matrices = true) {
  return lax::linalg::svd(detail::array_as<float_t<value_type_t<A>>>(a), full_matrices);
}

/// jnp.linalg.svdvals: the singular values of each (..., m, n) matrix, descending.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> svdvals(A const& a) {
  return lax::linalg::singular_values(detail::array_as<float_t<value_type_t<A>>>(a));
}

/// jnp.linalg.pinv: the Moore-Penrose pseudo-inverse (..., n, m) of each
/// (..., m, n) matrix, from its SVD: singular values at most `rtol` times
/// the largest count as zero. rtol defaults to 10·max(m, n)·eps, as JAX's.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> pinv(A const& a_in, std::optional<double> rtol = std::nullopt) {
  using T = float_t<value_type_t<A>>;
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
  auto const tol = rtol.value_or(10.0 * static_cast<double>(std::max(m, n)) * std::numeric_limits<T>::epsilon());
  auto const [u, s, vh] = lax::linalg::svd(a, false);
  Axes start(static_cast<std::size_t>(s.ndim()), 0), limit(s.shape().begin(), s.shape().end());
  limit.back() = 1;  // the largest singular value, first
  auto const cutoff = Array<T>(static_cast<T>(tol) * lax::slice(s, start, limit));
  auto const kept = Array<T>(where(s > cutoff, s, std::numeric_limits<T>::infinity()));
  return matmul(detail::matrix_transpose(vh), Array<T>(detail::matrix_transpose(u) / expand_dims(kept, -1)));
}

}  // namespace jaxcc::numpy::linalg
