// jax.numpy's counting: count_nonzero, nonzero, flatnonzero, argwhere and
// bincount. Counts and indices are int32 (JAX's default integer).
//
// nonzero, flatnonzero and argwhere return as many indices as there are
// nonzero elements, which only concrete data tells: under jit, vmap or grad
// give `size` (a static count: fewer nonzeros are padded with
// `fill_value`, default 0; more are cut off), as in JAX. Likewise bincount
// needs `length` under a transform.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/cumulative.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/bind.hpp"

namespace jaxcc::detail {

/// JAX's ConcretizationTypeError for a data-dependent size, with the
/// argument that would fix it.
[[noreturn]] inline void throw_size_needed(std::string_view op, std::string_view fix) {
  throw Error("Abstract tracer value encountered where concrete value is expected: " + std::string(op) +
              " of a traced array has a size that depends on its values; " + std::string(fix) +
              " to use it under jit, vmap or grad.");
}

/// The count `size` asks for, or the number of trues of `mask` (concrete).
/// (A template, as nonzero_of is: instantiated only where used.)
template <Element B>
std::int64_t static_count(Array<B> const& mask, std::optional<std::int64_t> size, std::string_view op) {
  if (size) {
    if (*size < 0) throw_error(op, ": size must be non-negative, got ", *size);
    return *size;
  }
  if (mask.is_traced()) throw_size_needed(op, "pass a static `size` argument");
  return numpy::sum(mask).item();
}

/// The coordinates of the first `count` trues of `mask` (JAX's nonzero:
/// flat positions by a bincount of the running count), padded with
/// fill_value past the last true.
template <Element B>
std::vector<Array<std::int32_t>> nonzero_of(Array<B> const& mask, std::int64_t count,
                                            std::optional<std::int64_t> fill_value);

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// The number of nonzero elements along `axis` (all by default), int32.
template <ArrayLike A>
Array<std::int32_t> count_nonzero(A const& a, detail::AxisArg const& axis = {}, bool keepdims = false) {
  auto const x = as_array(a);
  return sum(Array<bool>(x != static_cast<detail::compute_t<value_type_t<A>>>(0)), axis, keepdims);
}

/// Counts of each value of the non-negative integers `x` (1-D): out[i] is
/// the number of (or with `weights`, the sum of the weights of) elements
/// equal to i, of length max(minlength, max(x) + 1), or `length` (needed
/// under a transform; larger values are dropped). Negative values count
/// as 0. int32 without weights, weights' dtype with them.
template <ArrayLike X, class W = none_t>
  requires std::same_as<W, none_t> || ArrayLike<W>
auto bincount(X const& x, W const& weights = none, std::int64_t minlength = 0,
              std::optional<std::int64_t> length = std::nullopt) {
  using T = value_type_t<X>;
  static_assert(std::integral<T>, "bincount: x must have an integer type");
  auto const xs = as_array(x).template astype<std::conditional_t<std::same_as<T, bool>, std::int32_t, T>>();
  if (xs.ndim() != 1) detail::throw_error("bincount: only 1-dimensional input supported, got shape ", xs.shape());
  if (minlength < 0) detail::throw_error("bincount: minlength must be non-negative, got ", minlength);
  std::int64_t n = 0;
  if (length) {
    n = *length;
  } else {
    if (xs.is_traced()) detail::throw_size_needed("bincount", "pass a static `length` argument");
    n = xs.size() == 0 ? minlength : std::max<std::int64_t>(minlength, std::max<std::int64_t>(0, max(xs).item()) + 1);
  }
  using I = value_type_t<decltype(xs)>;
  Array<I> const at = maximum(xs, 0);
  if constexpr (std::same_as<W, none_t>) {
    return zeros<std::int32_t>(Shape{n}).at(at).add(1);
  } else {
    auto const w = as_array(weights);
    if (w.shape() != xs.shape())
      throw Error("bincount: type of weights must match type of x. Got x: " + graph::type_string(xs.dtype(), xs.shape()) +
                  " and weights: " + graph::type_string(w.dtype(), w.shape()));
    return zeros<value_type_t<W>>(Shape{n}).at(at).add(w);
  }
}

/// The indices of the nonzero elements, one int32 array per axis of `a`
/// (row-major order). `size` fixes their length (needed under a
/// transform): missing entries are `fill_value` (default 0).
template <ArrayLike A>
std::vector<Array<std::int32_t>> nonzero(A const& a, std::optional<std::int64_t> size = std::nullopt,
                                         std::optional<std::int64_t> fill_value = std::nullopt) {
  auto const x = as_array(a);
  if (x.ndim() == 0)
    throw Error("Calling nonzero on 0d arrays is not allowed. Use jnp::atleast_1d(scalar) first, or flatnonzero.");
  Array<bool> const mask = x != static_cast<detail::compute_t<value_type_t<A>>>(0);
  return detail::nonzero_of(mask, detail::static_count(mask, size, "nonzero"), fill_value);
}

/// The flat indices of the nonzero elements of `a` (nonzero of ravel(a)).
template <ArrayLike A>
Array<std::int32_t> flatnonzero(A const& a, std::optional<std::int64_t> size = std::nullopt,
                                std::optional<std::int64_t> fill_value = std::nullopt) {
  return nonzero(ravel(a), size, fill_value)[0];
}

/// The indices of the nonzero elements as a (count, a.ndim) int32 array,
/// one row per element (a 0-d `a` gives shape (1, 0) or (0, 0)).
template <ArrayLike A>
Array<std::int32_t> argwhere(A const& a, std::optional<std::int64_t> size = std::nullopt,
                             std::optional<std::int64_t> fill_value = std::nullopt) {
  auto const x = as_array(a);
  auto const coordinates = nonzero(x.ndim() == 0 ? reshape(x, Shape{1}) : x, size, fill_value);
  auto const count = coordinates[0].size();
  if (x.ndim() == 0) return zeros<std::int32_t>(Shape{count, 0});
  return stack(coordinates, 1);
}

}  // namespace jaxcc::numpy

namespace jaxcc::detail {

template <Element B>
std::vector<Array<std::int32_t>> nonzero_of(Array<B> const& mask, std::int64_t count,
                                            std::optional<std::int64_t> fill_value) {
  auto const& shape = mask.shape();
  std::vector<Array<std::int32_t>> out;
  if (mask.size() == 0 || count == 0) {
    for (std::size_t d = 0; d < shape.size(); ++d) out.push_back(numpy::zeros<std::int32_t>(Shape{count}));
    return out;
  }
  auto const running = numpy::cumsum(numpy::ravel(mask));
  Array<std::int32_t> const flat = numpy::cumsum(numpy::bincount(running, none, 0, count));
  std::int64_t stride = mask.size();
  std::optional<Array<bool>> past_end;
  if (fill_value) past_end = numpy::arange<std::int32_t>(static_cast<std::int32_t>(count)) >= numpy::sum(mask);
  for (auto const n : shape) {
    stride /= n;
    Array<std::int32_t> coordinate =
        binary<primitives::rem_p>(binary<primitives::div_p>(flat, static_cast<std::int32_t>(stride)),
                                  static_cast<std::int32_t>(n));
    if (past_end) coordinate = numpy::where(*past_end, static_cast<std::int32_t>(*fill_value), coordinate);
    out.push_back(coordinate);
  }
  return out;
}

}  // namespace jaxcc::detail
