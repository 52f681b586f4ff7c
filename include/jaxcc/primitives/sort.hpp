// Sorting along one axis: sort (the values) and argsort (their int32
// positions), both stable, in lax.sort's total order: -inf < ... < -0 == 0
// < ... < inf < NaN, every NaN equal to every other. Descending order is
// JAX's: sort is the ascending sort reversed; argsort sorts descending but
// keeps equal elements in their original order (jnp.argsort(descending=True,
// stable=True)). argsort with a `count` below the axis size keeps only the
// first `count` positions, found by a partial sort: lax.top_k.
//
// Derivatives as JAX's (its sort JVP gathers the tangents by the sorting
// permutation): sort expands to argsort and a gather, so the gather's rules
// differentiate it, to any order; argsort's integer output carries no
// tangent.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/integer_valued.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::detail {

/// lax.sort's order: NaN after everything, and equal to every NaN; -0 == 0.
/// Complex numbers by their real parts, then their imaginary parts.
template <Element T>
bool sort_less(T a, T b) noexcept {
  if constexpr (ComplexElement<T>) {
    using R = typename T::value_type;
    if (sort_less<R>(a.real(), b.real())) return true;
    if (sort_less<R>(b.real(), a.real())) return false;
    return sort_less<R>(a.imag(), b.imag());
  } else {
    if constexpr (is_float<T>) {
      if (b != b) return a == a;
      if (a != a) return false;
    }
    return a < b;
  }
}

/// What sort_p and argsort_p share: the axis, the direction, the checks and
/// the batching rule.
template <class Derived>
struct SortAlongAxis {
  template <Element T>
  static void check_axis(std::int64_t axis, Array<T> const& x) {
    if (axis < 0 || axis >= x.ndim())
      throw_error(Derived::name, ": axis ", axis, " is out of bounds for operand shape ", x.shape());
  }
  template <class Params, Element T>
  static auto batch(Params const& p, graph::AxisData const&, std::span<graph::BatchDim const> dims, Array<T> const& x) {
    auto const b = *dims[0];
    auto moved = p;
    if (p.axis >= b) ++moved.axis;
    return std::pair{jaxcc::detail::bind<Derived>(moved, x), b};
  }
  /// Sharded jit: lanes run where they are; a split sorted axis is gathered first.
  template <class Params, Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& x) {
    return whole_along(p.axis, layouts[0], reshard, x, [&](Array<T> const& part) { return jaxcc::detail::bind<Derived>(p, part); });
  }
};

/// The stable order of one lane of n elements (stepping by `stride`) as
/// positions into it, all of them or the first `count`.
template <Element T>
void sort_positions(T const* lane, std::int64_t stride, std::int64_t n, std::int64_t count, bool descending,
                    std::vector<std::int32_t>& order) {
  order.resize(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  auto const before = [&](std::int32_t i, std::int32_t j) {
    T const a = lane[i * stride], b = lane[j * stride];
    return descending ? sort_less(b, a) : sort_less(a, b);
  };
  if (count < n) {  // ties broken by position keep the partial sort stable
    std::partial_sort(order.begin(), order.begin() + count, order.end(),
                      [&](std::int32_t i, std::int32_t j) { return before(i, j) || (!before(j, i) && i < j); });
  } else {
    std::stable_sort(order.begin(), order.end(), before);
  }
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

/// The positions that sort `x` along `axis`, as int32; with `count` < the
/// axis size, only the first `count` of them (lax.top_k's indices).
struct argsort_p : detail::SortAlongAxis<argsort_p>, detail::IntegerValued {
  static constexpr std::string_view name = "argsort";
  struct Params {
    std::int64_t axis;  // non-negative
    bool descending = false;
    std::int64_t count = -1;  // -1: the whole axis
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    check_axis(p.axis, x);
    Shape out = x.shape();
    auto const n = out[static_cast<std::size_t>(p.axis)];
    if (n > std::int64_t{1} << 31)
      detail::throw_error("argsort returns int32 indices, which overflow for an axis of size ", n);
    if (p.count >= 0) {
      if (p.count > n)
        detail::throw_error("k argument to top_k must be no larger than size along axis; got k=", p.count,
                            " with shape=", x.shape(), " and axis=", p.axis);
      out[static_cast<std::size_t>(p.axis)] = p.count;
    }
    return out;
  }
  static std::string params_string(Params const& p) {
    std::string s = "dimension=" + std::to_string(p.axis) + " descending=" + (p.descending ? "True" : "False");
    if (p.count >= 0) s += " k=" + std::to_string(p.count);
    return s;
  }

  template <Element T>
  static Array<std::int32_t> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    auto [out, out_data] = detail::allocate<std::int32_t>(out_shape);
    std::int32_t* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    auto const axis = static_cast<std::size_t>(p.axis);
    auto const n = x.shape()[axis];
    auto const count = p.count >= 0 ? p.count : n;
    auto const out_strides = detail::contiguous_strides(out_shape);
    auto lane_shape = x.shape();
    lane_shape[axis] = 1;  // one call per lane, whatever the output's length
    T const* data = x.data();
    detail::for_each_lane<2>(lane_shape, axis, {x.strides(), out_strides}, [&](auto const& at) {
      thread_local std::vector<std::int32_t> order;
      detail::sort_positions(data + at[0], x.strides()[axis], n, count, p.descending, order);
      for (std::int64_t i = 0; i < count; ++i) dst[at[1] + i * out_strides[axis]] = order[static_cast<std::size_t>(i)];
    });
    return out;
  }
};

/// `x` sorted along `axis` (stable; descending: the ascending sort reversed).
struct sort_p : detail::SortAlongAxis<sort_p> {
  static constexpr std::string_view name = "sort";
  struct Params {
    std::int64_t axis;  // non-negative
    bool descending = false;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    check_axis(p.axis, x);
    return x.shape();
  }
  static std::string params_string(Params const& p) {
    return "dimension=" + std::to_string(p.axis) + " is_stable=True num_keys=1" + (p.descending ? " descending=True" : "");
  }

  /// For the derivatives: the values gathered by their sorting positions.
  /// (Descending: the ascending positions reversed, as the values are.)
  template <Element T>
  static Array<T> expand(Params const& p, Array<T> const& x) {
    auto const last = x.ndim() - 1;
    auto const x_last = detail::move_axis(x, p.axis, last);
    auto order = detail::bind<argsort_p>({last}, x_last);
    if (p.descending) order = detail::reversed_along(order, last);
    auto const sorted = detail::bind<gather_p>({last, gather_p::Mode::clip, {}, last}, x_last, order);
    return detail::move_axis(sorted, last, p.axis);
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    auto [out, out_data] = detail::allocate<T>(out_shape);
    T* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    auto const axis = static_cast<std::size_t>(p.axis);
    auto const n = x.shape()[axis];
    auto const in_stride = x.strides()[axis];
    auto const out_stride = out.strides()[axis];
    T const* data = x.data();
    using Stored = std::conditional_t<std::same_as<T, bool>, unsigned char, T>;
    detail::for_each_lane<2>(x.shape(), axis, {x.strides(), out.strides()}, [&](auto const& at) {
      thread_local std::vector<Stored> lane;  // not std::vector<bool>, whose elements are bits
      lane.resize(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) lane[static_cast<std::size_t>(i)] = data[at[0] + i * in_stride];
      std::stable_sort(lane.begin(), lane.end(), [](Stored a, Stored b) { return detail::sort_less<T>(a, b); });
      if (p.descending) std::reverse(lane.begin(), lane.end());
      for (std::int64_t i = 0; i < n; ++i) dst[at[1] + i * out_stride] = lane[static_cast<std::size_t>(i)];
    });
    return out;
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// lax.top_k: the `k` largest elements along `axis` (default the last) and
/// their int32 positions, largest first; equal elements in their original
/// order (a NaN counts as the largest). Returns (values, indices).
template <ArrayLike A>
std::tuple<Array<value_type_t<A>>, Array<std::int32_t>> top_k(A const& operand, std::int64_t k, std::int64_t axis = -1) {
  auto const x = as_array(operand);
  if (k < 0) detail::throw_error("k argument to top_k must be nonnegative, got ", k);
  if (x.ndim() == 0) detail::throw_error("top_k operand must have >= 1 dimension, got ", x.shape());
  if (axis < -x.ndim() || axis >= x.ndim())
    detail::throw_error("axis argument out of range: axis=", axis, " for operand.shape=", x.shape());
  auto const ax = axis < 0 ? axis + x.ndim() : axis;
  auto const last = x.ndim() - 1;
  auto const x_last = detail::move_axis(x, ax, last);
  auto const indices = detail::bind<primitives::argsort_p>({last, true, k}, x_last);
  auto const values =
      detail::bind<primitives::gather_p>({last, primitives::gather_p::Mode::clip, {}, last}, x_last, indices);
  return {detail::move_axis(values, last, ax), detail::move_axis(indices, last, ax)};
}

}  // namespace jaxcc::lax
