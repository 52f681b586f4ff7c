// Sharded arrays: how they are laid out in memory, their parts, and
// x.addressable_shards() (device_put is sharding/device_put.hpp).
//
// The devices share memory, so a sharded array keeps the global row-major
// layout in one allocation in which each device's part lies at its own
// place, first written (so first touched, and placed near its cores) by that
// device's thread. A part replicated over several devices is written once,
// by the device at coordinate 0 along the mesh axes its spec leaves out, and
// read by all of them: arrays are immutable, so copies would only cost
// memory. Reading values back needs no gather, and resharding is one
// parallel copy in which each device reads whatever it needs.
//
// On a mesh that spans processes (jaxcc/distributed.hpp) each process keeps
// the same global layout but writes only its own devices' parts: the rest
// of the allocation is never touched, so the system never backs it with
// memory. A part replicated over several processes is written once in each.
// Such an array cannot be read whole (JAX's error, below) unless every
// process holds all of it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/part.hpp"
#include "jaxcc/devices/bits/device_threads.hpp"
#include "jaxcc/sharding/named_sharding.hpp"
#include "jaxcc/sharding/visualize.hpp"

namespace jaxcc {

/// One device's part of a sharded array (jax.Shard): `index` is the
/// [start, stop) it holds of each dimension; `data` views it.
template <Element T>
struct Shard {
  Device device;
  std::vector<std::pair<std::int64_t, std::int64_t>> index;
  Array<T> data;
};

namespace detail {

template <>
inline NamedSharding const& sharding_or_single_device<NamedSharding>(std::shared_ptr<NamedSharding const> const& s) {
  if (s) return *s;
  // An array not put on a mesh lives whole on the process's first device.
  static NamedSharding const single(Mesh({local_devices().front()}, Shape{}, {}), P());
  return single;
}

/// Whether the devices at mesh positions `p` and `q` hold the same part of
/// an array laid out by `sharding` (they differ only along axes it leaves out).
inline bool hold_same_part(NamedSharding const& sharding, std::size_t p, std::size_t q) {
  auto const& mesh = sharding.mesh();
  auto const a = mesh.coordinates(static_cast<std::int64_t>(p)), b = mesh.coordinates(static_cast<std::int64_t>(q));
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k] != b[k] && sharding.spec_uses(mesh.axis_names()[k])) return false;
  return true;
}

/// Whether the device at mesh position `position` writes its part: parts
/// replicated over mesh axes the spec leaves out are written by the first
/// of their devices in this process, and by none in another.
inline bool writes_its_part(NamedSharding const& sharding, std::size_t position) {
  auto const& devices = sharding.mesh().devices();
  if (!is_local(devices[position])) return false;
  for (std::size_t earlier = 0; earlier < position; ++earlier)
    if (is_local(devices[earlier]) && hold_same_part(sharding, earlier, position)) return false;
  return true;
}

/// Whether the mesh of `sharding` has devices of other processes (JAX's
/// `not is_fully_addressable`).
inline bool spans_processes(NamedSharding const& sharding) {
  auto const& devices = sharding.mesh().devices();
  return !std::all_of(devices.begin(), devices.end(), is_local);
}

/// Whether some part of an array laid out by `sharding` is held by no
/// device of this process.
inline bool misses_parts(NamedSharding const& sharding) {
  if (process_count() == 1) return false;
  auto const& devices = sharding.mesh().devices();
  for (std::size_t p = 0; p < devices.size(); ++p) {
    bool held = false;
    for (std::size_t q = 0; q < devices.size() && !held; ++q) held = is_local(devices[q]) && hold_same_part(sharding, p, q);
    if (!held) return true;
  }
  return false;
}

/// `x` (laid out in the global row-major order) marked as laid out by `sharding`.
inline std::shared_ptr<ArrayImpl const> sharded_impl(ArrayImpl impl, std::shared_ptr<NamedSharding const> sharding) {
  impl.partly_elsewhere = sharding && misses_parts(*sharding);
  impl.sharding = std::move(sharding);
  return new_handle(std::move(impl));
}
template <Element T>
Array<T> with_sharding(Array<T> const& x, std::shared_ptr<NamedSharding const> sharding) {
  return ArrayAccess::make<T>(sharded_impl(ArrayAccess::impl(x), std::move(sharding)));
}
inline AnyArray with_sharding(AnyArray const& x, std::shared_ptr<NamedSharding const> sharding) {
  return AnyArray::from_handle(x.dtype(), sharded_impl(impl_of(x), std::move(sharding)));
}
template <Element T>
Array<T> with_sharding(Array<T> const& x, NamedSharding const& sharding) {
  return with_sharding(x, std::make_shared<NamedSharding const>(sharding));
}

/// A fresh sharded array: each device, on its own thread, writes its part
/// with `write(position, out, ranges)` (position: its row-major place in the
/// mesh); `write` runs only where writes_its_part.
template <Element T, class Write>
Array<T> make_sharded(Shape const& global_shape, NamedSharding const& sharding, Write&& write) {
  auto const held = sharding.devices_indices_map(global_shape);  // checks divisibility
  auto [out, data] = allocate<T>(global_shape);
  T* const base = data;
  run_on_devices(sharding.mesh().devices(), [&](std::size_t position) {
    if (writes_its_part(sharding, position)) write(position, base, held[position].second);
  });
  return with_sharding(out, sharding);
}

}  // namespace detail

namespace detail {
template <class S, Element T>
auto addressable_shards_of(Array<T> const& x) {
  if (x.is_traced()) throw_concretization_error(x.shape(), x.dtype(), "addressable_shards");
  auto const& sharding = x.template sharding<S>();
  std::vector<Shard<T>> shards;
  for (auto& [device, ranges] : sharding.devices_indices_map(x.shape())) {
    if (!is_local(device)) continue;
    auto data = part_view(x, ranges);
    shards.push_back({device, std::move(ranges), std::move(data)});
  }
  return shards;
}
}  // namespace detail

}  // namespace jaxcc

namespace jaxcc::debug {

/// JAX's diagram of how `x` is laid out over its devices, as a string.
template <Element T>
std::string sharding_diagram(Array<T> const& x) {
  return sharding_diagram(x.shape(), x.sharding());
}
/// Print it (jax.debug.visualize_array_sharding).
template <Element T>
void visualize_array_sharding(Array<T> const& x) {
  std::cout << sharding_diagram(x);
}

}  // namespace jaxcc::debug
