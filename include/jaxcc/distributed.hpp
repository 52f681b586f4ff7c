// Several processes, one global set of devices (jax.distributed): MPI
// carries what the processes' sharded runs exchange. Link jaxcc::distributed
// (find_package(jaxcc CONFIG REQUIRED COMPONENTS distributed)), which links
// MPI; the rest of jaxcc stays free of it.
//
//   int main(int argc, char** argv) {
//     jaxcc::distributed::initialize(argc, argv);  // before any other jaxcc call
//     auto mesh = jaxcc::make_mesh({jaxcc::device_count()}, {"data"});  // every process's devices
//     ...
//     jaxcc::distributed::shutdown();
//   }
//
// Run it with `mpirun -np N`; each process has JAXCC_NUM_DEVICES devices.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <mpi.h>

#include "jaxcc/core/error.hpp"
#include "jaxcc/devices/bits/process_network.hpp"
#include "jaxcc/devices/device.hpp"
#include "jaxcc/multihost/process_arrays.hpp"

namespace jaxcc::distributed {

namespace detail {

/// jaxcc::detail::ProcessNetwork over an MPI communicator of its own. One
/// thread of a process exchanges at a time (a run's leader); a device that
/// fails may report it from another, so every MPI call holds the mutex.
class MpiNetwork final : public jaxcc::detail::ProcessNetwork {
 public:
  MpiNetwork(MPI_Comm world, std::chrono::milliseconds timeout) : timeout_(timeout) {
    MPI_Comm_dup(world, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiNetwork() override { close(); }
  MpiNetwork(MpiNetwork const&) = delete;
  MpiNetwork& operator=(MpiNetwork const&) = delete;

  int process_index() const override { return rank_; }
  int process_count() const override { return size_; }

  void exchange(jaxcc::detail::SpmdRunId run, std::span<jaxcc::detail::ProcessMessage const> sends,
                std::span<jaxcc::detail::ProcessMessage const> receives) override {
    std::vector<MPI_Request> requests;
    {
      std::lock_guard lock(mutex_);
      if (closed_) throw Error("a collective across processes after jaxcc::distributed::shutdown()");
      for (auto const& r : receives)
        for_each_chunk(r, [&](void* data, int bytes) {
          check(MPI_Irecv(data, bytes, MPI_BYTE, r.process, data_tag, comm_, &requests.emplace_back()), "MPI_Irecv");
        });
      for (auto const& s : sends)
        for_each_chunk(s, [&](void* data, int bytes) {
          check(MPI_Isend(data, bytes, MPI_BYTE, s.process, data_tag, comm_, &requests.emplace_back()), "MPI_Isend");
        });
    }
    auto const start = std::chrono::steady_clock::now();
    auto const deadline = start + timeout_;
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        int done = 0;
        if (MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
          abandon(requests, "MPI_Testall failed");
        if (done) return;
        try {
          throw_if_reported(run);
        } catch (...) {
          abandon(requests);
          throw;
        }
      }
      auto const now = std::chrono::steady_clock::now();
      if (now > deadline) {
        {
          std::lock_guard lock(mutex_);
          abandon(requests);
        }
        std::set<int> waited_for;
        for (auto const& r : receives) waited_for.insert(r.process);
        std::string peers;
        for (int p : waited_for) peers += (peers.empty() ? "" : ", ") + std::to_string(p);
        throw Error("a collective across processes waited more than " + std::to_string(timeout_.count()) +
                    " ms for process(es) " + (peers.empty() ? std::string("receiving from this one") : peers) +
                    " (process " + std::to_string(rank_) +
                    "): a process stopped, or the processes are not running the same program");
      }
      // A collective's partners are usually close behind: poll, yielding
      // the core to any thread that is ready, for a few milliseconds, then
      // poll less often.
      if (now - start < std::chrono::milliseconds(5)) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void report_failure(jaxcc::detail::SpmdRunId run, std::span<int const> processes,
                      std::string const& message) noexcept override {
    try {  // best effort: a failure to allocate the report leaves the others to time out
      auto text = std::make_unique<std::string>(sizeof run, '\0');
      std::memcpy(text->data(), &run, sizeof run);
      *text += message;
      std::lock_guard lock(mutex_);
      if (closed_) return;
      // Not waited for: the others take it when they next wait on this
      // process. The text stays alive until the communicator closes.
      for (int p : processes)
        if (p != rank_)
          MPI_Isend(text->data(), static_cast<int>(text->size()), MPI_CHAR, p, failure_tag, comm_,
                    &report_sends_.emplace_back());
      report_texts_.push_back(std::move(text));
    } catch (...) {
    }
  }

  /// Every process waits for the others, then the communicator is freed.
  void close() noexcept {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
    MPI_Barrier(comm_);
    abandon(report_sends_);  // reports no process took: it ended without waiting on this one
    MPI_Comm_free(&comm_);
  }

 private:
  static constexpr int data_tag = 1, failure_tag = 2;
  static constexpr std::size_t max_chunk = std::size_t{1} << 30;  // an MPI count is an int

  /// Cancel what is still pending, so that MPI writes into no buffer after
  /// the exchange gave up on it; with `failure`, then throw it.
  static void abandon(std::vector<MPI_Request>& requests, char const* failure = nullptr) {
    for (auto& r : requests)
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
      }
    if (failure) throw Error(std::string("a collective across processes: ") + failure);
  }

  template <class Post>
  static void for_each_chunk(jaxcc::detail::ProcessMessage const& m, Post&& post) {
    auto* data = static_cast<char*>(m.data);
    std::size_t offset = 0;
    do {
      auto const n = std::min(max_chunk, m.bytes - offset);
      post(data + offset, static_cast<int>(n));
      offset += n;
    } while (offset < m.bytes);
  }

  static void check(int code, char const* call) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw Error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
  }

  /// Receive the failure reports that have arrived; throw the one of `run`.
  /// Reports of earlier runs over the same processes are stale (a process
  /// that failed there already surfaced it); later ones wait for their run.
  void throw_if_reported(jaxcc::detail::SpmdRunId run) {
    for (;;) {
      int arrived = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, failure_tag, comm_, &arrived, &status);
      if (!arrived) break;
      int length = 0;
      MPI_Get_count(&status, MPI_CHAR, &length);
      std::string text(static_cast<std::size_t>(length), '\0');
      MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, failure_tag, comm_, MPI_STATUS_IGNORE);
      if (text.size() < sizeof(jaxcc::detail::SpmdRunId)) continue;
      Report report;
      std::memcpy(&report.run, text.data(), sizeof report.run);
      report.message = text.substr(sizeof report.run);
      reports_.push_back(std::move(report));
    }
    std::erase_if(reports_, [&](Report const& r) {
      return r.run.processes == run.processes && r.run.generation < run.generation;
    });
    for (auto const& r : reports_)
      if (r.run == run) {
        auto message = r.message;
        std::erase_if(reports_, [&](Report const& other) { return other.run == run; });
        throw Error(message);
      }
  }

  struct Report {
    jaxcc::detail::SpmdRunId run;
    std::string message;
  };

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  bool closed_ = false;
  std::vector<Report> reports_;
  std::vector<MPI_Request> report_sends_;
  std::vector<std::unique_ptr<std::string>> report_texts_;
};

struct State {
  std::unique_ptr<MpiNetwork> network;
  bool finalize_mpi = false;  // MPI was initialized here, so it is finalized here
};
inline State& state() {
  static State s;
  return s;
}

}  // namespace detail

/// jax.distributed.shutdown: wait for every process, then leave the job
/// (finalizing MPI if initialize started it). Called at exit if the program
/// did not.
inline void shutdown() {
  auto& s = detail::state();
  if (!s.network) return;
  s.network->close();
  if (s.finalize_mpi) {
    MPI_Finalize();
    s.finalize_mpi = false;
  }
}

/// jax.distributed.initialize: join the job `mpirun` started. Call it first,
/// before anything enumerates devices, in every process. `timeout` bounds
/// how long a collective waits for another process before it throws (a
/// process that died or runs another program). Initializes MPI unless the
/// program already did.
inline void initialize(int& argc, char** argv, std::chrono::milliseconds timeout = std::chrono::minutes(5)) {
  auto& s = detail::state();
  if (s.network) throw Error("jaxcc::distributed::initialize should only be called once.");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    s.finalize_mpi = true;
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      s.finalize_mpi = false;
      throw Error("jaxcc::distributed::initialize: the MPI library does not support calls from several threads "
                  "(MPI_THREAD_SERIALIZED), which the devices' threads need");
    }
  }
  auto network = std::make_unique<detail::MpiNetwork>(MPI_COMM_WORLD, timeout);
  // Every process must have as many devices as the others: a device's id
  // says which process runs it.
  int const mine = jaxcc::detail::configured_device_count();
  std::vector<int> counts(static_cast<std::size_t>(network->process_count()));
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (std::size_t p = 0; p < counts.size(); ++p)
    if (counts[p] != mine)
      throw Error("jaxcc::distributed::initialize: every process must have the same number of devices "
                  "(JAXCC_NUM_DEVICES), but process " +
                  std::to_string(network->process_index()) + " has " + std::to_string(mine) + " and process " +
                  std::to_string(p) + " has " + std::to_string(counts[p]));
  jaxcc::detail::install_process_network(network.get());
  s.network = std::move(network);
  std::atexit(shutdown);  // a program that returns without shutdown() still leaves the job cleanly
}

}  // namespace jaxcc::distributed
