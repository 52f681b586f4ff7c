// Copies with non-temporal (streaming) stores, at whatever x86 SIMD level
// the code is compiled for (SSE2, AVX, AVX-512), and plain copies elsewhere.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace jaxcc::detail {

/// Copies `bytes` from `src` to `dst`, writing the whole cache lines of
/// `dst` with streaming stores: they go to memory without the line being
/// read first and without evicting other data from the caches. Call
/// stream_fence() before another thread reads `dst`.
inline void stream_copy(void* dst, void const* src, std::size_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  auto const* s = static_cast<unsigned char const*>(src);
#if defined(__SSE2__)
  auto const head = std::min<std::size_t>(bytes, (64 - reinterpret_cast<std::uintptr_t>(d) % 64) % 64);
  std::memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  for (; bytes >= 64; d += 64, s += 64, bytes -= 64) {
#if defined(__AVX512F__)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d), _mm512_loadu_si512(s));
#elif defined(__AVX__)
    for (int k = 0; k < 64; k += 32)
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d + k), _mm256_loadu_si256(reinterpret_cast<__m256i const*>(s + k)));
#else
    for (int k = 0; k < 64; k += 16)
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + k), _mm_loadu_si128(reinterpret_cast<__m128i const*>(s + k)));
#endif
  }
#endif
  std::memcpy(d, s, bytes);
}

/// Orders the streaming stores made so far before the stores that follow
/// (streaming stores are weakly ordered: without it, a thread that sees a
/// later store, such as a barrier's, might not see them yet).
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace jaxcc::detail
