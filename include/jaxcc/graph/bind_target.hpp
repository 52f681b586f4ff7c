// The one bind path. Every primitive application, whatever binds it (a
// primitive's typed bind, a collective, a fused program, a call primitive
// such as cond or a closed call), goes where its BindTarget says, through
// bind_to: recorded in the innermost trace among its operands; else, when
// an operand is laid out on a mesh, run partitioned over the mesh's devices;
// else run by its kernel.
#pragma once

#include <concepts>
#include <span>
#include <type_traits>
#include <utility>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/graph/trace.hpp"

namespace jaxcc::graph {

/// Where an application goes: the innermost trace among the operands seen,
/// and whether one of them is laid out on a mesh. Costs no allocation.
class BindTarget {
 public:
  BindTarget() = default;
  /// An application recorded in `trace` when it is not null, whatever its
  /// operands (a collective records in the trace that binds its axis).
  explicit BindTarget(Trace* trace) : trace_(trace) {}

  void see(detail::ArrayImpl const& operand) {
    innermost_.see(operand.var);
    sharded_ = sharded_ || operand.sharding != nullptr;
  }
  Trace* trace() const noexcept { return trace_ ? trace_ : innermost_.get(); }
  bool sharded() const noexcept { return sharded_; }

 private:
  Trace* trace_ = nullptr;
  InnermostTrace innermost_;
  bool sharded_ = false;
};

inline BindTarget target_of_arrays(std::span<AnyArray const> operands) {
  BindTarget target;
  for (auto const& operand : operands) target.see(detail::ArrayAccess::impl(operand));
  return target;
}

/// The `partition` of an application that is never partitioned whole (a
/// collective runs on one device's part; a call primitive's equations are
/// each bound themselves).
struct NoPartition {};
inline constexpr NoPartition no_partition{};

/// `record(trace)` where the target has a trace; else, with an operand on a
/// mesh, `partition()` unless it gives nothing (no partitioner applies);
/// else `run()`.
template <class Record, class Partition, class Run>
auto bind_to(BindTarget const& target, Record&& record, Partition&& partition, Run&& run) -> decltype(run()) {
  if (auto* trace = target.trace()) return std::forward<Record>(record)(*trace);
  if constexpr (!std::same_as<std::remove_cvref_t<Partition>, NoPartition>)
    if (target.sharded()) [[unlikely]]
      if (auto out = std::forward<Partition>(partition)()) return *std::move(out);
  return std::forward<Run>(run)();
}

}  // namespace jaxcc::graph
