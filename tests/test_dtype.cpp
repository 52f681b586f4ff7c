#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <cstdint>
#include <functional>
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

// JAX's answers (x64 on); see tests/golden/dtype_cases.py.
#include "golden/dtype_cases.inc"

using Elements = std::tuple<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint32_t,
                            float, double>;

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

/// name(dtype_of<promote_weak_t<T, S>>) for every element type T and the scalars bool, int and double.
std::map<std::pair<std::string, std::string>, std::string> weak_promotion_table() {
  std::map<std::pair<std::string, std::string>, std::string> table;
  [&]<class... A>(std::tuple<A...>*) {
    auto const row = [&]<class X>(X*) {
      auto const t = std::string(jaxcc::name(jaxcc::dtype_of<X>));
      table[{t, "bool"}] = std::string(jaxcc::name(jaxcc::dtype_of<jaxcc::promote_weak_t<X, bool>>));
      table[{t, "int"}] = std::string(jaxcc::name(jaxcc::dtype_of<jaxcc::promote_weak_t<X, int>>));
      table[{t, "float"}] = std::string(jaxcc::name(jaxcc::dtype_of<jaxcc::promote_weak_t<X, double>>));
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

TEST_CASE("int8, uint8 and int16 print as JAX's repr", "[dtype][golden][print]") {
  std::vector<Repr> const golden{JAXCC_GOLDEN_REPR};
  std::map<std::string, std::string> const printed{
      {"int8 [1, -2, 127]", streamed(jnp::array<int8_t>({1, -2, 127}))},
      {"uint8 [200, 3]", streamed(jnp::array<uint8_t>({200, 3}))},
      {"int16 [[1, 2], [3, -400]]", streamed(jnp::array<int16_t>({{1, 2}, {3, -400}}))},
      {"int8 scalar -5", streamed(jnp::array<int8_t>(int8_t{-5}))},
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

}  // namespace test_dtype
