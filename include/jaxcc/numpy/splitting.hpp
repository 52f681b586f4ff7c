// jax.numpy's splitting functions beside split (numpy/layout.hpp):
// array_split, hsplit, vsplit, dsplit, unstack. The parts are views
// (lax::slice, squeeze), each a std::vector; grad, vmap and jit go through
// those operations' rules. Section counts and split indices are static.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/primitives/squeeze.hpp"

namespace jaxcc::detail {

/// The split indices of `sections` parts of `size` elements, as JAX's
/// _split gives them: the first size % sections parts one element longer
/// when `uneven` (array_split), else JAX's error for a remainder.
inline Axes section_boundaries(std::int64_t size, std::int64_t sections, bool uneven, std::string_view op) {
  if (sections <= 0) throw_error(op, ": number sections must be larger than 0.");
  auto const part = size / sections, rest = size % sections;
  if (rest != 0 && !uneven) throw_error("array split does not result in an equal division: rest is ", rest);
  Axes boundaries;
  std::int64_t at = 0;
  for (std::int64_t k = 0; k + 1 < sections; ++k) boundaries.push_back(at += part + (k < rest ? 1 : 0));
  return boundaries;
}

/// jnp's _split: the axis checked with `op`'s name, then split's parts.
template <Element T>
std::vector<Array<T>> split_sections(Array<T> const& x, std::int64_t sections, std::int64_t axis, bool uneven,
                                     std::string_view op) {
  auto const ax = normalize_axis(axis, x.ndim(), op);
  return numpy::split(x, section_boundaries(x.shape()[static_cast<std::size_t>(ax)], sections, uneven, op), ax);
}
template <Element T>
std::vector<Array<T>> split_indices(Array<T> const& x, Axes const& indices, std::int64_t axis, std::string_view op) {
  return numpy::split(x, indices, normalize_axis(axis, x.ndim(), op));
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// Split into `sections` parts along `axis`; where they cannot be equal the
/// first size % sections parts have one element more (views).
template <ArrayLike A, std::integral S>
  requires(!std::same_as<S, bool>)
std::vector<Array<value_type_t<A>>> array_split(A const& ary, S sections, std::int64_t axis = 0) {
  return detail::split_sections(as_array(ary), static_cast<std::int64_t>(sections), axis, true, "array_split");
}
/// Split before each of `indices` along `axis`, as split does.
template <ArrayLike A>
std::vector<Array<value_type_t<A>>> array_split(A const& ary, Axes const& indices, std::int64_t axis = 0) {
  return detail::split_indices(as_array(ary), indices, axis, "array_split");
}

/// split along axis 0.
template <ArrayLike A, std::integral S>
  requires(!std::same_as<S, bool>)
std::vector<Array<value_type_t<A>>> vsplit(A const& ary, S sections) {
  return detail::split_sections(as_array(ary), static_cast<std::int64_t>(sections), 0, false, "vsplit");
}
template <ArrayLike A>
std::vector<Array<value_type_t<A>>> vsplit(A const& ary, Axes const& indices) {
  return detail::split_indices(as_array(ary), indices, 0, "vsplit");
}
/// split along axis 1 (axis 0 for a 1-D array).
template <ArrayLike A, std::integral S>
  requires(!std::same_as<S, bool>)
std::vector<Array<value_type_t<A>>> hsplit(A const& ary, S sections) {
  auto const x = as_array(ary);
  return detail::split_sections(x, static_cast<std::int64_t>(sections), x.ndim() == 1 ? 0 : 1, false, "hsplit");
}
template <ArrayLike A>
std::vector<Array<value_type_t<A>>> hsplit(A const& ary, Axes const& indices) {
  auto const x = as_array(ary);
  return detail::split_indices(x, indices, x.ndim() == 1 ? 0 : 1, "hsplit");
}
/// split along axis 2.
template <ArrayLike A, std::integral S>
  requires(!std::same_as<S, bool>)
std::vector<Array<value_type_t<A>>> dsplit(A const& ary, S sections) {
  return detail::split_sections(as_array(ary), static_cast<std::int64_t>(sections), 2, false, "dsplit");
}
template <ArrayLike A>
std::vector<Array<value_type_t<A>>> dsplit(A const& ary, Axes const& indices) {
  return detail::split_indices(as_array(ary), indices, 2, "dsplit");
}

/// The slices of `x` along `axis` (views), that axis removed from each.
template <ArrayLike A>
std::vector<Array<value_type_t<A>>> unstack(A const& x, std::int64_t axis = 0) {
  auto const a = as_array(x);
  auto const ax = detail::normalize_axis(axis, a.ndim(), "unstack");
  auto const n = a.shape()[static_cast<std::size_t>(ax)];
  std::vector<Array<value_type_t<A>>> out;
  if (n == 0) return out;
  Axes boundaries;
  for (std::int64_t k = 1; k < n; ++k) boundaries.push_back(k);
  for (auto const& part : split(a, boundaries, ax)) out.push_back(lax::squeeze(part, Axes{ax}));
  return out;
}

}  // namespace jaxcc::numpy
