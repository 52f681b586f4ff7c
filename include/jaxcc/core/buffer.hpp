// The storage behind arrays: one 64-byte-aligned allocation, shared by every
// array (and view) that reads it, written only by the operation that made it.
//
// Buffers are recycled, as array frameworks' caching allocators do. Large
// ones through a cache shared by all threads: the system allocator returns
// big blocks to the OS on free, so a loop that makes a same-sized result each
// step would otherwise pay a page fault per 4 KiB every time. Small ones (and
// the arrays' handles) through a per-thread cache: a jitted function's call
// makes and frees the same few each time, and then asks the system for none.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace jaxcc::detail {

inline constexpr std::size_t buffer_alignment = 64;

#if defined(__SANITIZE_ADDRESS__)
#define JAXCC_DETAIL_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JAXCC_DETAIL_ADDRESS_SANITIZER 1
#endif
#endif

/// Blocks of 64 B to 64 KiB, 64-byte aligned, kept per thread by
/// power-of-two size class (at most `kept_per_class` of each) when freed
/// and handed out again before the system allocator is asked. A block may
/// be freed on another thread than the one that took it. Under
/// AddressSanitizer none are kept, so that it sees every use after free.
class SmallBlocks {
 public:
  static constexpr std::size_t min_block = 64, max_block = std::size_t{1} << 16;
  static constexpr std::size_t kept_per_class = 32;
#ifdef JAXCC_DETAIL_ADDRESS_SANITIZER
  static constexpr bool keeps_blocks = false;
#else
  static constexpr bool keeps_blocks = true;
#endif

  /// The size of the block that holds `bytes` (bytes <= max_block).
  static std::size_t block_size(std::size_t bytes) noexcept { return std::bit_ceil(bytes < min_block ? min_block : bytes); }

  /// A block of at least `bytes`; above max_block, straight from the system.
  static void* acquire(std::size_t bytes) {
    if (bytes <= max_block)
      if (auto* kept = local()) {
        auto& list = kept->lists[size_class(bytes)];
        if (list.count) return list.blocks[--list.count];
      }
    return ::operator new(bytes <= max_block ? block_size(bytes) : bytes, std::align_val_t{buffer_alignment});
  }
  /// Give back a block `acquire(bytes)` returned.
  static void release(void* p, std::size_t bytes) noexcept {
    if (bytes <= max_block)
      if (auto* kept = local()) {
        auto& list = kept->lists[size_class(bytes)];
        if (list.count < kept_per_class) {
          list.blocks[list.count++] = p;
          return;
        }
      }
    ::operator delete(p, std::align_val_t{buffer_alignment});
  }

 private:
  static constexpr std::size_t classes = std::countr_zero(max_block) - std::countr_zero(min_block) + 1;
  static std::size_t size_class(std::size_t bytes) noexcept {
    return static_cast<std::size_t>(std::countr_zero(block_size(bytes)) - std::countr_zero(min_block));
  }

  struct List {
    std::array<void*, kept_per_class> blocks;
    std::size_t count = 0;
  };
  struct PerThread {
    std::array<List, classes> lists{};
    ~PerThread() {
      for (auto& list : lists)
        for (std::size_t i = 0; i < list.count; ++i) ::operator delete(list.blocks[i], std::align_val_t{buffer_alignment});
      finished = true;
    }
  };
  /// This thread's cache; null once the thread is ending (arrays freed by
  /// later destructors go straight back to the system).
  static PerThread* local() noexcept {
    if (!keeps_blocks || finished) return nullptr;
    thread_local PerThread kept;
    return &kept;
  }
  static inline thread_local bool finished = false;
};

/// An allocator over SmallBlocks, for the shared handles of arrays and
/// buffers (std::allocate_shared).
template <class T>
struct BlockAllocator {
  using value_type = T;
  BlockAllocator() = default;
  template <class U>
  BlockAllocator(BlockAllocator<U> const&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(SmallBlocks::acquire(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { SmallBlocks::release(p, n * sizeof(T)); }
  friend bool operator==(BlockAllocator const&, BlockAllocator const&) = default;
};

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
    if (bytes < min_cached_bytes) return SmallBlocks::block_size(bytes);
    constexpr std::size_t page = 4096;
    return (bytes + page - 1) / page * page;
  }

  void* acquire(std::size_t bytes) {
    if (bytes < min_cached_bytes) return SmallBlocks::acquire(bytes);
    if (auto* kept = bytes <= max_kept_bytes ? recent() : nullptr)
      for (auto i = kept->count; i-- > 0;)
        if (kept->bytes[i] == bytes) {
          void* p = kept->blocks[i];
          for (auto k = i + 1; k < kept->count; ++k) kept->blocks[k - 1] = kept->blocks[k], kept->bytes[k - 1] = kept->bytes[k];
          --kept->count;
          return p;
        }
    {
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
    if (bytes < min_cached_bytes) return SmallBlocks::release(p, bytes);
    if (auto* kept = bytes <= max_kept_bytes ? recent() : nullptr) {
      if (kept->count == kept_per_thread) {  // the oldest goes to the shared cache
        share(kept->blocks[0], kept->bytes[0]);
        for (std::size_t k = 1; k < kept->count; ++k) kept->blocks[k - 1] = kept->blocks[k], kept->bytes[k - 1] = kept->bytes[k];
        --kept->count;
      }
      kept->blocks[kept->count] = p;
      kept->bytes[kept->count++] = bytes;
      return;
    }
    share(p, bytes);
  }

  /// Return every cached block to the system (this thread's own too).
  void clear() noexcept {
    if (auto* kept = recent()) kept->clear();
    std::lock_guard lock(mutex_);
    for (auto& [bytes, blocks] : free_)
      for (void* p : blocks) ::operator delete(p, std::align_val_t{buffer_alignment});
    free_.clear();
    total_ = 0;
  }

  ~BufferCache() { clear(); }

 private:
  // A thread takes back first the large blocks it gave back itself, latest
  // first: they may still be in its core's caches, where one another thread
  // gave back is in that core's. (jit's microbatching makes and frees each
  // slice's values on every thread; taking each other's, the convolution
  // benchmark's slices spent four times as long zeroing their outputs.)
  static constexpr std::size_t kept_per_thread = 4;
  static constexpr std::size_t max_kept_bytes = std::size_t{8} << 20;
  struct Recent {
    std::array<void*, kept_per_thread> blocks{};
    std::array<std::size_t, kept_per_thread> bytes{};
    std::size_t count = 0;
    void clear() noexcept {
      for (std::size_t i = 0; i < count; ++i) ::operator delete(blocks[i], std::align_val_t{buffer_alignment});
      count = 0;
    }
    ~Recent() {
      clear();
      finished = true;
    }
  };
  /// This thread's blocks; null once the thread is ending.
  static Recent* recent() noexcept {
    if (finished) return nullptr;
    thread_local Recent kept;
    return &kept;
  }
  static inline thread_local bool finished = false;

  void share(void* p, std::size_t bytes) noexcept {
    {
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

  BufferCache() = default;
  std::mutex mutex_;
  std::map<std::size_t, std::vector<void*>> free_;
  std::size_t total_ = 0;
};

class Buffer {
 public:
  explicit Buffer(std::size_t bytes)
      : bytes_(BufferCache::round_up(bytes)), data_(BufferCache::instance().acquire(bytes_)) {}
  /// `bytes` at `data`, memory the cache does not own: `owner` keeps it
  /// alive (a file's mapping, jaxcc/io/npy.hpp) and frees it when the last
  /// array on it goes.
  Buffer(void* data, std::size_t bytes, std::shared_ptr<void const> owner) noexcept
      : bytes_(bytes), data_(data), owner_(std::move(owner)) {}
  Buffer(Buffer const&) = delete;
  Buffer& operator=(Buffer const&) = delete;
  ~Buffer() {
    if (!owner_) BufferCache::instance().release(data_, bytes_);
  }

  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t bytes_;
  void* data_;
  std::shared_ptr<void const> owner_;
};

}  // namespace jaxcc::detail
