// A fused region under a transform. When an expression with traced leaves
// becomes an Array, the whole region is recorded as ONE equation of
// primitive `fused_p<E>`, whose operands are the region's leaves. Its
// derivatives are not compiled per region: the region becomes a Program of
// its ops, whose tangent and cotangents are Programs the ops' tangent rules
// build, run by one interpreter or recorded as one equation each
// (fusion/program_primitive.hpp). So a file that writes a region but never
// differentiates it compiles only the region's loop, and the ops its
// derivatives reach as loops of one op each.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/fusion/loop.hpp"
#include "jaxcc/fusion/program.hpp"
#include "jaxcc/fusion/program_primitive.hpp"
#include "jaxcc/graph/primitive_of.hpp"
#include "jaxcc/primitives/bits/batching.hpp"

namespace jaxcc::fusion {

// --- leaves ----------------------------------------------------------------

template <class E>
struct leaf_tuple {
  using type = std::tuple<>;
};
template <Element T>
struct leaf_tuple<Array<T>> {
  using type = std::tuple<Array<T>>;
};
template <class Op, class... Args>
struct leaf_tuple<Expr<Op, Args...>> {
  using type = decltype(std::tuple_cat(std::declval<typename leaf_tuple<Args>::type>()...));
};
/// The region's array leaves, depth first, as a std::tuple of Arrays.
template <class E>
using leaf_tuple_t = typename leaf_tuple<E>::type;

template <class E>
leaf_tuple_t<E> leaves_of(E const& e) {
  if constexpr (AnArray<E>) return std::tuple<E>{e};
  else if constexpr (is_expr<E>::value)
    return std::apply([](auto const&... a) { return std::tuple_cat(leaves_of(a)...); }, e.args());
  else return std::tuple<>{};
}

/// The region with its K-th.. leaves replaced by `leaves` (same types; the
/// shapes may differ, and every node's shape is recomputed).
template <std::size_t K, class E, class Leaves>
E substitute(E const& e, Leaves const& leaves) {
  if constexpr (AnArray<E>) {
    return std::get<K>(leaves);
  } else if constexpr (is_expr<E>::value) {
    constexpr auto offsets = child_leaf_offsets_of<E>();
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return make_expr<typename E::op_type>(substitute<K + offsets[I]>(std::get<I>(e.args()), leaves)...);
    }(std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(e.args())>>>{});
  } else {
    return e;
  }
}

template <class E>
bool any_leaf_traced(E const& e) {
  return std::apply([](auto const&... l) { return (l.is_traced() || ...); }, leaves_of(e));
}
/// Whether a leaf is laid out on a mesh (then the region runs partitioned).
template <class E>
bool any_leaf_sharded(E const& e) {
  return std::apply([](auto const&... l) { return ((jaxcc::detail::ArrayAccess::impl(l).sharding != nullptr) || ...); },
                    leaves_of(e));
}

}  // namespace jaxcc::fusion

namespace jaxcc::detail {

/// Whether two regions of one type hold the same scalar constants.
template <class X>
bool same_constants(X const& a, X const& b) {
  if constexpr (fusion::is_scalar_leaf<X>::value) {
    return std::memcmp(&a.value, &b.value, sizeof a.value) == 0;  // bitwise: 0.0 and -0.0 differ
  } else if constexpr (fusion::is_expr<X>::value) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (same_constants(std::get<I>(a.args()), std::get<I>(b.args())) && ...);
    }(std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(a.args())>>>{});
  } else {
    static_assert(AnArray<X>);
    return true;  // an operand, compared as the equation's input
  }
}

/// The leaf a one-op region returns as is when its op forwards an operand
/// (Op::forwarded_operand): each operand's value if known to be uniform, a
/// scalar of the region being one.
template <class Op, class A, class B>
std::optional<std::size_t> forwarded_leaf(fusion::Expr<Op, A, B> const& e, std::span<std::optional<double> const> uniform) {
  constexpr bool leaves_only = (AnArray<A> || fusion::is_scalar_leaf<A>::value) &&
                               (AnArray<B> || fusion::is_scalar_leaf<B>::value);
  if constexpr (requires { Op::forwarded_operand(std::optional<double>{}, std::optional<double>{}); } && leaves_only) {
    constexpr std::size_t a_leaf = 0, b_leaf = AnArray<A> ? 1 : 0;
    auto const value = [&]<class X>(X const& x, std::size_t leaf) -> std::optional<double> {
      if constexpr (AnArray<X>) return uniform[leaf];
      else return static_cast<double>(x.value);
    };
    auto const& [a, b] = e.args();
    auto const forwarded = Op::forwarded_operand(value(a, a_leaf), value(b, b_leaf));
    if (forwarded == 0u && AnArray<A>) return a_leaf;
    if (forwarded == 1u && AnArray<B>) return b_leaf;
  }
  return std::nullopt;
}
template <class E>
std::optional<std::size_t> forwarded_leaf(E const&, std::span<std::optional<double> const>) {
  return std::nullopt;
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

/// A fused elementwise region E as one primitive; its operands are E's
/// leaves.
template <class E>
struct fused_p {
  using R = typename E::value_type;
  using Leaves = fusion::leaf_tuple_t<E>;
  static constexpr std::string_view name = "fused";
  struct Params {
    E expr;
    /// The region's type fixes its ops; equal scalar constants make it the
    /// same function of its leaves (jit's CSE merges such applications).
    friend bool operator==(Params const& a, Params const& b) { return detail::same_constants(a.expr, b.expr); }
  };

  /// A one-op region prints as its op, as JAX's jaxprs show it.
  static std::string_view display_name(Params const& p) {
    bool const one_op = std::apply([](auto const&... a) { return (!fusion::is_expr<std::remove_cvref_t<decltype(a)>>::value && ...); },
                                   p.expr.args());
    return one_op ? E::op_type::name : name;
  }

  /// Printed as its ops, one equation each, as JAX would have traced them.
  static void print(graph::JaxprWriter& w, Params const& p, std::span<std::string const> inputs,
                    std::span<graph::VarPtr const> outputs) {
    std::vector<Shape> shapes;
    std::apply([&](auto const&... leaf) { (shapes.push_back(leaf.shape()), ...); }, fusion::leaves_of(p.expr));
    fusion::print_program(w, fusion::program_of(p.expr), shapes, inputs, *outputs[0]);
  }

  /// `x * 1` and the like, as one-op regions (`x * 1.0f`, or a product with
  /// an operand of ones that a VJP rule made).
  static std::optional<std::size_t> forwarded_operand(Params const& p, std::span<std::optional<double> const> uniform) {
    return detail::forwarded_leaf(p.expr, uniform);
  }

  template <class... L>
  static Shape shape_rule(Params const& p, L const&... leaves) {
    return fusion::substitute<0>(p.expr, std::tuple<L const&...>(leaves...)).shape();
  }
  template <class... L>
  static Array<R> impl(Params const& p, Shape const&, L const&... leaves) {
    return fusion::evaluate_concrete(fusion::substitute<0>(p.expr, std::tuple<L const&...>(leaves...)));
  }

  /// `count` results from raw rows: leaf k at values[operands[k]], stepping
  /// steps[operands[k]] (0 or 1) elements. jit's fused loops call this tile
  /// by tile.
  static void run_row(Params const& p, std::span<void const* const> values, std::span<std::int64_t const> steps,
                      std::span<std::uint32_t const> operands, void* out, std::int64_t count) {
    fusion::RowState<std::tuple_size_v<Leaves>> s;
    bool unit_or_broadcast = true;
    for (std::size_t k = 0; k < s.ptr.size(); ++k) {
      s.ptr[k] = values[operands[k]];
      s.stride[k] = steps[operands[k]];
      unit_or_broadcast = unit_or_broadcast && (s.stride[k] == 0 || s.stride[k] == 1);
    }
    fusion::evaluate_row(p.expr, s, unit_or_broadcast, static_cast<R*>(out), count);
  }

  /// The region's tangent from its leaves' tangents, and a leaf's cotangent
  /// from the region's: programs (fusion/program_primitive.hpp).
  static graph::MaybeArray erased_jvp(Params const& p, std::span<AnyArray const> primals,
                                      std::span<graph::MaybeArray const> tangents) {
    return fusion::program_jvp(fusion::program_of(p.expr), primals, tangents);
  }
  static std::vector<graph::MaybeArray> erased_vjp(Params const& p, AnyArray const& ct, std::span<AnyArray const> primals,
                                                   graph::Wanted wanted) {
    return fusion::program_vjp(fusion::program_of(p.expr), ct, primals, wanted);
  }

  /// Mapped leaves get their batch axis in front, padded with size-1 axes
  /// so that broadcasting lines them up; the region itself is unchanged.
  template <class... L>
  static std::pair<Array<R>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, L const&... leaves) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      [[maybe_unused]] auto const rank = std::max({std::int64_t{0}, (leaves.ndim() - (dims[I] ? 1 : 0))...});
      auto const batched = std::tuple<L...>{detail::batched_for_broadcast(leaves, dims[I], rank)...};
      return std::pair<Array<R>, graph::BatchDim>{Array<R>(fusion::substitute<0>(p.expr, batched)), 0};
    }(std::index_sequence_for<L...>{});
  }
};

}  // namespace jaxcc::primitives
