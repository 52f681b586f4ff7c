// The threads behind the virtual devices. Each device is one long-lived
// worker thread, the master of its own OpenMP team of
// JAXCC_THREADS_PER_DEVICE threads (the kernels' `omp parallel` regions run
// on that team), pinned to its share of the cores when there are enough of
// them. The same worker always runs the same device, so a device's buffers
// are first touched, and stay warm, on its cores. A process has workers for
// its own devices only (local_devices()).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <omp.h>
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include "jaxcc/core/error.hpp"
#include "jaxcc/devices/device.hpp"

namespace jaxcc::detail {

/// JAXCC_THREADS_PER_DEVICE if set, else the cores shared out evenly among
/// the process's devices (at least one each).
inline int threads_per_device() {
  static int const count = positive_int_from_env("JAXCC_THREADS_PER_DEVICE")
                               .value_or(std::max(1, omp_get_num_procs() / local_device_count()));
  return count;
}

/// Whether every device's team has cores of its own (then they are pinned).
inline bool devices_have_own_cores() {
  static bool const own = local_device_count() * threads_per_device() <= omp_get_num_procs();
  return own;
}

/// Whether the calling thread is a device's worker.
inline bool& on_device_thread() {
  thread_local bool flag = false;
  return flag;
}

class DeviceThreads {
 public:
  static DeviceThreads& instance() {
    static DeviceThreads threads(local_device_count());
    return threads;
  }
  DeviceThreads(DeviceThreads const&) = delete;
  DeviceThreads& operator=(DeviceThreads const&) = delete;
  ~DeviceThreads() {
    for (auto& w : workers_) {
      {
        std::lock_guard lock(w->mutex);
        w->stopping = true;
      }
      w->wake.notify_one();
    }
    for (auto& w : workers_) w->thread.join();
  }

  /// Run task(i) on the worker of devices[i] for every i whose device is
  /// this process's, all at once, and wait for them; the first exception a
  /// task threw is rethrown here.
  void run(std::span<Device const> devices, std::function<void(std::size_t)> const& task) {
    if (on_device_thread())
      throw Error("a sharded computation cannot start another one from inside a device's part of it (nested "
                  "shard_map or sharded jit)");
    // Shared with the workers: the last one may still be notifying when
    // this call, having seen the count reach zero, returns.
    auto const local = static_cast<std::size_t>(std::count_if(devices.begin(), devices.end(), is_local));
    if (local == 0) return;
    auto const job = std::make_shared<Job>(task, local);
    // One job at a time: two concurrent jobs could each hold some workers
    // while waiting at a collective for the others.
    std::lock_guard serial(serial_);
    for (std::size_t i = 0; i < devices.size(); ++i) {
      if (!is_local(devices[i])) continue;
      auto& w = *workers_.at(local_position(devices[i]));
      {
        std::lock_guard lock(w.mutex);
        w.job = job;
        w.index = i;
      }
      // After the unlock, so that a spinning worker that sees it does not
      // then wait for the mutex; no system call when it is spinning.
      w.posted.store(true, std::memory_order_release);
      w.wake.notify_one();
    }
    auto const finished = [&] { return job->remaining.load(std::memory_order_acquire) == 0; };
    if (!(devices_have_own_cores() && spin_until(finished))) {
      std::unique_lock lock(job->mutex);
      job->done_cv.wait(lock, finished);
    }
    if (job->error) std::rethrow_exception(job->error);
  }

 private:
  struct Job {
    Job(std::function<void(std::size_t)> const& t, std::size_t count) : task(t), remaining(count) {}
    std::function<void(std::size_t)> const& task;
    std::atomic<std::size_t> remaining;
    std::mutex mutex{};
    std::condition_variable done_cv{};
    std::exception_ptr error{};  // set under mutex, before remaining drops
  };
  struct Worker {
    std::mutex mutex;
    std::condition_variable wake;
    std::shared_ptr<Job> job;
    std::atomic<bool> posted{false};  // job is set: read without the mutex while spinning
    std::size_t index = 0;
    bool stopping = false;
    std::thread thread;
  };

  /// Waits up to spin_time for `done()`, yielding the core to any other
  /// thread that is ready to run on it; whether it became true. Between
  /// back-to-back calls this saves two wake-ups, each longer than a small
  /// call's work, and it cannot starve the thread it waits for.
  template <class Done>
  static bool spin_until(Done&& done) {
    auto const until = std::chrono::steady_clock::now() + spin_time;
    for (int k = 0;; ++k) {
      if (done()) return true;
      if (k % 64 == 63) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::yield();
      }
    }
  }
  static constexpr auto spin_time = std::chrono::microseconds(50);

  explicit DeviceThreads(int count) {
    for (int d = 0; d < count; ++d) workers_.push_back(std::make_unique<Worker>());
    for (int d = 0; d < count; ++d) workers_[static_cast<std::size_t>(d)]->thread = std::thread([this, d] { serve(d); });
  }

  void serve(int device) {
    on_device_thread() = true;
    int const team = threads_per_device();
    omp_set_num_threads(team);
    pin(device, team);
    auto& w = *workers_[static_cast<std::size_t>(device)];
    bool const spin = devices_have_own_cores();
    for (;;) {
      std::shared_ptr<Job> job;
      std::size_t index = 0;
      if (spin) spin_until([&] { return w.posted.load(std::memory_order_acquire); });
      {
        std::unique_lock lock(w.mutex);
        w.wake.wait(lock, [&] { return w.job || w.stopping; });
        if (!w.job) return;
        job = std::exchange(w.job, nullptr);
        w.posted.store(false, std::memory_order_relaxed);
        index = w.index;
      }
      try {
        job->task(index);
      } catch (...) {
        std::lock_guard lock(job->mutex);
        if (!job->error) job->error = std::current_exception();
      }
      if (job->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // Under the mutex: a caller that found the count above zero is
        // then either before its check or already waiting.
        std::lock_guard lock(job->mutex);
        job->done_cv.notify_one();
      }
    }
  }

  /// Bind the worker (and the team it will start) to its own cores when
  /// every device's team fits on the machine; otherwise leave it to the OS.
  static void pin([[maybe_unused]] int device, [[maybe_unused]] int team) {
#if defined(__linux__)
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
    std::vector<int> cores;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) cores.push_back(c);
    if (static_cast<std::size_t>(local_device_count() * team) > cores.size()) return;
    cpu_set_t mine;
    CPU_ZERO(&mine);
    for (int k = device * team; k < (device + 1) * team; ++k) CPU_SET(cores[static_cast<std::size_t>(k)], &mine);
    pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine);
#endif
  }

  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex serial_;
};

/// Run task(i) on the thread of devices[i], for every i whose device is this
/// process's, concurrently.
inline void run_on_devices(std::span<Device const> devices, std::function<void(std::size_t)> const& task) {
  DeviceThreads::instance().run(devices, task);
}

}  // namespace jaxcc::detail
