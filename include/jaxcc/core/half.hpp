// The 16-bit floats: bfloat16 and float16 (IEEE binary16). Each is 2 bytes
// of storage; a conversion from a wider type rounds to nearest even (from a
// double or an integer through float32, as Eigen's scalar conversions do),
// each converts to float32 exactly and implicitly (so std::isnan and the
// other <cmath> functions take them), and arithmetic between two of them
// computes in float32 and rounds the result.
// jaxcc's own, not Eigen's: every header that names an element type needs
// them, and Eigen/Core took longer to parse than the standard headers
// jaxcc's core uses. Eigen takes them as scalars through its generic
// NumTraits (eigen.hpp's views of 16-bit arrays).
#pragma once

#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace jaxcc {

namespace detail {

struct from_bits_t {};
inline constexpr from_bits_t from_bits{};

/// float32 to bfloat16's bits: the high half, rounded to nearest even; a NaN
/// stays a quiet NaN of its sign.
inline std::uint16_t bfloat16_bits(float f) noexcept {
  if (f != f) return std::signbit(f) ? 0xFFC0u : 0x7FC0u;
  std::uint32_t const bits = std::bit_cast<std::uint32_t>(f);
  return static_cast<std::uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

/// float32 to binary16's bits, rounded to nearest even, in integer
/// arithmetic (what runs without F16C; every NaN becomes one quiet NaN).
inline std::uint16_t float16_bits_portable(float f) noexcept {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  std::uint32_t const sign = bits & 0x80000000u;
  bits ^= sign;
  std::uint16_t out;
  if (bits >= 0x47800000u) {  // 2^16 and above: inf (or NaN)
    out = bits > 0x7F800000u ? 0x7E00u : 0x7C00u;
  } else if (bits < 0x38800000u) {  // below 2^-14: subnormal or zero
    // Adding 0.5 aligns the 10 mantissa bits at the bottom of a float whose
    // exponent is fixed; float addition rounds them to nearest even.
    float const aligned = std::bit_cast<float>(bits) + 0.5f;
    out = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(aligned) - 0x3F000000u);
  } else {
    std::uint32_t const odd = (bits >> 13) & 1u;
    bits += 0xC8000FFFu + odd;  // rebias the exponent (-112 << 23) and round
    out = static_cast<std::uint16_t>(bits >> 13);
  }
  return static_cast<std::uint16_t>(out | (sign >> 16));
}

/// binary16's bits to float32 (exact), in integer arithmetic.
inline float float16_value_portable(std::uint16_t h) noexcept {
  std::uint32_t bits = std::uint32_t{h & 0x7FFFu} << 13;
  std::uint32_t const exponent = bits & 0x0F800000u;
  bits += 0x38000000u;  // rebias (112 << 23)
  if (exponent == 0x0F800000u) {
    bits += 0x38000000u;  // inf or NaN: all exponent bits set
  } else if (exponent == 0) {
    bits += 0x00800000u;  // subnormal: renormalize through float arithmetic
    bits = std::bit_cast<std::uint32_t>(std::bit_cast<float>(bits) - 0x1p-14f);
  }
  return std::bit_cast<float>(bits | (std::uint32_t{h & 0x8000u} << 16));
}

/// float32 to binary16's bits: x86's F16C where compiled for it (which
/// rounds the same and keeps a NaN's payload), else the integer version.
inline std::uint16_t float16_bits(float f) noexcept {
#if defined(__F16C__)
  // Not _cvtss_sh: clang's is a macro with a compound literal at -O0, which
  // -Wpedantic rejects.
  return static_cast<std::uint16_t>(_mm_cvtsi128_si32(_mm_cvtps_ph(_mm_set_ss(f), 0)));
#else
  return float16_bits_portable(f);
#endif
}

/// binary16's bits to float32.
inline float float16_value(std::uint16_t h) noexcept {
#if defined(__F16C__)
  return _cvtsh_ss(h);
#else
  return float16_value_portable(h);
#endif
}

/// The base of both 16-bit floats (what converts to either of them).
struct HalfFloatBase {};

/// What both 16-bit floats share: explicit construction from numbers and
/// from the other 16-bit float (rounded through float32), conversion to
/// float32, and arithmetic and comparison in float32. `Traits` gives the
/// bits of a float and the float of bits.
template <class Half, class Traits>
class HalfFloat : public HalfFloatBase {
 public:
  constexpr HalfFloat() noexcept = default;
  constexpr HalfFloat(from_bits_t, std::uint16_t bits) noexcept : bits_(bits) {}
  explicit HalfFloat(float f) noexcept : bits_(Traits::bits(f)) {}
  explicit HalfFloat(bool b) noexcept : bits_(b ? Traits::one : 0) {}
  template <class T>
    requires((std::is_arithmetic_v<T> || std::derived_from<T, HalfFloatBase>) && !std::same_as<T, float> &&
             !std::same_as<T, bool> && !std::same_as<T, Half>)
  explicit HalfFloat(T value) noexcept : bits_(Traits::bits(static_cast<float>(value))) {}

  // Implicit, as Eigen's and ml_dtypes' are: every 16-bit float is a float.
  operator float() const noexcept { return Traits::value(bits_); }

  friend Half operator+(Half a, Half b) noexcept { return Half(float(a) + float(b)); }
  friend Half operator-(Half a, Half b) noexcept { return Half(float(a) - float(b)); }
  friend Half operator*(Half a, Half b) noexcept { return Half(float(a) * float(b)); }
  friend Half operator/(Half a, Half b) noexcept { return Half(float(a) / float(b)); }
  friend Half operator-(Half a) noexcept { return Half(from_bits, static_cast<std::uint16_t>(a.bits_ ^ 0x8000u)); }
  friend Half operator+(Half a) noexcept { return a; }
  friend Half& operator+=(Half& a, Half b) noexcept { return a = a + b; }
  friend Half& operator-=(Half& a, Half b) noexcept { return a = a - b; }
  friend Half& operator*=(Half& a, Half b) noexcept { return a = a * b; }
  friend Half& operator/=(Half& a, Half b) noexcept { return a = a / b; }
  friend bool operator==(Half a, Half b) noexcept { return float(a) == float(b); }
  friend bool operator<(Half a, Half b) noexcept { return float(a) < float(b); }
  friend bool operator<=(Half a, Half b) noexcept { return float(a) <= float(b); }
  friend bool operator>(Half a, Half b) noexcept { return float(a) > float(b); }
  friend bool operator>=(Half a, Half b) noexcept { return float(a) >= float(b); }
  friend std::ostream& operator<<(std::ostream& os, Half h) { return os << float(h); }

 private:
  std::uint16_t bits_ = 0;
};

struct BFloat16Traits {
  static constexpr std::uint16_t one = 0x3F80u;
  static std::uint16_t bits(float f) noexcept { return bfloat16_bits(f); }
  static float value(std::uint16_t h) noexcept { return std::bit_cast<float>(std::uint32_t{h} << 16); }
};

struct Float16Traits {
  static constexpr std::uint16_t one = 0x3C00u;
  static std::uint16_t bits(float f) noexcept { return float16_bits(f); }
  static float value(std::uint16_t h) noexcept { return float16_value(h); }
};

}  // namespace detail

/// bfloat16: float32's 8 exponent bits and its 7 high mantissa bits.
struct bfloat16 : detail::HalfFloat<bfloat16, detail::BFloat16Traits> {
  using HalfFloat::HalfFloat;
};

/// float16: IEEE binary16 (5 exponent bits, 10 mantissa bits).
struct float16 : detail::HalfFloat<float16, detail::Float16Traits> {
  using HalfFloat::HalfFloat;
};

static_assert(sizeof(bfloat16) == 2 && sizeof(float16) == 2);

}  // namespace jaxcc

namespace jaxcc::detail {

/// numeric_limits of a 16-bit float: `Bits` holds the bit patterns of its
/// constants, the rest is float's shape at its width (ml_dtypes' finfo).
template <class Half, class Bits, int Digits, int Digits10, int MaxDigits10, int MinExponent, int MinExponent10,
          int MaxExponent, int MaxExponent10>
struct HalfFloatLimits {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr std::float_denorm_style has_denorm = std::denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr bool is_iec559 = true;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = Digits;
  static constexpr int digits10 = Digits10;
  static constexpr int max_digits10 = MaxDigits10;
  static constexpr int radix = 2;
  static constexpr int min_exponent = MinExponent;
  static constexpr int min_exponent10 = MinExponent10;
  static constexpr int max_exponent = MaxExponent;
  static constexpr int max_exponent10 = MaxExponent10;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;
  static constexpr Half min() noexcept { return {from_bits, Bits::min}; }
  static constexpr Half lowest() noexcept { return {from_bits, static_cast<std::uint16_t>(Bits::max | 0x8000u)}; }
  static constexpr Half max() noexcept { return {from_bits, Bits::max}; }
  static constexpr Half epsilon() noexcept { return {from_bits, Bits::epsilon}; }
  static constexpr Half round_error() noexcept { return {from_bits, Bits::one_half}; }
  static constexpr Half infinity() noexcept { return {from_bits, Bits::infinity}; }
  static constexpr Half quiet_NaN() noexcept { return {from_bits, Bits::quiet_nan}; }
  static constexpr Half signaling_NaN() noexcept { return {from_bits, Bits::signaling_nan}; }
  static constexpr Half denorm_min() noexcept { return {from_bits, 0x0001u}; }
};

struct BFloat16Bits {
  static constexpr std::uint16_t min = 0x0080u, max = 0x7F7Fu, epsilon = 0x3C00u, one_half = 0x3F00u,
                                 infinity = 0x7F80u, quiet_nan = 0x7FC0u, signaling_nan = 0x7F81u;
};
struct Float16Bits {
  static constexpr std::uint16_t min = 0x0400u, max = 0x7BFFu, epsilon = 0x1400u, one_half = 0x3800u,
                                 infinity = 0x7C00u, quiet_nan = 0x7E00u, signaling_nan = 0x7D00u;
};

}  // namespace jaxcc::detail

template <>
struct std::numeric_limits<jaxcc::bfloat16>
    : jaxcc::detail::HalfFloatLimits<jaxcc::bfloat16, jaxcc::detail::BFloat16Bits, 8, 2, 4, -125, -37, 128, 38> {};
template <>
struct std::numeric_limits<jaxcc::float16>
    : jaxcc::detail::HalfFloatLimits<jaxcc::float16, jaxcc::detail::Float16Bits, 11, 3, 5, -13, -4, 16, 4> {};
