// jax.numpy's cumulative reductions: cumsum, cumprod, cummax, cummin along
// one axis (negative counts from the end), or over the flattened array
// when the axis is left out (or `jaxcc::none`: a 0-d array then counts as
// one element; with an axis it raises, as JAX's strongly typed 0-d arrays
// do). bool is counted as int32, as JAX promotes it; other dtypes keep
// theirs. Running from the end is lax::cumsum(x, axis, /*reverse=*/true)
// (primitives/cumulative.hpp).
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/primitives/cumulative.hpp"

namespace jaxcc::detail {

/// The dtype a cumulative reduction of T accumulates and returns.
template <Element T>
using cumulative_t = std::conditional_t<std::same_as<T, bool>, std::int32_t, T>;

template <class P, ArrayLike A>
Array<cumulative_t<value_type_t<A>>> cumulative(A const& a, std::int64_t axis, std::string_view op) {
  Array<cumulative_t<value_type_t<A>>> const x = as_array(a).template astype<cumulative_t<value_type_t<A>>>();
  return bind<P>({normalize_axis(axis, x.ndim(), op), false}, x);
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

#define JAXCC_CUMULATIVE(fn, primitive)                                                          \
  template <ArrayLike A>                                                                         \
  Array<detail::cumulative_t<value_type_t<A>>> fn(A const& a, std::int64_t axis) {              \
    return detail::cumulative<primitives::primitive>(a, axis, #fn);                              \
  }                                                                                              \
  template <ArrayLike A>                                                                         \
  Array<detail::cumulative_t<value_type_t<A>>> fn(A const& a, none_t = none) {                  \
    return detail::cumulative<primitives::primitive>(ravel(a), 0, #fn);                          \
  }
/// Running sums along `axis`; of the flattened array without one.
JAXCC_CUMULATIVE(cumsum, cumsum_p)
/// Running products.
JAXCC_CUMULATIVE(cumprod, cumprod_p)
/// Running maxima (a NaN propagates).
JAXCC_CUMULATIVE(cummax, cummax_p)
/// Running minima (a NaN propagates).
JAXCC_CUMULATIVE(cummin, cummin_p)
#undef JAXCC_CUMULATIVE

}  // namespace jaxcc::numpy
