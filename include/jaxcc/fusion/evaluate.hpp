// Turning a fused region into an Array: one loop when its leaves are
// concrete (fusion/loop.hpp); one recorded equation when a leaf is traced
// (fusion/fused_primitive.hpp).
#pragma once

#include <tuple>

#include "jaxcc/fusion/fused_primitive.hpp"
#include "jaxcc/fusion/loop.hpp"
#include "jaxcc/primitives/bind.hpp"

// fused_primitive.hpp may be mid-way through its own includes when this
// header is reached through them; the region primitive is needed only where
// these templates are instantiated.
namespace jaxcc::primitives {
template <class E>
struct fused_p;
}

namespace jaxcc::fusion {

template <class Op, class... Args>
Expr<Op, Args...>::operator Array<value_type>() const {
  if (!any_leaf_traced(*this) && !any_leaf_sharded(*this)) return evaluate_concrete(*this);
  return std::apply(
      [&](auto const&... leaves) { return jaxcc::detail::bind<primitives::fused_p<Expr>>({*this}, leaves...); },
      leaves_of(*this));
}

}  // namespace jaxcc::fusion
