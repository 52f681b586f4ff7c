// Virtual CPU devices (JAX's CpuDevice): how many a process has is set by
// JAXCC_NUM_DEVICES, any count, as JAX's forced host device count (more
// devices than cores is allowed); by default one per core. In a job of
// several processes (jaxcc/distributed.hpp) devices() lists every process's
// devices, process by process, as JAX does: ids are global, and a process
// runs only its own (local_devices()).
#pragma once

#include <charconv>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <omp.h>

#include "jaxcc/core/error.hpp"
#include "jaxcc/devices/bits/process_network.hpp"

namespace jaxcc {

/// One virtual device; `id` is its position in devices().
struct Device {
  int id = 0;
  /// The process that runs it.
  int process_index = 0;
  static constexpr std::string_view platform = "cpu";
  friend bool operator==(Device const&, Device const&) = default;
  friend std::ostream& operator<<(std::ostream& os, Device const& d) { return os << "CpuDevice(id=" << d.id << ")"; }
};

namespace detail {
/// The positive integer the environment variable `name` holds, if set.
inline std::optional<int> positive_int_from_env(char const* name) {
  char const* env = std::getenv(name);
  if (!env) return std::nullopt;
  std::string_view const text(env);
  int n = 0;
  auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size() || n < 1)
    throw Error(std::string(name) + " must be a positive integer, got '" + std::string(text) + "'");
  return n;
}

/// JAXCC_NUM_DEVICES if set, else the number of cores.
inline int configured_device_count() {
  return positive_int_from_env("JAXCC_NUM_DEVICES").value_or(omp_get_num_procs());
}
}  // namespace detail

/// This process's place among the processes of the job (0 when alone).
inline int process_index() {
  auto const* network = detail::process_network();
  return network ? network->process_index() : 0;
}
/// How many processes the job has.
inline int process_count() {
  auto const* network = detail::process_network();
  return network ? network->process_count() : 1;
}

/// Every process's devices (jax.devices()), read once: each process has
/// JAXCC_NUM_DEVICES of them (every process of a job must set the same).
inline std::vector<Device> const& devices() {
  static std::vector<Device> const all = [] {
    detail::process_network_slot().devices_read = true;
    std::vector<Device> d;
    int const local = detail::configured_device_count();
    for (int p = 0, id = 0; p < process_count(); ++p)
      for (int i = 0; i < local; ++i) d.push_back({id++, p});
    return d;
  }();
  return all;
}
inline int device_count() { return static_cast<int>(devices().size()); }
/// This process's devices (jax.local_devices()).
inline std::vector<Device> const& local_devices() {
  static std::vector<Device> const local = [] {
    std::vector<Device> d;
    for (auto const& device : devices())
      if (device.process_index == process_index()) d.push_back(device);
    return d;
  }();
  return local;
}
inline int local_device_count() { return static_cast<int>(local_devices().size()); }

namespace detail {
/// Whether this process runs `device`.
inline bool is_local(Device const& device) { return device.process_index == process_index(); }
/// The device's place among this process's devices.
inline std::size_t local_position(Device const& device) {
  return static_cast<std::size_t>(device.id - local_devices().front().id);
}
}  // namespace detail

}  // namespace jaxcc
