// lax.optimization_barrier: its operand, a pytree, unchanged. XLA keeps
// computations from moving across the barrier; jaxcc does not reorder
// computations across a call, so the identity is the whole of it, under
// every transform (JAX's rules pass values, tangents and batches through).
#pragma once

namespace jaxcc::lax {

/// lax.optimization_barrier: `operand` itself.
template <class Tree>
Tree optimization_barrier(Tree const& operand) {
  return operand;
}

}  // namespace jaxcc::lax
