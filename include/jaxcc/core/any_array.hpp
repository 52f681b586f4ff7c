// jaxcc::AnyArray: an Array of any dtype, for places that hold arrays whose
// dtypes are known only at run time (mixed-dtype pytrees, traced programs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <variant>

#include "jaxcc/bits/runtime_compiled.hpp"
#include "jaxcc/core/array.hpp"

namespace jaxcc {

class AnyArray {
 public:
  /// An empty float32 array, like a default Array.
  AnyArray() = default;
  template <Element T>
  AnyArray(Array<T> a) : value_(std::move(a)) {}

  DType dtype() const noexcept {
    return std::visit([](auto const& a) { return a.dtype(); }, value_);
  }
  Shape const& shape() const noexcept {
    return std::visit([](auto const& a) -> Shape const& { return a.shape(); }, value_);
  }
  std::int64_t ndim() const noexcept { return shape().rank(); }
  std::int64_t size() const noexcept { return shape().numel(); }

  template <Element T>
  bool holds() const noexcept {
    return std::holds_alternative<Array<T>>(value_);
  }
  /// The array as Array<T>; T must be its dtype exactly.
  template <Element T>
  Array<T> const& as() const {
    if (auto const* a = std::get_if<Array<T>>(&value_)) return *a;
    throw Error("AnyArray holds an array of dtype " + std::string(name(dtype())) + ", not " +
                std::string(name(dtype_of<T>)));
  }
  /// Call `f(Array<T> const&)` with the array at its own dtype.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), value_);
  }

 private:
  std::variant<Array<float>, Array<double>, Array<std::int32_t>, Array<std::int64_t>, Array<bool>, Array<std::uint32_t>,
               Array<std::int8_t>, Array<std::uint8_t>, Array<std::int16_t>, Array<bfloat16>, Array<float16>>
      value_;
};

inline std::ostream& operator<<(std::ostream& os, AnyArray const& a) {
  a.visit([&](auto const& x) { os << x; });
  return os;
}

}  // namespace jaxcc

namespace jaxcc::detail {

/// A fresh contiguous array of `dtype` and `shape`, and its data.
template <class = void>
std::pair<AnyArray, void*> allocate_any(DType dtype, Shape const& shape) {
  return with_element_type(dtype, [&]<class T>(std::type_identity<T>) -> std::pair<AnyArray, void*> {
    auto [array, data] = allocate<T>(shape);
    return {AnyArray(std::move(array)), data};
  });
}
JAXCC_RUNTIME_INSTANCE(std::pair<AnyArray, void*> allocate_any<void>(DType, Shape const&))

/// What `a` points at: its shape, strides, offset and buffer.
inline ArrayImpl const& impl_of(AnyArray const& a) noexcept {
  return a.visit([](auto const& x) -> ArrayImpl const& { return ArrayAccess::impl(x); });
}
/// `x` itself when contiguous, else a contiguous copy (what detail::contiguous
/// is for an Array).
template <class = void>
AnyArray as_contiguous(AnyArray const& x) {
  return x.visit([](auto const& a) -> AnyArray { return contiguous(a); });
}
JAXCC_RUNTIME_INSTANCE(AnyArray as_contiguous<void>(AnyArray const&))

/// A view of `x`'s buffer with another shape, strides and offset, at x's dtype.
template <class = void>
AnyArray view(AnyArray const& x, Shape shape, Strides strides, std::int64_t offset) {
  return x.visit([&](auto const& a) -> AnyArray { return view(a, std::move(shape), std::move(strides), offset); });
}
JAXCC_RUNTIME_INSTANCE(AnyArray view<void>(AnyArray const&, Shape, Strides, std::int64_t))

inline void const* data_of(AnyArray const& a) {
  return a.visit([](auto const& x) -> void const* { return x.data(); });
}
inline bool contiguous(AnyArray const& a) {
  return a.visit([](auto const& x) { return x.is_contiguous(); });
}
/// Every element the same one (all strides 0: a broadcast scalar).
inline bool broadcast_scalar(AnyArray const& a) {
  return a.visit([](auto const& x) {
    return std::all_of(x.strides().begin(), x.strides().end(), [](std::int64_t s) { return s == 0; });
  });
}

}  // namespace jaxcc::detail
