// The one door every primitive goes through: its shape rule first (bad input
// fails before any work is done, naming the shapes), then either its kernel
// (all operands concrete), or, when an operand is being traced, a record of
// the application in the innermost trace (graph/primitive_of.hpp), or, when
// an operand is laid out on a mesh, the application partitioned over the
// mesh's devices (sharding/eager.hpp).
#pragma once

#include <tuple>

#include "jaxcc/graph/primitive_of.hpp"

namespace jaxcc::detail {

/// bind, once the operands are of the types the primitive's rules take.
template <class Primitive, class... Operands>
auto bind_operands(typename Primitive::Params const& params, Operands const&... operands) {
  return graph::Binder<Primitive, Operands...>::bind(params, operands...);
}

/// A primitive declares, in one struct: `name`, `Params`,
/// `shape_rule(params, operands...)`, `impl(params, out_shape, operands...)`
/// and the rules that transforms use (see graph/primitive_of.hpp).
template <class Primitive, class... Operands>
auto bind(typename Primitive::Params const& params, Operands const&... operands) {
  if constexpr (graph::DtypeGenericPrimitive<Primitive> && !(graph::ErasedArray<Operands> && ...)) {
    // Typed operands of a dtype-generic primitive: it runs on them erased,
    // and its output has the first one's type.
    using First = std::tuple_element_t<0, std::tuple<Operands...>>;
    return jaxcc::detail::bind<Primitive>(params, AnyArray(operands)...).template as<typename First::value_type>();
  } else {
    return bind_operands<Primitive>(params, operands...);
  }
}

}  // namespace jaxcc::detail

