// Forward mode: jaxcc::jvp. The function is traced once, run forward on the
// primals, and each equation's JVP rule carries the tangents along.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/graph/interpret.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/transforms/vjp.hpp"

namespace jaxcc {

namespace detail {

/// JAX's checks that a tangent fits its primal.
inline void check_tangent(AnyArray const& primal, AnyArray const& tangent) {
  if (primal.dtype() != tangent.dtype())
    throw Error("primal and tangent arguments to jaxcc::jvp do not match; dtypes must be equal. Got primal dtype " +
                std::string(name(primal.dtype())) + " and so expected tangent dtype " + std::string(name(primal.dtype())) +
                ", but got tangent dtype " + std::string(name(tangent.dtype())) + " instead.");
  if (!(primal.shape() == tangent.shape()))
    throw Error("jvp called with different primal and tangent shapes;Got primal shape " + to_string(primal.shape()) +
                " and tangent shape as " + to_string(tangent.shape()));
}

/// The tangent of each array leaf of a traced output tree.
inline std::vector<graph::MaybeArray> output_tangents(graph::Trace const& trace, std::vector<AnyArray> const& out_leaves,
                                                      std::vector<graph::MaybeArray> const& tangents) {
  std::vector<graph::MaybeArray> result;
  for (auto const& leaf : out_leaves) {
    auto const& var = graph::var_of(leaf);
    result.push_back(var && var->trace_id == trace.id() ? tangents[var->id] : std::nullopt);
  }
  return result;
}

/// jvp on primals and tangents whose leaves are all Arrays.
template <class F, class... Primals, class... Tangents>
auto jvp_of(F const& f, std::tuple<Primals...> const& primals, std::tuple<Tangents...> const& tangents) {
  auto const all = std::index_sequence_for<Primals...>{};
  auto call = std::apply([&](auto const&... p) { return detail::trace_call(all, f, p...); }, primals);
  auto const inputs = std::apply([&](auto const&... p) { return detail::input_values(all, p...); }, primals);
  auto const tangent_leaves = std::apply([&](auto const&... t) { return detail::input_values(all, t...); }, tangents);
  if (inputs.size() != tangent_leaves.size())
    throw Error("jvp: the tangents hold " + std::to_string(tangent_leaves.size()) + " arrays, but the primals hold " +
                std::to_string(inputs.size()));
  std::vector<graph::MaybeArray> input_tangents;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    detail::check_tangent(inputs[i], tangent_leaves[i]);
    input_tangents.emplace_back(tangent_leaves[i]);
  }
  auto env = graph::evaluate(*call.trace, inputs);
  auto const tangent = graph::forward_tangents(*call.trace, env, input_tangents);
  auto out = detail::resolve(env, call.out);
  auto const out_tangents = detail::output_tangents(*call.trace, detail::array_leaves(call.out), tangent);
  std::size_t next = 0;
  auto tangent_out = detail::rebuild_like(out, out_tangents, next);
  return std::pair{std::move(out), std::move(tangent_out)};
}

}  // namespace detail

/// `(f(primals...), tangent of f along tangents)`, as jax.jvp; primals and
/// tangents are std::tuples of matching pytrees.
template <class F, class... Primals, class... Tangents>
auto jvp(F const& f, std::tuple<Primals...> const& primals, std::tuple<Tangents...> const& tangents) {
  static_assert(sizeof...(Primals) == sizeof...(Tangents), "jvp takes one tangent per primal");
  if constexpr (detail::holds_expression<std::tuple<Primals...>> || detail::holds_expression<std::tuple<Tangents...>>)
    return jvp(f, detail::as_argument(primals), detail::as_argument(tangents));
  else
    return detail::jvp_of(f, primals, tangents);
}

}  // namespace jaxcc
