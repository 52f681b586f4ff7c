// Turning a fused region into an Array: one loop when its leaves are
// concrete (fusion/loop.hpp), or its program on the runtime's rows where
// those outrun the loop (a file compiled below the runtime's SIMD level);
// one recorded equation when a leaf is traced (fusion/fused_primitive.hpp).
#pragma once

#include <vector>

#include "jaxcc/fusion/fused_primitive.hpp"
#include "jaxcc/fusion/loop.hpp"

namespace jaxcc::fusion {

// fused_primitive.hpp may be mid-way through its own includes when this
// header is reached through them; Region, outranked_where_compiled and
// region_leaves are needed only where this template is instantiated.
template <class E>
struct Region;
template <class E>
bool outranked_where_compiled();
template <class E>
std::vector<AnyArray> region_leaves(E const& e);

template <class Op, class... Args>
Expr<Op, Args...>::operator Array<value_type>() const {
  if (any_leaf_traced(*this) || any_leaf_sharded(*this)) return Region<Expr>::apply(*this).template as<value_type>();
  if (outranked_where_compiled<Expr>())
    return run_program(program_of(*this), region_leaves(*this), this->shape()).template as<value_type>();
  return evaluate_concrete(*this);
}

}  // namespace jaxcc::fusion
