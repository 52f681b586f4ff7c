// The 16-bit floats as xsimd batches of float32, in registers at the x86
// SIMD level the code is compiled for. A bfloat16's bits are the high half
// of its float32's: widening shifts each 16-bit lane into the high half of a
// 32-bit one and narrowing keeps the high halves (SSE2, AVX2, AVX-512;
// through a small buffer elsewhere, 2.5x slower on a memory-bound loop).
// float16 takes x86's F16C conversions, which round to nearest even as
// core/half.hpp's scalar ones do; without F16C its regions run element by element.
// Rounding to a 16-bit type's precision is separate: a region rounds after
// every op.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include <xsimd/xsimd.hpp>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "jaxcc/core/dtype.hpp"

namespace jaxcc::detail {

/// Whether float16 data has SIMD conversions to and from float32 here.
#if defined(__F16C__)
inline constexpr bool float16_batches = true;
#else
inline constexpr bool float16_batches = false;
#endif

/// `Batch::size` bfloat16s at `p`, as float32 lanes.
template <class Batch>
Batch load_widened(bfloat16 const* p) {
  static_assert(std::same_as<typename Batch::value_type, float>);
#if defined(__AVX512F__)
  if constexpr (Batch::size == 16) {
    auto const wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<__m256i const*>(p)));
    return Batch(_mm512_castsi512_ps(_mm512_slli_epi32(wide, 16)));
  }
#endif
#if defined(__AVX2__)
  if constexpr (Batch::size == 8) {
    auto const wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<__m128i const*>(p)));
    return Batch(_mm256_castsi256_ps(_mm256_slli_epi32(wide, 16)));
  }
#endif
#if defined(__SSE2__)
  if constexpr (Batch::size == 4) {
    // Interleaved with zeros below: each bfloat16 becomes a float32's high half.
    auto const raw = _mm_loadl_epi64(reinterpret_cast<__m128i const*>(p));
    return Batch(_mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), raw)));
  }
#endif
  alignas(64) std::uint32_t wide[Batch::size];
  for (std::size_t j = 0; j < Batch::size; ++j) wide[j] = std::uint32_t{std::bit_cast<std::uint16_t>(p[j])} << 16;
  return std::bit_cast<Batch>(xsimd::batch<std::uint32_t, typename Batch::arch_type>::load_aligned(wide));
}

/// Float32 lanes already rounded to bfloat16's precision, stored as
/// `Batch::size` bfloat16s at `p` (their high halves).
template <class Batch>
void store_narrowed(bfloat16* p, Batch const& x) {
  static_assert(std::same_as<typename Batch::value_type, float>);
#if defined(__AVX512F__)
  if constexpr (Batch::size == 16) {
    auto const high = _mm512_srli_epi32(_mm512_castps_si512(x), 16);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(high));
    return;
  }
#endif
#if defined(__AVX2__)
  if constexpr (Batch::size == 8) {
    // Arithmetic shifts keep each half in int16's range, so the saturating
    // pack is exact.
    auto const high = _mm256_srai_epi32(_mm256_castps_si256(x), 16);
    auto const packed = _mm_packs_epi32(_mm256_castsi256_si128(high), _mm256_extracti128_si256(high, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), packed);
    return;
  }
#endif
#if defined(__SSE2__)
  if constexpr (Batch::size == 4) {
    auto const high = _mm_srai_epi32(_mm_castps_si128(x), 16);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packs_epi32(high, high));
    return;
  }
#endif
  alignas(64) std::uint32_t wide[Batch::size];
  std::bit_cast<xsimd::batch<std::uint32_t, typename Batch::arch_type>>(x).store_aligned(wide);
  for (std::size_t j = 0; j < Batch::size; ++j) p[j] = std::bit_cast<bfloat16>(static_cast<std::uint16_t>(wide[j] >> 16));
}

#if defined(__F16C__)
/// `Batch::size` float16s at `p`, as float32 lanes (exact).
template <class Batch>
Batch load_widened(float16 const* p) {
  static_assert(std::same_as<typename Batch::value_type, float>);
#if defined(__AVX512F__)
  if constexpr (Batch::size == 16) return Batch(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<__m256i const*>(p))));
  else
#endif
  if constexpr (Batch::size == 8) return Batch(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<__m128i const*>(p))));
  else return Batch(_mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<__m128i const*>(p))));
}

inline constexpr int float16_rounding = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

/// Float32 lanes rounded to float16 (to nearest even; overflow to inf,
/// subnormals kept) and stored as `Batch::size` float16s at `p`.
template <class Batch>
void store_narrowed(float16* p, Batch const& x) {
  static_assert(std::same_as<typename Batch::value_type, float>);
#if defined(__AVX512F__)
  if constexpr (Batch::size == 16) _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtps_ph(x, float16_rounding));
  else
#endif
  if constexpr (Batch::size == 8) _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(x, float16_rounding));
  else _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_cvtps_ph(x, float16_rounding));
}

/// Each lane rounded to float16's precision, as float32.
template <class A>
xsimd::batch<float, A> rounded_to_float16(xsimd::batch<float, A> const& x) {
  using Batch = xsimd::batch<float, A>;
#if defined(__AVX512F__)
  if constexpr (Batch::size == 16) return Batch(_mm512_cvtph_ps(_mm512_cvtps_ph(x, float16_rounding)));
  else
#endif
  if constexpr (Batch::size == 8) return Batch(_mm256_cvtph_ps(_mm256_cvtps_ph(x, float16_rounding)));
  else return Batch(_mm_cvtph_ps(_mm_cvtps_ph(x, float16_rounding)));
}
#endif

/// Each lane rounded to `Half`'s precision, as float32: what one op's
/// result of that type is. bfloat16: to nearest even on the bits, NaN kept;
/// float16: through F16C's conversions.
template <class Half, class A>
xsimd::batch<float, A> rounded_to(xsimd::batch<float, A> const& x) {
  if constexpr (std::same_as<Half, bfloat16>) {
    using Bits = xsimd::batch<std::uint32_t, A>;
    static_assert(sizeof(Bits) == sizeof(x));
    auto bits = std::bit_cast<Bits>(x);
    bits = (bits + ((bits >> 16) & Bits(1u)) + Bits(0x7FFFu)) & Bits(0xFFFF0000u);
    return xsimd::select(xsimd::isnan(x), x, std::bit_cast<xsimd::batch<float, A>>(bits));
  } else {
#if defined(__F16C__)
    static_assert(std::same_as<Half, float16>);
    return rounded_to_float16(x);
#else
    static_assert(std::same_as<Half, void>, "float16 batches need F16C");
#endif
  }
}

}  // namespace jaxcc::detail
