// One equation applied to its operands' parts: what sharded jit's
// partitioner (sharding/partition.hpp) and jit's microbatching
// (graph/microbatch.hpp) do for each equation of a program. Each caller
// brings its own resharding and decides what to do with partial results.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "jaxcc/graph/layout.hpp"
#include "jaxcc/graph/trace.hpp"

namespace jaxcc::graph {

/// Whether `operand` broadcasts to `result` as numpy does (right-aligned,
/// each dimension equal or 1).
inline bool broadcasts_to(Shape const& operand, Shape const& result) {
  if (operand.size() > result.size()) return false;
  auto const lead = result.size() - operand.size();
  for (std::size_t k = 0; k < operand.size(); ++k)
    if (operand[k] != result[lead + k] && operand[k] != 1) return false;
  return true;
}

/// Whether an equation maps its operands index by index: an elementwise
/// primitive (a fused region may broadcast its leaves, as numpy does).
inline bool runs_elementwise(Equation const& eq) {
  if (!eq.primitive->is_elementwise() || eq.outputs.size() != 1) return false;
  for (auto const& v : eq.inputs)
    if (!broadcasts_to(v->shape, eq.outputs[0]->shape)) return false;
  return true;
}

/// The layout an operand of `shape` needs to line up with a result laid
/// out as `result`: a dimension of the result's size is split as the
/// result's; a broadcast one (size 1) is whole.
inline Layout aligned_layout(Shape const& shape, Shape const& result_shape, Layout const& result) {
  auto layout = Layout::replicated(shape.size());
  auto const lead = result_shape.size() - shape.size();
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (shape[k] == result_shape[lead + k]) layout.dims[k] = result.dims[lead + k];
  return layout;
}

/// Backward sharding propagation over `trace`: the layout each value's
/// users want it in (by var id), from `seeds` (the wishes for the program's
/// outputs), the primitives that ask a layout of an operand (a sharding
/// constraint: `wanted_operand_layout`), and elementwise equations, which
/// pass their result's wish on to their operands, lined up. A value whose
/// users want different layouts has no wish.
template <class = void>
std::vector<std::optional<Layout>> wanted_layouts(Trace const& trace,
                                                  std::vector<std::pair<std::size_t, Layout>> const& seeds) {
  std::vector<std::optional<Layout>> wanted(trace.var_count());
  std::vector<bool> disputed(trace.var_count(), false);
  auto const wish = [&](std::size_t id, Layout const& layout) {
    if (disputed[id]) return;
    if (!wanted[id]) wanted[id] = layout;
    else if (!(*wanted[id] == layout)) wanted[id].reset(), disputed[id] = true;
  };
  for (auto const& [id, layout] : seeds) wish(id, layout);
  for (auto eq = trace.equations.rbegin(); eq != trace.equations.rend(); ++eq) {
    auto const& out = eq->outputs.empty() ? std::optional<Layout>() : wanted[eq->outputs[0]->id];
    bool const elementwise = out && runs_elementwise(*eq);
    for (std::size_t k = 0; k < eq->inputs.size(); ++k) {
      auto const& v = eq->inputs[k];
      if (auto asked = eq->primitive->wanted_operand_layout(k, v->shape)) wish(v->id, *asked);
      else if (elementwise) wish(v->id, aligned_layout(v->shape, eq->outputs[0]->shape, *out));
    }
  }
  return wanted;
}

/// `eq` applied to `parts` (its operands' parts, laid out as `layouts`):
/// an elementwise equation with every operand lined up with its most split
/// full-shaped one; another by its primitive's partition rule (its
/// `partition_as` rule first, where its result is `wanted` in a layout);
/// one without a rule on whole operands. The results may be partial (a
/// rule's partial_over): the caller combines them or keeps them so.
template <class = void>
Partitioned partition_equation(Equation const& eq, std::vector<AnyArray> parts, std::vector<Layout> const& layouts,
                               Resharder const& reshard, std::optional<Layout> const& wanted = std::nullopt) {
  if (runs_elementwise(eq)) {
    auto target = Layout::replicated(eq.outputs[0]->shape.size());
    std::size_t most = 0;
    for (std::size_t k = 0; k < layouts.size(); ++k) {
      if (!(eq.inputs[k]->shape == eq.outputs[0]->shape)) continue;
      std::size_t split = 0;
      for (auto const& d : layouts[k].dims) split += d.size();
      if (split > most) most = split, target = layouts[k];
    }
    for (std::size_t k = 0; k < parts.size(); ++k)
      parts[k] = reshard(parts[k], layouts[k], aligned_layout(eq.inputs[k]->shape, eq.outputs[0]->shape, target));
    return {eq.primitive->evaluate(parts), std::vector<Layout>{std::move(target)}};
  }
  if (wanted)
    if (auto r = eq.primitive->partition_as(parts, layouts, *wanted, reshard)) return std::move(*r);
  if (auto r = eq.primitive->partition(parts, layouts, reshard)) return std::move(*r);
  for (std::size_t k = 0; k < parts.size(); ++k)
    parts[k] = reshard(parts[k], layouts[k], Layout::replicated(layouts[k].dims.size()));
  std::vector<Layout> whole;
  for (auto const& o : eq.outputs) whole.push_back(Layout::replicated(o->shape.size()));
  return {eq.primitive->evaluate(parts), std::move(whole)};
}

}  // namespace jaxcc::graph
