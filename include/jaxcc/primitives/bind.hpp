// The one door every non-elementwise primitive goes through: its shape rule
// first (bad input fails before any work is done, naming the shapes), then
// its kernel. Transforms hook in here.
#pragma once

namespace jaxcc::detail {

/// A primitive declares, in one struct: `name`, `Params`,
/// `shape_rule(params, operands...)` and `impl(params, out_shape, operands...)`.
template <class Primitive, class... Operands>
auto bind(typename Primitive::Params const& params, Operands const&... operands) {
  auto out_shape = Primitive::shape_rule(params, operands...);
  return Primitive::impl(params, out_shape, operands...);
}

}  // namespace jaxcc::detail
