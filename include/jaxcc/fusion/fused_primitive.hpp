// A fused region under a transform. When an expression with traced leaves
// becomes an Array, the whole region is recorded as ONE equation of
// primitive `fused_p<E>`, whose operands are the region's leaves. Its rules
// come from the ops' tangent rules, combined at compile time:
//  - JVP: the tangent expression of the region, itself one fused loop;
//  - VJP: for each float leaf, the tangent expression with ct as that
//    leaf's tangent (ct pulled back through the region), summed over the
//    dimensions the leaf was broadcast along.
// When the operands are traced, the cotangent of a region of several ops
// is recorded as one equation too: a derived region, fused_p<D, true>, so
// that jit runs it as one loop, as it runs the region. A derived region
// declares no derivative rules of its own: it is differentiated as the ops
// it is made of (its `expand` rule), and tangents are recorded op by op, so
// the set of region types a program instantiates stays finite under any
// nesting of transforms, and small.
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
#include "jaxcc/graph/primitive_of.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/reshape.hpp"

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

// --- derivatives -------------------------------------------------------------

/// The tangent of region E given a tangent per leaf (an operand, or a
/// symbolic Zero/One), built from the ops' tangent rules.
template <std::size_t K, class E, class Tangents>
auto tangent_expr(E const& e, Tangents const& tangents) {
  if constexpr (AnArray<E>) {
    return std::get<K>(tangents);
  } else if constexpr (is_expr<E>::value) {
    constexpr auto offsets = child_leaf_offsets_of<E>();
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return E::op_type::tangent(std::get<I>(e.args())..., tangent_expr<K + offsets[I]>(std::get<I>(e.args()), tangents)...);
    }(std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(e.args())>>>{});
  } else {
    return Zero<typename E::value_type>{};
  }
}

/// Tangents for the transpose with respect to leaf K: `ct` at leaf K, Zero
/// elsewhere. The region's tangent is linear in them, so this is ct pulled
/// back through the region; a select passes ct or 0 (as JAX's select
/// transpose does) rather than multiplying by a 0/1 mask, so a nan cotangent
/// on the branch not taken does not leak.
template <std::size_t K, class Leaves, class Ct>
auto seeds(Ct const& ct) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::tuple{[&] {
      using T = typename std::tuple_element_t<I, Leaves>::value_type;
      if constexpr (I == K) return ct;
      else return Zero<T>{};
    }()...};
  }(std::make_index_sequence<std::tuple_size_v<Leaves>>{});
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
template <class E>
bool every_leaf_traced(E const& e) {
  return std::apply([](auto const&... l) { return (l.is_traced() && ...); }, leaves_of(e));
}

template <class E>
Array<typename E::value_type> evaluate_unfused(E const& e);
/// `e` recorded as one equation of the derived region fused_p<E, true>
/// (fusion/evaluate.hpp).
template <class E>
Array<typename E::value_type> record_derived(E const& e);

/// Whether every operand of the region's root is a leaf: one op.
template <class E>
constexpr bool one_op = [] {
  if constexpr (!is_expr<E>::value) return true;
  else
    return []<class Op, class... Args>(std::type_identity<Expr<Op, Args...>>) {
      return (!is_expr<Args>::value && ...);
    }(std::type_identity<E>{});
}();

/// An expression built by a rule, as an Array: one fused loop when its
/// leaves are concrete; when they are traced, one derived region if `Fuse`
/// and it has several ops, else op by op. A concrete leaf among traced
/// ones (the array of ones reverse mode seeds with) is a constant of the
/// traced program: op by op, jit's optimizer folds `x * 1` with it.
template <bool Fuse, class E>
Array<typename E::value_type> materialize(E const& e) {
  if constexpr (AnArray<E>) {
    return e;
  } else {
    if (!any_leaf_traced(e)) return evaluate_concrete(e);
    if constexpr (Fuse && !one_op<E>)
      if (every_leaf_traced(e)) return record_derived(e);
    return evaluate_unfused(e);
  }
}

template <class E>
Array<typename E::value_type> evaluate_unfused(E const& e) {
  auto operand = [](auto const& a) {
    using A = std::remove_cvref_t<decltype(a)>;
    if constexpr (is_expr<A>::value) return evaluate_unfused(a);
    else return a;
  };
  return std::apply([&](auto const&... a) { return Array<typename E::value_type>(make_expr<typename E::op_type>(operand(a)...)); },
                    e.args());
}

/// Sum `c` over the dimensions a leaf of `shape` was broadcast along, and
/// give it the leaf's dtype.
template <Element T, Element R>
Array<T> unbroadcast(Array<R> c, Shape const& shape) {
  if (!(c.shape() == shape)) {
    Axes axes;
    auto const lead = c.ndim() - shape.rank();
    for (std::int64_t i = 0; i < c.ndim(); ++i)
      if (i < lead || (shape[static_cast<std::size_t>(i - lead)] == 1 && c.shape()[static_cast<std::size_t>(i)] != 1))
        axes.push_back(i);
    c = lax::reshape(jaxcc::detail::bind<primitives::reduce_sum_p>({axes}, c), shape);
  }
  if constexpr (std::same_as<T, R>) return c;
  else return Array<T>(cast<T>(c));
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
/// leaves. `Derived`: a cotangent expression one of these rules built,
/// differentiated as the ops it is made of (`expand`).
template <class E, bool Derived = false>
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
  template <class W>
  static void print(W& w, Params const& p, std::span<std::string const> inputs, std::span<graph::VarPtr const> outputs) {
    std::size_t next_leaf = 0;
    print_node(w, p.expr, inputs, next_leaf, outputs[0].get());
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

  /// primals_and_tangents: the leaves, then one tangent per leaf.
  template <class... A>
  static auto jvp(Params const& p, Array<R> const&, A const&... primals_and_tangents)
    requires(!Derived)
  {
    constexpr std::size_t n = std::tuple_size_v<Leaves>;
    static_assert(sizeof...(A) == 2 * n);
    auto const all = std::tuple<A const&...>(primals_and_tangents...);
    auto const region = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return fusion::substitute<0>(p.expr, std::tuple<std::tuple_element_t<I, Leaves> const&...>(std::get<I>(all)...));
    }(std::make_index_sequence<n>{});
    // Integer and bool leaves have no tangent.
    auto const tangents = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple{[&] {
        using T = typename std::tuple_element_t<I, Leaves>::value_type;
        if constexpr (detail::is_float<T>) return std::get<n + I>(all);
        else return fusion::Zero<T>{};
      }()...};
    }(std::make_index_sequence<n>{});
    auto t = fusion::tangent_expr<0>(region, tangents);
    using X = decltype(t);
    if constexpr (fusion::is_zero<X>) return fusion::Zero<R>{};
    else return fusion::materialize<false>(fusion::cast<R>(t));
  }

  template <class... L>
  static auto vjp(Params const& p, graph::Wanted wanted, Array<R> const& ct, Array<R> const&, L const&... leaves)
    requires(!Derived)
  {
    auto const region = fusion::substitute<0>(p.expr, std::tuple<L const&...>(leaves...));
    auto const leaf_refs = std::tuple<L const&...>(leaves...);
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{leaf_cotangent<K>(region, ct, std::get<K>(leaf_refs), wanted[K])...};
    }(std::index_sequence_for<L...>{});
  }

  /// A derived region is differentiated as the ops it is made of.
  template <class... L>
  static Array<R> expand(Params const& p, L const&... leaves)
    requires Derived
  {
    return fusion::evaluate_unfused(fusion::substitute<0>(p.expr, std::tuple<L const&...>(leaves...)));
  }

  /// Mapped leaves get their batch axis in front, padded with size-1 axes
  /// so that broadcasting lines them up; the region itself is unchanged.
  template <class... L>
  static std::pair<Array<R>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, L const&... leaves) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      [[maybe_unused]] auto const rank = std::max({std::int64_t{0}, (leaves.ndim() - (dims[I] ? 1 : 0))...});
      auto const batched = std::tuple<L...>{detail::batched_for_broadcast(leaves, dims[I], rank)...};
      auto region = fusion::substitute<0>(p.expr, batched);
      if constexpr (Derived) return std::pair<Array<R>, graph::BatchDim>{fusion::record_derived(region), 0};
      else return std::pair<Array<R>, graph::BatchDim>{Array<R>(region), 0};
    }(std::index_sequence_for<L...>{});
  }

 private:
  /// Emit node X's equation (named `binder` when given) and return its name.
  template <class W, class X>
  static std::string print_node(W& w, X const& x, std::span<std::string const> inputs, std::size_t& next_leaf,
                                graph::Var const* root = nullptr) {
    if constexpr (AnArray<X>) {
      return inputs[next_leaf++];
    } else if constexpr (fusion::is_scalar_leaf<X>::value) {
      return W::literal(static_cast<double>(x.value), dtype_of<typename X::value_type>);
    } else {
      using Op = typename X::op_type;
      std::vector<std::string> args;
      std::apply([&](auto const&... a) { (args.push_back(print_node(w, a, inputs, next_leaf)), ...); }, x.args());
      std::string params;
      if constexpr (requires { Op::params_string(); }) params = Op::params_string();
      std::span<int const> order;
      if constexpr (requires { Op::print_order; }) order = Op::print_order;
      return w.emit_node(root ? w.name(*root) : w.fresh_name(), X::dtype(), x.shape(), Op::name, params, args, order);
    }
  }

  template <std::size_t K, Element T>
  static auto leaf_cotangent(E const& region, Array<R> const& ct, Array<T> const& leaf, bool wanted) {
    if constexpr (!detail::is_float<T>) {
      return graph::NoCotangent{};
    } else {
      auto const seed = [&] {
        if constexpr (std::same_as<T, R>) return ct;
        else return Array<T>(fusion::cast<T>(ct));
      };
      using D = decltype(fusion::tangent_expr<0>(region, fusion::seeds<K, Leaves>(seed())));
      if constexpr (fusion::is_zero<D>) {
        return graph::NoCotangent{};
      } else {
        std::optional<Array<T>> result;
        if (wanted) {
          auto d = fusion::tangent_expr<0>(region, fusion::seeds<K, Leaves>(seed()));
          result = fusion::unbroadcast<T>(fusion::materialize<!fusion::one_op<E>>(fusion::cast<R>(d)), leaf.shape());
        }
        return result;
      }
    }
  }
};

}  // namespace jaxcc::primitives
