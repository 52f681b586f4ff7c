// Running one program on every device of a mesh at once (SPMD), as
// shard_map does: each device's thread knows its place in the mesh, and the
// collectives (psum, all_gather, ppermute, ...) meet through a shared
// exchange. A collective is two barriers around a read: each device posts
// its operand, waits until all have, computes its own result from the
// operands of its group (the devices that differ from it only along the
// collective's mesh axis), and waits again so that nobody reposts before
// everybody has read. Every device runs the same program, so all reach the
// same collectives in the same order.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/graph/batch.hpp"
#include "jaxcc/sharding/bits/device_threads.hpp"
#include "jaxcc/sharding/mesh.hpp"

namespace jaxcc::detail {

/// Thrown at a barrier in the devices that wait for one that failed; the
/// failing device's own error is the one reported.
struct SpmdAborted {};

/// What the devices of one SPMD run share.
class SpmdExchange {
 public:
  /// `spin`: whether waiting devices may spin a little before sleeping
  /// (when each has a core of its own, a wake-up costs more than the wait).
  SpmdExchange(std::size_t devices, bool spin)
      : slots(devices), shared(devices), shared_data(devices), count_(devices), spin_(spin) {}

  /// Wait for every device; throws SpmdAborted if one has failed.
  void barrier() {
    std::size_t generation = 0;
    {
      std::lock_guard lock(mutex_);
      if (aborted_) throw SpmdAborted{};
      generation = generation_.load(std::memory_order_relaxed);
      if (++arrived_ == count_) {
        arrived_ = 0;
        generation_.store(generation + 1, std::memory_order_release);
        cv_.notify_all();
        return;
      }
    }
    if (spin_)
      for (int i = 0; i < 20000; ++i)
        if (generation_.load(std::memory_order_acquire) != generation) return;
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != generation || aborted_; });
    if (generation_.load(std::memory_order_relaxed) == generation) throw SpmdAborted{};
  }
  /// Release every waiting device: one has failed.
  void abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    cv_.notify_all();
  }

  /// One slot per device (by mesh position), written only by its device
  /// between barriers.
  std::vector<AnyArray> slots;
  /// A result a group shares, posted by the group's first device, and
  /// where its elements are written.
  std::vector<AnyArray> shared;
  std::vector<void*> shared_data;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::size_t count_;
  bool spin_;
  std::size_t arrived_ = 0;
  std::atomic<std::size_t> generation_{0};
  bool aborted_ = false;
};

/// The device a thread is running, during an SPMD run.
struct SpmdContext {
  Mesh const* mesh = nullptr;
  std::size_t position = 0;  // row-major place in the mesh
  SpmdExchange* exchange = nullptr;
};
inline SpmdContext const*& current_spmd() {
  thread_local SpmdContext const* context = nullptr;
  return context;
}

/// Binds every axis of `mesh` for the collectives traced in its lifetime.
class ScopedMeshAxes {
 public:
  explicit ScopedMeshAxes(Mesh const& mesh) {
    for (std::size_t a = 0; a < mesh.axis_names().size(); ++a)
      axes_.push_back(std::make_unique<graph::ScopedAxis>(graph::AxisData{mesh.device_shape()[a], mesh.axis_names()[a]}));
  }

 private:
  std::vector<std::unique_ptr<graph::ScopedAxis>> axes_;
};

/// Run body(position) on every device of `mesh`, each with its SpmdContext
/// and the mesh axes bound (for the collectives' shape rules).
inline void run_spmd(Mesh const& mesh, std::function<void(std::size_t)> const& body) {
  SpmdExchange exchange(static_cast<std::size_t>(mesh.size()), devices_have_own_cores());
  run_on_devices(mesh.devices(), [&](std::size_t position) {
    SpmdContext const context{&mesh, position, &exchange};
    current_spmd() = &context;
    ScopedMeshAxes axes(mesh);
    try {
      body(position);
    } catch (SpmdAborted const&) {
      // Another device failed first; its error is the one that surfaces.
    } catch (...) {
      exchange.abort();
      current_spmd() = nullptr;
      throw;
    }
    current_spmd() = nullptr;
  });
}

/// The devices that differ from this one only along `axis_name`, by their
/// coordinate along it, and this device's place among them.
struct SpmdGroup {
  std::vector<std::size_t> members;
  std::size_t me = 0;
};
inline SpmdGroup spmd_group(SpmdContext const& context, std::string_view axis_name) {
  auto const& mesh = *context.mesh;
  auto const axis = mesh.axis_position(axis_name);
  auto coords = mesh.coordinates(static_cast<std::int64_t>(context.position));
  SpmdGroup group;
  group.me = static_cast<std::size_t>(coords[axis]);
  for (std::int64_t k = 0; k < mesh.device_shape()[axis]; ++k) {
    coords[axis] = k;
    std::int64_t flat = 0;
    for (std::size_t a = 0; a < coords.size(); ++a) flat = flat * mesh.device_shape()[a] + coords[a];
    group.members.push_back(static_cast<std::size_t>(flat));
  }
  return group;
}

/// The running device's context for a collective over `axis_name`; the
/// error JAX gives when no shard_map binds it on this thread.
inline SpmdContext const& spmd_for(std::string_view collective, std::string_view axis_name) {
  auto const* context = current_spmd();
  if (!context || !context->mesh->has_axis(axis_name)) {
    graph::find_axis(axis_name);  // unbound: JAX's NameError
    throw Error(std::string(collective) + " over axis '" + std::string(axis_name) +
                "' can only be evaluated inside the transform that binds it");
  }
  return *context;
}

/// A collective: every device posts `x`; combine(group operands in axis
/// order, this device's index among them) gives this device's result.
template <Element T, class Combine>
Array<T> exchange_over(std::string_view collective, std::string_view axis_name, Array<T> const& x,
                       Combine&& combine) {
  auto const& context = spmd_for(collective, axis_name);
  auto const group = spmd_group(context, axis_name);
  auto& exchange = *context.exchange;
  exchange.slots[context.position] = AnyArray(x);
  exchange.barrier();
  std::vector<Array<T>> operands;
  for (auto m : group.members) operands.push_back(exchange.slots[m].template as<T>());
  Array<T> result = combine(std::span<Array<T> const>(operands), group.me);
  exchange.barrier();
  return result;
}

/// An all-reduce: the elementwise combination by `op` of the operands of
/// every device of the group. The result is the same for the whole group,
/// so the group makes one: each device combines its share of the elements
/// into a buffer the group's first device allocated, and all return it.
template <Element T, class Op>
Array<T> all_reduce_over(std::string_view collective, std::string_view axis_name, Array<T> const& x, Op op) {
  auto const& context = spmd_for(collective, axis_name);
  auto const group = spmd_group(context, axis_name);
  auto& exchange = *context.exchange;
  exchange.slots[context.position] = AnyArray(contiguous(x));
  if (group.me == 0) {
    auto [out, data] = allocate<T>(x.shape());
    exchange.shared[context.position] = AnyArray(std::move(out));
    exchange.shared_data[context.position] = data;
  }
  exchange.barrier();
  auto const leader = group.members[0];
  auto result = exchange.shared[leader].template as<T>();
  T* const out = static_cast<T*>(exchange.shared_data[leader]);
  auto const n = x.size(), parts = static_cast<std::int64_t>(group.members.size());
  auto const me = static_cast<std::int64_t>(group.me);
  auto const begin = n * me / parts, end = n * (me + 1) / parts;
  T const* first = exchange.slots[group.members[0]].template as<T>().data();
  std::copy(first + begin, first + end, out + begin);
  for (std::size_t k = 1; k < group.members.size(); ++k) {
    T const* in = exchange.slots[group.members[k]].template as<T>().data();
    for (auto i = begin; i < end; ++i) out[i] = op(out[i], in[i]);
  }
  exchange.barrier();
  return result;
}

}  // namespace jaxcc::detail
