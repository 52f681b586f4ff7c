// jax.numpy's reductions: sum, prod, max (amax), min (amin), mean, var, std,
// any, all, argmax, argmin. The axis argument is one axis
// (`jnp::sum(x, 0)`), several (`jnp::sum(x, {0, 2})`), or left out (or
// `jaxcc::none`) for all of them;
// negative axes count from the end; keepdims comes third:
// `jnp::sum(x, 1, /*keepdims=*/true)`.
//
// Result dtypes are JAX's with its default 32-bit integers: sum and prod of
// bool, int8, int16 and int32 give int32, of uint8 and uint32 uint32, of
// int64 int64, floats keep theirs; max and min
// keep the input dtype; mean, var and std of integers give float32 (float64
// for int64); any and all give bool; argmax and argmin give int32.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <ranges>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/fusion/evaluate.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/primitives/argminmax.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/reshape.hpp"

namespace jaxcc::detail {

/// The `axis` argument of a reduction: one axis, a list of axes, or all of
/// them (the default, or `jaxcc::none`). `{}` means all axes too; an empty
/// `Axes` variable means none.
class AxisArg {
 public:
  AxisArg() = default;
  AxisArg(none_t) {}
  template <std::integral I>
    requires(!std::same_as<I, bool>)  // `sum(x, true)` is a misplaced keepdims
  AxisArg(I axis) : all_(false), axes_{static_cast<std::int64_t>(axis)} {}
  AxisArg(std::initializer_list<std::int64_t> axes) : all_(false), axes_(axes) {}
  template <std::integral I>
  AxisArg(std::initializer_list<I> axes) : all_(false), axes_(axes) {}
  AxisArg(Axes axes) : all_(false), axes_(std::move(axes)) {}
  /// Axes in any integer range (a std::vector<int>, a std::array<std::size_t, 2>).
  template <std::ranges::input_range R>
    requires std::integral<std::ranges::range_value_t<R>>
  AxisArg(R const& axes) : all_(false), axes_(axes) {}

  /// Whether every axis was asked for (no axis given, or `jaxcc::none`).
  bool is_all() const noexcept { return all_; }

  /// The axes, normalized for an array of `rank` dimensions; `op` names the
  /// operation in the errors for out-of-range and repeated axes.
  Axes resolve(std::int64_t rank, std::string_view op) const {
    if (!all_) return normalize_axes(axes_, rank, op);
    Axes out;
    for (std::int64_t d = 0; d < rank; ++d) out.push_back(d);
    return out;
  }

 private:
  bool all_ = true;
  Axes axes_;
};

/// Number of elements each output of a reduction over `axes` folds.
inline std::int64_t reduced_size(Shape const& shape, Axes const& axes) {
  std::int64_t n = 1;
  for (auto a : axes) n *= shape[static_cast<std::size_t>(a)];
  return n;
}

/// `shape` with the (normalized) `axes` set to 1: a keepdims result's shape.
inline Shape keepdims_shape(Shape shape, Axes const& axes) {
  for (auto a : axes) shape[static_cast<std::size_t>(a)] = 1;
  return shape;
}

/// Reduce with primitive P over normalized axes; with keepdims the reduced
/// axes stay, with size 1.
template <class P, Element T>
Array<T> reduce_over(Array<T> const& x, Axes const& axes, bool keepdims) {
  auto out = jaxcc::detail::bind<P>({axes}, x);
  return keepdims ? lax::reshape(out, keepdims_shape(x.shape(), axes)) : out;
}

/// jnp's reduction path: convert to U, resolve the axes, reduce with P.
template <class P, Element U, ArrayLike A>
Array<U> reduce_as(A const& x, AxisArg const& axis, bool keepdims, std::string_view op) {
  Array<U> const a = fusion::cast<U>(x);
  return reduce_over<P>(a, axis.resolve(a.ndim(), op), keepdims);
}

/// max and min have no identity, so JAX refuses to reduce an empty axis.
inline void require_nonempty_reduction(Shape const& shape, Axes const& axes, std::string_view op) {
  for (auto a : axes)
    if (shape[static_cast<std::size_t>(a)] == 0) {
      std::ostringstream os;
      os << "zero-size array to reduction operation " << op << " which has no identity (shape " << shape
         << ", axes " << Shape(axes.begin(), axes.end()) << ")";
      throw Error(os.str());
    }
}

/// jnp.max / jnp.min: the input dtype kept. Without `initial` an empty
/// reduction is refused; with it, `initial` takes part in every reduction
/// (so an empty one gives it).
template <class P, ArrayLike A>
Array<value_type_t<A>> reduce_extremum(A const& x, AxisArg const& axis, bool keepdims, std::optional<double> initial,
                                       std::string_view op) {
  using T = value_type_t<A>;
  Array<T> const a = x;
  auto const axes = axis.resolve(a.ndim(), op);
  if (!initial) {
    require_nonempty_reduction(a.shape(), axes, op);
    return reduce_over<P>(a, axes, keepdims);
  }
  auto const init = static_cast<compute_t<T>>(*initial);
  if (a.size() == 0)
    return filled<T>(keepdims ? keepdims_shape(a.shape(), axes) : reduce_shape_rule(op, a.shape(), axes), init);
  auto const out = reduce_over<P>(a, axes, keepdims);
  return op == "max" ? Array<T>(numpy::maximum(out, init)) : Array<T>(numpy::minimum(out, init));
}

/// argmax / argmin; no axis means over the flattened array.
template <class P, ArrayLike A>
Array<std::int32_t> arg_reduce(A const& x, std::optional<std::int64_t> axis, bool keepdims, std::string_view op) {
  Array<value_type_t<A>> a = x;
  auto const shape = a.shape();
  Axes dims;
  std::int64_t along = 0;
  if (axis) {
    along = normalize_axis(*axis, a.ndim(), op);
    dims.push_back(along);
  } else {
    for (std::int64_t d = 0; d < a.ndim(); ++d) dims.push_back(d);
    a = lax::reshape(a, Shape{a.size()});
  }
  if (a.shape()[static_cast<std::size_t>(along)] == 0)
    throw Error("attempt to get " + std::string(op) + " of an empty sequence");
  auto out = jaxcc::detail::bind<P>({along}, a);
  return keepdims ? lax::reshape(out, keepdims_shape(shape, dims)) : out;
}

/// sum's and prod's dtype: bool and integers narrower than 32 bits widen to
/// the widest integer of their signedness without x64 (jnp.sum's
/// promote_integers).
template <Element T>
using sum_t = std::conditional_t<std::same_as<T, bool> || std::same_as<T, std::int8_t> || std::same_as<T, std::int16_t>,
                                 std::int32_t, std::conditional_t<std::same_as<T, std::uint8_t>, std::uint32_t, T>>;

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

template <ArrayLike A>
Array<detail::sum_t<value_type_t<A>>> sum(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false) {
  return detail::reduce_as<primitives::reduce_sum_p, detail::sum_t<value_type_t<A>>>(x, axis, keepdims, "sum");
}

template <ArrayLike A>
Array<detail::sum_t<value_type_t<A>>> prod(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false) {
  return detail::reduce_as<primitives::reduce_prod_p, detail::sum_t<value_type_t<A>>>(x, axis, keepdims, "prod");
}

/// NaN-propagating maximum; an empty reduction raises, as in JAX, unless
/// an `initial` value (jnp.max's) takes part.
template <ArrayLike A>
Array<value_type_t<A>> max(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false,
                           std::optional<double> initial = std::nullopt) {
  return detail::reduce_extremum<primitives::reduce_max_p>(x, axis, keepdims, initial, "max");
}

/// NaN-propagating minimum; an empty reduction raises, as in JAX, unless
/// an `initial` value takes part.
template <ArrayLike A>
Array<value_type_t<A>> min(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false,
                           std::optional<double> initial = std::nullopt) {
  return detail::reduce_extremum<primitives::reduce_min_p>(x, axis, keepdims, initial, "min");
}

/// jnp.amax: max under numpy's older name.
template <ArrayLike A>
Array<value_type_t<A>> amax(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false,
                            std::optional<double> initial = std::nullopt) {
  return max(x, axis, keepdims, initial);
}
/// jnp.amin: min under numpy's older name.
template <ArrayLike A>
Array<value_type_t<A>> amin(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false,
                            std::optional<double> initial = std::nullopt) {
  return min(x, axis, keepdims, initial);
}

template <ArrayLike A>
Array<bool> any(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false) {
  return detail::reduce_as<primitives::reduce_or_p, bool>(x, axis, keepdims, "any");
}

template <ArrayLike A>
Array<bool> all(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false) {
  return detail::reduce_as<primitives::reduce_and_p, bool>(x, axis, keepdims, "all");
}

/// The sum in the float dtype, divided by the count; an empty reduction
/// gives nan (0 / 0), as in JAX. 16-bit floats compute in float32 and round
/// the result (jnp.mean's upcast_f16_for_computation), as var and std do.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> mean(A const& x, detail::AxisArg const& axis = {}, bool keepdims = false) {
  using F = float_t<value_type_t<A>>;
  if constexpr (detail::is_half_float<F>) {
    return mean(fusion::cast<float>(x), axis, keepdims).template astype<F>();
  } else {
    Array<F> const a = fusion::cast<F>(x);
    auto const axes = axis.resolve(a.ndim(), "mean");
    auto const total = detail::reduce_over<primitives::reduce_sum_p>(a, axes, keepdims);
    return total / static_cast<F>(detail::reduced_size(a.shape(), axes));
  }
}

/// Variance: the mean squared deviation from the mean, dividing by
/// N - ddof; nan where N - ddof <= 0, as in JAX. ddof comes before keepdims,
/// in jnp.var's order.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> var(A const& x, detail::AxisArg const& axis = {}, double ddof = 0,
                                     bool keepdims = false) {
  using F = float_t<value_type_t<A>>;
  if constexpr (detail::is_half_float<F>) {
    return var(fusion::cast<float>(x), axis, ddof, keepdims).template astype<F>();
  } else {
    Array<F> const a = fusion::cast<F>(x);
    auto const axes = axis.resolve(a.ndim(), "var");
    auto const n = static_cast<F>(detail::reduced_size(a.shape(), axes));
    Array<F> const centered = a - detail::reduce_over<primitives::reduce_sum_p>(a, axes, true) / n;
    auto const total = detail::reduce_over<primitives::reduce_sum_p>(Array<F>(square(centered)), axes, keepdims);
    auto const normalizer = n - static_cast<F>(ddof);
    return total / (normalizer > 0 ? normalizer : std::numeric_limits<F>::quiet_NaN());
  }
}

/// Standard deviation: sqrt(var(x, axis, ddof, keepdims)).
template <ArrayLike A>
Array<float_t<value_type_t<A>>> std(A const& x, detail::AxisArg const& axis = {}, double ddof = 0,
                                     bool keepdims = false) {
  return sqrt(var(x, axis, ddof, keepdims));
}

/// Index of the first maximum (a NaN counts as the maximum) along `axis`.
template <ArrayLike A>
Array<std::int32_t> argmax(A const& x, std::int64_t axis, bool keepdims = false) {
  return detail::arg_reduce<primitives::argmax_p>(x, axis, keepdims, "argmax");
}
/// Index of the first maximum of the flattened array.
template <ArrayLike A>
Array<std::int32_t> argmax(A const& x, none_t = none, bool keepdims = false) {
  return detail::arg_reduce<primitives::argmax_p>(x, std::nullopt, keepdims, "argmax");
}

/// Index of the first minimum (a NaN counts as the minimum) along `axis`.
template <ArrayLike A>
Array<std::int32_t> argmin(A const& x, std::int64_t axis, bool keepdims = false) {
  return detail::arg_reduce<primitives::argmin_p>(x, axis, keepdims, "argmin");
}
/// Index of the first minimum of the flattened array.
template <ArrayLike A>
Array<std::int32_t> argmin(A const& x, none_t = none, bool keepdims = false) {
  return detail::arg_reduce<primitives::argmin_p>(x, std::nullopt, keepdims, "argmin");
}

}  // namespace jaxcc::numpy
