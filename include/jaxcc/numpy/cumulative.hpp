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
#include <optional>
#include <vector>
#include <string_view>
#include <type_traits>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/cumulative.hpp"

namespace jaxcc::detail {

/// The dtype a cumulative reduction of T accumulates and returns.
template <Element T>
using cumulative_t = std::conditional_t<std::same_as<T, bool>, std::int32_t, T>;

template <class P, ArrayLike A>
Array<cumulative_t<value_type_t<A>>> cumulative(A const& a, std::int64_t axis, std::string_view op) {
  Array<cumulative_t<value_type_t<A>>> const x = as_array(a).template astype<cumulative_t<value_type_t<A>>>();
  return jaxcc::detail::bind<P>({normalize_axis(axis, x.ndim(), op), false}, x);
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

namespace jaxcc::detail {

/// cumulative_sum / cumulative_prod (the array API's): the axis may be left
/// out for a vector only; with `include_initial` the identity comes first.
template <class P, Element U, ArrayLike A>
Array<U> cumulative_with_initial(A const& a, std::optional<std::int64_t> axis, bool include_initial,
                                 std::string_view op, std::string_view what, U identity) {
  Array<U> const x = as_array(a).template astype<U>();
  if (x.ndim() == 0)
    throw_error(op, ": the input must be non-scalar to take a cumulative ", what,
                ", however a scalar value or scalar array was given.");
  if (!axis && x.ndim() > 1)
    throw_error(op, ": the input array has rank ", x.ndim(),
                ", however axis was not set to an explicit value. The axis argument is only optional for "
                "one-dimensional arrays.");
  auto const ax = normalize_axis(axis.value_or(0), x.ndim(), op);
  Array<U> const out = jaxcc::detail::bind<P>({ax, false}, x);
  if (!include_initial) return out;
  Shape first = x.shape();
  first[static_cast<std::size_t>(ax)] = 1;
  return numpy::concatenate(std::vector<Array<U>>{numpy::full<U>(first, identity), out}, ax);
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// Running sums along `axis` (optional for a vector), integers widened as
/// sum's (int8, int16 and bool to int32, uint8 to uint32); with
/// `include_initial`, a 0 first (the axis one longer).
template <ArrayLike A>
Array<detail::sum_t<value_type_t<A>>> cumulative_sum(A const& x, std::int64_t axis, bool include_initial = false) {
  return detail::cumulative_with_initial<primitives::cumsum_p, detail::sum_t<value_type_t<A>>>(
      x, axis, include_initial, "cumulative_sum", "sum", 0);
}
template <ArrayLike A>
Array<detail::sum_t<value_type_t<A>>> cumulative_sum(A const& x, none_t = none, bool include_initial = false) {
  return detail::cumulative_with_initial<primitives::cumsum_p, detail::sum_t<value_type_t<A>>>(
      x, std::nullopt, include_initial, "cumulative_sum", "sum", 0);
}

/// Running products along `axis` (optional for a vector), bool as int32;
/// with `include_initial`, a 1 first.
template <ArrayLike A>
Array<detail::cumulative_t<value_type_t<A>>> cumulative_prod(A const& x, std::int64_t axis,
                                                             bool include_initial = false) {
  return detail::cumulative_with_initial<primitives::cumprod_p, detail::cumulative_t<value_type_t<A>>>(
      x, axis, include_initial, "cumulative_prod", "product", 1);
}
template <ArrayLike A>
Array<detail::cumulative_t<value_type_t<A>>> cumulative_prod(A const& x, none_t = none, bool include_initial = false) {
  return detail::cumulative_with_initial<primitives::cumprod_p, detail::cumulative_t<value_type_t<A>>>(
      x, std::nullopt, include_initial, "cumulative_prod", "product", 1);
}

}  // namespace jaxcc::numpy
