// jnp.pad with numpy's modes: "constant" (default), "edge", "wrap",
// "reflect", "symmetric" (reflect_type "even" or "odd"), "linear_ramp",
// "maximum", "minimum", "mean", "median" (over the whole axis, or the
// `stat_length` elements next to each end) and "empty" (zeros, as in JAX).
// Written, axis by axis, as JAX writes it: lax.pad, slices, flips, repeats,
// reductions and concatenations, so every transform goes through their
// rules. The widths are one for every side, {before, after} for every
// axis, or one pair per axis; jnp.pad's keyword arguments are functions:
// `jnp::pad(x, {{1, 2}, {0, 3}}, "reflect", jnp::reflect_type("odd"))`.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/quantile.hpp"
#include "jaxcc/numpy/rearrange.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/pad.hpp"
#include "jaxcc/primitives/slice.hpp"

namespace jaxcc::detail {

/// jnp.pad's keyword arguments, as the keyword functions below set them.
struct PadOptions {
  double constant_value = 0;                // "constant"
  double end_value = 0;                     // "linear_ramp"
  std::optional<std::int64_t> stat_length;  // "maximum", "minimum", "mean", "median"
  std::string reflect_type = "even";        // "reflect", "symmetric"
  std::vector<std::string_view> given;      // the keywords passed, for JAX's check
};

/// One keyword argument: its name and how it sets the options.
template <class Set>
struct PadKeyword {
  std::string_view name;
  Set set;
};
template <class Set>
PadKeyword(std::string_view, Set) -> PadKeyword<Set>;  // clang 14 has no aggregate deduction

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// jnp.pad's `constant_values=` (mode "constant").
inline auto constant_values(double v) {
  return detail::PadKeyword{"constant_values", [v](detail::PadOptions& o) { o.constant_value = v; }};
}
/// jnp.pad's `end_values=` (mode "linear_ramp").
inline auto end_values(double v) {
  return detail::PadKeyword{"end_values", [v](detail::PadOptions& o) { o.end_value = v; }};
}
/// jnp.pad's `stat_length=` (modes "maximum", "minimum", "mean", "median").
inline auto stat_length(std::int64_t n) {
  return detail::PadKeyword{"stat_length", [n](detail::PadOptions& o) { o.stat_length = n; }};
}
/// jnp.pad's `reflect_type=` ("even" or "odd"; modes "reflect", "symmetric").
inline auto reflect_type(std::string_view t) {
  return detail::PadKeyword{"reflect_type", [t = std::string(t)](detail::PadOptions& o) { o.reflect_type = t; }};
}

}  // namespace jaxcc::numpy

namespace jaxcc::detail {

using PadWidths = std::vector<std::array<std::int64_t, 2>>;

template <Element T>
Array<T> pad_stats(Array<T> x, PadWidths const& widths, std::string_view mode, std::optional<std::int64_t> length) {
  if (length && *length == 0) throw Error("stat_length of 0 yields no value for padding");
  for (std::int64_t i = 0; i < x.ndim(); ++i) {
    auto const n = x.shape()[static_cast<std::size_t>(i)];
    auto const [before, after] = widths[static_cast<std::size_t>(i)];
    auto const stat = [&](Array<T> const& part) -> Array<T> {
      if (mode == "maximum") return numpy::max(part, i, true);
      if (mode == "minimum") return numpy::min(part, i, true);
      auto const value = mode == "mean" ? numpy::mean(part, i, true) : numpy::median(part, i, true);
      if constexpr (std::is_integral_v<T>) return Array<float_t<T>>(numpy::round(value)).template astype<T>();
      else return value.template astype<T>();
    };
    auto const take = length ? std::min(*length, n) : n;
    auto const low = stat(slice_in_dim(x, 0, take, 1, i));
    auto const high = length ? stat(slice_in_dim(x, n - take, n, 1, i)) : low;
    x = lax::concatenate(std::vector<Array<T>>{numpy::repeat(low, before, i), x, numpy::repeat(high, after, i)}, i);
  }
  return x;
}

/// JAX's _check_no_padding: the modes that copy the array's own elements
/// skip an empty axis, and cannot pad it.
inline bool skips_empty_axis(std::int64_t size, std::array<std::int64_t, 2> const& width, std::string_view mode) {
  if (size != 0) return false;
  if (width[0] > 0 || width[1] > 0) throw_error("Cannot apply '", mode, "' padding to empty axis");
  return true;
}

/// JAX's _pad_symmetric_or_reflect: mirror images of the array, repeated
/// while the padding is longer than the axis; "odd" reflects through the edge.
template <Element T>
Array<T> pad_mirror(Array<T> x, PadWidths const& widths, bool reflect, bool odd) {
  for (std::int64_t i = 0; i < x.ndim(); ++i) {
    auto const size = x.shape()[static_cast<std::size_t>(i)];
    if (skips_empty_axis(size, widths[static_cast<std::size_t>(i)], reflect ? "reflect" : "symmetric")) continue;
    auto const offset = reflect && size > 1 ? 1 : 0;
    for (bool const before : {true, false}) {
      auto padding = widths[static_cast<std::size_t>(i)][before ? 0 : 1];
      auto const n = [&] { return x.shape()[static_cast<std::size_t>(i)]; };
      auto edge = before ? slice_in_dim(x, 0, 1, 1, i) : slice_in_dim(x, n() - 1, n(), 1, i);
      while (padding > 0) {
        auto const now = std::min(padding, size - offset);
        padding -= now;
        auto part = before ? slice_in_dim(x, offset, offset + now, 1, i)
                           : slice_in_dim(x, n() - now - offset, reflect && size > 1 ? n() - 1 : n(), 1, i);
        part = reversed_along(part, i);
        if (odd) {
          part = Array<T>(T(2) * edge - part);
          if (size > 1) edge = before ? slice_in_dim(part, 0, 1, 1, i) : slice_in_dim(part, now - 1, now, 1, i);
        }
        x = before ? lax::concatenate(std::vector<Array<T>>{part, x}, i) : lax::concatenate(std::vector<Array<T>>{x, part}, i);
      }
    }
  }
  return x;
}

/// JAX's checks: a known mode, and only its own keywords.
inline void check_pad_keywords(std::string_view mode, std::vector<std::string_view> const& given) {
  std::string_view allowed;
  if (mode == "constant") allowed = "constant_values";
  else if (mode == "linear_ramp") allowed = "end_values";
  else if (mode == "maximum" || mode == "minimum" || mode == "mean" || mode == "median") allowed = "stat_length";
  else if (mode == "reflect" || mode == "symmetric") allowed = "reflect_type";
  else if (mode != "empty" && mode != "edge" && mode != "wrap")
    throw_error("Unimplemented padding mode '", mode, "' for np.pad.");
  for (auto const name : given)
    if (name != allowed) throw_error("unsupported keyword arguments for mode '", mode, "': {'", name, "'}");
}

template <Element T>
Array<T> pad_along(Array<T> x, PadWidths const& widths, std::string_view mode, PadOptions const& options) {
  auto const nd = static_cast<std::size_t>(x.ndim());
  if (mode == "constant" || mode == "empty") {
    primitives::pad_p::PaddingConfig config;
    for (auto const& [before, after] : widths) config.push_back({before, after, 0});
    return lax::pad(x, mode == "empty" ? T(0) : static_cast<T>(options.constant_value), config);
  }
  if (mode == "reflect" || mode == "symmetric") {
    if (options.reflect_type != "even" && options.reflect_type != "odd")
      throw_error("reflect_type must be 'even' or 'odd', got '", options.reflect_type, "'");
    return pad_mirror(x, widths, mode == "reflect", options.reflect_type == "odd");
  }
  if (mode == "maximum" || mode == "minimum" || mode == "mean" || mode == "median")
    return pad_stats(x, widths, mode, options.stat_length);
  for (std::size_t i = 0; i < nd; ++i) {
    auto const axis = static_cast<std::int64_t>(i);
    auto const n = x.shape()[i];
    auto const [before, after] = widths[i];
    if ((mode == "edge" || mode == "wrap") && skips_empty_axis(n, widths[i], mode)) continue;
    std::vector<Array<T>> parts;
    if (mode == "edge") {
      parts = {numpy::repeat(slice_in_dim(x, 0, 1, 1, axis), before, axis), x,
               numpy::repeat(slice_in_dim(x, n - 1, n, 1, axis), after, axis)};
    } else if (mode == "wrap") {
      if (before % n) parts.push_back(slice_in_dim(x, n - before % n, n, 1, axis));
      for (std::int64_t r = 0; r < before / n + after / n + 1; ++r) parts.push_back(x);
      if (after % n) parts.push_back(slice_in_dim(x, 0, after % n, 1, axis));
    } else if (mode == "linear_ramp") {
      // From end_value towards the edge, `width` steps, the edge itself left out (linspace, endpoint=False).
      auto const ramp = [&](Array<T> const& edge, std::int64_t width, bool rising) {
        Shape steps(nd, 1);
        steps[i] = width;
        using F64 = detail::dependent_t<T, double>;  // (through T: compiled only where this is)
        auto fraction = numpy::arange<F64>(width) / static_cast<F64>(std::max<std::int64_t>(width, 1));
        Array<double> at = lax::reshape(Array<F64>(fraction), steps);
        if (!rising) at = reversed_along(at, axis);
        auto const start = options.end_value;
        Array<double> const values = start + (edge.template astype<double>() - start) * at;
        if constexpr (std::is_integral_v<T>) return Array<double>(numpy::floor(values)).template astype<T>();
        else return values.template astype<T>();
      };
      // An empty axis has no edge: the slice raises, as in JAX (and numpy).
      parts = {ramp(slice_in_dim(x, 0, 1, 1, axis), before, true), x,
               ramp(slice_in_dim(x, n - 1, n, 1, axis), after, false)};
    }
    x = lax::concatenate(parts, axis);
  }
  return x;
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// A keyword argument of pad: constant_values(v), end_values(v),
/// stat_length(n) or reflect_type("odd").
template <class K>
concept PadKeywordArgument = requires(K const& k, detail::PadOptions& o) {
  { k.name } -> std::convertible_to<std::string_view>;
  k.set(o);
};

/// `a` padded along each axis by widths[d] = {before, after} elements (one
/// pair: the same for every axis), filled as `mode` says; the keywords are
/// jnp.pad's: `jnp::pad(x, 2, "constant", jnp::constant_values(7))`.
template <ArrayLike A, PadKeywordArgument... K>
Array<value_type_t<A>> pad(A const& a, std::vector<std::array<std::int64_t, 2>> widths, std::string_view mode,
                           K const&... keywords) {
  auto const x = as_array(a);
  detail::PadOptions options;
  (keywords.set(options), ...);
  (options.given.push_back(keywords.name), ...);
  detail::check_pad_keywords(mode, options.given);
  if (x.ndim() == 0) return x;
  auto const nd = static_cast<std::size_t>(x.ndim());
  if (widths.size() == 1) widths.assign(nd, widths[0]);
  if (widths.size() != nd)
    detail::throw_error("jnp.pad: pad_width with nd=", nd, " has unsupported shape (", widths.size(),
                        ", 2). Valid shapes are (", nd, ", 2), (1, 2), (2,), (1,), or ().");
  for (auto const& w : widths)
    if (w[0] < 0 || w[1] < 0) throw Error("index can't contain negative values");
  return detail::pad_along(x, widths, mode, options);
}
/// Zeros around: mode "constant".
template <ArrayLike A>
Array<value_type_t<A>> pad(A const& a, std::vector<std::array<std::int64_t, 2>> widths) {
  return pad(a, std::move(widths), "constant");
}
/// {before, after} for every axis.
template <ArrayLike A, PadKeywordArgument... K>
Array<value_type_t<A>> pad(A const& a, std::array<std::int64_t, 2> width, std::string_view mode = "constant",
                           K const&... keywords) {
  return pad(a, std::vector<std::array<std::int64_t, 2>>{width}, mode, keywords...);
}
/// `width` on both sides of every axis.
template <ArrayLike A, PadKeywordArgument... K>
Array<value_type_t<A>> pad(A const& a, std::int64_t width, std::string_view mode = "constant", K const&... keywords) {
  return pad(a, std::vector<std::array<std::int64_t, 2>>{{width, width}}, mode, keywords...);
}

}  // namespace jaxcc::numpy
