// jaxcc::vmap: automatic batching. The function is traced ONCE on the
// per-example shapes (each mapped axis removed); the traced program is then
// run on the whole batch, each equation rewritten by its primitive's
// batching rule into one batched application (graph/batch.hpp). No loop
// over the batch is ever made. Options, in any order:
//   in_axes(...)   one entry per positional argument, or one entry for all:
//                  an int (negative counts from the end), jaxcc::none, or a
//                  pytree prefix of the argument with such leaves;
//   out_axes(...)  likewise for the output (one entry for the whole output,
//                  or one per element of a returned tuple);
//   axis_size(n)   the batch size when no argument is mapped;
//   axis_name("i") the name collectives (lax::psum, ...) use for this axis.
#pragma once

#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/graph/batch.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/graph/value_ops.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/install_value_ops.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/transforms/options.hpp"
#include "jaxcc/tree/map.hpp"

namespace jaxcc {

/// An in_axes/out_axes leaf: an axis index, or jaxcc::none for "not mapped".
template <class S>
concept AxisSpec = std::integral<S> || std::same_as<S, none_t>;

template <class... Specs>
struct in_axes_t {
  std::tuple<Specs...> specs;
};
template <class... Specs>
struct out_axes_t {
  std::tuple<Specs...> specs;
};
struct axis_size_t {
  std::int64_t value;
};

/// vmap's in_axes: one entry per positional argument, or one for all.
template <class... Specs>
in_axes_t<std::decay_t<Specs>...> in_axes(Specs const&... specs) {
  return {{specs...}};
}
/// vmap's out_axes: one entry for the whole output, or one per element of a
/// returned tuple.
template <class... Specs>
out_axes_t<std::decay_t<Specs>...> out_axes(Specs const&... specs) {
  return {{specs...}};
}
inline axis_size_t axis_size(std::int64_t n) { return {n}; }

namespace detail {

template <class T>
struct is_in_axes : std::false_type {};
template <class... S>
struct is_in_axes<in_axes_t<S...>> : std::true_type {};
template <class T>
struct is_out_axes : std::false_type {};
template <class... S>
struct is_out_axes<out_axes_t<S...>> : std::true_type {};

template <class T>
struct is_axis_size : std::is_same<T, axis_size_t> {};
template <class T>
struct is_axis_name : std::is_same<T, axis_name_t> {};

template <class Option>
concept VmapOption = is_in_axes<Option>::value || is_out_axes<Option>::value || std::same_as<Option, axis_size_t> ||
                     std::same_as<Option, axis_name_t>;

/// The option of kind Is among `options`, or `fallback`.
template <template <class> class Is, class Fallback, class... Options>
auto pick_option(Fallback fallback, Options const&... options) {
  constexpr std::size_t n = (std::size_t{Is<Options>::value} + ... + 0);
  static_assert(n <= 1, "vmap: an option is given twice");
  if constexpr (n == 0) {
    return fallback;
  } else {
    constexpr bool flags[] = {Is<Options>::value...};
    constexpr std::size_t i = [&] {
      std::size_t k = 0;
      while (!flags[k]) ++k;
      return k;
    }();
    return std::get<i>(std::tuple<Options const&...>(options...));
  }
}

/// An axes entry that is a single leaf applies to every argument (JAX's
/// `in_axes=0`); otherwise the entries correspond to the arguments.
template <std::size_t N, class... Specs>
auto per_argument_specs(std::tuple<Specs...> const& specs) {
  if constexpr (sizeof...(Specs) == 1 && (AxisSpec<Specs> && ...)) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple{((void)I, std::get<0>(specs))...};
    }(std::make_index_sequence<N>{});
  } else {
    static_assert(sizeof...(Specs) == N,
                  "vmap in_axes must be an int, jaxcc::none, or a tuple of entries corresponding to the positional "
                  "arguments passed to the function");
    return specs;
  }
}

template <class S>
std::optional<std::int64_t> axis_of(S const& spec) {
  if constexpr (std::same_as<S, none_t>) return std::nullopt;
  else {
    static_assert(AxisSpec<S>, "vmap in_axes/out_axes leaves are ints or jaxcc::none");
    return static_cast<std::int64_t>(spec);
  }
}

/// An array leaf with the axis its spec gives, and where it sits (for errors).
struct SpecifiedLeaf {
  AnyArray value;
  std::optional<std::int64_t> axis;  // as given: may be negative
  std::string where;                 // `args[0]`, `args[1]['w']`
};

/// Each array leaf of `tree` with the axis of the prefix `spec` over it.
template <class Spec, class Tree>
std::vector<SpecifiedLeaf> specified_leaves(std::string_view name, std::string_view root, Spec const& spec,
                                            Tree const& tree) {
  std::vector<SpecifiedLeaf> out;
  try {
    map_prefix_with_path(
        name,
        [&](tree::KeyPath const& path, auto const& s, auto const& subtree) {
          auto const axis = axis_of(s);
          std::string where(root);
          where += tree::keystr(path);
          if constexpr (AnArray<std::remove_cvref_t<decltype(subtree)>>) {
            out.push_back({AnyArray(subtree), axis, where});
          } else {
            tree::map_with_path(
                [&](tree::KeyPath const& inner, auto const& leaf) {
                  if constexpr (AnArray<std::remove_cvref_t<decltype(leaf)>>) {
                    std::string leaf_where = where;
                    leaf_where += tree::keystr(inner);
                    out.push_back({AnyArray(leaf), axis, std::move(leaf_where)});
                  }
                  return leaf;  // rebuilt as it was: a JAXCC_PYTREE struct holds only its own member types
                },
                subtree);
          }
          return 0;
        },
        spec, tree);
  } catch (Error const& e) {
    throw Error(std::string(name) + " specification must be a tree prefix of the corresponding value;\n  Mismatch details (1 found):\n  " +
                e.what());
  }
  return out;
}

inline std::string short_type(AnyArray const& x) {
  std::string s(name(x.dtype()));
  s += '[';
  for (std::size_t i = 0; i < x.shape().size(); ++i) {
    if (i) s += ',';
    s += std::to_string(x.shape()[i]);
  }
  s += ']';
  return s;
}

/// The batch size the mapped axes agree on (JAX's _mapped_axis_size, with
/// its messages); the axes come back normalized.
inline std::int64_t mapped_axis_size(std::vector<SpecifiedLeaf>& leaves, std::optional<std::int64_t> axis_size) {
  std::vector<std::pair<std::int64_t, std::size_t>> counts;  // size, how many; in order of first use
  std::vector<std::int64_t> sizes(leaves.size(), -1);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    auto& leaf = leaves[i];
    if (!leaf.axis) continue;
    auto const rank = leaf.value.ndim();
    auto const a = *leaf.axis;
    if (a >= rank || a < -rank)
      throw Error("vmap was requested to map its argument along axis " + std::to_string(a) +
                  ", which implies that its rank should be at least " + std::to_string(a >= 0 ? a + 1 : -a) +
                  ", but is only " + std::to_string(rank) + " (its shape is " + to_string(leaf.value.shape()) + ")");
    sizes[i] = leaf.value.shape()[static_cast<std::size_t>(a < 0 ? a + rank : a)];
    auto it = std::find_if(counts.begin(), counts.end(), [&](auto const& c) { return c.first == sizes[i]; });
    if (it == counts.end()) counts.emplace_back(sizes[i], 1);
    else ++it->second;
  }
  bool const agrees = counts.empty() || (counts.size() == 1 && (!axis_size || *axis_size == counts[0].first));
  if (counts.empty() && !axis_size)
    throw Error("vmap must have at least one non-None value in in_axes or axis_size must be specified");
  if (!agrees) {
    // Most common first; among equals, the first seen (Counter.most_common).
    std::stable_sort(counts.begin(), counts.end(), [](auto const& a, auto const& b) { return a.second > b.second; });
    std::string msg = "vmap got inconsistent sizes for array axes to be mapped:\n";
    if (axis_size) msg += "  * the `axis_size` argument was " + std::to_string(*axis_size) + ";\n";
    for (std::size_t k = 0; k < counts.size(); ++k) {
      auto const [size, count] = counts[k];
      std::size_t i = 0;
      while (sizes[i] != size) ++i;
      auto const example = "axis " + std::to_string(*leaves[i].axis) + " of " + leaves[i].where + " of type " +
                           short_type(leaves[i].value);
      if (count == 1) msg += "  * one axis had size " + std::to_string(size) + ": " + example + ";\n";
      else
        msg += std::string(k == 0 ? "  * most axes (" : "  * some axes (") + std::to_string(count) +
               " of them) had size " + std::to_string(size) + ", e.g. " + example + ";\n";
    }
    msg.resize(msg.size() - 2);
    throw Error(msg);
  }
  for (auto& leaf : leaves)
    if (leaf.axis && *leaf.axis < 0) *leaf.axis += leaf.value.ndim();
  return counts.empty() ? *axis_size : counts[0].first;
}

/// Batching's operations on values (graph/value_ops.hpp) that every batched
/// program may need: moving and broadcasting mapped axes (vmap's outputs,
/// fused regions' and control flow's batching rules). Those that compute
/// (select, sum over a mapped axis, ...) are control flow's and custom
/// rules', installed by them (lax/control_flow_common.hpp): a file that
/// batches neither compiles none of them.
struct BatchingOps {
  template <Element T>
  static void fill(graph::ValueOps& ops) {
    // The same function at every dtype: the primitives they bind are dtype-generic.
    ops.move_axis = &detail::move_axis<AnyArray>;
    ops.broadcast_axis = &detail::broadcast_axis<AnyArray>;
  }
};

}  // namespace detail
}  // namespace jaxcc

namespace jaxcc {
namespace detail {

/// A batched output moved to where out_axes wants its mapped axis (JAX's
/// matchaxis): an unmapped output is broadcast, a mapped one with out_axes
/// none is an error.
inline AnyArray match_out_axis(AnyArray const& x, graph::BatchDim src, std::optional<std::int64_t> dst,
                               graph::AxisData const& axis, std::string const& where) {
  if (!dst) {
    if (!src) return x;
    if (!axis.name.empty())
      throw Error("vmap has mapped output (axis_name=" + axis.name + ") but out_axes is None");
    throw Error("at vmap out_axes" + where + ", got axis spec None but output was batched on axis " +
                std::to_string(*src));
  }
  auto const rank = x.ndim() + (src ? 0 : 1);
  auto const d = normalize_axis(*dst, rank, "vmap out_axes");
  return src ? graph::values::move_axis(x, *src, d) : graph::values::broadcast_axis(x, axis.size, d);
}

/// What vmap does between taking the arguments apart and putting the
/// output together, the same for every function: f (as a function of its
/// arguments' leaves) traced once on the per-example shapes of `leaves`,
/// then its program run on the batch. Returns the program's outputs (the
/// traced output's leaves) and the batched values with their batch dims.
template <class Void = void>
std::pair<std::vector<AnyArray>, graph::Batched> trace_and_batch(graph::FlatFunction const& f,
                                                                 std::vector<SpecifiedLeaf> const& leaves,
                                                                 graph::AxisData const& axis) {
  std::vector<graph::Aval> avals;
  for (auto const& l : leaves) {
    Shape shape = l.value.shape();
    if (l.axis) shape.erase(shape.begin() + *l.axis);
    avals.push_back({l.value.dtype(), std::move(shape)});
  }
  std::vector<AnyArray> closure;
  auto const program = [&] {
    graph::ScopedAxis scope(axis);
    return graph::trace_program<Void>(f, avals, closure);  // (named Void: instantiated only where vmap is)
  }();
  std::vector<AnyArray> inputs;
  std::vector<graph::BatchDim> dims;
  for (auto const& l : leaves) {
    inputs.push_back(l.value);
    dims.push_back(l.axis);
  }
  for (auto const& c : closure) {
    inputs.push_back(c);
    dims.push_back(graph::not_mapped);
  }
  auto result = graph::batch_program<Void>(program, inputs, dims, axis);
  return {program.outputs, std::move(result)};
}

template <class F, class InAxes, class OutAxes>
class Vmapped {
 public:
  Vmapped(F f, InAxes in, OutAxes out, std::optional<std::int64_t> size, std::string name)
      : f_(std::move(f)), in_(std::move(in)), out_(std::move(out)), size_(size), name_(std::move(name)) {}

  template <class... Args>
  auto operator()(Args const&... args) const {
    if constexpr (!(TraceableArgument<Args> && ...))  // one message, naming the argument
      static_assert(traced_arguments<Args...>(std::index_sequence_for<Args...>{}));
    else if constexpr ((holds_expression<Args> || ...)) return (*this)(as_argument(args)...);
    else return batched(args...);
  }

 private:
  template <class... Args>
  auto batched(Args const&... args) const {
    graph::install_value_ops<BatchingOps>();
    auto const specs = per_argument_specs<sizeof...(Args)>(in_.specs);
    auto leaves = specified_leaves("vmap in_axes", "args", specs, std::tuple<Args const&...>(args...));
    graph::AxisData const axis{mapped_axis_size(leaves, size_), name_};

    FlatCall<F, Args...> call(f_, std::tuple<Args...>{args...});
    auto const [program_outputs, result] = trace_and_batch(call, leaves, axis);

    auto const traced_out = call.unflatten_output(program_outputs);
    auto const out_spec = [&] {
      if constexpr (std::tuple_size_v<decltype(out_.specs)> == 1) return std::get<0>(out_.specs);
      else return out_.specs;
    }();
    auto const out_leaves = specified_leaves("vmap out_axes", "", out_spec, traced_out);
    std::vector<AnyArray> outs;
    for (std::size_t i = 0; i < out_leaves.size(); ++i)
      outs.push_back(match_out_axis(result.values[i], result.dims[i], out_leaves[i].axis, axis, out_leaves[i].where));
    return call.unflatten_output(outs);
  }

  F f_;
  InAxes in_;
  OutAxes out_;
  std::optional<std::int64_t> size_;
  std::string name_;
};

}  // namespace detail

/// The batched version of f: `vmap(f, in_axes(none, 0))(params, xs)`.
template <class F, detail::VmapOption... Options>
auto vmap(F f, Options const&... options) {
  auto in = detail::pick_option<detail::is_in_axes>(in_axes(0), options...);
  auto out = detail::pick_option<detail::is_out_axes>(out_axes(0), options...);
  auto const size = detail::pick_option<detail::is_axis_size>(std::optional<std::int64_t>{}, options...);
  auto const name = detail::pick_option<detail::is_axis_name>(axis_name_t{}, options...);
  std::optional<std::int64_t> n;
  if constexpr (std::same_as<std::remove_cvref_t<decltype(size)>, axis_size_t>) n = size.value;
  return detail::Vmapped<F, decltype(in), decltype(out)>(std::move(f), std::move(in), std::move(out), n, name.value);
}

}  // namespace jaxcc
