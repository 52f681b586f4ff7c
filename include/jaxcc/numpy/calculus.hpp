// jax.numpy's finite differences, integrals and interpolation: diff,
// ediff1d, gradient, trapezoid, interp and unwrap. Each is written as JAX
// writes it, from slices, elementwise ops, concatenation, cumsum,
// searchsorted and take, so grad, vmap and jit go through those rules.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/cumulative.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/numpy/sorting.hpp"
#include "jaxcc/primitives/bits/slice_p.hpp"
#include "jaxcc/primitives/dot_general.hpp"

namespace jaxcc::detail {

/// x[start:stop] along `axis`, with Python's slice bounds (negative counts
/// from the end, out-of-range bounds clamp).
template <Element T>
Array<T> axis_slice(Array<T> const& x, std::int64_t axis, std::int64_t start,
                    std::optional<std::int64_t> stop = std::nullopt) {
  auto const n = x.shape()[static_cast<std::size_t>(axis)];
  auto const bound = [n](std::int64_t i) { return std::clamp<std::int64_t>(i < 0 ? i + n : i, 0, n); };
  auto const lo = bound(start), hi = stop ? bound(*stop) : n;
  return slice_in_dim(x, lo, std::max(lo, hi), 1, axis);
}

/// x[..., i] along `axis` (the axis dropped), with the error of an index into an empty axis.
template <Element T>
Array<T> axis_index(Array<T> const& x, std::int64_t axis, std::int64_t i) {
  auto const n = x.shape()[static_cast<std::size_t>(axis)];
  if (i >= n || i < -n)
    throw_error("index is out of bounds for axis ", axis, " with size ", n);
  auto const at = i < 0 ? i + n : i;
  return lax::squeeze(slice_in_dim(x, at, at + 1, 1, axis), {axis});
}

/// A scalar or an array as an Array of element type R.
template <Element R, class V>
Array<R> value_as(V const& v) {
  if constexpr (Scalar<V>) return filled<R>(Shape{}, static_cast<R>(v));
  else return as_array(v).template astype<R>();
}

/// The dtype of an array concatenated with an optional edge (none: no edge).
template <Element T, class E>
struct with_edge_dtype {
  using type = binary_dtype_t<Array<T>, E>;
};
template <Element T>
struct with_edge_dtype<T, none_t> {
  using type = T;
};

/// diff's prepend or append: a scalar (or 0-d array) broadcast to x's shape
/// with `axis` of size 1, an array as it is; none gives nothing.
template <Element R, class E>
std::optional<Array<R>> diff_edge(E const& edge, Shape shape, std::int64_t axis) {
  if constexpr (std::same_as<E, none_t>) {
    return std::nullopt;
  } else {
    Array<R> e = value_as<R>(edge);
    if (e.ndim() != 0) return e;
    shape[static_cast<std::size_t>(axis)] = 1;
    return numpy::broadcast_to(e, shape);
  }
}

/// Python's floor modulo (jnp.remainder): the remainder takes the divisor's sign.
template <Element T>
Array<T> floor_mod(Array<T> const& x, Array<T> const& y) {
  Array<T> const trunc = lax::rem(x, y);
  return numpy::where(((trunc < T(0)) != (y < T(0))) & (trunc != T(0)), trunc + y, trunc);
}

/// One spacing argument of jnp.gradient: a scalar step, or the coordinates (1-D) along the axis.
template <Element T>
class Spacing {
 public:
  template <Scalar S>
  Spacing(S step) : h_(filled<T>(Shape{}, static_cast<T>(step))) {}
  template <ArrayLike A>
  Spacing(A const& h) : h_(as_array(h).template astype<T>()) {}
  Array<T> const& array() const { return h_; }

 private:
  Array<T> h_;
};

/// jnp.gradient along one axis: second-order central differences inside,
/// first-order one-sided ones at the two edges.
template <Element T>
Array<T> gradient_along_axis(Array<T> const& a, Array<T> const& h, std::int64_t axis) {
  auto const s = [&](std::int64_t start, std::optional<std::int64_t> stop = std::nullopt) {
    return axis_slice(a, axis, start, stop);
  };
  Array<T> upper = s(1, 2) - s(0, 1), lower = s(-1) - s(-2, -1), inner;
  if (h.ndim() == 0) {
    inner = (s(2) - s(0, -2)) * T(0.5) / h;
    lower = lower / h;
    upper = upper / h;
  } else if (h.ndim() == 1) {
    if (h.shape()[0] != a.shape()[static_cast<std::size_t>(axis)])
      throw Error("Spacing arrays must have the same length as the dimension along which the gradient is calculated.");
    Shape hs(a.shape().size(), 1);
    hs[static_cast<std::size_t>(axis)] = h.shape()[0];
    auto const x = h.reshape(hs);
    auto const sx = [&](std::int64_t start, std::optional<std::int64_t> stop = std::nullopt) {
      return axis_slice(x, axis, start, stop);
    };
    upper = upper / (sx(1, 2) - sx(0, 1));
    lower = lower / (sx(-1) - sx(-2, -1));
    Array<T> const dx1 = sx(1, -1) - sx(0, -2), dx2 = sx(2) - sx(1, -1);
    Array<T> const ca = -dx2 / (dx1 * (dx1 + dx2)), cb = (dx2 - dx1) / (dx1 * dx2), cc = dx1 / (dx2 * (dx1 + dx2));
    inner = ca * s(0, -2) + cb * s(1, -1) + cc * s(2);
  } else {
    throw Error("Spacing arrays must be 1D arrays or scalars.");
  }
  return numpy::concatenate(std::vector<Array<T>>{upper, inner, lower}, axis);
}

template <Element T>
std::vector<Array<T>> gradient(Array<T> const& a, std::vector<Spacing<T>> const& spacing, Axes const& axes,
                               std::string const& axis_repr) {
  if (axes.empty()) return {};
  for (auto ax : axes)
    if (a.shape()[static_cast<std::size_t>(ax)] < 2)
      throw Error("Shape of array too small to calculate a numerical gradient, at least 2 elements are required.");
  if (spacing.size() > 1 && spacing.size() != axes.size())
    throw_error("Invalid number of spacing arguments ", spacing.size(), " for axis=", axis_repr);
  std::vector<Array<T>> out;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    auto const h = spacing.empty() ? filled<T>(Shape{}, T(1)) : spacing[spacing.size() == 1 ? 0 : i].array();
    out.push_back(gradient_along_axis(a, h, axes[i]));
  }
  return out;
}

/// jnp.interp's `left` and `right`: none (fp's first or last value), a
/// value, or "extrapolate".
class InterpEdge {
 public:
  InterpEdge() = default;
  InterpEdge(none_t) {}
  template <Scalar S>
  InterpEdge(S value) : value_(static_cast<double>(value)) {}
  InterpEdge(char const* mode) : mode_(mode) {}
  InterpEdge(std::string_view mode) : mode_(std::string(mode)) {}
  /// Checks a string mode; `name` is "left" or "right".
  bool extrapolates(std::string_view name) const {
    if (!mode_) return false;
    if (*mode_ != "extrapolate")
      throw_error("the only valid string value of `", name, "` is 'extrapolate', but got: '", *mode_, "'");
    return true;
  }
  std::optional<double> const& value() const { return value_; }

 private:
  std::optional<double> value_;
  std::optional<std::string> mode_;
};

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// jnp.diff: the n-th discrete difference along `axis` (for bool, `!=` of
/// neighbours), after concatenating `prepend` and `append` (a scalar is
/// broadcast to one slice along the axis). n = 0 returns `a`.
template <ArrayLike A, class P = none_t, class Q = none_t>
auto diff(A const& a, std::int64_t n = 1, std::int64_t axis = -1, P const& prepend = none, Q const& append = none) {
  using T = value_type_t<A>;
  using R = typename detail::with_edge_dtype<typename detail::with_edge_dtype<T, P>::type, Q>::type;
  Array<R> arr = as_array(a).template astype<R>();
  if (n == 0) return arr;
  if (n < 0) detail::throw_error("order must be non-negative but got ", n);
  if (arr.ndim() == 0)
    detail::throw_error("diff requires input that is at least one dimensional; got an array of shape ", arr.shape());
  axis = detail::normalize_axis(axis, arr.ndim(), "diff");
  auto const before = detail::diff_edge<R>(prepend, arr.shape(), axis);
  auto const after = detail::diff_edge<R>(append, arr.shape(), axis);
  if (before || after) {
    std::vector<Array<R>> parts;
    if (before) parts.push_back(*before);
    parts.push_back(arr);
    if (after) parts.push_back(*after);
    arr = concatenate(parts, axis);
  }
  for (std::int64_t i = 0; i < n; ++i) {
    auto const hi = detail::axis_slice(arr, axis, 1), lo = detail::axis_slice(arr, axis, 0, -1);
    if constexpr (std::same_as<R, bool>) arr = hi != lo;
    else arr = hi - lo;
  }
  return arr;
}

/// jnp.ediff1d: the differences of the flattened array, with `to_begin`
/// and `to_end` (flattened, in its dtype) around them.
template <ArrayLike A, class E = none_t, class B = none_t>
  requires(!std::same_as<value_type_t<A>, bool>)
Array<value_type_t<A>> ediff1d(A const& ary, E const& to_end = none, B const& to_begin = none) {
  using T = value_type_t<A>;
  auto const arr = ravel(ary);
  std::vector<Array<T>> parts;
  if constexpr (!std::same_as<B, none_t>) parts.push_back(ravel(detail::value_as<T>(to_begin)));
  parts.push_back(detail::axis_slice(arr, 0, 1) - detail::axis_slice(arr, 0, 0, -1));
  if constexpr (!std::same_as<E, none_t>) parts.push_back(ravel(detail::value_as<T>(to_end)));
  return parts.size() == 1 ? parts[0] : concatenate(parts, 0);
}

/// jnp.gradient of `f` along every axis in `axis` (all by default), one
/// array per axis. `spacing` holds no step (1), one step for every axis,
/// or one per axis; a step is a scalar or the 1-D coordinates along its
/// axis. (JAX returns a lone array for a single axis; here that is the
/// overload with an int axis.)
template <ArrayLike F>
std::vector<Array<float_t<value_type_t<F>>>> gradient(
    F const& f, std::vector<detail::Spacing<float_t<value_type_t<F>>>> const& spacing = {},
    detail::AxisArg const& axis = {}) {
  using T = float_t<value_type_t<F>>;
  auto const a = as_array(f).template astype<T>();
  auto const axes = axis.resolve(a.ndim(), "gradient");
  std::string repr = "None";
  if (!axis.is_all()) repr = axes.size() == 1 ? "(" + std::to_string(axes[0]) + ",)" : detail::axes_string(axes);
  return detail::gradient(a, spacing, axes, repr);
}
/// jnp.gradient along one axis.
template <ArrayLike F>
Array<float_t<value_type_t<F>>> gradient(F const& f, std::vector<detail::Spacing<float_t<value_type_t<F>>>> const& spacing,
                                         std::int64_t axis) {
  using T = float_t<value_type_t<F>>;
  auto const a = as_array(f).template astype<T>();
  return detail::gradient(a, spacing, {detail::normalize_axis(axis, a.ndim(), "gradient")},
                          std::to_string(axis))[0];
}

/// jnp.trapezoid: the integral of `y` along `axis` by the trapezoidal rule,
/// with sample points `x` (1-D, or shaped as y) or, with no x, the spacing
/// `dx` (a scalar, or an array broadcast against y's other axes).
template <ArrayLike Y, class X = none_t, class D = double>
auto trapezoid(Y const& y, X const& x = none, D const& dx = 1.0, std::int64_t axis = -1) {
  using T = float_t<typename detail::with_edge_dtype<value_type_t<Y>, X>::type>;
  auto const y_arr = as_array(y).template astype<T>();
  axis = detail::normalize_axis(axis, y_arr.ndim(), "trapezoid");
  Array<T> dx_arr;
  if constexpr (std::same_as<X, none_t>) {
    dx_arr = detail::value_as<T>(dx);
    if (dx_arr.ndim() > 0) {
      Axes lead;
      for (std::int64_t i = 0; i < y_arr.ndim() - dx_arr.ndim(); ++i) lead.push_back(i);
      dx_arr = moveaxis(lax::expand_dims(dx_arr, lead), axis, -1);
    }
  } else {
    auto const x_arr = as_array(x).template astype<T>();
    dx_arr = x_arr.ndim() == 1 ? diff(x_arr) : moveaxis(diff(x_arr, 1, axis), axis, -1);
  }
  auto const ys = moveaxis(y_arr, axis, -1);
  auto const last = ys.ndim() - 1;
  if (dx_arr.ndim() == 0 || dx_arr.shape().back() == 1) {
    auto const step = dx_arr.ndim() == 0 ? dx_arr : detail::axis_index(dx_arr, dx_arr.ndim() - 1, 0);
    return Array<T>(step * (sum(ys, -1) - T(0.5) * (detail::axis_index(ys, last, 0) + detail::axis_index(ys, last, -1))));
  }
  return Array<T>(T(0.5) * sum(dx_arr * (detail::axis_slice(ys, last, 1) + detail::axis_slice(ys, last, 0, -1)), -1));
}

/// jnp.interp: the piecewise-linear interpolant through (xp, fp) at x, xp
/// increasing. Outside [xp[0], xp[-1]] it is `left` / `right` (fp[0] /
/// fp[-1] by default, or "extrapolate" for the end segment's line); with a
/// `period`, x and xp are taken modulo it (left and right then unused).
template <ArrayLike X, ArrayLike XP, ArrayLike FP>
auto interp(X const& x, XP const& xp, FP const& fp, detail::InterpEdge const& left = {},
            detail::InterpEdge const& right = {}, std::optional<double> period = std::nullopt) {
  using TX = float_t<promote_t<value_type_t<X>, value_type_t<XP>>>;
  using TF = float_t<value_type_t<FP>>;
  using R = promote_t<TX, TF>;
  if (xp.shape() != fp.shape() || xp.ndim() != 1)
    throw Error("xp and fp must be one-dimensional arrays of equal size");
  if (xp.size() == 0) throw Error("interp: xp and fp must not be empty");
  auto x_arr = as_array(x).template astype<TX>();
  auto xp_arr = as_array(xp).template astype<TX>();
  auto fp_arr = as_array(fp).template astype<TF>();
  bool const extrapolate_left = left.extrapolates("left"), extrapolate_right = right.extrapolates("right");
  if (period) {
    auto const p = full<TX>(Shape{}, static_cast<TX>(std::abs(*period)));
    x_arr = detail::floor_mod(x_arr, p);
    xp_arr = detail::floor_mod(xp_arr, p);
    auto const order = argsort(xp_arr);
    xp_arr = take(xp_arr, order, 0);
    fp_arr = take(fp_arr, order, 0);
    xp_arr = concatenate(std::vector<Array<TX>>{detail::axis_slice(xp_arr, 0, -1) - p, xp_arr,
                                                detail::axis_slice(xp_arr, 0, 0, 1) + p});
    fp_arr = concatenate(std::vector<Array<TF>>{detail::axis_slice(fp_arr, 0, -1), fp_arr, detail::axis_slice(fp_arr, 0, 0, 1)});
  }
  auto const n = xp_arr.shape()[0];
  Array<std::int32_t> const i = clip(searchsorted(xp_arr, x_arr, "right"), 1, static_cast<std::int32_t>(n - 1));
  Array<std::int32_t> const i0 = i - 1;
  Array<TF> const f1 = take(fp_arr, i, 0), f0 = take(fp_arr, i0, 0);
  Array<TX> const x0 = take(xp_arr, i0, 0), dx = Array<TX>(take(xp_arr, i, 0) - x0), delta = x_arr - x0;
  constexpr TX epsilon = std::numeric_limits<TX>::epsilon() * std::numeric_limits<TX>::epsilon();
  Array<bool> const dx0 = abs(dx) <= epsilon;  // no NaN gradients where dx is tiny
  Array<R> f = where(dx0, f0, f0 + (delta / where(dx0, TX(1), dx)) * (f1 - f0));
  auto const edge = [&](detail::InterpEdge const& e, std::int64_t at) {
    auto const fallback = detail::axis_index(fp_arr, 0, at).template astype<R>();
    return e.value() ? full<R>(Shape{}, static_cast<R>(*e.value())) : fallback;
  };
  if (!extrapolate_left && !period) f = where(x_arr < detail::axis_index(xp_arr, 0, 0), edge(left, 0), f);
  if (!extrapolate_right && !period) f = where(x_arr > detail::axis_index(xp_arr, 0, -1), edge(right, -1), f);
  return f;
}

/// jnp.unwrap: p with each jump along `axis` larger than `discont` (by
/// default period / 2) replaced by its complement modulo `period`.
template <ArrayLike P>
Array<float_t<value_type_t<P>>> unwrap(P const& p, std::optional<double> discont = std::nullopt,
                                       std::int64_t axis = -1, double period = 2 * std::numbers::pi) {
  using T = float_t<value_type_t<P>>;
  auto const x = as_array(p).template astype<T>();
  axis = detail::normalize_axis(axis, x.ndim(), "unwrap");
  if (x.shape()[static_cast<std::size_t>(axis)] == 0) return x;
  auto const per = full<T>(Shape{}, static_cast<T>(period));
  T const interval = static_cast<T>(period) / T(2);
  Array<T> const dd = diff(x, 1, axis);
  Array<T> ddmod = detail::floor_mod(Array<T>(dd + interval), per) - interval;
  ddmod = where((ddmod == -interval) & (dd > T(0)), interval, ddmod);
  Array<T> const correct = where(abs(dd) < static_cast<T>(discont.value_or(period / 2)), T(0), ddmod - dd);
  return concatenate(
      std::vector<Array<T>>{detail::axis_slice(x, axis, 0, 1), detail::axis_slice(x, axis, 1) + cumsum(correct, axis)},
      axis);
}

}  // namespace jaxcc::numpy
