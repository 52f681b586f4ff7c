// An executable plan of a closed program (what jit caches and replays):
//  - each step's operand and result slots are resolved once;
//  - each value is released right after its last use, so its buffer goes
//    back to the allocator's cache (core/buffer.hpp) while the plan runs and
//    the next step of that size reuses it;
//  - the equations are reordered (stably) so that independent elementwise
//    equations of one shape sit together, and then each run of
//    consecutive elementwise equations of one shape (fused
//    regions of any expression type, one op or many) is one step that runs
//    tile by tile (graph/fused_run.hpp): a tile's intermediates stay in a
//    small per-thread scratch buffer, and only values read after the run
//    are written to memory;
//  - an elementwise equation `addend + scale * y` whose y is read by it alone
//    and made by an equation that can add its result into a buffer (a GEMM:
//    EvaluationRules::accumulates) is made by that equation instead, which
//    adds its scaled result into a copy of the addend: an SGD update
//    `w - lr * dot_general(x, g)` makes no pass over the gradient.
// Running a plan is const and keeps its state on the caller's stack (and
// per-thread scratch): one plan serves concurrent calls.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "jaxcc/core/runtime_compiled.hpp"
#include "jaxcc/kernels/scratch_vector.hpp"
#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/small_vector.hpp"
#include "jaxcc/graph/fused_run.hpp"
#include "jaxcc/graph/trace.hpp"

namespace jaxcc::graph {

template <class = void>
class PlanT {
 public:
  /// How the plan's outputs are written: into fresh arrays, or also into
  /// arrays the caller gives (run's `into`: a device's parts of sharded
  /// results), which only fused runs can write into.
  enum class Outputs : std::uint8_t { fresh, into_given };

  /// `donated[i]`: program input i's buffer may be taken for an output
  /// (jit's donate_argnums); empty: none.
  explicit PlanT(Program program, std::vector<std::uint8_t> donated = {}, Outputs outputs = Outputs::fresh);

  Program const& program() const noexcept { return program_; }
  /// The number of steps: equations, with each fused run counted once.
  std::size_t num_steps() const noexcept { return steps_.size(); }
  /// The fused runs of two equations or more.
  std::span<Fusion const> fusions() const noexcept { return fusions_; }

  /// The outputs for these inputs (arguments, then converted closure).
  std::vector<AnyArray> run(std::span<AnyArray const> inputs) const {
    std::vector<AnyArray> out;
    run(inputs, out);
    return out;
  }
  /// The same, appended to `out`. The bookkeeping lives in vectors kept
  /// from call to call (kernels/scratch_vector.hpp): with `out`'s capacity
  /// kept too, a steady-state call asks the system allocator for nothing.
  /// `into[o]`, where given and not null: a dense array of output o's
  /// dtype and shape that the step computing it writes into, where that
  /// step is a fused run (else the output is copied there by the caller).
  void run(std::span<AnyArray const> inputs, std::vector<AnyArray>& out,
           std::span<AnyArray const* const> into = {}) const;

 private:
  struct Step {
    PrimitiveBase const* primitive;
    std::shared_ptr<detail::FusedRun const> run;  // set for a fused run
    std::vector<std::uint64_t> operands, results, release;
    std::size_t last_equation;
    std::vector<std::int32_t> program_output{};  // per result: the program output it is first, or -1
    /// Set where the primitive adds its result, times this, into a copy of
    /// its last operand (evaluate_accumulating).
    std::optional<double> accumulate_scale{};
  };

  /// An equation that takes in the elementwise `addend + scale * y` after
  /// it (EvaluationRules::accumulates, FusionRules::affine_in).
  struct Accumulation {
    std::size_t consumer;  // the elementwise equation's index
    VarPtr addend;
    double scale;
  };
  /// For each equation, the accumulation it takes in, if any: its one
  /// output is read by that equation alone (and is no program output), as
  /// its operand of the same shape, and the addend is made before it.
  std::vector<std::optional<Accumulation>> accumulations() const;

  /// One past the last equation of the elementwise run starting at `s`:
  /// single-output elementwise equations of one result shape whose
  /// operands have that shape, one element, or a periodic broadcast to it
  /// (detail::run_input).
  /// An equation taken in by an accumulation (`runs_at[e] != e`) ends a run.
  std::size_t run_end(std::size_t s, std::vector<std::size_t> const& runs_at) const {
    auto const& eqs = program_.trace->equations;
    if (!starts_run(eqs[s])) return s;
    auto const& shape = eqs[s].outputs[0]->shape;
    std::size_t e = s + 1;
    while (e < eqs.size() && runs_at[e] == e && fits_run(eqs[e], shape)) ++e;
    return e;
  }
  /// Whether `eq` may be a member of an elementwise run of result `shape`.
  static bool fits_run(Equation const& eq, Shape const& shape) {
    if (!eq.primitive->is_elementwise() || eq.outputs.size() != 1 || eq.outputs[0]->shape != shape) return false;
    return std::all_of(eq.inputs.begin(), eq.inputs.end(),
                       [&](VarPtr const& v) { return detail::run_input(v->shape, shape).has_value(); });
  }
  static bool starts_run(Equation const& eq) { return eq.outputs.size() == 1 && fits_run(eq, eq.outputs[0]->shape); }

  /// Reorders the equations so that elementwise equations of one shape
  /// that do not depend on those between them become one run: tree::map
  /// writes an update leaf by leaf, so an optimizer step's equations
  /// alternate between its leaves' shapes, and each would otherwise make a
  /// pass over memory of its own. A reduction that would fold into the run
  /// comes with it, and one-element equations come as soon as they can.
  /// Stable otherwise: a program whose runs are already together keeps its
  /// order.
  void group_runs();

  /// Whether the equation after the run [s, end) reduces a value of the
  /// run over every axis with a reduction that folds row by row: then the
  /// run folds it tile by tile instead of writing it out.
  bool folds_into(std::size_t s, std::size_t end) const {
    auto const& eqs = program_.trace->equations;
    if (end >= eqs.size() || eqs[end].inputs.size() != 1 || eqs[end].outputs.size() != 1) return false;
    auto const& operand = *eqs[end].inputs[0];
    bool const of_run = std::any_of(eqs.begin() + static_cast<std::ptrdiff_t>(s), eqs.begin() + static_cast<std::ptrdiff_t>(end),
                                    [&](Equation const& eq) { return eq.outputs[0]->id == operand.id; });
    return of_run && eqs[end].primitive->row_fold(operand.shape) != nullptr;
  }

  void add_step(PrimitiveBase const* primitive, std::shared_ptr<detail::FusedRun const> run,
                std::span<VarPtr const> inputs, std::span<VarPtr const> outputs, std::size_t last);

  /// The run input whose buffer the output `out`, written by equation `s`,
  /// may take: a donated program input of its dtype and shape that nothing
  /// reads after `s` and no other output took; -1 if none.
  std::int32_t donor_for(Var const& out, std::size_t s, std::vector<VarPtr> const& inputs,
                         std::vector<std::size_t> const& last_use, std::vector<std::uint8_t> const& is_output,
                         std::size_t end, std::vector<std::int32_t> const& taken) const;

  /// The run [first, end) as one step; `fold`: and the reduction after it.
  void add_fused_run(std::size_t first, std::size_t end, bool fold, std::vector<std::size_t> const& last_use,
                     std::vector<std::uint8_t> const& is_output);

  /// The program input `v` is, if it is a donated one.
  bool donated(Var const& v) const {
    auto const& inputs = program_.trace->inputs;
    for (std::size_t i = 0; i < donated_.size() && i < inputs.size(); ++i)
      if (donated_[i] && inputs[i]->id == v.id) return true;
    return false;
  }

  Program program_;
  std::vector<std::uint8_t> donated_;
  std::vector<Step> steps_;
  std::vector<Fusion> fusions_;
};

template <class V>
JAXCC_RUNTIME_INLINE PlanT<V>::PlanT(Program program, std::vector<std::uint8_t> donated, Outputs outputs)
    : program_(std::move(program)), donated_(std::move(donated)) {
  group_runs();
  auto const& trace = *program_.trace;
  auto const& eqs = trace.equations;
  auto const accumulation = accumulations();
  // Where each equation runs: an equation taken in by an accumulation runs
  // as part of the one that makes its operand.
  std::vector<std::size_t> runs_at(eqs.size());
  for (std::size_t s = 0; s < eqs.size(); ++s) runs_at[s] = s;
  for (std::size_t s = 0; s < eqs.size(); ++s)
    if (accumulation[s]) runs_at[accumulation[s]->consumer] = s;
  // Each value's last reader (an equation index), and whether it is one
  // of the program's outputs (never released).
  std::vector<std::size_t> last_use(trace.var_count(), 0);
  std::vector<std::uint8_t> is_output(trace.var_count(), 0);
  for (std::size_t s = 0; s < eqs.size(); ++s)
    for (auto const& v : eqs[s].inputs) last_use[v->id] = std::max(last_use[v->id], runs_at[s]);
  for (auto const& o : program_.outputs)
    if (auto const& var = var_of(o); var && var->trace_id == trace.id()) is_output[var->id] = 1;

  bool const any_donated = std::ranges::any_of(donated_, [](std::uint8_t d) { return d != 0; });
  for (std::size_t s = 0; s < eqs.size();) {
    if (runs_at[s] != s) {  // taken in by an accumulation before it
      ++s;
      continue;
    }
    if (auto const& a = accumulation[s]) {
      std::vector<VarPtr> operands = eqs[s].inputs;
      operands.push_back(a->addend);
      add_step(eqs[s].primitive.get(), nullptr, operands, eqs[a->consumer].outputs, s);
      steps_.back().accumulate_scale = a->scale;
      ++s;
      continue;
    }
    auto const end = run_end(s, runs_at);
    bool const fold = end > s && folds_into(s, end);
    // A lone elementwise equation runs as itself, unless it may write
    // into a donated input or a given output, or feed a reduction (only
    // a run can).
    bool const into_given = outputs == Outputs::into_given && end > s && is_output[eqs[s].outputs[0]->id];
    if (end - s >= 2 || (end > s && (any_donated || fold || into_given))) add_fused_run(s, end, fold, last_use, is_output);
    else add_step(eqs[s].primitive.get(), nullptr, eqs[s].inputs, eqs[s].outputs, s);
    s = std::max(end + (fold ? 1 : 0), s + 1);
  }
  // Each step's results that are program outputs (a value output twice:
  // the first time).
  for (auto& step : steps_)
    for (auto id : step.results) {
      std::int32_t o = -1;
      for (std::size_t k = 0; k < program_.outputs.size() && o < 0; ++k)
        if (auto const& var = var_of(program_.outputs[k]); var && var->trace_id == trace.id() && var->id == id)
          o = static_cast<std::int32_t>(k);
      step.program_output.push_back(o);
    }
  // Release each value after the step that reads it last.
  auto const never = std::numeric_limits<std::size_t>::max();
  for (auto& step : steps_)
    for (auto id : step.operands)
      if (last_use[id] <= step.last_equation && !is_output[id]) {
        last_use[id] = never;  // released once, even if read twice here
        step.release.push_back(id);
      }
}

template <class V>
JAXCC_RUNTIME_INLINE void PlanT<V>::run(std::span<AnyArray const> inputs, std::vector<AnyArray>& out,
                                        std::span<AnyArray const* const> into) const {
  auto const& trace = *program_.trace;
  detail::ScratchVector<std::optional<AnyArray>> slot;
  slot->resize(trace.var_count());
  for (std::size_t i = 0; i < inputs.size(); ++i) (*slot)[trace.inputs[i]->id] = inputs[i];
  for (auto const& c : trace.captures) (*slot)[c.var->id] = c.value;
  detail::ScratchVector<AnyArray> operands, results;
  for (auto const& step : steps_) {
    for (auto id : step.operands) operands->push_back(*(*slot)[id]);
    if (step.accumulate_scale) {
      std::span<AnyArray const> const all(*operands);
      results->push_back(step.primitive->evaluate_accumulating(all.first(all.size() - 1), all.back(), *step.accumulate_scale));
    } else if (step.run) {
      detail::SmallVector<AnyArray const*, 8> targets;
      if (!into.empty())
        for (auto const o : step.program_output) targets.push_back(o >= 0 ? into[static_cast<std::size_t>(o)] : nullptr);
      step.run->run(*operands, *results, std::span<AnyArray const* const>(targets.data(), targets.size()));
    } else {
      step.primitive->evaluate_into(*operands, *results);
    }
    for (std::size_t k = 0; k < results->size(); ++k) (*slot)[step.results[k]] = std::move((*results)[k]);
    operands->clear();
    results->clear();
    for (auto id : step.release) (*slot)[id].reset();
  }
  for (auto const& o : program_.outputs) {
    auto const& var = var_of(o);
    out.push_back(var && var->trace_id == trace.id() ? *(*slot)[var->id] : o);
  }
}

template <class V>
JAXCC_RUNTIME_INLINE auto PlanT<V>::accumulations() const -> std::vector<std::optional<Accumulation>> {
  auto const& trace = *program_.trace;
  auto const& eqs = trace.equations;
  constexpr auto none = std::numeric_limits<std::size_t>::max();
  // Each value's readers (program outputs count as one), the last of them,
  // and the equation that makes it (none: an input or a constant).
  std::vector<std::size_t> readers(trace.var_count(), 0), reader(trace.var_count(), none), made_by(trace.var_count(), none);
  for (std::size_t s = 0; s < eqs.size(); ++s) {
    for (auto const& v : eqs[s].inputs) ++readers[v->id], reader[v->id] = s;
    for (auto const& v : eqs[s].outputs) made_by[v->id] = s;
  }
  for (auto const& o : program_.outputs)
    if (auto const& var = var_of(o); var && var->trace_id == trace.id()) ++readers[var->id];
  std::vector<std::optional<Accumulation>> out(eqs.size());
  for (std::size_t s = 0; s < eqs.size(); ++s) {
    if (eqs[s].outputs.size() != 1 || !eqs[s].primitive->accumulates()) continue;
    auto const& product = *eqs[s].outputs[0];
    if (readers[product.id] != 1 || reader[product.id] == none) continue;
    auto const& consumer = eqs[reader[product.id]];
    if (consumer.outputs.size() != 1 || consumer.outputs[0]->shape != product.shape ||
        consumer.outputs[0]->dtype != product.dtype)
      continue;
    auto const k = static_cast<std::size_t>(
        std::find_if(consumer.inputs.begin(), consumer.inputs.end(), [&](VarPtr const& v) { return v->id == product.id; }) -
        consumer.inputs.begin());
    auto const affine = consumer.primitive->affine_in(k);
    if (!affine) continue;
    auto const& addend = consumer.inputs[affine->addend];
    bool const made_before = made_by[addend->id] == none || made_by[addend->id] < s;
    // (The consumer's result, of the product's shape, is its operands'
    // broadcast: the addend broadcasts to it.)
    if (addend->dtype != product.dtype || !made_before) continue;
    out[s] = Accumulation{reader[product.id], addend, affine->scale};
  }
  return out;
}

template <class V>
JAXCC_RUNTIME_INLINE void PlanT<V>::add_step(PrimitiveBase const* primitive,
                                             std::shared_ptr<detail::FusedRun const> run,
                                             std::span<VarPtr const> inputs, std::span<VarPtr const> outputs,
                                             std::size_t last) {
  Step step{primitive, std::move(run), {}, {}, {}, last};
  for (auto const& v : inputs) step.operands.push_back(v->id);
  for (auto const& v : outputs) step.results.push_back(v->id);
  steps_.push_back(std::move(step));
}

template <class V>
JAXCC_RUNTIME_INLINE std::int32_t PlanT<V>::donor_for(Var const& out, std::size_t s, std::vector<VarPtr> const& inputs,
                                                      std::vector<std::size_t> const& last_use,
                                                      std::vector<std::uint8_t> const& is_output, std::size_t end,
                                                      std::vector<std::int32_t> const& taken) const {
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    auto const& v = *inputs[k];
    bool const fits = v.dtype == out.dtype && v.shape == out.shape && donated(v) && !is_output[v.id] &&
                      last_use[v.id] <= s && last_use[v.id] < end;
    if (fits && std::find(taken.begin(), taken.end(), static_cast<std::int32_t>(k)) == taken.end())
      return static_cast<std::int32_t>(k);
  }
  return -1;
}

template <class V>
JAXCC_RUNTIME_INLINE void PlanT<V>::add_fused_run(std::size_t first, std::size_t end, bool fold,
                                                  std::vector<std::size_t> const& last_use,
                                                  std::vector<std::uint8_t> const& is_output) {
  using Run = detail::FusedRun;
  auto const& eqs = program_.trace->equations;
  auto const last = fold ? end + 1 : end;  // one past the step's last equation
  std::vector<Run::Ref> where(program_.trace->var_count(), Run::Ref{Run::Place::input, ~std::uint32_t{0}});
  std::vector<VarPtr> inputs, outputs;
  std::vector<DType> output_dtypes;
  std::vector<Run::Member> members;
  std::vector<std::uint32_t> free_slots;
  std::vector<std::int32_t> donor;
  std::vector<std::uint8_t> released(program_.trace->var_count(), 0);
  std::uint32_t slots = 0;
  for (std::size_t s = first; s < end; ++s) {
    auto const& eq = eqs[s];
    Run::Member m{eq.primitive.get(), {}, {}};
    for (auto const& v : eq.inputs) {
      auto& ref = where[v->id];
      if (ref.place == Run::Place::input && ref.index == ~std::uint32_t{0}) {
        ref.index = static_cast<std::uint32_t>(inputs.size());
        inputs.push_back(v);
      }
      m.operands.push_back(ref);
    }
    // A scratch value read here for the last time frees its slot. This
    // member's result may take it if its elements are no wider: it reads
    // each index before it writes it, but a wider result (bfloat16 to
    // float32) would overwrite elements not yet read.
    auto const& out = eq.outputs[0];
    std::optional<std::uint32_t> in_place;
    std::vector<std::uint32_t> freed_here;
    for (auto const& v : eq.inputs)
      if (where[v->id].place == Run::Place::scratch && last_use[v->id] == s && !released[v->id]) {
        released[v->id] = 1;  // once, even if read twice here
        if (!in_place && item_size(v->dtype) >= item_size(out->dtype)) in_place = where[v->id].index;
        else freed_here.push_back(where[v->id].index);
      }
    bool const read_later = is_output[out->id] || last_use[out->id] >= last;
    if (read_later) {
      m.result = {Run::Place::output, static_cast<std::uint32_t>(outputs.size())};
      outputs.push_back(out);
      output_dtypes.push_back(out->dtype);
      donor.push_back(donor_for(*out, s, inputs, last_use, is_output, last, donor));
      if (in_place) free_slots.push_back(*in_place);
    } else if (in_place) {
      m.result = {Run::Place::scratch, *in_place};
    } else if (!free_slots.empty()) {
      m.result = {Run::Place::scratch, free_slots.back()};
      free_slots.pop_back();
    } else {
      m.result = {Run::Place::scratch, slots++};
    }
    free_slots.insert(free_slots.end(), freed_here.begin(), freed_here.end());
    where[out->id] = m.result;
    members.push_back(std::move(m));
  }
  std::optional<Run::Fold> folded;
  if (fold) {
    auto const& reduction = eqs[end];
    folded = Run::Fold{reduction.primitive.get(), where[reduction.inputs[0]->id], reduction.outputs[0]->dtype,
                       reduction.outputs[0]->shape};
    outputs.push_back(reduction.outputs[0]);
  }
  auto const& shape = eqs[first].outputs[0]->shape;
  std::vector<Run::Input> run_inputs;
  for (auto const& v : inputs) run_inputs.push_back({v->dtype, *detail::run_input(v->shape, shape)});
  auto run = std::make_shared<Run const>(shape, members, std::move(run_inputs), slots,
                                         std::move(output_dtypes), std::move(donor), std::move(folded));
  add_step(nullptr, std::move(run), inputs, outputs, last - 1);
  if (last - first >= 2) fusions_.push_back({first, last, std::move(inputs), std::move(outputs)});
}
template <class V>
JAXCC_RUNTIME_INLINE void PlanT<V>::group_runs() {
  auto& eqs = program_.trace->equations;
  // How far ahead a run looks for its next member (bounds the planning
  // time of long programs).
  constexpr std::size_t window = 256;
  std::vector<std::uint8_t> available(program_.trace->var_count(), 1);
  for (auto const& eq : eqs)
    for (auto const& v : eq.outputs) available[v->id] = 0;
  auto const ready = [&](Equation const& eq) {
    return std::all_of(eq.inputs.begin(), eq.inputs.end(), [&](VarPtr const& v) { return available[v->id] != 0; });
  };
  std::vector<std::uint8_t> done(eqs.size(), 0);
  std::vector<std::uint8_t> in_run(program_.trace->var_count(), 0);  // an output of the open run
  std::vector<std::uint64_t> run_outputs;
  std::vector<Equation> order;
  order.reserve(eqs.size());
  std::optional<Shape> run_shape;
  std::size_t first = 0;  // the first equation not yet placed
  while (order.size() < eqs.size()) {
    while (done[first]) ++first;
    auto pick = first;
    // One-element equations first, as soon as they are ready: a step's
    // scalar arithmetic (an optimizer's bias correction) then never
    // splits a run that reads its result.
    auto const one_element = [](Equation const& eq) {
      auto const small = [](VarPtr const& v) { return v->shape.numel() <= 1; };
      return std::all_of(eq.inputs.begin(), eq.inputs.end(), small) &&
             std::all_of(eq.outputs.begin(), eq.outputs.end(), small);
    };
    std::size_t scalar = first;
    while (scalar < eqs.size() && scalar < first + window && (done[scalar] || !one_element(eqs[scalar]) || !ready(eqs[scalar])))
      ++scalar;
    if (scalar < eqs.size() && scalar < first + window) pick = scalar;
    else if (run_shape) {
      auto const folds = [&](Equation const& eq) {
        return eq.inputs.size() == 1 && eq.outputs.size() == 1 && in_run[eq.inputs[0]->id] &&
               eq.primitive->row_fold(eq.inputs[0]->shape) != nullptr;
      };
      std::size_t fold = eqs.size();
      std::size_t k = first;
      for (; k < eqs.size() && k < first + window; ++k) {
        if (done[k] || !ready(eqs[k])) continue;
        if (fits_run(eqs[k], *run_shape)) break;
        if (fold == eqs.size() && folds(eqs[k])) fold = k;
      }
      if (k < eqs.size() && k < first + window) pick = k;
      else if (fold < eqs.size()) pick = fold;
    }
    auto& eq = eqs[pick];
    bool const member = starts_run(eq) && (!run_shape || *run_shape == eq.outputs[0]->shape);
    if (!member) {
      for (auto const id : run_outputs) in_run[id] = 0;
      run_outputs.clear();
    }
    run_shape = starts_run(eq) ? std::optional<Shape>(eq.outputs[0]->shape) : std::nullopt;
    for (auto const& v : eq.outputs) {
      available[v->id] = 1;
      if (run_shape) {
        in_run[v->id] = 1;
        run_outputs.push_back(v->id);
      }
    }
    done[pick] = 1;
    order.push_back(std::move(eq));
  }
  eqs = std::move(order);
}

using Plan = PlanT<>;

}  // namespace jaxcc::graph
