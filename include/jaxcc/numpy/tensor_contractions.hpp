// jax.numpy's vector products: vecdot, matvec and vecmat (jnp.vectorize
// of a product over core dimensions, leading axes broadcast: here one
// matmul), kron (a broadcast multiply) and cross (of 2- and 3-vectors).
// Operands are promoted to their common dtype.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/numpy/calculus.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/linalg.hpp"

namespace jaxcc::detail {

/// jnp.vectorize's complaints about core dimensions under `signature`.
inline void check_core_dims(Shape const& shape, std::int64_t needed, std::string_view dims, std::string_view signature) {
  if (static_cast<std::int64_t>(shape.size()) < needed)
    throw_error("input with shape ", shape, " does not have enough dimensions for all core dimensions ", dims,
                " on vectorized function with excluded=frozenset() and signature='", signature, "'");
}
inline void check_core_size(std::int64_t found, std::int64_t expected, std::string_view dim, std::string_view signature) {
  if (found != expected)
    throw_error("inconsistent size for core dimension '", dim, "': ", found, " vs ", expected,
                " on vectorized function with excluded=frozenset() and signature='", signature, "'");
}
/// The leading (loop) axes of two vectorized operands broadcast, with vectorize's message.
inline void check_loop_dims(Shape const& a, std::int64_t a_core, Shape const& b, std::int64_t b_core) {
  Shape const la(a.begin(), a.end() - a_core), lb(b.begin(), b.end() - b_core);
  try {
    broadcast_shapes(la, lb, "vectorize");
  } catch (Error const&) {
    throw_error("Incompatible shapes for broadcasting: shapes=[", la, ", ", lb, "]");
  }
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// jnp.vecdot: the dot products of x1 and x2 along `axis` (sizes equal),
/// their other axes broadcast.
template <ArrayLike A, ArrayLike B>
Array<promote_t<value_type_t<A>, value_type_t<B>>> vecdot(A const& x1, B const& x2, std::int64_t axis = -1) {
  auto const a = as_array(x1);
  auto const b = as_array(x2);
  auto const ia = detail::normalize_axis(axis, a.ndim(), "vecdot"), ib = detail::normalize_axis(axis, b.ndim(), "vecdot");
  if (a.shape()[static_cast<std::size_t>(ia)] != b.shape()[static_cast<std::size_t>(ib)])
    detail::throw_error("axes must match; got shapes ", a.shape(), " and ", b.shape(), " with axis=", axis);
  auto const am = moveaxis(a, ia, -1), bm = moveaxis(b, ib, -1);
  detail::check_loop_dims(am.shape(), 1, bm.shape(), 1);
  return lax::squeeze(matmul(expand_dims(am, -2), expand_dims(bm, -1)), {-2, -1});
}

/// jnp.matvec: the products of the matrices x1 (..., n, m) with the vectors
/// x2 (..., m), leading axes broadcast: (..., n).
template <ArrayLike A, ArrayLike B>
Array<promote_t<value_type_t<A>, value_type_t<B>>> matvec(A const& x1, B const& x2) {
  auto const a = as_array(x1);
  auto const b = as_array(x2);
  constexpr std::string_view sig = "(n,m),(m)->(n)";
  detail::check_core_dims(a.shape(), 2, "('n', 'm')", sig);
  detail::check_core_dims(b.shape(), 1, "('m',)", sig);
  detail::check_core_size(b.shape().back(), a.shape().back(), "m", sig);
  detail::check_loop_dims(a.shape(), 2, b.shape(), 1);
  return lax::squeeze(matmul(a, expand_dims(b, -1)), {-1});
}

/// jnp.vecmat: the products of the vectors x1 (..., n) with the matrices
/// x2 (..., n, m), leading axes broadcast: (..., m).
template <ArrayLike A, ArrayLike B>
Array<promote_t<value_type_t<A>, value_type_t<B>>> vecmat(A const& x1, B const& x2) {
  auto const a = as_array(x1);
  auto const b = as_array(x2);
  constexpr std::string_view sig = "(n),(n,m)->(m)";
  detail::check_core_dims(a.shape(), 1, "('n',)", sig);
  detail::check_core_dims(b.shape(), 2, "('n', 'm')", sig);
  detail::check_core_size(b.shape()[b.shape().size() - 2], a.shape().back(), "n", sig);
  detail::check_loop_dims(a.shape(), 1, b.shape(), 2);
  return lax::squeeze(matmul(expand_dims(a, -2), b), {-2});
}

/// jnp.kron: the Kronecker product; the operand of lower rank gets leading
/// axes of size 1, and the result's shape is the product of the shapes.
template <ArrayLike A, ArrayLike B>
Array<promote_t<value_type_t<A>, value_type_t<B>>> kron(A const& a_in, B const& b_in) {
  using T = promote_t<value_type_t<A>, value_type_t<B>>;
  auto a = as_array(a_in).template astype<T>();
  auto b = as_array(b_in).template astype<T>();
  auto const lead = [](std::int64_t k) {
    Axes axes;
    for (std::int64_t i = 0; i < k; ++i) axes.push_back(i);
    return axes;
  };
  if (a.ndim() < b.ndim()) a = expand_dims(a, lead(b.ndim() - a.ndim()));
  if (b.ndim() < a.ndim()) b = expand_dims(b, lead(a.ndim() - b.ndim()));
  Axes odd, even;
  Shape out;
  for (std::int64_t i = 0; i < a.ndim(); ++i) {
    odd.push_back(2 * i + 1);
    even.push_back(2 * i);
    out.push_back(a.shape()[static_cast<std::size_t>(i)] * b.shape()[static_cast<std::size_t>(i)]);
  }
  return Array<T>(expand_dims(a, odd) * expand_dims(b, even)).reshape(out);
}

/// jnp.cross: the cross product of the vectors of a along `axisa` and of b
/// along `axisb` (each of length 2 or 3), their other axes broadcast, the
/// vectors along `axisc` of the result; two 2-vectors give the scalar z
/// component. `axis`, when given, is all three.
template <ArrayLike A, ArrayLike B>
Array<promote_t<value_type_t<A>, value_type_t<B>>> cross(A const& a_in, B const& b_in, std::int64_t axisa = -1,
                                                        std::int64_t axisb = -1, std::int64_t axisc = -1,
                                                        std::optional<std::int64_t> axis = std::nullopt) {
  using T = promote_t<value_type_t<A>, value_type_t<B>>;
  if (axis) axisa = axisb = axisc = *axis;
  auto const a = moveaxis(as_array(a_in).template astype<T>(), axisa, -1);
  auto const b = moveaxis(as_array(b_in).template astype<T>(), axisb, -1);
  auto const na = a.shape().back(), nb = b.shape().back();
  if ((na != 2 && na != 3) || (nb != 2 && nb != 3)) throw Error("Dimension must be either 2 or 3 for cross product");
  auto const at = [](Array<T> const& x, std::int64_t i) { return detail::axis_index(x, x.ndim() - 1, i); };
  if (na == 2 && nb == 2) return at(a, 0) * at(b, 1) - at(a, 1) * at(b, 0);
  auto const a0 = at(a, 0), a1 = at(a, 1), b0 = at(b, 0), b1 = at(b, 1);
  auto const a2 = na == 3 ? at(a, 2) : zeros_like(a0), b2 = nb == 3 ? at(b, 2) : zeros_like(b0);
  auto const c = stack(std::vector<Array<T>>{a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0});
  return moveaxis(c, 0, axisc);
}

}  // namespace jaxcc::numpy
