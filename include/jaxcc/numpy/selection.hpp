// jax.numpy's selection functions: select, choose, piecewise, compress,
// extract, place, put, put_along_axis. Built from where (select), gathers
// and scatters (at[].set), cumsum and argsort, so grad, vmap and jit go
// through their rules; none adds a primitive. What numpy decides from
// values (compress without a size, choose's "raise") needs concrete arrays,
// with JAX's concretization error under jit.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/cumulative.hpp"
#include "jaxcc/numpy/editing.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/index_helpers.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/rearrange.hpp"
#include "jaxcc/numpy/sorting.hpp"

namespace jaxcc::detail {

/// The 1-D `v` repeated and cut to n elements (JAX's _tile_to_size).
template <Element T>
Array<T> tile_to_size(Array<T> const& v, std::int64_t n) {
  if (v.size() == n) return v;
  auto const reps = (n + v.size() - 1) / v.size();
  return lax::slice(numpy::tile(v, std::max<std::int64_t>(reps, 1)), Axes{0}, Axes{n});
}

/// One index array per axis of `shape`, broadcastable together, with
/// `at_axis` at `axis` and aranges elsewhere (JAX's _make_along_axis_idx).
template <class = void>
std::vector<IndexItem> along_axis_items(Shape const& shape, Array<std::int32_t> const& at_axis, std::int64_t axis) {
  std::vector<IndexItem> items;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    Shape grid(shape.size(), 1);
    grid[d] = shape[d];
    auto const index = static_cast<std::int64_t>(d) == axis
                           ? at_axis
                           : lax::reshape(numpy::arange<std::int32_t>(shape[d]), grid);
    items.push_back(IndexItem{IndexItem::Kind::array, 0, {}, index});
  }
  return items;
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// Element-wise, choicelist[i] for the first i whose condlist[i] holds,
/// else `default_`; every array broadcasts together.
template <Element T, class D = T>
  requires detail::ArrayOrScalar<D>
Array<T> select(std::vector<Array<bool>> const& condlist, std::vector<Array<T>> const& choicelist, D const& default_ = D(0)) {
  if (condlist.size() != choicelist.size())
    detail::throw_error("condlist must have length equal to choicelist (", condlist.size(), " vs ", choicelist.size(),
                        ")");
  if (condlist.empty()) throw Error("condlist must be non-empty");
  std::vector<Shape> shapes;
  for (auto const& c : condlist) shapes.push_back(c.shape());
  for (auto const& c : choicelist) shapes.push_back(c.shape());
  if constexpr (ArrayLike<D>) shapes.push_back(default_.shape());
  auto const shape = broadcast_shapes(shapes);
  Array<T> out = broadcast_to(detail::as_values<T>(default_), shape);
  for (auto i = condlist.size(); i-- > 0;) out = where(condlist[i], choicelist[i], out);
  return broadcast_to(out, shape);
}

/// Element-wise, choices[a] (a, the choices broadcast together). `mode`:
/// "raise" (default; `a` must be concrete and in [0, len(choices))), "wrap"
/// (modulo), "clip".
template <ArrayLike A, Element T>
  requires std::integral<value_type_t<A>>
Array<T> choose(A const& a, std::vector<Array<T>> const& choices, std::string_view mode = "raise") {
  auto const n = static_cast<std::int32_t>(choices.size());
  Array<std::int32_t> idx = as_array(a).template astype<std::int32_t>();
  if (mode == "raise") {
    if (idx.is_traced())
      detail::throw_concretization_error(idx.shape(), idx.dtype(),
                                         "jnp::choose with mode='raise'; under jit use mode='wrap' or mode='clip' "
                                         "instead");
    for (auto v : idx.to_vector())
      if (v < 0 || v >= n) throw Error("invalid entry in choice array");
  } else if (mode == "wrap") {
    idx = detail::floor_divmod(idx, n).second;
  } else if (mode == "clip") {
    idx = clip(idx, 0, n - 1);
  } else {
    detail::throw_error("mode='", mode, "' not understood. Must be 'raise', 'wrap', or 'clip'");
  }
  std::vector<Shape> shapes{idx.shape()};
  for (auto const& c : choices) shapes.push_back(c.shape());
  auto const shape = broadcast_shapes(shapes);
  Array<T> out = broadcast_to(choices.at(0), shape);
  for (std::int32_t k = 1; k < n; ++k) out = where(idx == k, choices[static_cast<std::size_t>(k)], out);
  return out;
}

/// Braced lists of arrays or expressions of one dtype: `select({x > 0}, {x * 2.f})`.
#define JAXCC_SELECTION_LIST(T)                                                                                  \
  template <class D = void>                                                                                     \
  Array<T> select(std::vector<Array<bool>> const& condlist,                                                     \
                  std::initializer_list<Array<detail::dependent_t<D, T>>> choicelist, T default_ = T(0)) {      \
    return select(condlist, std::vector<Array<T>>(choicelist), default_);                                       \
  }                                                                                                             \
  template <class D = void>                                                                                     \
  Array<T> select(std::vector<Array<bool>> const& condlist,                                                     \
                  std::initializer_list<Array<detail::dependent_t<D, T>>> choicelist, Array<T> const& default_) { \
    return select(condlist, std::vector<Array<T>>(choicelist), default_);                                       \
  }                                                                                                             \
  template <ArrayLike A>                                                                                        \
    requires std::integral<value_type_t<A>>                                                                     \
  Array<T> choose(A const& a, std::initializer_list<Array<T>> choices, std::string_view mode = "raise") {       \
    return choose(a, std::vector<Array<T>>(choices), mode);                                                     \
  }
JAXCC_FOR_EACH_ELEMENT(JAXCC_SELECTION_LIST)
#undef JAXCC_SELECTION_LIST

/// `x` mapped piece by piece: where condlist[i] holds, funclist[i](x) (the
/// last true condition wins); elsewhere funclist[n](x) when there is one
/// function more than conditions, else 0. Each function gets all of x, so
/// it must work element-wise (JAX calls it per element under vmap); a
/// constant is a function that returns it.
template <ArrayLike X, class F>
Array<value_type_t<X>> piecewise(X const& x, std::vector<Array<bool>> const& condlist, std::vector<F> const& funclist) {
  using T = value_type_t<X>;
  auto const xs = as_array(x);
  auto const nc = condlist.size(), nf = funclist.size();
  if (nf != nc && nf != nc + 1)
    detail::throw_error("with ", nc, " condition(s), either ", nc, " or ", nc + 1, " functions are expected; got ", nf);
  auto const value = [&](std::size_t i) { return broadcast_to(Array<T>(fusion::cast<T>(funclist[i](xs))), xs.shape()); };
  Array<T> out = nf == nc + 1 ? value(nc) : zeros<T>(xs.shape());
  for (std::size_t i = 0; i < nc; ++i) out = where(condlist[i], value(i), out);
  return out;
}

/// The slices of `a` along `axis` (none: of a flattened) where the 1-D
/// `condition` holds. Without `size` the condition must be concrete;
/// with it, the first `size` selected slices, the rest `fill_value`.
template <ArrayLike C, ArrayLike A>
Array<value_type_t<A>> compress(C const& condition, A const& a, detail::OptionalAxis const& axis = none,
                                std::optional<std::int64_t> size = {}, value_type_t<A> fill_value = 0) {
  using T = value_type_t<A>;
  Array<bool> const cond = fusion::cast<bool>(condition);
  if (cond.ndim() != 1) throw Error("condition must be a 1D array");
  auto [arr, ax] = detail::along(as_array(a), axis, "compress");
  auto const n = arr.shape()[static_cast<std::size_t>(ax)];
  auto const m = std::min(n, cond.size());
  if (!size) {
    if (cond.is_traced())
      detail::throw_concretization_error(cond.shape(), cond.dtype(), "jnp::compress without a size");
    auto const c = cond.to_vector();
    std::vector<std::int32_t> keep;
    for (std::int64_t i = 0; i < cond.size(); ++i)
      if (c[static_cast<std::size_t>(i)]) {
        if (i >= n) throw Error("condition contains entries that are out of bounds");
        keep.push_back(static_cast<std::int32_t>(i));
      }
    return detail::keep_along(arr, ax, keep);
  }
  if (*size < 0 || *size > m)
    detail::throw_error("size must be positive and not greater than the size of the array axis; got size=", *size,
                        " for a.shape[axis]=", m);
  auto const c = lax::slice(cond, Axes{0}, Axes{m});
  auto const x = detail::slice_in_dim(arr, 0, m, 1, ax);
  Shape mask_shape(static_cast<std::size_t>(x.ndim()), 1);
  mask_shape[static_cast<std::size_t>(ax)] = m;
  Array<T> const filled = where(lax::reshape(c, mask_shape), x, fill_value);
  auto const order = argsort(c.template astype<std::int32_t>(), 0, true);
  return detail::index_array(filled, detail::items_along(x.ndim(), ax, lax::slice(order, Axes{0}, Axes{*size})), false);
}

/// The elements of `arr` where `condition` holds, both flattened (compress).
template <ArrayLike C, ArrayLike A>
Array<value_type_t<A>> extract(C const& condition, A const& arr, std::optional<std::int64_t> size = {},
                               value_type_t<A> fill_value = 0) {
  return compress(ravel(condition), ravel(arr), none, size, fill_value);
}

/// `arr` with the elements where `mask` holds replaced, in order, by the
/// elements of `vals` (repeated as needed). JAX arrays are immutable:
/// `inplace` must be false, as in JAX (whose default, true, raises).
template <ArrayLike A, ArrayLike M, ArrayLike V>
  requires std::same_as<value_type_t<A>, value_type_t<V>>
Array<value_type_t<A>> place(A const& arr, M const& mask, V const& vals, bool inplace = true) {
  auto const data = as_array(arr);
  auto const v = ravel(vals);
  if (inplace)
    throw Error("jax.numpy.place cannot modify arrays in-place, because JAX arrays are immutable. Pass inplace=False "
                "to instead return an updated array.");
  if (data.size() != mask.shape().numel()) throw Error("place: arr and mask must be the same size");
  if (v.size() == 0) throw Error("Cannot place values from an empty array");
  if (data.size() == 0) return data;
  Array<bool> const m = fusion::cast<bool>(ravel(mask));
  // The k-th masked element takes vals[k]: k = cumsum(mask) - 1 there.
  Array<std::int32_t> const rank = cumsum(m.template astype<std::int32_t>()) - 1;
  auto const tiled = detail::tile_to_size(v, data.size());
  auto const taken = take(tiled, clip(rank, 0, static_cast<std::int32_t>(data.size() - 1)), 0, "clip");
  return lax::reshape(Array<value_type_t<A>>(where(m, taken, ravel(data))), data.shape());
}

/// `a` with its flat positions `ind` set to `v` (repeated as needed); as
/// JAX: positions go through unravel_index (negatives count from the end,
/// others outside clip); `mode` "clip" or "wrap" first clips or wraps them.
/// `inplace` must be false, as in JAX.
template <ArrayLike A, ArrayLike I, class V>
  requires std::integral<value_type_t<I>> && detail::ArrayOrScalar<V>
Array<value_type_t<A>> put(A const& a, I const& ind, V const& v, std::optional<std::string_view> mode = {},
                           bool inplace = true) {
  using T = value_type_t<A>;
  if (inplace)
    throw Error("jax.numpy.put cannot modify arrays in-place, because JAX arrays are immutable. Pass inplace=False to "
                "instead return an updated array.");
  auto const arr = as_array(a);
  Array<std::int32_t> idx = ravel(ind).template astype<std::int32_t>();
  auto const vals = ravel(detail::as_values<T>(v));
  if (arr.size() == 0 || idx.size() == 0 || vals.size() == 0) return arr;
  auto const size = static_cast<std::int32_t>(arr.size());
  if (mode == "clip") idx = clip(idx, 0, size - 1);
  else if (mode == "wrap") idx = detail::floor_divmod(idx, size).second;
  else if (mode == "raise") throw Error("The 'raise' mode to jnp.put is not supported.");
  else if (mode) detail::throw_error("mode should be one of 'wrap' or 'clip'; got mode='", *mode, "'");
  std::vector<detail::IndexItem> items;
  for (auto const& i : unravel_index(idx, arr.shape())) items.push_back({detail::IndexItem::Kind::array, 0, {}, i});
  return detail::AtRef<T>(arr, items).set(detail::tile_to_size(vals, idx.size()));
}

/// `arr` with values written at `indices` along `axis`, the mirror of
/// take_along_axis (`indices` has arr's rank; `values` broadcasts to its
/// shape); axis = none: `arr` flattened, then its shape given back.
/// `inplace` must be false, as in JAX.
template <ArrayLike A, ArrayLike I, class V>
  requires std::integral<value_type_t<I>> && detail::ArrayOrScalar<V>
Array<value_type_t<A>> put_along_axis(A const& arr, I const& indices, V const& values, detail::OptionalAxis const& axis,
                                      bool inplace = true) {
  using T = value_type_t<A>;
  if (inplace)
    throw Error("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX arrays are immutable. Pass "
                "inplace=False to instead return an updated array.");
  auto const original = as_array(arr);
  auto const [x, ax] = detail::along(original, axis, "put_along_axis");
  auto const idx = as_array(indices).template astype<std::int32_t>();
  if (x.ndim() != idx.ndim())
    detail::throw_error("put_along_axis arguments 'arr' and 'indices' must have same ndim. Got arr.ndim=", x.ndim(),
                        " and indices.ndim=", idx.ndim(), ".");
  auto const v = detail::as_values<T>(values);
  Array<T> broadcast;
  try {
    broadcast = broadcast_to(v, idx.shape());
  } catch (Error const&) {
    detail::throw_error("put_along_axis argument 'values' must be broadcastable to 'indices'. Got values.shape=",
                        v.shape(), " and indices.shape=", idx.shape(), ".");
  }
  auto const out = detail::AtRef<T>(x, detail::along_axis_items(x.shape(), idx, ax)).set(broadcast);
  return lax::reshape(out, original.shape());
}

}  // namespace jaxcc::numpy
