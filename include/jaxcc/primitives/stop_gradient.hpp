// stop_gradient: the identity whose derivative is zero.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/primitives/bind.hpp"

namespace jaxcc::primitives {

struct stop_gradient_p {
  static constexpr std::string_view name = "stop_gradient";
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const&, Array<T> const& x) {
    return x.shape();
  }
  template <Element T>
  static Array<T> impl(Params const&, Shape const&, Array<T> const& x) {
    return x;
  }
  template <Element T>
  static fusion::Zero<T> jvp(Params const&, Array<T> const&, Array<T> const&, Array<T> const&) {
    return {};
  }
  template <Element T>
  static graph::NoCotangent vjp(Params const&, Array<T> const&, Array<T> const&, Array<T> const&) {
    return {};
  }
  /// The identity, so each device keeps its part (sharded jit).
  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const&, Array<T> const& x) {
    return graph::Partitioned{detail::bind<stop_gradient_p>(p, x), layouts[0]};
  }
  /// The identity, so the mapped axis stays where it is.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x) {
    return {detail::bind<stop_gradient_p>(p, x), dims[0]};
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc {

/// x, but transforms see a constant: no derivative flows through it.
template <ArrayLike A>
Array<value_type_t<A>> stop_gradient(A const& x) {
  return detail::bind<primitives::stop_gradient_p>({}, as_array(x));
}

namespace lax {
using jaxcc::stop_gradient;
}

}  // namespace jaxcc
