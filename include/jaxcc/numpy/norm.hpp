// jnp.linalg.norm: vector norms of any order along one axis (2 by default;
// inf and -inf the largest and smallest magnitude; 0 the count of non-zeros;
// p the p-th root of the sum of |x|^p) and matrix norms over two axes
// ("fro" by default; 1 and -1 the largest and smallest column sum of
// magnitudes, inf and -inf the row sums'). Written with reductions and
// elementwise ops, as JAX writes it, so transforms go through their rules.
// The norms of singular values (2, -2, "nuc") come from lax::linalg's SVD.
// The largest-magnitude norms of nothing are 0 (JAX's initial=0); the
// smallest raise. A complex array's norms are real: its magnitudes are
// abs, and its 2-norm and "fro" sum real(x·conj(x)), as JAX's.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/lax/linalg.hpp"
#include "jaxcc/numpy/complex.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"

namespace jaxcc::detail {

/// How Python prints an order: 3 for a whole number, 2.5 otherwise, inf, -inf.
inline std::string order_string(double ord) {
  std::ostringstream os;
  if (std::isinf(ord)) os << (ord > 0 ? "inf" : "-inf");
  else if (ord == std::floor(ord) && std::abs(ord) < 1e15) os << static_cast<long long>(ord);
  else os << ord;
  return os.str();
}

/// |x|², elementwise and real: x·x, or real(x·conj(x)) for a complex x (JAX's).
template <Element T>
Array<real_t<T>> squared_magnitude(Array<T> const& x) {
  if constexpr (ComplexElement<T>) return numpy::real(Array<T>(x * numpy::conj(x)));
  else return Array<T>(x * x);
}

template <Element T>
Array<real_t<T>> vector_norm(Array<T> const& x, double ord, std::int64_t axis, bool keepdims) {
  using R = real_t<T>;
  constexpr double inf = std::numeric_limits<double>::infinity();
  auto const magnitude = [&] { return Array<R>(numpy::abs(x)); };
  if (ord == 2) return numpy::sqrt(numpy::sum(squared_magnitude(x), axis, keepdims));
  if (ord == inf) return numpy::max(magnitude(), axis, keepdims, 0.0);  // JAX's initial=0: empty gives 0
  if (ord == -inf) return numpy::min(magnitude(), axis, keepdims);
  if (ord == 0) return numpy::sum(Array<bool>(x != T(0)).template astype<R>(), axis, keepdims);
  if (ord == 1) return numpy::sum(magnitude(), axis, keepdims);
  return numpy::power(numpy::sum(numpy::power(magnitude(), static_cast<R>(ord)), axis, keepdims), static_cast<R>(1 / ord));
}

/// The matrix norms of the singular values over axes (row, col): their
/// largest ("max", ord 2), smallest ("min", ord -2) or sum ("sum", "nuc").
template <Element T>
Array<real_t<T>> singular_value_norm(Array<T> const& x, std::string_view reduce, std::int64_t row, std::int64_t col,
                             bool keepdims) {
  auto const s = lax::linalg::singular_values(numpy::moveaxis(x, {row, col}, {-2, -1}));
  auto const y = reduce == "max"   ? numpy::max(s, -1, false, 0.0)
                 : reduce == "min" ? numpy::min(s, -1)
                                   : numpy::sum(s, -1);
  return keepdims ? numpy::expand_dims(y, Axes{row, col}) : y;
}

template <Element T>
Array<real_t<T>> matrix_norm(Array<T> const& x, std::optional<double> ord, std::int64_t row, std::int64_t col,
                             bool keepdims) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (!ord) return numpy::sqrt(numpy::sum(squared_magnitude(x), Axes{row, col}, keepdims));
  auto const magnitude = Array<real_t<T>>(numpy::abs(x));
  // Sum along one axis, then the extremum along the other (shifted down if it followed the first).
  auto const sum_then = [&](std::int64_t summed, std::int64_t other, bool largest) {
    if (!keepdims && other > summed) --other;
    auto const sums = numpy::sum(magnitude, summed, keepdims);
    return largest ? numpy::max(sums, other, keepdims, 0.0) : numpy::min(sums, other, keepdims);
  };
  if (*ord == 1) return sum_then(row, col, true);
  if (*ord == -1) return sum_then(row, col, false);
  if (*ord == inf) return sum_then(col, row, true);
  if (*ord == -inf) return sum_then(col, row, false);
  if (*ord == 2 || *ord == -2) return singular_value_norm(x, *ord == 2 ? "max" : "min", row, col, keepdims);
  throw Error("Invalid order '" + order_string(*ord) + "' for matrix norm.");
}

template <Element T>
Array<real_t<T>> norm_of(Array<T> const& x, std::optional<double> ord, AxisArg const& axis, bool keepdims) {
  // NumPy's undocumented rule, which JAX keeps: no axis and no order is the
  // 2-norm of the flattened array, whatever its rank.
  if (axis.is_all() && !ord) return numpy::sqrt(numpy::sum(squared_magnitude(x), none, keepdims));
  auto const axes = axis.resolve(x.ndim(), "jnp.linalg.norm");
  if (axes.size() == 1) return vector_norm(x, ord.value_or(2.0), axes[0], keepdims);
  if (axes.size() == 2) return matrix_norm(x, ord, axes[0], axes[1], keepdims);
  std::ostringstream os;
  os << "Improper number of axes for norm: axis=(";
  for (std::size_t i = 0; i < axes.size(); ++i) os << (i ? ", " : "") << axes[i];
  os << (axes.size() == 1 ? ",)" : ")")
     << ". Pass one axis to compute a vector-norm, or two axes to compute a matrix-norm.";
  throw Error(os.str());
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy::linalg {

/// The norm of order `ord` along `axis`: one axis for a vector norm, two
/// for a matrix norm, none for the whole array (a vector or a matrix when
/// `ord` is given). Integers are computed as float32 (int64 as float64);
/// complex arrays give real norms (float32 for complex64).
template <ArrayLike A, Scalar O>
  requires(!std::same_as<O, bool>)
Array<real_t<float_t<value_type_t<A>>>> norm(A const& x, O ord, detail::AxisArg const& axis = {}, bool keepdims = false) {
  using T = float_t<value_type_t<A>>;
  return detail::norm_of(as_array(x).template astype<T>(), static_cast<double>(ord), axis, keepdims);
}
/// The default order (ord=None: 2 for a vector, "fro" for a matrix, the
/// flattened 2-norm without an axis): `norm(x)`, `norm(x, jaxcc::none, 1)`.
template <ArrayLike A>
Array<real_t<float_t<value_type_t<A>>>> norm(A const& x, none_t = none, detail::AxisArg const& axis = {}, bool keepdims = false) {
  using T = float_t<value_type_t<A>>;
  return detail::norm_of(as_array(x).template astype<T>(), std::nullopt, axis, keepdims);
}
/// A matrix norm by name: "fro" (or "f"), or "nuc" (the sum of the singular values).
template <ArrayLike A>
Array<real_t<float_t<value_type_t<A>>>> norm(A const& x, std::string_view ord, detail::AxisArg const& axis = {},
                                     bool keepdims = false) {
  using T = float_t<value_type_t<A>>;
  auto const a = as_array(x).template astype<T>();
  if (ord != "fro" && ord != "f" && ord != "nuc") throw Error("Invalid order '" + std::string(ord) + "' for matrix norm.");
  auto const axes = axis.resolve(a.ndim(), "jnp.linalg.norm");
  if (axes.size() != 2) throw Error("Invalid order '" + std::string(ord) + "' for vector norm.");
  if (ord == "nuc") return detail::singular_value_norm(a, "sum", axes[0], axes[1], keepdims);
  return detail::matrix_norm(a, std::nullopt, axes[0], axes[1], keepdims);
}

}  // namespace jaxcc::numpy::linalg
