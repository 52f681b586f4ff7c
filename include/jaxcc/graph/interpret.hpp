// Running a traced program: forward on values, forward with tangents (JVP),
// and backward with cotangents (VJP). Each step asks the equation's own
// rules; nothing here knows any primitive. Values may themselves be traced
// by an enclosing transform, which then records what these steps do.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/graph/trace.hpp"
#include "jaxcc/graph/value_ops.hpp"

namespace jaxcc::graph {

/// Counts kept for tests and diagnostics (per thread).
struct Counters {
  std::uint64_t vjp_rules_applied = 0;
};
inline Counters& counters() {
  thread_local Counters c;
  return c;
}

/// The value of every Var of one trace, by Var id.
class Env {
 public:
  explicit Env(Trace const& trace) : trace_id_(trace.id()), values_(trace.var_count()) {}
  void set(Var const& v, AnyArray value) { values_[v.id] = std::move(value); }
  AnyArray const& get(Var const& v) const { return *values_[v.id]; }
  bool has(Var const& v) const { return values_[v.id].has_value(); }
  /// `x` read in this trace: a Var of the trace gives its value; anything
  /// else (a concrete array, a value of another trace) is itself.
  AnyArray resolve(AnyArray const& x) const {
    auto const& var = var_of(x);
    return var && var->trace_id == trace_id_ ? get(*var) : x;
  }

 private:
  std::uint64_t trace_id_;
  std::vector<std::optional<AnyArray>> values_;
};

/// Bind inputs and captures, then evaluate every equation in order.
template <class = void>
Env evaluate(Trace const& trace, std::span<AnyArray const> inputs) {
  Env env(trace);
  for (std::size_t i = 0; i < inputs.size(); ++i) env.set(*trace.inputs[i], inputs[i]);
  for (auto const& c : trace.captures) env.set(*c.var, c.value);
  std::vector<AnyArray> args;
  for (auto const& eq : trace.equations) {
    args.clear();
    for (auto const& v : eq.inputs) args.push_back(env.get(*v));
    auto outs = eq.primitive->evaluate(args);
    for (std::size_t k = 0; k < outs.size(); ++k) env.set(*eq.outputs[k], std::move(outs[k]));
  }
  return env;
}

/// a + b for cotangents or tangents of one Var (empty = zero).
inline MaybeArray add_maybe(MaybeArray const& a, MaybeArray const& b) {
  if (!a) return b;
  if (!b) return a;
  return values::add(*a, *b);
}

/// Forward mode: the tangent of every Var given the inputs' tangents.
/// `env` holds the forward values.
template <class = void>
std::vector<MaybeArray> forward_tangents(Trace const& trace, Env const& env,
                                         std::span<MaybeArray const> input_tangents) {
  std::vector<MaybeArray> tangent(trace.var_count());
  for (std::size_t i = 0; i < input_tangents.size(); ++i) tangent[trace.inputs[i]->id] = input_tangents[i];
  std::vector<AnyArray> primals, outs;
  std::vector<MaybeArray> tangents;
  for (auto const& eq : trace.equations) {
    primals.clear();
    tangents.clear();
    outs.clear();
    bool any = false;
    for (auto const& v : eq.inputs) {
      primals.push_back(env.get(*v));
      tangents.push_back(tangent[v->id]);
      any = any || tangent[v->id].has_value();
    }
    if (!any) continue;
    for (auto const& v : eq.outputs) outs.push_back(env.get(*v));
    auto result = eq.primitive->jvp(primals, tangents, outs);
    for (std::size_t k = 0; k < result.size(); ++k) tangent[eq.outputs[k]->id] = std::move(result[k]);
  }
  return tangent;
}

/// Reverse mode: cotangents of the inputs, given cotangents of some Vars
/// (`seed`, by Var id). Each equation whose outputs carry a cotangent is
/// visited once, latest first, and asked only for the cotangents of inputs
/// that depend on a `wanted` input of the trace.
template <class = void>
std::vector<MaybeArray> backward(Trace const& trace, Env const& env, std::vector<MaybeArray> cotangent,
                          Wanted wanted = {}) {
  std::vector<std::uint8_t> needs(trace.var_count(), 0);
  for (std::size_t i = 0; i < trace.inputs.size(); ++i) needs[trace.inputs[i]->id] = wanted[i];
  for (auto const& eq : trace.equations) {
    bool any = false;
    for (auto const& v : eq.inputs) any = any || needs[v->id];
    if (any)
      for (auto const& v : eq.outputs) needs[v->id] = 1;
  }
  std::vector<AnyArray> primals, outs;
  std::vector<MaybeArray> cts;
  std::vector<std::uint8_t> operand_needs;
  for (auto eq = trace.equations.rbegin(); eq != trace.equations.rend(); ++eq) {
    cts.clear();
    bool any = false;
    for (auto const& v : eq->outputs) {
      cts.push_back(cotangent[v->id]);
      any = any || cotangent[v->id].has_value();
    }
    if (!any || !needs[eq->outputs[0]->id]) continue;
    primals.clear();
    outs.clear();
    operand_needs.clear();
    for (auto const& v : eq->inputs) {
      primals.push_back(env.get(*v));
      operand_needs.push_back(needs[v->id]);
    }
    for (auto const& v : eq->outputs) outs.push_back(env.get(*v));
    ++counters().vjp_rules_applied;
    auto input_cts = eq->primitive->vjp(cts, primals, outs, Wanted(operand_needs));
    for (std::size_t k = 0; k < input_cts.size(); ++k)
      if (input_cts[k] && operand_needs[k]) {
        auto& slot = cotangent[eq->inputs[k]->id];
        slot = add_maybe(slot, input_cts[k]);
      }
  }
  std::vector<MaybeArray> result;
  for (auto const& v : trace.inputs) result.push_back(cotangent[v->id]);
  return result;
}

}  // namespace jaxcc::graph
