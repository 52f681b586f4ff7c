// What every format of jaxcc::io shares: its errors (each names the
// operation and the file), files read at offsets that never go past their
// end, whole-file mappings, files written whole (to a temporary name that is
// renamed only once everything is written) and little-endian integers.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/core/error.hpp"

namespace jaxcc::detail {

/// Which operation on which file: what every io error starts with.
struct IoContext {
  std::string_view op;
  std::filesystem::path const& path;
};

/// Throw jaxcc::Error "op: 'path': " followed by `parts`.
[[noreturn]] void io_fail(IoContext const& ctx, auto const&... parts) {
  throw_error(ctx.op, ": '", ctx.path.string(), "': ", parts...);
}

/// `a * b`, or an error naming `what` when it does not fit in 64 bits.
inline std::uint64_t io_checked_mul(IoContext const& ctx, std::uint64_t a, std::uint64_t b, std::string_view what) {
  std::uint64_t out;
  if (__builtin_mul_overflow(a, b, &out)) io_fail(ctx, what, " overflows 64 bits");
  return out;
}

/// A little-endian unsigned integer of N bytes at `p`.
template <class U>
U load_le(void const* p) noexcept {
  unsigned char bytes[sizeof(U)];
  std::memcpy(bytes, p, sizeof(U));
  U out = 0;
  for (std::size_t i = sizeof(U); i-- > 0;) out = static_cast<U>((out << 8) | bytes[i]);
  return out;
}
/// `value` appended to `out` as sizeof(U) little-endian bytes.
template <class U>
void store_le(std::string& out, U value) {
  for (std::size_t i = 0; i < sizeof(U); ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}
/// `value` written as sizeof(U) little-endian bytes at `p`.
template <class U>
void store_le(void* p, U value) noexcept {
  auto* bytes = static_cast<unsigned char*>(p);
  for (std::size_t i = 0; i < sizeof(U); ++i) bytes[i] = static_cast<unsigned char>((value >> (8 * i)) & 0xff);
}

/// Reverse the bytes of each of `count` elements of `size` bytes at `data`.
inline void swap_bytes(void* data, std::size_t count, std::size_t size) noexcept {
  auto* p = static_cast<unsigned char*>(data);
  if (size < 2) return;
  for (std::size_t i = 0; i < count; ++i, p += size) std::reverse(p, p + size);
}

/// Ask for transparent huge pages under a large fresh buffer that is about
/// to be written whole (numpy asks for its large arrays): a 1 GB load then
/// takes 512 page faults rather than 262144.
inline void advise_huge_pages(void* data, std::uint64_t bytes) noexcept {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  if (bytes < 4 * huge) return;
  auto const begin = (reinterpret_cast<std::uintptr_t>(data) + huge - 1) & ~(huge - 1);
  auto const end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(huge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data, (void)bytes;
#endif
}

/// A file open for reading; every read is at an offset and must lie inside
/// the file (as its size was when opened), else it is the file's error.
class InFile {
 public:
  explicit InFile(IoContext const& ctx) : ctx_(ctx) {
    fd_ = ::open(ctx.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) io_fail(ctx, "cannot open: ", std::strerror(errno));
    struct stat st{};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      io_fail(ctx, "not a regular file");
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  InFile(InFile const&) = delete;
  InFile& operator=(InFile const&) = delete;
  ~InFile() { ::close(fd_); }

  std::uint64_t size() const noexcept { return size_; }
  int fd() const noexcept { return fd_; }
  IoContext const& context() const noexcept { return ctx_; }

  /// `n` bytes at `offset` to `out`; `what` names them in the error for a
  /// range past the file's end. Small reads come from a window of the file
  /// read ahead (an archive of many small arrays is read in few calls).
  void read(void* out, std::uint64_t n, std::uint64_t offset, std::string_view what) const {
    if (offset > size_ || n > size_ - offset)
      io_fail(ctx_, "truncated: ", what, " needs bytes ", offset, " to ", offset + n, ", the file has ", size_);
    if (n > window_bytes / 4) return read_direct(out, n, offset);
    if (offset < window_offset_ || offset + n > window_offset_ + window_.size()) {
      window_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(window_bytes, size_ - offset)));
      window_offset_ = offset;
      read_direct(window_.data(), window_.size(), offset);
    }
    if (n) std::memcpy(out, window_.data() + (offset - window_offset_), static_cast<std::size_t>(n));
  }

 private:
  static constexpr std::size_t window_bytes = std::size_t{1} << 16;
  struct ReadFailure {
    std::uint64_t offset;
    int error;  // errno, or 0 at the file's end
  };
  // A read this large is split over the threads: the copy out of the page
  // cache and the first touch of fresh memory are each a core's work, and
  // one thread leaves the others idle (a 1 GB array: about half the time on
  // two cores). Slices start on 2 MiB boundaries of `out`, so a huge page is
  // faulted in by one thread.
  static constexpr std::uint64_t parallel_read_bytes = std::uint64_t{32} << 20;
  void read_direct(void* out, std::uint64_t n, std::uint64_t offset) const {
    int threads = 1;
#ifdef _OPENMP
    if (n >= parallel_read_bytes && !omp_in_parallel()) threads = omp_get_max_threads();
#endif
    if (threads <= 1) {
      if (auto const failure = read_range(static_cast<char*>(out), n, offset)) fail_read(*failure);
      return;
    }
    // Thread t reads [bound(t), bound(t + 1)).
    auto const bound = [&, base = reinterpret_cast<std::uintptr_t>(out)](int t) -> std::uint64_t {
      if (t == 0) return 0;
      if (t == threads) return n;
      constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
      auto const even = base + n / static_cast<std::uint64_t>(threads) * static_cast<std::uint64_t>(t);
      return std::min<std::uint64_t>(n, ((even + huge - 1) & ~(huge - 1)) - base);
    };
    std::vector<std::optional<ReadFailure>> failures(static_cast<std::size_t>(threads));
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int t = 0; t < threads; ++t) {
      auto const begin = bound(t), end = bound(t + 1);
      failures[static_cast<std::size_t>(t)] = read_range(static_cast<char*>(out) + begin, end - begin, offset + begin);
    }
    for (auto const& failure : failures)
      if (failure) fail_read(*failure);
  }
  /// Reads [offset, offset + n) to `to`; the failure, if any (no throw: it
  /// runs inside a parallel region).
  std::optional<ReadFailure> read_range(char* to, std::uint64_t n, std::uint64_t offset) const noexcept {
    while (n > 0) {
      auto const chunk = static_cast<std::size_t>(std::min<std::uint64_t>(n, std::uint64_t{1} << 30));
      auto const got = ::pread(fd_, to, chunk, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return ReadFailure{offset, got < 0 ? errno : 0};
      to += got, offset += static_cast<std::uint64_t>(got), n -= static_cast<std::uint64_t>(got);
    }
    return std::nullopt;
  }
  [[noreturn]] void fail_read(ReadFailure const& failure) const {
    io_fail(ctx_, "read failed at byte ", failure.offset, ": ", failure.error ? std::strerror(failure.error) : "end of file");
  }

  IoContext ctx_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  mutable std::string window_;
  mutable std::uint64_t window_offset_ = 0;
};

/// A whole file mapped copy-on-write (MAP_PRIVATE): writes through it reach
/// neither the file nor other mappings. Unmapped when the last owner goes.
class FileMapping {
 public:
  explicit FileMapping(InFile const& file) : size_(static_cast<std::size_t>(file.size())) {
    if (size_ == 0) return;
    void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, file.fd(), 0);
    if (p == MAP_FAILED) io_fail(file.context(), "cannot map the file: ", std::strerror(errno));
    data_ = static_cast<std::byte*>(p);
  }
  FileMapping(FileMapping const&) = delete;
  FileMapping& operator=(FileMapping const&) = delete;
  ~FileMapping() {
    if (data_) ::munmap(data_, size_);
  }
  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_;
};

/// Bytes read one after another from some stored place: a range of a file,
/// of memory, or a zip entry's inflated stream. Never past its end.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// The next `n` bytes to `out`; `what` names them in the error.
  virtual void read(void* out, std::uint64_t n, std::string_view what) = 0;
  /// At most this many bytes are left.
  virtual std::uint64_t remaining() const noexcept = 0;
};

/// The bytes of `file` from `offset`, `size` of them.
class FileRangeSource final : public ByteSource {
 public:
  FileRangeSource(InFile const& file, std::uint64_t offset, std::uint64_t size)
      : file_(file), offset_(offset), end_(offset + size) {}
  void read(void* out, std::uint64_t n, std::string_view what) override {
    if (n > end_ - offset_)
      io_fail(file_.context(), "truncated: ", what, " needs ", n, " bytes, ", end_ - offset_, " are left");
    file_.read(out, n, offset_, what);
    offset_ += n;
  }
  std::uint64_t remaining() const noexcept override { return end_ - offset_; }
  std::uint64_t offset() const noexcept { return offset_; }

 private:
  InFile const& file_;
  std::uint64_t offset_, end_;
};

/// Bytes in memory.
class MemorySource final : public ByteSource {
 public:
  MemorySource(IoContext const& ctx, std::byte const* data, std::size_t size) : ctx_(ctx), data_(data), size_(size) {}
  void read(void* out, std::uint64_t n, std::string_view what) override {
    if (n > size_ - at_) io_fail(ctx_, "truncated: ", what, " needs ", n, " bytes, ", size_ - at_, " are left");
    if (n) std::memcpy(out, data_ + at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
  }
  std::uint64_t remaining() const noexcept override { return size_ - at_; }
  std::size_t offset() const noexcept { return at_; }

 private:
  IoContext ctx_;
  std::byte const* data_;
  std::size_t size_, at_ = 0;
};

/// A file being written: to "<path>.tmp<pid>" first, renamed to `path` by
/// commit(); left unfinished (an error on the way), the temporary is removed.
class OutFile {
 public:
  explicit OutFile(IoContext const& ctx)
      : ctx_(ctx), temp_(ctx.path.string() + ".tmp" + std::to_string(::getpid())) {
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) io_fail(ctx, "cannot create: ", std::strerror(errno));
  }
  OutFile(OutFile const&) = delete;
  OutFile& operator=(OutFile const&) = delete;
  ~OutFile() {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(temp_.c_str());
    }
  }

  /// Bytes written so far (where the next write goes).
  std::uint64_t offset() const noexcept { return offset_; }
  /// Append bytes (small ones gathered, written together).
  void write(void const* data, std::uint64_t n) {
    if (n >= buffer_bytes / 4) {
      flush();
      write_direct(data, n, offset_);
      offset_ += n;
    } else {
      buffer_.append(static_cast<char const*>(data), static_cast<std::size_t>(n));
      offset_ += n;
      if (buffer_.size() >= buffer_bytes) flush();
    }
  }
  void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
  /// Overwrite bytes written before.
  void write_at(void const* data, std::uint64_t n, std::uint64_t offset) {
    flush();
    write_direct(data, n, offset);
  }
  /// Close and rename the file to its path.
  void commit() {
    flush();
    int const fd = std::exchange(fd_, -1);
    if (::close(fd) != 0 || ::rename(temp_.c_str(), ctx_.path.c_str()) != 0) {
      auto const message = std::string(std::strerror(errno));
      ::unlink(temp_.c_str());
      io_fail(ctx_, "cannot finish writing: ", message);
    }
  }

 private:
  static constexpr std::size_t buffer_bytes = std::size_t{1} << 20;
  void flush() {
    auto const at = offset_ - buffer_.size();
    write_direct(buffer_.data(), buffer_.size(), at);
    buffer_.clear();
  }
  /// `n` bytes at `offset` of the file, now.
  void write_direct(void const* data, std::uint64_t n, std::uint64_t offset) {
    auto const* from = static_cast<char const*>(data);
    while (n > 0) {
      auto const chunk = static_cast<std::size_t>(std::min<std::uint64_t>(n, std::uint64_t{1} << 30));
      auto const put = ::pwrite(fd_, from, chunk, static_cast<off_t>(offset));
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) io_fail(ctx_, "write failed: ", put < 0 ? std::strerror(errno) : "nothing written");
      from += put, offset += static_cast<std::uint64_t>(put), n -= static_cast<std::uint64_t>(put);
    }
  }
  IoContext ctx_;
  std::string temp_;
  int fd_ = -1;
  std::uint64_t offset_ = 0;
  std::string buffer_;
};

}  // namespace jaxcc::detail
