// jax.nn.standardize: x shifted to zero mean and scaled to unit variance
// along some axes, composed of jnp's reductions as JAX composes it, so its
// derivatives, batching and jit follow from theirs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "jaxcc/core/error.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"

namespace jaxcc::nn {

/// (x - mean) / sqrt(variance + epsilon) along `axis` (an int, a list, or
/// jaxcc::none for all; the last axis by default). mean and variance are
/// computed with keepdims unless given (each must broadcast against x),
/// over the elements where `where` holds if it is given (it broadcasts
/// against x).
/// algorithm "fast" (JAX's default) takes the variance as mean(x^2) -
/// mean^2, clipped at 0; "stable" as mean((x - mean)^2). Integers become
/// floats.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> standardize(A const& x, detail::AxisArg const& axis = -1,
                                            std::optional<Array<float_t<value_type_t<A>>>> mean = std::nullopt,
                                            std::optional<Array<float_t<value_type_t<A>>>> variance = std::nullopt,
                                            double epsilon = 1e-5, std::optional<Array<bool>> where = std::nullopt,
                                            std::string_view algorithm = "fast") {
  using F = float_t<value_type_t<A>>;
  if (algorithm != "fast" && algorithm != "stable") {
    throw Error("standardize: unknown algorithm '" + std::string(algorithm) + "'; expected 'fast' or 'stable'");
  }
  Array<F> const a = fusion::cast<F>(x);
  detail::AxisArg const axes = axis.resolve(a.ndim(), "standardize");
  // jnp.mean(v, axis, keepdims=True, where=where): the sum of the elements
  // where holds, over their count.
  auto const average = [&](Array<F> const& v) -> Array<F> {
    if (!where) return numpy::mean(v, axes, true);
    Array<bool> const kept = numpy::broadcast_to(*where, v.shape());
    return numpy::sum(numpy::where(kept, v, 0), axes, true) / numpy::sum(fusion::cast<F>(kept), axes, true);
  };
  Array<F> const m = mean ? *mean : average(a);
  Array<F> v;
  if (variance) {
    v = *variance;
  } else if (algorithm == "stable") {
    v = average(numpy::square(a - m));
  } else {
    v = numpy::maximum(average(numpy::square(a)) - numpy::square(m), 0);
  }
  return (a - m) * lax::rsqrt(v + static_cast<F>(epsilon));
}

}  // namespace jaxcc::nn
