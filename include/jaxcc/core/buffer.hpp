// The storage behind arrays: one 64-byte-aligned allocation, shared by every
// array (and view) that reads it, written only by the operation that made it.
//
// Large buffers are recycled through a small cache, as array frameworks'
// caching allocators do: the system allocator returns big blocks to the OS on
// free, so a loop that makes a same-sized result each step would otherwise
// pay a page fault per 4 KiB every time.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace jaxcc::detail {

inline constexpr std::size_t buffer_alignment = 64;

class BufferCache {
 public:
  static constexpr std::size_t min_cached_bytes = std::size_t{1} << 16;
  static constexpr std::size_t max_cached_total = std::size_t{1} << 30;

  static BufferCache& instance() {
    static BufferCache cache;
    return cache;
  }

  /// Bytes rounded to the block the cache deals in.
  static std::size_t round_up(std::size_t bytes) noexcept {
    if (bytes < min_cached_bytes) return bytes ? bytes : 1;
    constexpr std::size_t page = 4096;
    return (bytes + page - 1) / page * page;
  }

  void* acquire(std::size_t bytes) {
    if (bytes >= min_cached_bytes) {
      std::lock_guard lock(mutex_);
      if (auto it = free_.find(bytes); it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        total_ -= bytes;
        return p;
      }
    }
    return ::operator new(bytes, std::align_val_t{buffer_alignment});
  }

  void release(void* p, std::size_t bytes) noexcept {
    if (bytes >= min_cached_bytes) {
      std::lock_guard lock(mutex_);
      if (total_ + bytes <= max_cached_total) {
        try {
          free_[bytes].push_back(p);
          total_ += bytes;
          return;
        } catch (...) {  // no room to remember it: give it back below
        }
      }
    }
    ::operator delete(p, std::align_val_t{buffer_alignment});
  }

  /// Return every cached block to the system.
  void clear() noexcept {
    std::lock_guard lock(mutex_);
    for (auto& [bytes, blocks] : free_)
      for (void* p : blocks) ::operator delete(p, std::align_val_t{buffer_alignment});
    free_.clear();
    total_ = 0;
  }

  ~BufferCache() { clear(); }

 private:
  BufferCache() = default;
  std::mutex mutex_;
  std::map<std::size_t, std::vector<void*>> free_;
  std::size_t total_ = 0;
};

class Buffer {
 public:
  explicit Buffer(std::size_t bytes)
      : bytes_(BufferCache::round_up(bytes)), data_(BufferCache::instance().acquire(bytes_)) {}
  Buffer(Buffer const&) = delete;
  Buffer& operator=(Buffer const&) = delete;
  ~Buffer() { BufferCache::instance().release(data_, bytes_); }

  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t bytes_;
  void* data_;
};

}  // namespace jaxcc::detail
