// Array creation: array, asarray, copy, zeros, ones, full, empty (and
// *_like), arange, linspace, logspace, geomspace, eye, identity, meshgrid.
#pragma once

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"

namespace jaxcc::detail {

template <class T>
void nested_shape(std::initializer_list<T> const& list, Shape& shape, std::size_t depth) {
  if (depth == shape.size()) shape.push_back(static_cast<std::int64_t>(list.size()));
  if constexpr (!Element<T>)
    if (list.size() != 0) nested_shape(*list.begin(), shape, depth + 1);
}

template <Element T, class L>
void nested_fill(std::initializer_list<L> const& list, Shape const& shape, std::size_t depth, T*& out) {
  if (static_cast<std::int64_t>(list.size()) != shape[depth]) {
    std::ostringstream os;
    os << "array: ragged nested initializer list: a list at depth " << depth << " has " << list.size()
       << " elements where the first had " << shape[depth] << "; all lists at one depth must have equal lengths";
    throw Error(os.str());
  }
  for (auto const& item : list) {
    if constexpr (std::same_as<L, T>) *out++ = item;
    else nested_fill<T>(item, shape, depth + 1, out);
  }
}

template <Element T, class L>
Array<T> from_nested(std::initializer_list<L> const& list, std::size_t depth) {
  Shape shape;
  nested_shape(list, shape, 0);
  while (shape.size() < depth) shape.push_back(0);  // e.g. {{}}: inner size 0
  auto [out, data] = allocate<T>(shape);
  T* cursor = data;
  if (shape.numel() != 0 || !shape.empty()) nested_fill<T>(list, shape, 0, cursor);
  return out;
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// A rank-0 array holding `value`.
template <Element T>
Array<T> array(T value) {
  return detail::rank0_array(value);
}
/// An array from (nested) initializer lists: `array({{1.f, 2.f}, {3.f, 4.f}})`.
template <Element T>
Array<T> array(std::initializer_list<T> list) {
  return detail::from_nested<T>(list, 1);
}
template <Element T>
Array<T> array(std::initializer_list<std::initializer_list<T>> list) {
  return detail::from_nested<T>(list, 2);
}
template <Element T>
Array<T> array(std::initializer_list<std::initializer_list<std::initializer_list<T>>> list) {
  return detail::from_nested<T>(list, 3);
}
template <Element T>
Array<T> array(std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>> list) {
  return detail::from_nested<T>(list, 4);
}
/// An array of `shape` from row-major `values`.
template <Element T>
Array<T> array(std::vector<T> const& values, Shape shape) {
  return detail::array_of(values, std::move(shape));
}
/// An ArrayLike as an Array (numpy's asarray).
template <ArrayLike A>
Array<value_type_t<A>> asarray(A const& a) {
  return a;
}

/// A copy of `a`'s values (arrays are immutable: a concrete one's buffer is shared).
template <ArrayLike A>
Array<value_type_t<A>> copy(A const& a) {
  return a;
}

template <Element T, Scalar S>
Array<T> full(Shape shape, S value) {
  return detail::filled<T>(std::move(shape), value);
}
template <Element T>
Array<T> zeros(Shape shape) {
  return full<T>(std::move(shape), 0);
}
template <Element T>
Array<T> ones(Shape shape) {
  return full<T>(std::move(shape), 1);
}
// A length for a 1-D array. A template, so that `zeros<float>({})` is the
// rank-0 Shape{} rather than a value-initialized length 0.
template <Element T, std::integral N>
Array<T> zeros(N n) {
  return zeros<T>(Shape{static_cast<std::int64_t>(n)});
}
template <Element T, std::integral N>
Array<T> ones(N n) {
  return ones<T>(Shape{static_cast<std::int64_t>(n)});
}
template <Element T, std::integral N, Scalar S>
Array<T> full(N n, S value) {
  return full<T>(Shape{static_cast<std::int64_t>(n)}, value);
}
template <ArrayLike A>
auto zeros_like(A const& a) {
  return zeros<value_type_t<A>>(a.shape());
}
template <ArrayLike A>
auto ones_like(A const& a) {
  return ones<value_type_t<A>>(a.shape());
}
template <ArrayLike A, Scalar S>
auto full_like(A const& a, S value) {
  return full<value_type_t<A>>(a.shape(), value);
}

/// An array of `shape` whose values are unspecified in numpy; zeros here, as in JAX.
template <Element T = float>
Array<T> empty(Shape shape) {
  return zeros<T>(std::move(shape));
}
template <Element T = float, std::integral N>
Array<T> empty(N n) {
  return zeros<T>(Shape{static_cast<std::int64_t>(n)});
}
template <ArrayLike A>
auto empty_like(A const& prototype) {
  return zeros_like(prototype);
}

/// Values start, start + step, ... below stop (above it for a negative step);
/// element i is start + i * step, computed in double for float dtypes.
template <Element T, Scalar A, Scalar B, Scalar C = int>
Array<T> arange(A start, B stop, C step = 1) {
  if (step == C{0}) throw Error("arange: step must not be zero");
  auto const span = (static_cast<double>(stop) - static_cast<double>(start)) / static_cast<double>(step);
  auto const n = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(span)));
  auto [out, data] = detail::allocate<T>(Shape{n});
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (FloatElement<T>)
      data[i] = static_cast<T>(static_cast<double>(start) + static_cast<double>(i) * static_cast<double>(step));
    else
      data[i] = static_cast<T>(static_cast<std::int64_t>(start) + i * static_cast<std::int64_t>(step));
  }
  return out;
}
template <Element T, Scalar S>
Array<T> arange(S stop) {
  return arange<T>(0, stop, 1);
}

/// `num` evenly spaced values from start to stop (stop included by default).
/// Integer dtypes take the floor of the float values, as JAX does.
template <Element T>
Array<T> linspace(double start, double stop, std::int64_t num = 50, bool endpoint = true) {
  if (num < 0) throw Error("linspace: number of samples, " + std::to_string(num) + ", must be non-negative.");
  auto [out, data] = detail::allocate<T>(Shape{num});
  auto const div = static_cast<double>(endpoint ? num - 1 : num);
  auto const step = div > 0 ? (stop - start) / div : 0.0;
  for (std::int64_t i = 0; i < num; ++i) {
    double v = (endpoint && i == num - 1 && num > 1) ? stop : start + static_cast<double>(i) * step;
    if constexpr (std::is_integral_v<T> && !std::same_as<T, bool>) v = std::floor(v);
    data[i] = static_cast<T>(v);
  }
  return out;
}

/// An n×m array with ones on diagonal k (main diagonal by default).
template <Element T>
Array<T> eye(std::int64_t n, std::int64_t m = -1, std::int64_t k = 0) {
  if (m < 0) m = n;
  if (n < 0) throw Error("eye: negative dimensions are not allowed, got N=" + std::to_string(n));
  auto [out, data] = detail::allocate<T>(Shape{n, m});
  std::fill(data, data + n * m, T{0});
  for (std::int64_t i = 0; i < n; ++i)
    if (i + k >= 0 && i + k < m) data[i * m + i + k] = T{1};
  return out;
}

/// The n×n identity matrix.
template <Element T = float>
Array<T> identity(std::int64_t n) {
  return eye<T>(n);
}

/// `base` raised to `num` evenly spaced exponents from start to stop (stop
/// included by default): power(base, linspace(start, stop)) in T, as JAX.
template <Element T = float>
Array<T> logspace(double start, double stop, std::int64_t num = 50, bool endpoint = true, double base = 10.0) {
  static_assert(FloatElement<T>, "logspace: use a float dtype");
  return power(static_cast<T>(base), linspace<T>(start, stop, num, endpoint));
}

/// `num` values from start to stop spaced evenly on a log scale (a
/// geometric progression); start and stop must share a sign and not be 0.
template <Element T = float>
Array<T> geomspace(double start, double stop, std::int64_t num = 50, bool endpoint = true) {
  static_assert(FloatElement<T>, "geomspace: use a float dtype");
  auto const sign = start > 0 ? 1.0 : start < 0 ? -1.0 : 0.0;
  auto const log10_of = [&](double v) { return static_cast<double>(std::log10(static_cast<T>(v / sign))); };
  return static_cast<T>(sign) * logspace<T>(log10_of(start), log10_of(stop), num, endpoint, 10.0);
}

/// Coordinate grids from 1-D arrays of one dtype, as jnp.meshgrid: with
/// `indexing` "xy" (default; Cartesian) the outputs have shape (len(xs[1]),
/// len(xs[0]), len(xs[2]), ...), with "ij" (matrix) (len(xs[0]), len(xs[1]),
/// ...); output k is xs[k] broadcast along its axis (a stride-0 view). Called
/// as `meshgrid({x, y}, "ij")`, `meshgrid(std::vector{x, y})` or `meshgrid(x, y)`
/// (the variadic form takes "xy" indexing).
template <Element T>
std::vector<Array<T>> meshgrid(std::vector<Array<T>> const& xs, std::string_view indexing = "xy") {
  if (indexing != "xy" && indexing != "ij")
    throw Error("Valid values for indexing are 'xy' and 'ij', got " + std::string(indexing));
  if (std::any_of(xs.begin(), xs.end(), [](auto const& x) { return x.ndim() != 1; })) {
    std::ostringstream os;
    os << "Arguments to jax.numpy.meshgrid must be 1D, got shapes [";
    for (std::size_t i = 0; i < xs.size(); ++i) os << (i ? ", " : "") << xs[i].shape();
    os << ']';
    throw Error(os.str());
  }
  auto const swap = indexing == "xy" && xs.size() >= 2;
  auto const axis_of = [&](std::size_t k) -> std::size_t { return swap && k < 2 ? 1 - k : k; };
  Shape shape(xs.size(), 0);
  for (std::size_t k = 0; k < xs.size(); ++k) shape[axis_of(k)] = xs[k].shape()[0];
  std::vector<Array<T>> out;
  for (std::size_t k = 0; k < xs.size(); ++k)
    out.push_back(lax::broadcast_in_dim(xs[k], shape, Axes{static_cast<std::int64_t>(axis_of(k))}));
  return out;
}
template <ArrayLike A, ArrayLike... B>
  requires(std::same_as<value_type_t<A>, value_type_t<B>> && ...)
std::vector<Array<value_type_t<A>>> meshgrid(A const& x, B const&... rest) {
  return meshgrid(std::vector<Array<value_type_t<A>>>{as_array(x), as_array(rest)...});
}

/// A braced list of arrays (or expressions) of one dtype: `meshgrid({x, y}, "ij")`.
#define JAXCC_MESHGRID_LIST(T)                                                                            \
  template <class D = void>                                                                             \
  std::vector<Array<T>> meshgrid(std::initializer_list<Array<detail::dependent_t<D, T>>> xs,            \
                                 std::string_view indexing = "xy") {                                    \
    return meshgrid(std::vector<Array<T>>(xs), indexing);                                               \
  }
JAXCC_FOR_EACH_ELEMENT(JAXCC_MESHGRID_LIST)
#undef JAXCC_MESHGRID_LIST

}  // namespace jaxcc::numpy
