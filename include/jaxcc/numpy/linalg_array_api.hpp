// jnp.linalg's array-API functions: matmul, tensordot and vecdot (jnp's
// own), and outer, cross, diagonal, trace, matrix_transpose, matrix_norm
// and vector_norm (jnp's, over the last axes, with the array API's
// stricter shapes), and multi_dot (a chain of matrix products in the
// order of fewest multiplications).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/lax/linalg.hpp"
#include "jaxcc/numpy/diagonals.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/linalg.hpp"
#include "jaxcc/numpy/norm.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/numpy/tensor_contractions.hpp"

namespace jaxcc::detail {

/// The shapes of multi_dot's operands as JAX prints the list: `[(2, 3), (3,)]`.
template <Element T>
std::string shapes_list(std::vector<Array<T>> const& arrays) {
  std::string s = "[";
  for (std::size_t i = 0; i < arrays.size(); ++i) s += (i ? ", " : "") + to_string(arrays[i].shape());
  return s + "]";
}

/// The product of matrices [i, j] of a chain, split where `split` says (the matrix-chain order).
template <Element T>
Array<T> chain_product(std::vector<Array<T>> const& m, std::vector<std::vector<std::size_t>> const& split, std::size_t i,
                       std::size_t j) {
  if (i == j) return m[i];
  auto const k = split[i][j];
  return numpy::dot(chain_product(m, split, i, k), chain_product(m, split, k + 1, j));
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy::linalg {

using numpy::matmul;
using numpy::tensordot;
using numpy::vecdot;

/// jnp.linalg.outer: the outer product of two 1-D arrays.
template <ArrayLike A, ArrayLike B>
auto outer(A const& x1, B const& x2) {
  if (x1.ndim() != 1 || x2.ndim() != 1)
    detail::throw_error("Input arrays must be one-dimensional, but they are x1.ndim=", x1.ndim(), " x2.ndim=", x2.ndim());
  return numpy::outer(x1, x2);
}

/// jnp.linalg.cross: the cross products of 3-vectors along `axis`.
template <ArrayLike A, ArrayLike B>
auto cross(A const& x1, B const& x2, std::int64_t axis = -1) {
  auto const n1 = x1.shape()[static_cast<std::size_t>(detail::normalize_axis(axis, x1.ndim(), "cross"))];
  auto const n2 = x2.shape()[static_cast<std::size_t>(detail::normalize_axis(axis, x2.ndim(), "cross"))];
  if (n1 != 3 || n2 != 3)
    detail::throw_error("Both input arrays must be (arrays of) 3-dimensional vectors, but they have x1.shape[axis]=", n1,
                        " and x2.shape[axis]=", n2);
  return numpy::cross(x1, x2, -1, -1, -1, axis);
}

/// jnp.linalg.diagonal: the diagonals of the last two axes.
template <ArrayLike A>
auto diagonal(A const& x, std::int64_t offset = 0) {
  return numpy::diagonal(x, offset, -2, -1);
}

/// jnp.linalg.trace: the traces of the last two axes.
template <ArrayLike A>
auto trace(A const& x, std::int64_t offset = 0) {
  return numpy::trace(x, offset, -2, -1);
}

/// jnp.linalg.matrix_transpose: the last two axes swapped.
template <ArrayLike A>
Array<value_type_t<A>> matrix_transpose(A const& x) {
  if (x.ndim() < 2) detail::throw_error("matrix_transpose requires at least 2 dimensions; got ndim=", x.ndim());
  return swapaxes(x, -1, -2);
}

/// jnp.linalg.matrix_norm: norm over the last two axes, "fro" by default.
template <ArrayLike A>
auto matrix_norm(A const& x, bool keepdims = false, std::string_view ord = "fro") {
  return norm(x, ord, {-2, -1}, keepdims);
}
template <ArrayLike A, Scalar O>
auto matrix_norm(A const& x, bool keepdims, O ord) {
  return norm(x, ord, {-2, -1}, keepdims);
}

/// jnp.linalg.vector_norm: the `ord`-norm over `axis` (all axes by
/// default, as one vector): 2, inf, -inf, 0 (the non-zeros' count), 1, or any p.
template <ArrayLike A>
Array<real_t<float_t<value_type_t<A>>>> vector_norm(A const& x_in, detail::AxisArg const& axis = {},
                                                    bool keepdims = false, double ord = 2) {
  using T = float_t<value_type_t<A>>;
  using R = real_t<T>;
  auto const x = as_array(x_in).template astype<T>();
  auto const magnitude = [&] { return Array<R>(abs(x)); };
  if (ord == 2) return sqrt(sum(detail::squared_magnitude(x), axis, keepdims));
  if (std::isinf(ord) && ord > 0) return max(magnitude(), axis, keepdims, 0.0);
  if (std::isinf(ord)) return min(magnitude(), axis, keepdims);
  if (ord == 0) return sum(Array<bool>(x != T(0)).template astype<R>(), axis, keepdims);
  if (ord == 1) return sum(magnitude(), axis, keepdims);
  auto const p = static_cast<R>(ord);
  return power(sum(power(magnitude(), p), axis, keepdims), static_cast<R>(R(1) / p));
}

/// jnp.linalg.multi_dot: the product of a chain of matrices ({a, b, c}),
/// the first and last of which may be vectors, associated so that the
/// fewest multiplications are done.
template <Element T>
Array<T> multi_dot(std::vector<Array<T>> const& arrays) {
  auto const n = arrays.size();
  if (n < 2) detail::throw_error("multi_dot requires at least two arrays; got len(arrays)=", n);
  bool ok = (arrays[0].ndim() == 1 || arrays[0].ndim() == 2) && (arrays[n - 1].ndim() == 1 || arrays[n - 1].ndim() == 2);
  for (std::size_t i = 1; i + 1 < n; ++i) ok = ok && arrays[i].ndim() == 2;
  if (!ok)
    detail::throw_error("multi_dot: input arrays must all be two-dimensional, except for the first and last array which "
                        "may be 1 or 2 dimensional. Got array shapes ", detail::shapes_list(arrays));
  for (std::size_t i = 0; i + 1 < n; ++i)
    if (arrays[i].shape().back() != arrays[i + 1].shape()[0])
      detail::throw_error("multi_dot: last dimension of each array must match first dimension of following array. Got "
                          "array shapes ", detail::shapes_list(arrays));
  // dims[i] x dims[i + 1] is matrix i (a vector's missing side counts 1).
  std::vector<double> dims{static_cast<double>(arrays[0].ndim() == 1 ? 1 : arrays[0].shape()[0])};
  for (auto const& a : arrays) dims.push_back(static_cast<double>(a.shape().back()));
  if (arrays[n - 1].ndim() == 1) dims.back() = 1;
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0));
  std::vector<std::vector<std::size_t>> split(n, std::vector<std::size_t>(n, 0));
  for (std::size_t len = 1; len < n; ++len)
    for (std::size_t i = 0; i + len < n; ++i) {
      auto const j = i + len;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (std::size_t k = i; k < j; ++k) {
        auto const c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1];
        if (c < cost[i][j]) cost[i][j] = c, split[i][j] = k;
      }
    }
  return detail::chain_product(arrays, split, 0, n - 1);
}

}  // namespace jaxcc::numpy::linalg
