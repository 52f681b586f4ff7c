// jax.numpy's set operations on flattened arrays: unique (and
// unique_values, unique_counts, unique_inverse, unique_all, whose tuples
// hold the array API's results), union1d, intersect1d, setdiff1d and
// setxor1d. Results are sorted (lax's order: NaN last); indices, inverse
// indices and counts are int32.
//
// The number of results depends on the data, so under jit, vmap or grad
// pass `size`: the first `size` results are kept, and missing ones are
// `fill_value` (when it is left out: unique and union1d repeat the smallest
// result, intersect1d and setxor1d too (0 when there is none), setdiff1d
// gives 0), as in JAX. unique collapses NaNs into one; the unique_*
// functions keep each NaN (equal_nan=False, as JAX's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/counting.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/cumulative.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/predicates.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/numpy/sorting.hpp"

namespace jaxcc::detail {

/// JAX's error for a set operation on a traced array without `size`.
[[noreturn]] inline void throw_unique_size_needed(std::string_view op) {
  throw Error("Abstract tracer value encountered where concrete value is expected: the number of results of " +
              std::string(op) +
              " of a traced array depends on its values. To make it compatible with jit and other transforms, "
              "specify a concrete value for the size argument, which will determine the output size.");
}

/// Everything unique computes, for a flattened input.
template <Element T>
struct UniqueParts {
  Array<T> values;
  Array<std::int32_t> indices, inverse, counts;
  Array<std::int32_t> count;  // how many unique elements there are (0-d)
};

/// a[1:] - a[:-1] of a vector (a template: instantiated only where used).
template <Element I>
Array<I> vector_diff(Array<I> const& a) {
  auto const n = a.size();
  return lax::slice(a, {1}, {n}) - lax::slice(a, {0}, {n - 1});
}

/// JAX's _unique on the flattened x: sorted (stable), a mask of the first
/// of each run of equal elements, then the first `size` (or all) of them.
template <Element T>
UniqueParts<T> unique_of(Array<T> const& input, bool equal_nan, std::optional<std::int64_t> size,
                         std::optional<double> fill_value, std::string_view op) {
  auto const x = numpy::ravel(input);
  auto const n = x.size();
  if (n == 0 && size && *size != 0 && !fill_value)
    throw_error(op, ": for zero-sized input with nonzero size argument, fill_value must be specified");
  if (!size && x.is_traced()) throw_unique_size_needed(op);
  auto const perm = numpy::argsort(x, 0);
  auto const aux = numpy::take(x, perm, 0, "clip");
  Array<bool> mask = numpy::zeros<bool>(Shape{n});
  if (n > 0) {
    auto const later = lax::slice(aux, {1}, {n}), earlier = lax::slice(aux, {0}, {n - 1});
    Array<bool> differ = later != earlier;
    if constexpr (FloatElement<T>)
      if (equal_nan) differ = numpy::logical_and(differ, numpy::logical_not(numpy::logical_and(
                                                             numpy::isnan(later), numpy::isnan(earlier))));
    mask = numpy::concatenate(std::vector<Array<bool>>{numpy::ones<bool>(Shape{1}), differ}, 0);
  }
  auto const count = size ? *size : static_cast<std::int64_t>(numpy::sum(mask).item());
  auto const ind = nonzero_of(mask, count, std::nullopt)[0];
  UniqueParts<T> out;
  out.count = numpy::sum(mask);
  out.values = n > 0 ? numpy::take(aux, ind, 0, "clip") : aux;
  if (size && fill_value) {
    auto const fill = static_cast<compute_t<T>>(*fill_value);
    out.values = n > 0 ? Array<T>(numpy::where(numpy::arange<std::int32_t>(static_cast<std::int32_t>(count)) <
                                                   numpy::sum(mask),
                                               out.values, fill))
                       : numpy::full<T>(Shape{count}, fill);
  }
  out.indices = n > 0 ? numpy::take(perm, ind, 0, "clip") : perm;
  Array<std::int32_t> const position = numpy::cumsum(mask) - 1;
  out.inverse = numpy::reshape(numpy::zeros<std::int32_t>(Shape{n}).at(perm).set(position), input.shape());
  if (n == 0) {
    out.counts = numpy::zeros<std::int32_t>(Shape{0});
  } else if (size) {
    auto starts = nonzero_of(mask, *size + 1, std::nullopt)[0];
    auto const rest = lax::slice(starts, {1}, {*size + 1});
    starts = numpy::concatenate(
        std::vector<Array<std::int32_t>>{lax::slice(starts, {0}, {1}),
                                         numpy::where(rest != 0, rest, static_cast<std::int32_t>(n))},
        0);
    out.counts = vector_diff(starts);
  } else {
    out.counts = vector_diff(numpy::concatenate(
        std::vector<Array<std::int32_t>>{ind, numpy::full<std::int32_t>(Shape{1}, static_cast<std::int32_t>(n))}, 0));
  }
  return out;
}

/// The elements of the sorted `values` where `keep` holds, the first
/// `size` of them (all without it: concrete data only), missing ones `pad`.
template <Element T>
Array<T> kept_values(Array<T> const& values, Array<bool> const& keep, std::optional<std::int64_t> size,
                     Array<T> const& pad, std::string_view op) {
  if (!size && keep.is_traced()) throw_unique_size_needed(op);
  auto const count = size ? *size : static_cast<std::int64_t>(numpy::sum(keep).item());
  if (values.size() == 0) return numpy::broadcast_to(pad, Shape{count});
  auto const picked = numpy::take(values, numpy::flatnonzero(keep, count), 0, "clip");
  return numpy::where(numpy::arange<std::int32_t>(static_cast<std::int32_t>(count)) < numpy::sum(keep), picked, pad);
}

/// intersect1d's and setxor1d's padding: fill_value, or the smallest result (0 without one).
template <Element T>
Array<T> smallest_or(Array<T> const& values, Array<bool> const& keep, std::optional<double> fill_value) {
  if (fill_value) return numpy::full<T>(Shape{}, *fill_value);
  if (values.size() == 0) return numpy::zeros<T>(Shape{});
  auto const first = numpy::reshape(numpy::take(values, numpy::flatnonzero(keep, 1), 0, "clip"), Shape{});
  return numpy::where(numpy::any(keep), first, compute_t<T>(0));
}

/// The sorted unique elements of x (padded to its size with its smallest
/// element), and which of them are real.
template <Element T>
std::pair<Array<T>, Array<bool>> padded_unique(Array<T> const& x) {
  auto const n = numpy::ravel(x).size();
  auto const parts = unique_of(x, true, n, std::nullopt, "unique");
  return {parts.values, numpy::arange<std::int32_t>(static_cast<std::int32_t>(n)) < parts.count};
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// The sorted unique elements of the flattened x (NaNs collapsed into one).
template <ArrayLike A>
Array<value_type_t<A>> unique(A const& x, std::optional<std::int64_t> size = std::nullopt,
                              std::optional<double> fill_value = std::nullopt) {
  return detail::unique_of(as_array(x), true, size, fill_value, "unique").values;
}
/// unique, each NaN kept (the array API's unique_values).
template <ArrayLike A>
Array<value_type_t<A>> unique_values(A const& x, std::optional<std::int64_t> size = std::nullopt,
                                     std::optional<double> fill_value = std::nullopt) {
  return detail::unique_of(as_array(x), false, size, fill_value, "unique_values").values;
}
/// (values, counts): how often each unique value occurs.
template <ArrayLike A>
std::tuple<Array<value_type_t<A>>, Array<std::int32_t>> unique_counts(
    A const& x, std::optional<std::int64_t> size = std::nullopt, std::optional<double> fill_value = std::nullopt) {
  auto parts = detail::unique_of(as_array(x), false, size, fill_value, "unique_counts");
  return {parts.values, parts.counts};
}
/// (values, inverse_indices): values[inverse_indices] rebuilds x (x's shape).
template <ArrayLike A>
std::tuple<Array<value_type_t<A>>, Array<std::int32_t>> unique_inverse(
    A const& x, std::optional<std::int64_t> size = std::nullopt, std::optional<double> fill_value = std::nullopt) {
  auto parts = detail::unique_of(as_array(x), false, size, fill_value, "unique_inverse");
  return {parts.values, parts.inverse};
}
/// (values, indices of their first occurrences, inverse_indices, counts).
template <ArrayLike A>
std::tuple<Array<value_type_t<A>>, Array<std::int32_t>, Array<std::int32_t>, Array<std::int32_t>> unique_all(
    A const& x, std::optional<std::int64_t> size = std::nullopt, std::optional<double> fill_value = std::nullopt) {
  auto parts = detail::unique_of(as_array(x), false, size, fill_value, "unique_all");
  return {parts.values, parts.indices, parts.inverse, parts.counts};
}

/// The sorted unique elements of both arrays (flattened).
template <ArrayLike A, ArrayLike B>
Array<detail::binary_dtype_t<A, B>> union1d(A const& ar1, B const& ar2, std::optional<std::int64_t> size = std::nullopt,
                                            std::optional<double> fill_value = std::nullopt) {
  using T = detail::binary_dtype_t<A, B>;
  auto const both = concatenate(
      std::vector<Array<T>>{ravel(as_array(ar1).template astype<T>()), ravel(as_array(ar2).template astype<T>())}, 0);
  return detail::unique_of(both, true, size, fill_value, "union1d").values;
}

/// The sorted unique elements of ar1 not in ar2 (in ar1's dtype).
template <ArrayLike A, ArrayLike B>
Array<value_type_t<A>> setdiff1d(A const& ar1, B const& ar2, bool assume_unique = false,
                                 std::optional<std::int64_t> size = std::nullopt,
                                 std::optional<double> fill_value = std::nullopt) {
  using T = value_type_t<A>;
  auto x = ravel(as_array(ar1));
  auto const pad = full<T>(Shape{}, fill_value.value_or(0));
  if (!size && x.is_traced()) detail::throw_unique_size_needed("setdiff1d");
  if (x.size() == 0) return broadcast_to(pad, Shape{size.value_or(0)});
  Array<bool> real = ones<bool>(Shape{x.size()});
  if (!assume_unique) std::tie(x, real) = detail::padded_unique(x);
  auto const keep = logical_and(real, isin(x, ar2, assume_unique, true));
  return detail::kept_values(x, keep, size, pad, "setdiff1d");
}

/// The sorted unique elements in both arrays. `return_indices` is not
/// provided (true raises).
template <ArrayLike A, ArrayLike B>
Array<detail::binary_dtype_t<A, B>> intersect1d(A const& ar1, B const& ar2, bool assume_unique = false,
                                                bool return_indices = false,
                                                std::optional<std::int64_t> size = std::nullopt,
                                                std::optional<double> fill_value = std::nullopt) {
  using T = detail::binary_dtype_t<A, B>;
  if (return_indices) throw Error("intersect1d: return_indices=true is not implemented in jaxcc");
  auto x = ravel(as_array(ar1).template astype<T>());
  auto const y = ravel(as_array(ar2).template astype<T>());
  if (!size && (x.is_traced() || y.is_traced())) detail::throw_unique_size_needed("intersect1d");
  Array<bool> real = ones<bool>(Shape{x.size()});
  if (assume_unique) x = sort(x, 0);
  else std::tie(x, real) = detail::padded_unique(x);
  auto const keep = logical_and(real, isin(x, y));
  return detail::kept_values(x, keep, size, detail::smallest_or(x, keep, fill_value), "intersect1d");
}

/// The sorted elements in exactly one of the arrays (a NaN in both gives
/// none; JAX gives two NaNs then).
template <ArrayLike A, ArrayLike B>
Array<detail::binary_dtype_t<A, B>> setxor1d(A const& ar1, B const& ar2, bool assume_unique = false,
                                             std::optional<std::int64_t> size = std::nullopt,
                                             std::optional<double> fill_value = std::nullopt) {
  using T = detail::binary_dtype_t<A, B>;
  (void)assume_unique;
  auto const x = ravel(as_array(ar1).template astype<T>());
  auto const y = ravel(as_array(ar2).template astype<T>());
  if (!size && (x.is_traced() || y.is_traced())) detail::throw_unique_size_needed("setxor1d");
  auto const united = detail::padded_unique(concatenate(std::vector<Array<T>>{x, y}, 0));
  auto const& both = united.first;
  auto const& real = united.second;
  // A NaN counts as in an array that holds one (JAX's sorted comparison).
  auto const in = [&](Array<T> const& set) {
    Array<bool> found = isin(both, set);
    if constexpr (FloatElement<T>) found = logical_or(found, logical_and(isnan(both), any(isnan(set))));
    return found;
  };
  auto const keep = logical_and(real, Array<bool>(in(x) != in(y)));
  return detail::kept_values(both, keep, size, detail::smallest_or(both, keep, fill_value), "setxor1d");
}

}  // namespace jaxcc::numpy
