// Collectives over a named mapped axis: psum, pmax, pmin, all_gather,
// psum_scatter, ppermute, all_to_all and axis_index (pmean is psum divided
// by the axis size, as in JAX). They exist only where an axis of that name
// is bound — inside vmap(..., axis_name) or shard_map — and record into the
// innermost trace even with concrete operands, since their value depends on
// the whole axis. Under vmap each is rewritten by its batching rule (a
// reduction over the mapped dimension, a move of it, a gather along it);
// run on a mesh by shard_map, each device meets the others of its group
// through the SPMD exchange (devices/spmd.hpp). Each also says whether
// its result varies along its axis, for shard_map's replication check.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/devices/spmd.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/graph/batch.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/slice.hpp"
#include "jaxcc/primitives/squeeze.hpp"

namespace jaxcc::detail {

/// Collective P through the one bind path (graph/bind_target.hpp), its
/// target the innermost trace, which binds its axis (the axis must be
/// bound); with no trace active it runs: that is a device's part of a
/// shard_map.
template <class P, class... Operands>
auto bind_collective(typename P::Params const& params, Operands const&... operands) {
  graph::find_axis(params.axis_name);
  auto out_shape = P::shape_rule(params, operands...);
  auto const& stack = trace_stack();
  return graph::bind_to(
      graph::BindTarget(stack.empty() ? nullptr : stack.back()),
      [&](graph::Trace& trace) { return graph::record<P>(trace, params, std::move(out_shape), operands...); },
      graph::no_partition, [&] { return P::impl(params, std::move(out_shape), operands...); });
}

inline std::string axis_names_string(std::string const& name) { return "axes=('" + name + "',)"; }

/// The size of the named axis, for shape rules.
inline std::int64_t axis_size(std::string const& axis_name) { return graph::find_axis(axis_name).size; }

/// The size of a named axis that `op` splits an operand into parts over: an
/// axis of size 0 (a vmap over nothing) has no parts to split into.
inline std::int64_t shard_count(std::string_view op, std::string const& axis_name) {
  auto const size = axis_size(axis_name);
  if (size == 0)
    throw Error(std::string(op) + ": the named axis " + axis_name + " has size 0, so there are no shards to split into");
  return size;
}

/// Part `index` of `count` equal parts of x along `axis` (a view).
template <Element T>
Array<T> chunk_of(Array<T> const& x, std::int64_t axis, std::int64_t index, std::int64_t count) {
  Shape shape = x.shape();
  auto const d = static_cast<std::size_t>(axis);
  shape[d] /= count;
  return view(x, shape, x.strides(), offset_of(x) + index * shape[d] * x.strides()[d]);
}

/// The elementwise sum of the group's operands.
template <Element T>
Array<T> sum_of(std::span<Array<T> const> operands) {
  Array<T> total = operands[0];
  for (std::size_t k = 1; k < operands.size(); ++k) total = Array<T>(total + operands[k]);
  return total;
}

/// psum, pmax, pmin: one reduction over the named axis, shape unchanged.
template <class Derived, class Reduce>
struct AxisReduction {
  struct Params {
    std::string axis_name;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const&, Array<T> const& x) {
    return x.shape();
  }
  /// On a mesh: an all-reduce by Derived::combine.
  template <Element T>
  static Array<T> impl(Params const& p, Shape const&, Array<T> const& x) {
    return all_reduce_over(Derived::name, p.axis_name, x, [](T a, T b) { return Derived::combine(a, b); });
  }
  template <Element T>
  static Array<T> bind(Params const& p, Array<T> const& x) {
    return bind_collective<Derived>(p, x);
  }
  static bool binds_axis(Params const& p, std::string_view name) { return p.axis_name == name; }
  static graph::AxisVariance axis_variance(Params const& p) { return {p.axis_name, false}; }
  static std::string params_string(Params const& p) { return axis_names_string(p.axis_name) + " axis_index_groups=None"; }

  /// Over this vmap's axis: reduce the mapped dimension (an unmapped value
  /// is the same everywhere: Derived::unmapped says what that gives). Over
  /// another axis: the same collective on the batched value.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x) {
    if (p.axis_name != axis.name) return {bind(p, x), dims[0]};
    if (!dims[0]) return {Derived::unmapped(x, axis.size), graph::not_mapped};
    return {detail::bind<Reduce>({Axes{*dims[0]}}, x), graph::not_mapped};
  }
};

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct psum_p : detail::AxisReduction<psum_p, reduce_sum_p> {
  static constexpr std::string_view name = "psum";
  template <class T>
  static T combine(T a, T b) {
    return static_cast<T>(a + b);
  }
  template <Element T>
  static Array<T> unmapped(Array<T> const& x, std::int64_t size) {
    return Array<T>(x * static_cast<detail::compute_t<T>>(size));
  }
  /// Linear: its tangent is the psum of the tangent, and its transpose is
  /// psum again (each element's cotangent reaches every element's input).
  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    return bind(p, t);
  }
  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const&) {
    return bind(p, ct);
  }
};

struct pmax_p : detail::AxisReduction<pmax_p, reduce_max_p> {
  static constexpr std::string_view name = "pmax";
  template <class T>
  static T combine(T a, T b) {  // NaN wins, as jnp.maximum
    return a != a || !(a < b) ? a : b;
  }
  template <Element T>
  static Array<T> unmapped(Array<T> const& x, std::int64_t) {
    return x;
  }
};

struct pmin_p : detail::AxisReduction<pmin_p, reduce_min_p> {
  static constexpr std::string_view name = "pmin";
  template <class T>
  static T combine(T a, T b) {  // NaN wins, as jnp.minimum
    return a != a || !(b < a) ? a : b;
  }
  template <Element T>
  static Array<T> unmapped(Array<T> const& x, std::int64_t) {
    return x;
  }
};

struct psum_scatter_p;

/// all_gather: every element's x, stacked along `axis` (or concatenated
/// along it when tiled).
struct all_gather_p {
  static constexpr std::string_view name = "all_gather";
  struct Params {
    std::string axis_name;
    std::int64_t axis;  // non-negative: where the gathered dimension goes
    bool tiled;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    auto const size = detail::axis_size(p.axis_name);
    Shape out = x.shape();
    if (p.axis < 0 || p.axis > x.ndim() - (p.tiled ? 1 : 0))
      throw Error("all_gather: axis " + std::to_string(p.axis) + " is out of bounds for an operand of shape " +
                  to_string(x.shape()));
    if (p.tiled) out[static_cast<std::size_t>(p.axis)] *= size;
    else out.insert(out.begin() + p.axis, size);
    return out;
  }
  template <Element T>
  static Array<T> impl(Params const& p, Shape const&, Array<T> const& x) {
    return detail::exchange_over(name, p.axis_name, x, [&](std::span<Array<T> const> operands, std::size_t) {
      std::vector<Array<T>> all;
      for (auto const& op : operands) all.push_back(p.tiled ? op : lax::expand_dims(op, {p.axis}));
      return lax::concatenate(all, p.axis);
    });
  }
  template <Element T>
  static Array<T> bind(Params const& p, Array<T> const& x) {
    return detail::bind_collective<all_gather_p>(p, x);
  }
  static bool binds_axis(Params const& p, std::string_view name) { return p.axis_name == name; }
  static graph::AxisVariance axis_variance(Params const& p) { return {p.axis_name, false}; }
  static std::string params_string(Params const& p) {
    return "all_gather_dimension=" + std::to_string(p.axis) + " axis_index_groups=None axis_name=" + p.axis_name +
           " tiled=" + (p.tiled ? "True" : "False");
  }

  /// Linear; its transpose sums each element's part back (psum_scatter).
  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    return bind(p, t);
  }
  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const&);

  /// Over this vmap's axis the gathered array is the batch itself, with its
  /// mapped dimension moved to `axis` (the same for every element, so
  /// unmapped); over another axis, the batched value is gathered.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x) {
    if (p.axis_name != axis.name) {
      auto const d = *dims[0];
      Params q = p;
      if (d <= p.axis) ++q.axis;
      return {bind(q, x), d <= p.axis || p.tiled ? d : d + 1};
    }
    auto stacked = dims[0] ? detail::move_axis(x, *dims[0], p.axis) : detail::broadcast_axis(x, axis.size, p.axis);
    if (!p.tiled) return {stacked, graph::not_mapped};
    Shape tiled = x.shape();
    if (dims[0]) tiled.erase(tiled.begin() + *dims[0]);
    tiled[static_cast<std::size_t>(p.axis)] *= axis.size;
    return {detail::bind<reshape_p>({tiled}, stacked), graph::not_mapped};
  }
};

/// psum_scatter (reduce-scatter): the sum over the axis, of which element i
/// keeps part i along `scatter_dimension` (tiled: a block of it; else the
/// dimension, of the axis size, is dropped).
struct psum_scatter_p {
  static constexpr std::string_view name = "reduce_scatter";
  struct Params {
    std::string axis_name;
    std::int64_t scatter_dimension;  // non-negative
    bool tiled;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    auto const size = p.tiled ? detail::shard_count(name, p.axis_name) : detail::axis_size(p.axis_name);
    Shape out = x.shape();
    auto const d = static_cast<std::size_t>(p.scatter_dimension);
    if (p.tiled) {
      if (out[d] % size != 0)
        throw Error("tiled reduce_scatter operand scatter dimension size " + std::to_string(out[d]) +
                    " must be divisible by shard_count " + std::to_string(size));
      out[d] /= size;
    } else {
      if (out[d] != size)
        throw Error("reduce_scatter operand scatter dimension size " + std::to_string(out[d]) +
                    " must match shard count " + std::to_string(size));
      out.erase(out.begin() + p.scatter_dimension);
    }
    return out;
  }
  template <Element T>
  static Array<T> impl(Params const& p, Shape const& out_shape, Array<T> const& x) {
    return detail::exchange_over(name, p.axis_name, x, [&](std::span<Array<T> const> operands, std::size_t me) {
      auto const count = static_cast<std::int64_t>(operands.size());
      std::vector<Array<T>> parts;
      for (auto const& op : operands) parts.push_back(detail::chunk_of(op, p.scatter_dimension, static_cast<std::int64_t>(me), count));
      return lax::reshape(detail::sum_of<T>(parts), out_shape);
    });
  }
  template <Element T>
  static Array<T> bind(Params const& p, Array<T> const& x) {
    return detail::bind_collective<psum_scatter_p>(p, x);
  }
  static bool binds_axis(Params const& p, std::string_view name) { return p.axis_name == name; }
  static graph::AxisVariance axis_variance(Params const& p) { return {p.axis_name, true}; }
  static std::string params_string(Params const& p) {
    return "axis_index_groups=None axis_name=" + p.axis_name + " scatter_dimension=" +
           std::to_string(p.scatter_dimension) + " tiled=" + (p.tiled ? "True" : "False");
  }

  /// Linear; its transpose gathers every element's part (all_gather).
  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    return bind(p, t);
  }
  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const&) {
    return all_gather_p::bind({p.axis_name, p.scatter_dimension, p.tiled}, ct);
  }

  /// Over this vmap's axis: the sum over the mapped dimension, split along
  /// the scatter dimension among the elements (which makes it mapped).
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x) {
    if (p.axis_name != axis.name) {
      auto const d = *dims[0];
      Params q = p;
      if (d <= p.scatter_dimension) ++q.scatter_dimension;
      return {bind(q, x), d <= p.scatter_dimension || p.tiled ? d : d - 1};
    }
    auto const total = dims[0] ? detail::bind<reduce_sum_p>({Axes{*dims[0]}}, x)
                               : Array<T>(x * static_cast<detail::compute_t<T>>(axis.size));
    Shape split = total.shape();
    auto const d = static_cast<std::size_t>(p.scatter_dimension);
    split[d] = axis.size ? split[d] / axis.size : 0;  // untiled over an empty axis: 0 parts of size 0
    split.insert(split.begin() + p.scatter_dimension, axis.size);
    auto const parts = detail::bind<reshape_p>({split}, total);  // axis.size parts at scatter_dimension
    if (p.tiled) return {parts, p.scatter_dimension};
    Shape dropped = parts.shape();
    dropped.erase(dropped.begin() + p.scatter_dimension + 1);
    return {detail::bind<reshape_p>({dropped}, parts), p.scatter_dimension};
  }
};

template <Element T>
Array<T> all_gather_p::vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const&) {
  return psum_scatter_p::bind({p.axis_name, p.axis, p.tiled}, ct);
}

/// ppermute: element dst gets element src's x for each (src, dst) pair;
/// an element no pair sends to gets zeros.
struct ppermute_p {
  static constexpr std::string_view name = "ppermute";
  struct Params {
    std::string axis_name;
    std::vector<std::pair<std::int64_t, std::int64_t>> perm;
    friend bool operator==(Params const&, Params const&) = default;
  };

  static std::string perm_string(Params const& p) {
    std::string s = "(";
    for (std::size_t i = 0; i < p.perm.size(); ++i)
      s += (i ? ", (" : "(") + std::to_string(p.perm[i].first) + ", " + std::to_string(p.perm[i].second) + ")";
    return s + (p.perm.size() == 1 ? ",)" : ")");
  }
  /// JAX's errors: sources and destinations unique, and on the axis.
  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    auto const size = detail::axis_size(p.axis_name);
    std::vector<bool> src(static_cast<std::size_t>(size)), dst(static_cast<std::size_t>(size));
    for (auto const& [s, d] : p.perm) {
      if (s < 0 || s >= size || d < 0 || d >= size)
        throw Error("ppermute: perm " + perm_string(p) + " names an index outside axis '" + p.axis_name +
                    "' of size " + std::to_string(size));
      if (src[static_cast<std::size_t>(s)] || dst[static_cast<std::size_t>(d)])
        throw Error("ppermute sources and destinations must be unique, got " + perm_string(p) + ".");
      src[static_cast<std::size_t>(s)] = dst[static_cast<std::size_t>(d)] = true;
    }
    return x.shape();
  }
  /// Where element `to`'s value comes from, if any pair sends to it.
  static std::optional<std::int64_t> source_of(Params const& p, std::int64_t to) {
    for (auto const& [s, d] : p.perm)
      if (d == to) return s;
    return std::nullopt;
  }
  template <Element T>
  static Array<T> impl(Params const& p, Shape const&, Array<T> const& x) {
    return detail::exchange_over(name, p.axis_name, x, [&](std::span<Array<T> const> operands, std::size_t me) {
      auto const from = source_of(p, static_cast<std::int64_t>(me));
      return from ? operands[static_cast<std::size_t>(*from)] : detail::filled<T>(x.shape(), 0);
    });
  }
  template <Element T>
  static Array<T> bind(Params const& p, Array<T> const& x) {
    return detail::bind_collective<ppermute_p>(p, x);
  }
  static bool binds_axis(Params const& p, std::string_view name) { return p.axis_name == name; }
  static graph::AxisVariance axis_variance(Params const& p) { return {p.axis_name, true}; }
  static std::string params_string(Params const& p) { return "axis_name=" + p.axis_name + " perm=" + perm_string(p); }

  /// Linear; its transpose sends every value back (the inverse pairs).
  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    return bind(p, t);
  }
  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const&) {
    Params inverse{p.axis_name, {}};
    for (auto const& [s, d] : p.perm) inverse.perm.emplace_back(d, s);
    return bind(inverse, ct);
  }

  /// Over this vmap's axis: a gather along the mapped dimension (an index
  /// past the end, for elements nobody sends to, fills zeros).
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x) {
    if (p.axis_name != axis.name) return {bind(p, x), dims[0]};
    auto const mapped = detail::bdim_at_front(x, dims[0], axis.size);
    std::vector<std::int32_t> sources;
    for (std::int64_t i = 0; i < axis.size; ++i)
      sources.push_back(static_cast<std::int32_t>(source_of(p, i).value_or(axis.size)));
    return {detail::bind<gather_p>({0, gather_p::Mode::fill, 0.0}, mapped, detail::array_of(sources, Shape{axis.size})), 0};
  }
};

/// all_to_all (tiled, rank-preserving): element i splits x along
/// `split_axis` into one part per element, sends part j to element j, and
/// concatenates the parts it receives along `concat_axis`, in element
/// order. lax::all_to_all without tiling wraps it in a reshape either side.
struct all_to_all_p {
  static constexpr std::string_view name = "all_to_all";
  struct Params {
    std::string axis_name;
    std::int64_t split_axis;   // non-negative
    std::int64_t concat_axis;  // non-negative
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    auto const size = detail::shard_count(name, p.axis_name);
    Shape out = x.shape();
    auto const s = static_cast<std::size_t>(p.split_axis);
    if (out[s] % size != 0)
      throw Error("The size of all_to_all split_axis (" + std::to_string(out[s]) +
                  ") has to be divisible by the size of the named axis " + p.axis_name + " (" + std::to_string(size) +
                  ")");
    out[s] /= size;
    out[static_cast<std::size_t>(p.concat_axis)] *= size;
    return out;
  }
  template <Element T>
  static Array<T> impl(Params const& p, Shape const&, Array<T> const& x) {
    return detail::exchange_over(name, p.axis_name, x, [&](std::span<Array<T> const> operands, std::size_t me) {
      auto const count = static_cast<std::int64_t>(operands.size());
      std::vector<Array<T>> parts;
      for (auto const& op : operands) parts.push_back(detail::chunk_of(op, p.split_axis, static_cast<std::int64_t>(me), count));
      return lax::concatenate(parts, p.concat_axis);
    });
  }
  template <Element T>
  static Array<T> bind(Params const& p, Array<T> const& x) {
    return detail::bind_collective<all_to_all_p>(p, x);
  }
  static bool binds_axis(Params const& p, std::string_view name) { return p.axis_name == name; }
  static graph::AxisVariance axis_variance(Params const& p) { return {p.axis_name, true}; }
  static std::string params_string(Params const& p) {
    return "axis_index_groups=None axis_name=" + p.axis_name + " concat_axis=" + std::to_string(p.concat_axis) +
           " split_axis=" + std::to_string(p.split_axis) + " tiled=True";
  }

  /// Linear; its transpose is the all_to_all back (split and concat swapped).
  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    return bind(p, t);
  }
  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const&) {
    return bind({p.axis_name, p.concat_axis, p.split_axis}, ct);
  }

  /// Over another axis: the same exchange, its axes shifted past the mapped
  /// one. Over this vmap's axis: element i's result is part i of every
  /// element's split axis, concatenated — a reshape and a transpose.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x) {
    if (p.axis_name != axis.name) {
      auto const d = *dims[0];
      return {bind({p.axis_name, p.split_axis + (d <= p.split_axis), p.concat_axis + (d <= p.concat_axis)}, x), d};
    }
    auto const n = axis.size;
    auto const front = detail::bdim_at_front(x, dims[0], n);  // (src, element dims...)
    // Split the split axis into (dst, part): dst at s + 1, part at s + 2.
    Shape split = front.shape();
    auto const s = p.split_axis + 1;
    split[static_cast<std::size_t>(s)] /= n;
    split.insert(split.begin() + s, n);
    auto const parts = detail::bind<reshape_p>({split}, front);
    // (dst, src, element dims...): element dim k sits at k + 2; put src just
    // before the concat dimension and merge the two (src major).
    auto const by_dst = detail::move_axis(parts, s, 0);
    auto const placed = detail::move_axis(by_dst, 1, p.concat_axis + 1);
    Shape merged = placed.shape();
    auto const at = static_cast<std::size_t>(p.concat_axis + 1);
    merged[at] *= merged[at + 1];
    merged.erase(merged.begin() + p.concat_axis + 2);
    return {detail::bind<reshape_p>({merged}, placed), 0};
  }
};

/// axis_index: this element's position along the named axis. A class
/// template, of which axis_index_p is the one instance: with no operand type
/// to make its members templates, a non-template member that records it
/// would compile its rules in every file that includes this header.
template <class = void>
struct axis_index_primitive {
  static constexpr std::string_view name = "axis_index";
  struct Params {
    std::string axis_name;
    friend bool operator==(Params const&, Params const&) = default;
  };
  static Shape shape_rule(Params const& p) {
    detail::axis_size(p.axis_name);
    return {};
  }
  static Array<std::int32_t> impl(Params const& p, Shape const&) {
    auto const& context = detail::spmd_for(name, p.axis_name);
    return detail::rank0_array(static_cast<std::int32_t>(detail::spmd_group(context, p.axis_name).me));
  }
  static Array<std::int32_t> bind(Params const& p) {
    detail::axis_size(p.axis_name);
    auto const& stack = detail::trace_stack();
    if (stack.empty()) return impl(p, {});
    return graph::record<axis_index_primitive>(*stack.back(), p, Shape{});
  }
  static bool binds_axis(Params const& p, std::string_view name) { return p.axis_name == name; }
  static graph::AxisVariance axis_variance(Params const& p) { return {p.axis_name, true}; }
  static std::string params_string(Params const& p) { return "axis_name=" + p.axis_name; }

  static std::pair<Array<std::int32_t>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                              std::span<graph::BatchDim const>) {
    if (p.axis_name != axis.name) return {bind(p), graph::not_mapped};
    return {detail::iota<std::int32_t>(axis.size), 0};
  }
};
using axis_index_p = axis_index_primitive<>;

/// device_part: this device's part of a value whole on every device, for a
/// layout splitting dimension d over the mesh axes dims[d] (major to
/// minor). What sharded jit's resharding slices with: run on a device it
/// is a view, no copy.
struct device_part_p {
  static constexpr std::string_view name = "device_part";
  struct Params {
    std::vector<std::vector<std::string>> dims;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    Shape out = x.shape();
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
      auto const parts = detail::parts_along(p.dims[d]);
      if (out[d] % parts != 0)
        throw Error("device_part: dimension " + std::to_string(d) + " of size " + std::to_string(out[d]) +
                    " does not split into " + std::to_string(parts) + " parts");
      out[d] /= parts;
    }
    return out;
  }
  template <Element T>
  static Array<T> impl(Params const& p, Shape const& out_shape, Array<T> const& x) {
    auto offset = detail::offset_of(x);
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
      std::int64_t part = 0;
      for (auto const& axis : p.dims[d]) {
        auto const& context = detail::spmd_for(name, axis);
        part = part * graph::find_axis(axis).size + static_cast<std::int64_t>(detail::spmd_group(context, axis).me);
      }
      offset += part * out_shape[d] * x.strides()[d];
    }
    return detail::view(x, out_shape, x.strides(), offset);
  }
  template <Element T>
  static Array<T> bind(Params const& p, Array<T> const& x) {
    auto out_shape = shape_rule(p, x);
    auto const& stack = detail::trace_stack();
    if (stack.empty()) return impl(p, out_shape, x);
    return graph::record<device_part_p>(*stack.back(), p, std::move(out_shape), x);
  }
  static std::string params_string(Params const& p) {
    std::string s = "dims=(";
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
      s += d ? ", " : "";
      if (p.dims[d].empty()) s += "None";
      for (std::size_t k = 0; k < p.dims[d].size(); ++k) s += (k ? "+" : "") + p.dims[d][k];
    }
    return s + ")";
  }
  /// Linear; its transpose puts the part back in place among zeros.
  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    return bind(p, t);
  }
  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const& x) {
    using Index = detail::dependent_t<T, std::int32_t>;  // (through T: compiled only where this is)
    std::vector<Array<Index>> starts;
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
      Array<Index> part = detail::rank0_array(Index{0});
      for (auto const& axis : p.dims[d])
        part = Array<Index>(part * static_cast<Index>(graph::find_axis(axis).size) + axis_index_p::bind({axis}));
      starts.push_back(Array<Index>(part * static_cast<Index>(ct.shape()[d])));
    }
    return detail::bind<dynamic_update_slice_p>({}, detail::filled<T>(x.shape(), 0), ct, starts);
  }
};

}  // namespace jaxcc::primitives
