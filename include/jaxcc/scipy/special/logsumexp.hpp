// jax.scipy.special's reductions of exponentials: logsumexp (with optional
// scale factors b), softmax and log_softmax (jax.nn's, over all axes by
// default). The max is subtracted before exponentiating and held out of
// the derivative, as in JAX.
#pragma once

#include <limits>

#include "jaxcc/nn/activations.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/stop_gradient.hpp"
#include "jaxcc/scipy/special/promote.hpp"

namespace jaxcc::scipy::special {

/// log(sum(exp(a))) over `axis` (all axes by default).
template <ArrayLike A>
Array<detail::inexact_t<A>> logsumexp(A const& a, detail::AxisArg const& axis = {}, bool keepdims = false) {
  return nn::logsumexp(a, axis, keepdims);
}

/// log(sum(b exp(a))) over `axis`; nan where that sum is negative.
template <ArrayLike A, class B>
  requires detail::ArrayOrScalar<B>
Array<detail::inexact_t<A, B>> logsumexp(A const& a_in, detail::AxisArg const& axis, B const& b_in, bool keepdims = false) {
  using T = detail::inexact_t<A, B>;
  Array<T> const b = detail::inexact_operand<T>(b_in);
  Array<T> const a = numpy::where(b != T(0), detail::inexact_operand<T>(a_in), -std::numeric_limits<T>::infinity());
  auto const axes = axis.resolve(a.ndim(), "logsumexp");
  auto const a_max = detail::reduce_over<primitives::reduce_max_p>(a, axes, true);
  auto const shift = stop_gradient(numpy::where(numpy::abs(a_max) < std::numeric_limits<T>::infinity(), a_max, T(0)));
  Array<T> const scaled = numpy::exp(a - shift) * b;
  auto const sum = detail::reduce_over<primitives::reduce_sum_p>(scaled, axes, keepdims);
  Array<T> const out = numpy::log(numpy::abs(sum)) + (keepdims ? shift : shift.reshape(sum.shape()));
  return numpy::where(numpy::sign(sum) < T(0), std::numeric_limits<T>::quiet_NaN(), out);
}

/// exp(x) / sum(exp(x)) over `axis` (all axes by default).
template <ArrayLike A>
Array<detail::inexact_t<A>> softmax(A const& x, detail::AxisArg const& axis = {}) {
  return nn::softmax(x, axis);
}

/// x - logsumexp(x) over `axis` (all axes by default).
template <ArrayLike A>
Array<detail::inexact_t<A>> log_softmax(A const& x, detail::AxisArg const& axis = {}) {
  return nn::log_softmax(x, axis);
}

}  // namespace jaxcc::scipy::special
