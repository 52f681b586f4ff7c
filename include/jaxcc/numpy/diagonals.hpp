// jax.numpy's triangle and diagonal functions: tril, triu, diagonal, trace,
// diag, diagflat, fill_diagonal. Built from existing operations (a select against a constant mask,
// moveaxis, reshape, a strided slice, lax::pad, sum), so grad, vmap and jit
// go through their rules; none adds a primitive. Offsets are static.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/rearrange.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/pad.hpp"
#include "jaxcc/primitives/reshape.hpp"

namespace jaxcc::detail {

/// tril (`lower`) or triu of x's last two axes: the elements outside the
/// triangle of diagonal k selected away, as JAX does.
template <Element T>
Array<T> triangle(Array<T> const& x, std::int64_t k, bool lower, std::string_view name) {
  if (x.ndim() < 2) throw_error("Argument to jax.numpy.", name, " must be at least 2D");
  return matrix_triangle(x, k, lower);
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// The lower triangle of the last two axes: elements above diagonal k set
/// to zero (k > 0: above the main diagonal). Leading axes are a batch.
template <ArrayLike A>
Array<value_type_t<A>> tril(A const& m, std::int64_t k = 0) {
  return detail::triangle(as_array(m), k, true, "tril");
}
/// The upper triangle of the last two axes: elements below diagonal k set to zero.
template <ArrayLike A>
Array<value_type_t<A>> triu(A const& m, std::int64_t k = 0) {
  return detail::triangle(as_array(m), k, false, "triu");
}

/// Diagonal `offset` of the planes along axis1 and axis2 (offset > 0: above
/// the main diagonal); those axes are removed and the diagonal is the last
/// axis. The two axes moved last and merged, then every (m+1)-th element.
template <ArrayLike A>
Array<value_type_t<A>> diagonal(A const& a, std::int64_t offset = 0, std::int64_t axis1 = 0, std::int64_t axis2 = 1) {
  auto const x = as_array(a);
  if (x.ndim() < 2) throw Error("diagonal requires an array of at least two dimensions.");
  auto const i = detail::normalize_axis(axis1, x.ndim(), "diagonal");
  auto const j = detail::normalize_axis(axis2, x.ndim(), "diagonal");
  if (i == j)
    detail::throw_error("diagonal: axis1 and axis2 can not be same. axis1=", axis1, " and axis2=", axis2);
  auto const planes = moveaxis(x, Axes{i, j}, Axes{-2, -1});
  auto const n = x.shape()[static_cast<std::size_t>(i)], m = x.shape()[static_cast<std::size_t>(j)];
  auto const size = std::max<std::int64_t>(0, std::min(n + std::min<std::int64_t>(offset, 0), m - std::max<std::int64_t>(offset, 0)));
  Shape flat(planes.shape().begin(), planes.shape().end() - 2);
  flat.push_back(n * m);
  Axes start(flat.size(), 0), limit(flat.begin(), flat.end()), strides(flat.size(), 1);
  auto const first = size == 0 ? 0 : offset >= 0 ? offset : -offset * m;
  start.back() = first;
  limit.back() = size == 0 ? 0 : first + (size - 1) * (m + 1) + 1;
  strides.back() = m + 1;
  return lax::slice(lax::reshape(planes, flat), start, limit, strides);
}

/// The sum of diagonal `offset` of the planes along axis1 and axis2; dtype as jnp::sum's.
template <ArrayLike A>
Array<detail::sum_t<value_type_t<A>>> trace(A const& a, std::int64_t offset = 0, std::int64_t axis1 = 0,
                                            std::int64_t axis2 = 1) {
  auto const x = as_array(a);
  if (detail::normalize_axis(axis1, x.ndim(), "trace") == detail::normalize_axis(axis2, x.ndim(), "trace"))
    detail::throw_error("axis1 and axis2 can not be same. axis1=", axis1, " and axis2=", axis2);
  return sum(diagonal(x, offset, axis1, axis2), -1);
}

/// 1-D `v`: the square matrix with v on diagonal k (zeros elsewhere), of
/// size len(v) + |k| — one lax::pad of v, with n interior zeros between its
/// elements, reshaped. 2-D `v`: its diagonal k.
template <ArrayLike A>
Array<value_type_t<A>> diag(A const& v, std::int64_t k = 0) {
  using T = value_type_t<A>;
  auto const x = as_array(v);
  if (x.ndim() == 2) return diagonal(x, k);
  if (x.ndim() != 1) throw Error("diag input must be 1d or 2d");
  auto const len = x.shape()[0];
  auto const n = len + std::abs(k);
  // v[i] goes to row i (i - k for k < 0), column i + k (i): flat index lo + i (n + 1).
  auto const lo = len == 0 ? n * n : k >= 0 ? k : -k * n;
  auto const hi = len == 0 ? 0 : n * n - (lo + (len - 1) * (n + 1) + 1);
  primitives::pad_p::PaddingConfig const config{std::array<std::int64_t, 3>{lo, hi, len == 0 ? 0 : n}};
  return lax::reshape(lax::pad(x, T(0), config), Shape{n, n});
}

/// The square matrix with `v` flattened on diagonal k.
template <ArrayLike A>
Array<value_type_t<A>> diagflat(A const& v, std::int64_t k = 0) {
  return diag(ravel(v), k);
}

/// `a` with its main diagonal (a[i, i, ..., i]) set to `val`: a scalar or
/// 0-d array for every element, else val's elements in order, repeated as
/// needed. JAX arrays are immutable: `inplace` must be false, as in JAX
/// (whose default, true, raises); `wrap` must be false (not implemented).
template <ArrayLike A, class V>
  requires detail::ArrayOrScalar<V>
Array<value_type_t<A>> fill_diagonal(A const& a, V const& val, bool wrap = false, bool inplace = true) {
  using T = value_type_t<A>;
  if (inplace) throw Error("JAX arrays are immutable, must use inplace=False");
  if (wrap) throw Error("wrap=True is not implemented, must use wrap=False");
  auto const x = as_array(a);
  if (x.ndim() < 2) throw Error("array must be at least 2-d");
  auto const& shape = x.shape();
  for (auto d : shape)
    if (x.ndim() > 2 && d != shape[0]) throw Error("All dimensions of input must be of equal length");
  auto const n = *std::min_element(shape.begin(), shape.end());
  auto const idx = arange<std::int32_t>(n);
  std::vector<detail::IndexItem> items(shape.size(), detail::IndexItem{detail::IndexItem::Kind::array, 0, {}, idx});
  detail::AtRef<T> const at(x, items);
  if constexpr (Scalar<V>) {
    return at.set(static_cast<T>(val));
  } else {
    Array<T> const v = fusion::cast<T>(val);
    if (v.ndim() == 0) return at.set(v);
    auto const flat = ravel(v);
    if (flat.size() == 0) return at.set(v);  // JAX fails on an empty value too
    auto const reps = (n + flat.size() - 1) / flat.size();
    return at.set(lax::slice(tile(flat, std::max<std::int64_t>(reps, 1)), Axes{0}, Axes{n}));
  }
}

}  // namespace jaxcc::numpy
