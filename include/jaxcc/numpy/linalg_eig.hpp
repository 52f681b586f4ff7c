// jnp.linalg's eigendecomposition of general square matrices: eig and
// eigvals, over the last two axes, any leading axes a batch. Each calls
// lax::linalg::eig (primitives/eig.hpp) as JAX's does, after promoting
// integers to float; the results are complex (complex64 for float32 and
// complex64 input, complex128 for float64 and complex128).
#pragma once

#include <tuple>

#include "jaxcc/core/array.hpp"
#include "jaxcc/lax/linalg.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"

namespace jaxcc::numpy::linalg {

/// jnp.linalg.eig: (w, v) of each (..., n, n) matrix: the eigenvalues w
/// (..., n) and the right eigenvectors as the columns of v, a v[:, i] =
/// w[i] v[:, i]. Each column has unit norm and its component of largest
/// modulus real and positive; the eigenvalues' order is the solver's (not
/// LAPACK's). Not differentiable, as in JAX (eigvals is).
template <ArrayLike A>
std::tuple<Array<detail::complex_of_t<float_t<value_type_t<A>>>>, Array<detail::complex_of_t<float_t<value_type_t<A>>>>>
eig(A const& a) {
  auto const out = lax::linalg::eig(detail::array_as<float_t<value_type_t<A>>>(a), false, true);
  return {out[0], out[1]};
}

/// jnp.linalg.eigvals: the eigenvalues (..., n) of each (..., n, n)
/// matrix, complex, in eig's order; differentiable where they are distinct.
template <ArrayLike A>
Array<detail::complex_of_t<float_t<value_type_t<A>>>> eigvals(A const& a) {
  return lax::linalg::eig(detail::array_as<float_t<value_type_t<A>>>(a), false, false)[0];
}

}  // namespace jaxcc::numpy::linalg
