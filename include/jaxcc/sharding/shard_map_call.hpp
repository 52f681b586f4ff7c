// The shard_map equation (jax.shard_map's primitive): a per-device program,
// a mesh and a spec per input and output. Run concretely, each device's
// thread runs the program on its own part of the inputs (views, no copies)
// and writes its part of the outputs in place; traced, it is recorded, and
// its JVP and VJP are shard_map equations of the program's JVP and VJP.
// transforms/shard_map.hpp makes one from a user's function; the sharded
// jit's partitioner (sharding/partition.hpp) makes one from a program.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/devices/spmd.hpp"
#include "jaxcc/graph/call_primitive.hpp"
#include "jaxcc/graph/optimize.hpp"
#include "jaxcc/graph/plan.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/graph/value_ops.hpp"
#include "jaxcc/lax/control_flow_common.hpp"
#include "jaxcc/primitives/collectives.hpp"
#include "jaxcc/sharding/bits/spmd_ops.hpp"
#include "jaxcc/sharding/mesh_context.hpp"
#include "jaxcc/sharding/named_sharding.hpp"
#include "jaxcc/sharding/sharded_array.hpp"

namespace jaxcc::detail {

/// The layout a spec gives a value of this rank (sharded jit's terms).
inline graph::Layout layout_of(P const& spec, std::size_t rank) {
  auto layout = graph::Layout::replicated(rank);
  for (std::size_t d = 0; d < spec.size() && d < rank; ++d) layout.dims[d] = spec.entries()[d].names;
  return layout;
}

/// Python's tuple printing of a mesh's shape and axis names, for errors.
inline std::string mesh_shape_string(Mesh const& mesh) {
  std::string shape = "(", names = "(";
  for (std::size_t a = 0; a < mesh.axis_names().size(); ++a) {
    shape += (a ? ", " : "") + std::to_string(mesh.device_shape()[a]);
    names += (a ? ", '" : "'") + mesh.axis_names()[a] + "'";
  }
  auto const close = mesh.axis_names().size() == 1 ? ",)" : ")";
  return shape + close + " with corresponding axis names " + names + close;
}

/// The mesh axes a spec splits some dimension over, as bits by mesh position.
inline std::uint64_t axes_in(Mesh const& mesh, P const& spec) {
  std::uint64_t bits = 0;
  for (auto const& e : spec.entries())
    for (auto const& name : e.names) bits |= std::uint64_t{1} << mesh.axis_position(name);
  return bits;
}

/// The mesh axes named by `bits`, in mesh order, comma-separated.
inline std::string mesh_axes_string(Mesh const& mesh, std::uint64_t bits) {
  std::string out;
  for (std::size_t a = 0; a < mesh.axis_names().size(); ++a)
    if (bits >> a & 1) out += (out.empty() ? "" : ",") + mesh.axis_names()[a];
  return out;
}

/// The mesh axes along which each of the program's outputs may differ
/// between devices: inputs vary along the axes their specs split them
/// over, collectives change that as their axis_variance says, and
/// everything else varies wherever one of its operands does.
inline std::vector<std::uint64_t> varying_axes(graph::Program const& program, Mesh const& mesh,
                                               std::span<P const> in_specs) {
  auto const& trace = *program.trace;
  std::vector<std::uint64_t> varies(trace.var_count(), 0);
  for (std::size_t i = 0; i < trace.inputs.size(); ++i) varies[trace.inputs[i]->id] = axes_in(mesh, in_specs[i]);
  for (auto const& eq : trace.equations) {
    std::uint64_t bits = 0;
    for (auto const& v : eq.inputs) bits |= varies[v->id];
    if (auto const change = eq.primitive->axis_variance()) {
      auto const bit = std::uint64_t{1} << mesh.axis_position(change->axis);
      bits = change->varies ? bits | bit : bits & ~bit;
    }
    for (auto const& v : eq.outputs) varies[v->id] = bits;
  }
  std::vector<std::uint64_t> out;
  for (auto const& o : program.outputs) {
    auto const& var = graph::var_of(o);
    out.push_back(var && var->trace_id == trace.id() ? varies[var->id] : 0);
  }
  return out;
}

/// JAX's error when an output may vary along a mesh axis its spec leaves
/// out (so it cannot be returned as one replicated value).
inline void check_replication(graph::Program const& program, Mesh const& mesh, std::span<P const> in_specs,
                              std::span<P const> out_specs, std::span<std::string const> out_paths) {
  auto const varies = varying_axes(program, mesh, in_specs);
  std::vector<std::string> messages;
  std::uint64_t const all = (std::uint64_t{1} << mesh.axis_names().size()) - 1;
  for (std::size_t o = 0; o < varies.size(); ++o) {
    auto const mentioned = axes_in(mesh, out_specs[o]);
    auto const unmentioned = all & ~mentioned;
    if ((varies[o] & unmentioned) == 0) continue;
    auto const head = "out_specs" + out_paths[o] + " is " + to_string(out_specs[o]);
    if (std::popcount(unmentioned) > 1)
      messages.push_back(head + " which implies that the corresponding output value is only varying across mesh axes {" +
                         mesh_axes_string(mesh, mentioned) + "} and not {" + mesh_axes_string(mesh, unmentioned & varies[o]) +
                         "}, but it was inferred to be possibly varying over {" + mesh_axes_string(mesh, varies[o]) + "}");
    else
      messages.push_back(head + " which implies that the corresponding output value is replicated across mesh axis '" +
                         mesh_axes_string(mesh, unmentioned) + "', but could not infer replication over any axes");
  }
  if (messages.empty()) return;
  std::string list;
  for (auto const& m : messages) list += (list.empty() ? "" : "\n\n") + (messages.size() == 1 ? m : "* " + m);
  throw Error("shard_map applied to the function '<lambda>' was given out_specs which require replication which "
              "can't be statically inferred given the mesh:\n\nThe mesh given has shape " +
              mesh_shape_string(mesh) + ".\n\n" + list +
              "\n\nCheck if these output values are meant to be replicated over those mesh axes. If not, consider "
              "revising the corresponding out_specs entries. If so, consider disabling the check by passing "
              "jaxcc::check_vma(false) to `jaxcc::shard_map`.");
}

/// Trace `fn` on per-device avals with the mesh's axes bound.
inline graph::Program trace_on_mesh(graph::FlatFunction const& fn, Mesh const& mesh, std::span<graph::Aval const> avals,
                                    std::vector<AnyArray>& closure) {
  ScopedMeshAxes axes(mesh);
  return graph::trace_program(fn, avals, closure);
}

// A class template only so that a file that never applies it compiles
// none of it (docs/compile_cost.md, "What a file compiles").
template <class = void>
class ShardMapCallT;
using ShardMapCall = ShardMapCallT<>;

/// The shard_map equation: the per-device program, the mesh and a spec per
/// input and per output array.
template <class>
class ShardMapCallT final : public graph::CallPrimitive<ShardMapCallT<>> {
 public:
  ShardMapCallT(graph::Program program, Mesh mesh, std::vector<P> in_specs, std::vector<P> out_specs)
      : mesh_(std::move(mesh)), in_specs_(std::move(in_specs)), out_specs_(std::move(out_specs)), plan_(std::move(program), {}, graph::Plan::Outputs::into_given) {
    auto const global = [&](Shape shape, NamedSharding const& s) {
      for (std::size_t d = 0; d < shape.size(); ++d) shape[d] *= s.num_ways(d);
      return shape;
    };
    for (std::size_t i = 0; i < in_specs_.size(); ++i)
      in_parts_.push_back(parts_of(in_specs_[i], global(plan_.program().trace->inputs[i]->shape, NamedSharding(mesh_, in_specs_[i]))));
    for (std::size_t o = 0; o < plan_.program().outputs.size(); ++o) {
      auto aval = graph::aval_of(plan_.program().outputs[o]);
      auto s = std::make_shared<NamedSharding const>(mesh_, out_specs_[o]);
      aval.shape = global(std::move(aval.shape), *s);
      out_parts_.push_back(parts_of(out_specs_[o], aval.shape));
      std::vector<std::uint8_t> writes;
      for (std::int64_t d = 0; d < mesh_.size(); ++d) writes.push_back(writes_its_part(*s, static_cast<std::size_t>(d)) ? 1 : 0);
      out_writers_.push_back(std::move(writes));
      out_whole_.push_back(replicas(out_specs_[o]) == mesh_.size() ? 1 : 0);
      out_shardings_.push_back(std::move(s));
      out_avals_.push_back(std::move(aval));
    }
  }
  std::string_view name() const override { return "shard_map"; }
  std::string params_string() const override {
    auto specs = [](std::vector<P> const& ps) {
      std::string s = "(";
      for (std::size_t i = 0; i < ps.size(); ++i) s += (i ? ", " : "") + to_string(ps[i]);
      return s + (ps.size() == 1 ? ",)" : ")");
    };
    return "mesh=" + to_string(mesh_) + " in_specs=" + specs(in_specs_) + " out_specs=" + specs(out_specs_);
  }
  std::vector<graph::Program const*> called() const override { return {&plan_.program()}; }
  graph::Program const* subprogram() const override { return &plan_.program(); }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    return this->apply(inputs, out_avals_, [&] { return run(inputs); });
  }

  /// The tangents come from a shard_map of the program's JVP, with each
  /// tangent laid out as its primal.
  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const> primals, std::span<graph::MaybeArray const> tangents,
                                     std::span<AnyArray const>) const override {
    std::vector<std::size_t> with_tangent;
    for (std::size_t i = 0; i < tangents.size(); ++i)
      if (tangents[i]) with_tangent.push_back(i);
    auto const& program = plan_.program();
    auto const n = primals.size();
    graph::FlatFunction body = [&](std::vector<AnyArray> const& in) {
      std::vector<graph::MaybeArray> t(n);
      for (std::size_t k = 0; k < with_tangent.size(); ++k) t[with_tangent[k]] = in[n + k];
      auto const out_t = graph::program_jvp(program, std::span(in).first(n), t);
      std::vector<AnyArray> out;
      for (std::size_t o = 0; o < out_t.size(); ++o) out.push_back(out_t[o] ? *out_t[o] : zeros_of(out_aval(o)));
      return out;
    };
    auto avals = local_in_avals();
    auto in_specs = in_specs_;
    std::vector<AnyArray> operands(primals.begin(), primals.end());
    for (auto i : with_tangent) {
      avals.push_back(avals[i]);
      in_specs.push_back(in_specs_[i]);
      operands.push_back(*tangents[i]);
    }
    auto const outs = call_of(body, avals, std::move(in_specs), out_specs_, operands);
    return {outs.begin(), outs.end()};
  }

  /// The cotangents come from a shard_map of the program's VJP. An output
  /// replicated over k devices is one value seen k times, so each device
  /// takes 1/k of its cotangent; an input replicated over some mesh axes
  /// fed every device along them, so its cotangent is summed over them.
  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const>, graph::Wanted wanted) const override {
    std::vector<std::size_t> with_cotangent;
    for (std::size_t o = 0; o < cotangents.size(); ++o)
      if (cotangents[o]) with_cotangent.push_back(o);
    auto const& program = plan_.program();
    auto const n = primals.size();
    std::vector<std::uint8_t> wanted_flags(n);
    for (std::size_t i = 0; i < n; ++i) wanted_flags[i] = wanted[i] ? 1 : 0;
    graph::FlatFunction body = [&](std::vector<AnyArray> const& in) {
      std::vector<graph::MaybeArray> cts(program.outputs.size());
      for (std::size_t k = 0; k < with_cotangent.size(); ++k) {
        auto const o = with_cotangent[k];
        cts[o] = scaled(in[n + k], 1.0 / static_cast<double>(replicas(out_specs_[o])));
      }
      auto const in_cts = graph::program_vjp(program, std::span(in).first(n), cts, graph::Wanted(wanted_flags));
      std::vector<AnyArray> out;
      for (std::size_t i = 0; i < n; ++i) {
        AnyArray ct = in_cts[i] ? *in_cts[i] : zeros_of(graph::aval_of(in[i]));
        for (auto const& axis : mesh_.axis_names())
          if (!NamedSharding(mesh_, in_specs_[i]).spec_uses(axis)) ct = summed_over(ct, axis);
        out.push_back(std::move(ct));
      }
      return out;
    };
    auto avals = local_in_avals();
    auto in_specs = in_specs_;
    std::vector<AnyArray> operands(primals.begin(), primals.end());
    for (auto o : with_cotangent) {
      avals.push_back(out_aval(o));
      in_specs.push_back(out_specs_[o]);
      operands.push_back(*cotangents[o]);
    }
    auto const outs = call_of(body, avals, std::move(in_specs), in_specs_, operands);
    return {outs.begin(), outs.end()};
  }

  /// vmap: a shard_map of the batched per-device program, the batch
  /// dimension whole on every device.
  graph::Batched batch(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                       graph::AxisData const& axis) const override {
    auto const& program = plan_.program();
    auto batched = [&] {
      ScopedMeshAxes axes(mesh_);
      return batched_body(program, dims, std::vector<bool>(program.outputs.size(), false), axis);
    }();
    auto operands = std::move(batched.body.consts);
    std::vector<P> in_specs(operands.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      in_specs.push_back(dims[i] ? unsplit_at(in_specs_[i], *dims[i]) : in_specs_[i]);
      operands.push_back(inputs[i]);
    }
    std::vector<P> out_specs;
    for (std::size_t o = 0; o < out_specs_.size(); ++o)
      out_specs.push_back(batched.out_mapped[o] ? unsplit_at(out_specs_[o], 0) : out_specs_[o]);
    auto call = std::make_shared<ShardMapCall const>(std::move(batched.body.program), mesh_, std::move(in_specs),
                                                     std::move(out_specs));
    return {call->evaluate(operands), front_dims(batched.out_mapped)};
  }

  /// Inside a sharded jit over the same mesh axes: the operands laid out
  /// as in_specs, and the per-device program inlined on them; the outputs
  /// are laid out as out_specs.
  std::optional<graph::Partitioned> partition(std::span<AnyArray const> parts, std::span<graph::Layout const> layouts,
                                              graph::Resharder const& reshard) const override {
    for (std::size_t a = 0; a < mesh_.axis_names().size(); ++a) {
      auto const& env = axis_env();
      bool const bound = std::any_of(env.begin(), env.end(), [&](graph::AxisData const& axis) {
        return axis.name == mesh_.axis_names()[a] && axis.size == mesh_.device_shape()[a];
      });
      if (!bound) return std::nullopt;
    }
    std::vector<AnyArray> local;
    for (std::size_t i = 0; i < parts.size(); ++i)
      local.push_back(reshard(parts[i], layouts[i], layout_of(in_specs_[i], parts[i].shape().size())));
    auto outs = graph::run(plan_.program(), local);
    std::vector<graph::Layout> out_layouts;
    for (std::size_t o = 0; o < outs.size(); ++o) out_layouts.push_back(layout_of(out_specs_[o], out_avals_[o].shape.size()));
    return graph::Partitioned(std::move(outs), std::move(out_layouts));
  }

 private:
  /// `spec` for a value with a new, unsplit dimension at `dim`.
  static P unsplit_at(P const& spec, std::int64_t dim) {
    auto entries = spec.entries();
    if (static_cast<std::size_t>(dim) < entries.size()) entries.insert(entries.begin() + dim, P::Entry{});
    return P::from_entries(std::move(entries));
  }

  /// Each device runs the plan on views of its parts of the inputs and
  /// writes its parts of the outputs into the global results: in place
  /// where its part is dense there (split along leading dimensions) and
  /// computed by a fused run, else copied once computed. An output every
  /// device holds whole (out_specs P()) is the writing device's result
  /// itself, when that is dense: nothing to copy.
  std::vector<AnyArray> run(std::span<AnyArray const> inputs) const {
    std::vector<std::optional<AnyArray>> whole(out_avals_.size());
    std::vector<AnyArray> outputs;
    std::vector<void*> out_data;
    for (auto const& aval : out_avals_) {
      auto [array, data] = allocate_any(aval.dtype, aval.shape);
      outputs.push_back(std::move(array));
      out_data.push_back(data);
    }
    run_spmd(mesh_, [&](std::size_t position) {
      std::vector<AnyArray> local;
      for (std::size_t i = 0; i < inputs.size(); ++i)
        local.push_back(part_view(inputs[i], in_parts_[i][position]));
      std::vector<AnyArray> parts(outputs.size());
      std::vector<AnyArray const*> into(outputs.size(), nullptr);
      for (std::size_t o = 0; o < outputs.size(); ++o) {
        if (!out_writers_[o][position]) continue;
        parts[o] = part_view(outputs[o], out_parts_[o][position]);
        if (contiguous(parts[o])) into[o] = &parts[o];
      }
      std::vector<AnyArray> results;
      plan_.run(local, results, into);
      for (std::size_t o = 0; o < results.size(); ++o) {
        if (!out_writers_[o][position] || data_of(results[o]) == data_of(parts[o])) continue;
        if (out_whole_[o] && contiguous(results[o])) {
          whole[o] = std::move(results[o]);  // one writer per process: nobody else touches whole[o]
          continue;
        }
        write_part(results[o], out_data[o], out_avals_[o].shape, out_parts_[o][position]);
      }
    });
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      if (whole[o]) outputs[o] = std::move(*whole[o]);
      outputs[o] = with_sharding(outputs[o], out_shardings_[o]);
    }
    return outputs;
  }

  std::vector<PartRanges> parts_of(P const& spec, Shape const& global_shape) const {
    std::vector<PartRanges> parts;
    for (auto& held : NamedSharding(mesh_, spec).devices_indices_map(global_shape)) parts.push_back(std::move(held.second));
    return parts;
  }
  std::vector<graph::Aval> local_in_avals() const {
    std::vector<graph::Aval> avals;
    for (auto const& v : plan_.program().trace->inputs) avals.push_back({v->dtype, v->shape});
    return avals;
  }
  graph::Aval out_aval(std::size_t o) const { return graph::aval_of(plan_.program().outputs[o]); }
  /// How many devices hold each part of a value laid out by `spec`.
  std::int64_t replicas(P const& spec) const {
    std::int64_t k = 1;
    NamedSharding const s(mesh_, spec);
    for (std::size_t a = 0; a < mesh_.axis_names().size(); ++a)
      if (!s.spec_uses(mesh_.axis_names()[a])) k *= mesh_.device_shape()[a];
    return k;
  }
  static AnyArray zeros_of(graph::Aval const& aval) { return graph::values::zeros(aval.dtype, aval.shape); }
  static AnyArray scaled(AnyArray const& x, double factor) { return factor == 1.0 ? x : graph::values::scale(x, factor); }
  static AnyArray summed_over(AnyArray const& x, std::string const& axis) {
    return graph::values::combine(x, axis, graph::PartialCombine::sum);
  }
  /// A shard_map of `body` traced on these per-device avals, applied.
  std::vector<AnyArray> call_of(graph::FlatFunction const& body, std::span<graph::Aval const> avals,
                                std::vector<P> in_specs, std::vector<P> out_specs,
                                std::vector<AnyArray> operands) const {
    std::vector<AnyArray> closure;
    auto program = trace_on_mesh(body, mesh_, avals, closure);
    for (auto& c : closure) {
      in_specs.emplace_back();
      operands.push_back(std::move(c));
    }
    auto call = std::make_shared<ShardMapCall const>(std::move(program), mesh_, std::move(in_specs), std::move(out_specs));
    return call->evaluate(operands);
  }

  Mesh mesh_;
  std::vector<P> in_specs_, out_specs_;
  graph::Plan plan_;
  std::vector<graph::Aval> out_avals_;
  // Per input and output, each device's part (by mesh position); per
  // output, its sharding and whether each device writes its part.
  std::vector<std::vector<PartRanges>> in_parts_, out_parts_;
  std::vector<std::shared_ptr<NamedSharding const>> out_shardings_;
  std::vector<std::vector<std::uint8_t>> out_writers_;
  std::vector<std::uint8_t> out_whole_;  // per output: every device holds all of it
};

}  // namespace jaxcc::detail
