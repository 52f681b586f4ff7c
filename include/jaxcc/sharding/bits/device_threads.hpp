// The threads behind the virtual devices. Each device is one long-lived
// worker thread, the master of its own OpenMP team of
// JAXCC_THREADS_PER_DEVICE threads (the kernels' `omp parallel` regions run
// on that team), pinned to its share of the cores when there are enough of
// them. The same worker always runs the same device, so a device's buffers
// are first touched, and stay warm, on its cores.
#pragma once

#include <algorithm>
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
#include "jaxcc/sharding/device.hpp"

namespace jaxcc::detail {

/// JAXCC_THREADS_PER_DEVICE if set, else the cores shared out evenly among
/// the devices (at least one each).
inline int threads_per_device() {
  static int const count = positive_int_from_env("JAXCC_THREADS_PER_DEVICE")
                               .value_or(std::max(1, omp_get_num_procs() / device_count()));
  return count;
}

/// Whether every device's team has cores of its own (then they are pinned).
inline bool devices_have_own_cores() {
  static bool const own = device_count() * threads_per_device() <= omp_get_num_procs();
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
    static DeviceThreads threads(device_count());
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

  /// Run task(i) on the worker of devices[i] for every i, all at once, and
  /// wait for them; the first exception a task threw is rethrown here.
  void run(std::span<Device const> devices, std::function<void(std::size_t)> const& task) {
    if (on_device_thread())
      throw Error("a sharded computation cannot start another one from inside a device's part of it (nested "
                  "shard_map or sharded jit)");
    Job job{task, devices.size()};
    // One job at a time: two concurrent jobs could each hold some workers
    // while waiting at a collective for the others.
    std::lock_guard serial(serial_);
    for (std::size_t i = 0; i < devices.size(); ++i) {
      auto& w = *workers_.at(static_cast<std::size_t>(devices[i].id));
      {
        std::lock_guard lock(w.mutex);
        w.job = &job;
        w.index = i;
      }
      w.wake.notify_one();
    }
    std::unique_lock lock(job.mutex);
    job.done_cv.wait(lock, [&] { return job.remaining == 0; });
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  struct Job {
    std::function<void(std::size_t)> const& task;
    std::size_t remaining;
    std::mutex mutex{};
    std::condition_variable done_cv{};
    std::exception_ptr error{};
  };
  struct Worker {
    std::mutex mutex;
    std::condition_variable wake;
    Job* job = nullptr;
    std::size_t index = 0;
    bool stopping = false;
    std::thread thread;
  };

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
    for (;;) {
      Job* job = nullptr;
      std::size_t index = 0;
      {
        std::unique_lock lock(w.mutex);
        w.wake.wait(lock, [&] { return w.job != nullptr || w.stopping; });
        if (!w.job) return;
        job = std::exchange(w.job, nullptr);
        index = w.index;
      }
      std::exception_ptr error;
      try {
        job->task(index);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard lock(job->mutex);
      if (error && !job->error) job->error = error;
      if (--job->remaining == 0) job->done_cv.notify_one();
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
    if (static_cast<std::size_t>(device_count() * team) > cores.size()) return;
    cpu_set_t mine;
    CPU_ZERO(&mine);
    for (int k = device * team; k < (device + 1) * team; ++k) CPU_SET(cores[static_cast<std::size_t>(k)], &mine);
    pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine);
#endif
  }

  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex serial_;
};

/// Run task(i) on the thread of devices[i], for every i, concurrently.
inline void run_on_devices(std::span<Device const> devices, std::function<void(std::size_t)> const& task) {
  DeviceThreads::instance().run(devices, task);
}

}  // namespace jaxcc::detail
