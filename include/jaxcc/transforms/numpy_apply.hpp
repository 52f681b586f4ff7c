// jax.numpy's apply_along_axis and fromfunction, built on vmap as JAX
// builds them (so they sit in transforms/, above numpy's layer), and
// apply_over_axes beside them. All are in namespace jaxcc::numpy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/transforms/vmap.hpp"

namespace jaxcc::numpy {

/// func1d applied to every 1-D slice of `arr` along `axis`: the slices'
/// other axes are vmapped, so func1d sees one slice of shape (n,) and may
/// return any shape, whose axes take the place of `axis` in the result.
template <class F, ArrayLike A>
auto apply_along_axis(F const& func1d, std::int64_t axis, A const& arr) {
  using T = value_type_t<A>;
  using R = decltype(as_array(func1d(std::declval<Array<T> const&>())));
  auto const x = as_array(arr);
  auto const n = x.ndim();
  auto const ax = detail::normalize_axis(axis, n, "apply_along_axis");
  std::function<R(Array<T> const&)> func = [&func1d](Array<T> const& a) { return R(func1d(a)); };
  for (std::int64_t i = 1; i < n - ax; ++i)
    func = [inner = func, i](Array<T> const& a) { return R(vmap(inner, in_axes(i), out_axes(-1))(a)); };
  for (std::int64_t i = 0; i < ax; ++i)
    func = [inner = func](Array<T> const& a) { return R(vmap(inner, in_axes(0), out_axes(0))(a)); };
  return func(x);
}

/// func(a, axis) applied for each of `axes` in turn; a result with one axis
/// fewer gets it back (size 1), so reductions keep their rank. func must
/// keep a's dtype.
template <class F, ArrayLike A>
Array<value_type_t<A>> apply_over_axes(F const& func, A const& a, Axes const& axes) {
  Array<value_type_t<A>> x = as_array(a);
  for (auto axis : axes) {
    Array<value_type_t<A>> const b = func(x, axis);
    if (b.ndim() == x.ndim()) x = b;
    else if (b.ndim() == x.ndim() - 1) x = expand_dims(b, axis);
    else throw Error("function is not returning an array of the correct shape");
  }
  return x;
}

/// fromfunction: the array of `shape` (rank 1 to 3, a braced list) whose
/// element at (i, j, ...) is function(i, j, ...); the indices are 0-d arrays
/// of dtype T (default float32), and `function` is vmapped over each of
/// them in turn (JAX's construction), so it sees scalars and may return any
/// shape, whose axes follow shape's.
template <Element T = float, class F, std::size_t N>
  requires(N >= 1 && N <= 3)
auto fromfunction(F const& function, std::int64_t const (&shape)[N]) {
  auto const index = [&shape](std::size_t i) { return arange<T>(static_cast<T>(shape[i])); };
  if constexpr (N == 1) {
    return vmap(function, in_axes(0))(index(0));
  } else if constexpr (N == 2) {
    auto const inner = vmap(function, in_axes(none, 0));
    return vmap(inner, in_axes(0, none))(index(0), index(1));
  } else {
    auto const inner = vmap(function, in_axes(none, none, 0));
    auto const middle = vmap(inner, in_axes(none, 0, none));
    return vmap(middle, in_axes(0, none, none))(index(0), index(1), index(2));
  }
}

}  // namespace jaxcc::numpy
