// Turning a fused region into an Array: one loop when its leaves are
// concrete (fusion/loop.hpp); one recorded equation when a leaf is traced
// (fusion/fused_primitive.hpp).
#pragma once

#include "jaxcc/fusion/fused_primitive.hpp"
#include "jaxcc/fusion/loop.hpp"

namespace jaxcc::fusion {

// fused_primitive.hpp may be mid-way through its own includes when this
// header is reached through them; Region is needed only where this
// template is instantiated.
template <class E>
struct Region;

template <class Op, class... Args>
Expr<Op, Args...>::operator Array<value_type>() const {
  if (!any_leaf_traced(*this) && !any_leaf_sharded(*this)) return evaluate_concrete(*this);
  return Region<Expr>::apply(*this);
}

}  // namespace jaxcc::fusion
