// jax.numpy's binning: digitize, histogram_bin_edges and histogram (1-D;
// counts in a's floating dtype, float32 for integers). `bins` is a number
// of equal bins over `range` (default: a's min to max; a range of width 0
// widens by 0.5 each way) or an array of edges. Values equal to the last
// edge fall in the last bin; values outside the edges are not counted.
// Compositions of searchsorted, scatter-add and elementwise operations, so
// jit and vmap follow, and grad flows through the weights. Equal-width
// edges are JAX's linspace formula in IEEE arithmetic; XLA on CPU may round
// an edge one ulp differently (it multiplies by a divisor's reciprocal), so
// a value exactly on an edge can land one bin apart from JAX's.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/rearrange.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/numpy/sorting.hpp"

namespace jaxcc::detail {

/// Element i of a vector, as a 0-d array.
template <Element T>
Array<T> element_at(Array<T> const& v, std::int64_t i) {
  return numpy::reshape(lax::slice(v, {i}, {i + 1}), Shape{});
}

/// JAX's linspace(start, stop, n + 1) between 0-d arrays: start * (1 - t) +
/// stop * t for t = k / n, then stop itself.
template <Element F>
Array<F> edges_between(Array<F> const& start, Array<F> const& stop, std::int64_t n) {
  Array<F> const t = numpy::arange<F>(static_cast<F>(n)) / static_cast<F>(n);
  return numpy::concatenate(
      std::vector<Array<F>>{start * (F(1) - t) + stop * t, numpy::reshape(stop, Shape{1})}, 0);
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// The index of the bin each x falls in: i with bins[i-1] <= x < bins[i]
/// (bins increasing; `right`: bins[i-1] < x <= bins[i]), or the mirror for
/// decreasing bins. int32, of x's shape.
template <ArrayLike X, ArrayLike B>
Array<std::int32_t> digitize(X const& x, B const& bins, bool right = false) {
  auto const edges = as_array(bins);
  if (edges.ndim() != 1) detail::throw_error("digitize: bins must be a 1-dimensional array; got shape ", edges.shape());
  auto const n = edges.shape()[0];
  if (n == 0) return zeros<std::int32_t>(as_array(x).shape());
  auto const side = right ? "left" : "right";
  auto const ascending = detail::element_at(edges, n - 1) >= detail::element_at(edges, 0);
  return where(ascending, searchsorted(edges, x, side),
               static_cast<std::int32_t>(n) - searchsorted(flip(edges), x, side));
}

/// The bin edges histogram uses: `bins` + 1 equal steps over `range` (a's
/// min and max by default), in a's floating dtype.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> histogram_bin_edges(A const& a, std::int64_t bins = 10,
                                                    std::optional<std::pair<double, double>> range = std::nullopt) {
  using F = float_t<value_type_t<A>>;
  if (bins < 1) detail::throw_error("histogram_bin_edges: bins must be a positive integer, got ", bins);
  Array<F> const x = as_array(a).template astype<F>();
  Array<F> lo = range ? full<F>(Shape{}, range->first) : min(x);
  Array<F> hi = range ? full<F>(Shape{}, range->second) : max(x);
  auto const flat = hi - lo == F(0);
  return detail::edges_between<F>(where(flat, lo - F(0.5), lo), where(flat, hi + F(0.5), hi), bins);
}
/// Explicit edges, as a's floating dtype.
template <ArrayLike A, ArrayLike B>
Array<float_t<value_type_t<A>>> histogram_bin_edges(A const&, B const& bins) {
  auto const edges = as_array(bins);
  if (edges.ndim() != 1) detail::throw_error("histogram_bin_edges: bins must be 1-D, got shape ", edges.shape());
  return edges.template astype<float_t<value_type_t<A>>>();
}

/// (counts, edges): how many elements of a (or the sum of their weights)
/// fall in each bin; with `density`, counts / bin width / total.
template <ArrayLike A, class B = std::int64_t, class W = none_t>
  requires(std::integral<B> || ArrayLike<B>) && (std::same_as<W, none_t> || ArrayLike<W>)
std::tuple<Array<float_t<value_type_t<A>>>, Array<float_t<value_type_t<A>>>> histogram(
    A const& a, B const& bins = 10, std::optional<std::pair<double, double>> range = std::nullopt,
    W const& weights = none, bool density = false) {
  using F = float_t<value_type_t<A>>;
  Array<F> const x = as_array(a).template astype<F>();
  Array<F> w = ones<F>(x.shape());
  if constexpr (!std::same_as<W, none_t>) {
    if (as_array(weights).shape() != x.shape()) throw Error("histogram: weights should have the same shape as a.");
    w = as_array(weights).template astype<F>();
  }
  Array<F> edges;
  if constexpr (std::integral<B>) edges = histogram_bin_edges(x, static_cast<std::int64_t>(bins), range);
  else edges = histogram_bin_edges(x, bins);
  auto const n = edges.size();
  Array<std::int32_t> bin = searchsorted(edges, x, "right");
  bin = where(x == detail::element_at(edges, n - 1), static_cast<std::int32_t>(n - 1), bin);
  Array<F> counts = lax::slice(zeros<F>(Shape{n}).at(ravel(bin)).add(ravel(w)), {1}, {n});
  if (density) {
    Array<F> const widths = lax::slice(edges, {1}, {n}) - lax::slice(edges, {0}, {n - 1});
    counts = counts / widths / sum(counts);
  }
  return {counts, edges};
}

}  // namespace jaxcc::numpy
