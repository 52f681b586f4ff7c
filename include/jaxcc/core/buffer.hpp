// The storage behind arrays: one 64-byte-aligned allocation, shared by every
// array (and view) that reads it, written only by the operation that made it.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace jaxcc::detail {

inline constexpr std::size_t buffer_alignment = 64;

class Buffer {
 public:
  explicit Buffer(std::size_t bytes)
      : bytes_(bytes), data_(::operator new(bytes ? bytes : 1, std::align_val_t{buffer_alignment})) {}
  Buffer(Buffer const&) = delete;
  Buffer& operator=(Buffer const&) = delete;
  ~Buffer() { ::operator delete(data_, std::align_val_t{buffer_alignment}); }

  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t bytes_;
  void* data_;
};

}  // namespace jaxcc::detail
