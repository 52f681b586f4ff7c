// jit's microbatching: a program over a batch whose intermediates are too
// large for the caches runs as the same program over slices of the batch,
// one slice at a time on each thread, so that each slice's intermediates
// are still in cache when the next equation reads them (a convolution's
// output, read by the loss and again by both gradients, is then read from
// cache instead of memory three times).
//
// The slice's program is the whole one partitioned as sharded jit
// partitions it (graph/partition_equation.hpp: each primitive's partition
// rule), for the inputs whose leading dimension is the batch split over a
// virtual mesh axis of one part per slice. Slices never exchange data: a
// program whose partition would gather a split value, or read a partial
// result (a sum over the batch) before its end, is not microbatched. A
// partial output is added up over the slices, in slice order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <omp.h>

#include "jaxcc/bits/runtime_compiled.hpp"
#include "jaxcc/core/any_array.hpp"
#include "jaxcc/graph/axis_env.hpp"
#include "jaxcc/graph/optimize.hpp"
#include "jaxcc/graph/partition_equation.hpp"
#include "jaxcc/graph/plan.hpp"
#include "jaxcc/graph/program.hpp"

namespace jaxcc::config {
/// jit microbatches a program whose values (its inputs and every equation's
/// outputs) add up to at least this many bytes; a negative value turns
/// microbatching off. Initially 48 MiB (more than the bench machine's
/// caches hold: 1 MiB of L2 a core, 32 MiB of L3), or the value of
/// JAXCC_JIT_MICROBATCH_BYTES in the environment.
inline std::atomic<std::int64_t>& jit_microbatch_bytes() {
  static std::atomic<std::int64_t> bytes{[]() -> std::int64_t {
    char const* env = std::getenv("JAXCC_JIT_MICROBATCH_BYTES");
    return env ? std::strtoll(env, nullptr, 10) : std::int64_t{48} << 20;
  }()};
  return bytes;
}
}  // namespace jaxcc::config

namespace jaxcc::graph {

/// When a program is microbatched (min_program_bytes, as
/// config::jit_microbatch_bytes), and into slices whose values take about
/// `slice_bytes` each: an L2's worth or two.
struct MicrobatchSizes {
  std::int64_t min_program_bytes = config::jit_microbatch_bytes().load();
  std::int64_t slice_bytes = std::int64_t{2} << 20;
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
  enum class Output : std::uint8_t { split, whole, summed };
  struct NotSliceable {};  // the partition needs data from another slice

  MicrobatchedPlanT(Plan plan, std::int64_t slices, std::vector<std::uint8_t> split_inputs, std::vector<Output> outputs)
      : plan_(std::move(plan)), slices_(slices), split_inputs_(std::move(split_inputs)), outputs_(std::move(outputs)) {}

  /// Rows [first, first + count) of `x` along its leading dimension: a view.
  static AnyArray leading_rows(AnyArray const& x, std::int64_t first, std::int64_t count) {
    auto const& impl = jaxcc::detail::impl_of(x);
    auto shape = impl.shape;
    shape[0] = count;
    return jaxcc::detail::view(x, std::move(shape), impl.strides, impl.offset + first * impl.strides[0]);
  }

  /// `from`'s elements written to `to`, a dense array of its shape.
  static void copy_into(AnyArray const& from, AnyArray const& to) {
    from.visit([&](auto const& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      x.copy_to(static_cast<T*>(const_cast<void*>(jaxcc::detail::data_of(to))));
    });
  }

  /// Output `o` of every slice, added up in slice order.
  static AnyArray sum_in_order(std::vector<std::vector<AnyArray>> const& results, std::size_t o) {
    auto const& first = results[0][o];
    auto [sum, data] = jaxcc::detail::allocate_any(first.dtype(), first.shape());
    first.visit([&, data = data](auto const& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      auto* const total = static_cast<T*>(data);
      x.copy_to(total);
      auto const n = static_cast<std::size_t>(x.size());
      auto const term = std::make_unique<T[]>(n);  // not a vector: bool's has no data()
      for (std::size_t s = 1; s < results.size(); ++s) {
        results[s][o].template as<T>().copy_to(term.get());
        for (std::size_t i = 0; i < n; ++i) total[i] = static_cast<T>(total[i] + term[i]);
      }
    });
    return sum;
  }

  Plan plan_;
  std::int64_t slices_;
  std::vector<std::uint8_t> split_inputs_;
  std::vector<Output> outputs_;
};

template <class V>
JAXCC_RUNTIME_INLINE std::optional<MicrobatchedPlanT<V>> MicrobatchedPlanT<V>::planned(Program const& program,
                                                                                     MicrobatchSizes const& sizes) {
  auto const& trace = *program.trace;
  if (trace.inputs.empty()) return std::nullopt;
  auto const bytes_of = [](Var const& v) { return v.shape.numel() * static_cast<std::int64_t>(item_size(v.dtype)); };
  // The batch: the leading dimension of the largest input.
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
  // Rows per slice: the most that keep a slice's share of the values near
  // slice_bytes, dividing the batch.
  auto rows = std::clamp<std::int64_t>(sizes.slice_bytes * batch / total, 1, batch / 2);
  while (batch % rows != 0) --rows;
  auto const slices = batch / rows;

  // The slice's program: inputs led by the batch split over a mesh axis of
  // `slices` parts, every other value whole.
  std::string const axis = "jit microbatch";
  ScopedAxis const bound(AxisData{slices, axis});
  std::vector<std::uint8_t> split(trace.inputs.size(), 0);
  std::vector<Layout> in_layouts;
  std::vector<Aval> parts;
  for (std::size_t i = 0; i < trace.inputs.size(); ++i) {
    auto const& v = *trace.inputs[i];
    auto layout = Layout::replicated(v.shape.size());
    auto shape = v.shape;
    if (!shape.empty() && shape[0] == batch) {
      split[i] = 1;
      layout.dims[0] = {axis};
      shape[0] = rows;
    }
    in_layouts.push_back(std::move(layout));
    parts.push_back({v.dtype, std::move(shape)});
  }
  Resharder const reshard = [](AnyArray const& x, Layout const& from, Layout const& to) -> AnyArray {
    if (from == to) return x;
    throw NotSliceable{};
  };
  std::vector<Output> outputs;
  std::int64_t whole_bytes = 0;  // what every slice computes again
  FlatFunction const slice = [&](std::vector<AnyArray> const& inputs) {
    struct Part {
      AnyArray value;
      Layout layout;
      bool partial;
    };
    std::vector<std::optional<Part>> env(trace.var_count());
    for (std::size_t i = 0; i < inputs.size(); ++i) env[trace.inputs[i]->id] = Part{inputs[i], in_layouts[i], false};
    for (auto const& c : trace.captures) env[c.var->id] = Part{c.value, Layout::replicated(c.var->shape.size()), false};
    for (auto const& eq : trace.equations) {
      std::vector<AnyArray> values;
      std::vector<Layout> layouts;
      for (auto const& v : eq.inputs) {
        auto const& part = *env[v->id];
        if (part.partial) throw NotSliceable{};  // a sum over the batch, read before the end
        values.push_back(part.value);
        layouts.push_back(part.layout);
      }
      auto r = partition_equation(eq, std::move(values), layouts, reshard);
      bool const partial = !r.partial_over.empty();
      if (partial && (r.partial_over != std::vector<std::string>{axis} || r.combine != PartialCombine::sum))
        throw NotSliceable{};
      for (std::size_t k = 0; k < eq.outputs.size(); ++k) {
        if (!partial && r.layouts[k].is_replicated()) whole_bytes += bytes_of(*eq.outputs[k]);
        env[eq.outputs[k]->id] = Part{r.values[k], r.layouts[k], partial};
      }
    }
    std::vector<AnyArray> results;
    for (auto const& o : program.outputs) {
      auto const& var = var_of(o);
      if (!var || var->trace_id != trace.id()) throw NotSliceable{};  // a constant output: not worth handling
      auto const& part = *env[var->id];
      auto const& dims = part.layout.dims;
      bool const leads = !dims.empty() && dims[0] == std::vector<std::string>{axis} &&
                         std::all_of(dims.begin() + 1, dims.end(), [](auto const& d) { return d.empty(); });
      if (part.partial) outputs.push_back(Output::summed);
      else if (part.layout.is_replicated()) outputs.push_back(Output::whole);
      else if (leads) outputs.push_back(Output::split);
      else throw NotSliceable{};
      results.push_back(part.value);
    }
    return results;
  };
  try {
    std::vector<AnyArray> closure;
    auto body = trace_program(slice, parts, closure);
    if (!closure.empty()) return std::nullopt;
    // Work every slice repeats (on the weights, say) must stay small.
    if (whole_bytes * slices > total / 4) return std::nullopt;
    for (auto const& eq : body.trace->equations)
      if (eq.primitive->binds_axis(axis)) return std::nullopt;
    optimize(body);
    return MicrobatchedPlanT(Plan(std::move(body), {}, Plan::Outputs::into_given), slices, std::move(split), std::move(outputs));
  } catch (NotSliceable const&) {
    return std::nullopt;
  } catch (Error const&) {
    return std::nullopt;  // a rule that cannot take the slice's shapes
  }
}

template <class V>
JAXCC_RUNTIME_INLINE void MicrobatchedPlanT<V>::run(std::span<AnyArray const> inputs, std::vector<AnyArray>& out) const {
  std::int64_t batch = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (split_inputs_[i]) batch = inputs[i].shape()[0];
  auto const rows = batch / slices_;
  auto const& slice_outputs = plan_.program().outputs;
  // Split outputs are written in place: each slice's rows of one array.
  std::vector<AnyArray> whole(outputs_.size());
  for (std::size_t o = 0; o < outputs_.size(); ++o)
    if (outputs_[o] == Output::split) {
      auto shape = slice_outputs[o].shape();
      shape[0] = batch;
      whole[o] = jaxcc::detail::allocate_any(slice_outputs[o].dtype(), shape).first;
    }
  std::vector<std::vector<AnyArray>> results(static_cast<std::size_t>(slices_));
  std::exception_ptr failure;
  auto const run_slice = [&](std::int64_t s) {
    std::vector<AnyArray> operands;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      operands.push_back(split_inputs_[i] ? leading_rows(inputs[i], s * rows, rows) : inputs[i]);
    std::vector<AnyArray> targets(outputs_.size());
    std::vector<AnyArray const*> into(outputs_.size(), nullptr);
    for (std::size_t o = 0; o < outputs_.size(); ++o)
      if (outputs_[o] == Output::split) {
        targets[o] = leading_rows(whole[o], s * rows, rows);
        into[o] = &targets[o];
      }
    auto& mine = results[static_cast<std::size_t>(s)];
    plan_.run(operands, mine, into);
    // A split output whose step could not write in place (not a fused run).
    for (std::size_t o = 0; o < outputs_.size(); ++o)
      if (outputs_[o] == Output::split && jaxcc::detail::data_of(mine[o]) != jaxcc::detail::data_of(targets[o]))
        copy_into(mine[o], targets[o]);
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
  for (std::size_t o = 0; o < outputs_.size(); ++o) {
    if (outputs_[o] == Output::split) out.push_back(std::move(whole[o]));
    else if (outputs_[o] == Output::whole) out.push_back(results[0][o]);
    else {
      out.push_back(sum_in_order(results, o));
    }
  }
}
JAXCC_RUNTIME_INSTANCE(class MicrobatchedPlanT<void>)
using MicrobatchedPlan = MicrobatchedPlanT<>;

}  // namespace jaxcc::graph
