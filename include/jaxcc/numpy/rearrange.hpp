// jax.numpy's rearranging functions: flip, fliplr, flipud, rot90, roll,
// tile, repeat, resize. Each is built from existing operations (take's gather, slice,
// concatenate, broadcast_in_dim, reshape), so grad, vmap and jit go through
// their rules; none adds a primitive. Axes and repeat counts are static.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/slice.hpp"

namespace jaxcc::detail {

/// `x` reversed along each of `axes` (negative counts from the end), one
/// gather per axis of more than one element; `op` names the caller in errors.
template <Element T>
Array<T> flip_axes(Array<T> x, Axes const& axes, std::string_view op) {
  Axes dims;
  for (auto a : axes) dims.push_back(normalize_axis(a, x.ndim(), op));
  for (std::size_t i = 0; i < dims.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (dims[i] == dims[j]) throw_error("rev dimensions must be unique, got ", Shape(dims.begin(), dims.end()), ".");
  for (auto d : dims) x = reversed_along(x, d);
  return x;
}

/// Pairs (axis, shift) as np.broadcast_arrays(axis, shift) makes them.
inline std::vector<std::pair<std::int64_t, std::int64_t>> roll_pairs(Axes const& axis, Axes const& shift) {
  if (axis.size() != shift.size() && axis.size() != 1 && shift.size() != 1)
    throw_error("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with "
                "shape (", axis.size(), ",) and arg 1 with shape (", shift.size(), ",).");
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  auto const n = std::max(axis.size(), shift.size());
  if (axis.empty() || shift.empty()) return out;
  for (std::size_t i = 0; i < n; ++i) out.emplace_back(axis[axis.size() == 1 ? 0 : i], shift[shift.size() == 1 ? 0 : i]);
  return out;
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// Reverse the order of elements along `axis` (negative counts from the end).
template <ArrayLike A>
Array<value_type_t<A>> flip(A const& m, std::int64_t axis) {
  return detail::flip_axes(as_array(m), Axes{axis}, "flip");
}
/// Reverse along each of `axis` (distinct axes).
template <ArrayLike A>
Array<value_type_t<A>> flip(A const& m, Axes const& axis) {
  return detail::flip_axes(as_array(m), axis, "flip");
}
/// Reverse along every axis.
template <ArrayLike A>
Array<value_type_t<A>> flip(A const& m, none_t = none) {
  auto const x = as_array(m);
  Axes all;
  for (std::int64_t d = 0; d < x.ndim(); ++d) all.push_back(d);
  return detail::flip_axes(x, all, "flip");
}
/// Reverse along axis 1 (left/right); `m` must be at least 2-D.
template <ArrayLike A>
Array<value_type_t<A>> fliplr(A const& m) {
  return detail::flip_axes(as_array(m), Axes{1}, "fliplr");
}
/// Reverse along axis 0 (up/down); `m` must be at least 1-D.
template <ArrayLike A>
Array<value_type_t<A>> flipud(A const& m) {
  return detail::flip_axes(as_array(m), Axes{0}, "flipud");
}

/// `m` rotated by 90 degrees k times in the plane of `axes` (from the first
/// axis towards the second): flips and a transpose, as JAX does.
template <ArrayLike A>
Array<value_type_t<A>> rot90(A const& m, std::int64_t k = 1, Axes const& axes = {0, 1}) {
  auto const x = as_array(m);
  if (x.ndim() < 2)
    detail::throw_error("rot90 requires its first argument to have ndim at least two, but got first argument of "
                        "shape ", x.shape(), ", which has ndim ", x.ndim());
  if (axes.size() != 2)
    detail::throw_error("rot90: axes must be a pair of axes, got ", Shape(axes.begin(), axes.end()));
  auto const ax1 = detail::normalize_axis(axes[0], x.ndim(), "rot90");
  auto const ax2 = detail::normalize_axis(axes[1], x.ndim(), "rot90");
  if (ax1 == ax2) throw Error("Axes must be different");
  k = ((k % 4) + 4) % 4;
  if (k == 0) return x;
  if (k == 2) return detail::flip_axes(x, Axes{ax1, ax2}, "rot90");
  Axes perm;
  for (std::int64_t d = 0; d < x.ndim(); ++d) perm.push_back(d == ax1 ? ax2 : d == ax2 ? ax1 : d);
  if (k == 1) return lax::transpose(detail::flip_axes(x, Axes{ax2}, "rot90"), perm);
  return detail::flip_axes(lax::transpose(x, perm), Axes{ax2}, "rot90");
}

/// Roll elements along axes: element i of axis[k] moves to (i + shift[k])
/// mod n. `shift` and `axis` broadcast against each other as in JAX (one
/// shift for several axes, or several shifts applied in turn to one axis);
/// other lengths must match. Shifts wrap: negative or larger than the axis.
template <ArrayLike A>
Array<value_type_t<A>> roll(A const& a, Axes const& shift, Axes const& axis) {
  auto x = as_array(a);
  Axes dims;
  for (auto d : axis) dims.push_back(detail::normalize_axis(d, x.ndim(), "roll"));
  for (auto [ax, s] : detail::roll_pairs(dims, shift)) {
    auto const at = static_cast<std::size_t>(ax);
    auto const n = x.shape()[at];
    if (n == 0) continue;
    auto const i = ((-s) % n + n) % n;  // the first element of the result
    if (i == 0) continue;
    x = lax::concatenate(
        std::vector<Array<value_type_t<A>>>{detail::slice_in_dim(x, i, n, 1, ax), detail::slice_in_dim(x, 0, i, 1, ax)}, ax);
  }
  return x;
}
template <ArrayLike A>
Array<value_type_t<A>> roll(A const& a, std::int64_t shift, std::int64_t axis) {
  return roll(a, Axes{shift}, Axes{axis});
}
template <ArrayLike A>
Array<value_type_t<A>> roll(A const& a, std::int64_t shift, Axes const& axis) {
  return roll(a, Axes{shift}, axis);
}
template <ArrayLike A>
Array<value_type_t<A>> roll(A const& a, Axes const& shift, std::int64_t axis) {
  return roll(a, shift, Axes{axis});
}
/// axis = none: `a` is flattened, rolled and given its shape back.
template <ArrayLike A>
Array<value_type_t<A>> roll(A const& a, Axes const& shift, none_t = none) {
  auto const x = as_array(a);
  return lax::reshape(roll(ravel(x), shift, Axes{0}), x.shape());
}
template <ArrayLike A>
Array<value_type_t<A>> roll(A const& a, std::int64_t shift, none_t = none) {
  return roll(a, Axes{shift}, none);
}

/// `a` repeated reps[d] times along each axis. Shorter `reps` than a.ndim
/// get leading 1s; longer ones give `a` leading size-1 axes (numpy's rule).
/// One broadcast (each axis d becomes the pair (reps[d], shape[d])) and one reshape.
template <ArrayLike A>
Array<value_type_t<A>> tile(A const& a, Axes const& reps) {
  auto x = as_array(a);
  for (auto r : reps)
    if (r < 0) detail::throw_error("tile: reps must be nonnegative, got ", Shape(reps.begin(), reps.end()));
  Axes full(static_cast<std::size_t>(std::max<std::int64_t>(0, x.ndim() - static_cast<std::int64_t>(reps.size()))), 1);
  full.insert(full.end(), reps.begin(), reps.end());
  auto const rank = static_cast<std::int64_t>(full.size());
  if (rank > x.ndim()) {
    Axes lead;
    for (std::int64_t d = 0; d < rank - x.ndim(); ++d) lead.push_back(d);
    x = lax::expand_dims(x, lead);
  }
  if (std::all_of(full.begin(), full.end(), [](auto r) { return r == 1; })) return x;
  Shape pairs, out;
  Axes dims;
  for (std::size_t d = 0; d < full.size(); ++d) {
    pairs.push_back(full[d]);
    pairs.push_back(x.shape()[d]);
    dims.push_back(static_cast<std::int64_t>(2 * d + 1));
    out.push_back(full[d] * x.shape()[d]);
  }
  return lax::reshape(lax::broadcast_in_dim(x, pairs, dims), out);
}
template <ArrayLike A>
Array<value_type_t<A>> tile(A const& a, std::int64_t reps) {
  return tile(a, Axes{reps});
}

/// Each element of `a` repeated `repeats` times along `axis` (negative counts
/// from the end): a broadcast along a new axis after it, then a reshape.
/// A 0-d `a` ignores the axis, as JAX: `repeats` copies of it.
template <ArrayLike A>
Array<value_type_t<A>> repeat(A const& a, std::int64_t repeats, std::int64_t axis) {
  auto const x = as_array(a);
  if (repeats < 0) detail::throw_error("repeat: repeats may not contain negative values, got ", repeats);
  if (x.ndim() == 0) return lax::broadcast_in_dim(x, Shape{repeats}, {});
  auto const ax = detail::normalize_axis(axis, x.ndim(), "repeat");
  Shape wide = x.shape();
  wide.insert(wide.begin() + ax + 1, repeats);
  Axes dims;
  for (std::int64_t d = 0; d <= x.ndim(); ++d)
    if (d != ax + 1) dims.push_back(d);
  Shape out = x.shape();
  out[static_cast<std::size_t>(ax)] *= repeats;
  return lax::reshape(lax::broadcast_in_dim(x, wide, dims), out);
}
/// Element i along `axis` repeated repeats[i] times (one count broadcasts to
/// every element): a gather of static indices.
template <ArrayLike A>
Array<value_type_t<A>> repeat(A const& a, Axes const& repeats, std::int64_t axis) {
  auto const x = as_array(a);
  for (auto r : repeats)
    if (r < 0)
      detail::throw_error("repeat: repeats may not contain negative values, got ",
                          Shape(repeats.begin(), repeats.end()));
  if (repeats.size() == 1) return repeat(x, repeats[0], axis);
  if (x.ndim() == 0)
    throw Error(
        "`repeat` with a scalar parameter `a` is only implemented for scalar values of the parameter `repeats`.");
  auto const ax = detail::normalize_axis(axis, x.ndim(), "repeat");
  auto const at = static_cast<std::size_t>(ax);
  auto const n = x.shape()[at];
  if (static_cast<std::int64_t>(repeats.size()) != n)
    detail::throw_error("operands could not be broadcast together with remapped shapes [original->remapped]: (",
                        repeats.size(), ",)  and requested shape (", n, ",)");
  std::vector<std::int64_t> index;
  for (std::int64_t i = 0; i < n; ++i) index.insert(index.end(), static_cast<std::size_t>(repeats[static_cast<std::size_t>(i)]), i);
  // Nothing repeated: an empty slice keeps the dependence on `a`.
  if (index.empty()) return detail::slice_in_dim(x, 0, 0, 1, ax);
  auto const count = static_cast<std::int64_t>(index.size());
  return take(x, array(index, Shape{count}), ax, "clip");
}
/// axis = none: `a` is flattened first.
template <ArrayLike A>
Array<value_type_t<A>> repeat(A const& a, std::int64_t repeats, none_t = none) {
  return repeat(ravel(a), repeats, 0);
}
template <ArrayLike A>
Array<value_type_t<A>> repeat(A const& a, Axes const& repeats, none_t = none) {
  return repeat(ravel(a), repeats, 0);
}

/// `a` flattened, repeated as often as needed and cut to fill `new_shape`
/// (zeros when either is empty).
template <ArrayLike A>
Array<value_type_t<A>> resize(A const& a, Shape const& new_shape) {
  for (auto d : new_shape)
    if (d < 0) throw Error("all elements of `new_shape` must be non-negative");
  auto const flat = ravel(a);
  auto const new_size = new_shape.numel();
  if (flat.size() == 0 || new_size == 0) return zeros<value_type_t<A>>(new_shape);
  auto const repeats = (new_size + flat.size() - 1) / flat.size();
  return lax::reshape(lax::slice(tile(flat, repeats), Axes{0}, Axes{new_size}), new_shape);
}
template <ArrayLike A, std::integral N>
  requires(!std::same_as<N, bool>)
Array<value_type_t<A>> resize(A const& a, N new_shape) {
  return resize(a, Shape{static_cast<std::int64_t>(new_shape)});
}

}  // namespace jaxcc::numpy
