// Reverse mode: jaxcc::vjp, jaxcc::value_and_grad, jaxcc::grad.
//
// Each traces the function once (with abstract inputs), runs the traced
// program forward on the real inputs keeping every intermediate value, then
// walks it backward asking each equation's VJP rule for its inputs'
// cotangents. A value used twice is one Var, so its cotangents add up and
// every equation is visited once. The values may themselves be traced by an
// enclosing transform, which then records all of this (grad of grad).
#pragma once

#include <cstddef>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/graph/interpret.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/transforms/options.hpp"

namespace jaxcc {

namespace detail {

/// The values of the traced inputs: the array leaves of the arguments at
/// positions Diff, in order.
template <std::size_t... Diff, class... Args>
std::vector<AnyArray> input_values(std::index_sequence<Diff...>, Args const&... args) {
  std::vector<AnyArray> values;
  auto const all = std::forward_as_tuple(args...);
  (
      [&] {
        auto leaves = array_leaves(std::get<Diff>(all));
        values.insert(values.end(), leaves.begin(), leaves.end());
      }(),
      ...);
  return values;
}

/// Seed the cotangents of a traced output tree's leaves with `ct`'s leaves.
template <class = void>
void seed_cotangents(graph::Trace const& trace, std::vector<AnyArray> const& out_leaves,
                     std::vector<AnyArray> const& ct_leaves, std::vector<graph::MaybeArray>& seeds) {
  if (out_leaves.size() != ct_leaves.size())
    throw Error("vjp: the cotangent has " + std::to_string(ct_leaves.size()) + " arrays, but the function's output has " +
                std::to_string(out_leaves.size()));
  for (std::size_t i = 0; i < out_leaves.size(); ++i) {
    auto const& out = out_leaves[i];
    auto const& ct = ct_leaves[i];
    if (!(out.shape() == ct.shape()) || out.dtype() != ct.dtype())
      throw Error("vjp: cotangent " + std::to_string(i) + " has type " + graph::type_string(ct.dtype(), ct.shape()) +
                  ", but the primal output there has type " + graph::type_string(out.dtype(), out.shape()));
    auto const& var = graph::var_of(out);
    if (var && var->trace_id == trace.id()) seeds[var->id] = graph::add_maybe(seeds[var->id], ct);
  }
}

inline void check_grad_input(AnyArray const& leaf, std::string_view transform, bool holomorphic = false) {
  if (holomorphic && !is_complex(leaf.dtype()))
    throw Error(std::string(transform) + " with holomorphic=True requires inputs with complex dtype, but got " +
                std::string(name(leaf.dtype())) + ".");
  if (!has_tangent_space(leaf.dtype()))
    throw Error(std::string(transform) +
                " requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got " +
                std::string(name(leaf.dtype())) +
                ". If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True.");
}

inline void check_grad_output(AnyArray const& out, bool holomorphic = false) {
  if (out.ndim() != 0) {
    std::string extract;
    if (out.size() == 1) extract = "extract the scalar with output.reshape({}), ";
    throw Error("Gradient only defined for scalar-output functions. Output had shape: " + to_string(out.shape()) +
                ". To get the gradient, " + extract +
                "reduce the output to a scalar with jnp::sum(output), or use jaxcc::jacrev to differentiate a "
                "function with a non-scalar output.");
  }
  if (holomorphic && !is_complex(out.dtype()))
    throw Error("grad with holomorphic=True requires outputs with complex dtype, but got " +
                std::string(name(out.dtype())) + ".");
  if (!holomorphic && is_complex(out.dtype()))
    throw Error("grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got " +
                std::string(name(out.dtype())) + ". For holomorphic differentiation, pass jaxcc::holomorphic. For "
                "differentiation of non-holomorphic functions involving complex outputs, use jaxcc::vjp directly.");
  if (!has_tangent_space(out.dtype()))
    throw Error("grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got " +
                std::string(name(out.dtype())) + ". For differentiation of functions with integer outputs, use "
                "jaxcc::vjp directly.");
}

/// vjp on primals whose leaves are all Arrays.
template <class F, class... Primals>
auto vjp_of(F const& f, Primals const&... primals) {
  auto call = detail::trace_call(std::index_sequence_for<Primals...>{}, f, primals...);
  using Out = decltype(call.out);
  struct State {
    std::unique_ptr<graph::Trace> trace;
    Out traced_out;
    graph::Env env;
    std::tuple<Primals...> primals;
  };
  auto const inputs = detail::input_values(std::index_sequence_for<Primals...>{}, primals...);
  auto env = graph::evaluate(*call.trace, inputs);
  auto out = detail::resolve(env, call.out);
  auto state = std::make_shared<State>(State{std::move(call.trace), std::move(call.out), std::move(env), {primals...}});
  auto vjp_fn = [state](Out const& ct) {
    auto const& trace = *state->trace;
    std::vector<graph::MaybeArray> seeds(trace.var_count());
    detail::seed_cotangents(trace, detail::array_leaves(state->traced_out), detail::array_leaves(ct), seeds);
    auto const cts = graph::backward(trace, state->env, std::move(seeds));
    std::size_t next = 0;
    return std::apply([&](auto const&... p) { return std::tuple<Primals...>{detail::rebuild_like(p, cts, next)...}; },
                      state->primals);
  };
  return std::pair{std::move(out), std::move(vjp_fn)};
}

}  // namespace detail

/// `(out, vjp_fn)`: the function's value and its pullback; `vjp_fn(ct)`
/// returns a std::tuple with one cotangent per primal, each shaped like it.
template <class F, class... Primals>
auto vjp(F const& f, Primals const&... primals) {
  if constexpr ((detail::holds_expression<Primals> || ...)) return vjp(f, detail::as_argument(primals)...);
  else return detail::vjp_of(f, primals...);
}

namespace detail {

template <class A, bool aux, bool holomorphic, class F, class... Args>
auto value_and_grad_at(F const& f, Args const&... args) {
  auto const diff = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::index_sequence<A::indices[I]...>{};
  }(std::make_index_sequence<A::indices.size()>{});
  auto const inputs = input_values(diff, args...);
  for (auto const& leaf : inputs) check_grad_input(leaf, "grad", holomorphic);

  auto call = trace_call(diff, f, args...);
  auto const& traced_out = [&]() -> auto const& {
    if constexpr (aux) {
      static_assert(is_pair_like<decltype(call.out)>::value, "with has_aux the function must return a pair (output, aux)");
      return std::get<0>(call.out);
    } else {
      return call.out;
    }
  }();
  static_assert(AnArray<std::remove_cvref_t<decltype(traced_out)>>,
                "grad differentiates functions that return one array (a scalar); use jaxcc::vjp for others");
  check_grad_output(AnyArray(traced_out), holomorphic);

  auto env = graph::evaluate(*call.trace, inputs);
  std::vector<graph::MaybeArray> seeds(call.trace->var_count());
  using T = typename std::remove_cvref_t<decltype(traced_out)>::value_type;
  seed_cotangents(*call.trace, {AnyArray(traced_out)}, {AnyArray(numpy::ones<T>(Shape{}))}, seeds);
  auto const cts = graph::backward(*call.trace, env, std::move(seeds));

  std::size_t next = 0;
  auto const all = std::forward_as_tuple(args...);
  auto grads = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::tuple<std::remove_cvref_t<decltype(std::get<I>(all))>...>{rebuild_like(std::get<I>(all), cts, next)...};
  }(diff);
  auto g = [&] {
    if constexpr (A::single) return std::get<0>(std::move(grads));
    else return grads;
  }();
  if constexpr (aux) {
    auto value = std::pair{resolve(env, std::get<0>(call.out)), resolve(env, std::get<1>(call.out))};
    return std::pair{std::move(value), std::move(g)};
  } else {
    return std::pair{resolve(env, call.out), std::move(g)};
  }
}

}  // namespace detail

/// `f` returning `(value, gradient)`; options `argnums<...>`, `has_aux` and
/// `holomorphic` in any order. One argnum gives that argument's gradient (shaped like the
/// argument), several a std::tuple; with has_aux the value is `(value, aux)`.
template <class F, detail::DiffOption... Options>
auto value_and_grad(F f, Options...) {
  using A = typename detail::find_argnums<Options...>::type;
  return [f]<class... Args>(Args const&... args)
    requires ArgnumsWithinArguments<A, sizeof...(Args)>
  {
    return detail::value_and_grad_at<A, detail::has_aux_in<Options...>, detail::holomorphic_in<Options...>>(
        f, detail::as_argument(args)...);
  };
}

/// The gradient of a scalar function; `grad(f, argnums<0, 2>, has_aux)`.
template <class F, detail::DiffOption... Options>
auto grad(F f, Options...) {
  using A = typename detail::find_argnums<Options...>::type;
  return [f]<class... Args>(Args const&... args)
    requires ArgnumsWithinArguments<A, sizeof...(Args)>
  {
    constexpr bool aux = detail::has_aux_in<Options...>;
    auto [value, g] = detail::value_and_grad_at<A, aux, detail::holomorphic_in<Options...>>(f, detail::as_argument(args)...);
    if constexpr (aux) return std::pair{std::move(g), std::move(value.second)};
    else return g;
  };
}

}  // namespace jaxcc
