// lax.with_sharding_constraint: the value unchanged, laid out as a given
// sharding. Under a sharded jit the partitioner reshards it there (its
// partition rule); run eagerly it is device_put. Its derivatives carry the
// same constraint, as JAX's.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/sharding/device_put.hpp"
#include "jaxcc/sharding/eager.hpp"
#include "jaxcc/sharding/partition.hpp"

namespace jaxcc::primitives {

struct sharding_constraint_p {
  static constexpr std::string_view name = "sharding_constraint";
  struct Params {
    NamedSharding sharding;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    p.sharding.shard_shape(x.shape());  // JAX's rank and divisibility errors
    return x.shape();
  }
  template <Element T>
  static Array<T> impl(Params const& p, Shape const&, Array<T> const& x) {
    return device_put(x, p.sharding);
  }
  static std::string params_string(Params const& p) { return "sharding=" + to_string(p.sharding); }

  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    return detail::bind<sharding_constraint_p>(p, t);
  }
  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const&) {
    return detail::bind<sharding_constraint_p>(p, ct);
  }

  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& x) {
    auto const target = detail::layout_of(p.sharding.spec(), static_cast<std::size_t>(x.ndim()));
    return graph::Partitioned{reshard(AnyArray(x), layouts[0], target), target};
  }
  /// Its operand is wanted laid out as the constraint (a draw before it
  /// makes only each device's block).
  static std::optional<graph::Layout> wanted_operand_layout(Params const& p, std::size_t, Shape const& shape) {
    return detail::layout_of(p.sharding.spec(), shape.size());
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// x, laid out as `sharding` (inside a sharded jit: resharded there).
template <ArrayLike A>
Array<value_type_t<A>> with_sharding_constraint(A const& x, NamedSharding const& sharding) {
  detail::install_mesh_operations();  // the partitioner reshards here (sharding/eager.hpp)
  return detail::bind<primitives::sharding_constraint_p>({sharding}, as_array(x));
}

}  // namespace jaxcc::lax
