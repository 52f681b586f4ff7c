// Closed programs: a function traced once into its own Trace, for the
// primitives that carry a program as a parameter (checkpoint, custom_vjp,
// custom_jvp, control flow, jit). Values of enclosing traces that the
// function reads are turned into extra inputs (closure conversion, as JAX
// does), so an enclosing transform sees them as operands of the call.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/graph/bind_target.hpp"
#include "jaxcc/graph/interpret.hpp"
#include "jaxcc/graph/trace.hpp"

namespace jaxcc::graph {

struct Aval {
  DType dtype;
  Shape shape;
};

inline Aval aval_of(AnyArray const& a) { return {a.dtype(), a.shape()}; }

inline AnyArray traced_input(Trace& trace, Aval const& aval) {
  return trace.add_input(aval.dtype, aval.shape);
}

/// Trace `fn` on abstract arguments; `closure` receives the values of
/// enclosing traces that it read, which the call must pass after the
/// arguments.
template <class = void>
Program trace_program(FlatFunction const& fn, std::span<Aval const> arguments, std::vector<AnyArray>& closure) {
  auto trace = std::make_shared<Trace>();
  std::vector<AnyArray> outputs;
  {
    ScopedTrace scope(*trace);
    std::vector<AnyArray> args;
    for (auto const& a : arguments) args.push_back(traced_input(*trace, a));
    outputs = fn(args);
  }
  std::vector<Capture> constants;
  for (auto& c : trace->captures) {
    bool const traced = var_of(c.value) != nullptr;
    if (traced) {
      trace->inputs.push_back(c.var);
      closure.push_back(c.value);
    } else {
      constants.push_back(std::move(c));
    }
  }
  trace->captures = std::move(constants);
  return {std::move(trace), std::move(outputs), arguments.size()};
}

/// Run a program on concrete or traced inputs (arguments, then closure).
inline std::vector<AnyArray> run(Program const& p, std::span<AnyArray const> inputs, Env* keep = nullptr) {
  auto env = evaluate(*p.trace, inputs);
  std::vector<AnyArray> out;
  for (auto const& o : p.outputs) out.push_back(env.resolve(o));
  if (keep) *keep = std::move(env);
  return out;
}

/// Output tangents of a program given input tangents; `primal_outputs`, if
/// given, receives the outputs computed on the way.
inline std::vector<MaybeArray> program_jvp(Program const& p, std::span<AnyArray const> inputs,
                                           std::span<MaybeArray const> tangents,
                                           std::vector<AnyArray>* primal_outputs = nullptr) {
  auto env = evaluate(*p.trace, inputs);
  auto const t = forward_tangents(*p.trace, env, tangents);
  std::vector<MaybeArray> out;
  for (auto const& o : p.outputs) {
    auto const& var = var_of(o);
    out.push_back(var && var->trace_id == p.trace->id() ? t[var->id] : std::nullopt);
    if (primal_outputs) primal_outputs->push_back(env.resolve(o));
  }
  return out;
}

/// Input cotangents of a program given output cotangents (recomputing its
/// forward values).
inline std::vector<MaybeArray> program_vjp(Program const& p, std::span<AnyArray const> inputs,
                                           std::span<MaybeArray const> cotangents, Wanted wanted = {}) {
  auto env = evaluate(*p.trace, inputs);
  std::vector<MaybeArray> seeds(p.trace->var_count());
  for (std::size_t i = 0; i < p.outputs.size(); ++i) {
    if (!cotangents[i]) continue;
    auto const& var = var_of(p.outputs[i]);
    if (var && var->trace_id == p.trace->id()) seeds[var->id] = add_maybe(seeds[var->id], cotangents[i]);
  }
  return backward(*p.trace, env, std::move(seeds), wanted);
}

/// The program `expand` records on abstract arguments like `primals`, and
/// the inputs to run it on: `primals`, then any closure.
inline std::pair<Program, std::vector<AnyArray>> expansion_of(FlatFunction const& expand, std::span<AnyArray const> primals) {
  std::vector<Aval> avals;
  for (auto const& p : primals) avals.push_back(aval_of(p));
  std::vector<AnyArray> closure;
  auto program = trace_program(expand, avals, closure);
  std::vector<AnyArray> inputs(primals.begin(), primals.end());
  inputs.insert(inputs.end(), closure.begin(), closure.end());
  return {std::move(program), std::move(inputs)};
}

/// The JVP and VJP of a primitive that declares no rules of its own but the
/// equations `expand` records for it (graph/primitive_of.hpp): those of the
/// program they make.
inline std::vector<MaybeArray> expansion_jvp(FlatFunction const& expand, std::span<AnyArray const> primals,
                                             std::span<MaybeArray const> tangents) {
  auto const [program, inputs] = expansion_of(expand, primals);
  std::vector<MaybeArray> all(tangents.begin(), tangents.end());
  all.resize(inputs.size());  // the closure's: none
  return program_jvp(program, inputs, all);
}

inline std::vector<MaybeArray> expansion_vjp(FlatFunction const& expand, std::span<MaybeArray const> cotangents,
                                             std::span<AnyArray const> primals, Wanted wanted) {
  auto const [program, inputs] = expansion_of(expand, primals);
  std::vector<std::uint8_t> flags(inputs.size(), 0);  // the closure's: not wanted
  for (std::size_t i = 0; i < primals.size(); ++i) flags[i] = wanted[i];
  auto cts = program_vjp(program, inputs, cotangents, Wanted(flags));
  cts.resize(primals.size());
  return cts;
}

/// Apply a call primitive (cond, scan, a closed call...) through the one
/// bind path (graph/bind_target.hpp): recorded in the innermost trace among
/// the operands, else computed by `compute` (its equations, bound each in
/// turn, are partitioned themselves where their operands lie on a mesh).
template <class Compute>
std::vector<AnyArray> apply(std::shared_ptr<PrimitiveBase const> const& primitive, std::span<AnyArray const> operands,
                            std::span<Aval const> out_avals, Compute&& compute) {
  auto const record = [&](Trace& trace) {
    std::vector<VarPtr> in, out;
    for (auto const& op : operands) in.push_back(trace.var_for(op));
    std::vector<AnyArray> results;
    for (auto const& a : out_avals) {
      out.push_back(trace.new_var(a.dtype, a.shape));
      results.push_back(Trace::traced_any(out.back()));
    }
    trace.record(primitive, std::move(in), std::move(out));
    return results;
  };
  return bind_to(target_of_arrays(operands), record, no_partition, std::forward<Compute>(compute));
}

}  // namespace jaxcc::graph
