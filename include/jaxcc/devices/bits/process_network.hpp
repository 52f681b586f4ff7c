// What sharded runs need of the other processes of a multi-process job:
// who this process is, and a way to move bytes between processes. The
// header-only core knows no transport; jaxcc/distributed.hpp installs one
// over MPI (distributed::initialize). Without one there is one process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "jaxcc/core/error.hpp"

namespace jaxcc::detail {

/// One message of an exchange: `bytes` bytes to or from process `process`.
/// Messages between two processes are matched in the order they are posted.
struct ProcessMessage {
  int process = 0;
  void* data = nullptr;
  std::size_t bytes = 0;
};

/// Which SPMD run a message belongs to: the processes taking part (a hash of
/// their indices) and how many runs over those processes came before. Every
/// process of a run counts the same, so a failure reported in one run is
/// never mistaken for one in the next.
struct SpmdRunId {
  std::uint64_t processes = 0;
  std::uint64_t generation = 0;
  friend bool operator==(SpmdRunId const&, SpmdRunId const&) = default;
};

class ProcessNetwork {
 public:
  virtual ~ProcessNetwork() = default;
  virtual int process_index() const = 0;
  virtual int process_count() const = 0;
  /// Post every send and receive at once and wait for all of them. Throws
  /// jaxcc::Error when another process reports a failure of this run, or
  /// when the wait passes the transport's timeout (a process that stopped
  /// answering).
  virtual void exchange(SpmdRunId run, std::span<ProcessMessage const> sends,
                        std::span<ProcessMessage const> receives) = 0;
  /// Tell the other processes of the run that this one failed in it, so
  /// that an exchange of the run waiting on it throws `message` instead.
  virtual void report_failure(SpmdRunId run, std::span<int const> processes, std::string const& message) noexcept = 0;
};

struct ProcessNetworkSlot {
  ProcessNetwork* network = nullptr;
  /// Set once devices() has been read: the device list is fixed from then on.
  bool devices_read = false;
};
inline ProcessNetworkSlot& process_network_slot() {
  static ProcessNetworkSlot slot;
  return slot;
}
/// The installed transport, or null in a single-process program.
inline ProcessNetwork* process_network() { return process_network_slot().network; }

/// Install (or, with null, remove) the transport; before devices() is first read.
inline void install_process_network(ProcessNetwork* network) {
  auto& slot = process_network_slot();
  if (network && slot.devices_read)
    throw Error("jaxcc::distributed::initialize() must be called before any jaxcc calls that might enumerate the "
                "devices. This includes any computation, but also calls to jaxcc::devices, jaxcc::device_put, and "
                "others.");
  slot.network = network;
}

}  // namespace jaxcc::detail
