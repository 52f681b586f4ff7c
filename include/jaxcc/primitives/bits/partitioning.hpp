// Shapes of parts, for the primitives' partition rules (sharded jit): how
// many parts a dimension split over some mesh axes has, and the shape of
// one device's part. The mesh axes are bound while the partitioner runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/graph/axis_env.hpp"
#include "jaxcc/graph/layout.hpp"

namespace jaxcc::detail {

/// How many parts a dimension split over `axes` has.
inline std::int64_t parts_along(std::vector<std::string> const& axes) {
  std::int64_t n = 1;
  for (auto const& a : axes) n *= graph::find_axis(a).size;
  return n;
}

/// One device's part of a value of `global` shape laid out as `layout`.
inline Shape part_shape(Shape global, graph::Layout const& layout) {
  for (std::size_t d = 0; d < global.size(); ++d) global[d] /= parts_along(layout.dims[d]);
  return global;
}

/// The whole value's shape, from one device's part.
inline Shape global_shape(Shape part, graph::Layout const& layout) {
  for (std::size_t d = 0; d < part.size(); ++d) part[d] *= parts_along(layout.dims[d]);
  return part;
}

/// The partition of an op that works lane by lane along `axis` (a sort, a
/// scan): every other dimension keeps its split and runs where it is; a
/// split `axis` is gathered whole first. `compute` runs the op on the part.
template <class X, class Compute>
graph::Partitioned whole_along(std::int64_t axis, graph::Layout const& layout, graph::Resharder const& reshard,
                               X const& x, Compute&& compute) {
  auto want = layout;
  want.dims[static_cast<std::size_t>(axis)].clear();
  auto const part = reshard(AnyArray(x), layout, want).template as<typename X::value_type>();
  return graph::Partitioned{AnyArray(compute(part)), want};
}

}  // namespace jaxcc::detail
