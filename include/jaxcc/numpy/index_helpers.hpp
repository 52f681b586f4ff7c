// jax.numpy's index helpers: tri, tril_indices, triu_indices (and
// *_from), diag_indices (and _from), mask_indices, indices, ix_,
// unravel_index, ravel_multi_index. Sizes are static, so the index arrays
// of the triangle and diagonal helpers are constants made on the host;
// unravel_index and ravel_multi_index (modes other than "raise") are
// elementwise compositions that also take traced indices. Positions are
// int32, as JAX's with 64-bit types off.
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"

namespace jaxcc::detail {

/// The positions (i, j), row-major, of an n×m matrix where `keep(i, j)`, as
/// two int32 arrays (nonzero of the mask); at most `size` of them, padded
/// with zeros up to `size` when one is given.
template <class Keep>
std::tuple<Array<std::int32_t>, Array<std::int32_t>> matrix_positions(std::int64_t n, std::int64_t m, Keep const& keep,
                                                                      std::optional<std::int64_t> size = {}) {
  std::vector<std::int32_t> rows, cols;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      if (keep(i, j) && (!size || static_cast<std::int64_t>(rows.size()) < *size)) {
        rows.push_back(static_cast<std::int32_t>(i));
        cols.push_back(static_cast<std::int32_t>(j));
      }
  if (size) {
    rows.resize(static_cast<std::size_t>(*size), 0);
    cols.resize(static_cast<std::size_t>(*size), 0);
  }
  auto const count = static_cast<std::int64_t>(rows.size());
  return {numpy::array(rows, Shape{count}), numpy::array(cols, Shape{count})};
}

/// The shape of a 2-D array for the *_indices_from functions.
inline std::pair<std::int64_t, std::int64_t> matrix_shape(Shape const& shape) {
  if (shape.size() != 2) throw Error("Only 2-D inputs are accepted");
  return {shape[0], shape[1]};
}

/// Python's floor division and modulo of integer `x` by a static `d` >= 0.
/// d = 0 gives what JAX's integer divmod gives (-1 or -2, and 0), with no
/// division by zero.
template <Element I>
std::pair<Array<I>, Array<I>> floor_divmod(Array<I> const& x, std::int64_t d) {
  if (d == 0) return {numpy::where(x == I(0), I(-1), I(-2)), numpy::zeros_like(x)};
  Array<I> const r = numpy::fmod(x, static_cast<I>(d));
  Array<I> const mod = numpy::where(r < 0, r + static_cast<I>(d), r);
  Array<I> const quotient = fusion::cast<I>(fusion::cast<double>(x - mod) / static_cast<double>(d));
  return {quotient, mod};
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// An N×M array with ones at and below diagonal k, zeros above (M = -1: N).
template <Element T = float>
Array<T> tri(std::int64_t N, std::int64_t M = -1, std::int64_t k = 0) {
  if (M < 0) M = N;
  if (N < 0) detail::throw_error("tri: negative dimensions are not allowed, got N=", N);
  std::vector<T> values;
  for (std::int64_t i = 0; i < N; ++i)
    for (std::int64_t j = 0; j < M; ++j) values.push_back(static_cast<T>(j <= i + k ? 1 : 0));
  return array(values, Shape{N, M});
}

/// The (row, column) positions of the lower triangle (at and below diagonal
/// k) of an n×m matrix (m = -1: n), row-major.
template <class = void>
std::tuple<Array<std::int32_t>, Array<std::int32_t>> tril_indices(std::int64_t n, std::int64_t k = 0, std::int64_t m = -1) {
  return detail::matrix_positions(n, m < 0 ? n : m, [k](auto i, auto j) { return j <= i + k; });
}
/// The positions of the upper triangle (at and above diagonal k).
template <class = void>
std::tuple<Array<std::int32_t>, Array<std::int32_t>> triu_indices(std::int64_t n, std::int64_t k = 0, std::int64_t m = -1) {
  return detail::matrix_positions(n, m < 0 ? n : m, [k](auto i, auto j) { return j >= i + k; });
}
/// tril_indices and triu_indices for the shape of a 2-D array.
template <ArrayLike A>
std::tuple<Array<std::int32_t>, Array<std::int32_t>> tril_indices_from(A const& arr, std::int64_t k = 0) {
  auto const [n, m] = detail::matrix_shape(arr.shape());
  return tril_indices(n, k, m);
}
template <ArrayLike A>
std::tuple<Array<std::int32_t>, Array<std::int32_t>> triu_indices_from(A const& arr, std::int64_t k = 0) {
  auto const [n, m] = detail::matrix_shape(arr.shape());
  return triu_indices(n, k, m);
}

/// The positions of the main diagonal of an n × ... × n array of `ndim`
/// axes: `ndim` copies of 0, 1, ..., n - 1.
template <class = void>
std::vector<Array<std::int32_t>> diag_indices(std::int64_t n, std::int64_t ndim = 2) {
  if (n < 0) detail::throw_error("n argument to diag_indices must be nonnegative, got ", n);
  if (ndim < 0) detail::throw_error("ndim argument to diag_indices must be nonnegative, got ", ndim);
  return std::vector<Array<std::int32_t>>(static_cast<std::size_t>(ndim), arange<std::int32_t>(n));
}
/// diag_indices for an array of at least 2 axes, all of one length.
template <ArrayLike A>
std::vector<Array<std::int32_t>> diag_indices_from(A const& arr) {
  auto const& shape = arr.shape();
  if (shape.size() < 2) throw Error("input array must be at least 2-d");
  for (auto d : shape)
    if (d != shape[0]) throw Error("All dimensions of input must be of equal length");
  return diag_indices(shape[0], static_cast<std::int64_t>(shape.size()));
}

/// The positions where mask_func(ones((n, n)), k) is nonzero, row-major
/// (e.g. `[](auto const& m, auto k) { return jnp::triu(m, k); }`); `size`
/// pads with zeros or cuts to that many. The mask's values are read, so it
/// must be concrete.
template <class F>
std::tuple<Array<std::int32_t>, Array<std::int32_t>> mask_indices(std::int64_t n, F const& mask_func, std::int64_t k = 0,
                                                                  std::optional<std::int64_t> size = {}) {
  auto const mask = as_array(mask_func(ones<float>(Shape{n, n}), k));
  if (!(mask.shape() == Shape{n, n}))
    detail::throw_error("mask_indices: mask_func must return an array of shape ", Shape{n, n}, ", got ", mask.shape());
  if (mask.is_traced()) detail::throw_concretization_error(mask.shape(), mask.dtype(), "jnp::mask_indices");
  auto const nz = Array<bool>(mask != 0).to_vector();
  return detail::matrix_positions(
      n, n, [&](auto i, auto j) { return static_cast<bool>(nz[static_cast<std::size_t>(i * n + j)]); }, size);
}

/// An array of shape (len(dimensions), *dimensions): slice i holds each
/// element's index along axis i. (JAX's sparse=True form is ix_ of aranges.)
template <Element T = std::int32_t>
Array<T> indices(Shape const& dimensions) {
  if (dimensions.empty()) return zeros<T>(Shape{0});
  std::vector<Array<T>> grids;
  for (std::size_t i = 0; i < dimensions.size(); ++i)
    grids.push_back(lax::broadcast_in_dim(arange<T>(dimensions[i]), dimensions, Axes{static_cast<std::int64_t>(i)}));
  return stack(grids, 0);
}

/// Open meshes from 1-D arrays: output i has shape (1, ..., len(args[i]), ..., 1)
/// with args[i] along axis i, so that x[ix_(a, b)] picks the cross product.
template <Element T>
std::vector<Array<T>> ix_(std::vector<Array<T>> const& args) {
  if constexpr (std::same_as<T, bool>)
    throw Error("Boolean arguments to jax.numpy.ix_ are not implemented");
  std::vector<Array<T>> out;
  auto const n = args.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (args[i].ndim() != 1)
      detail::throw_error("Arguments to jax.numpy.ix_ must be 1-dimensional, got shape ", args[i].shape());
    Shape shape(n, 1);
    shape[i] = args[i].shape()[0];
    out.push_back(lax::broadcast_in_dim(args[i], shape, Axes{static_cast<std::int64_t>(i)}));
  }
  return out;
}
template <ArrayLike A, ArrayLike... B>
  requires(std::same_as<value_type_t<A>, value_type_t<B>> && ...)
std::vector<Array<value_type_t<A>>> ix_(A const& a, B const&... rest) {
  return ix_(std::vector<Array<value_type_t<A>>>{as_array(a), as_array(rest)...});
}

/// Flat indices into an array of `shape` as one index array per axis
/// (row-major). Negative indices count from the end of the whole array, as
/// in JAX; others out of bounds clip to the nearest corner.
template <ArrayLike A>
  requires std::integral<value_type_t<A>>
std::vector<Array<value_type_t<A>>> unravel_index(A const& indices, Shape const& shape) {
  using I = value_type_t<A>;
  Array<I> rest = as_array(indices);
  std::vector<Array<I>> out(shape.size());
  for (auto i = shape.size(); i-- > 0;) {
    auto [quotient, mod] = detail::floor_divmod(rest, shape[i]);
    rest = quotient;
    out[i] = mod;
  }
  for (std::size_t i = 0; i < shape.size(); ++i)
    out[i] = where(rest > 0, static_cast<I>(shape[i] - 1), where(rest < -1, I(0), out[i]));
  return out;
}

/// Index arrays (one per axis, broadcast together) into an array of shape
/// `dims` as flat indices, row-major (order "C") or column-major ("F").
/// `mode`: "raise" (default; the indices must be concrete and in bounds),
/// "wrap" (modulo the axis), "clip" (into the axis), "ignore".
template <Element I>
Array<std::int32_t> ravel_multi_index(std::vector<Array<I>> const& multi_index, Shape const& dims,
                                      std::string_view mode = "raise", std::string_view order = "C") {
  if (multi_index.size() != dims.size())
    detail::throw_error("len(multi_index)=", multi_index.size(), " != len(dims)=", dims.size());
  if constexpr (!std::integral<I> || std::same_as<I, bool>) throw Error("only int indices permitted");
  if (dims.numel() - 1 > std::numeric_limits<std::int32_t>::max())
    detail::throw_error("jnp.ravel_multi_index: dtype=int32 not large enough to hold flattened index for dims=", dims);
  if (mode != "raise" && mode != "wrap" && mode != "clip" && mode != "ignore")
    detail::throw_error("invalid mode='", mode, "'. Expected 'raise', 'wrap', 'clip', or 'ignore'.");
  if (order != "C" && order != "F") detail::throw_error("invalid order='", order, "'. Expected 'C' or 'F'");
  std::vector<Array<std::int32_t>> index;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    auto x = multi_index[i].template astype<std::int32_t>();
    auto const d = static_cast<std::int32_t>(dims[i]);
    if (mode == "raise") {
      if (x.is_traced())
        detail::throw_concretization_error(x.shape(), x.dtype(),
                                           "jnp::ravel_multi_index with mode='raise'; under jit use mode='wrap' or "
                                           "mode='clip' instead");
      for (auto v : x.to_vector())
        if (v < 0 || v >= d) throw Error("invalid entry in coordinates array");
    } else if (mode == "clip") {
      x = clip(x, 0, d - 1);
    } else if (mode == "wrap") {
      x = detail::floor_divmod(x, d).second;
    }
    index.push_back(x);
  }
  Array<std::int32_t> result = full<std::int32_t>(Shape{}, 0);
  std::int64_t stride = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    auto const i = order == "C" ? dims.size() - 1 - k : k;
    result = result + index[i] * static_cast<std::int32_t>(stride);
    stride *= dims[i];
  }
  return result;
}
template <Element I>
Array<std::int32_t> ravel_multi_index(std::initializer_list<Array<I>> multi_index, Shape const& dims,
                                      std::string_view mode = "raise", std::string_view order = "C") {
  return ravel_multi_index(std::vector<Array<I>>(multi_index), dims, mode, order);
}

}  // namespace jaxcc::numpy
