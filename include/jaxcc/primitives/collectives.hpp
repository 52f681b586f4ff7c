// Collectives over a named mapped axis: psum, pmax, pmin, all_gather and
// axis_index (pmean is psum divided by the axis size, as in JAX). They exist
// only where an axis of that name is bound — inside vmap(..., axis_name) now,
// inside shard_map later — and always record into the innermost trace, even
// with concrete operands, since their value depends on the whole axis.
// Under vmap each is rewritten by its batching rule: a reduction over the
// mapped dimension (the result is the same for every element, so unmapped),
// or a move of the mapped dimension to the gathered position.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/graph/batch.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/reshape.hpp"

namespace jaxcc::detail {

/// Record collective P in the innermost trace; the axis must be bound.
template <class P, class... Operands>
auto bind_collective(typename P::Params const& params, Operands const&... operands) {
  auto const& axis = graph::find_axis(params.axis_name);
  auto out_shape = P::shape_rule(params, operands...);
  auto const& stack = trace_stack();
  if (stack.empty())
    throw Error(std::string(P::name) + " over axis '" + axis.name + "' used outside the transform that binds it");
  return graph::record<P>(*stack.back(), params, std::move(out_shape), operands...);
}

template <class P, class... Operands>
[[noreturn]] void unbound_collective(typename P::Params const& params, Operands const&...) {
  graph::find_axis(params.axis_name);
  throw Error(std::string(P::name) + " can only be evaluated inside the transform that binds its axis");
}

inline std::string axis_names_string(std::string const& name) { return "axes=('" + name + "',)"; }

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
  template <Element T>
  static Array<T> impl(Params const& p, Shape const&, Array<T> const& x) {
    unbound_collective<Derived>(p, x);
  }
  template <Element T>
  static Array<T> bind(Params const& p, Array<T> const& x) {
    return bind_collective<Derived>(p, x);
  }
  static bool binds_axis(Params const& p, std::string_view name) { return p.axis_name == name; }
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
  template <Element T>
  static Array<T> unmapped(Array<T> const& x, std::int64_t size) {
    return Array<T>(x * static_cast<T>(size));
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
  template <Element T>
  static Array<T> unmapped(Array<T> const& x, std::int64_t) {
    return x;
  }
};

struct pmin_p : detail::AxisReduction<pmin_p, reduce_min_p> {
  static constexpr std::string_view name = "pmin";
  template <Element T>
  static Array<T> unmapped(Array<T> const& x, std::int64_t) {
    return x;
  }
};

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
    auto const size = graph::find_axis(p.axis_name).size;
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
    detail::unbound_collective<all_gather_p>(p, x);
  }
  template <Element T>
  static Array<T> bind(Params const& p, Array<T> const& x) {
    return detail::bind_collective<all_gather_p>(p, x);
  }
  static bool binds_axis(Params const& p, std::string_view name) { return p.axis_name == name; }
  static std::string params_string(Params const& p) {
    return "all_gather_dimension=" + std::to_string(p.axis) + " axis_index_groups=None axis_name=" + p.axis_name +
           " tiled=" + (p.tiled ? "True" : "False");
  }

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

/// axis_index: this element's position along the named axis.
struct axis_index_p {
  static constexpr std::string_view name = "axis_index";
  struct Params {
    std::string axis_name;
    friend bool operator==(Params const&, Params const&) = default;
  };
  static Shape shape_rule(Params const&) { return {}; }
  static Array<std::int32_t> impl(Params const& p, Shape const&) { detail::unbound_collective<axis_index_p>(p); }
  static Array<std::int32_t> bind(Params const& p) { return detail::bind_collective<axis_index_p>(p); }
  static bool binds_axis(Params const& p, std::string_view name) { return p.axis_name == name; }
  static std::string params_string(Params const& p) { return "axis_name=" + p.axis_name; }

  static std::pair<Array<std::int32_t>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                              std::span<graph::BatchDim const>) {
    if (p.axis_name != axis.name) return {bind(p), graph::not_mapped};
    return {numpy::arange<std::int32_t>(axis.size), 0};
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// lax.psum: the sum of x over every element of the named axis.
template <ArrayLike A>
Array<value_type_t<A>> psum(A const& x, std::string const& axis_name) {
  return primitives::psum_p::bind({axis_name}, as_array(x));
}
/// lax.pmean: psum divided by the axis size.
template <ArrayLike A>
auto pmean(A const& x, std::string const& axis_name) {
  using T = value_type_t<A>;
  auto const n = graph::find_axis(axis_name).size;
  if constexpr (detail::is_float<T>) return Array<T>(psum(x, axis_name) / static_cast<T>(n));
  else return Array<float>(fusion::cast<float>(psum(x, axis_name)) / static_cast<float>(n));
}
/// lax.pmax / lax.pmin: the elementwise maximum / minimum over the axis.
template <ArrayLike A>
Array<value_type_t<A>> pmax(A const& x, std::string const& axis_name) {
  return primitives::pmax_p::bind({axis_name}, as_array(x));
}
template <ArrayLike A>
Array<value_type_t<A>> pmin(A const& x, std::string const& axis_name) {
  return primitives::pmin_p::bind({axis_name}, as_array(x));
}
/// lax.all_gather: every element's x stacked along `axis` (tiled:
/// concatenated along it).
template <ArrayLike A>
Array<value_type_t<A>> all_gather(A const& x, std::string const& axis_name, std::int64_t axis = 0, bool tiled = false) {
  auto const a = as_array(x);
  auto const rank = a.ndim() + (tiled ? 0 : 1);
  return primitives::all_gather_p::bind({axis_name, detail::normalize_axis(axis, rank, "all_gather"), tiled}, a);
}
/// lax.axis_index: this element's index along the named axis (int32).
inline Array<std::int32_t> axis_index(std::string const& axis_name) { return primitives::axis_index_p::bind({axis_name}); }

}  // namespace jaxcc::lax
