// jax.numpy's binning: digitize, histogram_bin_edges, histogram (1-D;
// counts in a's floating dtype, float32 for integers), histogramdd (N
// points of D coordinates, an (N, D) sample: counts of shape (bins...) and
// one edge vector per dimension) and histogram2d (histogramdd of (x, y)). `bins` is a number
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
#include <sstream>
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
#include "jaxcc/numpy/stacking.hpp"

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

/// The D-dimensional histogram's counts from the bin of each point along each
/// dimension (JAX: ravel_multi_index, bincount, the outer bins cut away).
template <Element F>
Array<F> histogram_counts(std::vector<Array<std::int32_t>> const& bins, std::vector<Array<F>> const& edges,
                          Array<F> const& weights, bool density) {
  Shape nbins;
  Axes start, limit;
  for (auto const& e : edges) nbins.push_back(e.size() + 1), start.push_back(1), limit.push_back(e.size());
  Array<std::int32_t> flat = numpy::zeros<std::int32_t>(weights.shape());
  for (std::size_t i = 0; i < bins.size(); ++i) flat = flat * static_cast<std::int32_t>(nbins[i]) + bins[i];
  Array<F> hist = numpy::zeros<F>(Shape{nbins.numel()}).at(flat).add(weights).reshape(nbins);
  hist = lax::slice(hist, start, limit);
  if (!density) return hist;
  hist = hist / numpy::sum(hist);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    auto const n = edges[i].size();
    Shape shape(edges.size(), 1);
    shape[i] = n - 1;
    hist = hist / Array<F>(lax::slice(edges[i], {1}, {n}) - lax::slice(edges[i], {0}, {n - 1})).reshape(shape);
  }
  return hist;
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

/// histogramdd's and histogram2d's bins: a count for every dimension, a
/// count each, or explicit edges each.
template <class B>
concept HistogramBins = std::integral<B> || std::same_as<B, std::vector<std::int64_t>> ||
                        requires(B const& b) { as_array(b[0]); };

/// histogramdd: (counts of shape (bins...), edges per dimension) of the N
/// points of the (N, D) `sample`; each point's weight (default 1) added to
/// the bin it falls in. Counts are in the sample's floating dtype (JAX
/// gives int32 when there are neither weights nor density).
template <ArrayLike S, HistogramBins B = std::int64_t, class W = none_t>
  requires(std::same_as<W, none_t> || ArrayLike<W>)
std::tuple<Array<float_t<value_type_t<S>>>, std::vector<Array<float_t<value_type_t<S>>>>> histogramdd(
    S const& sample, B const& bins = 10,
    std::optional<std::vector<std::pair<double, double>>> const& range = std::nullopt, W const& weights = none,
    bool density = false) {
  using F = float_t<value_type_t<S>>;
  Array<F> const x = as_array(sample).template astype<F>();
  if (x.ndim() != 2) detail::throw_error("histogramdd: sample must be 2-D, of shape (N, D); got shape ", x.shape());
  auto const n = x.shape()[0], d = x.shape()[1];
  Array<F> w = ones<F>(Shape{n});
  if constexpr (!std::same_as<W, none_t>) {
    if (as_array(weights).shape() != Shape{n}) throw Error("histogramdd: should have one weight for each sample.");
    w = as_array(weights).template astype<F>();
  }
  if (range && static_cast<std::int64_t>(range->size()) != d)
    detail::throw_error("histogramdd: for sample.shape=(", n, ", ", d, "), range must be a sequence of ", d,
                        " pairs; got ", range->size());
  if constexpr (!std::integral<B>)
    if (static_cast<std::int64_t>(bins.size()) != d)
      throw Error("histogramdd: should be a bin for each dimension.");
  std::vector<Array<std::int32_t>> bin_of;
  std::vector<Array<F>> edges;
  for (std::int64_t i = 0; i < d; ++i) {
    Array<F> const column = reshape(lax::slice(x, {0, i}, {n, i + 1}), Shape{n});
    auto const range_i = range ? std::optional{(*range)[static_cast<std::size_t>(i)]} : std::nullopt;
    if constexpr (std::integral<B>)
      edges.push_back(histogram_bin_edges(column, static_cast<std::int64_t>(bins), range_i));
    else if constexpr (std::same_as<B, std::vector<std::int64_t>>)
      edges.push_back(histogram_bin_edges(column, bins[static_cast<std::size_t>(i)], range_i));
    else edges.push_back(histogram_bin_edges(column, bins[static_cast<std::size_t>(i)]));
    auto const last = detail::element_at(edges.back(), edges.back().size() - 1);
    Array<std::int32_t> const idx = searchsorted(edges.back(), column, "right");
    bin_of.push_back(where(column == last, idx - 1, idx));
  }
  return {detail::histogram_counts(bin_of, edges, w, density), edges};
}

/// histogram2d: (counts of shape (x bins, y bins), x edges, y edges) of the
/// points (x[i], y[i]); histogramdd of the sample stack([x, y], axis=1).
template <ArrayLike X, ArrayLike Y, HistogramBins B = std::int64_t, class W = none_t>
  requires(std::same_as<W, none_t> || ArrayLike<W>)
auto histogram2d(X const& x, Y const& y, B const& bins = 10,
                 std::optional<std::vector<std::pair<double, double>>> const& range = std::nullopt,
                 W const& weights = none, bool density = false) {
  using T = promote_t<value_type_t<X>, value_type_t<Y>>;
  Array<T> const xs = as_array(x).template astype<T>(), ys = as_array(y).template astype<T>();
  if (xs.ndim() != 1 || ys.shape() != xs.shape())
    detail::throw_error("histogram2d: x and y must be 1-D of one length; got shapes ", xs.shape(), " and ", ys.shape());
  auto [hist, edges] = histogramdd(stack(std::vector<Array<T>>{xs, ys}, 1), bins, range, weights, density);
  return std::tuple{hist, edges[0], edges[1]};
}

}  // namespace jaxcc::numpy
