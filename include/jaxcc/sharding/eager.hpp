// Eager operations on sharded arrays run partitioned, as JAX's do: an op
// applied outside any transform to operands laid out on a mesh is a
// sharded jit of that one op. Its program is partitioned by the op's rule
// (sharding/partition.hpp), every device computes its own part on its own
// threads, and the result is laid out as the rule says (x * 2 of a split x
// stays split; a sum over the split axis is replicated). The executables
// are cached by op, operand types and layouts, as jit caches them.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/devices/bits/device_threads.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/primitives/bits/install_value_ops.hpp"
#include "jaxcc/sharding/bits/spmd_ops.hpp"
#include "jaxcc/sharding/partition.hpp"

namespace jaxcc::detail {

/// The partitioned executables of eager ops seen so far, the latest
/// `capacity` of them. An op is found again only if its primitive can tell
/// that it has the same parameters (PrimitiveBase::same_as).
class EagerShardedCache {
 public:
  static EagerShardedCache& instance() {
    static EagerShardedCache cache;
    return cache;
  }

  std::shared_ptr<graph::PrimitiveBase const> find(graph::PrimitiveBase const& primitive,
                                                   std::span<AnyArray const> operands) const {
    std::lock_guard lock(mutex_);
    for (auto const& e : entries_)
      if (e.primitive->same_as(primitive) && matches(e, operands)) return e.call;
    return nullptr;
  }
  void insert(std::shared_ptr<graph::PrimitiveBase const> primitive, std::span<AnyArray const> operands,
              std::shared_ptr<graph::PrimitiveBase const> call) {
    Entry e{std::move(primitive), {}, {}, std::move(call)};
    for (auto const& x : operands) {
      e.avals.push_back(graph::aval_of(x));
      e.shardings.push_back(sharding_of(x));
    }
    std::lock_guard lock(mutex_);
    if (entries_.size() == capacity) entries_.pop_front();
    entries_.push_back(std::move(e));
  }

 private:
  static constexpr std::size_t capacity = 64;
  struct Entry {
    std::shared_ptr<graph::PrimitiveBase const> primitive;
    std::vector<graph::Aval> avals;
    std::vector<std::shared_ptr<NamedSharding const>> shardings;
    std::shared_ptr<graph::PrimitiveBase const> call;
  };
  static std::shared_ptr<NamedSharding const> sharding_of(AnyArray const& x) {
    return impl_of(x).sharding;
  }
  static bool matches(Entry const& e, std::span<AnyArray const> operands) {
    if (e.avals.size() != operands.size()) return false;
    for (std::size_t i = 0; i < operands.size(); ++i) {
      auto const s = sharding_of(operands[i]);
      if (operands[i].dtype() != e.avals[i].dtype || !(operands[i].shape() == e.avals[i].shape) ||
          static_cast<bool>(s) != static_cast<bool>(e.shardings[i]) || (s && !(*s == *e.shardings[i])))
        return false;
    }
    return true;
  }

  mutable std::mutex mutex_;
  std::deque<Entry> entries_;
};

/// graph::ShardedApply: `primitive` on `operands` as a sharded jit of it.
/// Inside a device's part of a sharded run (values there are parts, and a
/// device cannot start another run) it declines, and the kernel runs.
template <class = void>
std::optional<AnyArray> apply_partitioned(std::shared_ptr<graph::PrimitiveBase const> const& primitive,
                                          std::span<AnyArray const> operands) {
  if (on_device_thread()) return std::nullopt;
  auto& cache = EagerShardedCache::instance();
  auto call = cache.find(*primitive, operands);
  if (!call) {
    std::vector<AnyArray> inputs(operands.begin(), operands.end());
    auto const mesh = mesh_of(inputs, std::nullopt);  // JAX's error for operands on different meshes
    if (!mesh) return std::nullopt;
    std::vector<graph::Aval> avals;
    for (auto const& x : operands) avals.push_back(graph::aval_of(x));
    std::vector<AnyArray> closure;
    auto const program = graph::trace_program(
        [&](std::vector<AnyArray> const& in) { return primitive->evaluate(in); }, avals, closure);
    call = partitioned_call(program, *mesh, inputs, std::nullopt);
    cache.insert(primitive, operands, call);
  }
  return call->evaluate(operands).front();
}

/// Installed by device_put, shard_map and pmap, jit's out_shardings and
/// with_sharding_constraint (declared in sharding/bits/spmd_ops.hpp).
template <class>
void install_mesh_operations() {
  graph::install_value_ops<SpmdOps>();
  graph::sharded_apply().store(&apply_partitioned<>, std::memory_order_release);
  partitioned_call_hook().store(&partitioned_call<>, std::memory_order_release);
}

}  // namespace jaxcc::detail
