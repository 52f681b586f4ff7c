// jaxcc::AnyArray: an Array of any dtype, for places that hold arrays whose
// dtypes are known only at run time (mixed-dtype pytrees, traced programs).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

#include "jaxcc/core/array.hpp"

namespace jaxcc {

/// An Array of any dtype: the dtype and the handle an Array<T> holds, so that
/// what only moves arrays around (programs, tracing, sharding) is compiled
/// once, not once per element type; `visit` reaches the typed Array.
class AnyArray {
 public:
  /// An empty float32 array, like a default Array.
  AnyArray() : AnyArray(Array<float>{}) {}
  template <Element T>
  AnyArray(Array<T> a) : dtype_(dtype_of<T>), impl_(detail::ArrayAccess::release(std::move(a))) {}

  DType dtype() const noexcept { return dtype_; }
  Shape const& shape() const noexcept { return impl_->shape; }
  std::int64_t ndim() const noexcept { return shape().rank(); }
  std::int64_t size() const noexcept { return shape().numel(); }

  template <Element T>
  bool holds() const noexcept {
    return dtype_ == dtype_of<T>;
  }
  /// The array as Array<T>; T must be its dtype exactly.
  template <Element T>
  Array<T> as() const {
    if (holds<T>()) return detail::ArrayAccess::make<T>(impl_);
    throw Error("AnyArray holds an array of dtype " + std::string(name(dtype())) + ", not " +
                std::string(name(dtype_of<T>)));
  }
  /// Call `f(Array<T> const&)` with the array at its own dtype.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return detail::with_element_type(dtype_, [&]<class T>(std::type_identity<T>) -> decltype(auto) {
      return f(detail::ArrayAccess::make<T>(impl_));
    });
  }

  // --- internals; not part of the user API ---
  /// An array of `dtype` on `handle`, whose elements are of that dtype.
  static AnyArray from_handle(DType dtype, std::shared_ptr<detail::ArrayImpl const> handle) noexcept {
    return AnyArray(dtype, std::move(handle));
  }

 private:
  friend struct detail::ArrayAccess;
  AnyArray(DType dtype, std::shared_ptr<detail::ArrayImpl const> handle) noexcept
      : dtype_(dtype), impl_(std::move(handle)) {}
  DType dtype_;
  std::shared_ptr<detail::ArrayImpl const> impl_;
};

/// (A template, so that printing at every dtype is compiled only where an
/// AnyArray is printed.)
template <class = void>
std::ostream& operator<<(std::ostream& os, AnyArray const& a) {
  a.visit([&](auto const& x) { os << x; });
  return os;
}

}  // namespace jaxcc

namespace jaxcc::detail {

/// A fresh contiguous array of `dtype` and `shape`, and its data.
inline std::pair<AnyArray, void*> allocate_any(DType dtype, Shape const& shape) {
  auto [impl, data] = allocate_impl(shape, item_size(dtype));
  return {AnyArray::from_handle(dtype, std::move(impl)), data};
}

/// What `a` points at: its shape, strides, offset and buffer.
inline ArrayImpl const& impl_of(AnyArray const& a) noexcept { return ArrayAccess::impl(a); }

/// `x` itself when contiguous, else a contiguous copy (what detail::contiguous
/// is for an Array).
inline AnyArray as_contiguous(AnyArray const& x) {
  return AnyArray::from_handle(x.dtype(), contiguous_impl(ArrayAccess::handle(x), item_size(x.dtype())));
}

/// A view of `x`'s buffer with another shape, strides and offset, at x's dtype.
inline AnyArray view(AnyArray const& x, Shape shape, Strides strides, std::int64_t offset) {
  return AnyArray::from_handle(x.dtype(), view_impl(impl_of(x), std::move(shape), std::move(strides), offset));
}

/// A zero of `dtype` and `shape` that costs one element: every stride is 0
/// (all bytes zero is 0 in every dtype).
inline AnyArray zeros_view(DType dtype, Shape const& shape) {
  auto [one, data] = allocate_impl(Shape{}, item_size(dtype));
  std::memset(data, 0, item_size(dtype));
  return AnyArray::from_handle(dtype, view_impl(*one, shape, Strides(shape.size(), 0), 0));
}

inline void const* data_of(AnyArray const& a) {
  return first_element(impl_of(a), item_size(a.dtype()));
}
inline bool contiguous(AnyArray const& a) {
  auto const& impl = impl_of(a);
  return is_contiguous(impl.shape, impl.strides);
}
/// The element of `dtype` at `element`, as a double (a complex one's real part).
inline double value_as_double(DType dtype, void const* element) {
  return with_element_type(dtype, [&]<class T>(std::type_identity<T>) {
    T value;
    std::memcpy(static_cast<void*>(&value), element, sizeof value);  // void*: std::complex is trivially copyable
    if constexpr (ComplexElement<T>) return static_cast<double>(value.real());
    else return static_cast<double>(value);
  });
}

/// Every element the same one (all strides 0: a broadcast scalar).
inline bool broadcast_scalar(AnyArray const& a) {
  auto const& strides = impl_of(a).strides;
  return std::all_of(strides.begin(), strides.end(), [](std::int64_t s) { return s == 0; });
}

}  // namespace jaxcc::detail
