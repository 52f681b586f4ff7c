// jax.lax's shape functions beyond the primitives' own (broadcast_in_dim,
// expand_dims, squeeze, reshape, transpose, concatenate): reshape with
// `dimensions`, broadcast,
// broadcast_like, broadcast_shapes, broadcast_to_rank, iota,
// broadcasted_iota, collapse, rev, tile, full, full_like, empty, stack,
// unstack, split. Each is built from existing operations (broadcast_in_dim,
// reshape, slice, concatenate, the reversing gather), so grad, vmap and jit
// go through their rules; none adds a primitive. Sizes, axes and repeat
// counts are static.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/slice.hpp"
#include "jaxcc/primitives/squeeze.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::detail {

/// A list of dimensions as JAX prints a tuple: (1, 2) or (1,).
template <class = void>
std::string dims_tuple(Axes const& dims) { return to_string(Shape(dims.begin(), dims.end())); }

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.broadcast: `operand` with new leading dimensions `sizes`.
template <ArrayLike A>
Array<value_type_t<A>> broadcast(A const& operand, Shape const& sizes) {
  auto const x = as_array(operand);
  if (sizes.empty()) return x;
  Shape shape = sizes;
  Axes dims;
  for (std::int64_t d = 0; d < x.ndim(); ++d) {
    shape.push_back(x.shape()[static_cast<std::size_t>(d)]);
    dims.push_back(static_cast<std::int64_t>(sizes.size()) + d);
  }
  return broadcast_in_dim(x, shape, dims);
}

/// lax.reshape with `dimensions`: the operand's dimensions taken in that
/// order (a permutation), then reshaped to `new_sizes` (row-major).
template <ArrayLike A>
Array<value_type_t<A>> reshape(A const& operand, Shape const& new_sizes, Axes const& dimensions) {
  auto const x = as_array(operand);
  Axes sorted = dimensions;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = static_cast<std::int64_t>(sorted.size()) == x.ndim();
  for (std::size_t d = 0; permutation && d < sorted.size(); ++d) permutation = sorted[d] == static_cast<std::int64_t>(d);
  if (!permutation)
    detail::throw_error("reshape dimensions must be a permutation of operand dimensions, got dimensions ",
                        detail::dims_tuple(dimensions), " for shape ", x.shape(), ".");
  return reshape(transpose(x, dimensions), new_sizes);
}

/// lax.broadcast_shapes: the numpy broadcast of `shapes`.
template <class = void>
Shape broadcast_shapes(std::vector<Shape> const& shapes) {
  if (shapes.empty()) return Shape{};
  std::size_t rank = 0;
  for (auto const& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (auto const& s : shapes)
    for (std::size_t i = 0; i < s.size(); ++i) {
      auto& o = out[rank - s.size() + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o != 1) {
        std::ostringstream os;
        os << "Incompatible shapes for broadcasting: shapes=[";
        for (std::size_t k = 0; k < shapes.size(); ++k) os << (k ? ", " : "") << shapes[k];
        os << "]";
        throw Error(os.str());
      }
      o = s[i];
    }
  return out;
}
template <class... S>
  requires(std::convertible_to<S const&, Shape> && ...)
Shape broadcast_shapes(Shape const& first, S const&... rest) {
  return broadcast_shapes(std::vector<Shape>{first, Shape(rest)...});
}

/// lax.broadcast_like: `arr` broadcast (numpy's rule) to the shape of `like_arr`.
template <ArrayLike A, ArrayLike L>
Array<value_type_t<A>> broadcast_like(A const& arr, L const& like_arr) {
  auto const x = as_array(arr);
  Shape const target = like_arr.shape();
  if (x.shape() == target) return x;
  auto const lead = target.rank() - x.ndim();
  bool compatible = lead >= 0;
  for (std::int64_t d = 0; compatible && d < x.ndim(); ++d) {
    auto const in = x.shape()[static_cast<std::size_t>(d)];
    compatible = in == 1 || in == target[static_cast<std::size_t>(lead + d)];
  }
  if (!compatible)
    detail::throw_error("Incompatible shapes for broadcasting: ", x.shape(), " and requested shape ", target);
  Axes dims;
  for (std::int64_t d = 0; d < x.ndim(); ++d) dims.push_back(lead + d);
  return broadcast_in_dim(x, target, dims);
}

/// lax.broadcast_to_rank: `x` with leading size-1 dimensions up to `rank`.
template <ArrayLike A>
Array<value_type_t<A>> broadcast_to_rank(A const& x, std::int64_t rank) {
  auto const a = as_array(x);
  if (rank <= a.ndim()) return a;
  return broadcast(a, Shape(static_cast<std::size_t>(rank - a.ndim()), 1));
}

/// lax.broadcasted_iota: an array of `shape` whose elements count 0, 1, ...
/// along `dimension`.
template <Element T>
Array<T> broadcasted_iota(Shape const& shape, std::int64_t dimension) {
  static_assert(!std::same_as<T, bool>, "lax::broadcasted_iota: iota does not accept dtype bool");
  if (dimension < 0 || dimension >= shape.rank())
    detail::throw_error("iota dimension must be between 0 and len(shape), got dimension=", dimension,
                        " for shape=", shape);
  for (auto d : shape)
    if (d < 0) detail::throw_error("iota shape must have every element be nonnegative, got ", shape, ".");
  auto const n = shape[static_cast<std::size_t>(dimension)];
  return broadcast_in_dim(detail::iota<T>(n), shape, {dimension});
}

/// lax.iota: 0, 1, ..., size - 1.
template <Element T>
Array<T> iota(std::int64_t size) {
  return broadcasted_iota<T>(Shape{size}, 0);
}

/// lax.collapse: dimensions [start_dimension, stop_dimension) merged into
/// one (Python slice bounds: negative counts from the end, none means to the end).
template <ArrayLike A>
Array<value_type_t<A>> collapse(A const& operand, std::int64_t start_dimension,
                                std::optional<std::int64_t> stop_dimension = std::nullopt) {
  auto const x = as_array(operand);
  auto const rank = x.ndim();
  auto bound = [rank](std::int64_t i) { return std::clamp<std::int64_t>(i < 0 ? i + rank : i, 0, rank); };
  auto const lo = bound(start_dimension);
  auto const hi = stop_dimension ? bound(*stop_dimension) : rank;
  if (hi < lo) {
    std::ostringstream os;
    os << "Invalid dimension range passed to collapse: " << x.shape() << "[" << start_dimension << ":"
       << (stop_dimension ? std::to_string(*stop_dimension) : std::string("None")) << "]";
    throw Error(os.str());
  }
  Shape shape(x.shape().begin(), x.shape().begin() + lo);
  std::int64_t size = 1;
  for (auto d = lo; d < hi; ++d) size *= x.shape()[static_cast<std::size_t>(d)];
  shape.push_back(size);
  shape.insert(shape.end(), x.shape().begin() + hi, x.shape().end());
  return reshape(x, shape);
}

/// lax.rev: `operand` reversed along each of `dimensions` (non-negative, distinct).
template <ArrayLike A>
Array<value_type_t<A>> rev(A const& operand, Axes const& dimensions) {
  auto x = as_array(operand);
  for (auto d : dimensions)
    if (d < 0)
      detail::throw_error("rev dimensions must have every element be nonnegative, got ", detail::dims_tuple(dimensions),
                          ".");
  for (std::size_t i = 0; i < dimensions.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (dimensions[i] == dimensions[j])
        detail::throw_error("rev dimensions must be unique, got ", detail::dims_tuple(dimensions), ".");
  for (auto d : dimensions)
    if (d >= x.ndim())
      detail::throw_error("rev dimensions must all be less than operand ndim, got dimensions ",
                          detail::dims_tuple(dimensions), " for operand ndim ", x.ndim(), ".");
  for (auto d : dimensions) x = detail::reversed_along(x, d);
  return x;
}

/// lax.tile: `operand` repeated reps[d] times along each dimension d (one
/// count per dimension).
template <ArrayLike A>
Array<value_type_t<A>> tile(A const& operand, Axes const& reps) {
  auto const x = as_array(operand);
  if (static_cast<std::int64_t>(reps.size()) != x.ndim())
    detail::throw_error("reps length must be equal to the ndim of x, got len(reps)=", reps.size(),
                        " and x.ndim=", x.ndim(), ".");
  for (auto r : reps)
    if (r < 0) detail::throw_error("tile: reps must be nonnegative, got ", detail::dims_tuple(reps));
  if (std::all_of(reps.begin(), reps.end(), [](auto r) { return r == 1; })) return x;
  // Each dimension d becomes the pair (reps[d], shape[d]): one broadcast, one reshape.
  Shape pairs, out;
  Axes dims;
  for (std::size_t d = 0; d < reps.size(); ++d) {
    pairs.push_back(reps[d]);
    pairs.push_back(x.shape()[d]);
    dims.push_back(static_cast<std::int64_t>(2 * d + 1));
    out.push_back(reps[d] * x.shape()[d]);
  }
  return reshape(broadcast_in_dim(x, pairs, dims), out);
}

/// lax.full: an array of `shape` filled with `fill_value`, of dtype T.
template <Element T, Scalar S>
Array<T> full(Shape const& shape, S fill_value) {
  return detail::filled<T>(shape, fill_value);
}
/// lax.full with an array fill value (rank 0), broadcast: differentiable in it.
template <ArrayLike A>
Array<value_type_t<A>> full(Shape const& shape, A const& fill_value) {
  auto const v = as_array(fill_value);
  if (v.ndim() != 0) detail::throw_error("full must be called with scalar fill_value, got fill_value.shape ", v.shape(), ".");
  for (auto d : shape)
    if (d < 0) throw Error("full: negative dimensions are not allowed, got shape " + to_string(shape));
  return broadcast(v, shape);
}

/// lax.full_like: an array like `x` (its shape unless `shape` is given; its
/// dtype, or U) filled with `fill_value`.
template <class U = void, ArrayLike A, Scalar S>
auto full_like(A const& x, S fill_value, std::optional<Shape> const& shape = std::nullopt) {
  using T = std::conditional_t<std::is_void_v<U>, value_type_t<A>, U>;
  return full<T>(shape ? *shape : Shape(x.shape()), fill_value);
}

/// lax.empty: an array of `shape` and dtype T whose contents are
/// unspecified; here zeros, as JAX gives.
template <Element T>
Array<T> empty(Shape const& shape) {
  return detail::filled<T>(shape, 0);
}

/// lax.stack: `operands` (one shape) joined along a new dimension `axis`
/// (negative counts from the result's end).
template <Element T>
Array<T> stack(std::vector<Array<T>> const& operands, std::int64_t axis = 0) {
  if (operands.empty()) throw Error("stack expects at least one operand, got 0.");
  auto const same = [&](auto const& key) {
    return std::all_of(operands.begin(), operands.end(), [&](auto const& o) { return key(o) == key(operands[0]); });
  };
  auto const listed = [&] {
    std::ostringstream os;
    for (std::size_t k = 0; k < operands.size(); ++k) os << (k ? ", " : "") << operands[k].shape();
    return os.str();
  };
  if (!same([](auto const& o) { return o.ndim(); }))
    detail::throw_error("Cannot stack arrays with different numbers of dimensions: got ", listed(), ".");
  if (!same([](auto const& o) { return o.shape(); }))
    detail::throw_error("All input arrays must have the same shape. Got ", listed(), ".");
  auto const ax = detail::normalize_axis(axis, operands[0].ndim() + 1, "stack");
  std::vector<Array<T>> parts;
  for (auto const& o : operands) parts.push_back(expand_dims(o, {ax}));
  return concatenate(parts, ax);
}

/// lax.unstack: the slices of `x` along `axis`, that dimension removed.
template <ArrayLike A>
std::vector<Array<value_type_t<A>>> unstack(A const& x, std::int64_t axis = 0) {
  auto const a = as_array(x);
  auto const ax = detail::normalize_axis(axis, a.ndim(), "unstack");
  std::vector<Array<value_type_t<A>>> out;
  for (std::int64_t i = 0; i < a.shape()[static_cast<std::size_t>(ax)]; ++i)
    out.push_back(squeeze(detail::slice_in_dim(a, i, i + 1, 1, ax), {ax}));
  return out;
}

/// lax.split: consecutive pieces of `operand` along `axis` of the given
/// `sizes`, which sum to that dimension.
template <ArrayLike A>
std::vector<Array<value_type_t<A>>> split(A const& operand, Shape const& sizes, std::int64_t axis = 0) {
  auto const x = as_array(operand);
  auto const ax = detail::normalize_axis(axis, x.ndim(), "split");
  std::int64_t total = 0;
  for (auto s : sizes) total += s;
  std::ostringstream listed;
  listed << "[";
  for (std::size_t k = 0; k < sizes.size(); ++k) listed << (k ? ", " : "") << sizes[k];
  listed << "]";
  if (std::any_of(sizes.begin(), sizes.end(), [](auto s) { return s < 0; }))
    detail::throw_error("Sizes passed to split must be nonnegative, got ", listed.str());
  if (total != x.shape()[static_cast<std::size_t>(ax)]) {
    std::ostringstream shape;
    shape << "[";
    for (std::size_t d = 0; d < x.shape().size(); ++d) shape << (d ? ", " : "") << x.shape()[d];
    shape << "]";
    detail::throw_error("Sum of sizes ", total, " must be equal to dimension ", ax, " of the operand shape ",
                        shape.str());
  }
  std::vector<Array<value_type_t<A>>> out;
  std::int64_t at = 0;
  for (auto s : sizes) {
    out.push_back(detail::slice_in_dim(x, at, at + s, 1, ax));
    at += s;
  }
  return out;
}

}  // namespace jaxcc::lax
