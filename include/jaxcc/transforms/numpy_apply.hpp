// jax.numpy's apply_along_axis, built on vmap as JAX builds it (so it sits
// in transforms/, above numpy's layer), and apply_over_axes beside it.
// Both are in namespace jaxcc::numpy.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"
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

}  // namespace jaxcc::numpy
