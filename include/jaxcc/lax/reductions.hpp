// jax.lax's reductions: reduce_sum, reduce_prod, reduce_max, reduce_min,
// reduce_and, reduce_or, reduce_xor over listed axes; argmax and argmin;
// cumlogsumexp; and lax.reduce with a computation. lax::add, lax::max and
// lax::min with their identity as init value are the monoid reductions JAX
// recognizes (reduce_sum, reduce_max, reduce_min); any other init value or
// computation (a callable of two arrays) folds the reduced elements into the
// init value in order, as XLA's reduce does on CPU: a scan over them, so it
// differentiates and batches like any scan.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/lax/scan.hpp"
#include "jaxcc/lax/shape_ops.hpp"
#include "jaxcc/lax/windowed_reductions.hpp"
#include "jaxcc/primitives/argminmax.hpp"
#include "jaxcc/primitives/cumulative.hpp"
#include "jaxcc/primitives/reduce.hpp"

namespace jaxcc::detail {

/// A reduction primitive over `axes` (checked by its shape rule, then sorted).
template <class P, Element T>
Array<T> reduce_over(Array<T> const& x, Axes axes) {
  reduce_shape_rule(P::name, x.shape(), axes);
  std::sort(axes.begin(), axes.end());
  return jaxcc::detail::bind<P>({axes}, x);
}

/// `x` with the `axes` moved to the front and merged into one leading
/// dimension (its rows, in row-major order of the reduced indices).
template <Element T>
Array<T> reduced_rows(Array<T> const& x, Axes const& axes) {
  reduce_shape_rule("reduce", x.shape(), axes);
  Axes perm = axes;
  Shape rest;
  std::int64_t n = 1;
  for (auto a : axes) n *= x.shape()[static_cast<std::size_t>(a)];
  for (std::int64_t d = 0; d < x.ndim(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) {
      perm.push_back(d);
      rest.push_back(x.shape()[static_cast<std::size_t>(d)]);
    }
  rest.insert(rest.begin(), n);
  return lax::reshape(lax::transpose(x, perm), rest);
}

/// lax.reduce's general case: init broadcast to the result, then
/// acc = computation(acc, row) for each reduced row in order.
template <Element T, class C>
Array<T> fold_reduce(Array<T> const& x, Array<T> const& init, C const& computation, Axes const& axes) {
  if (init.ndim() != 0) throw_error("reduce: init_value must be a scalar, got shape ", init.shape());
  auto const rows = reduced_rows(x, axes);
  auto const acc = lax::broadcast(init, Shape(rows.shape().begin() + 1, rows.shape().end()));
  auto step = [&computation](Array<T> const& carry, Array<T> const& row) {
    Array<T> out = computation(carry, row);
    if (!(out.shape() == carry.shape()))
      throw_error("reduce: the computation must return an array of its operands' shape ", carry.shape(), ", got ",
                  out.shape());
    return std::pair{out, none};
  };
  return lax::scan(step, acc, rows).first;
}

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.reduce_sum, reduce_prod, reduce_max, reduce_min: over `axes` (non-negative, distinct).
template <ArrayLike A>
Array<value_type_t<A>> reduce_sum(A const& operand, Axes const& axes) {
  return detail::reduce_over<primitives::reduce_sum_p>(as_array(operand), axes);
}
template <ArrayLike A>
Array<value_type_t<A>> reduce_prod(A const& operand, Axes const& axes) {
  return detail::reduce_over<primitives::reduce_prod_p>(as_array(operand), axes);
}
template <ArrayLike A>
Array<value_type_t<A>> reduce_max(A const& operand, Axes const& axes) {
  return detail::reduce_over<primitives::reduce_max_p>(as_array(operand), axes);
}
template <ArrayLike A>
Array<value_type_t<A>> reduce_min(A const& operand, Axes const& axes) {
  return detail::reduce_over<primitives::reduce_min_p>(as_array(operand), axes);
}
/// lax.reduce_and, reduce_or: logical (bool) or bitwise (integer).
template <ArrayLike A>
  requires(!FloatElement<value_type_t<A>>)
Array<value_type_t<A>> reduce_and(A const& operand, Axes const& axes) {
  return detail::reduce_over<primitives::reduce_and_p>(as_array(operand), axes);
}
template <ArrayLike A>
  requires(!FloatElement<value_type_t<A>>)
Array<value_type_t<A>> reduce_or(A const& operand, Axes const& axes) {
  return detail::reduce_over<primitives::reduce_or_p>(as_array(operand), axes);
}
/// lax.reduce_xor: logical (bool) or bitwise (integer) exclusive or.
template <ArrayLike A>
  requires(!FloatElement<value_type_t<A>>)
Array<value_type_t<A>> reduce_xor(A const& operand, Axes const& axes) {
  using T = value_type_t<A>;
  auto const x = as_array(operand);
  auto const xor_ = [](Array<T> const& a, Array<T> const& b) { return Array<T>(a ^ b); };
  return detail::fold_reduce(x, detail::rank0_array<T>(T{0}), xor_, axes);
}

/// lax.reduce of one operand: `computation` is lax::add, lax::max,
/// lax::min or any callable of two arrays returning one; `init_value` is a
/// scalar or a rank-0 array of the operand's dtype.
template <ArrayLike A, class C>
Array<value_type_t<A>> reduce(A const& operand, value_type_t<A> init_value, C const& computation,
                              Axes const& dimensions) {
  using T = value_type_t<A>;
  auto const x = as_array(operand);
  if constexpr (WindowReducer<C>) {
    using Monoid = typename std::remove_cvref_t<C>::monoid;
    if (init_value == Monoid::template identity<T>()) {
      if constexpr (std::same_as<Monoid, primitives::WindowSum>) return reduce_sum(x, dimensions);
      else if constexpr (std::same_as<Monoid, primitives::WindowMax>) return reduce_max(x, dimensions);
      else return reduce_min(x, dimensions);
    }
  }
  return detail::fold_reduce(x, detail::rank0_array<T>(init_value), computation, dimensions);
}
template <ArrayLike A, class C>
Array<value_type_t<A>> reduce(A const& operand, Array<value_type_t<A>> const& init_value, C const& computation,
                              Axes const& dimensions) {
  return detail::fold_reduce(as_array(operand), init_value, computation, dimensions);
}

/// lax.argmax, argmin: the index (dtype I) of the first maximum (minimum)
/// along `axis` (non-negative); NaN counts as the extremum.
template <std::integral I = std::int32_t, ArrayLike A>
Array<I> argmax(A const& operand, std::int64_t axis) {
  auto const x = as_array(operand);
  if (axis < 0 || axis >= x.ndim()) detail::throw_error("Invalid axis ", axis, " for operand shape ", x.shape());
  return convert_element_type<I>(detail::bind<primitives::argmax_p>({axis}, x));
}
template <std::integral I = std::int32_t, ArrayLike A>
Array<I> argmin(A const& operand, std::int64_t axis) {
  auto const x = as_array(operand);
  if (axis < 0 || axis >= x.ndim()) detail::throw_error("Invalid axis ", axis, " for operand shape ", x.shape());
  return convert_element_type<I>(detail::bind<primitives::argmin_p>({axis}, x));
}

/// lax.cumlogsumexp: running log(sum(exp(x))) along `axis` (non-negative),
/// from the end with `reverse`; an associative scan of logaddexp.
template <ArrayLike A>
  requires FloatElement<value_type_t<A>>
Array<value_type_t<A>> cumlogsumexp(A const& operand, std::int64_t axis = 0, bool reverse = false) {
  using T = value_type_t<A>;
  auto const x = as_array(operand);
  if (axis < 0) throw Error("XLA operations do not allow negative axes");
  if (axis >= x.ndim()) detail::throw_error("axis ", axis, " is out of bounds for array of shape ", x.shape());
  auto const logaddexp = [](Array<T> const& a, Array<T> const& b) {
    return Array<T>(detail::binary_as<primitives::logaddexp_p, T>(a, b));
  };
  return associative_scan(logaddexp, x, reverse, axis);
}

}  // namespace jaxcc::lax
