// jax.numpy's descriptive statistics: average (optionally weighted, with
// the sum of weights when `jnp::returned` is passed), ptp (max - min, the
// input dtype kept), cov and corrcoef. Integers are computed as float32
// (int64 as float64), as JAX's promote_dtypes_inexact does; everything is
// composed of reductions, dot and elementwise operations, so grad, vmap and
// jit follow.
#pragma once

#include <cstdint>
#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <limits>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/diagonals.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/linalg.hpp"
#include "jaxcc/numpy/reductions.hpp"

namespace jaxcc::numpy {

/// Pass as average's `returned` to get (average, sum of weights).
struct returned_t {
  explicit constexpr returned_t() = default;
};
inline constexpr returned_t returned{};

}  // namespace jaxcc::numpy

namespace jaxcc::detail {

/// `w` optional as an array of F (none: nothing).
template <Element F, class W>
std::optional<Array<F>> optional_as(W const& w) {
  if constexpr (std::same_as<W, none_t>) return std::nullopt;
  else return as_array(w).template astype<F>();
}

/// JAX's _average: (average, sum of weights), the sum broadcast to the
/// average's shape.
template <Element F>
std::pair<Array<F>, Array<F>> average_of(Array<F> const& a, AxisArg const& axis, std::optional<Array<F>> weights,
                                         bool keepdims) {
  auto const axes = axis.resolve(a.ndim(), "average");
  if (!weights) {
    auto avg = numpy::mean(a, axis, keepdims);
    auto total = numpy::full<F>(avg.shape(), static_cast<F>(reduced_size(a.shape(), axes)));
    return {avg, total};
  }
  Array<F> w = *weights;
  if (w.shape() != a.shape()) {
    if (axis.is_all()) throw Error("average: axis must be specified when shapes of a and weights differ.");
    Shape along;
    for (auto d : axes) along.push_back(a.shape()[static_cast<std::size_t>(d)]);
    if (w.shape() != along)
      throw_error("average: shape of weights ", w.shape(), " must be consistent with shape of a ", a.shape(),
                  " along the specified axis: ", along);
    // The weights' axes in a's order, then size-1 axes everywhere else.
    Axes order(axes.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](auto i, auto j) { return axes[i] < axes[j]; });
    Shape spread(a.shape().size(), 1);
    for (auto d : axes) spread[static_cast<std::size_t>(d)] = a.shape()[static_cast<std::size_t>(d)];
    w = numpy::reshape(numpy::transpose(w, order), spread);
  }
  Array<F> total = numpy::sum(w, axis, keepdims);
  Array<F> avg = numpy::sum(a * w, axis, keepdims) / total;
  if (total.shape() != avg.shape()) total = numpy::broadcast_to(total, avg.shape());
  return {avg, total};
}

/// cov's dtype: m's and y's promoted.
template <class M, class Y>
struct cov_value {
  using type = binary_dtype_t<M, Y>;
};
template <class M>
struct cov_value<M, none_t> {
  using type = value_type_t<M>;
};
template <class M, class Y>
using cov_value_t = typename cov_value<M, Y>::type;

/// atleast_2d(x): a vector or a number as one row.
template <Element F>
Array<F> as_rows(Array<F> const& x, std::string_view name) {
  if (x.ndim() > 2) throw_error("cov: ", name, " has more than 2 dimensions (shape ", x.shape(), ")");
  return x.ndim() == 2 ? x : numpy::reshape(x, Shape{1, x.size()});
}

/// A sample weight vector: one dimension, one weight per observation.
template <Element F>
Array<F> sample_weights(Array<F> const& w, std::int64_t samples, std::string_view name) {
  if (w.ndim() != 1) throw_error("cov: cannot handle multidimensional ", name, " (shape ", w.shape(), ")");
  if (w.shape()[0] != samples)
    throw_error("cov: incompatible numbers of samples and ", name, ": ", samples, " and ", w.shape()[0]);
  return numpy::abs(w);
}

/// JAX's cov on float operands (numpy's formula).
template <Element F>
Array<F> cov_of(Array<F> const& m, std::optional<Array<F>> const& y, bool rowvar, std::int64_t ddof,
                std::optional<Array<F>> const& fweights, std::optional<Array<F>> const& aweights) {
  // As JAX: m (not a vector) is transposed with rowvar false, y unless it is one row.
  if (y) as_rows(*y, "y");
  auto x = as_rows(m, "m");
  if (!rowvar && m.ndim() != 1) x = numpy::transpose(x);
  if (x.shape()[0] == 0) return numpy::zeros<F>(Shape{0, 0});
  if (y) {
    auto more = as_rows(*y, "y");
    if (!rowvar && more.shape()[0] != 1) more = numpy::transpose(more);
    x = numpy::concatenate(std::vector<Array<F>>{x, more}, 0);
  }
  auto const vars = x.shape()[0], samples = x.shape()[1];
  if (samples == 0)
    return numpy::full<F>(vars == 1 ? Shape{} : Shape{vars, vars}, std::numeric_limits<F>::quiet_NaN());
  std::optional<Array<F>> w, aw;
  if (fweights) w = sample_weights(*fweights, samples, "fweights");
  if (aweights) {
    aw = sample_weights(*aweights, samples, "aweights");
    w = w ? Array<F>(*w * *aw) : *aw;
  }
  auto const [avg, totals] = average_of<F>(x, 1, w, false);
  Array<F> const total = numpy::reshape(lax::slice(totals, {0}, {1}), Shape{});
  Array<F> f;
  if (!w) f = numpy::full<F>(Shape{}, static_cast<F>(samples - ddof));
  else if (ddof == 0) f = total;
  else if (!aw) f = total - static_cast<F>(ddof);
  else f = total - static_cast<F>(ddof) * numpy::sum(*w * *aw) / total;
  Array<F> const centered = x - numpy::reshape(avg, Shape{vars, 1});
  Array<F> const weighted = w ? Array<F>(centered * numpy::reshape(*w, Shape{1, samples})) : centered;
  return numpy::squeeze(Array<F>(numpy::dot(centered, numpy::transpose(weighted)) / f));
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// The weighted average along `axis` (all by default): sum(a * weights) /
/// sum(weights); without weights, the mean. `weights` has a's shape, or
/// the shape of a's axes that `axis` names (in that order).
template <ArrayLike A, class W = none_t>
  requires std::same_as<W, none_t> || ArrayLike<W>
Array<float_t<value_type_t<A>>> average(A const& a, detail::AxisArg const& axis = {}, W const& weights = none,
                                        bool returned = false, bool keepdims = false) {
  using F = float_t<value_type_t<A>>;
  if (returned)
    throw Error("average: returned=true gives two results: pass jnp::returned for the (average, sum of weights) tuple");
  return detail::average_of<F>(as_array(a).template astype<F>(), axis, detail::optional_as<F>(weights), keepdims)
      .first;
}
/// (average, sum of weights), the sum broadcast to the average's shape.
template <ArrayLike A, class W = none_t>
  requires std::same_as<W, none_t> || ArrayLike<W>
std::tuple<Array<float_t<value_type_t<A>>>, Array<float_t<value_type_t<A>>>> average(A const& a,
                                                                                   detail::AxisArg const& axis,
                                                                                   W const& weights, returned_t,
                                                                                   bool keepdims = false) {
  using F = float_t<value_type_t<A>>;
  auto [avg, total] =
      detail::average_of<F>(as_array(a).template astype<F>(), axis, detail::optional_as<F>(weights), keepdims);
  return {avg, total};
}

/// The range (max - min) along `axis`, in a's dtype.
template <ArrayLike A>
Array<value_type_t<A>> ptp(A const& a, detail::AxisArg const& axis = {}, bool keepdims = false) {
  // max first, as JAX computes it (its error, for an empty axis, is max's):
  // the operands of `-` are evaluated in no fixed order.
  auto const largest = max(a, axis, keepdims);
  return largest - min(a, axis, keepdims);
}

/// The covariance matrix of the variables in m's rows (columns with
/// `rowvar` false), with y's variables appended; divided by N - ddof (ddof
/// default: 0 with `bias`, else 1), with integer frequency weights and
/// observation weights as numpy's. A single variable gives a 0-d result.
template <ArrayLike M, class Y = none_t, class FW = none_t, class AW = none_t>
  requires(std::same_as<Y, none_t> || ArrayLike<Y>) && (std::same_as<FW, none_t> || ArrayLike<FW>) &&
          (std::same_as<AW, none_t> || ArrayLike<AW>)
Array<float_t<detail::cov_value_t<M, Y>>> cov(M const& m, Y const& y = none, bool rowvar = true, bool bias = false,
                                               std::optional<std::int64_t> ddof = std::nullopt,
                                               FW const& fweights = none, AW const& aweights = none) {
  using F = float_t<detail::cov_value_t<M, Y>>;
  if constexpr (!std::same_as<FW, none_t>)
    static_assert(std::integral<value_type_t<FW>> && !std::same_as<value_type_t<FW>, bool>,
                  "cov: fweights must be integer");
  return detail::cov_of<F>(as_array(m).template astype<F>(), detail::optional_as<F>(y), rowvar,
                           ddof.value_or(bias ? 0 : 1), detail::optional_as<F>(fweights),
                           detail::optional_as<F>(aweights));
}

/// Pearson correlation coefficients: cov(x, y, rowvar) normalized by the
/// standard deviations, clipped to [-1, 1].
template <ArrayLike X, class Y = none_t>
  requires std::same_as<Y, none_t> || ArrayLike<Y>
Array<float_t<detail::cov_value_t<X, Y>>> corrcoef(X const& x, Y const& y = none, bool rowvar = true) {
  auto const c = cov(x, y, rowvar);
  if (c.ndim() == 0) return c / c;
  auto const stddev = sqrt(diag(c));
  auto const n = stddev.size();
  return clip(c / reshape(stddev, Shape{n, 1}) / reshape(stddev, Shape{1, n}), -1, 1);
}

}  // namespace jaxcc::numpy
