// Printing a fused expression: it prints as the array it evaluates to.
#pragma once

#include <ostream>
#include <string>

#include "jaxcc/core/print.hpp"
#include "jaxcc/fusion/evaluate.hpp"

namespace jaxcc {

/// A fused expression prints as the array it evaluates to.
template <class E>
  requires fusion::is_expr<E>::value
std::string to_string(E const& e) {
  return to_string(as_array(e));
}

template <class E>
  requires fusion::is_expr<E>::value
std::ostream& operator<<(std::ostream& os, E const& e) {
  return os << as_array(e);
}

}  // namespace jaxcc
