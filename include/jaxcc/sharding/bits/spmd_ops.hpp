// The operations on values (graph/value_ops.hpp) that programs over a mesh
// need: the partitioner reshards parts and combines partial results,
// shard_map makes zero tangents and scales and sums cotangents.
//
// They bind collectives at every dtype, which instantiates those
// collectives' rules; so they are installed where a program can first meet
// a mesh, not by every jit: device_put, shard_map (and pmap), jit's
// out_shardings and with_sharding_constraint. An array is sharded only
// after one of these ran, so a jit that is given one finds them installed,
// and a file that never places arrays on a mesh compiles none of this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "jaxcc/core/creation.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/graph/layout.hpp"
#include "jaxcc/graph/value_ops.hpp"
#include "jaxcc/lax/parallel.hpp"
#include "jaxcc/primitives/collectives.hpp"

namespace jaxcc::detail {

/// `x`, this device's part of a value laid out as `from`, laid out as `to`.
template <Element T>
Array<T> reshard(Array<T> x, graph::Layout const& from, graph::Layout const& to) {
  if (from == to) return x;
  auto const rank = from.dims.size();
  for (std::size_t d = 0; d < rank; ++d)
    if (from.gathers(to, d))
      for (auto axis = from.dims[d].rbegin(); axis != from.dims[d].rend(); ++axis)
        x = lax::all_gather(x, *axis, static_cast<std::int64_t>(d), true);
  primitives::device_part_p::Params part{std::vector<std::vector<std::string>>(rank)};
  bool slices = false;
  for (std::size_t d = 0; d < rank; ++d)
    if (!to.dims[d].empty() && from.dims[d] != to.dims[d]) {
      part.dims[d] = to.dims[d];
      slices = true;
    }
  return slices ? primitives::device_part_p::bind(part, x) : x;
}

/// The dtype whose mesh operations a narrow dtype's go through: bool and
/// the 8- and 16-bit integers int32's, uint32 int64's, the 16-bit floats
/// float32's. Moving values in a wider type and back is exact; a sum wraps
/// around as the narrow type's own does, a maximum is the same, and a 16-bit
/// float's is float32's rounded once (as its other operations compute). The
/// collectives' rules are then instantiated at four dtypes, not eleven: a
/// file that places arrays on a mesh compiles less than half of them.
template <Element T>
using mesh_carrier_t =
    std::conditional_t<is_half_float<T>, float,
                       std::conditional_t<std::same_as<T, std::uint32_t>, std::int64_t,
                                          std::conditional_t<(sizeof(T) < 4), std::int32_t, T>>>;

template <Element T>
AnyArray to_mesh_carrier(AnyArray const& x) {
  if constexpr (is_half_float<T>) return widened_to_float32<T>(x);
  else return Array<mesh_carrier_t<T>>(x.as<T>().template astype<mesh_carrier_t<T>>());
}
template <Element T>
AnyArray from_mesh_carrier(AnyArray const& x) {
  if constexpr (is_half_float<T>) return rounded_from_float32<T>(x);
  else return Array<T>(x.as<mesh_carrier_t<T>>().template astype<T>());
}

/// Installed with graph::install_value_ops<SpmdOps>() from the template
/// entry points above (a non-template caller would instantiate it in every
/// file).
struct SpmdOps {
  template <Element T>
  static void fill(graph::ValueOps& ops) {
    ops.zeros = [](Shape const& shape) -> AnyArray { return filled<T>(shape, 0); };
    if constexpr (std::same_as<mesh_carrier_t<T>, T>) {
      ops.reshard = [](AnyArray const& x, graph::Layout const& from, graph::Layout const& to) -> AnyArray {
        return reshard(x.as<T>(), from, to);
      };
      ops.combine = [](AnyArray const& x, std::string const& axis, graph::PartialCombine how) -> AnyArray {
        if constexpr (!ComplexElement<T>) {  // complex numbers have no order: only sums are partial
          switch (how) {
            case graph::PartialCombine::max: return lax::pmax(x.as<T>(), axis);
            case graph::PartialCombine::min: return lax::pmin(x.as<T>(), axis);
            case graph::PartialCombine::sum: break;
          }
        }
        return lax::psum(x.as<T>(), axis);
      };
      if constexpr (InexactElement<T>)
        ops.scale = [](AnyArray const& x, double factor) -> AnyArray {
          return Array<T>(x.as<T>() * static_cast<real_t<compute_t<T>>>(factor));
        };
    } else {
      static constexpr DType carrier = dtype_of<mesh_carrier_t<T>>;
      ops.reshard = [](AnyArray const& x, graph::Layout const& from, graph::Layout const& to) -> AnyArray {
        if (from == to) return x;
        return from_mesh_carrier<T>(graph::value_ops_of(carrier).reshard(to_mesh_carrier<T>(x), from, to));
      };
      ops.combine = [](AnyArray const& x, std::string const& axis, graph::PartialCombine how) -> AnyArray {
        return from_mesh_carrier<T>(graph::value_ops_of(carrier).combine(to_mesh_carrier<T>(x), axis, how));
      };
      if constexpr (is_float<T>)
        ops.scale = [](AnyArray const& x, double factor) -> AnyArray {
          return from_mesh_carrier<T>(graph::value_ops_of(carrier).scale(to_mesh_carrier<T>(x), factor));
        };
    }
  }
};

/// What an entry point where arrays first meet a mesh installs: SpmdOps,
/// and eager ops on sharded arrays run partitioned. Defined in
/// sharding/eager.hpp, which every header that calls it includes.
template <class = void>
void install_mesh_operations();

}  // namespace jaxcc::detail
