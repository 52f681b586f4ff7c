// broadcast_in_dim: place the operand's dimensions at chosen positions of a
// larger shape and repeat it along the rest. Always a view: broadcast
// dimensions get stride 0, so nothing is copied. expand_dims is this
// primitive with size-1 target dimensions, as in JAX. Dtype-generic
// (graph/primitive_of.hpp): compiled once for every dtype.
//
// Derivatives as JAX's: the JVP broadcasts the tangent; the VJP sums the
// cotangent over every dimension the operand was repeated along.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/graph/value_ops.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::primitives {

struct broadcast_in_dim_p {
  static constexpr std::string_view name = "broadcast_in_dim";
  static constexpr bool dtype_generic = true;
  struct Params {
    Shape shape;                 // the result's shape
    Axes broadcast_dimensions;   // operand dimension i becomes result dimension broadcast_dimensions[i]
    friend bool operator==(Params const&, Params const&) = default;
  };

  /// Sharded jit: each operand dimension keeps its split where it lands;
  /// the new dimensions are whole on every device.
  template <graph::ErasedArray A>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const&, A const& x) {
    auto out = graph::Layout::replicated(p.shape.size());
    for (std::size_t i = 0; i < p.broadcast_dimensions.size(); ++i)
      out.dims[static_cast<std::size_t>(p.broadcast_dimensions[i])] = layouts[0].dims[i];
    return graph::Partitioned{detail::bind<broadcast_in_dim_p>({detail::part_shape(p.shape, out), p.broadcast_dimensions}, x), out};
  }

  static bool is_identity(Params const& p, Shape const& operand) {
    for (std::size_t i = 0; i < p.broadcast_dimensions.size(); ++i)
      if (p.broadcast_dimensions[i] != static_cast<std::int64_t>(i)) return false;
    return p.shape == operand;
  }

  template <graph::ErasedArray A>
  static Shape shape_rule(Params const& p, A const& x) {
    using detail::throw_error;
    auto const& shape = p.shape;
    auto const& dims = p.broadcast_dimensions;
    Shape const dims_tuple(dims.begin(), dims.end());
    auto const rank = x.ndim();
    for (auto d : shape)
      if (d < 0) throw_error("broadcast_in_dim shape must have every element be nonnegative, got ", shape, ".");
    for (auto d : dims)
      if (d < 0)
        throw_error("broadcast_in_dim broadcast_dimensions must have every element be nonnegative, got ", dims_tuple,
                    ".");
    if (static_cast<std::int64_t>(dims.size()) != rank)
      throw_error("broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got "
                  "broadcast_dimensions ", dims_tuple, " for operand ndim ", rank, ".");
    if (shape.rank() < rank)
      throw_error("broadcast_in_dim target broadcast shape must have equal or higher rank to the operand shape; got "
                  "operand ndim ", rank, " and target broadcast ndim ", shape.rank(), ".");
    for (auto d : dims)
      if (d >= shape.rank())
        throw_error("broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, got ", dims_tuple,
                    " for operand ndim ", rank, " and shape ", shape, ".");
    for (std::size_t i = 0; i < dims.size(); ++i) {
      auto const in = x.shape()[i];
      if (in != 1 && in != shape[static_cast<std::size_t>(dims[i])])
        throw_error("broadcast_in_dim operand dimension sizes must either be 1, or be equal to their corresponding "
                    "dimensions in the target broadcast shape; got operand of shape ", x.shape(),
                    ", target broadcast shape ", shape, ", broadcast_dimensions ", dims_tuple, " ");
    }
    for (std::size_t i = 0; i < dims.size(); ++i)
      for (std::size_t j = i + 1; j < dims.size(); ++j)
        if (dims[i] == dims[j])
          throw_error("broadcast_in_dim broadcast_dimensions must not contain duplicates, got broadcast_dimensions ",
                      dims_tuple);
    return shape;
  }

  static std::string params_string(Params const& p) {
    return "broadcast_dimensions=" + to_string(Shape(p.broadcast_dimensions.begin(), p.broadcast_dimensions.end())) +
           " shape=" + to_string(p.shape) + " sharding=None";
  }

  template <graph::ErasedArray A>
  static A jvp(Params const& p, A const&, A const&, A const& t) {
    return detail::bind<broadcast_in_dim_p>(p, t);
  }
  /// JAX's _broadcast_in_dim_transpose_rule: sum over the result dimensions
  /// that are not an operand dimension of size > 1, then restore the
  /// operand's size-1 dimensions.
  template <graph::ErasedArray A>
  static A vjp(Params const& p, A const& ct, A const&, A const& x) {
    Axes kept, summed;
    for (std::size_t i = 0; i < p.broadcast_dimensions.size(); ++i)
      if (x.shape()[i] != 1) kept.push_back(p.broadcast_dimensions[i]);
    for (std::int64_t d = 0; d < ct.ndim(); ++d)
      if (std::find(kept.begin(), kept.end(), d) == kept.end()) summed.push_back(d);
    auto reduced = summed.empty() ? ct : graph::values::reduce_sum(ct, summed);
    if (!std::is_sorted(kept.begin(), kept.end())) {
      // The reduction leaves the kept dimensions in increasing order; put them
      // back in the operand's order.
      Axes order;
      for (auto k : kept) order.push_back(std::count_if(kept.begin(), kept.end(), [&](auto j) { return j < k; }));
      reduced = detail::bind<transpose_p>({order}, reduced);
    }
    if (reduced.shape() == x.shape()) return reduced;
    Axes positions;  // of the reduced dimensions among the operand's
    for (std::int64_t i = 0; i < x.ndim(); ++i)
      if (x.shape()[static_cast<std::size_t>(i)] != 1) positions.push_back(i);
    return detail::bind<broadcast_in_dim_p>({x.shape(), positions}, reduced);
  }

  /// The mapped axis becomes the result's first dimension.
  template <graph::ErasedArray A>
  static std::pair<A, graph::BatchDim> batch(Params const& p, graph::AxisData const&, std::span<graph::BatchDim const> dims,
                                             A const& x) {
    auto const b = *dims[0];
    Params q{Shape{x.shape()[static_cast<std::size_t>(b)]}, Axes{}};
    for (auto d : p.shape) q.shape.push_back(d);
    for (std::int64_t i = 0; i < x.ndim(); ++i)
      q.broadcast_dimensions.push_back(i == b ? 0 : p.broadcast_dimensions[static_cast<std::size_t>(i - (i > b ? 1 : 0))] + 1);
    return {detail::bind<broadcast_in_dim_p>(q, x), 0};
  }

  template <graph::ErasedArray A>
  static A impl(Params const& p, Shape out_shape, A const& x) {
    auto const& in = detail::impl_of(x);
    Strides strides(out_shape.size(), 0);
    for (std::size_t i = 0; i < p.broadcast_dimensions.size(); ++i) {
      auto const d = static_cast<std::size_t>(p.broadcast_dimensions[i]);
      if (in.shape[i] == out_shape[d]) strides[d] = in.strides[i];
    }
    return detail::view(x, std::move(out_shape), std::move(strides), in.offset);
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// lax.broadcast_in_dim: operand dimension i becomes result dimension
/// broadcast_dimensions[i]; every other result dimension repeats it.
template <Element T>
Array<T> broadcast_in_dim(Array<T> const& x, Shape const& shape, Axes const& broadcast_dimensions) {
  return detail::bind<primitives::broadcast_in_dim_p>({shape, broadcast_dimensions}, x);
}

/// lax.expand_dims: insert size-1 dimensions at `dimensions` (positions in
/// the result; negative counts from the result's end).
template <Element T>
Array<T> expand_dims(Array<T> const& x, Axes const& dimensions) {
  auto repeated = [](Axes const& dims) {
    for (std::size_t i = 0; i < dims.size(); ++i)
      for (std::size_t j = i + 1; j < dims.size(); ++j)
        if (dims[i] == dims[j])
          throw Error("repeated axis in lax.expand_dims: " + to_string(Shape(dims.begin(), dims.end())));
  };
  repeated(dimensions);
  auto const out_rank = x.ndim() + static_cast<std::int64_t>(dimensions.size());
  Axes dims;
  for (auto d : dimensions) dims.push_back(detail::normalize_axis(d, out_rank, "expand_dims"));
  repeated(dims);  // again after normalizing: -1 and out_rank - 1 are the same axis
  Shape shape;
  Axes kept;
  for (std::int64_t i = 0, next = 0; i < out_rank; ++i) {
    if (std::find(dims.begin(), dims.end(), i) != dims.end()) {
      shape.push_back(1);
    } else {
      shape.push_back(x.shape()[static_cast<std::size_t>(next++)]);
      kept.push_back(i);
    }
  }
  return broadcast_in_dim(x, shape, kept);
}

}  // namespace jaxcc::lax

