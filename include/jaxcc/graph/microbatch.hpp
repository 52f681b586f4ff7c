// jit's microbatching: a program over a batch whose intermediates are too
// large for the caches runs as the same program over slices of the batch,
// one slice at a time on each thread, so that each slice's intermediates
// are still in cache when the next equation reads them (a convolution's
// output, read by the loss and again by both gradients, is then read from
// cache instead of memory three times).
//
// Equations that read nothing of the batch (the head) run once before the
// slices. The slice's program is the rest partitioned as sharded jit
// partitions a program (graph/partition_equation.hpp: each primitive's
// partition rule), for the inputs whose leading dimension is the batch
// split over a virtual mesh axis of one part per slice. A partial result
// (a sum over the batch) is added up over the slices in slice order, and
// the equations that read it (the tail) run once after them, on whole
// values only. Slices never exchange data: a program whose partition would
// gather a split value, or whose tail would read one, is not microbatched.
#pragma once

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <omp.h>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/part.hpp"
#include "jaxcc/core/runtime_compiled.hpp"
#include "jaxcc/graph/axis_env.hpp"
#include "jaxcc/graph/optimize.hpp"
#include "jaxcc/graph/partition_equation.hpp"
#include "jaxcc/graph/plan.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/graph/value_ops.hpp"

namespace jaxcc::config {
/// jit microbatches a program whose values (its inputs and every equation's
/// outputs) add up to at least this many bytes; a negative value turns
/// microbatching off. Initially 48 MiB (more than the bench machine's
/// caches hold: 1 MiB of L2 a core, 32 MiB of L3), or the value of
/// JAXCC_JIT_MICROBATCH_BYTES in the environment where that is an integer.
inline std::atomic<std::int64_t>& jit_microbatch_bytes() {
  static std::atomic<std::int64_t> bytes{[] {
    std::int64_t value = std::int64_t{48} << 20;
    if (char const* env = std::getenv("JAXCC_JIT_MICROBATCH_BYTES")) {
      std::string_view const text(env);
      std::int64_t parsed = 0;
      auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
      if (error == std::errc{} && end == text.data() + text.size()) value = parsed;
    }
    return value;
  }()};
  return bytes;
}
}  // namespace jaxcc::config

namespace jaxcc::graph {

/// When a program is microbatched: its values add up to min_program_bytes
/// (as config::jit_microbatch_bytes) and an equation other than a fused
/// loop makes one of min_step_bytes; into slices whose values take about
/// `slice_bytes` each, an L2's worth or two.
struct MicrobatchSizes {
  std::int64_t min_program_bytes = config::jit_microbatch_bytes().load();
  std::int64_t slice_bytes = std::int64_t{2} << 20;
  std::int64_t min_step_bytes = std::clamp<std::int64_t>(min_program_bytes, 0, std::int64_t{2} << 20);
};

template <class = void>
class MicrobatchedPlanT {
 public:
  /// The microbatched plan of `program`, if it is large enough and its
  /// slices need no data of each other.
  static std::optional<MicrobatchedPlanT> planned(Program const& program, MicrobatchSizes const& sizes = {});

  /// The program's outputs for these inputs, appended to `out`.
  void run(std::span<AnyArray const> inputs, std::vector<AnyArray>& out) const;

  std::int64_t slices() const noexcept { return slices_; }

 private:
  // What a slice's output is of the whole program's value: its rows, the
  // whole value (the same in every slice), or a term of its sum.
  enum class Part : std::uint8_t { rows, whole, term };
  struct Export {
    Part part;
    std::uint64_t var;  // the value's id in the whole program
  };
  struct NotSliceable {};  // the partition needs data from another slice

  static std::int64_t bytes_of(Var const& v) { return v.shape.numel() * static_cast<std::int64_t>(item_size(v.dtype)); }
  static bool led_by(Var const& v, std::int64_t batch) { return !v.shape.empty() && v.shape[0] == batch; }

  /// How the program's batch (the leading dimension of its largest input)
  /// is sliced, and the bytes of the program's values.
  struct Slicing {
    std::int64_t batch, rows, total;
  };
  /// The program's slicing, if it is large enough and has a large
  /// intermediate that slicing can keep in cache.
  static std::optional<Slicing> slicing_of(Program const& program, MicrobatchSizes const& sizes);

  /// The head: equations that read no batch-led input (the flipped kernels
  /// of a convolution's gradient, say), run once before the slices.
  static std::vector<std::size_t> head_of(Trace const& trace, std::int64_t batch);

  /// The slice's program's inputs: the program's inputs, then the head's
  /// outputs; each led by the batch split over the slices' mesh axis.
  struct SliceInputs {
    std::vector<Var const*> vars;
    std::vector<std::uint8_t> split;  // per input: whether it is led by the batch
    std::vector<Layout> layouts;
    std::vector<Aval> parts;  // a slice's part of each
  };
  static SliceInputs slice_inputs_of(Trace const& trace, std::vector<std::size_t> const& head, Slicing const& slicing,
                                     std::string const& axis);

  class SliceTracer;

  MicrobatchedPlanT(Program program, Plan plan, std::int64_t slices, std::vector<std::size_t> head,
                    std::vector<std::uint64_t> slice_inputs, std::vector<std::uint8_t> split_inputs,
                    std::vector<Export> exports, std::vector<std::size_t> tail)
      : program_(std::move(program)),
        plan_(std::move(plan)),
        slices_(slices),
        head_(std::move(head)),
        slice_inputs_(std::move(slice_inputs)),
        split_inputs_(std::move(split_inputs)),
        exports_(std::move(exports)),
        tail_(std::move(tail)) {}

  /// Equation `s` of the whole program applied to the values it reads.
  void evaluate(std::size_t s, std::vector<std::optional<AnyArray>>& values) const {
    auto const& eq = program_.trace->equations[s];
    std::vector<AnyArray> operands;
    for (auto const& v : eq.inputs) operands.push_back(*values[v->id]);
    auto results = eq.primitive->evaluate(operands);
    for (std::size_t k = 0; k < eq.outputs.size(); ++k) values[eq.outputs[k]->id] = std::move(results[k]);
  }

  /// The part of `x` at `ranges`: a view.
  static AnyArray part_of(AnyArray const& x, jaxcc::detail::PartRanges const& ranges) {
    return jaxcc::detail::part_view(x, ranges);
  }

  Program program_;  // the whole program: its head's and tail's equations, its outputs
  Plan plan_;        // a slice's program: one input per slice input, one output per export
  std::int64_t slices_;
  std::vector<std::size_t> head_;             // equations that read no batch-led input, run once first
  std::vector<std::uint64_t> slice_inputs_;   // the program's inputs, then the head's outputs
  std::vector<std::uint8_t> split_inputs_;    // per slice input: whether a slice takes its rows
  std::vector<Export> exports_;
  std::vector<std::size_t> tail_;             // equations after a sum over the batch, run once on the sums
};

template <class V>
JAXCC_RUNTIME_INLINE auto MicrobatchedPlanT<V>::slicing_of(Program const& program, MicrobatchSizes const& sizes)
    -> std::optional<Slicing> {
  auto const& trace = *program.trace;
  if (trace.inputs.empty()) return std::nullopt;
  Var const* largest = nullptr;
  for (auto const& v : trace.inputs)
    if (!v->shape.empty() && (!largest || bytes_of(*v) > bytes_of(*largest))) largest = v.get();
  if (!largest || largest->shape[0] < 2) return std::nullopt;
  auto const batch = largest->shape[0];
  std::int64_t total = 0;
  for (auto const& v : trace.inputs) total += bytes_of(*v);
  for (auto const& eq : trace.equations)
    for (auto const& o : eq.outputs) total += bytes_of(*o);
  if (sizes.min_program_bytes < 0 || total < sizes.min_program_bytes) return std::nullopt;
  // Only a large intermediate value that a fused loop does not produce
  // gains: fused loops already run tile by tile (graph/fused_run.hpp), and in
  // slices a loop writes without streaming stores; an output is written to
  // memory anyway.
  auto const is_output = [&](Var const& v) {
    return std::any_of(program.outputs.begin(), program.outputs.end(), [&](AnyArray const& o) {
      auto const& var = var_of(o);
      return var && var.get() == &v;
    });
  };
  bool const large_step = std::any_of(trace.equations.begin(), trace.equations.end(), [&](Equation const& eq) {
    return !eq.primitive->is_elementwise() && std::any_of(eq.outputs.begin(), eq.outputs.end(), [&](VarPtr const& o) {
             return bytes_of(*o) >= sizes.min_step_bytes && !is_output(*o);
           });
  });
  if (!large_step) return std::nullopt;
  // Rows per slice: the most that keep a slice's share of the values near
  // slice_bytes, dividing the batch.
  auto rows = std::clamp<std::int64_t>(sizes.slice_bytes * batch / total, 1, batch / 2);
  while (batch % rows != 0) --rows;
  return Slicing{batch, rows, total};
}

template <class V>
JAXCC_RUNTIME_INLINE std::vector<std::size_t> MicrobatchedPlanT<V>::head_of(Trace const& trace, std::int64_t batch) {
  std::vector<std::uint8_t> in_head(trace.var_count(), 0);
  for (auto const& v : trace.inputs) in_head[v->id] = !led_by(*v, batch);
  for (auto const& c : trace.captures) in_head[c.var->id] = 1;
  std::vector<std::size_t> head;
  for (std::size_t s = 0; s < trace.equations.size(); ++s) {
    auto const& eq = trace.equations[s];
    if (!std::all_of(eq.inputs.begin(), eq.inputs.end(), [&](VarPtr const& v) { return in_head[v->id] != 0; })) continue;
    head.push_back(s);
    for (auto const& o : eq.outputs) in_head[o->id] = 1;
  }
  return head;
}

template <class V>
JAXCC_RUNTIME_INLINE auto MicrobatchedPlanT<V>::slice_inputs_of(Trace const& trace,
                                                               std::vector<std::size_t> const& head,
                                                               Slicing const& slicing, std::string const& axis)
    -> SliceInputs {
  SliceInputs in;
  for (auto const& v : trace.inputs) in.vars.push_back(v.get());
  for (auto const s : head)
    for (auto const& o : trace.equations[s].outputs) in.vars.push_back(o.get());
  for (auto const* v : in.vars) {
    auto layout = Layout::replicated(v->shape.size());
    auto shape = v->shape;
    in.split.push_back(led_by(*v, slicing.batch));
    if (in.split.back()) {
      layout.dims[0] = {axis};
      shape[0] = slicing.rows;
    }
    in.layouts.push_back(std::move(layout));
    in.parts.push_back({v->dtype, std::move(shape)});
  }
  return in;
}

/// The slice's program as a function of its inputs, for trace_program: each
/// equation of the whole program but the head's partitioned as sharded jit
/// partitions it, or, where it reads a sum over the batch, left to the tail.
/// It records the slice's outputs (exports), the tail and what they cost.
template <class V>
class MicrobatchedPlanT<V>::SliceTracer {
 public:
  SliceTracer(Program const& program, SliceInputs const& in, std::vector<std::size_t> const& head,
              std::string const& axis)
      : program_(program), in_(in), head_(head), axis_(axis), env_(program.trace->var_count()) {}

  std::vector<AnyArray> operator()(std::vector<AnyArray> const& inputs);

  std::vector<Export> exports;
  std::vector<std::size_t> tail;
  // What every slice computes again, what the tail computes, and the
  // slices' rows of the outputs (written to memory either way).
  std::int64_t whole_bytes = 0, tail_bytes = 0, rows_bytes = 0;

 private:
  // Each value of the whole program: its part in a slice, or in the tail
  // (computed after the slices, from sums over the batch).
  struct Value {
    AnyArray part;  // in the slice's trace; none for the program's inputs and constants read by the tail
    Layout layout;
    bool term = false;  // a term of a sum over the slices
    bool tail = false;
    bool made = false;  // computed in the slice (an equation's output)
  };

  /// What a slice's part of a value is of the whole value.
  Part export_part(Value const& v) const {
    if (v.term) return Part::term;
    if (v.layout.is_replicated()) return Part::whole;
    auto const& dims = v.layout.dims;
    if (dims[0] == std::vector<std::string>{axis_} &&
        std::all_of(dims.begin() + 1, dims.end(), [](auto const& d) { return d.empty(); }))
      return Part::rows;
    throw NotSliceable{};  // split along another axis: its rows are not the slice's
  }

  /// `var` as an output of the slice (once), unless the tail computes it.
  void export_value(Var const& var, std::vector<AnyArray>& results) {
    auto& v = *env_[var.id];
    if (v.tail || std::any_of(exports.begin(), exports.end(), [&](Export const& e) { return e.var == var.id; })) return;
    exports.push_back({export_part(v), var.id});
    results.push_back(v.part);
    if (exports.back().part == Part::rows) rows_bytes += bytes_of(var);
  }

  void leave_to_tail(std::size_t s, std::vector<AnyArray>& results);
  void partition(Equation const& eq);

  Program const& program_;
  SliceInputs const& in_;
  std::vector<std::size_t> const& head_;
  std::string const& axis_;
  std::vector<std::optional<Value>> env_;
  // Slices exchange nothing: a partition that would move data between them fails.
  Resharder const reshard_ = [](AnyArray const& x, Layout const& from, Layout const& to) -> AnyArray {
    if (from == to) return x;
    throw NotSliceable{};
  };
};

template <class V>
JAXCC_RUNTIME_INLINE std::vector<AnyArray> MicrobatchedPlanT<V>::SliceTracer::operator()(
    std::vector<AnyArray> const& inputs) {
  auto const& trace = *program_.trace;
  std::vector<AnyArray> results;
  for (std::size_t i = 0; i < inputs.size(); ++i) env_[in_.vars[i]->id] = Value{inputs[i], in_.layouts[i]};
  for (auto const& c : trace.captures) env_[c.var->id] = Value{c.value, Layout::replicated(c.var->shape.size())};
  for (std::size_t s = 0, next_head = 0; s < trace.equations.size(); ++s) {
    if (next_head < head_.size() && head_[next_head] == s) {
      ++next_head;
      continue;
    }
    auto const& eq = trace.equations[s];
    bool const after_sum = std::any_of(eq.inputs.begin(), eq.inputs.end(), [&](VarPtr const& v) {
      return env_[v->id]->term || env_[v->id]->tail;
    });
    if (after_sum) leave_to_tail(s, results);
    else partition(eq);
  }
  for (auto const& o : program_.outputs)
    if (auto const& var = var_of(o); var && var->trace_id == trace.id()) export_value(*var, results);
  return results;
}

/// Equation `s` runs once on the sums, after the slices: its operands must
/// be whole, and those the slice computes are exported.
template <class V>
JAXCC_RUNTIME_INLINE void MicrobatchedPlanT<V>::SliceTracer::leave_to_tail(std::size_t s,
                                                                           std::vector<AnyArray>& results) {
  auto const& eq = program_.trace->equations[s];
  for (auto const& v : eq.inputs) {
    auto const& value = *env_[v->id];
    if (!value.term && !value.tail && !value.layout.is_replicated()) throw NotSliceable{};
    if (value.made || value.term) export_value(*v, results);
  }
  for (auto const& o : eq.outputs) {
    env_[o->id] = Value{{}, Layout::replicated(o->shape.size()), false, true};
    tail_bytes += bytes_of(*o);
  }
  tail.push_back(s);
}

/// `eq` applied to the slice's parts of its operands by its partition
/// rule; a partial result only as a sum over the slices.
template <class V>
JAXCC_RUNTIME_INLINE void MicrobatchedPlanT<V>::SliceTracer::partition(Equation const& eq) {
  std::vector<AnyArray> values;
  std::vector<Layout> layouts;
  for (auto const& v : eq.inputs) {
    values.push_back(env_[v->id]->part);
    layouts.push_back(env_[v->id]->layout);
  }
  auto r = partition_equation(eq, std::move(values), layouts, reshard_);
  bool const term = !r.partial_over.empty();
  if (term && (r.partial_over != std::vector<std::string>{axis_} || r.combine != PartialCombine::sum))
    throw NotSliceable{};
  for (std::size_t k = 0; k < eq.outputs.size(); ++k) {
    if (!term && r.layouts[k].is_replicated()) whole_bytes += bytes_of(*eq.outputs[k]);
    env_[eq.outputs[k]->id] = Value{r.values[k], r.layouts[k], term, false, true};
  }
}

template <class V>
JAXCC_RUNTIME_INLINE std::optional<MicrobatchedPlanT<V>> MicrobatchedPlanT<V>::planned(Program const& program,
                                                                                     MicrobatchSizes const& sizes) {
  auto const slicing = slicing_of(program, sizes);
  if (!slicing) return std::nullopt;
  auto const slices = slicing->batch / slicing->rows, total = slicing->total;
  // The slice's program takes the program's inputs and the head's outputs,
  // those led by the batch split over a mesh axis of `slices` parts.
  std::string const axis = "jit microbatch";
  ScopedAxis const bound(AxisData{slices, axis});
  auto head = head_of(*program.trace, slicing->batch);
  auto in = slice_inputs_of(*program.trace, head, *slicing, axis);
  SliceTracer tracer(program, in, head, axis);
  try {
    std::vector<AnyArray> closure;
    auto body = trace_program(std::ref(tracer), in.parts, closure);
    if (!closure.empty()) return std::nullopt;
    // Work every slice repeats (on the weights, say) and the tail's must
    // stay small, and so must the outputs: slicing gains on values that
    // stay in cache, and per-example gradients, whose outputs are most of
    // their values, ran three times as long.
    if (tracer.whole_bytes * slices > total / 4 || tracer.tail_bytes > total / 64 || tracer.rows_bytes > total / 8)
      return std::nullopt;
    for (auto const& eq : body.trace->equations)
      if (eq.primitive->binds_axis(axis)) return std::nullopt;
    optimize(body);
    std::vector<std::uint64_t> slice_input_ids;
    for (auto const* v : in.vars) slice_input_ids.push_back(v->id);
    return MicrobatchedPlanT(program, Plan(std::move(body), {}, Plan::Outputs::into_given), slices, std::move(head),
                             std::move(slice_input_ids), std::move(in.split), std::move(tracer.exports),
                             std::move(tracer.tail));
  } catch (NotSliceable const&) {
    return std::nullopt;
  } catch (Error const&) {
    return std::nullopt;  // a rule that cannot take the slice's shapes
  }
}

template <class V>
JAXCC_RUNTIME_INLINE void MicrobatchedPlanT<V>::run(std::span<AnyArray const> inputs, std::vector<AnyArray>& out) const {
  auto const& trace = *program_.trace;
  // The whole program's values: its inputs and constants, the head's, then
  // the slices' exports and the tail's.
  std::vector<std::optional<AnyArray>> values(trace.var_count());
  for (std::size_t i = 0; i < inputs.size(); ++i) values[trace.inputs[i]->id] = inputs[i];
  for (auto const& c : trace.captures) values[c.var->id] = c.value;
  for (auto const s : head_) evaluate(s, values);
  std::vector<AnyArray> slice_inputs;
  std::int64_t batch = 0;
  for (std::size_t i = 0; i < slice_inputs_.size(); ++i) {
    slice_inputs.push_back(*values[slice_inputs_[i]]);
    if (split_inputs_[i]) batch = slice_inputs.back().shape()[0];
  }
  auto const rows = batch / slices_;
  auto const& slice_outputs = plan_.program().outputs;
  // Rows are written in place: each slice's into one array.
  std::vector<AnyArray> whole(exports_.size());
  for (std::size_t e = 0; e < exports_.size(); ++e)
    if (exports_[e].part == Part::rows) {
      auto shape = slice_outputs[e].shape();
      shape[0] = batch;
      whole[e] = jaxcc::detail::allocate_any(slice_outputs[e].dtype(), shape).first;
    }
  std::vector<std::vector<AnyArray>> results(static_cast<std::size_t>(slices_));
  std::exception_ptr failure;
  auto const run_slice = [&](std::int64_t s) {
    std::vector<AnyArray> operands;
    for (std::size_t i = 0; i < slice_inputs.size(); ++i) {
      auto const& x = slice_inputs[i];
      operands.push_back(split_inputs_[i] ? part_of(x, jaxcc::detail::leading_part(x.shape(), s * rows, rows)) : x);
    }
    std::vector<AnyArray> targets(exports_.size());
    std::vector<AnyArray const*> into(exports_.size(), nullptr);
    for (std::size_t e = 0; e < exports_.size(); ++e)
      if (exports_[e].part == Part::rows) {
        targets[e] = part_of(whole[e], jaxcc::detail::leading_part(whole[e].shape(), s * rows, rows));
        into[e] = &targets[e];
      }
    auto& mine = results[static_cast<std::size_t>(s)];
    plan_.run(operands, mine, into);
    // Rows whose step could not write them in place (not a fused run).
    for (std::size_t e = 0; e < exports_.size(); ++e)
      if (exports_[e].part == Part::rows && jaxcc::detail::data_of(mine[e]) != jaxcc::detail::data_of(targets[e]))
        jaxcc::detail::write_part(mine[e], const_cast<void*>(jaxcc::detail::data_of(whole[e])), whole[e].shape(),
                                  jaxcc::detail::leading_part(whole[e].shape(), s * rows, rows));
  };
  // Slices on the threads, each slice's kernels on its own thread.
#pragma omp parallel for schedule(dynamic) if (!omp_in_parallel())
  for (std::int64_t s = 0; s < slices_; ++s) {
    try {
      run_slice(s);
    } catch (...) {
#pragma omp critical(jaxcc_microbatch_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  for (std::size_t e = 0; e < exports_.size(); ++e) {
    auto& value = values[exports_[e].var];
    if (exports_[e].part == Part::rows) value = std::move(whole[e]);
    else if (exports_[e].part == Part::whole) value = results[0][e];
    else {
      value = results[0][e];  // added up in slice order
      for (std::size_t s = 1; s < results.size(); ++s) value = values::add(*value, results[s][e]);
    }
  }
  for (auto const s : tail_) evaluate(s, values);
  for (auto const& o : program_.outputs) {
    auto const& var = var_of(o);
    out.push_back(var && var->trace_id == trace.id() ? *values[var->id] : o);
  }
}
using MicrobatchedPlan = MicrobatchedPlanT<>;

}  // namespace jaxcc::graph
