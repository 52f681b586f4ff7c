// pmap: the old way of running one function per device, kept as the thin
// wrapper JAX now makes of it: jit of a shard_map over a one-axis mesh of
// as many devices as the arguments' leading dimension, each device seeing
// its slice of every argument without that dimension.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/transforms/jit.hpp"
#include "jaxcc/transforms/options.hpp"
#include "jaxcc/transforms/shard_map.hpp"
#include "jaxcc/tree/map.hpp"

namespace jaxcc::detail {

/// The leading dimension every array argument of a pmap shares; JAX's
/// errors when they differ or there are too few devices.
template <class... Args>
std::int64_t pmapped_size(Args const&... args) {
  std::vector<AnyArray> leaves;
  (([&] {
     auto const l = array_leaves(args);
     leaves.insert(leaves.end(), l.begin(), l.end());
   }()),
   ...);
  if (leaves.empty()) throw Error("pmap requires at least one argument with a leading axis to map over");
  std::int64_t n = -1;
  for (auto const& leaf : leaves) {
    if (leaf.shape().empty())
      throw Error("pmap was requested to map its argument along axis 0, which implies that its rank should be at "
                  "least 1, but is only 0 (its shape is ())");
    if (n >= 0 && leaf.shape()[0] != n)
      throw Error("pmap got inconsistent sizes for array axes to be mapped: the arguments' leading dimensions are " +
                  std::to_string(n) + " and " + std::to_string(leaf.shape()[0]));
    n = leaf.shape()[0];
  }
  if (n > device_count())
    throw Error("compiling computation that requires " + std::to_string(n) + " logical devices, but only " +
                std::to_string(device_count()) + " XLA devices are available (num_replicas=" + std::to_string(n) + ")");
  return n;
}

}  // namespace jaxcc::detail

namespace jaxcc {

/// jax.pmap(f, axis_name="i"): f runs on device i with every argument's
/// slice i; collectives name the axis.
template <class F>
auto pmap(F f, axis_name_t name = axis_name("pmap")) {
  return jit([f = std::move(f), axis = std::move(name.value)](auto const&... args) {
    auto const n = detail::pmapped_size(args...);
    Mesh mesh(std::vector<Device>(devices().begin(), devices().begin() + n), Shape{n}, {axis});
    auto per_device = [&f](auto const&... parts) {
      auto const out = detail::materialized(f(tree::map([](auto const& x) { return numpy::squeeze(x, 0); }, parts)...));
      return tree::map([](auto const& y) { return numpy::expand_dims(y, 0); }, out);
    };
    return shard_map(per_device, std::move(mesh), in_specs(P(axis)), out_specs(P(axis)))(args...);
  });
}

}  // namespace jaxcc
