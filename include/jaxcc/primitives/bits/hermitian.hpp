// The complex side of the linalg primitives' derivative rules: conjugates,
// conjugate transposes (JAX's _H), Hermitian triangles and real parts over
// the last two axes, each a no-op (or the real helper it extends) on real
// element types. Derivative rules of complex matrices follow JAX's
// convention: a VJP is the transpose of the JVP under the non-conjugating
// pairing Re Σ ct·t, so the transpose of t ↦ tᴴ is ct ↦ ctᴴ and that of
// t ↦ a t b is ct ↦ aᵀ ct bᵀ.
#pragma once

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/complex_parts.hpp"

namespace jaxcc::detail {

/// conj(x) for a complex x; x itself for a real one.
template <Element T>
Array<T> conj_if_complex(Array<T> const& x) {
  if constexpr (ComplexElement<T>) return conjugate(x);
  else return x;
}

/// xᴴ: x with its last two axes swapped, conjugated (JAX's _H).
template <Element T>
Array<T> matrix_adjoint(Array<T> const& x) {
  return matrix_transpose(conj_if_complex(x));
}

/// Re(x), as x's own (complex) type: (x + conj(x)) / 2. Its own transpose.
template <Element T>
Array<T> real_if_complex(Array<T> const& x) {
  if constexpr (ComplexElement<T>) return Array<T>((x + conjugate(x)) * T(0.5));
  else return x;
}

/// The real part of x, as the real type: eigh's eigenvalues and svd's
/// singular values, which their primitives store in x's (complex) type.
template <Element T>
Array<real_t<T>> real_values(Array<T> const& x) {
  if constexpr (ComplexElement<T>) return real_part(AnyArray(x)).template as<real_t<T>>();
  else return x;
}

/// The Hermitian matrix that a solver reading only x's `lower` (else
/// upper) triangle sees: that triangle, its strict part mirrored and
/// conjugated across the diagonal (symmetric_from_triangle on real x).
template <Element T>
Array<T> hermitian_from_triangle(Array<T> const& x, bool lower) {
  return Array<T>(matrix_triangle(x, 0, lower) + matrix_adjoint(matrix_triangle(x, lower ? -1 : 1, lower)));
}

/// hermitian_from_triangle's transpose, for VJPs: g's triangle plus the
/// strict triangle of gᴴ.
template <Element T>
Array<T> triangle_of_hermitian(Array<T> const& g, bool lower) {
  return Array<T>(matrix_triangle(g, 0, lower) + matrix_triangle(matrix_adjoint(g), lower ? -1 : 1, lower));
}

}  // namespace jaxcc::detail
