// jax.scipy.special's modified Bessel functions of orders 0 and 1: i0e and
// i1e (lax.bessel_i0e, bessel_i1e) and the unscaled i0 = exp(|x|) i0e(x),
// i1 = exp(|x|) i1e(x).
#pragma once

#include "jaxcc/lax/special.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/scipy/special/promote.hpp"

namespace jaxcc::scipy::special {

/// e^-|x| I_0(x).
template <ArrayLike A>
auto i0e(A const& x) {
  return lax::bessel_i0e(detail::inexact_operand<detail::inexact_t<A>>(x));
}
/// I_0(x), the modified Bessel function of the first kind of order 0.
template <ArrayLike A>
auto i0(A const& x) {
  using T = detail::inexact_t<A>;
  Array<T> const a = detail::inexact_operand<T>(x);
  return numpy::exp(numpy::abs(a)) * lax::bessel_i0e(a);
}
/// e^-|x| I_1(x).
template <ArrayLike A>
auto i1e(A const& x) {
  return lax::bessel_i1e(detail::inexact_operand<detail::inexact_t<A>>(x));
}
/// I_1(x), the modified Bessel function of the first kind of order 1.
template <ArrayLike A>
auto i1(A const& x) {
  using T = detail::inexact_t<A>;
  Array<T> const a = detail::inexact_operand<T>(x);
  return numpy::exp(numpy::abs(a)) * lax::bessel_i1e(a);
}

}  // namespace jaxcc::scipy::special
