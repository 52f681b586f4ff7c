// Indexing: jnp::take, jnp::take_along_axis, numpy's indexing `x[i]` and
// `x(i, jaxcc::all, jaxcc::slice(...), jaxcc::newaxis, idx)`
// (core/index.hpp), and the functional updates behind `x.at(...)` with the
// same indices: `.get()`, `.set(v)`, `.add(v)`, `.subtract(v)`,
// `.multiply(v)`, `.min(v)`, `.max(v)`. Updates return a new array; the
// indexed array is never changed.
//
// Out-of-range indices follow JAX's defaults: reading clamps them into
// range, the updates drop them (the result equals the input). An index into
// an axis of size 0 raises where it reads something, as in JAX; an update
// of an empty part returns the array.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/index.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/lax/gather_scatter.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/scatter.hpp"
#include "jaxcc/primitives/stop_gradient.hpp"

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
  // JAX returns `a` itself for no indices into an empty axis (not the
  // indices' shape in its place).
  if (x.shape()[static_cast<std::size_t>(ax)] == 0 && idx.size() == 0) return x;
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

/// One position of an index, as numpy reads it.
struct IndexItem {
  enum class Kind { integer, all, slice, newaxis, array };
  Kind kind = Kind::all;
  std::int64_t integer = 0;
  Slice range{};
  Array<std::int32_t> array{};
};

template <class I>
IndexItem index_item(I const& index) {
  using J = std::remove_cvref_t<I>;
  using Kind = IndexItem::Kind;
  if constexpr (std::integral<J>) return {Kind::integer, static_cast<std::int64_t>(index), {}, {}};
  else if constexpr (std::same_as<J, all_t>) return {Kind::all, 0, {}, {}};
  else if constexpr (std::same_as<J, newaxis_t>) return {Kind::newaxis, 0, {}, {}};
  else if constexpr (std::same_as<J, Slice>) return {Kind::slice, 0, index, {}};
  else return {Kind::array, 0, {}, index.template astype<std::int32_t>()};
}

/// JAX's error for more indices than the array has axes.
inline void check_index_count(std::int64_t ndim, std::int64_t count) {
  if (count > ndim)
    throw Error("Too many indices: array is " + std::to_string(ndim) + "-dimensional, but " + std::to_string(count) +
                " were indexed");
}
/// JAX's error for an index into an axis of size 0.
inline void check_axis_not_empty(std::int64_t size, std::size_t axis) {
  if (size == 0) throw Error("index is out of bounds for axis " + std::to_string(axis) + " with size 0");
}

/// The first position, step and length of `s` over an axis of n elements
/// (Python's slice.indices).
inline std::array<std::int64_t, 3> slice_positions(Slice const& s, std::int64_t n) {
  if (s.step == 0) throw Error("slice step cannot be zero");
  auto const bound = [&](std::optional<std::int64_t> v, std::int64_t fallback, std::int64_t lo, std::int64_t hi) {
    return v ? std::clamp(*v < 0 ? *v + n : *v, lo, hi) : fallback;
  };
  auto const step = s.step;
  if (step > 0) {
    auto const start = bound(s.start, 0, 0, n), stop = bound(s.stop, n, 0, n);
    return {start, step, stop > start ? (stop - start + step - 1) / step : 0};
  }
  auto const start = bound(s.start, n - 1, -1, n - 1), stop = bound(s.stop, -1, -1, n - 1);
  return {start, step, start > stop ? (start - stop - step - 1) / -step : 0};
}

// The steps of index_array below. Those that bind primitives are templates
// on the indexed array's element type T and spell their index arithmetic's
// element types through T: written plainly, every file that includes this
// header would compile them (see detail::dependent_t).

/// The items checked against `ndim` axes and padded with `all` to one per
/// axis (newaxis aside); under advanced indexing (or `drop`), integers
/// become 0-d index arrays.
template <Element T>
void complete_index_items(std::int64_t ndim, std::vector<IndexItem>& items, bool drop) {
  using Index = detail::dependent_t<T, std::int32_t>;
  using Kind = IndexItem::Kind;
  bool const advanced = drop || std::ranges::any_of(items, [](IndexItem const& i) { return i.kind == Kind::array; });
  std::int64_t consumed = 0;
  for (auto& item : items) {
    consumed += item.kind != Kind::newaxis;
    if (advanced && item.kind == Kind::integer) item = index_item(numpy::full<Index>(Shape{}, item.integer));
  }
  check_index_count(ndim, consumed);
  items.resize(items.size() + static_cast<std::size_t>(ndim - consumed));
}

/// `x` with a size-1 axis for each newaxis, which then indexes it whole.
template <Element T>
Array<T> with_new_axes(Array<T> const& x, std::vector<IndexItem>& items) {
  Shape expanded;
  std::size_t next = 0;
  for (auto& item : items) {
    if (item.kind == IndexItem::Kind::newaxis) {
      expanded.push_back(1);
      item.kind = IndexItem::Kind::all;
    } else {
      expanded.push_back(x.shape()[next++]);
    }
  }
  return expanded.size() == x.shape().size() ? x : lax::reshape(x, expanded);
}

/// Basic indexing, an item per axis of `y`: one slice (a negative step
/// reverses the axis first), then the integers' axes squeezed.
template <Element T>
Array<T> basic_index(Array<T> y, std::vector<IndexItem> const& items) {
  using Kind = IndexItem::Kind;
  Shape const shape = y.shape();
  auto const rank = items.size();
  Axes start(rank, 0), limit(shape.begin(), shape.end()), stride(rank, 1), squeezed;
  bool whole = true;
  for (std::size_t k = 0; k < rank; ++k) {
    auto const n = shape[k];
    auto const& item = items[k];
    if (item.kind == Kind::integer) {
      check_axis_not_empty(n, k);
      auto const at = std::clamp<std::int64_t>(item.integer < 0 ? item.integer + n : item.integer, 0, n - 1);
      start[k] = at;
      limit[k] = at + 1;
      squeezed.push_back(static_cast<std::int64_t>(k));
      whole = false;
    } else if (item.kind == Kind::slice) {
      auto [first, step, count] = slice_positions(item.range, n);
      if (step < 0) {
        y = reversed_along(y, static_cast<std::int64_t>(k));
        first = n - 1 - first;
        step = -step;
      }
      start[k] = count ? first : 0;
      limit[k] = count ? first + (count - 1) * step + 1 : 0;
      stride[k] = step;
      whole = whole && count == n && step == 1;
    }
  }
  if (!whole) y = lax::slice(y, start, limit, stride);
  if (!squeezed.empty()) y = lax::squeeze(y, squeezed);
  return y;
}

/// The shape the index arrays at `indexed` broadcast to, with JAX's error
/// when they do not.
inline Shape index_arrays_shape(std::vector<IndexItem> const& items, std::vector<std::size_t> const& indexed) {
  Shape common = items[indexed[0]].array.shape();
  try {
    for (auto k : indexed) common = broadcast_shapes(common, items[k].array.shape(), "indexing");
  } catch (Error const&) {
    std::ostringstream os;
    os << "Incompatible shapes for broadcasting: shapes=[";
    for (std::size_t i = 0; i < indexed.size(); ++i) os << (i ? ", " : "") << items[indexed[i]].array.shape();
    os << "]";
    throw Error(os.str());
  }
  return common;
}

/// One flat index over the axes of `y` at `indexed`, row-major, from their
/// index arrays broadcast to `common` (negative ones counted from the end,
/// then clamped); with `drop`, where every part is in range; and how many
/// positions the flat index ranges over.
template <Element T>
auto flat_index(Array<T> const& y, std::vector<IndexItem> const& items, std::vector<std::size_t> const& indexed,
                Shape const& common, bool drop) {
  using Index = detail::dependent_t<T, std::int32_t>;
  using Mask = detail::dependent_t<T, bool>;
  Array<Index> flat = numpy::zeros<Index>(common);
  Array<Mask> valid = numpy::full<Mask>(common, true);
  std::int64_t merged = 1;
  for (auto k = indexed.rbegin(); k != indexed.rend(); ++k) {
    auto const n = y.shape()[*k];
    auto idx = numpy::broadcast_to(items[*k].array, common);
    idx = numpy::where(idx < 0, idx + static_cast<Index>(n), idx);
    if (drop) valid = valid & (idx >= 0) & (idx < static_cast<Index>(n));
    flat = flat + numpy::clip(idx, 0, static_cast<Index>(n - 1)) * static_cast<Index>(merged);
    merged *= n;
  }
  return std::tuple{flat, valid, merged};
}

/// Advanced indexing of `y` (an item per axis; integers are arrays here) by
/// the index arrays at `indexed`: their axes merged into one, read by one
/// take, the index arrays' broadcast shape in their place.
template <Element T>
Array<T> advanced_index(Array<T> y, std::vector<IndexItem> const& items, std::vector<std::size_t> const& indexed,
                        bool drop) {
  using Kind = IndexItem::Kind;
  auto const rank = items.size();
  auto const common = index_arrays_shape(items, indexed);
  // The indexed axes together, where the first stood if they were adjacent in the index, else in front.
  bool const adjacent = indexed.back() - indexed.front() + 1 == indexed.size();
  auto const at = adjacent ? static_cast<std::int64_t>(indexed.front()) : 0;
  // An indexed axis of size 0: a 0-d index into it raises (as an integer
  // does); an update drops every position (-1); a read of no position is
  // empty, and of some raises.
  for (auto k : indexed)
    if (y.shape()[k] == 0 && (items[k].array.ndim() == 0 || (!drop && common.numel() != 0)))
      check_axis_not_empty(0, k);
  if (std::ranges::any_of(indexed, [&](std::size_t k) { return y.shape()[k] == 0; })) {
    Shape out;
    for (std::size_t k = 0; k < rank; ++k)
      if (items[k].kind != Kind::array) out.push_back(y.shape()[k]);
    out.insert(out.begin() + at, common.begin(), common.end());
    return numpy::full<T>(out, static_cast<compute_t<T>>(drop ? -1 : 0));
  }
  auto const [flat, valid, merged] = flat_index(y, items, indexed, common, drop);
  Axes perm;
  for (std::size_t k = 0; k < rank; ++k)
    if (items[k].kind != Kind::array) perm.push_back(static_cast<std::int64_t>(k));
  Axes moved(indexed.begin(), indexed.end());
  perm.insert(perm.begin() + at, moved.begin(), moved.end());
  y = lax::transpose(y, perm);
  Shape merged_shape(y.shape().begin(), y.shape().begin() + at);
  merged_shape.push_back(merged);
  merged_shape.insert(merged_shape.end(), y.shape().begin() + at + static_cast<std::ptrdiff_t>(indexed.size()),
                      y.shape().end());
  auto out = numpy::take(lax::reshape(y, merged_shape), flat, at, "clip");
  if (drop) {
    Shape where_shape(static_cast<std::size_t>(out.ndim()), 1);
    std::copy(common.begin(), common.end(), where_shape.begin() + at);
    out = numpy::where(lax::reshape(valid, where_shape), out, static_cast<compute_t<T>>(-1));
  }
  return out;
}

/// x[items] as numpy and JAX read it. Integers, slices, `all` and `newaxis`
/// are basic indexing (slice, squeeze, reshape: views). Integer arrays are
/// advanced indexing: broadcast together, they pick elements by one gather
/// over the axes they index, merged into one; their broadcast shape stands
/// where they stood if they were adjacent in the index, else in front (an
/// integer beside an array counts as a 0-d array). Out-of-range indices
/// clamp, as JAX's get does; with `drop` (x holding positions, for an
/// update) those of an integer array give -1 instead, and integers are read
/// as 0-d arrays.
template <Element T>
Array<T> index_array(Array<T> const& x, std::vector<IndexItem> items, bool drop) {
  complete_index_items<T>(x.ndim(), items, drop);
  auto y = basic_index(with_new_axes(x, items), items);
  // Under advanced indexing no axis was squeezed: the items still match y's axes.
  std::vector<std::size_t> indexed;
  for (std::size_t k = 0; k < items.size(); ++k)
    if (items[k].kind == IndexItem::Kind::array) indexed.push_back(k);
  if (indexed.empty()) return y;
  return advanced_index(std::move(y), items, indexed, drop);
}

template <Element T, IndexLike... I>
Array<T> indexed(Array<T> const& x, I const&... index) {
  return index_array(x, std::vector<IndexItem>{index_item(index)...}, false);
}

/// What `x.at(index...)` returns: the array and the index.
template <Element T>
class AtRef {
 public:
  AtRef(Array<T> array, std::vector<IndexItem> items) : array_(std::move(array)), items_(std::move(items)) {}

  /// x[index]: as `x(index...)` (out-of-range indices clamp).
  Array<T> get() const { return index_array(array_, items_, false); }

  /// x[index] = v, on a copy. `v` (a scalar or an array) broadcasts to the
  /// indexed shape; with repeated positions the last update is kept.
  template <class V>
    requires ArrayOrScalar<V>
  Array<T> set(V const& v) const {
    return update(primitives::scatter_p::Kind::set, v);
  }
  /// x[index] += v, on a copy; repeated positions add every update.
  template <class V>
    requires ArrayOrScalar<V>
  Array<T> add(V const& v) const {
    return update(primitives::scatter_p::Kind::add, v);
  }
  /// x[index] -= v, on a copy.
  template <class V>
    requires ArrayOrScalar<V> && (!std::same_as<binary_dtype_t<Array<T>, V>, bool>)
  Array<T> subtract(V const& v) const {
    return update(primitives::scatter_p::Kind::subtract, v);
  }
  /// x[index] *= v, on a copy.
  template <class V>
    requires ArrayOrScalar<V>
  Array<T> multiply(V const& v) const {
    return update(primitives::scatter_p::Kind::multiply, v);
  }
  /// x[index] = minimum(x[index], v), on a copy.
  template <class V>
    requires ArrayOrScalar<V>
  Array<T> min(V const& v) const {
    return update(primitives::scatter_p::Kind::min, v);
  }
  /// x[index] = maximum(x[index], v), on a copy.
  template <class V>
    requires ArrayOrScalar<V>
  Array<T> max(V const& v) const {
    return update(primitives::scatter_p::Kind::max, v);
  }

 private:
  using Kind = primitives::scatter_p::Kind;

  /// The leading integer indices (negatives counted from the end) when the
  /// index is integers only, for the one-window scatter; raises for too many
  /// or an index into an empty axis, in JAX's words.
  std::optional<Axes> integers_only() const {
    Axes out;
    for (auto const& item : items_)
      if (item.kind != IndexItem::Kind::integer) return std::nullopt;
      else out.push_back(item.integer);
    auto const& shape = array_.shape();
    check_index_count(array_.ndim(), static_cast<std::int64_t>(out.size()));
    for (std::size_t d = 0; d < out.size(); ++d) {
      check_axis_not_empty(shape[d], d);
      if (out[d] < 0) out[d] += shape[d];
    }
    return out;
  }

  /// As JAX: the array and the values are promoted to a common dtype, the
  /// scatter runs in it, and the result is converted back to T.
  template <class V>
  Array<T> update(Kind kind, V const& v) const {
    using U = binary_dtype_t<Array<T>, V>;
    Array<U> values;
    if constexpr (Scalar<V>) values = numpy::full<U>(Shape{}, v);
    else values = lax::convert_element_type<U>(as_array(v));
    auto const operand = lax::convert_element_type<U>(array_);
    if (auto const index = integers_only()) {
      Shape const window(array_.shape().begin() + static_cast<std::ptrdiff_t>(index->size()), array_.shape().end());
      if (window.numel() == 0) return array_;  // nothing indexed: JAX returns x before it reads v
      return lax::convert_element_type<T>(
          jaxcc::detail::bind<primitives::scatter_p>({*index, kind}, operand, numpy::broadcast_to(values, window)));
    }
    // Any other index: the flat positions it selects (-1 where out of
    // range: dropped), then one scatter over the flattened array.
    auto const positions = index_array(
        lax::reshape(numpy::arange<std::int32_t>(static_cast<std::int32_t>(array_.size())), array_.shape()), items_,
        true);
    if (positions.size() == 0) return array_;  // nothing indexed: JAX returns x before it reads v
    auto const at = numpy::ravel(positions);
    auto const u = numpy::ravel(numpy::broadcast_to(values, positions.shape()));
    auto const x = numpy::ravel(operand);
    // Without an integer array the positions are unique, and a product is x
    // times ones with the factors set in: differentiable, as JAX's
    // unique-index scatter_mul is.
    bool const unique = std::ranges::none_of(items_, [](IndexItem const& i) { return i.kind == IndexItem::Kind::array; });
    auto const updated = kind == Kind::multiply && unique
                             ? Array<U>(x * flat_update(Kind::set, numpy::ones<U>(Shape{x.size()}), at, u))
                             : flat_update(kind, x, at, u);
    return lax::convert_element_type<T>(lax::reshape(updated, array_.shape()));
  }

  /// x with updates u combined in at positions `at` (1-d, -1: dropped):
  /// lax's flat scatter (lax/gather_scatter.hpp), differentiable as JAX's.
  template <Element U>
  static Array<U> flat_update(Kind kind, Array<U> const& x, Array<std::int32_t> const& at, Array<U> const& u) {
    return flat_scatter(kind, x, at, u);
  }

  Array<T> array_;
  std::vector<IndexItem> items_;
};

template <Element T, IndexLike... I>
AtRef<T> at_ref(Array<T> const& x, I const&... index) {
  return AtRef<T>(x, std::vector<IndexItem>{index_item(index)...});
}

}  // namespace jaxcc::detail
