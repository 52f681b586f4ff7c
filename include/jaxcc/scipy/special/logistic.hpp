// jax.scipy.special's logistic functions: expit (lax.logistic) and its
// inverse logit, log(x / (1 - x)).
#pragma once

#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/scipy/special/promote.hpp"

namespace jaxcc::scipy::special {

/// 1 / (1 + exp(-x)).
template <ArrayLike A>
auto expit(A const& x) {
  return fusion::make_expr<primitives::logistic_p>(detail::inexact_operand<detail::inexact_t<A>>(x));
}

/// log(x / (1 - x)); its derivative, 1 / (x (1 - x)), is JAX's custom rule.
template <ArrayLike A>
auto logit(A const& x) {
  using T = detail::inexact_t<A>;
  Array<T> const a = detail::inexact_operand<T>(x);
  return numpy::log(a / (T(1) - a));
}

}  // namespace jaxcc::scipy::special
