// jaxcc::testing::allclose: numpy.allclose for arrays, with what differed
// described for test failure messages: how many elements, and the worst
// one's index, values and difference.
#pragma once

#include <cmath>
#include <complex>
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

namespace detail {
/// The row-major `flat` index as a multi-index, `(1, 2)`.
inline std::string index_string(Shape const& shape, std::size_t flat) {
  Shape index(shape.size(), 0);
  for (std::size_t d = shape.size(); d-- > 0;) {
    auto const n = static_cast<std::size_t>(shape[d]);
    index[d] = static_cast<std::int64_t>(flat % n);
    flat /= n;
  }
  return to_string(index);
}
}  // namespace detail

namespace detail {
/// An element as a complex double (a real one with a zero imaginary part).
template <class T>
std::complex<double> as_complex_double(T v) {
  if constexpr (ComplexElement<T>) return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
  else return {static_cast<double>(v), 0.0};
}
inline bool is_nan(std::complex<double> v) { return std::isnan(v.real()) || std::isnan(v.imag()); }
inline bool is_inf(std::complex<double> v) { return std::isinf(v.real()) || std::isinf(v.imag()); }
}  // namespace detail

/// Compare elementwise: |a - b| <= atol + rtol * |b| (numpy.allclose), in
/// float64 (complex numbers by their modulus, NaN or inf if a part is).
/// Shapes must match exactly; NaNs compare equal only if asked. The report
/// names the element that misses its tolerance by the most.
template <ArrayLike A, ArrayLike B>
CloseReport compare(A const& actual, B const& expected, double rtol = 1e-5, double atol = 1e-8,
                    bool equal_nan = false) {
  Array<value_type_t<A>> a = actual;
  Array<value_type_t<B>> b = expected;
  if (!(a.shape() == b.shape())) return {false, "shapes differ: " + to_string(a.shape()) + " vs " + to_string(b.shape())};
  auto const av = a.to_vector();
  auto const bv = b.to_vector();
  std::size_t mismatches = 0, worst = 0;
  double worst_excess = -1;  // |x - y| beyond the tolerance; infinite for NaN and inf mismatches
  for (std::size_t i = 0; i < av.size(); ++i) {
    auto const x = detail::as_complex_double(av[i]);
    auto const y = detail::as_complex_double(bv[i]);
    double excess;
    if (detail::is_nan(x) || detail::is_nan(y)) excess = equal_nan && detail::is_nan(x) && detail::is_nan(y) ? 0 : INFINITY;
    else if (detail::is_inf(x) || detail::is_inf(y)) excess = x == y ? 0 : INFINITY;
    else excess = std::abs(x - y) - (atol + rtol * std::abs(y));
    if (excess <= 0) continue;
    ++mismatches;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = i;
    }
  }
  if (mismatches == 0) return {};
  auto const x = detail::as_complex_double(av[worst]);
  auto const y = detail::as_complex_double(bv[worst]);
  std::ostringstream os;
  os.precision(17);
  auto const value = [&](std::complex<double> v) {
    if constexpr (ComplexElement<value_type_t<A>> || ComplexElement<value_type_t<B>>) os << v;
    else os << v.real();
  };
  os << mismatches << " of " << av.size() << " elements differ; the worst, at index "
     << detail::index_string(a.shape(), worst) << ": ";
  value(x);
  os << " vs ";
  value(y);
  os << " (difference " << std::abs(x - y) << ", tolerance " << atol + rtol * std::abs(y) << ")";
  return {false, os.str()};
}

template <ArrayLike A, ArrayLike B>
bool allclose(A const& actual, B const& expected, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) {
  return compare(actual, expected, rtol, atol, equal_nan).close;
}

}  // namespace jaxcc::testing
