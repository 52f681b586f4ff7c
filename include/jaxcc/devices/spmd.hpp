// Running one program on every device of a mesh at once (SPMD), as
// shard_map does: each device's thread knows its place in the mesh, and the
// collectives (psum, all_gather, ppermute, ...) meet through a shared
// exchange. A collective is two barriers around a read: each device posts
// its operand, waits until all have, computes its own result from the
// operands of its group (the devices that differ from it only along the
// collective's mesh axis), and waits again so that nobody reposts before
// everybody has read. Every device runs the same program, so all reach the
// same collectives in the same order.
//
// A mesh may span several processes (jaxcc/distributed.hpp). Each process
// then runs its own devices of it, with an exchange of its own; a
// collective whose group has members in other processes gets their
// operands between its barriers: the process's first device of the mesh
// sends its devices' operands to, and receives the others' from, every
// process of each such group (detail::ProcessNetwork), and then every device
// computes its result as it would in one process, from all the group's
// operands in axis order. So the results are the single-process ones, bit
// for bit.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/var.hpp"
#include "jaxcc/devices/bits/device_threads.hpp"
#include "jaxcc/devices/bits/process_network.hpp"
#include "jaxcc/devices/mesh.hpp"
#include "jaxcc/graph/batch.hpp"

namespace jaxcc::detail {

/// Thrown at a barrier in the devices that wait for one that failed; the
/// failing device's own error is the one reported.
struct SpmdAborted {};

/// What the devices of one SPMD run, in this process, share.
class SpmdExchange {
 public:
  /// `spin`: whether waiting devices may spin a little before sleeping
  /// (when each has a core of its own, a wake-up costs more than the wait).
  SpmdExchange(Mesh const& mesh, bool spin)
      : slots(static_cast<std::size_t>(mesh.size())),
        shared(slots.size()),
        shared_data(slots.size()),
        count_(slots.size()),
        spin_(spin) {
    if (process_count() == 1) return;
    count_ = static_cast<std::size_t>(std::count_if(mesh.devices().begin(), mesh.devices().end(), is_local));
    std::set<int> processes;
    for (auto const& d : mesh.devices()) processes.insert(d.process_index);
    processes_.assign(processes.begin(), processes.end());
    for (std::size_t p = 0; p < slots.size(); ++p)
      if (is_local(mesh.devices()[p])) {
        leader_ = p;
        break;
      }
    if (processes_.size() > 1) run_ = next_run(processes_);
  }

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

  /// Whether some devices of the run are other processes'.
  bool spans_processes() const noexcept { return processes_.size() > 1; }
  /// The position of this process's first device in the mesh: the one that
  /// talks to the other processes.
  std::size_t leader() const noexcept { return leader_; }
  SpmdRunId run() const noexcept { return run_; }
  /// Tell the run's other processes that a device here failed with `error`.
  void report_failure(std::exception_ptr const& error) const noexcept {
    auto* network = process_network();
    if (!spans_processes() || !network) return;
    try {  // the report is best effort: a failure to allocate it loses only the detail
      std::string message = "a device of process " + std::to_string(network->process_index()) + " failed";
      try {
        std::rethrow_exception(error);
      } catch (std::exception const& e) {
        message += ": " + std::string(e.what());
      } catch (...) {
      }
      network->report_failure(run_, processes_, message);
    } catch (...) {
    }
  }

  /// One slot per device (by mesh position), written only by its device
  /// between barriers.
  std::vector<AnyArray> slots;
  /// A result a group shares, posted by the group's first device, and
  /// where its elements are written.
  std::vector<AnyArray> shared;
  std::vector<void*> shared_data;

 private:
  /// The id of the next run over `processes` (counted per set of processes:
  /// every process of a run has run the same ones over that set before).
  static SpmdRunId next_run(std::vector<int> const& processes) {
    std::uint64_t hash = 1469598103934665603ull;  // FNV-1a
    for (int p : processes) hash = (hash ^ static_cast<std::uint64_t>(p)) * 1099511628211ull;
    static std::mutex mutex;
    static std::map<std::uint64_t, std::uint64_t> runs;
    std::lock_guard lock(mutex);
    return {hash, runs[hash]++};
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::size_t count_;
  bool spin_;
  std::size_t arrived_ = 0;
  std::atomic<std::size_t> generation_{0};
  bool aborted_ = false;
  std::vector<int> processes_;
  std::size_t leader_ = 0;
  SpmdRunId run_{};
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
  SpmdExchange exchange(mesh, devices_have_own_cores());
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
      exchange.report_failure(std::current_exception());
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
inline SpmdGroup spmd_group(Mesh const& mesh, std::size_t position, std::string_view axis_name) {
  auto const axis = mesh.axis_position(axis_name);
  auto coords = mesh.coordinates(static_cast<std::int64_t>(position));
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
inline SpmdGroup spmd_group(SpmdContext const& context, std::string_view axis_name) {
  return spmd_group(*context.mesh, context.position, axis_name);
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

/// Called by the leader of a run that spans processes, between barriers,
/// after every device here posted its operand of shape `shape` in its
/// slot: the operands of the other processes' members of every group over
/// `axis_name` that has members here are received into their slots, and
/// this process's are sent. Every process first checks the others run the
/// same collective on the same shapes (their signatures), then moves data.
template <Element T>
void exchange_remote_operands(SpmdContext const& context, std::string_view collective, std::string_view axis_name,
                              Shape const& shape) {
  auto& exchange = *context.exchange;
  auto& network = *process_network();
  auto const& mesh = *context.mesh;
  auto const& devices = mesh.devices();
  // The groups with a member here, by their first member: every process
  // meets the groups it shares with another in the same order.
  std::map<std::size_t, SpmdGroup> groups;
  for (std::size_t p = 0; p < devices.size(); ++p)
    if (is_local(devices[p])) {
      auto group = spmd_group(mesh, p, axis_name);
      groups.try_emplace(group.members.front(), std::move(group));
    }
  using Signature = std::array<char, 256>;
  auto signature_of = [](std::string const& text) {
    Signature s{};
    text.copy(s.data(), s.size() - 1);
    return s;
  };
  Signature const mine = signature_of(std::string(collective) + " over axis '" + std::string(axis_name) + "' of " +
                                      graph::type_string(dtype_of<T>, shape));
  auto const bytes = static_cast<std::size_t>(shape.numel()) * sizeof(T);
  std::vector<ProcessMessage> signature_sends, signature_receives, sends, receives;
  std::vector<Signature> theirs;
  std::vector<int> from;
  std::vector<std::size_t> received_members;
  for (auto const& [first, group] : groups) {
    std::set<int> processes;
    for (auto m : group.members) processes.insert(devices[m].process_index);
    for (auto m : group.members) {
      int const owner = devices[m].process_index;
      if (owner == network.process_index()) {
        void* data = const_cast<T*>(exchange.slots[m].template as<T>().data());
        for (int q : processes)
          if (q != owner) {
            signature_sends.push_back({q, const_cast<char*>(mine.data()), mine.size()});
            sends.push_back({q, data, bytes});
          }
      } else {
        from.push_back(owner);
        received_members.push_back(m);
      }
    }
  }
  theirs.resize(from.size());
  for (std::size_t k = 0; k < from.size(); ++k) signature_receives.push_back({from[k], theirs[k].data(), Signature{}.size()});
  network.exchange(exchange.run(), signature_sends, signature_receives);
  for (std::size_t k = 0; k < from.size(); ++k)
    if (theirs[k] != mine)
      throw Error("process " + std::to_string(from[k]) + " ran " + std::string(theirs[k].data()) + " where process " +
                  std::to_string(network.process_index()) + " ran " + std::string(mine.data()) +
                  ": every process must run the same program on arrays of the same shapes");
  for (std::size_t k = 0; k < from.size(); ++k) {
    auto [array, data] = allocate<T>(shape);
    receives.push_back({from[k], data, bytes});
    exchange.slots[received_members[k]] = AnyArray(std::move(array));
  }
  network.exchange(exchange.run(), sends, receives);
}

/// Between the posting barrier and the reads: where the run spans
/// processes, the leader brings in the other processes' operands while the
/// rest wait.
template <Element T>
void bring_remote_operands(SpmdContext const& context, std::string_view collective, std::string_view axis_name,
                           Shape const& shape) {
  auto& exchange = *context.exchange;
  if (!exchange.spans_processes()) return;
  if (context.position == exchange.leader()) exchange_remote_operands<T>(context, collective, axis_name, shape);
  exchange.barrier();
}

/// A collective: every device posts `x`; combine(group operands in axis
/// order, this device's index among them) gives this device's result.
template <Element T, class Combine>
Array<T> exchange_over(std::string_view collective, std::string_view axis_name, Array<T> const& x,
                       Combine&& combine) {
  auto const& context = spmd_for(collective, axis_name);
  auto const group = spmd_group(context, axis_name);
  auto& exchange = *context.exchange;
  exchange.slots[context.position] = AnyArray(exchange.spans_processes() ? contiguous(x) : x);
  exchange.barrier();
  bring_remote_operands<T>(context, collective, axis_name, x.shape());
  std::vector<Array<T>> operands;
  for (auto m : group.members) operands.push_back(exchange.slots[m].template as<T>());
  Array<T> result = combine(std::span<Array<T> const>(operands), group.me);
  exchange.barrier();
  return result;
}

/// An all-reduce: the elementwise combination by `op` of the operands of
/// every device of the group, in axis order. The result is the same for the
/// whole group, so the group's devices in this process make one: each
/// combines its share of the elements into a buffer the first of them
/// allocated, and all return it.
template <Element T, class Op>
Array<T> all_reduce_over(std::string_view collective, std::string_view axis_name, Array<T> const& x, Op op) {
  auto const& context = spmd_for(collective, axis_name);
  auto const group = spmd_group(context, axis_name);
  auto& exchange = *context.exchange;
  std::vector<std::size_t> here;  // the group's members in this process
  for (auto m : group.members)
    if (is_local(context.mesh->devices()[m])) here.push_back(m);
  auto const me = static_cast<std::int64_t>(std::find(here.begin(), here.end(), context.position) - here.begin());
  exchange.slots[context.position] = AnyArray(contiguous(x));
  if (me == 0) {
    auto [out, data] = allocate<T>(x.shape());
    exchange.shared[context.position] = AnyArray(std::move(out));
    exchange.shared_data[context.position] = data;
  }
  exchange.barrier();
  bring_remote_operands<T>(context, collective, axis_name, x.shape());
  auto result = exchange.shared[here.front()].template as<T>();
  T* const out = static_cast<T*>(exchange.shared_data[here.front()]);
  auto const n = x.size(), parts = static_cast<std::int64_t>(here.size());
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
