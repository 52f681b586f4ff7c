// Indexing: jnp::take, jnp::take_along_axis, and the functional updates
// behind `x.at(i, j)`: `.get()`, `.set(v)`, `.add(v)`, `.subtract(v)`,
// `.multiply(v)`, `.min(v)`, `.max(v)`. Updates return a new array; the
// indexed array is never changed.
//
// Out-of-range integer indices follow JAX's defaults: `.get()` clamps them
// into range, the updates drop them (the result equals the input). An index
// into an axis of size 0 raises, as in JAX.
#pragma once

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/scatter.hpp"

namespace jaxcc::numpy {

/// Elements of `a` at `indices` along `axis`: the result's shape is
/// a.shape[:axis] + indices.shape + a.shape[axis+1:]. `mode` says what an
/// index outside [-n, n) does: "fill" (default) yields `fill_value` (NaN for
/// floats, the most negative integer, true for bool), "clip" clamps it into
/// [0, n) (negatives clamp to 0, as in JAX), "wrap" takes it modulo n.
template <ArrayLike A, ArrayLike I>
  requires IndexElement<value_type_t<I>>
Array<value_type_t<A>> take(A const& a, I const& indices, std::int64_t axis, std::string_view mode = "fill",
                            std::optional<double> fill_value = std::nullopt) {
  using Mode = primitives::gather_p::Mode;
  auto const x = as_array(a);
  Array<value_type_t<I>> idx = indices;
  auto const ax = detail::normalize_axis(axis, x.ndim(), "take");
  Mode gather_mode;
  if (mode == "fill") {
    gather_mode = Mode::fill;
    // gather does not wrap negative indices; take does, once.
    idx = where(idx < 0, idx + x.shape()[static_cast<std::size_t>(ax)], idx);
  } else if (mode == "clip") {
    gather_mode = Mode::clip;
  } else if (mode == "wrap") {
    gather_mode = Mode::wrap;
  } else if (mode == "raise") {
    throw Error("The 'raise' mode to jnp.take is not supported.");
  } else {
    throw Error("Invalid mode '" + std::string(mode) + "' for np.take");
  }
  return detail::bind<primitives::gather_p>({ax, gather_mode, fill_value}, x, idx);
}
/// Without an axis, `a` is flattened first.
template <ArrayLike A, ArrayLike I>
  requires IndexElement<value_type_t<I>>
Array<value_type_t<A>> take(A const& a, I const& indices, none_t = none, std::string_view mode = "fill",
                            std::optional<double> fill_value = std::nullopt) {
  return take(ravel(a), indices, 0, mode, fill_value);
}

/// numpy.take_along_axis: out[..., j, ...] = a[..., indices[..., j, ...], ...]
/// along `axis`. `a` and `indices` have the same rank and broadcast along
/// the other axes. `mode`: "fill" (default) or "clip", as take's, after
/// negative indices are counted from the end. One gather: the other axes
/// become axes that `a` and the indices share.
template <ArrayLike A, ArrayLike I>
  requires IndexElement<value_type_t<I>>
Array<value_type_t<A>> take_along_axis(A const& a, I const& indices, std::int64_t axis,
                                       std::string_view mode = "fill",
                                       std::optional<double> fill_value = std::nullopt) {
  auto const x = as_array(a);
  Array<value_type_t<I>> const idx = indices;
  if (x.ndim() != idx.ndim())
    throw Error("indices and arr must have the same number of dimensions; " + std::to_string(idx.ndim()) + " vs. " +
                std::to_string(x.ndim()));
  auto const ax = detail::normalize_axis(axis, x.ndim(), "take_along_axis");
  auto const at = static_cast<std::size_t>(ax);
  Shape x_shape = x.shape(), idx_shape = idx.shape();
  x_shape[at] = idx_shape[at] = 1;
  auto common = detail::broadcast_shapes(x_shape, idx_shape, "take_along_axis");
  common[at] = idx.shape()[at];
  if (x.shape()[at] == 0) return zeros<value_type_t<A>>(common);  // as JAX: nothing to take
  using Mode = primitives::gather_p::Mode;
  Mode gather_mode;
  if (mode == "fill" || mode == "drop") gather_mode = Mode::fill;
  else if (mode == "clip") gather_mode = Mode::clip;
  else throw Error("Unknown gather mode \"" + std::string(mode) + "\"");
  // Negative indices count from the end, once, in every mode (as JAX).
  auto const wrapped = where(idx < 0, idx + x.shape()[at], idx);
  auto const last = x.ndim() - 1;
  auto const idx_last = moveaxis(broadcast_to(wrapped, common), ax, last);
  common[at] = x.shape()[at];
  auto const x_last = moveaxis(broadcast_to(x, common), ax, last);
  auto const out = detail::bind<primitives::gather_p>({last, gather_mode, fill_value, last}, x_last, idx_last);
  return moveaxis(out, last, ax);
}
/// Without an axis, `a` is flattened first and `indices` must be 1-D.
template <ArrayLike A, ArrayLike I>
  requires IndexElement<value_type_t<I>>
Array<value_type_t<A>> take_along_axis(A const& a, I const& indices, none_t, std::string_view mode = "fill",
                                       std::optional<double> fill_value = std::nullopt) {
  Array<value_type_t<I>> const idx = indices;
  if (idx.ndim() != 1)
    detail::throw_error("take_along_axis indices must be 1D if axis=None, got shape ", idx.shape());
  return take_along_axis(ravel(a), idx, 0, mode, fill_value);
}

}  // namespace jaxcc::numpy

namespace jaxcc::detail {

/// What `x.at(i, j)` returns: the array and the integer indices into its
/// leading axes (negative counts from the end).
template <Element T>
class AtRef {
 public:
  AtRef(Array<T> array, Axes indices) : array_(std::move(array)), indices_(std::move(indices)) {}

  /// x[i, j]: a view of the indexed sub-array; out-of-range indices clamp.
  Array<T> get() const {
    auto const index = normalized();
    Axes start(array_.shape().size(), 0);
    Axes limit(array_.shape().begin(), array_.shape().end());
    Axes leading;
    for (std::size_t d = 0; d < index.size(); ++d) {
      start[d] = std::clamp<std::int64_t>(index[d], 0, array_.shape()[d] - 1);
      limit[d] = start[d] + 1;
      leading.push_back(static_cast<std::int64_t>(d));
    }
    return lax::squeeze(lax::slice(array_, start, limit), leading);
  }

  /// x[i, j] = v, on a copy. `v` (a scalar or an array) broadcasts to the indexed shape.
  template <class V>
    requires ArrayOrScalar<V>
  Array<T> set(V const& v) const {
    return update(primitives::scatter_p::Kind::set, v);
  }
  /// x[i, j] += v, on a copy.
  template <class V>
    requires ArrayOrScalar<V>
  Array<T> add(V const& v) const {
    return update(primitives::scatter_p::Kind::add, v);
  }
  /// x[i, j] -= v, on a copy.
  template <class V>
    requires ArrayOrScalar<V> && (!std::same_as<binary_dtype_t<Array<T>, V>, bool>)
  Array<T> subtract(V const& v) const {
    return update(primitives::scatter_p::Kind::subtract, v);
  }
  /// x[i, j] *= v, on a copy.
  template <class V>
    requires ArrayOrScalar<V>
  Array<T> multiply(V const& v) const {
    return update(primitives::scatter_p::Kind::multiply, v);
  }
  /// x[i, j] = minimum(x[i, j], v), on a copy.
  template <class V>
    requires ArrayOrScalar<V>
  Array<T> min(V const& v) const {
    return update(primitives::scatter_p::Kind::min, v);
  }
  /// x[i, j] = maximum(x[i, j], v), on a copy.
  template <class V>
    requires ArrayOrScalar<V>
  Array<T> max(V const& v) const {
    return update(primitives::scatter_p::Kind::max, v);
  }

 private:
  /// The indices with negatives counted from the end; raises for too many
  /// indices or an index into an empty axis, in JAX's words.
  Axes normalized() const {
    auto const& shape = array_.shape();
    if (indices_.size() > shape.size()) {
      std::ostringstream os;
      os << "Too many indices: array is " << shape.size() << "-dimensional, but " << indices_.size()
         << " were indexed";
      throw Error(os.str());
    }
    Axes out;
    for (std::size_t d = 0; d < indices_.size(); ++d) {
      if (shape[d] == 0) throw Error("index is out of bounds for axis " + std::to_string(d) + " with size 0");
      out.push_back(indices_[d] < 0 ? indices_[d] + shape[d] : indices_[d]);
    }
    return out;
  }

  /// As JAX: the array and the values are promoted to a common dtype, the
  /// scatter runs in it, and the result is converted back to T.
  template <class V>
  Array<T> update(primitives::scatter_p::Kind kind, V const& v) const {
    using U = binary_dtype_t<Array<T>, V>;
    auto const index = normalized();
    Shape const window(array_.shape().begin() + static_cast<std::ptrdiff_t>(index.size()), array_.shape().end());
    Array<U> values;
    if constexpr (Scalar<V>) values = numpy::full<U>(Shape{}, v);
    else values = lax::convert_element_type<U>(as_array(v));
    values = numpy::broadcast_to(values, window);
    auto const out = bind<primitives::scatter_p>({index, kind}, lax::convert_element_type<U>(array_), values);
    return lax::convert_element_type<T>(out);
  }

  Array<T> array_;
  Axes indices_;
};

}  // namespace jaxcc::detail
