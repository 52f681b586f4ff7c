// Virtual CPU devices (JAX's CpuDevice): how many there are is set by
// JAXCC_NUM_DEVICES, any count, as JAX's forced host device count (more
// devices than cores is allowed); by default one per core.
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

namespace jaxcc {

/// One virtual device; `id` is its position in devices().
struct Device {
  int id = 0;
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

/// All devices (jax.devices()), read once from the environment.
inline std::vector<Device> const& devices() {
  static std::vector<Device> const all = [] {
    std::vector<Device> d;
    for (int i = 0, n = detail::configured_device_count(); i < n; ++i) d.push_back({i});
    return d;
  }();
  return all;
}
inline int device_count() { return static_cast<int>(devices().size()); }
/// One process holds every device.
inline int local_device_count() { return device_count(); }

}  // namespace jaxcc
