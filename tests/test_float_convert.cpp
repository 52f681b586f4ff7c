// float_convert (primitives/float_convert.hpp): the transforms' conversion
// between the floating dtypes of values whose dtype is known at run time.
// Expected values are worked out by hand (rounding to nearest even at each
// type's precision, in the comments) and, for every pair of dtypes, the
// typed, fused astype's.
#include "catch.hpp"

#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

namespace test_float_convert {

namespace jnp = jaxcc::numpy;
using jaxcc::AnyArray;
using jaxcc::Array;
using jaxcc::bfloat16;
using jaxcc::DType;
using jaxcc::float16;
using jaxcc::detail::float_converted;

namespace {

/// The bits of every element of x (whatever its floating dtype), widened to 64.
std::vector<std::uint64_t> bits_of(AnyArray const& x) {
  return jaxcc::detail::with_float_type(x.dtype(), [&]<class T>(std::type_identity<T>) {
    std::vector<std::uint64_t> out;
    for (T v : x.as<T>().to_vector()) {
      if constexpr (sizeof(T) == 2) out.push_back(std::bit_cast<std::uint16_t>(v));
      else if constexpr (sizeof(T) == 4) out.push_back(std::bit_cast<std::uint32_t>(v));
      else out.push_back(std::bit_cast<std::uint64_t>(v));
    }
    return out;
  });
}

template <class To, class From>
AnyArray typed(Array<From> const& x) {
  return Array<To>(x.template astype<To>());
}

}  // namespace

TEST_CASE("float_convert rounds to nearest even, as hand-worked", "[float_convert]") {
  // float32 1 + 2^-8 lies halfway between bfloat16's 1 and 1 + 2^-7: it goes
  // to the even one, 1 (bits 0x3F80). 1 + 3 * 2^-8 lies halfway between
  // 1 + 2^-7 and 1 + 2^-6 and goes to 1 + 2^-6 (0x3F82). 1 + 2^-11 is
  // halfway for float16 (ulp 2^-10 at 1): to 1 (0x3C00); 65520 is halfway
  // between float16's largest, 65504, and the next power, so it overflows
  // to inf (0x7C00).
  auto const x = jnp::array({1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-11f, 65520.0f});
  CHECK(bits_of(float_converted(x, DType::bfloat16)) == std::vector<std::uint64_t>{0x3F80, 0x3F82, 0x3F80, 0x4780});
  CHECK(bits_of(float_converted(x, DType::float16)) == std::vector<std::uint64_t>{0x3C04, 0x3C0C, 0x3C00, 0x7C00});
  // float64 1 + 2^-24 is halfway between float32's 1 and 1 + 2^-23: to 1.
  auto const d = jnp::array({1.0 + 0x1p-24, -2.5});
  CHECK(bits_of(float_converted(d, DType::float32)) == std::vector<std::uint64_t>{0x3F800000, 0xC0200000});
  // Widening is exact, and a conversion to the same dtype is the array itself.
  auto const b = Array<bfloat16>(jnp::array({1.5f, -0.0078125f}).astype<bfloat16>());
  CHECK(bits_of(float_converted(b, DType::float64)) == bits_of(AnyArray(jnp::array({1.5, -0.0078125}))));
  CHECK(bits_of(float_converted(b, DType::bfloat16)) == bits_of(b));
}

TEST_CASE("float_convert agrees with astype between every pair of floating dtypes", "[float_convert]") {
  // Values that round differently at each precision, a float16 subnormal,
  // overflow, -0, and a strided operand (a transposed view).
  auto const base = jnp::array({{0.1, -3.75, 1e5, 1.0 / 3.0}, {65520.0, 1e-6, -0.0, 2.0 / 3.0}}).T();
  auto const inputs = std::vector<AnyArray>{AnyArray(Array<double>(base)), typed<float>(Array<double>(base)),
                                            typed<bfloat16>(Array<double>(base)), typed<float16>(Array<double>(base))};
  for (auto const& in : inputs)
    for (auto to : {DType::float32, DType::float64, DType::bfloat16, DType::float16}) {
      INFO(std::string(jaxcc::name(in.dtype())) << " to " << jaxcc::name(to));
      auto const expected = jaxcc::detail::with_float_type(in.dtype(), [&]<class From>(std::type_identity<From>) {
        return jaxcc::detail::with_float_type(
            to, [&]<class To>(std::type_identity<To>) -> AnyArray { return typed<To>(in.as<From>()); });
      });
      auto const got = float_converted(in, to);
      CHECK(got.dtype() == to);
      CHECK(got.shape() == in.shape());
      CHECK(bits_of(got) == bits_of(expected));
    }
}

TEST_CASE("float_convert rejects parameters that do not fit its operand", "[float_convert][errors]") {
  // Only jaxcc's own passes bind it, from the operand's dtype; a mismatch is
  // jaxcc's bug, reported before anything is written.
  using jaxcc::primitives::float_convert_p;
  auto const x = AnyArray(jnp::array({1.0f, 2.0f}));
  CHECK_THROWS_WITH(jaxcc::detail::bind<float_convert_p>({DType::float64, DType::float32}, x),
                    "internal error: float_convert from float64 to float32 of an array of dtype float32");
  CHECK_THROWS_WITH(jaxcc::detail::bind<float_convert_p>({DType::float32, DType::int32}, x),
                    "internal error: float_convert from float32 to int32 of an array of dtype float32");
  CHECK_THROWS_WITH(jaxcc::detail::with_float_type(DType::int8, [](auto) {}),
                    "internal error: float_convert of non-floating dtype int8");
}

TEST_CASE("float_convert under transforms: printed, differentiated, batched and jitted", "[float_convert]") {
  auto const to_double = [](Array<float> const& x) { return float_converted(x, DType::float64).as<double>(); };
  auto const x = jnp::array({0.5f, -1.25f, 3.0f});
  CHECK(to_string(jaxcc::make_jaxpr(to_double)(x)) ==
        "{ lambda ; a:f32[3]. let\n    b:f64[3] = convert_element_type[new_dtype=float64 weak_type=False] a\n  in (b,) }");
  // d/dx sum(3 * convert(x)) = 3 per element, converted back to float32.
  auto const g = jaxcc::grad([&](Array<float> const& v) { return jnp::sum(3.0 * to_double(v)); })(x);
  CHECK(g.to_vector() == std::vector<float>{3.0f, 3.0f, 3.0f});
  auto const [y, ty] = jaxcc::jvp(to_double, std::tuple{x}, std::tuple{jnp::array({1.0f, 2.0f, 4.0f})});
  CHECK(ty.to_vector() == std::vector<double>{1.0, 2.0, 4.0});
  CHECK(y.to_vector() == std::vector<double>{0.5, -1.25, 3.0});
  // Batched along axis 1, and jitted (a fused run with a product).
  auto const m = jnp::array({{1.5f, 2.5f}, {-0.5f, 8.0f}});
  auto const batched = jaxcc::vmap(to_double, jaxcc::in_axes(1))(m);
  CHECK(batched.to_vector() == std::vector<double>{1.5, -0.5, 2.5, 8.0});
  auto const scaled = [&](Array<float> const& v) { return Array<double>(2.0 * to_double(v)); };
  CHECK(jaxcc::jit(scaled)(m).to_vector() == std::vector<double>{3.0, 5.0, -1.0, 16.0});
}

}  // namespace test_float_convert
