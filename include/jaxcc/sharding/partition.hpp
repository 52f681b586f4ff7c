// Sharded jit: a program over whole arrays rewritten into the program each
// device runs on its parts (GSPMD's partitioner, on threads that share
// memory). The program is interpreted once, under a new trace with the
// mesh's axes bound, on per-device values that carry their Layout. Each
// equation runs by its primitive's partition rule; elementwise equations
// line their operands up with the most split one; equations without a rule
// gather their operands whole and run as they are; an equation that can
// make any block of its result (a random draw) makes the block its users
// want (backward propagation from sharding constraints and out_shardings,
// through elementwise equations). Resharding is
// all_gather over the mesh axes a split leaves, then this device's part
// (a view) for the axes it gains. The result is one shard_map
// equation: the per-device program with a spec for each input and output.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/graph/layout.hpp"
#include "jaxcc/graph/partition_equation.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/graph/value_ops.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/collectives.hpp"
#include "jaxcc/sharding/bits/spmd_ops.hpp"
#include "jaxcc/sharding/named_sharding.hpp"
#include "jaxcc/sharding/shard_map_call.hpp"

namespace jaxcc::debug {

/// The primitives whose equations gathered a split operand while this
/// thread partitioned programs for sharded jit (by a rule's choice, or for
/// want of one), recorded while a GatherLog is alive: what a program still
/// runs whole.
class GatherLog {
 public:
  GatherLog() : outer_(std::exchange(current(), this)) {}
  GatherLog(GatherLog const&) = delete;
  GatherLog& operator=(GatherLog const&) = delete;
  ~GatherLog() { current() = outer_; }
  std::vector<std::string> const& primitives() const noexcept { return primitives_; }

  /// Records `primitive` in the innermost live log, if any.
  static void record(std::string_view primitive) {
    if (auto* log = current(); log && std::find(log->primitives_.begin(), log->primitives_.end(), primitive) == log->primitives_.end())
      log->primitives_.emplace_back(primitive);
  }

 private:
  static GatherLog*& current() {
    thread_local GatherLog* log = nullptr;
    return log;
  }
  GatherLog* outer_;
  std::vector<std::string> primitives_;
};

}  // namespace jaxcc::debug

namespace jaxcc::detail {

/// The PartitionSpec of a layout, without trailing unsplit dimensions (as
/// JAX gives the shardings it infers over a mesh of Auto axes: P('data'),
/// P()).
inline P spec_of(graph::Layout const& layout) {
  std::vector<P::Entry> entries;
  for (auto const& names : layout.dims) entries.push_back({names, names.size() > 1});
  while (!entries.empty() && entries.back().names.empty()) entries.pop_back();
  return P::from_entries(std::move(entries));
}

/// Partial results combined over the mesh axes they are partial over.
inline std::vector<AnyArray> completed(graph::Partitioned const& r) {
  auto values = r.values;
  for (auto& value : values)
    for (auto const& axis : r.partial_over) value = graph::values::combine(value, axis, r.combine);
  return values;
}

struct PartitionedProgram {
  graph::Program body;
  std::vector<graph::Layout> out_layouts;
};

/// The per-device program of `global` for inputs laid out as `in_layouts`;
/// outputs are laid out as their constraint says, where one is given.
inline PartitionedProgram partition_program(graph::Program const& global, Mesh const& mesh,
                                            std::vector<graph::Layout> const& in_layouts,
                                            std::vector<std::optional<graph::Layout>> const& out_constraints) {
  auto const& trace = *global.trace;
  std::vector<graph::Aval> parts;
  {
    ScopedMeshAxes axes(mesh);
    for (std::size_t i = 0; i < trace.inputs.size(); ++i)
      parts.push_back({trace.inputs[i]->dtype, part_shape(trace.inputs[i]->shape, in_layouts[i])});
  }
  std::vector<std::pair<std::size_t, graph::Layout>> seeds;
  for (std::size_t o = 0; o < global.outputs.size(); ++o)
    if (auto const& var = graph::var_of(global.outputs[o]); var && var->trace_id == trace.id() && out_constraints[o])
      seeds.emplace_back(var->id, *out_constraints[o]);
  auto const wanted = graph::wanted_layouts(trace, seeds);
  std::vector<graph::Layout> out_layouts;
  graph::FlatFunction per_device = [&](std::vector<AnyArray> const& inputs) {
    std::vector<std::optional<std::pair<AnyArray, graph::Layout>>> env(trace.var_count());
    for (std::size_t i = 0; i < inputs.size(); ++i) env[trace.inputs[i]->id] = {inputs[i], in_layouts[i]};
    for (auto const& c : trace.captures) env[c.var->id] = {c.value, graph::Layout::replicated(c.var->shape.size())};
    std::string_view running;  // the equation's primitive, for the GatherLog
    graph::Resharder const reshard = [&](AnyArray const& x, graph::Layout const& from, graph::Layout const& to) {
      if (from.gathers(to)) debug::GatherLog::record(running);
      return graph::values::reshard(x, from, to);
    };
    for (auto const& eq : trace.equations) {
      running = eq.primitive->name();
      std::vector<AnyArray> values;
      std::vector<graph::Layout> layouts;
      for (auto const& v : eq.inputs) {
        values.push_back(env[v->id]->first);
        layouts.push_back(env[v->id]->second);
      }
      auto r = graph::partition_equation(eq, std::move(values), layouts, reshard,
                                         eq.outputs.size() == 1 ? wanted[eq.outputs[0]->id] : std::nullopt);
      auto const outs = completed(r);
      auto const& out = r.layouts;
      for (std::size_t k = 0; k < eq.outputs.size(); ++k) env[eq.outputs[k]->id] = {outs[k], out[k]};
    }
    std::vector<AnyArray> results;
    out_layouts.clear();
    for (std::size_t o = 0; o < global.outputs.size(); ++o) {
      auto const& var = graph::var_of(global.outputs[o]);
      auto [value, layout] = var && var->trace_id == trace.id()
                                 ? *env[var->id]
                                 : std::pair{global.outputs[o], graph::Layout::replicated(global.outputs[o].shape().size())};
      if (out_constraints[o]) {
        running = "out_shardings";
        value = reshard(value, layout, *out_constraints[o]);
        layout = *out_constraints[o];
      }
      results.push_back(std::move(value));
      out_layouts.push_back(std::move(layout));
    }
    return results;
  };
  std::vector<AnyArray> closure;
  auto body = trace_on_mesh(per_device, mesh, parts, closure);
  return {std::move(body), std::move(out_layouts)};
}

/// The mesh of the arrays among `operands` that are laid out on one (and
/// of the requested output sharding); JAX's error when they differ.
template <class = void>
std::optional<Mesh> mesh_of(std::vector<AnyArray> const& operands, std::optional<NamedSharding> const& out) {
  std::optional<Mesh> mesh;
  if (out) mesh = out->mesh();
  for (auto const& x : operands) {
    auto const& s = impl_of(x).sharding;
    if (!s) continue;
    if (!mesh) mesh = s->mesh();
    else if (!(*mesh == s->mesh()))
      throw Error("Received incompatible devices for jitted computation: arguments (or out_shardings) are laid out "
                  "on " + to_string(*mesh) + " and on " + to_string(s->mesh()) + "; put them on one mesh");
  }
  return mesh;
}

/// How jit reaches partitioned_call: installed with the mesh operations
/// (install_mesh_operations), wherever arrays first meet a mesh, so that a
/// file that jits but never places an array on a mesh compiles no
/// partitioner. Jit only partitions once an array is on a mesh, so by then
/// some file has installed it.
using PartitionedCall = std::shared_ptr<graph::PrimitiveBase const> (*)(graph::Program const&, Mesh const&,
                                                                        std::vector<AnyArray> const&,
                                                                        std::optional<NamedSharding> const&);
inline std::atomic<PartitionedCall>& partitioned_call_hook() {
  static std::atomic<PartitionedCall> hook{nullptr};
  return hook;
}

/// jit's executable for arrays laid out on `mesh`: the program partitioned
/// for their layouts (unsharded operands are whole on every device), as a
/// shard_map equation.
template <class = void>
std::shared_ptr<graph::PrimitiveBase const> partitioned_call(graph::Program const& program, Mesh const& mesh,
                                                             std::vector<AnyArray> const& operands,
                                                             std::optional<NamedSharding> const& out) {
  std::vector<graph::Layout> in_layouts;
  std::vector<P> in_specs;
  for (auto const& x : operands) {
    auto const& s = impl_of(x).sharding;
    in_specs.push_back(s ? s->spec() : P());
    in_layouts.push_back(layout_of(in_specs.back(), x.shape().size()));
  }
  std::vector<std::optional<graph::Layout>> constraints;
  for (auto const& o : program.outputs) {
    if (!out) {
      constraints.emplace_back();
      continue;
    }
    out->shard_shape(o.shape());  // JAX's rank and divisibility errors
    constraints.push_back(layout_of(out->spec(), o.shape().size()));
  }
  auto partitioned = partition_program(program, mesh, in_layouts, constraints);
  graph::optimize(partitioned.body);
  std::vector<P> out_specs;
  for (auto const& l : partitioned.out_layouts) out_specs.push_back(out ? out->spec() : spec_of(l));  // as asked for
  return std::make_shared<ShardMapCall const>(std::move(partitioned.body), mesh, std::move(in_specs), std::move(out_specs));
}

}  // namespace jaxcc::detail
