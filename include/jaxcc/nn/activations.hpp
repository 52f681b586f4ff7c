// jax.nn's activations. relu and sigmoid are elementwise and return fused
// expressions, so they fuse with what surrounds them. softmax, log_softmax
// and logsumexp are computed as JAX computes them: the max along the
// reduced axes is subtracted before exponentiating, so no exp overflows.
// As in JAX that max is wrapped in stop_gradient: it changes no value, and
// the derivative (which does not depend on the shift) need not go through
// the max's tie-splitting rule.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/stop_gradient.hpp"

namespace jaxcc::nn {

/// max(x, 0), keeping x's dtype (bool becomes int32, as jnp.maximum(x, 0)).
template <ArrayLike A>
auto relu(A const& x) {
  return numpy::maximum(x, 0);
}

/// 1 / (1 + exp(-x)), lax.logistic.
template <ArrayLike A>
auto sigmoid(A const& x) {
  static_assert(FloatElement<value_type_t<A>>,
                "nn::sigmoid: logistic accepts floating-point arrays only; convert first, e.g. x.astype<float>()");
  return fusion::make_expr<primitives::logistic_p>(x);
}

/// x * sigmoid(x).
template <ArrayLike A>
auto silu(A const& x) {
  return x * sigmoid(x);
}
template <ArrayLike A>
auto swish(A const& x) {
  return silu(x);
}

/// log(1 + exp(x)), as JAX: logaddexp(x, 0), which neither overflows nor
/// loses small values (integers become floats).
template <ArrayLike A>
auto softplus(A const& x) {
  return numpy::logaddexp(x, 0);
}

/// log(sigmoid(x)) = -softplus(-x).
template <ArrayLike A>
auto log_sigmoid(A const& x) {
  return -softplus(-x);
}

/// Gaussian error linear unit. approximate (JAX's default): the tanh form
/// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); else x/2 erfc(-x/sqrt(2)).
template <ArrayLike A>
Array<float_t<value_type_t<A>>> gelu(A const& x, bool approximate = true) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  if (approximate) {
    // x * x^2: the product XLA's integer_pow(x, 3) computes.
    auto const cube = a * numpy::square(a);
    return a * (F(0.5) * (F(1) + numpy::tanh(F(0.7978845608028654) * (a + F(0.044715) * cube))));
  }
  return F(0.5) * a * lax::erfc(-a * F(0.7071067811865476));
}

/// One-hot encoding of the indices x along a new axis `axis` (of the
/// result) of length num_classes, as dtype U: 1 where the index equals the
/// position there, so out-of-range indices give a row of zeros.
template <Element U = float, ArrayLike A>
Array<U> one_hot(A const& x, std::int64_t num_classes, std::int64_t axis = -1) {
  using T = value_type_t<A>;
  static_assert(!std::same_as<T, bool>, "nn::one_hot: the indices must be integers; convert first, e.g. x.astype<int>()");
  if (num_classes < 0) {
    throw Error("one_hot: num_classes must be nonnegative, got " + std::to_string(num_classes));
  }
  Array<T> const indices = as_array(x);
  auto const at = detail::normalize_axis(axis, indices.ndim() + 1, "one_hot");
  Shape classes_shape(static_cast<std::size_t>(indices.ndim() + 1), 1);
  classes_shape[static_cast<std::size_t>(at)] = num_classes;
  auto const classes = numpy::arange<T>(num_classes).reshape(classes_shape);
  return fusion::cast<U>(lax::expand_dims(indices, Axes{at}) == classes);
}

/// exp(x) / sum(exp(x)) along `axis` (an int, a list, or jaxcc::none for
/// all). Like JAX: a row of -inf or one holding +inf gives nan.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> softmax(A const& x, detail::AxisArg const& axis = -1) {
  using F = float_t<value_type_t<A>>;
  Array<F> const a = fusion::cast<F>(x);
  auto const axes = axis.resolve(a.ndim(), "softmax");
  // jnp.max(x, axis, initial=-inf, keepdims=True): an empty reduction is -inf.
  auto const x_max = stop_gradient(detail::reduce_over<primitives::reduce_max_p>(a, axes, true));
  Array<F> const unnormalized = numpy::exp(a - x_max);
  return unnormalized / detail::reduce_over<primitives::reduce_sum_p>(unnormalized, axes, true);
}

/// x - log(sum(exp(x))) along `axis`, shifted by the max as JAX does.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> log_softmax(A const& x, detail::AxisArg const& axis = -1) {
  using F = float_t<value_type_t<A>>;
  Array<F> const a = fusion::cast<F>(x);
  auto const axes = axis.resolve(a.ndim(), "log_softmax");
  Array<F> const shifted = a - stop_gradient(detail::reduce_over<primitives::reduce_max_p>(a, axes, true));
  auto const sum_exp = detail::reduce_over<primitives::reduce_sum_p>(Array<F>(numpy::exp(shifted)), axes, true);
  return shifted - numpy::log(sum_exp);
}

/// log(sum(exp(x))) over `axis` (all axes by default). A non-finite max
/// (a row of -inf, an empty row, +inf or nan) shifts by 0 instead, as in
/// JAX, so a row of -inf gives -inf, +inf gives +inf and nan gives nan.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> logsumexp(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false) {
  using F = float_t<value_type_t<A>>;
  Array<F> const a = fusion::cast<F>(x);
  auto const axes = axis.resolve(a.ndim(), "logsumexp");
  auto const a_max = detail::reduce_over<primitives::reduce_max_p>(a, axes, true);
  auto const shift = stop_gradient(numpy::where(numpy::abs(a_max) < std::numeric_limits<F>::infinity(), a_max, F{0}));
  auto const sum_exp = detail::reduce_over<primitives::reduce_sum_p>(Array<F>(numpy::exp(a - shift)), axes, keepdims);
  return numpy::log(sum_exp) + (keepdims ? shift : shift.reshape(sum_exp.shape()));
}

}  // namespace jaxcc::nn
