// The derivative rules of a primitive of one operand whose int32 output
// (positions, indices) carries no tangent and gives its operand no
// cotangent: JAX's defjvp_zero. argmax, argmin and argsort take them, so a
// differentiated function may use them freely.
#pragma once

#include <cstdint>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/elementwise.hpp"  // fusion::Zero
#include "jaxcc/graph/primitive_of.hpp"

namespace jaxcc::detail {

struct IntegerValued {
  template <class Params, Element T>
  static fusion::Zero<std::int32_t> jvp(Params const&, Array<std::int32_t> const&, Array<T> const&, Array<T> const&) {
    return {};
  }
  template <class Params, Element T>
  static graph::NoCotangent vjp(Params const&, Array<std::int32_t> const&, Array<std::int32_t> const&, Array<T> const&) {
    return {};
  }
};

}  // namespace jaxcc::detail
