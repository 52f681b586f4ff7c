// jax.numpy's products: dot, matmul, vdot, inner, outer, tensordot. Each is
// one lax.dot_general (outer is a broadcast multiply), with the operands
// promoted to their common dtype as jnp does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/primitives/dot_general.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/squeeze.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::detail {

/// An abstract value as JAX prints it in type errors: `float32[2,3,4]`.
template <ArrayLike A>
std::string aval_string(A const& x) {
  std::string s(name(dtype_of<value_type_t<A>>));
  s += '[';
  for (std::int64_t d = 0; d < x.ndim(); ++d) {
    if (d) s += ',';
    s += std::to_string(x.shape()[static_cast<std::size_t>(d)]);
  }
  return s + ']';
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// numpy.dot: a product with a scalar (rank 0) operand multiplies; otherwise
/// the last axis of `a` is contracted with the only axis of a 1-D `b`, or with
/// the second-to-last axis of `b`. Result shape: a.shape[:-1] + b.shape[:-2] +
/// b.shape[-1:] (batch dims stacked, not broadcast).
template <ArrayLike A, ArrayLike B>
auto dot(A const& a, B const& b) {
  auto const an = a.ndim(), bn = b.ndim();
  if (an == 0 || bn == 0) return lax::dot_general(a, b, {});
  return lax::dot_general(a, b, {{an - 1}, {bn == 1 ? 0 : bn - 2}});
}

/// numpy.matmul: a matrix product over the last two axes, with the leading
/// (batch) axes broadcast. A 1-D operand is a vector: a row on the left, a
/// column on the right, its axis dropped from the result.
template <ArrayLike A, ArrayLike B>
auto matmul(A const& a_in, B const& b_in) {
  using T = promote_t<value_type_t<A>, value_type_t<B>>;
  if (a_in.ndim() < 1 || b_in.ndim() < 1)
    throw Error("matmul input operand " + std::to_string(a_in.ndim() < 1 ? 0 : 1) +
                " must have ndim at least 1, but it has ndim 0");
  auto a = detail::array_as<T>(a_in);
  auto b = detail::array_as<T>(b_in);
  bool const a_is_mat = a.ndim() > 1, b_is_mat = b.ndim() > 1;
  auto const a_nbatch = a_is_mat ? a.ndim() - 2 : 0, b_nbatch = b_is_mat ? b.ndim() - 2 : 0;
  auto const nbatch = std::max(a_nbatch, b_nbatch);
  // As jnp.matmul: a batch axis that only one side has (or where the other
  // side's size is 1) is a free axis of that side, so no operand is broadcast;
  // the result is transposed back into batch order, a view.
  Axes a_squeeze, b_squeeze, a_batch, b_batch, out_batch, out_a_free, out_b_free;
  for (std::int64_t i = 0; i < nbatch; ++i) {
    auto const ai = i - (nbatch - a_nbatch), bi = i - (nbatch - b_nbatch);
    auto const ba = ai >= 0 ? a.shape()[static_cast<std::size_t>(ai)] : -1;
    auto const bb = bi >= 0 ? b.shape()[static_cast<std::size_t>(bi)] : -1;
    auto const a_pos = static_cast<std::int64_t>(out_batch.size() + out_a_free.size());
    auto const b_pos = static_cast<std::int64_t>(out_batch.size() + out_b_free.size());
    if (ba < 0) {
      out_b_free.push_back(i);
    } else if (bb < 0) {
      out_a_free.push_back(i);
    } else if (ba == bb) {  // sizes 1 and 1 included: a size-1 batch costs nothing
      a_batch.push_back(a_pos);
      b_batch.push_back(b_pos);
      out_batch.push_back(i);
    } else if (ba == 1) {
      out_b_free.push_back(i);
      a_squeeze.push_back(a_pos + static_cast<std::int64_t>(a_squeeze.size()));
    } else if (bb == 1) {
      out_a_free.push_back(i);
      b_squeeze.push_back(b_pos + static_cast<std::int64_t>(b_squeeze.size()));
    } else {
      throw Error("Incompatible types for matmul arguments: " + detail::aval_string(a_in) + " and " +
                  detail::aval_string(b_in));
    }
  }
  if (a_is_mat) out_a_free.push_back(nbatch);
  if (b_is_mat) out_b_free.push_back(nbatch + a_is_mat);
  a = lax::squeeze(a, a_squeeze);
  b = lax::squeeze(b, b_squeeze);
  auto out = lax::dot_general(a, b, {{a.ndim() - 1}, {b.ndim() - 1 - b_is_mat}, a_batch, b_batch});
  // dot_general's axis j (batch, then a's free, then b's free) is result axis order[j].
  Axes order = out_batch;
  for (auto i : out_a_free) order.push_back(i);
  for (auto i : out_b_free) order.push_back(i);
  Axes perm(order.size(), 0);
  bool identity = true;
  for (std::size_t j = 0; j < order.size(); ++j) {
    perm[static_cast<std::size_t>(order[j])] = static_cast<std::int64_t>(j);
    identity = identity && order[j] == static_cast<std::int64_t>(j);
  }
  return identity ? out : lax::transpose(out, perm);
}

/// numpy.vdot: the dot product of the flattened operands, the first one
/// conjugated where it is complex.
template <ArrayLike A, ArrayLike B>
auto vdot(A const& a, B const& b) {
  auto const x = as_array(a).reshape({-1});
  if constexpr (ComplexElement<value_type_t<A>>) return dot(detail::conjugate(x), as_array(b).reshape({-1}));
  else return dot(x, as_array(b).reshape({-1}));
}

/// numpy.outer: out[i, j] = a.ravel()[i] * b.ravel()[j].
template <ArrayLike A, ArrayLike B>
auto outer(A const& a, B const& b) {
  return as_array(as_array(a).reshape({-1, 1}) * as_array(b).reshape({1, -1}));
}

/// numpy.tensordot with an int: contract the last `axes` axes of `a` with
/// the first `axes` axes of `b`, in order.
template <ArrayLike A, ArrayLike B>
auto tensordot(A const& a, B const& b, std::int64_t axes = 2) {
  auto const an = a.ndim(), bn = b.ndim();
  if (axes > std::min(an, bn))
    throw Error("Number of tensordot axes (axes " + std::to_string(axes) + ") exceeds input ranks (" +
                to_string(a.shape()) + " and " + to_string(b.shape()) + ")");
  Axes a_axes, b_axes;
  for (std::int64_t i = 0; i < axes; ++i) {  // as jnp, axes < 0 contracts nothing
    a_axes.push_back(an - axes + i);
    b_axes.push_back(i);
  }
  return lax::dot_general(a, b, {a_axes, b_axes});
}

/// numpy.tensordot with axis lists: contract a's `axes.first[i]` with b's
/// `axes.second[i]`; negative axes count from the end.
template <ArrayLike A, ArrayLike B>
auto tensordot(A const& a, B const& b, std::pair<Axes, Axes> const& axes) {
  if (axes.first.size() != axes.second.size())
    throw Error("tensordot requires axes lists to have equal length, got " + detail::axes_list_string(axes.first) +
                " and " + detail::axes_list_string(axes.second) + ".");
  Axes a_axes, b_axes;
  for (auto i : axes.first) a_axes.push_back(detail::normalize_axis(i, a.ndim(), "tensordot"));
  for (auto i : axes.second) b_axes.push_back(detail::normalize_axis(i, b.ndim(), "tensordot"));
  return lax::dot_general(a, b, {a_axes, b_axes});
}

/// numpy.inner: contract the last axes of both; a scalar operand multiplies.
template <ArrayLike A, ArrayLike B>
auto inner(A const& a, B const& b) {
  if (a.ndim() == 0 || b.ndim() == 0) return lax::dot_general(a, b, {});
  return tensordot(a, b, {{-1}, {-1}});
}

}  // namespace jaxcc::numpy
