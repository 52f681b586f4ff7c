// The checks' machinery on one type: a user's function is made, once, at
// the check's call, a function of its arguments' array leaves returning its
// output's array leaves (graph::FlatFunction, `flat_function`), and jit,
// vmap, jvp and vjp are applied to that (`flat_jit`, `flat_vmap`,
// `flat_jvp`, `flat_vjp`), as are the loops over examples (`example_of`,
// `stacked`). What the checks compute beyond calling the function is then
// the same code for every function and every argument type: templates of a
// defaulted parameter, compiled once per file that checks anything, or not
// at all where the precompiled runtime is linked (it holds their <void>
// instances: the list at the end of testing/check_grads.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/graph/interpret.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/transforms/jit.hpp"
#include "jaxcc/transforms/jvp.hpp"
#include "jaxcc/transforms/vjp.hpp"
#include "jaxcc/transforms/vmap.hpp"

namespace jaxcc::testing::detail {

/// Array leaves, in flatten order.
using Leaves = std::vector<AnyArray>;
using graph::FlatFunction;

/// `f` as a function of the array leaves of arguments shaped like `args` (a
/// std::tuple of pytrees whose leaves are Arrays or scalars; scalars stay
/// as given), returning its output's array leaves. `f` is held by reference.
template <class F, class Args>
FlatFunction flat_function(F const& f, Args const& args) {
  return [&f, args](Leaves const& leaves) {
    std::size_t next = 0;
    auto const call = std::apply(
        [&](auto const&... a) { return Args{jaxcc::detail::with_array_leaves(a, leaves, next)...}; }, args);
    return jaxcc::detail::array_leaves(jaxcc::detail::materialized(std::apply(f, call)));
  };
}

/// The arguments as the checks take them: fused expressions made Arrays.
template <class... Args>
auto concrete_arguments(Args const&... args) {
  return std::tuple<decltype(jaxcc::detail::materialized(args))...>{jaxcc::detail::materialized(args)...};
}

/// The array leaves of a std::tuple of pytrees.
template <class Tuple>
Leaves tuple_leaves(Tuple const& t) {
  Leaves out;
  std::apply([&](auto const&... x) { (jaxcc::detail::append_array_leaves(x, out), ...); }, t);
  return out;
}

/// `leaves[from, to)`.
inline Leaves leaf_range(Leaves const& leaves, std::size_t from, std::size_t to) {
  return Leaves(leaves.begin() + static_cast<std::ptrdiff_t>(from), leaves.begin() + static_cast<std::ptrdiff_t>(to));
}

/// A function traced on inputs shaped like `like`: the trace and its outputs.
struct FlatTrace {
  std::unique_ptr<graph::Trace> trace;
  Leaves out;  // as traced
};

template <class V = void>
FlatTrace trace_flat(FlatFunction const& f, Leaves const& like) {
  graph::install_value_ops<jaxcc::detail::ReverseOps>();
  FlatTrace t{std::make_unique<graph::Trace>(), {}};
  graph::ScopedTrace scope(*t.trace);
  Leaves inputs;
  for (auto const& l : like) inputs.push_back(t.trace->add_input(l.dtype(), l.shape()));
  t.out = f(inputs);
  return t;
}

/// jvp(f, primals, tangents): f's outputs, then their tangents (zeros
/// where an output does not depend on the primals).
template <class V = void>
std::pair<Leaves, Leaves> flat_jvp(FlatFunction const& f, Leaves const& primals, Leaves const& tangents) {
  auto const traced = trace_flat<V>(f, primals);
  std::vector<graph::MaybeArray> input_tangents;
  for (std::size_t i = 0; i < primals.size(); ++i) {
    jaxcc::detail::check_tangent(primals[i], tangents[i]);
    input_tangents.emplace_back(tangents[i]);
  }
  auto const env = graph::evaluate<V>(*traced.trace, primals);
  auto const tangent = graph::forward_tangents<V>(*traced.trace, env, input_tangents);
  auto const out_tangents = jaxcc::detail::output_tangents(*traced.trace, traced.out, tangent);
  std::pair<Leaves, Leaves> result;
  for (std::size_t i = 0; i < traced.out.size(); ++i) {
    auto value = env.resolve(traced.out[i]);
    result.second.push_back(out_tangents[i] ? *out_tangents[i] : jaxcc::detail::zeros_view(value.dtype(), value.shape()));
    result.first.push_back(std::move(value));
  }
  return result;
}

/// vjp(f, primals): f's outputs, and the pullback from their cotangents
/// to the primals' (zeros for a primal the outputs do not depend on).
struct FlatVjp {
  Leaves out;
  std::function<Leaves(Leaves const&)> pullback;
};

template <class V = void>
FlatVjp flat_vjp(FlatFunction const& f, Leaves const& primals) {
  struct State {
    FlatTrace traced;
    graph::Env env;
    std::vector<graph::Aval> primals;
  };
  auto traced = trace_flat<V>(f, primals);
  auto env = graph::evaluate<V>(*traced.trace, primals);
  FlatVjp result;
  for (auto const& o : traced.out) result.out.push_back(env.resolve(o));
  std::vector<graph::Aval> avals;
  for (auto const& p : primals) avals.push_back(graph::aval_of(p));
  auto const state = std::make_shared<State>(State{std::move(traced), std::move(env), std::move(avals)});
  result.pullback = [state](Leaves const& ct) {
    auto const& trace = *state->traced.trace;
    std::vector<graph::MaybeArray> seeds(trace.var_count());
    jaxcc::detail::seed_cotangents<V>(trace, state->traced.out, ct, seeds);
    auto const cts = graph::backward<V>(trace, state->env, std::move(seeds));
    Leaves out;
    for (std::size_t i = 0; i < state->primals.size(); ++i) {
      auto const& p = state->primals[i];
      out.push_back(i < cts.size() && cts[i] ? *cts[i] : jaxcc::detail::zeros_view(p.dtype, p.shape));
    }
    return out;
  };
  return result;
}

/// jvp(f) as a function of the primals' leaves, then the tangents': its
/// outputs are f's, then their tangents.
template <class V = void>
FlatFunction flat_jvp_function(FlatFunction f, std::size_t num_primals) {
  return [f = std::move(f), num_primals](Leaves const& all) {
    auto [out, tangents] =
        flat_jvp<V>(f, leaf_range(all, 0, num_primals), leaf_range(all, num_primals, all.size()));
    out.insert(out.end(), tangents.begin(), tangents.end());
    return out;
  };
}

/// vjp(f) as a function of the primals' leaves, then a cotangent's of f's
/// output: its outputs are the primals' cotangents.
template <class V = void>
FlatFunction flat_vjp_function(FlatFunction f, std::size_t num_primals) {
  return [f = std::move(f), num_primals](Leaves const& all) {
    return flat_vjp<V>(f, leaf_range(all, 0, num_primals)).pullback(leaf_range(all, num_primals, all.size()));
  };
}

/// Each array leaf of the arguments with its in_axes entry (vmap's
/// specified leaves: the value, the axis, where it is for messages).
using MappedLeaves = std::vector<jaxcc::detail::SpecifiedLeaf>;

/// The leaves of `args` mapped by `in` (an int or jaxcc::none per argument,
/// or one for all), as vmap takes them apart.
template <class... Specs, class... Args>
MappedLeaves mapped_leaves(in_axes_t<Specs...> const& in, std::tuple<Args...> const& args) {
  static_assert(sizeof...(Specs) == 1 || sizeof...(Specs) == sizeof...(Args),
                "jaxcc::testing: in_axes gives one entry per argument, or one for all");
  auto const specs = jaxcc::detail::per_argument_specs<sizeof...(Args)>(in.specs);
  return std::apply(
      [&](auto const&... a) {
        return jaxcc::detail::specified_leaves("vmap in_axes", "args", specs, std::tuple<Args const&...>(a...));
      },
      args);
}

/// `leaves` with their values replaced by `values` (the same axes).
inline MappedLeaves with_values(MappedLeaves leaves, Leaves const& values) {
  for (std::size_t i = 0; i < leaves.size(); ++i) leaves[i].value = values[i];
  return leaves;
}

/// vmap(f, in_axes, out_axes = 0) on leaves with their axes.
template <class V = void>
Leaves flat_vmap(FlatFunction const& f, MappedLeaves leaves) {
  graph::install_value_ops<jaxcc::detail::BatchingOps>();
  graph::AxisData const axis{jaxcc::detail::mapped_axis_size(leaves, std::nullopt), {}};
  auto const [program_outputs, result] = jaxcc::detail::trace_and_batch<V>(f, leaves, axis);
  Leaves out;
  for (std::size_t i = 0; i < result.values.size(); ++i)
    out.push_back(jaxcc::detail::match_out_axis(result.values[i], result.dims[i], 0, axis, ""));
  return out;
}

/// jit(f): the call it traces and optimizes for these arguments (the
/// closure of values f reads from enclosing traces appended to `operands`).
template <class V = void>
std::shared_ptr<graph::PrimitiveBase const> flat_jit(FlatFunction const& f, Leaves& operands) {
  graph::install_value_ops<jaxcc::detail::ReverseOps>();
  std::vector<AnyArray> closure;
  auto call = jaxcc::detail::compile_jit_call<V>(f, operands, std::nullopt,
                                                 std::vector<std::uint8_t>(operands.size(), 0), closure);
  operands.insert(operands.end(), closure.begin(), closure.end());
  return call;
}

/// Example `index` of a leaf mapped along `axis` (normalized; none: the
/// leaf as it is), as a contiguous copy.
inline AnyArray example_of(AnyArray const& leaf, std::optional<std::int64_t> axis, std::int64_t index) {
  if (!axis) return leaf;
  auto const& impl = jaxcc::detail::impl_of(leaf);
  auto const a = static_cast<std::ptrdiff_t>(*axis);
  Shape shape = impl.shape;
  auto strides = impl.strides;
  auto const offset = impl.offset + index * strides[static_cast<std::size_t>(a)];
  shape.erase(shape.begin() + a);
  strides.erase(strides.begin() + a);
  return jaxcc::detail::as_contiguous(jaxcc::detail::view(leaf, std::move(shape), std::move(strides), offset));
}

/// The examples stacked along a new axis 0 (numpy.stack's checks and message).
inline AnyArray stacked(Leaves const& examples) {
  auto const& first = examples.at(0);
  for (auto const& x : examples)
    if (x.dtype() != first.dtype()) {
      throw Error("AnyArray holds an array of dtype " + std::string(name(x.dtype())) + ", not " +
                  std::string(name(first.dtype())));
    } else if (!(x.shape() == first.shape())) {
      std::ostringstream os;
      os << "All input arrays must have the same shape. Got ";
      for (std::size_t i = 0; i < examples.size(); ++i) os << (i ? ", " : "") << examples[i].shape();
      os << '.';
      throw Error(os.str());
    }
  Shape shape = first.shape();
  shape.insert(shape.begin(), static_cast<std::int64_t>(examples.size()));
  auto [out, data] = jaxcc::detail::allocate_any(first.dtype(), shape);
  auto const item = item_size(first.dtype());
  auto* to = static_cast<std::byte*>(data);
  for (auto const& x : examples) {
    jaxcc::detail::copy_elements(jaxcc::detail::impl_of(x), item, to);
    to += static_cast<std::size_t>(x.size()) * item;
  }
  return out;
}

}  // namespace jaxcc::testing::detail
