// vmap's interpreter: a traced program run on inputs some of which carry a
// mapped axis. Each equation with a mapped operand (or that is a collective
// over the mapped axis) is rewritten by its own batching rule into one
// batched application; the others run as they are. Nothing here knows any
// primitive, and nothing loops over the batch. The values may themselves be
// traced by an enclosing transform, which then records the batched program.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/graph/axis_env.hpp"
#include "jaxcc/graph/batch_dim.hpp"
#include "jaxcc/graph/interpret.hpp"
#include "jaxcc/graph/trace.hpp"

namespace jaxcc::graph {

/// Every Var's value and mapped axis after a batched run of `trace`.
struct BatchedEnv {
  Env values;
  std::vector<BatchDim> dims;

  AnyArray value(AnyArray const& x) const { return values.resolve(x); }
  BatchDim dim(AnyArray const& x, std::uint64_t trace_id) const {
    auto const& var = var_of(x);
    return var && var->trace_id == trace_id ? dims[var->id] : not_mapped;
  }
};

/// Run `trace` on `inputs` whose mapped axes are `dims`; captures are unmapped.
inline BatchedEnv batch_trace(Trace const& trace, std::span<AnyArray const> inputs, std::span<BatchDim const> dims,
                              AxisData const& axis) {
  BatchedEnv env{Env(trace), std::vector<BatchDim>(trace.var_count())};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    env.values.set(*trace.inputs[i], inputs[i]);
    env.dims[trace.inputs[i]->id] = dims[i];
  }
  for (auto const& c : trace.captures) env.values.set(*c.var, c.value);
  std::vector<AnyArray> args;
  std::vector<BatchDim> arg_dims;
  for (auto const& eq : trace.equations) {
    args.clear();
    arg_dims.clear();
    bool mapped = !axis.name.empty() && eq.primitive->binds_axis(axis.name);
    for (auto const& v : eq.inputs) {
      args.push_back(env.values.get(*v));
      arg_dims.push_back(env.dims[v->id]);
      mapped = mapped || arg_dims.back().has_value();
    }
    if (!mapped) {
      auto outs = eq.primitive->evaluate(args);
      for (std::size_t k = 0; k < outs.size(); ++k) env.values.set(*eq.outputs[k], std::move(outs[k]));
      continue;
    }
    auto out = eq.primitive->batch(args, arg_dims, axis);
    for (std::size_t k = 0; k < out.values.size(); ++k) {
      env.values.set(*eq.outputs[k], std::move(out.values[k]));
      env.dims[eq.outputs[k]->id] = out.dims[k];
    }
  }
  return env;
}

/// A program's outputs and their mapped axes, run batched (its inputs are
/// its arguments, then its closure).
template <class = void>
Batched batch_program(Program const& p, std::span<AnyArray const> inputs, std::span<BatchDim const> dims,
                      AxisData const& axis) {
  auto const env = batch_trace(*p.trace, inputs, dims, axis);
  Batched out;
  for (auto const& o : p.outputs) {
    out.values.push_back(env.value(o));
    out.dims.push_back(env.dim(o, p.trace->id()));
  }
  return out;
}

}  // namespace jaxcc::graph
