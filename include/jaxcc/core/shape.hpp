// Shape, axes, and the shape arithmetic every operation shares: sizes,
// row-major strides, axis normalization and numpy broadcasting.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "jaxcc/core/error.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/core/small_vector.hpp"

namespace jaxcc {

/// The extents of an array, outermost first; prints as JAX does: `(3, 4)`,
/// `(5,)`, `()`.
class Shape : public detail::SmallVector<std::int64_t, 6> {
  using Base = detail::SmallVector<std::int64_t, 6>;

 public:
  using Base::Base;
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims) : Base(dims) {}

  std::int64_t rank() const noexcept { return static_cast<std::int64_t>(size()); }
  /// Number of elements (1 for rank 0).
  std::int64_t numel() const noexcept {
    std::int64_t n = 1;
    for (auto d : *this) n *= d;
    return n;
  }
  friend bool operator==(Shape const& a, Shape const& b) noexcept {
    return static_cast<Base const&>(a) == static_cast<Base const&>(b);
  }
};

/// A shape parameter that JAX lets be None (`shape=None`): a Shape or a
/// braced list, as every shape parameter takes, or nothing (the default,
/// jaxcc::none or std::nullopt).
class OptionalShape : public std::optional<Shape> {
 public:
  OptionalShape() = default;
  OptionalShape(none_t) {}
  OptionalShape(std::nullopt_t) {}
  OptionalShape(Shape shape) : std::optional<Shape>(std::move(shape)) {}
  OptionalShape(std::initializer_list<std::int64_t> dims) : std::optional<Shape>(Shape(dims)) {}
};

/// A list of axes (possibly negative, counting from the end).
using Axes = detail::SmallVector<std::int64_t, 6>;
/// Element strides of a strided view; 0 on broadcast dimensions.
using Strides = detail::SmallVector<std::int64_t, 6>;

inline std::ostream& operator<<(std::ostream& os, Shape const& s) {
  os << '(';
  for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  if (s.size() == 1) os << ',';
  return os << ')';
}

inline std::string to_string(Shape const& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

namespace detail {

/// Row-major strides of a contiguous array of this shape.
inline Strides contiguous_strides(Shape const& shape) {
  Strides strides(shape.size(), 1);
  std::int64_t step = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= shape[i];
  }
  return strides;
}

/// Map a possibly negative axis into [0, rank); numpy's and JAX's message.
inline std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank, std::string_view op) {
  if (axis < -rank || axis >= rank) {
    std::ostringstream os;
    os << op << ": axis " << axis << " is out of bounds for array of dimension " << rank;
    throw Error(os.str());
  }
  return axis < 0 ? axis + rank : axis;
}

/// Normalize each axis and reject repeats (JAX: "repeated axis").
inline Axes normalize_axes(Axes const& axes, std::int64_t rank, std::string_view op) {
  Axes out;
  for (auto a : axes) {
    auto n = normalize_axis(a, rank, op);
    for (auto seen : out)
      if (seen == n) {
        std::ostringstream os;
        os << op << ": repeated axis " << a << " in axes (";
        for (std::size_t i = 0; i < axes.size(); ++i) os << (i ? ", " : "") << axes[i];
        os << (axes.size() == 1 ? ",)" : ")");
        throw Error(os.str());
      }
    out.push_back(n);
  }
  return out;
}

/// numpy broadcasting of two shapes; `op` names the operation in the error,
/// worded as JAX words it.
inline Shape broadcast_shapes(Shape const& a, Shape const& b, std::string_view op) {
  auto const rank = std::max(a.size(), b.size());
  Shape out(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    auto da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    auto db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      std::ostringstream os;
      os << op << " got incompatible shapes for broadcasting: " << a << ", " << b;
      throw Error(os.str());
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// Strides that read an array of `shape`/`strides` as if broadcast to `target`
/// (stride 0 on new or size-1 dimensions). Assumes broadcast compatibility.
inline Strides broadcast_strides(Shape const& shape, Strides const& strides, Shape const& target) {
  Strides out(target.size(), 0);
  auto const lead = target.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i)
    out[lead + i] = shape[i] == 1 ? 0 : strides[i];
  return out;
}

/// Shape a ++ b.
inline Shape concat_shapes(Shape const& a, Shape const& b) {
  Shape out = a;
  for (auto d : b) out.push_back(d);
  return out;
}

inline std::size_t hash_shape(Shape const& s) noexcept {
  std::size_t h = s.size();
  for (auto d : s) h ^= std::hash<std::int64_t>{}(d) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

}  // namespace detail
}  // namespace jaxcc

template <>
struct std::hash<jaxcc::Shape> {
  std::size_t operator()(jaxcc::Shape const& s) const noexcept { return jaxcc::detail::hash_shape(s); }
};
