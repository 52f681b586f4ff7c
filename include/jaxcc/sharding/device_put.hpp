// jax.device_put: arrays (and pytrees of them) laid out over a mesh.
#pragma once

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/sharding/eager.hpp"
#include "jaxcc/sharding/mesh_context.hpp"
#include "jaxcc/sharding/named_sharding.hpp"
#include "jaxcc/sharding/sharded_array.hpp"
#include "jaxcc/tree/map.hpp"

namespace jaxcc {

namespace lax {
// sharding/sharding_constraint.hpp, which includes this header.
template <ArrayLike A>
Array<value_type_t<A>> with_sharding_constraint(A const& x, NamedSharding const& sharding);
}  // namespace lax

/// jax.device_put: `x` laid out over the mesh as `sharding` says (copied in
/// parallel, each device writing its own part). An array already laid out
/// so is returned as it is; one laid out otherwise is resharded.
template <Element T>
Array<T> device_put(Array<T> const& x, NamedSharding const& sharding) {
  if (x.is_traced())
    throw Error("device_put: cannot place a traced array of shape " + to_string(x.shape()) +
                " on devices; call it on concrete arrays, outside the transform");
  if (auto const& own = detail::ArrayAccess::impl(x).sharding; own && *own == sharding) return x;
  detail::install_mesh_operations();  // what jit and eager ops need for sharded arrays
  // Parts held by other processes reach this one through collectives: a
  // resharding, as a sharded jit would run it.
  if (detail::ArrayAccess::impl(x).partly_elsewhere) return lax::with_sharding_constraint(x, sharding);
  return detail::make_sharded<T>(x.shape(), sharding, [&](std::size_t, T* out, detail::PartRanges const& ranges) {
    detail::write_part(detail::part_view(x, ranges), out, x.shape(), ranges);
  });
}

/// device_put with a PartitionSpec over the mesh set by set_mesh.
template <Element T>
Array<T> device_put(Array<T> const& x, P const& spec) {
  return device_put(x, NamedSharding(current_mesh("device_put"), spec));
}

/// device_put of every leaf of a pytree (params, a batch, ...); a fused
/// expression is placed as the Array it evaluates to.
template <class Tree, class Placement>
  requires(!AnArray<Tree> && (std::same_as<Placement, NamedSharding> || std::same_as<Placement, P>))
auto device_put(Tree const& tree, Placement const& placement) {
  if constexpr (ArrayLike<Tree>) return device_put(as_array(tree), placement);
  else return tree::map([&](auto const& leaf) { return device_put(leaf, placement); }, tree);
}

}  // namespace jaxcc
