// jax.numpy's functions of complex numbers: real, imag, conj (conjugate),
// angle, and the predicates iscomplex, isreal, iscomplexobj, isrealobj.
// Each takes real arrays too, as numpy's do: the real part of a real array
// is the array, its imaginary part zeros.
#pragma once

#include <numbers>

#include "jaxcc/lax/complex.hpp"
#include "jaxcc/numpy/elementwise.hpp"

namespace jaxcc::numpy {

/// The real part (a real array is returned as it is).
template <ArrayLike A>
auto real(A const& a) {
  if constexpr (ComplexElement<value_type_t<A>>) return lax::real(as_array(a));
  else return as_array(a);
}

/// The imaginary part (zeros for a real array).
template <ArrayLike A>
auto imag(A const& a) {
  using T = value_type_t<A>;
  if constexpr (ComplexElement<T>) return lax::imag(as_array(a));
  else return Array<T>(fusion::make_expr<primitives::mul_p>(as_array(a), fusion::ScalarLeaf<T>{T(0)}));
}

/// The complex conjugate (a real array is returned as it is).
template <ArrayLike A>
auto conj(A const& a) {
  if constexpr (ComplexElement<value_type_t<A>>) return lax::conj(as_array(a));
  else return as_array(a);
}
template <ArrayLike A>
auto conjugate(A const& a) {
  return numpy::conj(a);
}

/// The angle of each element in the complex plane, atan2(imag, real), in
/// radians, or in degrees with `deg`; a real float dtype (float32 for
/// integers and bool, as JAX).
template <ArrayLike A>
auto angle(A const& a, bool deg = false) {
  using R = real_t<float_t<value_type_t<A>>>;
  auto const z = as_array(a);
  Array<R> const re = numpy::real(z).template astype<R>(), im = numpy::imag(z).template astype<R>();
  Array<R> const radians = arctan2(im, re);
  if (!deg) return radians;
  return Array<R>(radians * (R(180) / std::numbers::pi_v<R>));
}

/// Whether each element has a nonzero imaginary part.
template <ArrayLike A>
Array<bool> iscomplex(A const& a) {
  return numpy::imag(a) != real_t<value_type_t<A>>(0);
}
/// Whether each element has a zero imaginary part.
template <ArrayLike A>
Array<bool> isreal(A const& a) {
  return numpy::imag(a) == real_t<value_type_t<A>>(0);
}
/// Whether the array's dtype is complex (of the dtype, not the values).
template <class A>
constexpr bool iscomplexobj(A const&) {
  if constexpr (ArrayLike<A>) return ComplexElement<value_type_t<A>>;
  else return detail::is_complex_v<std::remove_cvref_t<A>>;
}
/// Whether the array's dtype is not complex.
template <class A>
constexpr bool isrealobj(A const& a) {
  return !numpy::iscomplexobj(a);
}

}  // namespace jaxcc::numpy
