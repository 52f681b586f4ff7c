#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/random_inputs.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "support.hpp"

namespace test_dtype {

namespace jnp = jaxcc::numpy;
using jaxcc::AnyArray;
using jaxcc::Array;
using jaxcc_test::streamed;

namespace {

struct Promotion {
  std::string a, b, result;
};
struct Case {
  std::string name, dtype;
  std::vector<std::int64_t> values;
};
struct Repr {
  std::string name, text;
};
struct HalfCase {
  std::string name, dtype;
  std::vector<double> values;
};
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// JAX's answers (x64 on); see tests/golden/dtype_cases.py.
#include "golden/dtype_cases.inc"

using Elements = std::tuple<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint32_t,
                            jaxcc::bfloat16, jaxcc::float16, float, double, std::complex<float>, std::complex<double>>;

/// name(dtype_of<promote_t<A, B>>) for every pair of element types, keyed by their names.
std::map<std::pair<std::string, std::string>, std::string> promotion_table() {
  std::map<std::pair<std::string, std::string>, std::string> table;
  [&]<class... A>(std::tuple<A...>*) {
    auto const row = [&]<class X>(X*) {
      ((table[{std::string(jaxcc::name(jaxcc::dtype_of<X>)), std::string(jaxcc::name(jaxcc::dtype_of<A>))}] =
            std::string(jaxcc::name(jaxcc::dtype_of<jaxcc::promote_t<X, A>>))),
       ...);
    };
    (row(static_cast<A*>(nullptr)), ...);
  }(static_cast<Elements*>(nullptr));
  return table;
}

/// name(dtype_of<promote_weak_t<T, S>>) for every element type T and the scalars bool, int, double and
/// std::complex<double>.
std::map<std::pair<std::string, std::string>, std::string> weak_promotion_table() {
  std::map<std::pair<std::string, std::string>, std::string> table;
  [&]<class... A>(std::tuple<A...>*) {
    auto const row = [&]<class X>(X*) {
      auto const t = std::string(jaxcc::name(jaxcc::dtype_of<X>));
      table[{t, "bool"}] = std::string(jaxcc::name(jaxcc::dtype_of<jaxcc::promote_weak_t<X, bool>>));
      table[{t, "int"}] = std::string(jaxcc::name(jaxcc::dtype_of<jaxcc::promote_weak_t<X, int>>));
      table[{t, "float"}] = std::string(jaxcc::name(jaxcc::dtype_of<jaxcc::promote_weak_t<X, double>>));
      table[{t, "complex"}] =
          std::string(jaxcc::name(jaxcc::dtype_of<jaxcc::promote_weak_t<X, std::complex<double>>>));
    };
    (row(static_cast<A*>(nullptr)), ...);
  }(static_cast<Elements*>(nullptr));
  return table;
}

/// A result's dtype name and its values widened to int64.
Case outcome(std::string const& name, AnyArray const& a) {
  auto const wide = a.visit([](auto const& x) { return Array<std::int64_t>(x.template astype<std::int64_t>()); });
  return {name, std::string(jaxcc::name(a.dtype())), wide.to_vector()};
}

using std::int8_t, std::uint8_t, std::int16_t;
auto const i8 = [] { return jnp::array<int8_t>({100, -100, 127, -128, 5}); };
auto const u8 = [] { return jnp::array<uint8_t>({0, 1, 200, 255, 16}); };
auto const i16 = [] { return jnp::array<int16_t>({30000, -30000, 32767, -32768, 7}); };

/// The C++ spelling of each golden case (the Python one is its name).
std::map<std::string, std::function<AnyArray()>> const& arithmetic() {
  static std::map<std::string, std::function<AnyArray()>> const cases{
      {"int8 x + 100", [] { return AnyArray(Array<int8_t>(i8() + 100)); }},
      {"int8 x - 100", [] { return AnyArray(Array<int8_t>(i8() - 100)); }},
      {"int8 x * 3", [] { return AnyArray(Array<int8_t>(i8() * 3)); }},
      {"int8 -x", [] { return AnyArray(Array<int8_t>(-i8())); }},
      {"int8 x * x", [] { return AnyArray(Array<int8_t>(i8() * i8())); }},
      {"int8 fmod(x, 3)", [] { return AnyArray(Array<int8_t>(jnp::fmod(i8(), 3))); }},
      {"int8 x >> 2", [] { return AnyArray(Array<int8_t>(i8() >> 2)); }},
      {"int8 x << 2", [] { return AnyArray(Array<int8_t>(i8() << 2)); }},
      {"int8 ~x", [] { return AnyArray(Array<int8_t>(~i8())); }},
      {"int8 max(x, 0)", [] { return AnyArray(Array<int8_t>(jnp::maximum(i8(), 0))); }},
      {"int8 abs(x)", [] { return AnyArray(Array<int8_t>(jnp::abs(i8()))); }},
      {"uint8 x - 1", [] { return AnyArray(Array<uint8_t>(u8() - 1)); }},
      {"uint8 x + 100", [] { return AnyArray(Array<uint8_t>(u8() + 100)); }},
      {"uint8 x * 2", [] { return AnyArray(Array<uint8_t>(u8() * 2)); }},
      {"uint8 x * x", [] { return AnyArray(Array<uint8_t>(u8() * u8())); }},
      {"uint8 x >> 3", [] { return AnyArray(Array<uint8_t>(u8() >> 3)); }},
      {"uint8 ~x", [] { return AnyArray(Array<uint8_t>(~u8())); }},
      {"int16 x + 10000", [] { return AnyArray(Array<int16_t>(i16() + 10000)); }},
      {"int16 x * 2", [] { return AnyArray(Array<int16_t>(i16() * 2)); }},
      {"int16 -x", [] { return AnyArray(Array<int16_t>(-i16())); }},
      {"int8 + uint8", [] { return AnyArray(Array<int16_t>(i8() + u8())); }},
      {"int16 + uint8", [] { return AnyArray(Array<int16_t>(i16() + u8())); }},
      {"uint8 + uint32", [] { return AnyArray(Array<std::uint32_t>(u8() + jnp::array<std::uint32_t>(4000000000u))); }},
  };
  return cases;
}

using jaxcc::bfloat16, jaxcc::float16;
/// A float32 literal list rounded to T, as jnp.array(values, T) rounds them.
template <class T>
Array<T> rounded(std::initializer_list<float> values) {
  return jnp::array<float>(values).astype<T>();
}
auto const bx = [] { return rounded<bfloat16>({1.0f, 1.0f, 3.0e38f, 0.1f, std::nanf(""), -2.5f}); };
auto const by = [] { return rounded<bfloat16>({0x1p-8f, 3 * 0x1p-8f, 2.0f, 0.2f, 1.0f, 0.75f}); };
auto const bv = [] { return rounded<bfloat16>({0.1f, 0.7f, 1.3f, 2.9f, -3.4f}); };
auto const ha = [] { return rounded<float16>({65504.f, 1.f, 6e-8f, 3e-5f, 0.1f, std::nanf("")}); };
auto const hb = [] { return rounded<float16>({16.f, 0x1p-11f, 0.5f, 3e-5f, 0.2f, 1.f}); };
auto const hv = [] { return bv().astype<float16>(); };
auto const bf16_loss = [](Array<bfloat16> const& v) { return jnp::sum(jnp::sin(v) * v); };

/// The C++ spelling of each 16-bit float case.
std::map<std::string, std::function<AnyArray()>> const& half_floats() {
  using B = Array<bfloat16>;
  using H = Array<float16>;
  static std::map<std::string, std::function<AnyArray()>> const cases{
      {"bf16 x + y", [] { return AnyArray(B(bx() + by())); }},
      {"bf16 x - y", [] { return AnyArray(B(bx() - by())); }},
      {"bf16 x * y", [] { return AnyArray(B(bx() * by())); }},
      {"bf16 x / y", [] { return AnyArray(B(bx() / by())); }},
      {"bf16 x + 2.5", [] { return AnyArray(B(bx() + 2.5)); }},
      {"bf16 (v * 3 + 1) / full(7)", [] { return AnyArray(B((bv() * 3 + 1) / jnp::full<bfloat16>({5}, 7))); }},
      {"bf16 sin(v)", [] { return AnyArray(B(jnp::sin(bv()))); }},
      {"bf16 exp(v)", [] { return AnyArray(B(jnp::exp(bv()))); }},
      {"bf16 tanh(v)", [] { return AnyArray(B(jnp::tanh(bv()))); }},
      {"bf16 sqrt(abs(v))", [] { return AnyArray(B(jnp::sqrt(jnp::abs(bv())))); }},
      {"bf16 max(v, 0.5)", [] { return AnyArray(B(jnp::maximum(bv(), 0.5))); }},
      {"bf16 sum(0.01 x 1000)", [] { return AnyArray(jnp::sum(jnp::full<bfloat16>({1000}, 0.01))); }},
      {"bf16 mean(v)", [] { return AnyArray(jnp::mean(bv())); }},
      {"bf16 max(v)", [] { return AnyArray(jnp::max(bv())); }},
      {"bf16 m1 @ m2",
       [] {
         return AnyArray(jnp::matmul(jnp::array<float>({{0.1f, 0.7f, 1.3f}, {2.9f, -3.4f, 0.25f}}).astype<bfloat16>(),
                                     jnp::array<float>({{1.5f, -0.3f}, {0.7f, 2.1f}, {-1.1f, 0.9f}}).astype<bfloat16>()));
       }},
      {"bf16 grad sum(sin(v) * v)", [] { return AnyArray(jaxcc::grad(bf16_loss)(bv())); }},
      {"f16 a + b", [] { return AnyArray(H(ha() + hb())); }},
      {"f16 a * b", [] { return AnyArray(H(ha() * hb())); }},
      {"f16 a - b", [] { return AnyArray(H(ha() - hb())); }},
      {"f16 (v * 3 + 1) / full(7)", [] { return AnyArray(H((hv() * 3 + 1) / jnp::full<float16>({5}, 7))); }},
      {"f16 sin(v)", [] { return AnyArray(H(jnp::sin(hv()))); }},
      {"f16 sum(0.01 x 1000)", [] { return AnyArray(jnp::sum(jnp::full<float16>({1000}, 0.01))); }},
      {"f16 + bf16", [] { return AnyArray(Array<float>(hv() + bv())); }},
      {"bf16 * 2 (int)", [] { return AnyArray(B(bv() * 2)); }},
      {"int32 + bf16", [] { return AnyArray(B(jnp::array<std::int32_t>({1, 2, 3, 4, 5}) + bv())); }},
      {"float32 -> bfloat16",
       [] {
         return AnyArray(jnp::array<float>({1 + 0x1p-8f, 1 + 3 * 0x1p-8f, 257.f, 70000.f, 1e-39f, 3.39e38f, 3.4e38f,
                                            std::nanf("")})
                             .astype<bfloat16>());
       }},
      {"float64 -> bfloat16", [] { return AnyArray(jnp::array<double>({1 + 0x1p-8 + 0x1p-30, 0.1}).astype<bfloat16>()); }},
      {"float32 -> float16",
       [] {
         return AnyArray(
             jnp::array<float>({65519.f, 65520.f, 70000.f, 6e-8f, 1e-8f, 2.98e-8f, std::nanf("")}).astype<float16>());
       }},
      {"bfloat16 -> float16", [] { return AnyArray(rounded<bfloat16>({1e5f, 0.1f, 1e-6f}).astype<float16>()); }},
      {"float16 -> bfloat16", [] { return AnyArray(rounded<float16>({0.1f, 65504.f, 6e-8f}).astype<bfloat16>()); }},
      {"int32 -> bfloat16", [] { return AnyArray(jnp::array<std::int32_t>({257, 259, 16777217}).astype<bfloat16>()); }},
      {"bfloat16 -> int8", [] { return AnyArray(rounded<bfloat16>({std::nanf(""), 300.7f, -1e9f, -3.7f}).astype<int8_t>()); }},
      {"bfloat16 -> int32",
       [] { return AnyArray(rounded<bfloat16>({std::nanf(""), 300.7f, -1e9f, -3.7f}).astype<std::int32_t>()); }},
      {"float16 -> uint8", [] { return AnyArray(rounded<float16>({-3.f, 300.f, 7.9f}).astype<uint8_t>()); }},
  };
  return cases;
}

/// Whether two value lists are equal bit for bit as doubles, NaN equal to NaN.
bool same_values(std::vector<double> const& a, std::vector<double> const& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))) || std::signbit(a[i]) != std::signbit(b[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("promote_t is jnp.promote_types for every pair of element types", "[dtype][golden]") {
  auto const table = promotion_table();
  std::vector<Promotion> const golden{JAXCC_GOLDEN_PROMOTION};
  REQUIRE(golden.size() == table.size());
  for (auto const& p : golden) {
    INFO(p.a << " with " << p.b);
    CHECK(table.at({p.a, p.b}) == p.result);
  }
}

TEST_CASE("promote_weak_t: an array beside a C++ scalar is JAX's array beside a Python scalar", "[dtype][golden]") {
  auto const table = weak_promotion_table();
  std::vector<Promotion> const golden{JAXCC_GOLDEN_WEAK_PROMOTION};
  REQUIRE(golden.size() == table.size());
  for (auto const& p : golden) {
    INFO(p.a << " with a " << p.b << " scalar");
    CHECK(table.at({p.a, p.b}) == p.result);
  }
}

TEST_CASE("a 16-bit float scalar beside an array keeps its dtype, as jnp.bfloat16(1) does", "[dtype][half]") {
  using jaxcc::bfloat16;
  using jaxcc::float16;
  // JAX 0.10.2: b * b + jnp.bfloat16(1) is bfloat16 [3.25, 5]; float32 + bfloat16 is float32; int32 * float16 is
  // float16 [2, 4]; float16 + bfloat16 is float32; a comparison is bool.
  auto const b = jnp::array<bfloat16>({bfloat16(1.5f), bfloat16(2.0f)});
  auto const sum = b * b + bfloat16(1);
  STATIC_REQUIRE(std::same_as<jaxcc::value_type_t<decltype(sum)>, bfloat16>);
  CHECK(Array<bfloat16>(sum).astype<float>().to_vector() == std::vector<float>{3.25f, 5.0f});
  STATIC_REQUIRE(std::same_as<jaxcc::value_type_t<decltype(jnp::ones<float>({2}) + bfloat16(1))>, float>);
  auto const product = jnp::array<std::int32_t>({1, 2}) * float16(2);
  STATIC_REQUIRE(std::same_as<jaxcc::value_type_t<decltype(product)>, float16>);
  CHECK(Array<float16>(product).astype<float>().to_vector() == std::vector<float>{2.0f, 4.0f});
  STATIC_REQUIRE(std::same_as<jaxcc::value_type_t<decltype(jnp::ones<float16>({2}) + bfloat16(1))>, float>);
  CHECK(Array<bool>(b > bfloat16(2)).to_vector() == std::vector<bool>{false, false});
  Array<bfloat16> c = b;
  c += bfloat16(0.5f);
  CHECK(c.astype<float>().to_vector() == std::vector<float>{2.0f, 2.5f});
}

TEST_CASE("int8, uint8, int16, bfloat16 and float16 print as JAX's repr", "[dtype][golden][print]") {
  std::vector<Repr> const golden{JAXCC_GOLDEN_REPR};
  std::map<std::string, std::string> const printed{
      {"int8 [1, -2, 127]", streamed(jnp::array<int8_t>({1, -2, 127}))},
      {"uint8 [200, 3]", streamed(jnp::array<uint8_t>({200, 3}))},
      {"int16 [[1, 2], [3, -400]]", streamed(jnp::array<int16_t>({{1, 2}, {3, -400}}))},
      {"int8 scalar -5", streamed(jnp::array<int8_t>(int8_t{-5}))},
      {"bfloat16 [1.5, 2.25, -3, 3.14159, 1]", streamed(rounded<bfloat16>({1.5f, 2.25f, -3.f, 3.14159f, 1.f}))},
      {"bfloat16 [[1.5, 2.25], [-3, 1e6]]", streamed(jnp::array<float>({{1.5f, 2.25f}, {-3.f, 1e6f}}).astype<bfloat16>())},
      {"bfloat16 [1e-5, 3e38, inf, nan, -inf]",
       streamed(rounded<bfloat16>({1e-5f, 3e38f, std::numeric_limits<float>::infinity(), std::nanf(""),
                                   -std::numeric_limits<float>::infinity()}))},
      {"bfloat16 scalar 2.5", streamed(jnp::array<float>(2.5f).astype<bfloat16>())},
      {"bfloat16 arange(20)", streamed(jnp::arange<bfloat16>(20))},
      {"float16 [1.5, 2.25, -3, 3.14159, 1]", streamed(rounded<float16>({1.5f, 2.25f, -3.f, 3.14159f, 1.f}))},
      {"float16 [[1.5, 2.25], [-3, 100]]", streamed(jnp::array<float>({{1.5f, 2.25f}, {-3.f, 100.f}}).astype<float16>())},
      {"float16 [1e-5, 65504, inf, nan, 0.1]",
       streamed(rounded<float16>({1e-5f, 65504.f, std::numeric_limits<float>::infinity(), std::nanf(""), 0.1f}))},
      {"float16 [0.1, 0.2, 3]", streamed(rounded<float16>({0.1f, 0.2f, 3.f}))},
      {"float16 scalar 2.5", streamed(jnp::array<float>(2.5f).astype<float16>())},
  };
  REQUIRE(golden.size() == printed.size());
  for (auto const& r : golden) {
    INFO(r.name);
    CHECK(printed.at(r.name) == r.text);
  }
}

TEST_CASE("narrow integers wrap around as JAX's, and mix as its lattice says", "[dtype][golden]") {
  std::vector<Case> const golden{JAXCC_GOLDEN_ARITHMETIC};
  REQUIRE(golden.size() == arithmetic().size());
  for (auto const& c : golden) {
    INFO(c.name);
    auto const got = outcome(c.name, arithmetic().at(c.name)());
    CHECK(got.dtype == c.dtype);
    CHECK(got.values == c.values);
  }
}

TEST_CASE("conversions to the narrow integers: floats saturate, integers wrap", "[dtype][golden]") {
  auto const f = jnp::array<float>({-3.7f, 1e10f, -1e10f, 7.9f, 127.5f, -128.5f, std::nanf("")});
  auto const n = jnp::array<std::int32_t>({300, -200, 65537, -1, 128});
  std::map<std::string, AnyArray> const converted{
      {"float32 -> int8", f.astype<int8_t>()},   {"int32 -> int8", n.astype<int8_t>()},
      {"float32 -> uint8", f.astype<uint8_t>()}, {"int32 -> uint8", n.astype<uint8_t>()},
      {"float32 -> int16", f.astype<int16_t>()}, {"int32 -> int16", n.astype<int16_t>()},
  };
  std::vector<Case> const golden{JAXCC_GOLDEN_CONVERSION};
  REQUIRE(golden.size() == converted.size());
  for (auto const& c : golden) {
    INFO(c.name);
    auto const got = outcome(c.name, converted.at(c.name));
    CHECK(got.dtype == c.dtype);
    CHECK(got.values == c.values);
  }
  // And back: every int8 value is exact in float32 and int16.
  auto const all = Array<int8_t>(jnp::arange<std::int32_t>(-128, 128).astype<int8_t>());
  CHECK(all.astype<float>().astype<int8_t>().to_vector() == all.to_vector());
  CHECK(all.astype<int16_t>().astype<int8_t>().to_vector() == all.to_vector());
}

TEST_CASE("reductions of narrow integers widen as jnp.sum does; max, sort and matmul keep the type", "[dtype]") {
  auto const x = jnp::array<int8_t>({{100, 100, -3}, {127, 1, 2}});
  // jnp.sum promotes integers to the widest of their signedness (32 bits without x64).
  auto const s = jnp::sum(x);
  static_assert(std::same_as<jaxcc::value_type_t<decltype(s)>, std::int32_t>);
  CHECK(s.item() == 327);  // 100 + 100 - 3 + 127 + 1 + 2, no wraparound
  auto const rows = jnp::sum(jnp::array<uint8_t>({{200, 200}, {1, 2}}), 1);
  static_assert(std::same_as<jaxcc::value_type_t<decltype(rows)>, std::uint32_t>);
  CHECK(rows.to_vector() == std::vector<std::uint32_t>{400, 3});
  CHECK(Array<int8_t>(jnp::max(x, 0)).to_vector() == std::vector<int8_t>{127, 100, 2});
  CHECK(Array<int8_t>(jnp::sort(jnp::array<int8_t>({5, -128, 127, 0}))).to_vector() == std::vector<int8_t>{-128, 0, 5, 127});
  auto const mean = jnp::mean(x);
  static_assert(std::same_as<jaxcc::value_type_t<decltype(mean)>, float>);
  CHECK(mean.item() == Approx(327.0 / 6.0));
  // A product of int8 matrices is int8 and wraps (jnp.matmul without preferred_element_type):
  // 100 * 2 + 1 * 3 = 203, which is 203 - 256 = -53 in int8.
  auto const a = jnp::array<int8_t>({{100, 1}}), b = jnp::array<int8_t>({{2}, {3}});
  auto const p = jnp::matmul(a, b);
  static_assert(std::same_as<jaxcc::value_type_t<decltype(p)>, int8_t>);
  CHECK(p.to_vector() == std::vector<int8_t>{-53});
}

TEST_CASE("narrow integers under jit, vmap and grad", "[dtype][jit][vmap][grad]") {
  auto const f = [](Array<int8_t> const& x, Array<int8_t> const& y) { return Array<int8_t>(x * y + 100); };
  auto const x = jnp::array<int8_t>({{1, 2, 3}, {100, -100, 127}});
  auto const y = jnp::array<int8_t>({{4, 5, 6}, {2, 2, 2}});
  auto const eager = f(x, y);
  CHECK(jaxcc::jit(f)(x, y).to_vector() == eager.to_vector());
  // vmap over rows matches the loop over them.
  auto const mapped = jaxcc::vmap(f)(x, y);
  for (std::int64_t i = 0; i < 2; ++i) CHECK(Array<int8_t>(mapped[i]).to_vector() == f(x[i], y[i]).to_vector());
  CHECK(jaxcc_test::jaxpr_of(f, x, y).find("i8[2,3]") != std::string::npos);
  // An int8 value inside a float function carries no derivative: the gradient of
  // sum(v * int8(v)) is int8(v), truncated toward zero: [1, -2, 3].
  auto const g = jaxcc::grad([](Array<float> const& v) {
    return jnp::sum(v * v.astype<int8_t>().astype<float>());
  })(jnp::array<float>({1.5f, -2.7f, 3.2f}));
  CHECK(g.to_vector() == std::vector<float>{1.f, -2.f, 3.f});
}

TEST_CASE("bfloat16 and float16: each op computes in float32 and rounds, as XLA's CPU code; reductions and "
          "products accumulate in float32; conversions round to nearest even",
          "[dtype][golden][half]") {
  std::vector<HalfCase> const golden{JAXCC_GOLDEN_HALF_FLOAT};
  REQUIRE(golden.size() == half_floats().size());
  for (auto const& c : golden) {
    INFO(c.name);
    auto const result = half_floats().at(c.name)();
    CHECK(std::string(jaxcc::name(result.dtype())) == c.dtype);
    auto const values = result.visit([](auto const& x) { return x.template astype<double>().to_vector(); });
    CHECK(same_values(values, c.values));
  }
}

TEST_CASE("bfloat16 under jit and vmap equals eager, op by op", "[dtype][half][jit][vmap]") {
  auto const f = [](Array<bfloat16> const& x, Array<bfloat16> const& y) {
    return Array<bfloat16>(jnp::tanh(x * y + 1) / 7 + jnp::exp(x));
  };
  auto const x = jnp::array<float>({{0.1f, 0.7f, 1.3f}, {2.9f, -3.4f, 0.25f}}).astype<bfloat16>();
  auto const y = jnp::array<float>({{1.5f, -0.3f, 0.7f}, {2.1f, -1.1f, 0.9f}}).astype<bfloat16>();
  auto const eager = f(x, y).astype<float>().to_vector();
  CHECK(jaxcc::jit(f)(x, y).astype<float>().to_vector() == eager);
  auto const mapped = jaxcc::vmap(f)(x, y);
  for (std::int64_t i = 0; i < 2; ++i)
    CHECK(Array<bfloat16>(mapped[i]).astype<float>().to_vector() == f(x[i], y[i]).astype<float>().to_vector());
  // The gradient has the primal's dtype, and jit(grad) equals grad.
  auto const g = jaxcc::grad(bf16_loss)(bv());
  static_assert(std::same_as<jaxcc::value_type_t<decltype(g)>, bfloat16>);
  CHECK(jaxcc::jit(jaxcc::grad(bf16_loss))(bv()).astype<float>().to_vector() == g.astype<float>().to_vector());
  CHECK(jaxcc_test::jaxpr_of(f, x, y).find("bf16[2,3]") != std::string::npos);
}

TEMPLATE_TEST_CASE("16-bit floats through vmap of cond and of custom_vjp: the values their batching computes",
                   "[dtype][half][vmap][custom]", bfloat16, float16) {
  using T = TestType;
  // A mapped predicate: each example takes its own branch (per example,
  // selected between the branches' results).
  auto const branchy = [](Array<T> const& v) {
    return jaxcc::lax::cond(jnp::sum(v) > 0, [](Array<T> a) { return Array<T>(a * 3); },
                            [](Array<T> a) { return Array<T>(-a + 1); }, v);
  };
  auto const xs = rounded<T>({0.5f, -1.25f, 2.f, -0.75f, 1.5f, -3.f}).reshape({3, 2});
  auto const mapped = jaxcc::vmap(branchy)(xs);
  for (std::int64_t i = 0; i < 3; ++i)
    CHECK(Array<T>(mapped[i]).template astype<float>().to_vector() == branchy(xs[i]).template astype<float>().to_vector());
  // d/dw sum_i f(x_i, w) through a custom rule mapped over x with w
  // unmapped: the per-example cotangents of w (x_i, as the incoming ones are
  // 1) are summed over the batch: 0.5 - 1.25 + 2 - 0.75 + 1.5 - 3 = -1.
  auto const scaled = jaxcc::custom_vjp([](Array<T> x, Array<T> w) { return Array<T>(x * w); },
                                        [](Array<T> x, Array<T> w) { return std::pair{Array<T>(x * w), std::pair{x, w}}; },
                                        [](std::pair<Array<T>, Array<T>> const& res, Array<T> const& g) {
                                          return std::tuple{Array<T>(g * res.second), Array<T>(g * res.first)};
                                        });
  auto const loss = [&](Array<T> w) {
    return Array<T>(jnp::sum(jaxcc::vmap(scaled, jaxcc::in_axes(0, jaxcc::none))(xs.reshape({6}), w)));
  };
  auto const dw = jaxcc::grad(loss)(jnp::array<T>(T(2.f)));
  static_assert(std::same_as<jaxcc::value_type_t<decltype(dw)>, T>);
  CHECK(static_cast<float>(dw.item()) == -1.f);
}

// One step of T's precision at 1 (2^-7 for bfloat16, 2^-10 for float16).
// Written out, not numeric_limits<T>::epsilon(): that is core/half.hpp's,
// part of what is tested.
template <class T>
constexpr float epsilon_of = std::same_as<T, bfloat16> ? 0x1p-7f : 0x1p-10f;

TEMPLATE_TEST_CASE("16-bit float regions run as float32 batches, rounding after each op as the element-wise loop does",
                   "[dtype][half][simd]", bfloat16, float16) {
  using T = TestType;
  // Long enough for whole batches at any SIMD width, with a tail; each
  // reference element is T's scalar arithmetic (core/half.hpp: each op in
  // float32, rounded once).
  constexpr std::int64_t n = 1001;
  auto const x = Array<float>(jnp::sin(jnp::arange<float>(n) * 0.37f) * 3.f).template astype<T>();
  auto const y = Array<float>(jnp::cos(jnp::arange<float>(n) * 0.11f) * 100.f).template astype<T>();
  Array<T> const fused = x * y + x - 0.75;
  Array<T> const with_sin = 1.5 * x + 0.25 * jnp::sin(x);
  auto const xs = x.to_vector(), ys = y.to_vector(), got = fused.to_vector(), got_sin = with_sin.to_vector();
  int differing = 0, beyond_one_step = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    T const expected = xs[i] * ys[i] + xs[i] - T(0.75f);
    if (!(got[i] == expected)) ++differing;
    // sin: xsimd's float32 sin and std::sin may differ in their last bit, so
    // the rounded results may differ by one step of T; nothing more.
    T const expected_sin = T(1.5f) * xs[i] + T(0.25f) * T(std::sin(static_cast<float>(xs[i])));
    auto const step = std::abs(static_cast<float>(expected_sin)) * epsilon_of<T>;
    if (std::abs(static_cast<float>(got_sin[i]) - static_cast<float>(expected_sin)) > step) ++beyond_one_step;
  }
  CHECK(differing == 0);
  CHECK(beyond_one_step == 0);
  // Rounding ties, overflow and NaN in whole batches: 1 + epsilon/2 is
  // halfway between neighbours and goes to the even one, 1; the largest
  // finite value times 2 is inf.
  auto const ones = jnp::full<T>({64}, 1.0);
  CHECK(Array<T>(ones + jnp::full<T>({64}, epsilon_of<T> / 2)).template astype<float>().to_vector() ==
        std::vector<float>(64, 1.0f));
  auto const largest = static_cast<double>(std::numeric_limits<T>::max());
  CHECK(Array<T>(jnp::full<T>({64}, largest) * 2).template astype<float>().to_vector() ==
        std::vector<float>(64, std::numeric_limits<float>::infinity()));
  CHECK(Array<bool>(jnp::isnan(Array<T>(jnp::full<T>({64}, std::nan("")) + ones))).to_vector() ==
        std::vector<bool>(64, true));
}

TEMPLATE_TEST_CASE("16-bit float regions widen and narrow every bit pattern exactly", "[dtype][half]", bfloat16, float16) {
  using T = TestType;
  // All 65536 patterns, in whole batches: -(-x) is x bit for bit, but for
  // float16's NaNs, which stay NaNs of their sign (x86's F16C conversions
  // keep the payload, quieting a signalling NaN; core/half.hpp's integer
  // ones, taken without F16C, give the canonical one).
  std::vector<T> patterns(65536);
  for (std::uint32_t bits = 0; bits < 65536; ++bits) patterns[bits] = std::bit_cast<T>(static_cast<std::uint16_t>(bits));
  auto const x = jnp::array(patterns, {65536});
  Array<T> const y = -(-x);
  REQUIRE(y.size() == 65536);
  int differing = 0;
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    auto const got = std::bit_cast<std::uint16_t>(y.data()[bits]);
    bool const float16_nan = std::same_as<T, float16> && (bits & 0x7C00u) == 0x7C00u && (bits & 0x3FFu) != 0;
    bool const same = float16_nan ? std::isnan(y.data()[bits]) && (got & 0x8000u) == (bits & 0x8000u) : got == bits;
    if (!same) ++differing;
  }
  CHECK(differing == 0);
}

TEST_CASE("bfloat16 through the functions that name their dtype's constants", "[dtype][half]") {
  auto const inf = std::numeric_limits<float>::infinity();
  auto const x = rounded<bfloat16>({1.5f, inf, -inf, std::nanf(""), -2.f});
  CHECK(Array<bool>(jnp::isinf(x)).to_vector() == std::vector<bool>{false, true, true, false, false});
  CHECK(Array<bool>(jnp::isfinite(x)).to_vector() == std::vector<bool>{true, false, false, false, true});
  // nan_to_num's defaults are bfloat16's largest and lowest finite values, (2 - 2^-7) * 2^127.
  auto const largest = static_cast<float>(std::numeric_limits<bfloat16>::max());
  CHECK(largest == 0x1.fep127f);
  CHECK(Array<bfloat16>(jnp::nan_to_num(x)).astype<float>().to_vector() ==
        std::vector<float>{1.5f, largest, -largest, 0.f, -2.f});
  // .at(...).max: the larger of the present value and each update at its index.
  auto const y = rounded<bfloat16>({1.f, 2.f, 3.f}).at(jnp::array<std::int32_t>({0, 2, 0})).max(rounded<bfloat16>({5.f, 1.f, 4.f}));
  CHECK(y.astype<float>().to_vector() == std::vector<float>{5.f, 2.f, 3.f});
  // Random inputs for testing: bfloat16 values of the shape asked, not all equal.
  auto const r = jaxcc::testing::rand_like(rounded<bfloat16>({0.f, 0.f, 0.f, 0.f}));
  static_assert(std::same_as<jaxcc::value_type_t<decltype(r)>, bfloat16>);
  auto const v = r.astype<float>().to_vector();
  CHECK(v.size() == 4);
  CHECK(std::any_of(v.begin(), v.end(), [&](float e) { return e != v[0]; }));
}

}  // namespace test_dtype
