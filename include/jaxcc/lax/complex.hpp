// jax.lax's functions between complex numbers and their parts: complex,
// real, imag, conj, with JAX's dtype rules and errors.
#pragma once

#include <string>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/primitives/complex_parts.hpp"

namespace jaxcc::lax {

/// re + i im: float32 parts make complex64, float64 ones complex128; the
/// parts share a dtype and a shape.
template <ArrayLike A, ArrayLike B>
  requires std::same_as<value_type_t<A>, value_type_t<B>> && std::floating_point<value_type_t<A>>
Array<std::complex<value_type_t<A>>> complex(A const& a, B const& b) {
  using R = value_type_t<A>;
  auto const re = as_array(a);
  auto const im = as_array(b);
  if (!(re.shape() == im.shape()))
    throw Error("lax::complex requires arguments to have the same shapes, got " + to_string(re.shape()) + ", " +
                to_string(im.shape()) + ".");
  return detail::make_complex(AnyArray(re), AnyArray(im)).template as<std::complex<R>>();
}

/// The real part of a complex array.
template <ComplexElement C>
Array<real_t<C>> real(Array<C> const& x) {
  return detail::real_part(AnyArray(x)).template as<real_t<C>>();
}
/// The imaginary part of a complex array.
template <ComplexElement C>
Array<real_t<C>> imag(Array<C> const& x) {
  return detail::imag_part(AnyArray(x)).template as<real_t<C>>();
}
/// The complex conjugate; a real array becomes complex with a zero imaginary part, as lax.conj.
template <Element T>
  requires std::floating_point<T> || ComplexElement<T>
Array<std::conditional_t<ComplexElement<T>, T, std::complex<real_t<T>>>> conj(Array<T> const& x) {
  if constexpr (ComplexElement<T>) return detail::conjugate(AnyArray(x)).template as<T>();
  else return x.template astype<std::complex<T>>();
}

}  // namespace jaxcc::lax
