// jaxcc::Array<T>: the one array type users hold. A cheap shared handle to an
// immutable strided view of a buffer; every operation returns a new Array, so
// copies never alias in a way a user can observe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/core/buffer.hpp"
#include "jaxcc/core/dtype.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/index.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/core/var.hpp"

namespace jaxcc {

template <Element T>
class Array;
class NamedSharding;  // sharding/named_sharding.hpp

namespace detail {

/// What an Array handle points at. Immutable once built; shared by copies,
/// so a value used twice is one object used twice (the identity a traced
/// program's nodes will hang off).
struct ArrayImpl {
  Shape shape{};
  Strides strides{};         // in elements; 0 on broadcast dimensions
  std::int64_t offset = 0;   // in elements, into buffer
  std::shared_ptr<Buffer> buffer{};
  /// Set while the array stands for a value being traced under a transform;
  /// such an array has a shape and dtype but no buffer.
  std::shared_ptr<graph::Var> var{};
  /// Set on an array split over devices (sharding/sharded_array.hpp): each
  /// device's part lies at its place in `buffer`, written by that device.
  std::shared_ptr<NamedSharding const> sharding{};
  /// Set where some of its parts live only in other processes (a mesh that
  /// spans processes): its values cannot be read here.
  bool partly_elsewhere = false;
};

/// The sharding of an array: its own, or one device's (defined in
/// sharding/sharded_array.hpp, so only code that asks pays for it).
template <class S>
S const& sharding_or_single_device(std::shared_ptr<S const> const& sharding);
template <class S, Element T>
auto addressable_shards_of(Array<T> const& x);

/// The error for asking a traced array for data: JAX's
/// TracerBoolConversionError for a truth value, else ConcretizationTypeError.
[[noreturn]] inline void throw_concretization_error(Shape const& shape, DType dtype, std::string_view what) {
  auto const value = "traced array with shape " + graph::type_string(dtype, shape);
  if (what == "bool")
    throw Error("Attempted boolean conversion of " + value +
                ". A C++ `if` cannot branch on a value being traced; use jaxcc::lax::cond to choose between "
                "computations, or jnp::where to choose between values.");
  throw Error("Abstract tracer value encountered where concrete value is expected: " + value +
              "\nThe problem arose with `" + std::string(what) +
              "`, which needs the array's values; under a transform only its shape and dtype are known.");
}

/// JAX's error for reading an array that other processes hold parts of.
[[noreturn]] inline void throw_not_addressable() {
  throw Error("Fetching value for `jaxcc::Array` that spans non-addressable (non process local) devices is not "
              "possible. You can use `jaxcc::process_allgather` to print the global array or use "
              "`.addressable_shards()` method of jaxcc::Array to inspect the addressable (process local) shards.");
}

/// Whether a view of `shape` with `strides` walks its elements in row-major
/// order with no gaps.
inline bool is_contiguous(Shape const& shape, Strides const& strides) noexcept {
  std::int64_t step = 1;
  for (auto d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != step) return false;
    step *= shape[d];
  }
  return true;
}

/// `impl` as a shared handle (every handle comes from the per-thread block
/// cache, detail::BlockAllocator).
inline std::shared_ptr<ArrayImpl const> new_handle(ArrayImpl impl) {
  return std::allocate_shared<ArrayImpl const>(BlockAllocator<ArrayImpl const>{}, std::move(impl));
}

/// The bytes of `impl`'s first element, whose elements take `item_bytes` each.
inline std::byte const* first_element(ArrayImpl const& impl, std::size_t item_bytes) noexcept {
  return static_cast<std::byte const*>(impl.buffer->data()) + impl.offset * static_cast<std::int64_t>(item_bytes);
}

/// A strided copy of elements of Size bytes, from `in` walked by `strides`
/// to `out` walked by `out_strides` (a memcpy of a constant size is one move:
/// no element type is needed, so five copies serve every dtype). A row
/// dense on both sides (a broadcast row repeated down a matrix) is one
/// memcpy.
template <std::size_t Size>
void copy_strided(std::byte const* in, Shape const& shape, Strides const& strides, std::byte* out,
                  Strides const& out_strides) {
  auto layout = merge_dimensions<2>(shape, {strides, out_strides});
  for_each_row(layout, [&](auto const& off, std::int64_t n, auto const& st) {
    if (st[0] == 1 && st[1] == 1) {
      std::memcpy(out + off[1] * std::int64_t{Size}, in + off[0] * std::int64_t{Size}, static_cast<std::size_t>(n) * Size);
      return;
    }
    for (std::int64_t i = 0; i < n; ++i)
      std::memcpy(out + (off[1] + i * st[1]) * std::int64_t{Size}, in + (off[0] + i * st[0]) * std::int64_t{Size}, Size);
  });
}

/// Copy the elements of `impl`, `item_bytes` each, to `out` walked by
/// `out_strides` (elements).
inline void copy_elements(ArrayImpl const& impl, std::size_t item_bytes, void* out, Strides const& out_strides) {
  auto const* in = first_element(impl, item_bytes);
  auto* to = static_cast<std::byte*>(out);
  switch (item_bytes) {
    case 1: return copy_strided<1>(in, impl.shape, impl.strides, to, out_strides);
    case 2: return copy_strided<2>(in, impl.shape, impl.strides, to, out_strides);
    case 4: return copy_strided<4>(in, impl.shape, impl.strides, to, out_strides);
    case 8: return copy_strided<8>(in, impl.shape, impl.strides, to, out_strides);
    default: return copy_strided<16>(in, impl.shape, impl.strides, to, out_strides);  // complex128
  }
}

/// Copy the elements of `impl`, `item_bytes` each, row-major, to `out`.
inline void copy_elements(ArrayImpl const& impl, std::size_t item_bytes, void* out) {
  if (is_contiguous(impl.shape, impl.strides)) {
    if (auto const n = impl.shape.numel(); n > 0)
      std::memcpy(out, first_element(impl, item_bytes), static_cast<std::size_t>(n) * item_bytes);
    return;
  }
  copy_elements(impl, item_bytes, out, contiguous_strides(impl.shape));
}

template <Element T>
class AtRef;
/// numpy/indexing.hpp: `x(index...)` and `x.at(index...)`.
template <Element T, IndexLike... I>
Array<T> indexed(Array<T> const& x, I const&... index);
template <Element T, IndexLike... I>
AtRef<T> at_ref(Array<T> const& x, I const&... index);

struct ArrayAccess;

}  // namespace detail

namespace lax {
template <Element T>
Array<T> reshape(Array<T> const& x, Shape const& new_sizes);
template <Element T>
Array<T> transpose(Array<T> const& x, Axes const& permutation);
template <Element U, Element T>
Array<U> convert_element_type(Array<T> const& x);
}  // namespace lax

template <Element V>
class Array {
 public:
  using value_type = V;

  /// An empty float array of shape (0,), like `jnp.zeros(0)`.
  Array() : impl_(empty_impl()) {}

  Shape const& shape() const noexcept { return impl_->shape; }
  std::int64_t ndim() const noexcept { return impl_->shape.rank(); }
  std::int64_t size() const noexcept { return impl_->shape.numel(); }
  static constexpr DType dtype() noexcept { return dtype_of<V>; }

  /// The elements in row-major order.
  std::vector<V> to_vector() const {
    require_concrete("to_vector");
    std::vector<V> out(static_cast<std::size_t>(size()));
    if constexpr (std::same_as<V, bool>) {
      auto bytes = std::make_unique<bool[]>(out.size());
      copy_to(bytes.get());
      std::copy(bytes.get(), bytes.get() + out.size(), out.begin());
    } else {
      copy_to(out.data());
    }
    return out;
  }

  /// The value of a one-element array.
  V item() const {
    require_concrete("item");
    if (size() != 1) {
      std::ostringstream os;
      os << "item: can only convert an array of size 1 to a scalar, got shape " << shape();
      throw Error(os.str());
    }
    return data()[0];
  }

  /// A concrete boolean's truth value; numpy's and JAX's rule for size != 1.
  explicit operator bool() const
    requires std::same_as<V, bool>
  {
    require_concrete("bool");
    if (size() != 1)
      throw Error("The truth value of an array with more than one element is ambiguous. "
                  "Use a.any() or a.all()");
    return data()[0];
  }

  Array reshape(Shape const& new_shape) const { return lax::reshape(*this, new_shape); }
  template <Element U>
  Array<U> astype() const {
    return lax::convert_element_type<U>(*this);
  }
  /// The transpose: axes reversed.
  Array T() const {
    Axes perm;
    for (auto i = ndim(); i-- > 0;) perm.push_back(i);
    return lax::transpose(*this, perm);
  }

  /// numpy's `x[i]`: along the leading axis, an integer (negative counts
  /// from the end) or an integer array (numpy/indexing.hpp).
  template <IndexLike I>
  Array operator[](I const& index) const {
    return detail::indexed(*this, index);
  }
  /// numpy's `x[i, j, ...]`: integers, jaxcc::all, jaxcc::slice(...),
  /// jaxcc::newaxis and integer arrays, as numpy and JAX read them.
  template <IndexLike... I>
  Array operator()(I const&... index) const {
    return detail::indexed(*this, index...);
  }

  /// Functional indexed update: `x.at(i).set(v)`, `x.at(i, jaxcc::all).add(v)`,
  /// `x.at(idx).get()`; the same indices as `x(...)`.
  template <IndexLike... I>
  detail::AtRef<V> at(I const&... index) const {
    return detail::at_ref(*this, index...);
  }

  /// Whether this array stands for a value being traced under a transform.
  bool is_traced() const noexcept { return impl_->var != nullptr; }

  /// How the array is split over devices (needs jaxcc/sharding/sharded_array.hpp).
  template <class S = NamedSharding>
  S const& sharding() const {
    return detail::sharding_or_single_device<S>(impl_->sharding);
  }
  /// Each device's part: its device, index ranges and data (jax.Shard).
  template <class S = NamedSharding>
  auto addressable_shards() const {
    return detail::addressable_shards_of<S>(*this);
  }

  // --- internals for kernels; not part of the user API ---
  V const* data() const noexcept {
    return static_cast<V const*>(impl_->buffer->data()) + impl_->offset;
  }
  Strides const& strides() const noexcept { return impl_->strides; }
  bool is_contiguous() const noexcept { return detail::is_contiguous(impl_->shape, impl_->strides); }
  /// Copy the elements, row-major, to `out`.
  void copy_to(V* out) const {
    require_concrete("copy_to");
    detail::copy_elements(*impl_, sizeof(V), out);
  }

 private:
  friend struct detail::ArrayAccess;
  void require_concrete(std::string_view what) const {
    if (is_traced()) detail::throw_concretization_error(shape(), dtype(), what);
    if (impl_->partly_elsewhere) detail::throw_not_addressable();
  }
  explicit Array(std::shared_ptr<detail::ArrayImpl const> impl) : impl_(std::move(impl)) {}

  static std::shared_ptr<detail::ArrayImpl const> const& empty_impl() {
    static auto const impl = std::make_shared<detail::ArrayImpl const>(
        detail::ArrayImpl{Shape{0}, Strides{1}, 0, std::make_shared<detail::Buffer>(0)});
    return impl;
  }

  std::shared_ptr<detail::ArrayImpl const> impl_;
};

namespace detail {

/// The library's back door into Array and AnyArray: making arrays from
/// buffers and views, and reading the handle they share.
struct ArrayAccess {
  template <Element T>
  static Array<T> make(std::shared_ptr<ArrayImpl const> impl) noexcept {
    return Array<T>(std::move(impl));
  }
  template <Element T>
  static Array<T> make(ArrayImpl impl) {
    return make<T>(new_handle(std::move(impl)));
  }
  template <class A>
  static std::shared_ptr<ArrayImpl const> const& handle(A const& x) noexcept {
    return x.impl_;
  }
  /// `x`'s handle, taken from it (x is not used again).
  template <Element T>
  static std::shared_ptr<ArrayImpl const> release(Array<T>&& x) noexcept {
    return std::move(x.impl_);
  }
  template <class A>
  static ArrayImpl const& impl(A const& x) noexcept {
    return *x.impl_;
  }
};

/// A fresh contiguous handle of `shape` whose elements take `item_bytes`
/// each, and a pointer to write them through (what allocate<T> and
/// allocate_any share: the allocation knows sizes, not element types).
inline std::pair<std::shared_ptr<ArrayImpl const>, void*> allocate_impl(Shape shape, std::size_t item_bytes) {
  auto const n = static_cast<std::size_t>(shape.numel());
  auto buffer = std::allocate_shared<Buffer>(BlockAllocator<Buffer>{}, n * item_bytes);
  void* out = buffer->data();
  auto strides = contiguous_strides(shape);
  return {new_handle({std::move(shape), std::move(strides), 0, std::move(buffer)}), out};
}

/// A handle on `impl`'s buffer with another shape, strides and offset.
inline std::shared_ptr<ArrayImpl const> view_impl(ArrayImpl const& impl, Shape shape, Strides strides,
                                                  std::int64_t offset) {
  return new_handle({std::move(shape), std::move(strides), offset, impl.buffer});
}

/// `handle` itself when contiguous, else a handle on a contiguous copy.
inline std::shared_ptr<ArrayImpl const> contiguous_impl(std::shared_ptr<ArrayImpl const> const& handle,
                                                        std::size_t item_bytes) {
  if (is_contiguous(handle->shape, handle->strides)) return handle;
  auto [out, data] = allocate_impl(handle->shape, item_bytes);
  copy_elements(*handle, item_bytes, data);
  return std::move(out);
}

/// A fresh contiguous array and a pointer to write its elements through. The
/// pointer is valid only until the array is handed to anyone else.
template <Element T>
std::pair<Array<T>, T*> allocate(Shape shape) {
  auto [impl, data] = allocate_impl(std::move(shape), sizeof(T));
  return {ArrayAccess::make<T>(std::move(impl)), static_cast<T*>(data)};
}

/// A view of `x`'s buffer with another shape, strides and offset.
template <Element T>
Array<T> view(Array<T> const& x, Shape shape, Strides strides, std::int64_t offset) {
  return ArrayAccess::make<T>(view_impl(ArrayAccess::impl(x), std::move(shape), std::move(strides), offset));
}

/// The element offset of `x`'s first element inside its buffer.
template <Element T>
std::int64_t offset_of(Array<T> const& x) noexcept {
  return ArrayAccess::impl(x).offset;
}

/// `x` itself when contiguous, else a contiguous copy.
template <Element T>
Array<T> contiguous(Array<T> const& x) {
  return ArrayAccess::make<T>(contiguous_impl(ArrayAccess::handle(x), sizeof(T)));
}

template <class A>
struct is_array : std::false_type {};
template <Element T>
struct is_array<Array<T>> : std::true_type {};

}  // namespace detail

/// Exactly a jaxcc::Array of some dtype.
template <class A>
concept AnArray = detail::is_array<std::remove_cvref_t<A>>::value;

template <Element T>
std::ostream& operator<<(std::ostream& os, Array<T> const& x);
template <Element T>
std::string to_string(Array<T> const& x);

}  // namespace jaxcc
