// A vector with inline room for a few elements: shapes and strides of the
// ranks people use never touch the heap.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <ranges>
#include <type_traits>

namespace jaxcc::detail {

template <class T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = T const*;

  SmallVector() = default;
  explicit SmallVector(size_type n, T value = T{}) { assign(n, value); }
  SmallVector(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
  /// Shapes and axes take a braced list of any one integer type
  /// (`{v.size(), 3u}` is not one: it mixes two).
  template <std::integral I>
    requires(std::integral<T> && !std::same_as<I, T>)
  SmallVector(std::initializer_list<I> init) {
    assign(init.begin(), init.end());
  }
  template <std::input_iterator It>
  SmallVector(It first, It last) { assign(first, last); }
  /// From a range; implicit between integer types, so a std::vector<int>
  /// or std::array<std::size_t, 2> is a shape.
  template <std::ranges::input_range R>
    requires(!std::same_as<std::remove_cvref_t<R>, SmallVector>)
  explicit(!(std::integral<T> && std::integral<std::ranges::range_value_t<R>>)) SmallVector(R&& r) {
    assign(std::ranges::begin(r), std::ranges::end(r));
  }

  SmallVector(SmallVector const& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(SmallVector const& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      heap_.reset();
      steal(o);
    }
    return *this;
  }
  ~SmallVector() = default;

  template <class It>
  void assign(It first, It last) {
    size_ = 0;
    for (; first != last; ++first) push_back(static_cast<T>(*first));
  }
  void assign(size_type n, T value) {
    size_ = 0;
    reserve(n);
    for (size_type i = 0; i < n; ++i) push_back(value);
  }

  void reserve(size_type n) {
    if (n <= capacity()) return;
    auto grown = std::make_unique<T[]>(n);
    std::copy(begin(), end(), grown.get());
    heap_ = std::move(grown);
    capacity_ = n;
  }
  void push_back(T v) {
    if (size_ == capacity()) reserve(capacity() * 2);
    data()[size_++] = v;
  }
  void pop_back() noexcept { --size_; }
  void resize(size_type n, T value = T{}) {
    reserve(n);
    for (size_type i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  iterator insert(const_iterator pos, T v) {
    auto const at = static_cast<size_type>(pos - begin());
    push_back(v);
    std::rotate(begin() + at, end() - 1, end());
    return begin() + at;
  }
  template <std::input_iterator It>
  iterator insert(const_iterator pos, It first, It last) {
    auto const at = static_cast<size_type>(pos - begin());
    auto const old_size = size_;
    for (; first != last; ++first) push_back(static_cast<T>(*first));
    std::rotate(begin() + at, begin() + old_size, end());
    return begin() + at;
  }
  iterator erase(const_iterator pos) {
    auto const at = static_cast<size_type>(pos - begin());
    std::copy(begin() + at + 1, end(), begin() + at);
    --size_;
    return begin() + at;
  }
  void clear() noexcept { size_ = 0; }

  T* data() noexcept { return heap_ ? heap_.get() : inline_; }
  T const* data() const noexcept { return heap_ ? heap_.get() : inline_; }
  size_type size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  size_type capacity() const noexcept { return heap_ ? capacity_ : N; }

  T& operator[](size_type i) noexcept { return data()[i]; }
  T const& operator[](size_type i) const noexcept { return data()[i]; }
  T& back() noexcept { return data()[size_ - 1]; }
  T const& back() const noexcept { return data()[size_ - 1]; }
  iterator begin() noexcept { return data(); }
  iterator end() noexcept { return data() + size_; }
  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size_; }

  friend bool operator==(SmallVector const& a, SmallVector const& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  void steal(SmallVector& o) noexcept {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = std::move(o.heap_);
      capacity_ = o.capacity_;
    } else {
      std::copy(o.inline_, o.inline_ + o.size_, inline_);
    }
    o.size_ = 0;
  }

  T inline_[N]{};
  std::unique_ptr<T[]> heap_;
  size_type capacity_ = N;
  size_type size_ = 0;
};

}  // namespace jaxcc::detail
