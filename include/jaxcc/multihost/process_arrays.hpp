// Arrays over meshes that may span processes (jaxcc/distributed.hpp): made
// from what each process has (jax.make_array_from_callback,
// jax.make_array_from_process_local_data), and gathered back whole on every
// process (multihost_utils.process_allgather). In one process they are
// device_put and its inverse.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/devices/device.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/sharding/device_put.hpp"
#include "jaxcc/sharding/eager.hpp"
#include "jaxcc/sharding/named_sharding.hpp"
#include "jaxcc/sharding/sharded_array.hpp"
#include "jaxcc/transforms/jit.hpp"

namespace jaxcc {

/// Where a part lies in its array: the [start, stop) of each dimension (as
/// Shard::index).
using ShardIndex = std::vector<std::pair<std::int64_t, std::int64_t>>;

namespace detail {
inline Shape shape_of(ShardIndex const& index) {
  Shape shape;
  for (auto const& [start, stop] : index) shape.push_back(stop - start);
  return shape;
}
}  // namespace detail

/// jax.make_array_from_callback: an array of `shape` laid out by `sharding`
/// whose part at each index is `data_callback(index)`. The callback runs on
/// this thread, once for each part this process holds (once for a part
/// several of its devices share), and never for other processes' parts.
template <class F>
  requires std::invocable<F&, ShardIndex const&> && ArrayLike<std::invoke_result_t<F&, ShardIndex const&>>
auto make_array_from_callback(Shape const& shape, NamedSharding const& sharding, F&& data_callback) {
  using T = value_type_t<std::invoke_result_t<F&, ShardIndex const&>>;
  auto const held = sharding.devices_indices_map(shape);  // checks the spec against the shape
  std::vector<Array<T>> parts(held.size());
  for (std::size_t p = 0; p < held.size(); ++p) {
    if (!detail::writes_its_part(sharding, p)) continue;
    auto part = as_array(data_callback(held[p].second));
    if (auto const expected = detail::shape_of(held[p].second); part.shape() != expected)
      throw Error("Expected shard shape " + to_string(expected) +
                  " doesn't match the single device array shape " + to_string(part.shape()) +
                  ". Shape of Array is " + graph::type_string(dtype_of<T>, shape) + " with sharding " +
                  to_string(sharding));
    parts[p] = std::move(part);
  }
  detail::install_mesh_operations();
  return detail::make_sharded<T>(shape, sharding, [&](std::size_t position, T* out, detail::PartRanges const& ranges) {
    detail::write_part(parts[position], out, shape, ranges);
  });
}

namespace detail {

/// Along dimension `dim` of an array laid out by `sharding`: which distinct
/// slice of it this process holds and how many distinct slices the
/// processes hold (sharding_impls.get_process_index_and_count); nullopt
/// where the processes' slices overlap without matching (non-uniform).
inline std::optional<std::pair<std::int64_t, std::int64_t>> process_slice_of(NamedSharding const& sharding,
                                                                               std::size_t dim, std::size_t rank) {
  auto const n = sharding.mesh().size();
  auto const map = sharding.devices_indices_map(Shape(std::vector<std::int64_t>(rank, n)));
  std::map<int, std::set<std::pair<std::int64_t, std::int64_t>>> by_process;
  std::set<std::pair<std::int64_t, std::int64_t>> all;
  for (auto const& [device, ranges] : map) {
    by_process[device.process_index].insert(ranges[dim]);
    all.insert(ranges[dim]);
  }
  auto const& mine = by_process[process_index()];
  std::vector<std::set<std::pair<std::int64_t, std::int64_t>>> distinct;
  for (auto const& [process, slices] : by_process) {
    if (slices.size() != mine.size()) return std::nullopt;
    if (std::find(distinct.begin(), distinct.end(), slices) == distinct.end()) distinct.push_back(slices);
  }
  std::size_t covered = 0;
  for (auto const& d : distinct) covered += d.size();
  if (covered != all.size()) return std::nullopt;
  auto const index = std::find(distinct.begin(), distinct.end(), mine) - distinct.begin();
  return std::pair<std::int64_t, std::int64_t>{index, static_cast<std::int64_t>(distinct.size())};
}

/// How many indices of dimension `dim` this process's devices hold
/// (sharding_impls.num_addressable_indices).
inline std::int64_t addressable_indices(NamedSharding const& sharding, std::size_t dim, Shape const& global_shape) {
  std::set<std::int64_t> indices;
  for (auto const& [device, ranges] : sharding.devices_indices_map(global_shape))
    if (is_local(device))
      for (auto i = ranges[dim].first; i < ranges[dim].second; ++i) indices.insert(i);
  return static_cast<std::int64_t>(indices.size());
}

}  // namespace detail

/// jax.make_array_from_process_local_data: the global array laid out by
/// `sharding` of which each process passes the part its devices hold. Each
/// dimension of `local_data` is either the global one (every process passes
/// all of it) or the process's slice of it; without `global_shape`, the
/// global shape is inferred assuming each process passes its own slice.
template <class A>
  requires ArrayLike<A>
Array<value_type_t<A>> make_array_from_process_local_data(NamedSharding const& sharding, A const& local_data,
                                                           OptionalShape const& global_shape = {}) {
  using T = value_type_t<A>;
  Array<T> const local = as_array(local_data);
  auto const& local_shape = local.shape();
  if (process_count() == 1) {
    if (global_shape && *global_shape != local_shape)
      throw Error("When calling `make_array_from_process_local_data` on a single process, global_shape should be "
                  "None or equal to local_data.shape.Got global_shape=" +
                  to_string(*global_shape) + " and local_data.shape=" + to_string(local_shape) +
                  ".");
    return device_put(local, sharding);
  }
  Shape shape;
  if (global_shape) {
    shape = *global_shape;
    if (shape.size() != local_shape.size())
      throw Error("make_array_from_process_local_data: global_shape " + to_string(shape) +
                  " has another rank than local_data.shape " + to_string(local_shape));
  } else {
    bool uniform = true;
    std::string partial = "(";
    for (std::size_t d = 0; d < local_shape.size(); ++d) {
      auto const slice = detail::process_slice_of(sharding, d, local_shape.size());
      shape.push_back(slice ? local_shape[d] * slice->second : 0);
      uniform = uniform && slice.has_value();
      partial += (d ? ", " : "") + (slice ? std::to_string(shape[d]) : std::string("None"));
    }
    if (!uniform)
      throw Error("Unable to compute global_shape due to non-uniform sharding. Specify global shape directly. "
                  "Partially computed global_shape=" +
                  partial + (local_shape.size() == 1 ? ",)" : ")") + ".");
  }
  std::vector<bool> full(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    full[d] = local_shape[d] == shape[d];
    if (full[d]) continue;
    auto const slice = detail::addressable_indices(sharding, d, shape);
    if (slice != local_shape[d])
      throw Error("Invalid host data, each dimension should match either global or process shape. In dimension " +
                  std::to_string(d) + ", the process data has " + std::to_string(local_shape[d]) +
                  " elements. Process addresses " + std::to_string(slice) +
                  " elements and global_shape=" + to_string(shape) + ".");
  }
  // Each of this process's part starts, per dimension, in order: the k-th
  // distinct start is the k-th block of the local data.
  auto const held = sharding.devices_indices_map(shape);
  auto const part_shape = sharding.shard_shape(shape);
  std::vector<std::set<std::int64_t>> starts(shape.size());
  for (auto const& [device, ranges] : held)
    if (detail::is_local(device))
      for (std::size_t d = 0; d < shape.size(); ++d) starts[d].insert(ranges[d].first);
  return make_array_from_callback(shape, sharding, [&](ShardIndex const& index) {
    ShardIndex in_local;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (full[d]) {
        in_local.push_back(index[d]);
        continue;
      }
      auto const k = static_cast<std::int64_t>(std::distance(starts[d].begin(), starts[d].find(index[d].first)));
      in_local.emplace_back(k * part_shape[d], (k + 1) * part_shape[d]);
    }
    return detail::contiguous(detail::part_view(local, in_local));
  });
}

/// multihost_utils.process_allgather: every process's `x`, on every
/// process. An array on a mesh that spans processes comes back whole
/// (`tiled` must be true, as in JAX); a process's own array comes back stacked along a new
/// leading axis, one entry per process (concatenated along axis 0 if
/// `tiled`).
template <class A>
  requires ArrayLike<A>
Array<value_type_t<A>> process_allgather(A const& value, bool tiled = false) {
  using T = value_type_t<A>;
  Array<T> const x = as_array(value);
  if (x.is_traced())
    throw Error("process_allgather: cannot gather a traced array of shape " + to_string(x.shape()) +
                "; call it on concrete arrays, outside the transform");
  auto const whole = [](Array<T> const& spread) {
    auto const& mesh = spread.sharding().mesh();
    auto replicated = jit([](Array<T> const& a) { return a; }, out_shardings(NamedSharding(mesh, P())))(spread);
    // Every process now holds all of it; returned as a plain array.
    return detail::view(replicated, replicated.shape(), replicated.strides(), detail::offset_of(replicated));
  };
  if (auto const& sharding = detail::ArrayAccess::impl(x).sharding; sharding && detail::spans_processes(*sharding)) {
    if (!tiled) throw Error("Gathering global non-fully-addressable arrays only supports tiled=True");
    return whole(x);
  }
  auto const local = (x.ndim() == 0 || !tiled) ? numpy::expand_dims(x, 0) : x;
  if (process_count() == 1) return local;
  Mesh const mesh(devices(), Shape{process_count(), local_device_count()}, {"processes", "local_devices"});
  auto shape = local.shape();
  shape[0] *= process_count();
  return whole(make_array_from_callback(shape, NamedSharding(mesh, P("processes")),
                                        [&](ShardIndex const&) { return local; }));
}

}  // namespace jaxcc
