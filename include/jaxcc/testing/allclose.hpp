// jaxcc::testing::allclose: numpy.allclose for arrays, with the first
// mismatch described for test failure messages.
#pragma once

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"

namespace jaxcc::testing {

struct CloseReport {
  bool close = true;
  std::string why;  // empty when close
};

/// Compare elementwise: |a - b| <= atol + rtol * |b| (numpy.allclose), in
/// float64. Shapes must match exactly; NaNs compare equal only if asked.
template <ArrayLike A, ArrayLike B>
CloseReport compare(A const& actual, B const& expected, double rtol = 1e-5, double atol = 1e-8,
                    bool equal_nan = false) {
  Array<value_type_t<A>> a = actual;
  Array<value_type_t<B>> b = expected;
  if (!(a.shape() == b.shape())) return {false, "shapes differ: " + to_string(a.shape()) + " vs " + to_string(b.shape())};
  auto const av = a.to_vector();
  auto const bv = b.to_vector();
  for (std::size_t i = 0; i < av.size(); ++i) {
    auto const x = static_cast<double>(av[i]);
    auto const y = static_cast<double>(bv[i]);
    bool ok;
    if (std::isnan(x) || std::isnan(y)) ok = equal_nan && std::isnan(x) && std::isnan(y);
    else if (std::isinf(x) || std::isinf(y)) ok = x == y;
    else ok = std::abs(x - y) <= atol + rtol * std::abs(y);
    if (!ok) {
      std::ostringstream os;
      os.precision(17);
      os << "element " << i << " (row-major) differs: " << x << " vs " << y;
      return {false, os.str()};
    }
  }
  return {};
}

template <ArrayLike A, ArrayLike B>
bool allclose(A const& actual, B const& expected, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) {
  return compare(actual, expected, rtol, atol, equal_nan).close;
}

}  // namespace jaxcc::testing
