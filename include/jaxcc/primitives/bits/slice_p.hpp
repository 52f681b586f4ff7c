// The slicing primitives: slice (static bounds and strides), dynamic_slice
// (start indices as arrays, clamped into range) and dynamic_update_slice.
// slice and dynamic_slice are views (offset and strides changed, nothing
// copied); dynamic_update_slice makes a new array. Helpers the layout
// primitives share live here too: `detail::write_region`, the loop that
// writes a block into a window of a new array, and `detail::throw_error`.
//
// Their derivatives are JAX's: each is linear in its array operands, so a
// JVP applies the same primitive to the tangents; slice transposes to pad
// (primitives/pad.hpp), dynamic_slice to a dynamic_update_slice into zeros,
// and dynamic_update_slice to the pair of those. Start indices take no
// cotangent.
//
// Batched, each keeps the mapped axis whole. Mapped start indices make
// dynamic_slice one gather and dynamic_update_slice one gather and a select
// (JAX uses a gather and a scatter): defined at the end of this file.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <sstream>
#include <string>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"

namespace jaxcc {

/// An element type usable as an index: int32 or int64.
template <class I>
concept IndexElement = std::same_as<I, std::int32_t> || std::same_as<I, std::int64_t>;

namespace detail {

/// Walk `src` in step with a window of a buffer being built: the window
/// starts at `dst` and steps by `dst_strides` (one per dimension of src).
/// Calls `write(dst_element, src_element)` once per element.
template <Element T, class Write>
void write_region(Array<T> const& src, T* dst, Strides const& dst_strides, Write&& write) {
  auto layout = merge_dimensions<2>(src.shape(), {src.strides(), dst_strides});
  T const* in = src.data();
  for_each_row(layout, [&](auto const& off, std::int64_t n, auto const& step) {
    for (std::int64_t i = 0; i < n; ++i) write(dst[off[1] + i * step[1]], in[off[0] + i * step[0]]);
  });
}

/// Start indices read from rank-0 arrays, each clamped so that a window of
/// `sizes` fits inside `shape` (XLA's rule for dynamic slices).
template <IndexElement I>
Axes clamped_starts(std::vector<Array<I>> const& starts, Shape const& shape, Shape const& sizes) {
  Axes out;
  for (std::size_t d = 0; d < shape.size(); ++d)
    out.push_back(std::clamp<std::int64_t>(starts[d].item(), 0, shape[d] - sizes[d]));
  return out;
}

template <IndexElement I>
void check_scalar_starts(std::vector<Array<I>> const& starts, std::string_view op) {
  for (auto const& s : starts)
    if (s.ndim() != 0) {
      std::ostringstream os;
      os << "start_indices arguments to " << op << " must be scalars, got indices of shapes ";
      for (std::size_t i = 0; i < starts.size(); ++i) os << (i ? ", " : "") << starts[i].shape();
      throw Error(os.str());
    }
}

}  // namespace detail

namespace primitives {

// Bound by name in the rules below: pad_p (bits/pad_p.hpp, which
// primitives/slice.hpp brings too) and dynamic_update_slice_p, defined
// below. gather_p (primitives/gather.hpp) is what dynamic_slice batches to
// when its start indices are mapped; lax/slicing.hpp, which binds these
// primitives, brings it.
struct pad_p;
struct dynamic_update_slice_p;
struct gather_p;

struct slice_p {
  static constexpr std::string_view name = "slice";
  struct Params {
    Axes start_indices;
    Axes limit_indices;
    Axes strides;  // empty: all ones
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    using detail::throw_error;
    auto const tuple = [](Axes const& a) { return Shape(a.begin(), a.end()); };
    auto const& start = p.start_indices;
    auto const& limit = p.limit_indices;
    for (auto v : start)
      if (v < 0) throw_error("slice start_indices must have every element be nonnegative, got ", tuple(start), ".");
    for (auto v : limit)
      if (v < 0) throw_error("slice limit_indices must have every element be nonnegative, got ", tuple(limit), ".");
    if (static_cast<std::int64_t>(start.size()) != x.ndim())
      throw_error("slice start_indices must have length equal to the number of dimensions of the operand, got "
                  "indices ", tuple(start), " for operand shape ", x.shape(), ".");
    if (start.size() != limit.size())
      throw_error("slice limit_indices must have the same length as start_indices, got start_indices ", tuple(start),
                  " and limit_indices ", tuple(limit), ".");
    for (std::size_t d = 0; d < start.size(); ++d)
      if (limit[d] > x.shape()[d])
        throw_error("slice limit_indices must be less than or equal to operand shape, got limit_indices ",
                    tuple(limit), " for operand shape ", x.shape(), ".");
    for (std::size_t d = 0; d < start.size(); ++d)
      if (limit[d] < start[d])
        throw_error("slice limit_indices must be greater than or equal to start_indices, got start_indices ",
                    tuple(start), " and limit_indices ", tuple(limit), ".");
    Shape out;
    for (std::size_t d = 0; d < start.size(); ++d) out.push_back(limit[d] - start[d]);
    if (p.strides.empty()) return out;
    if (static_cast<std::int64_t>(p.strides.size()) != x.ndim())
      throw_error("slice strides must have length equal to the number of dimensions of the operand, got strides ",
                  tuple(p.strides), " for operand shape ", x.shape(), ".");
    for (auto s : p.strides)
      if (s <= 0) throw_error("slice strides must be positive, got ", tuple(p.strides));
    for (std::size_t d = 0; d < out.size(); ++d) out[d] = out[d] > 0 ? (out[d] - 1) / p.strides[d] + 1 : 0;
    return out;
  }

  static std::string params_string(Params const& p) {
    auto const tuple = [](Axes const& a) { return to_string(Shape(a.begin(), a.end())); };
    return "limit_indices=" + tuple(p.limit_indices) + " start_indices=" + tuple(p.start_indices) +
           " strides=" + (p.strides.empty() ? std::string("None") : tuple(p.strides));
  }

  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    return detail::bind<slice_p>(p, t);
  }
  /// The cotangent padded with zeros back to the operand's shape; a strided
  /// slice's cotangent is spread out by interior padding (JAX's rule).
  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const& x) {
    std::vector<std::array<std::int64_t, 3>> config;
    for (std::size_t d = 0; d < p.start_indices.size(); ++d) {
      auto const stride = p.strides.empty() ? 1 : p.strides[d];
      auto const n = ct.shape()[d];
      auto const real_limit = p.start_indices[d] + (n == 0 ? 0 : 1 + (n - 1) * stride);
      config.push_back({p.start_indices[d], x.shape()[d] - real_limit, stride - 1});
    }
    return detail::bind<pad_p>({std::move(config)}, ct, detail::zeros_view<T>(Shape{}));
  }

  /// The mapped axis is kept whole; the bounds step over it.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x) {
    auto const b = *dims[0];
    Params q = p;
    q.start_indices.insert(q.start_indices.begin() + b, 0);
    q.limit_indices.insert(q.limit_indices.begin() + b, x.shape()[static_cast<std::size_t>(b)]);
    if (!q.strides.empty()) q.strides.insert(q.strides.begin() + b, 1);
    return {detail::bind<slice_p>(q, x), b};
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    auto offset = detail::offset_of(x);
    Strides strides = x.strides();
    for (std::size_t d = 0; d < strides.size(); ++d) {
      offset += p.start_indices[d] * strides[d];
      if (!p.strides.empty()) strides[d] *= p.strides[d];
    }
    // An empty result reads nothing; keep its offset inside the buffer.
    if (out_shape.numel() == 0) offset = detail::offset_of(x);
    return detail::view(x, std::move(out_shape), std::move(strides), offset);
  }
};

struct dynamic_slice_p {
  static constexpr std::string_view name = "dynamic_slice";
  struct Params {
    Shape slice_sizes;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T, IndexElement I>
  static Shape shape_rule(Params const& p, Array<T> const& x, std::vector<Array<I>> const& start_indices) {
    auto const& sizes = p.slice_sizes;
    if (sizes.rank() != x.ndim())
      detail::throw_error("dynamic_slice slice_sizes must have length equal to the number of dimensions of the "
                          "operand, got slice_sizes ", sizes, " for operand shape ", x.shape(), ".");
    if (static_cast<std::int64_t>(start_indices.size()) != x.ndim())
      detail::throw_error("dynamic_slice start_indices must have length equal to the number of dimensions of the "
                          "operand, got ", start_indices.size(), " indices for operand shape ", x.shape(), ".");
    for (std::size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d] > x.shape()[d])
        detail::throw_error("slice slice_sizes must be less than or equal to operand shape, got slice_sizes ", sizes,
                            " for operand shape ", x.shape(), ".");
    for (auto size : sizes)
      if (size < 0)
        detail::throw_error("slice slice_sizes must be greater than or equal to zero, got slice_sizes of ", sizes, ".");
    detail::check_scalar_starts(start_indices, "dynamic_slice");
    return sizes;
  }

  static std::string params_string(Params const& p) { return "slice_sizes=" + to_string(p.slice_sizes); }

  template <Element T, IndexElement I>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, std::vector<Array<I>> const& start_indices,
                      Array<T> const& t, std::vector<Array<I>> const&) {
    return detail::bind<dynamic_slice_p>(p, t, start_indices);
  }
  /// The cotangent written into zeros at the (clamped) window.
  template <Element T, IndexElement I>
  static std::tuple<Array<T>, graph::NoCotangent> vjp(Params const&, Array<T> const& ct, Array<T> const&,
                                                      Array<T> const& x, std::vector<Array<I>> const& start_indices) {
    return {detail::bind<dynamic_update_slice_p>({}, detail::zeros_view<T>(x.shape()), ct, start_indices), {}};
  }

  template <Element T, IndexElement I>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x,
                                                    std::vector<Array<I>> const& start_indices);

  template <Element T, IndexElement I>
  static Array<T> impl(Params const&, Shape out_shape, Array<T> const& x, std::vector<Array<I>> const& start_indices) {
    auto const starts = detail::clamped_starts(start_indices, x.shape(), out_shape);
    auto offset = detail::offset_of(x);
    if (out_shape.numel() != 0)
      for (std::size_t d = 0; d < starts.size(); ++d) offset += starts[d] * x.strides()[d];
    return detail::view(x, std::move(out_shape), x.strides(), offset);
  }
};

struct dynamic_update_slice_p {
  static constexpr std::string_view name = "dynamic_update_slice";
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T, IndexElement I>
  static Shape shape_rule(Params const&, Array<T> const& x, Array<T> const& update,
                          std::vector<Array<I>> const& start_indices) {
    if (x.ndim() != update.ndim())
      detail::throw_error("dynamic_update_slice update must have the same rank as operand, got update shape ",
                          update.shape(), " for operand shape ", x.shape(), ".");
    if (static_cast<std::int64_t>(start_indices.size()) != x.ndim())
      detail::throw_error("dynamic_update_slice start_indices must have length equal to the rank of operand, got ",
                          start_indices.size(), " indices for operand shape ", x.shape(), ".");
    for (std::size_t d = 0; d < x.shape().size(); ++d)
      if (update.shape()[d] > x.shape()[d])
        detail::throw_error("dynamic_update_slice update shape must be smaller than operand shape, got update shape ",
                            update.shape(), " for operand shape ", x.shape(), ".");
    detail::check_scalar_starts(start_indices, "dynamic_update_slice");
    return x.shape();
  }

  template <Element T, IndexElement I>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const&,
                      std::vector<Array<I>> const& start_indices, Array<T> const& tx, Array<T> const& tu,
                      std::vector<Array<I>> const&) {
    return detail::bind<dynamic_update_slice_p>(p, tx, tu, start_indices);
  }
  /// The operand's cotangent is ct with the window zeroed; the update's is
  /// the window of ct.
  template <Element T, IndexElement I>
  static std::tuple<Array<T>, Array<T>, graph::NoCotangent> vjp(Params const& p, Array<T> const& ct, Array<T> const&,
                                                                Array<T> const&, Array<T> const& update,
                                                                std::vector<Array<I>> const& start_indices) {
    return {detail::bind<dynamic_update_slice_p>(p, ct, detail::zeros_view<T>(update.shape()), start_indices),
            detail::bind<dynamic_slice_p>({update.shape()}, ct, start_indices), {}};
  }

  template <Element T, IndexElement I>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x,
                                                    Array<T> const& update, std::vector<Array<I>> const& start_indices);

  template <Element T, IndexElement I>
  static Array<T> impl(Params const&, Shape out_shape, Array<T> const& x, Array<T> const& update,
                       std::vector<Array<I>> const& start_indices) {
    auto const starts = detail::clamped_starts(start_indices, x.shape(), update.shape());
    auto [out, data] = detail::allocate<T>(std::move(out_shape));
    x.copy_to(data);
    auto const strides = detail::contiguous_strides(x.shape());
    if (update.size() == 0) return out;
    T* window = data;
    for (std::size_t d = 0; d < starts.size(); ++d) window += starts[d] * strides[d];
    detail::write_region(update, window, strides, [](T& dst, T src) { dst = src; });
    return out;
  }
};

}  // namespace primitives
}  // namespace jaxcc

// What the batching rules below use; these headers include this one. (Not
// gather.hpp: scatter.hpp, which it includes, needs the operators while this
// header is being read on the way to it. lax/slicing.hpp, which binds these
// primitives, is where gather_p must be complete.)

namespace jaxcc::detail {

/// Whether any of `dims` is mapped.
inline bool any_mapped(std::span<BatchDim const> dims) {
  return std::any_of(dims.begin(), dims.end(), [](BatchDim const& d) { return d.has_value(); });
}

// With mapped start indices the rules below compute element positions (in
// int64: they may pass int32's range) and read them with one gather. The
// position type P and Gather (gather_p) are template parameters so that the
// arithmetic and the gather are looked up when a rule is instantiated: the
// headers defining them include this one, so here they may be incomplete.

/// x clamped into [lo, hi].
template <Element P>
Array<P> clamp_between(Array<P> const& x, P lo, P hi) {
  return fusion::make_expr<primitives::min_p>(fusion::make_expr<primitives::max_p>(x, fusion::ScalarLeaf<P>{lo}),
                                              fusion::ScalarLeaf<P>{hi});
}

/// 0, 1, ..., n - 1 along `axis` of an array of rank `rank` whose other
/// dimensions have size 1.
template <Element P>
Array<P> iota_along(std::int64_t n, std::int64_t axis, std::int64_t rank) {
  Shape shape(static_cast<std::size_t>(rank), 1);
  shape[static_cast<std::size_t>(axis)] = n;
  return detail::iota<P>(n).reshape(shape);
}

/// x's elements in row-major order at `positions` (all in range).
template <class Gather, Element T, Element P>
Array<T> take_flat(Array<T> const& x, Array<P> const& positions) {
  return jaxcc::detail::bind<Gather>({0, Gather::Mode::clip, std::nullopt}, x.reshape(Shape{x.size()}), positions);
}

/// dynamic_slice with mapped starts: example e's window element j is element
/// e * size(example) + sum_d (start[e, d] + j_d) * stride_d of the operand
/// flattened with its mapped axis first.
template <class Gather, Element P, Element T, IndexElement I>
std::pair<Array<T>, BatchDim> dynamic_slice_by_gather(Shape const& sizes, std::int64_t batch,
                                                      std::span<BatchDim const> dims, Array<T> const& x,
                                                      std::vector<Array<I>> const& starts) {
  auto const operand = mapped_at_front(x, dims[0]);
  Shape const shape(operand.shape().begin() + (dims[0] ? 1 : 0), operand.shape().end());
  auto const strides = contiguous_strides(shape);
  auto const rank = shape.rank();
  // Where each example's window starts, and each window element's offset.
  Array<P> first = zeros_view<P>(Shape{});
  if (dims[0]) first = detail::iota<P>(batch) * static_cast<P>(shape.numel());
  Array<P> offset = zeros_view<P>(Shape{});
  for (std::size_t d = 0; d < shape.size(); ++d) {
    auto const start = clamp_between<P>(starts[d].template astype<P>(), 0, shape[d] - sizes[d]);
    first = first + start * static_cast<P>(strides[d]);
    offset = offset + iota_along<P>(sizes[d], static_cast<std::int64_t>(d), rank) * static_cast<P>(strides[d]);
  }
  return {take_flat<Gather>(operand, Array<P>(batched_for_broadcast(first, 0, rank) + offset)), 0};
}

/// dynamic_update_slice with mapped starts: each element of the result reads
/// the update where it lies inside its example's window and the operand
/// elsewhere: one gather from the flattened update (at positions clipped
/// into it) and a select.
template <class Gather, Element P, Element T, IndexElement I>
std::pair<Array<T>, BatchDim> dynamic_update_slice_by_gather(std::int64_t batch, std::span<BatchDim const> dims,
                                                             Array<T> const& x, Array<T> const& update,
                                                             std::vector<Array<I>> const& starts) {
  auto const operand = mapped_at_front(x, dims[0]);
  auto const source = mapped_at_front(update, dims[1]);
  Shape const shape(operand.shape().begin() + (dims[0] ? 1 : 0), operand.shape().end());
  Shape const window(source.shape().begin() + (dims[1] ? 1 : 0), source.shape().end());
  if (window.numel() == 0) return {x, dims[0]};
  auto const strides = contiguous_strides(window);
  auto const rank = shape.rank();
  // Per element of the result: where it reads the flattened update, and how
  // far outside its window it lies (0 inside).
  Array<P> position = zeros_view<P>(Shape{});
  if (dims[1])
    position = batched_for_broadcast(Array<P>(detail::iota<P>(batch) * static_cast<P>(window.numel())), 0, rank);
  Array<P> outside = zeros_view<P>(Shape{});
  for (std::size_t d = 0; d < shape.size(); ++d) {
    Array<P> const start = clamp_between<P>(starts[d].template astype<P>(), 0, shape[d] - window[d]);
    Array<P> const along = iota_along<P>(shape[d], static_cast<std::int64_t>(d) + 1, rank + 1) -
                           batched_for_broadcast(start, dims[d + 2], rank);
    Array<P> const clipped = clamp_between<P>(along, 0, window[d] - 1);
    position = position + clipped * static_cast<P>(strides[d]);
    outside = outside + (along - clipped) * (along - clipped);
  }
  auto const inside = fusion::make_expr<primitives::eq_p>(outside, fusion::ScalarLeaf<P>{0});
  return {Array<T>(fusion::make_expr<primitives::select_p>(inside, take_flat<Gather>(source, position), operand)), 0};
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

/// Unmapped starts: one dynamic_slice that takes the mapped axis whole.
/// Mapped starts: one gather (JAX's rule is a gather too).
template <Element T, IndexElement I>
std::pair<Array<T>, graph::BatchDim> dynamic_slice_p::batch(Params const& p, graph::AxisData const& axis,
                                                            std::span<graph::BatchDim const> dims, Array<T> const& x,
                                                            std::vector<Array<I>> const& start_indices) {
  if (detail::any_mapped(dims.subspan(1)))
    return detail::dynamic_slice_by_gather<gather_p, std::int64_t>(p.slice_sizes, axis.size, dims, x, start_indices);
  auto const b = *dims[0];
  Params q = p;
  q.slice_sizes.insert(q.slice_sizes.begin() + b, axis.size);
  auto starts = start_indices;
  starts.insert(starts.begin() + b, detail::zeros_view<I>(Shape{}));
  return {detail::bind<dynamic_slice_p>(q, x, starts), b};
}

/// Unmapped starts: one dynamic_update_slice of the operand and the update
/// with their mapped axes in one place. Mapped starts: a gather and a select
/// (where JAX's rule scatters).
template <Element T, IndexElement I>
std::pair<Array<T>, graph::BatchDim> dynamic_update_slice_p::batch(Params const& p, graph::AxisData const& axis,
                                                                   std::span<graph::BatchDim const> dims,
                                                                   Array<T> const& x, Array<T> const& update,
                                                                   std::vector<Array<I>> const& start_indices) {
  if (detail::any_mapped(dims.subspan(2)))
    return detail::dynamic_update_slice_by_gather<gather_p, std::int64_t>(axis.size, dims, x, update, start_indices);
  auto const b = dims[0] ? *dims[0] : *dims[1];
  auto starts = start_indices;
  starts.insert(starts.begin() + b, detail::zeros_view<I>(Shape{}));
  return {detail::bind<dynamic_update_slice_p>(p, detail::bdim_at(x, dims[0], axis.size, b),
                                               detail::bdim_at(update, dims[1], axis.size, b), starts),
          b};
}

}  // namespace jaxcc::primitives

namespace jaxcc::detail {

/// Elements [start, stop) of `x` along `axis`, every `stride`-th (lax.slice_in_dim).
template <Element T>
Array<T> slice_in_dim(Array<T> const& x, std::int64_t start, std::int64_t stop, std::int64_t stride,
                      std::int64_t axis) {
  auto const d = static_cast<std::size_t>(axis);
  Axes starts(x.shape().size(), 0), limits(x.shape().begin(), x.shape().end()), strides(x.shape().size(), 1);
  starts[d] = start;
  limits[d] = stop;
  strides[d] = stride;
  return jaxcc::detail::bind<primitives::slice_p>({starts, limits, strides}, x);
}

}  // namespace jaxcc::detail
