// jax.numpy's shape and layout functions: reshape, ravel, transpose,
// permute_dims, matrix_transpose, moveaxis, rollaxis, swapaxes, expand_dims,
// squeeze, broadcast_to, broadcast_shapes, broadcast_arrays, concatenate,
// stack, split; and shape, ndim, size, isscalar. All but concatenate and
// stack return views of their input where the layout allows (reshape and
// ravel copy a non-contiguous input).
#pragma once

#include <algorithm>
#include <concepts>
#include <initializer_list>
#include <sstream>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/squeeze.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::numpy {

/// The same elements, row-major, under a new shape (one entry may be -1).
template <ArrayLike A>
Array<value_type_t<A>> reshape(A const& a, Shape const& shape) {
  return lax::reshape(as_array(a), shape);
}
template <ArrayLike A>
Array<value_type_t<A>> reshape(A const& a, std::int64_t size) {
  return lax::reshape(as_array(a), Shape{size});
}

/// The elements as a 1-D array, row-major.
template <ArrayLike A>
Array<value_type_t<A>> ravel(A const& a) {
  return lax::reshape(as_array(a), Shape{a.size()});
}

/// Axes reversed.
template <ArrayLike A>
Array<value_type_t<A>> transpose(A const& a) {
  return as_array(a).T();
}
/// Output axis i is input axis axes[i] (negative counts from the end).
template <ArrayLike A>
Array<value_type_t<A>> transpose(A const& a, Axes const& axes) {
  auto const x = as_array(a);
  Axes perm;
  for (auto axis : axes) perm.push_back(detail::normalize_axis(axis, x.ndim(), "transpose"));
  return lax::transpose(x, perm);
}

/// The array API's transpose: output axis i is input axis axes[i].
template <ArrayLike A>
Array<value_type_t<A>> permute_dims(A const& a, Axes const& axes) {
  auto const x = as_array(a);
  if (static_cast<std::int64_t>(axes.size()) != x.ndim())
    detail::throw_error("transpose permutation isn't a permutation of operand dimensions, got permutation ",
                        Shape(axes.begin(), axes.end()), " for operand shape ", x.shape(), ".");
  return transpose(x, axes);
}

/// The last two axes swapped; `x` must be at least 2-D.
template <ArrayLike A>
Array<value_type_t<A>> matrix_transpose(A const& x) {
  auto const a = as_array(x);
  if (a.ndim() < 2)
    detail::throw_error("x must be at least two-dimensional for matrix_transpose; got ndim=", a.ndim());
  Axes perm;
  for (std::int64_t d = 0; d + 2 < a.ndim(); ++d) perm.push_back(d);
  perm.push_back(a.ndim() - 1);
  perm.push_back(a.ndim() - 2);
  return lax::transpose(a, perm);
}

/// Swap two axes.
template <ArrayLike A>
Array<value_type_t<A>> swapaxes(A const& a, std::int64_t axis1, std::int64_t axis2) {
  auto const x = as_array(a);
  auto const i = detail::normalize_axis(axis1, x.ndim(), "swapaxes");
  auto const j = detail::normalize_axis(axis2, x.ndim(), "swapaxes");
  Axes perm;
  for (std::int64_t k = 0; k < x.ndim(); ++k) perm.push_back(k == i ? j : k == j ? i : k);
  return lax::transpose(x, perm);
}

/// Move axes `source` to positions `destination`; the others keep their order.
template <ArrayLike A>
Array<value_type_t<A>> moveaxis(A const& a, Axes const& source, Axes const& destination) {
  auto const x = as_array(a);
  auto const src = detail::normalize_axes(source, x.ndim(), "moveaxis");
  auto const dst = detail::normalize_axes(destination, x.ndim(), "moveaxis");
  if (src.size() != dst.size()) {
    std::ostringstream os;
    os << "Inconsistent number of elements: " << src.size() << " vs " << dst.size();
    throw Error(os.str());
  }
  std::vector<std::int64_t> perm;
  for (std::int64_t k = 0; k < x.ndim(); ++k)
    if (std::find(src.begin(), src.end(), k) == src.end()) perm.push_back(k);
  std::vector<std::pair<std::int64_t, std::int64_t>> moves;
  for (std::size_t k = 0; k < src.size(); ++k) moves.emplace_back(dst[k], src[k]);
  std::sort(moves.begin(), moves.end());  // insert in increasing destination order
  for (auto [to, from] : moves) perm.insert(perm.begin() + to, from);
  return lax::transpose(x, Axes(perm.begin(), perm.end()));
}
template <ArrayLike A>
Array<value_type_t<A>> moveaxis(A const& a, std::int64_t source, std::int64_t destination) {
  return moveaxis(a, Axes{source}, Axes{destination});
}

/// Move `axis` to sit before position `start` (numpy's older moveaxis):
/// -ndim <= start <= ndim.
template <ArrayLike A>
Array<value_type_t<A>> rollaxis(A const& a, std::int64_t axis, std::int64_t start = 0) {
  auto const x = as_array(a);
  auto const n = x.ndim();
  auto const ax = detail::normalize_axis(axis, n, "rollaxis");
  if (start < -n || start > n) detail::throw_error("start=", start, " must satisfy ", -n, "<=start<=", n);
  if (start < 0) start += n;
  if (start > ax) --start;
  return moveaxis(x, ax, start);
}

/// Insert size-1 axes at `axis` (positions in the result; negative counts from its end).
template <ArrayLike A>
Array<value_type_t<A>> expand_dims(A const& a, Axes const& axis) {
  return lax::expand_dims(as_array(a), axis);
}
template <ArrayLike A>
Array<value_type_t<A>> expand_dims(A const& a, std::int64_t axis) {
  return lax::expand_dims(as_array(a), Axes{axis});
}

/// Remove every size-1 axis.
template <ArrayLike A>
Array<value_type_t<A>> squeeze(A const& a) {
  auto const x = as_array(a);
  Axes ones;
  for (std::int64_t d = 0; d < x.ndim(); ++d)
    if (x.shape()[static_cast<std::size_t>(d)] == 1) ones.push_back(d);
  return lax::squeeze(x, ones);
}
/// Remove the listed axes, which must have size 1.
template <ArrayLike A>
Array<value_type_t<A>> squeeze(A const& a, Axes const& axis) {
  return lax::squeeze(as_array(a), axis);
}
template <ArrayLike A>
Array<value_type_t<A>> squeeze(A const& a, std::int64_t axis) {
  return lax::squeeze(as_array(a), Axes{axis});
}

/// `a` repeated to `shape` by numpy's broadcasting rules; a stride-0 view.
template <ArrayLike A>
Array<value_type_t<A>> broadcast_to(A const& a, Shape const& shape) {
  auto const x = as_array(a);
  if (x.shape() == shape) return x;
  auto const lead = shape.rank() - x.ndim();
  bool compatible = lead >= 0;
  for (std::int64_t d = 0; compatible && d < x.ndim(); ++d) {
    auto const in = x.shape()[static_cast<std::size_t>(d)];
    compatible = in == 1 || in == shape[static_cast<std::size_t>(lead + d)];
  }
  if (!compatible) {
    std::ostringstream os;
    os << "Incompatible shapes for broadcasting: " << x.shape() << " and requested shape " << shape;
    throw Error(os.str());
  }
  Axes dims;
  for (std::int64_t d = 0; d < x.ndim(); ++d) dims.push_back(lead + d);
  return lax::broadcast_in_dim(x, shape, dims);
}
template <ArrayLike A>
Array<value_type_t<A>> broadcast_to(A const& a, std::int64_t size) {
  return broadcast_to(a, Shape{size});
}

/// The shape that arrays of `shapes` broadcast to (numpy's rules), or JAX's error.
inline Shape broadcast_shapes(std::vector<Shape> const& shapes) {
  Shape out;
  try {
    for (auto const& s : shapes) out = detail::broadcast_shapes(out, s, "broadcast_shapes");
  } catch (Error const&) {
    std::ostringstream os;
    os << "Incompatible shapes for broadcasting: shapes=[";
    for (std::size_t i = 0; i < shapes.size(); ++i) os << (i ? ", " : "") << shapes[i];
    os << ']';
    throw Error(os.str());
  }
  return out;
}
inline Shape broadcast_shapes(std::initializer_list<Shape> shapes) {
  return broadcast_shapes(std::vector<Shape>(shapes));
}

/// Arrays of one dtype broadcast to their common shape (stride-0 views).
template <Element T>
std::vector<Array<T>> broadcast_arrays(std::vector<Array<T>> const& args) {
  std::vector<Shape> shapes;
  for (auto const& x : args) shapes.push_back(x.shape());
  auto const common = broadcast_shapes(shapes);
  std::vector<Array<T>> out;
  for (auto const& x : args) out.push_back(broadcast_to(x, common));
  return out;
}
template <ArrayLike A, ArrayLike... B>
  requires(std::same_as<value_type_t<A>, value_type_t<B>> && ...)
std::vector<Array<value_type_t<A>>> broadcast_arrays(A const& a, B const&... rest) {
  return broadcast_arrays(std::vector<Array<value_type_t<A>>>{as_array(a), as_array(rest)...});
}

/// An array's shape, rank and element count (jnp.shape, jnp.ndim, jnp.size);
/// a C++ scalar has shape (), rank 0 and one element.
template <ArrayLike A>
Shape shape(A const& a) {
  return a.shape();
}
template <ArrayLike A>
std::int64_t ndim(A const& a) {
  return static_cast<std::int64_t>(a.shape().size());
}
template <ArrayLike A>
std::int64_t size(A const& a) {
  return a.shape().numel();
}
/// The number of elements along `axis` (negative counts from the end).
template <ArrayLike A>
std::int64_t size(A const& a, std::int64_t axis) {
  return a.shape()[static_cast<std::size_t>(detail::normalize_axis(axis, ndim(a), "size"))];
}
template <Scalar S>
Shape shape(S) {
  return {};
}
template <Scalar S>
std::int64_t ndim(S) {
  return 0;
}
template <Scalar S>
std::int64_t size(S) {
  return 1;
}
/// Whether `element` is a scalar: a C++ scalar, or an array of rank 0.
template <class E>
bool isscalar(E const& element) {
  if constexpr (Scalar<E>) return true;
  else if constexpr (ArrayLike<E>) return element.shape().empty();
  else return false;
}

/// Join arrays along an existing axis (negative counts from the end).
template <Element T>
Array<T> concatenate(std::vector<Array<T>> const& arrays, std::int64_t axis = 0) {
  if (arrays.empty()) throw Error("Need at least one array to concatenate.");
  if (arrays[0].ndim() == 0) throw Error("Zero-dimensional arrays cannot be concatenated.");
  return lax::concatenate(arrays, detail::normalize_axis(axis, arrays[0].ndim(), "concatenate"));
}
/// axis = none: the arrays are flattened first.
template <Element T>
Array<T> concatenate(std::vector<Array<T>> const& arrays, none_t) {
  std::vector<Array<T>> flat;
  for (auto const& x : arrays) flat.push_back(ravel(x));
  return concatenate(flat, 0);
}

/// Join arrays of one shape along a new axis (negative counts from the end of the result).
template <Element T>
Array<T> stack(std::vector<Array<T>> const& arrays, std::int64_t axis = 0) {
  if (arrays.empty()) throw Error("Need at least one array to stack.");
  auto const& shape0 = arrays[0].shape();
  for (auto const& x : arrays)
    if (!(x.shape() == shape0)) {
      std::ostringstream os;
      os << "All input arrays must have the same shape. Got ";
      for (std::size_t i = 0; i < arrays.size(); ++i) os << (i ? ", " : "") << arrays[i].shape();
      os << '.';
      throw Error(os.str());
    }
  auto const at = detail::normalize_axis(axis, shape0.rank() + 1, "stack");
  std::vector<Array<T>> expanded;
  for (auto const& x : arrays) expanded.push_back(lax::expand_dims(x, Axes{at}));
  return lax::concatenate(expanded, at);
}

/// A braced list: `stack({x, x * 2.f})`. Its elements may be arrays or
/// expressions of one dtype, so one overload per dtype takes it (a list of
/// different types deduces no T), each element converted as it is copied.
/// Templates with a defaulted parameter, so that a file that never calls
/// them compiles none of what they bind; `stack<float>({...})` still works.
#define JAXCC_LIST_OVERLOADS(T)                                                                          \
  template <class D = void>                                                                              \
  Array<T> concatenate(std::initializer_list<Array<detail::dependent_t<D, T>>> arrays, std::int64_t axis = 0) { \
    return concatenate(std::vector<Array<T>>(arrays), axis);                                             \
  }                                                                                                      \
  template <class D = void>                                                                              \
  Array<T> concatenate(std::initializer_list<Array<detail::dependent_t<D, T>>> arrays, none_t) {         \
    return concatenate(std::vector<Array<T>>(arrays), none);                                             \
  }                                                                                                      \
  template <class D = void>                                                                              \
  Array<T> stack(std::initializer_list<Array<detail::dependent_t<D, T>>> arrays, std::int64_t axis = 0) { \
    return stack(std::vector<Array<T>>(arrays), axis);                                                   \
  }
JAXCC_FOR_EACH_ELEMENT(JAXCC_LIST_OVERLOADS)
#undef JAXCC_LIST_OVERLOADS

/// Split before each of `indices` along `axis`: len(indices) + 1 parts (views).
template <ArrayLike A>
std::vector<Array<value_type_t<A>>> split(A const& a, Axes const& indices, std::int64_t axis = 0) {
  auto const x = as_array(a);
  auto const ax = static_cast<std::size_t>(detail::normalize_axis(axis, x.ndim(), "split"));
  auto const size = x.shape()[ax];
  std::vector<std::int64_t> cuts{0};
  cuts.insert(cuts.end(), indices.begin(), indices.end());
  cuts.push_back(size);
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
    if (cuts[k + 1] < cuts[k]) {
      std::ostringstream os;
      os << "Sizes passed to split must be nonnegative, got [";
      for (std::size_t i = 0; i + 1 < cuts.size(); ++i) os << (i ? ", " : "") << cuts[i + 1] - cuts[i];
      os << ']';
      throw Error(os.str());
    }
  std::vector<Array<value_type_t<A>>> parts;
  Axes start(x.shape().size(), 0);
  Axes limit(x.shape().begin(), x.shape().end());
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    start[ax] = cuts[k];
    limit[ax] = cuts[k + 1];
    parts.push_back(lax::slice(x, start, limit));
  }
  return parts;
}

/// Split into `sections` equal parts along `axis` (views). A template so that
/// `split(x, {3})` means indices, as `split(x, [3])` does in Python.
template <ArrayLike A, std::integral S>
  requires(!std::same_as<S, bool>)
std::vector<Array<value_type_t<A>>> split(A const& a, S sections, std::int64_t axis = 0) {
  auto const x = as_array(a);
  auto const ax = detail::normalize_axis(axis, x.ndim(), "split");
  if (sections <= 0) throw Error("split: number sections must be larger than 0.");
  auto const size = x.shape()[static_cast<std::size_t>(ax)];
  if (size % sections != 0) {
    std::ostringstream os;
    os << "array split does not result in an equal division: rest is " << size % sections;
    throw Error(os.str());
  }
  Axes boundaries;
  for (std::int64_t k = 1; k < sections; ++k) boundaries.push_back(k * (size / sections));
  return split(x, boundaries, ax);
}

}  // namespace jaxcc::numpy
