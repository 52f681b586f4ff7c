// Rewrites of a closed program that jit applies before it caches a plan:
// common-subexpression elimination (equal applications of a primitive to
// the same inputs, and equal one-element constants, become one), folding of
// applications that return an operand (a transpose by (0, 1); `x * 1`
// where the 1 is a scalar or a constant array of ones, as VJP rules make
// them), folding such constants into an equation that can take them in
// (PrimitiveBase::folded) and dead-code elimination (equations no output
// depends on are dropped). They ask only PrimitiveBase::same_as, folded and
// forwarded_operand; nothing here knows any primitive.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

#include "jaxcc/graph/trace.hpp"

namespace jaxcc::detail {

/// Equal concrete one-element constants (same dtype, same bits).
inline bool same_scalar_constant(AnyArray const& a, AnyArray const& b) {
  if (a.dtype() != b.dtype() || a.size() != 1 || b.size() != 1 || a.shape() != b.shape()) return false;
  return std::memcmp(data_of(a), data_of(b), item_size(a.dtype())) == 0;
}

/// The value every element of a concrete array holds, if they are all one
/// (bitwise; an empty array has none).
/// Complex values are left out: a double holds no imaginary part.
inline std::optional<double> uniform_value(AnyArray const& a) {
  if (a.size() == 0 || is_complex(a.dtype())) return std::nullopt;
  auto const dense = as_contiguous(a);
  auto const* data = static_cast<std::byte const*>(data_of(dense));
  auto const item = static_cast<std::int64_t>(item_size(a.dtype()));
  for (std::int64_t i = 1; i < a.size(); ++i)
    if (std::memcmp(data + i * item, data, static_cast<std::size_t>(item)) != 0) return std::nullopt;
  return value_as_double(a.dtype(), data);
}

/// Var ids mapped to the Var that replaces them.
class Substitution {
 public:
  explicit Substitution(std::size_t var_count) : to_(var_count) {}
  void replace(graph::Var const& from, graph::VarPtr to) { to_[from.id] = std::move(to); }
  graph::VarPtr const& operator()(graph::VarPtr const& v) const { return to_[v->id] ? to_[v->id] : v; }
  AnyArray operator()(AnyArray const& out, std::uint64_t trace_id) const {
    auto const& var = graph::var_of(out);
    if (!var || var->trace_id != trace_id || !to_[var->id]) return out;
    return graph::Trace::traced_any(to_[var->id]);
  }

 private:
  std::vector<graph::VarPtr> to_;
};

}  // namespace jaxcc::detail

namespace jaxcc::graph {

/// Merge equal constants and equal equations (same_as, same inputs) into
/// their first occurrence, and drop applications that return an operand
/// (forwarded_operand: identity layout operations, `x * 1`) for their
/// operand.
template <class = void>
void eliminate_common_subexpressions(Program& p) {
  auto& trace = *p.trace;
  detail::Substitution subst(trace.var_count());
  std::vector<Capture> captures;
  for (auto& c : trace.captures) {
    bool merged = false;
    if (!var_of(c.value) && c.value.size() == 1)
      for (auto const& kept : captures)
        if (!var_of(kept.value) && detail::same_scalar_constant(kept.value, c.value)) {
          subst.replace(*c.var, kept.var);
          merged = true;
          break;
        }
    if (!merged) captures.push_back(std::move(c));
  }
  trace.captures = std::move(captures);
  std::vector<std::optional<double>> uniform(trace.var_count());
  for (auto const& c : trace.captures)
    if (!var_of(c.value)) uniform[c.var->id] = detail::uniform_value(c.value);

  // Candidates by (first input, input count): equations are compared only
  // with earlier ones that read the same first value.
  std::unordered_multimap<std::uint64_t, std::size_t> by_first_input;
  std::vector<Equation> kept;
  std::vector<Shape> shapes;
  std::vector<std::optional<double>> operand_values;
  for (auto& eq : trace.equations) {
    for (auto& in : eq.inputs) in = subst(in);
    shapes.clear();
    operand_values.clear();
    for (auto const& in : eq.inputs) {
      shapes.push_back(in->shape);
      operand_values.push_back(uniform[in->id]);
    }
    if (std::any_of(operand_values.begin(), operand_values.end(), [](auto const& v) { return v.has_value(); }))
      if (auto folded = eq.primitive->folded(shapes, operand_values)) {
        eq.primitive = std::move(folded->primitive);
        std::vector<VarPtr> read;
        for (auto const k : folded->operands) read.push_back(eq.inputs[k]);
        eq.inputs = std::move(read);
        shapes.clear();
        operand_values.clear();
        for (auto const& in : eq.inputs) {
          shapes.push_back(in->shape);
          operand_values.push_back(uniform[in->id]);
        }
      }
    if (eq.outputs.size() == 1) {
      auto const& out = *eq.outputs[0];
      auto const forwarded = eq.primitive->forwarded_operand(shapes, operand_values);
      if (forwarded && eq.inputs[*forwarded]->dtype == out.dtype && eq.inputs[*forwarded]->shape == out.shape) {
        subst.replace(out, eq.inputs[*forwarded]);
        continue;
      }
    }
    std::uint64_t const key = eq.inputs.empty() ? ~std::uint64_t{0} : eq.inputs[0]->id;
    Equation const* same = nullptr;
    auto [first, last] = by_first_input.equal_range(key);
    for (auto it = first; it != last && !same; ++it) {
      auto const& other = kept[it->second];
      if (other.inputs == eq.inputs && other.outputs.size() == eq.outputs.size() && other.primitive->same_as(*eq.primitive))
        same = &other;
    }
    if (same) {
      for (std::size_t k = 0; k < eq.outputs.size(); ++k) subst.replace(*eq.outputs[k], same->outputs[k]);
      continue;
    }
    by_first_input.emplace(key, kept.size());
    kept.push_back(std::move(eq));
  }
  trace.equations = std::move(kept);
  for (auto& o : p.outputs) o = subst(o, trace.id());
}

/// Drop equations and constants that no output depends on.
template <class = void>
void eliminate_dead_code(Program& p) {
  auto& trace = *p.trace;
  std::vector<std::uint8_t> live(trace.var_count(), 0);
  for (auto const& o : p.outputs)
    if (auto const& var = var_of(o); var && var->trace_id == trace.id()) live[var->id] = 1;
  std::vector<Equation> kept;
  for (auto eq = trace.equations.rbegin(); eq != trace.equations.rend(); ++eq) {
    bool used = false;
    for (auto const& v : eq->outputs) used = used || live[v->id];
    if (!used) continue;
    for (auto const& v : eq->inputs) live[v->id] = 1;
    kept.push_back(std::move(*eq));
  }
  trace.equations.assign(std::make_move_iterator(kept.rbegin()), std::make_move_iterator(kept.rend()));
  std::erase_if(trace.captures, [&](Capture const& c) { return !live[c.var->id]; });
}

/// The rewrites jit applies, in order.
template <class = void>
void optimize(Program& p) {
  eliminate_common_subexpressions(p);
  eliminate_dead_code(p);
}

}  // namespace jaxcc::graph
