// jax.nn's activations. The elementwise ones (relu, sigmoid, relu6, elu,
// mish, ...) return fused expressions, so they fuse with what surrounds
// them; where JAX gives a kink its own derivative (relu's and relu6's
// custom_jvp rules), a select keeps the derivative on the branch JAX's rule
// picks. glu splits its axis in two; softmax, log_softmax
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
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/stop_gradient.hpp"

namespace jaxcc::detail {

/// 0 where x <= 0, nan where x is nan, with no derivative: the rest of a
/// kink's select, so that only the selected branch carries a derivative.
template <class X>
auto nn_zero_or_nan(X const& x) {
  return numpy::where(x <= 0, 0, x - x);
}

}  // namespace jaxcc::detail

namespace jaxcc::nn {

/// max(x, 0), keeping x's dtype (bool becomes int32, as jnp.maximum(x, 0)).
/// Its derivative is JAX's custom_jvp rule, select(x > 0, g, 0): 0 at 0
/// (where maximum's would split 1/2), and nan stays nan with none.
template <ArrayLike A>
auto relu(A const& x) {
  if constexpr (FloatElement<value_type_t<A>>) return numpy::where(x > 0, x, detail::nn_zero_or_nan(x));
  else return numpy::maximum(x, 0);
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

/// x itself, as an array of its dtype.
template <ArrayLike A>
Array<value_type_t<A>> identity(A const& x) {
  return as_array(x);
}

/// jax.nn.tanh is jnp.tanh.
using numpy::tanh;

/// min(max(x, 0), 6), as a float (6. promotes integers). Its derivative is
/// JAX's custom_jvp rule, select(0 < x < 6, g, 0): 0 at both corners.
template <ArrayLike A>
auto relu6(A const& x) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  return numpy::where(numpy::logical_and(a > 0, a < 6), a, numpy::where(a >= 6, 6, detail::nn_zero_or_nan(a)));
}

/// relu6(x + 3) / 6: derivative 1/6 strictly between -3 and 3, else 0.
template <ArrayLike A>
auto hard_sigmoid(A const& x) {
  using F = float_t<value_type_t<A>>;
  return relu6(fusion::cast<F>(x) + F(3)) / F(6);
}

/// x * hard_sigmoid(x); hard_swish is the same function.
template <ArrayLike A>
auto hard_silu(A const& x) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  return a * hard_sigmoid(a);
}
template <ArrayLike A>
auto hard_swish(A const& x) {
  return hard_silu(x);
}

/// -1 below -1, 1 above 1, else x, keeping x's dtype; derivative 1 on
/// [-1, 1] (the corners included, as JAX's nested where gives).
template <ArrayLike A>
auto hard_tanh(A const& x) {
  return numpy::where(x > 1, 1, numpy::where(x < -1, -1, x));
}

/// x where x >= 0, else negative_slope * x (a scalar or an array that
/// broadcasts); derivative 1 at 0.
template <ArrayLike A, class S = double>
  requires jaxcc::detail::ArrayOrScalar<S>
auto leaky_relu(A const& x, S const& negative_slope = 1e-2) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  return numpy::where(a >= 0, a, negative_slope * a);
}

/// x where x > 0, else alpha (exp(x) - 1); derivative alpha at 0. The
/// exponential sees 0 in place of positive x, so that no overflow there
/// reaches the derivative.
template <ArrayLike A, class Alpha = double>
  requires jaxcc::detail::ArrayOrScalar<Alpha>
auto elu(A const& x, Alpha const& alpha = 1.0) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  return numpy::where(a > 0, a, alpha * numpy::expm1(numpy::where(a > 0, 0, a)));
}

/// max(x, 0) + alpha (exp(min(x, 0) / alpha) - 1), continuously
/// differentiable: maximum's and minimum's halves add up to 1 at 0.
template <ArrayLike A, class Alpha = double>
  requires jaxcc::detail::ArrayOrScalar<Alpha>
auto celu(A const& x, Alpha const& alpha = 1.0) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  return numpy::maximum(a, 0) + alpha * numpy::expm1(numpy::minimum(a, 0) / alpha);
}

/// scale * elu(x, alpha) with the self-normalizing constants
/// alpha = 1.6732632423543772848 and scale = 1.0507009873554804934.
template <ArrayLike A>
auto selu(A const& x) {
  using F = float_t<value_type_t<A>>;
  return F(1.0507009873554804934193349852946) * elu(fusion::cast<F>(x), F(1.6732632423543772848170429916717));
}

/// x * tanh(softplus(x)).
template <ArrayLike A>
auto mish(A const& x) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  return a * numpy::tanh(softplus(a));
}

/// x / (|x| + 1).
template <ArrayLike A>
auto soft_sign(A const& x) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  return a / (numpy::abs(a) + 1);
}

/// (x + sqrt(x^2 + b)) / 2, b the smoothness (default 4).
template <ArrayLike A, class B = int>
  requires jaxcc::detail::ArrayOrScalar<B>
auto squareplus(A const& x, B const& b = 4) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  return (a + numpy::sqrt(numpy::square(a) + b)) / 2;
}

/// 0 for x <= -1, (x + 1)^2 / 4 between, x for x >= 1 (derivative 0 at -1,
/// 1 at 1, as JAX's nested where).
template <ArrayLike A>
auto sparse_plus(A const& x) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  return numpy::where(a <= -1, 0, numpy::where(a >= 1, a, numpy::square(a + 1) / 4));
}

/// clip(x + 1, 0, 2) / 2, the derivative of sparse_plus (its derivative is
/// 1/4 at -1 and 1, where clip's maximum or minimum splits a tie).
template <ArrayLike A>
auto sparse_sigmoid(A const& x) {
  using F = float_t<value_type_t<A>>;
  return F(0.5) * numpy::clip(fusion::cast<F>(x) + 1, 0, 2);
}

/// log(1 - exp(-x)), accurately: log(-expm1(-x)) below log 2, else
/// log1p(-exp(-x)); nan for x < 0. Each branch sees a safe point (log 2)
/// where the other is taken, so its derivative, 1 / expm1(x) as JAX's
/// custom_jvp rule, is never poisoned by the unused one.
template <ArrayLike A>
auto log1mexp(A const& x) {
  using F = float_t<value_type_t<A>>;
  auto const a = fusion::cast<F>(x);
  auto const c = F(0.6931471805599453);
  auto const small = a < c;
  return numpy::where(small, numpy::log(-numpy::expm1(-numpy::where(small, a, c))),
                      numpy::log1p(-numpy::exp(-numpy::where(small, c, a))));
}

/// The first half of x along `axis` times sigmoid of the second half.
template <ArrayLike A>
Array<value_type_t<A>> glu(A const& x, std::int64_t axis = -1) {
  Array<value_type_t<A>> const a = as_array(x);
  auto const at = detail::normalize_axis(axis, a.ndim(), "glu");
  auto const size = a.shape()[static_cast<std::size_t>(at)];
  if (size % 2 != 0) {
    throw Error("glu: axis size must be divisible by 2, got " + std::to_string(size) + " along axis " +
                std::to_string(axis) + " of shape " + to_string(a.shape()));
  }
  auto const halves = numpy::split(a, 2, at);
  return halves[0] * sigmoid(halves[1]);
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

/// log(mean(exp(x))) over `axis`: logsumexp(x, axis, keepdims) minus the
/// log of the number of elements reduced (an empty reduction gives nan).
template <ArrayLike A>
Array<float_t<value_type_t<A>>> logmeanexp(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false) {
  using F = float_t<value_type_t<A>>;
  Array<F> const a = fusion::cast<F>(x);
  auto const count = detail::reduced_size(a.shape(), axis.resolve(a.ndim(), "logmeanexp"));
  return logsumexp(a, axis, keepdims) - numpy::log(numpy::full<F>(Shape{}, static_cast<F>(count)));
}

}  // namespace jaxcc::nn
