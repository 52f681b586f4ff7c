// jax.numpy's sorting and searching: sort, argsort (int32 positions) and
// searchsorted. Sorts are stable and use lax.sort's order (NaN last, -0 ==
// 0); `descending` is JAX's (sort: the ascending sort reversed; argsort:
// descending with equal elements in their original order). The axis is
// one axis (negative counts from the end, default the last) or
// `jaxcc::none` for the flattened array. lax::top_k is in
// primitives/sort.hpp. sort_complex sorts along the last axis and returns
// complex numbers.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <string_view>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/primitives/searchsorted.hpp"
#include "jaxcc/primitives/sort.hpp"

namespace jaxcc::numpy {

/// `a` sorted along `axis`.
template <ArrayLike A>
Array<value_type_t<A>> sort(A const& a, std::int64_t axis = -1, bool descending = false) {
  auto const x = as_array(a);
  if (x.ndim() == 0) detail::throw_error("sort: axis ", axis, " is out of bounds for array of dimension 0");
  return detail::bind<primitives::sort_p>({detail::normalize_axis(axis, x.ndim(), "sort"), descending}, x);
}
/// The flattened `a`, sorted.
template <ArrayLike A>
Array<value_type_t<A>> sort(A const& a, none_t, bool descending = false) {
  return sort(ravel(a), 0, descending);
}

/// The positions that sort `a` along `axis`, as int32.
template <ArrayLike A>
Array<std::int32_t> argsort(A const& a, std::int64_t axis = -1, bool descending = false) {
  auto const x = as_array(a);
  if (x.ndim() == 0) detail::throw_error("argsort: axis ", axis, " is out of bounds for array of dimension 0");
  return detail::bind<primitives::argsort_p>({detail::normalize_axis(axis, x.ndim(), "argsort"), descending}, x);
}
/// The positions that sort the flattened `a`.
template <ArrayLike A>
Array<std::int32_t> argsort(A const& a, none_t, bool descending = false) {
  return argsort(ravel(a), 0, descending);
}

/// Where each value of `v` would be inserted into the sorted 1-D `a` to keep
/// it sorted: before equal elements (`side` "left") or after them ("right").
/// int32, of v's shape; a and v are promoted to a common dtype first.
template <ArrayLike A, ArrayLike V>
Array<std::int32_t> searchsorted(A const& a, V const& v, std::string_view side = "left") {
  using T = promote_t<value_type_t<A>, value_type_t<V>>;
  if (side != "left" && side != "right")
    detail::throw_error("invalid argument side='", side, "', expected 'left' or 'right'");
  Array<T> const sorted = as_array(a).template astype<T>();
  Array<T> const values = as_array(v).template astype<T>();
  return detail::bind<primitives::searchsorted_p>({side == "right", 0}, sorted, values);
}

/// One value: a 0-d result (the value takes a's dtype, as a weak scalar does).
template <ArrayLike A, Scalar S>
Array<std::int32_t> searchsorted(A const& a, S v, std::string_view side = "left") {
  using T = promote_weak_t<value_type_t<A>, S>;
  auto [value, data] = detail::allocate<T>(Shape{});
  data[0] = static_cast<T>(v);
  return searchsorted(a, value, side);
}

/// jnp.sort_complex: `a` sorted along its last axis (complex numbers by
/// real part, then imaginary part), as complex (complex64 for float32 and
/// smaller dtypes, complex128 for float64).
template <ArrayLike A>
auto sort_complex(A const& a) {
  using T = value_type_t<A>;
  using C = std::complex<real_t<float_t<T>>>;
  auto const x = as_array(a);
  if (x.ndim() == 0) detail::throw_error("sort_complex: axis -1 is out of bounds for array of dimension 0");
  return detail::bind<primitives::sort_p>({x.ndim() - 1, false}, x).template astype<C>();
}

}  // namespace jaxcc::numpy
