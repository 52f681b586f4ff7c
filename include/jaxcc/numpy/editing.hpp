// jax.numpy's functions that add or remove elements along an axis: insert,
// delete, trim_zeros (append is with the stacking functions). Built from
// slices, concatenate, gathers and scatters of integer positions, so grad,
// vmap and jit go through their rules; none adds a primitive. Positions
// given as C++ integers or concrete arrays are static; insert also takes
// traced positions, delete with assume_unique_indices too. trim_zeros reads
// its input's values, so it needs a concrete array, as in JAX.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/numpy/stacking.hpp"
#include "jaxcc/primitives/concatenate.hpp"

namespace jaxcc::detail {

/// An index that takes every position of each axis but `axis`, where it is `index`.
inline std::vector<IndexItem> items_along(std::int64_t ndim, std::int64_t axis, Array<std::int32_t> const& index) {
  std::vector<IndexItem> items(static_cast<std::size_t>(ndim));
  items[static_cast<std::size_t>(axis)] = IndexItem{IndexItem::Kind::array, 0, {}, index};
  return items;
}

/// x[..., keep, ...] at `axis` for static positions `keep`.
template <Element T>
Array<T> keep_along(Array<T> const& x, std::int64_t axis, std::vector<std::int32_t> const& keep) {
  if (keep.empty()) return slice_in_dim(x, 0, 0, 1, axis);
  return index_array(x, items_along(x.ndim(), axis, numpy::array(keep, Shape{static_cast<std::int64_t>(keep.size())})),
                     false);
}

/// delete's static positions (numpy's: negatives count from the end) as the complement to keep.
template <Element T>
Array<T> delete_static(Array<T> const& x, std::int64_t axis, std::vector<std::int64_t> const& positions) {
  auto const n = x.shape()[static_cast<std::size_t>(axis)];
  std::vector<bool> gone(static_cast<std::size_t>(n), false);
  for (auto p : positions) {
    if (p < -n || p >= n) throw_error("index ", p, " is out of bounds for axis ", axis, " with size ", n);
    gone[static_cast<std::size_t>(p < 0 ? p + n : p)] = true;
  }
  std::vector<std::int32_t> keep;
  for (std::int64_t i = 0; i < n; ++i)
    if (!gone[static_cast<std::size_t>(i)]) keep.push_back(static_cast<std::int32_t>(i));
  return keep_along(x, axis, keep);
}

/// An optional axis: an integer, or `jaxcc::none` (the array flattened).
struct OptionalAxis {
  OptionalAxis(none_t) {}
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  OptionalAxis(I a) : axis(static_cast<std::int64_t>(a)) {}
  std::optional<std::int64_t> axis;
};

/// `x` and the axis to work along: flattened and 0 without one.
template <Element T>
std::pair<Array<T>, std::int64_t> along(Array<T> const& x, OptionalAxis const& axis, std::string_view op) {
  if (!axis.axis) return {numpy::ravel(x), 0};
  return {x, normalize_axis(*axis.axis, x.ndim(), op)};
}

/// insert's values as an array of T.
template <Element T, class V>
Array<T> as_values(V const& values) {
  if constexpr (Scalar<V>) return filled<T>(Shape{}, values);
  else return fusion::cast<T>(values);
}

// The int32 arrays below have types that depend on a template parameter,
// so that a file that never inserts or deletes compiles none of their
// arithmetic.

/// Each position's rank in a stable ascending sort of the 1-D `o`:
/// #{j : o[j] < o[i]} + #{j < i : o[j] == o[i]}.
template <class D = void>
Array<std::int32_t> stable_rank(Array<dependent_t<D, std::int32_t>> const& o) {
  auto const k = o.size();
  auto const col = lax::expand_dims(o, Axes{1}), row = lax::expand_dims(o, Axes{0});
  auto const pos = numpy::arange<std::int32_t>(k);
  auto const before = lax::expand_dims(pos, Axes{0}) < lax::expand_dims(pos, Axes{1});
  Array<bool> const below = numpy::logical_or(row < col, numpy::logical_and(row == col, before));
  return numpy::sum(below, 1).template astype<std::int32_t>();
}

/// insert's positions (1-D, clipped into [0, n]) and values (of a's rank,
/// broadcast along `axis` to one slice per position): the output with
/// values at positions + stable_rank(positions) and a's slice j at
/// j + #{positions <= j}, both written by scatters into zeros.
template <Element T>
Array<T> insert_at(Array<T> const& a, std::int64_t axis, Array<dependent_t<T, std::int32_t>> idx, Array<T> const& values) {
  auto const n = a.shape()[static_cast<std::size_t>(axis)];
  idx = numpy::clip(numpy::where(idx < 0, idx + static_cast<std::int32_t>(n), idx), 0, static_cast<std::int32_t>(n));
  auto const values_ind = idx + stable_rank(idx);
  auto const j = numpy::arange<std::int32_t>(n);
  Array<std::int32_t> const arr_ind =
      j + numpy::sum(lax::expand_dims(idx, Axes{1}) <= lax::expand_dims(j, Axes{0}), 0).template astype<std::int32_t>();
  Shape shape = a.shape();
  shape[static_cast<std::size_t>(axis)] += idx.size();
  auto out = AtRef<T>(numpy::zeros<T>(shape), items_along(a.ndim(), axis, values_ind)).set(values);
  return AtRef<T>(out, items_along(a.ndim(), axis, arr_ind)).set(a);
}

/// jnp.insert after its arguments are arrays: positions of rank 0 or 1.
template <Element T>
Array<T> insert_positions(Array<T> const& arr, Array<std::int32_t> const& indices, Array<T> values,
                          OptionalAxis const& axis) {
  auto const [a, ax] = along(arr, axis, "insert");
  if (indices.ndim() > 1)
    throw_error("jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got an array of shape ",
                indices.shape());
  values = at_least_rank(values, a.ndim());
  auto idx = indices;
  if (indices.size() == 1) {
    if (indices.ndim() == 0) values = numpy::moveaxis(values, 0, ax);
    idx = lax::broadcast_in_dim(lax::reshape(indices, Shape{}), Shape{values.shape()[static_cast<std::size_t>(ax)]}, {});
  }
  auto const count = numpy::broadcast_shapes({idx.shape(), Shape{values.shape()[static_cast<std::size_t>(ax)]}})[0];
  return insert_at(a, ax, numpy::broadcast_to(idx, Shape{count}), values);
}

/// trim_zeros's slice of one axis of concrete `x`: from its first slice
/// holding a nonzero (`front`) to past its last (`back`); empty when none does.
template <Element T>
std::pair<std::int64_t, std::int64_t> nonzero_span(Array<T> const& x, std::int64_t axis, bool front, bool back) {
  auto const nz = Array<bool>(x != T(0)).to_vector();
  auto const n = x.shape()[static_cast<std::size_t>(axis)];
  std::int64_t inner = 1;
  for (auto d = static_cast<std::size_t>(axis) + 1; d < x.shape().size(); ++d) inner *= x.shape()[d];
  std::int64_t first = n, last = -1;
  for (std::size_t f = 0; f < nz.size(); ++f)
    if (nz[f]) {
      auto const i = (static_cast<std::int64_t>(f) / inner) % n;
      first = std::min(first, i);
      last = std::max(last, i);
    }
  if (last < 0) return {0, 0};
  return {front ? first : 0, back ? last + 1 : n};
}

/// delete with unique (possibly traced) positions, as JAX's jit-compatible
/// path: positions clipped and sorted, then kept position i is i plus the
/// number of deleted positions at or below it.
template <Element T, Element I>
Array<T> delete_unique(Array<T> const& x, std::int64_t axis, Array<I> const& obj) {
  auto const n = x.shape()[static_cast<std::size_t>(axis)];
  Array<dependent_t<T, std::int32_t>> o = numpy::ravel(obj).template astype<std::int32_t>();
  o = numpy::clip(numpy::where(o < 0, o + static_cast<std::int32_t>(n), o), 0, static_cast<std::int32_t>(n));
  // sort(o) - arange(k), as a multiset: each position minus its stable rank.
  Array<std::int32_t> const base = o - stable_rank(o);
  auto const i = numpy::arange<std::int32_t>(std::max<std::int64_t>(0, n - o.size()));
  Array<std::int32_t> const kept =
      i + numpy::sum(lax::expand_dims(i, Axes{0}) >= lax::expand_dims(base, Axes{1}), 0).template astype<std::int32_t>();
  return index_array(x, items_along(x.ndim(), axis, kept), false);
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// jnp.delete (`delete` is a C++ keyword): `arr` without position `obj`
/// along `axis` (negative counts from the end); axis = none (the default):
/// `arr` flattened first.
template <ArrayLike A, std::integral S>
  requires(!std::same_as<S, bool>)
Array<value_type_t<A>> delete_(A const& arr, S obj, detail::OptionalAxis const& axis = none) {
  auto const [a, ax] = detail::along(as_array(arr), axis, "delete");
  auto const n = a.shape()[static_cast<std::size_t>(ax)];
  auto const at = detail::normalize_axis(static_cast<std::int64_t>(obj), n, "delete");
  return lax::concatenate(std::vector{detail::slice_in_dim(a, 0, at, 1, ax), detail::slice_in_dim(a, at + 1, n, 1, ax)},
                          ax);
}
/// Without the static positions `obj` (repeats allowed).
template <ArrayLike A>
Array<value_type_t<A>> delete_(A const& arr, Axes const& obj, detail::OptionalAxis const& axis = none) {
  auto const [a, ax] = detail::along(as_array(arr), axis, "delete");
  return detail::delete_static(a, ax, std::vector<std::int64_t>(obj.begin(), obj.end()));
}
/// Positions in an integer array, or a bool mask of the axis's length
/// (true: deleted). The array must be concrete unless the positions are
/// integers and `assume_unique_indices` says they have no repeats; then
/// they may be traced.
template <ArrayLike A, ArrayLike O>
Array<value_type_t<A>> delete_(A const& arr, O const& obj, detail::OptionalAxis const& axis = none,
                               bool assume_unique_indices = false) {
  using I = value_type_t<O>;
  auto const [a, ax] = detail::along(as_array(arr), axis, "delete");
  auto const o = as_array(obj);
  if (o.is_traced() && !(std::integral<I> && assume_unique_indices))
    detail::throw_concretization_error(o.shape(), o.dtype(), "jnp::delete_ (its obj array)");
  if constexpr (std::same_as<I, bool>) {
    auto const n = a.shape()[static_cast<std::size_t>(ax)];
    if (!(o.shape() == Shape{n}))
      throw Error("np.delete(arr, obj): for boolean indices, obj must be one-dimensional with length matching "
                  "specified axis.");
    auto const mask = o.to_vector();
    std::vector<std::int64_t> gone;
    for (std::int64_t i = 0; i < n; ++i)
      if (mask[static_cast<std::size_t>(i)]) gone.push_back(i);
    return detail::delete_static(a, ax, gone);
  } else if constexpr (!std::integral<I>) {
    detail::throw_error("np.delete(arr, obj): got obj.dtype=", name(dtype_of<I>), "; must be integer or bool.");
  } else {
    if (assume_unique_indices) return detail::delete_unique(a, ax, o);
    auto const positions = o.to_vector();
    return detail::delete_static(a, ax, std::vector<std::int64_t>(positions.begin(), positions.end()));
  }
}

/// `values` (cast to arr's dtype; given leading size-1 axes up to its rank)
/// inserted before position `obj` along `axis` (negative counts from the
/// end, positions past the end append); axis = none: `arr` flattened first.
/// One position: values' axis 0 becomes `axis` and each of its slices goes
/// in. Several (a 1-D array, or a braced list, even of one): one slice of
/// values each, before the given position of `arr`; they may be traced.
template <ArrayLike A, std::integral S, class V>
  requires(!std::same_as<S, bool>) && detail::ArrayOrScalar<V>
Array<value_type_t<A>> insert(A const& arr, S obj, V const& values, detail::OptionalAxis const& axis = none) {
  using T = value_type_t<A>;
  return detail::insert_positions(as_array(arr), full<std::int32_t>(Shape{}, static_cast<std::int64_t>(obj)), detail::as_values<T>(values), axis);
}
template <ArrayLike A, class V>
  requires detail::ArrayOrScalar<V>
Array<value_type_t<A>> insert(A const& arr, Axes const& obj, V const& values, detail::OptionalAxis const& axis = none) {
  using T = value_type_t<A>;
  std::vector<std::int32_t> positions(obj.begin(), obj.end());
  return detail::insert_positions(as_array(arr), array(positions, Shape{static_cast<std::int64_t>(obj.size())}),
                                  detail::as_values<T>(values), axis);
}
template <ArrayLike A, ArrayLike O, class V>
  requires std::integral<value_type_t<O>> && (!std::same_as<value_type_t<O>, bool>) && detail::ArrayOrScalar<V>
Array<value_type_t<A>> insert(A const& arr, O const& obj, V const& values, detail::OptionalAxis const& axis = none) {
  using T = value_type_t<A>;
  return detail::insert_positions(as_array(arr), as_array(obj).template astype<std::int32_t>(),
                                  detail::as_values<T>(values), axis);
}

/// `filt` with its leading (`trim` has 'f') and trailing ('b') slices of
/// zeros removed along each of `axis` (default: every axis). It reads the
/// values, so `filt` must be concrete (under jit: JAX's concretization error).
template <ArrayLike A>
Array<value_type_t<A>> trim_zeros(A const& filt, std::string_view trim = "fb", detail::AxisArg const& axis = {}) {
  auto const x = as_array(filt);
  if (x.is_traced()) detail::throw_concretization_error(x.shape(), x.dtype(), "jnp::trim_zeros");
  auto const axes = axis.resolve(x.ndim(), "trim_zeros");
  auto const has = [&](char c) { return trim.find(c) != trim.npos || trim.find(static_cast<char>(c - 32)) != trim.npos; };
  if (axes.empty() || (!has('f') && !has('b'))) return x;
  Axes start(x.shape().size(), 0), limit(x.shape().begin(), x.shape().end());
  for (auto ax : axes) {
    auto const [lo, hi] = detail::nonzero_span(x, ax, has('f'), has('b'));
    start[static_cast<std::size_t>(ax)] = lo;
    limit[static_cast<std::size_t>(ax)] = hi;
  }
  return lax::slice(x, start, limit);
}

}  // namespace jaxcc::numpy
