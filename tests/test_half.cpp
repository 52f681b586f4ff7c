// The 16-bit floats of jaxcc/core/half.hpp: their limits (ml_dtypes'
// finfo, written out), and their conversions from float32 checked against
// a reference that rounds in double arithmetic (the quantum at the value's
// exponent, std::nearbyint's ties to even), over every high bit pattern of
// float32 with the low bits that decide the rounding.
#include "catch.hpp"

#include <jaxcc/core/half.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace test_half {

using jaxcc::bfloat16, jaxcc::float16;

/// `f` rounded to nearest even with `digits` significant bits, normal down
/// to 2^min_exponent and subnormal below; inf from `overflow` on.
double rounded_reference(float f, int digits, int min_exponent, double overflow) {
  double const a = std::abs(static_cast<double>(f));
  double value;
  if (a >= overflow) {
    value = std::numeric_limits<double>::infinity();
  } else if (a == 0) {
    value = 0;
  } else {
    int const exponent = std::max(static_cast<int>(std::floor(std::log2(a))), min_exponent);
    double const quantum = std::ldexp(1.0, exponent - (digits - 1));
    value = std::nearbyint(a / quantum) * quantum;
  }
  return std::signbit(f) ? -value : value;
}

double float16_reference(float f) { return rounded_reference(f, 11, -14, 65520.0); }
double bfloat16_reference(float f) { return rounded_reference(f, 8, -126, std::ldexp(2.0 - 0x1p-8, 127)); }

/// Every float32 whose bits above `low_bits` take each value, with the low
/// bits each of the tails that round down, to a tie, or up.
template <class F>
int count_mismatches(int low_bits, F&& mismatch) {
  std::uint32_t const half = std::uint32_t{1} << (low_bits - 1), full = (std::uint32_t{1} << low_bits) - 1;
  std::uint32_t const tails[] = {0, 1, half - 1, half, half + 1, full};
  int mismatches = 0;
  for (std::uint64_t high = 0; high < (std::uint64_t{1} << (32 - low_bits)); ++high)
    for (auto tail : tails) {
      float const f = std::bit_cast<float>(static_cast<std::uint32_t>(high << low_bits) | tail);
      if (!std::isnan(f) && mismatch(f)) ++mismatches;
    }
  return mismatches;
}

TEST_CASE("numeric_limits of the 16-bit floats are ml_dtypes' finfo", "[half]") {
  using H = std::numeric_limits<float16>;
  CHECK(static_cast<float>(H::max()) == 65504.f);
  CHECK(static_cast<float>(H::lowest()) == -65504.f);
  CHECK(static_cast<float>(H::min()) == 0x1p-14f);
  CHECK(static_cast<float>(H::epsilon()) == 0x1p-10f);
  CHECK(static_cast<float>(H::denorm_min()) == 0x1p-24f);
  CHECK(H::digits == 11);
  CHECK(std::isinf(static_cast<float>(H::infinity())));
  CHECK(std::isnan(static_cast<float>(H::quiet_NaN())));
  using B = std::numeric_limits<bfloat16>;
  CHECK(static_cast<float>(B::max()) == 0x1.FEp127f);
  CHECK(static_cast<float>(B::lowest()) == -0x1.FEp127f);
  CHECK(static_cast<float>(B::min()) == 0x1p-126f);
  CHECK(static_cast<float>(B::epsilon()) == 0x1p-7f);
  CHECK(static_cast<float>(B::denorm_min()) == 0x1p-133f);
  CHECK(B::digits == 8);
  CHECK(std::isinf(static_cast<float>(B::infinity())));
  CHECK(std::isnan(static_cast<float>(B::quiet_NaN())));
}

TEST_CASE("float16 from float32 rounds to nearest even, subnormals and overflow included", "[half]") {
  // By hand: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 (odd): even is 1;
  // 65519 rounds down to 65504, 65520 is halfway to 2^16 and overflows;
  // 3 * 2^-25 is halfway between the subnormals 2^-24 (odd) and 2^-23.
  CHECK(static_cast<float>(float16(1 + 0x1p-11f)) == 1.f);
  CHECK(static_cast<float>(float16(1 + 3 * 0x1p-11f)) == 1 + 0x1p-9f);
  CHECK(static_cast<float>(float16(65519.f)) == 65504.f);
  CHECK(std::isinf(static_cast<float>(float16(65520.f))));
  CHECK(static_cast<float>(float16(3 * 0x1p-25f)) == 0x1p-23f);
  CHECK(static_cast<float>(float16(0x1p-25f)) == 0.f);
  CHECK(std::signbit(static_cast<float>(float16(-0.f))));
  CHECK(std::isnan(static_cast<float>(float16(std::nanf("")))));
  // Everywhere, in the conversion that runs here and in the integer one
  // (the same when compiled without F16C).
  CHECK(count_mismatches(13, [](float f) {
          return static_cast<double>(static_cast<float>(float16(f))) != float16_reference(f);
        }) == 0);
  CHECK(count_mismatches(13, [](float f) {
          return static_cast<double>(jaxcc::detail::float16_value_portable(jaxcc::detail::float16_bits_portable(f))) !=
                 float16_reference(f);
        }) == 0);
}

TEST_CASE("float16 to float32 is exact for every bit pattern", "[half]") {
  int mismatches = 0;
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    auto const h = static_cast<std::uint16_t>(bits);
    float const value = static_cast<float>(std::bit_cast<float16>(h));
    float const portable = jaxcc::detail::float16_value_portable(h);
    bool const nan = (bits & 0x7C00u) == 0x7C00u && (bits & 0x3FFu) != 0;
    // By the format: sign, 5 exponent bits (bias 15), 10 mantissa bits.
    double const magnitude = (bits & 0x7C00u) == 0 ? std::ldexp(bits & 0x3FFu, -24)
                             : (bits & 0x7C00u) == 0x7C00u
                                 ? std::numeric_limits<double>::infinity()
                                 : std::ldexp(1024 + (bits & 0x3FFu), static_cast<int>((bits >> 10) & 0x1Fu) - 25);
    double const expected = (bits & 0x8000u) ? -magnitude : magnitude;
    bool const same = nan ? std::isnan(value) && std::isnan(portable)
                          : value == expected && portable == expected && std::signbit(value) == std::signbit(expected);
    if (!same) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("bfloat16 from float32 rounds to nearest even and keeps NaN a NaN of its sign", "[half]") {
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7 (odd): even is 1.
  CHECK(static_cast<float>(bfloat16(1 + 0x1p-8f)) == 1.f);
  CHECK(static_cast<float>(bfloat16(1 + 3 * 0x1p-8f)) == 1 + 0x1p-6f);
  CHECK(std::isinf(static_cast<float>(bfloat16(std::numeric_limits<float>::max()))));
  // A NaN whose payload lies only in the low bits would truncate to inf.
  float const low_nan = std::bit_cast<float>(0xFF800001u);
  CHECK(std::isnan(static_cast<float>(bfloat16(low_nan))));
  CHECK(std::signbit(static_cast<float>(bfloat16(low_nan))));
  CHECK(count_mismatches(16, [](float f) {
          return static_cast<double>(static_cast<float>(bfloat16(f))) != bfloat16_reference(f);
        }) == 0);
}

TEST_CASE("16-bit float arithmetic rounds float32's result once; the other types convert through float32", "[half]") {
  // 2049 is not a float16 (11 significant bits): 2048 + 1 is a tie, to even 2048.
  CHECK(static_cast<float>(float16(2048.f) + float16(1.f)) == 2048.f);
  CHECK(static_cast<float>(float16(2048.f) + float16(3.f)) == 2052.f);
  CHECK(static_cast<float>(-bfloat16(1.5f)) == -1.5f);
  CHECK(static_cast<float>(bfloat16(3) / bfloat16(2)) == 1.5f);
  CHECK(float16(2.f) > float16(1.f));
  CHECK(static_cast<float>(float16(bfloat16(0.1f))) == static_cast<float>(float16(static_cast<float>(bfloat16(0.1f)))));
  CHECK(static_cast<float>(float16(true)) == 1.f);
  CHECK(static_cast<float>(bfloat16(257)) == 256.f);  // 257 is a tie between 256 and 258: even is 256
}

}  // namespace test_half
