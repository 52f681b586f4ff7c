// jnp's further elementwise functions (numpy/ufuncs.hpp) and the new
// elementwise primitives under them: JAX's values and derivatives
// (tests/golden/elementwise_more_cases.py), each new SIMD kernel against
// the C library at edge values, dtypes, check_grads, batching, jit, edges
// and errors.
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "elementwise_nn_golden.hpp"
#include "support.hpp"

namespace test_ufuncs {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
namespace golden = jaxcc_test::elementwise_nn_golden;
using jaxcc::Array;
using jaxcc_test::message_of;

namespace {

std::vector<golden::Case> const& float_cases() {
  using golden::inf;
  using golden::nan;
  static std::vector<golden::Case> const all = {
#define JAXCC_GOLDEN_ELEMENTWISE
#include "golden/elementwise_more_cases.inc"
#undef JAXCC_GOLDEN_ELEMENTWISE
  };
  return all;
}

struct IntCase {
  std::string function;
  std::vector<std::int64_t> x, y, values;
};
std::vector<IntCase> const& int_cases() {
  static std::vector<IntCase> const all = {
#define JAXCC_GOLDEN_INTEGER
#include "golden/elementwise_more_cases.inc"
#undef JAXCC_GOLDEN_INTEGER
  };
  return all;
}

// A case's function at float dtype T as f(x, y) with a result of dtype T.
template <class T>
golden::Function<T> float_function(std::string const& name) {
  using F = golden::Function<T>;
  using A = Array<T>;
#define JAXCC_UNARY(case_name, ...) \
  if (name == case_name) return F([](A const& x, A const&) { return A(__VA_ARGS__); });
#define JAXCC_BINARY(case_name, ...) \
  if (name == case_name) return F([](A const& x, A const& y) { return A(__VA_ARGS__); });
  JAXCC_UNARY("sinh", jnp::sinh(x))
  JAXCC_UNARY("cosh", jnp::cosh(x))
  JAXCC_UNARY("arcsin", jnp::arcsin(x))
  JAXCC_UNARY("arccos", jnp::arccos(x))
  JAXCC_UNARY("arcsinh", jnp::arcsinh(x))
  JAXCC_UNARY("arccosh", jnp::arccosh(x))
  JAXCC_UNARY("arctanh", jnp::arctanh(x))
  JAXCC_UNARY("exp2", jnp::exp2(x))
  JAXCC_UNARY("log10", jnp::log10(x))
  JAXCC_UNARY("log2", jnp::log2(x))
  JAXCC_UNARY("reciprocal", jnp::reciprocal(x))
  JAXCC_UNARY("rint", jnp::rint(x))
  JAXCC_UNARY("trunc", jnp::trunc(x))
  JAXCC_UNARY("deg2rad", jnp::deg2rad(x))
  JAXCC_UNARY("rad2deg", jnp::rad2deg(x))
  JAXCC_UNARY("sinc", jnp::sinc(x))
  JAXCC_UNARY("signbit", Array<bool>(jnp::signbit(x)).astype<T>())
  JAXCC_UNARY("spacing", jnp::spacing(x))
  JAXCC_UNARY("fabs", jnp::fabs(x))
  JAXCC_UNARY("isposinf", Array<bool>(jnp::isposinf(x)).astype<T>())
  JAXCC_UNARY("isneginf", Array<bool>(jnp::isneginf(x)).astype<T>())
  JAXCC_UNARY("frexp_mantissa", std::get<0>(jnp::frexp(x)))
  JAXCC_UNARY("frexp_exponent", std::get<1>(jnp::frexp(x)).template astype<T>())
  JAXCC_UNARY("modf_fraction", std::get<0>(jnp::modf(x)))
  JAXCC_UNARY("modf_whole", std::get<1>(jnp::modf(x)))
  JAXCC_BINARY("logaddexp2", jnp::logaddexp2(x, y))
  JAXCC_BINARY("remainder", jnp::remainder(x, y))
  JAXCC_BINARY("floor_divide", jnp::floor_divide(x, y))
  JAXCC_BINARY("fmax", jnp::fmax(x, y))
  JAXCC_BINARY("fmin", jnp::fmin(x, y))
  JAXCC_BINARY("heaviside", jnp::heaviside(x, y))
  JAXCC_BINARY("copysign", jnp::copysign(x, y))
  JAXCC_BINARY("nextafter", jnp::nextafter(x, y))
  JAXCC_BINARY("float_power", jnp::float_power(x, y))
  JAXCC_BINARY("ldexp", jnp::ldexp(x, y.template astype<std::int32_t>()))
#undef JAXCC_UNARY
#undef JAXCC_BINARY
  return {};
}

template <class T>
int check_float_cases(int bits, double rtol) {
  int checked = 0;
  for (auto const& c : float_cases())
    if (c.bits == bits)
      if (auto const f = float_function<T>(c.function)) {
        // XLA computes exp2(x) as exp(log(2) * x): float32 exp2(100) is 2^100 + 2 ppm there, 2^100 here.
        golden::check_case<T>(c, f, c.function == "exp2" && bits == 32 ? 4e-6 : rtol);
        ++checked;
      }
  return checked;
}

// "" when every got[i] is within `ulps` float steps of want[i] (zeros and
// infinities with their sign, nan as nan), else the first that is not.
template <class T>
std::string ulp_mismatch(std::vector<T> const& in, std::vector<T> const& got, std::vector<T> const& want, int ulps) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    T const g = got[i], w = want[i];
    bool const same = std::isnan(w)                  ? std::isnan(g)
                      : (w == 0 || std::isinf(w))     ? g == w && std::signbit(g) == std::signbit(w)
                                                      : std::abs(g - w) <= T(ulps) * std::numeric_limits<T>::epsilon() *
                                                                               std::max(std::abs(w), std::numeric_limits<T>::min());
    if (!same) {
      std::ostringstream os;
      os.precision(17);
      os << "f(" << in[i] << ") = " << g << ", C library " << w;
      return os.str();
    }
  }
  return "";
}

// Edge values first (so that they land in the SIMD body at every vector
// width), then ordinary ones.
template <class T>
std::vector<T> edge_values() {
  using L = std::numeric_limits<T>;
  return {T(0),     -T(0),   L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(), -L::denorm_min(),
          L::min(), L::max(), L::lowest(),  T(1),           T(-1),          T(0.5),          T(-0.5),
          T(2.5),   T(-2.5), T(0.999),      T(-0.999),      T(30),          T(-30),          T(88.5),
          T(-88.5), T(100),  T(-100),       T(127.5),       T(-149.5),      T(710),          T(1023.5),
          T(-1074.5), T(1e5), T(-1e5),      T(1.25),        T(3),           T(0.1),          T(-0.1)};
}

template <class T>
void check_kernels_at_edges() {
  auto const v = edge_values<T>();
  auto const n = static_cast<std::int64_t>(v.size());
  auto const x = jnp::array(v, jaxcc::Shape{n});
  auto const run = [&](auto const& f, auto const& ref) {
    std::vector<T> want;
    for (T e : v) want.push_back(ref(e));
    return ulp_mismatch<T>(v, Array<T>(f(x)).to_vector(), want, 4);
  };
  CHECK(run([](auto const& a) { return lax::sinh(a); }, [](T e) { return std::sinh(e); }) == "");
  CHECK(run([](auto const& a) { return lax::cosh(a); }, [](T e) { return std::cosh(e); }) == "");
  CHECK(run([](auto const& a) { return lax::asin(a); }, [](T e) { return std::asin(e); }) == "");
  CHECK(run([](auto const& a) { return lax::acos(a); }, [](T e) { return std::acos(e); }) == "");
  CHECK(run([](auto const& a) { return lax::asinh(a); }, [](T e) { return std::asinh(e); }) == "");
  CHECK(run([](auto const& a) { return lax::acosh(a); }, [](T e) { return std::acosh(e); }) == "");
  CHECK(run([](auto const& a) { return lax::atanh(a); }, [](T e) { return std::atanh(e); }) == "");
  CHECK(run([](auto const& a) { return lax::exp2(a); }, [](T e) { return std::exp2(e); }) == "");
  CHECK(run([](auto const& a) { return lax::rsqrt(a); }, [](T e) { return T(1) / std::sqrt(e); }) == "");
  CHECK(run([](auto const& a) { return lax::round(a); }, [](T e) { return std::round(e); }) == "");
  CHECK(run([](auto const& a) { return jnp::nextafter(a, std::numeric_limits<T>::infinity()); },
            [](T e) { return std::nextafter(e, std::numeric_limits<T>::infinity()); }) == "");
  CHECK(run([](auto const& a) { return jnp::logaddexp2(a, T(1)); },
            [](T e) {
              T const d = e - T(1);
              return std::isnan(d) ? e + T(1) : std::max(e, T(1)) + std::log1p(std::exp2(-std::abs(d))) / std::log(T(2));
            }) == "");
}

}  // namespace

TEST_CASE("jnp's further float functions: JAX's values, derivatives, jit and vmap", "[ufuncs][golden]") {
  // float32 within 8 ulp of XLA's; float64 within 1e-13 relative (XLA's and the C library's functions differ).
  CHECK(check_float_cases<float>(32, 1e-6) == 55);
  CHECK(check_float_cases<double>(64, 1e-13) == 55);
}

TEMPLATE_TEST_CASE("frexp and ldexp are the C library's on subnormals", "[ufuncs][edges]", float, double) {
  // JAX's frexp is not: XLA on CPU flushes the subnormal it scales to 0 (frexp(1e-40) is (0.5, -149) there).
  using T = TestType;
  using L = std::numeric_limits<T>;
  std::vector<T> const v{L::denorm_min(), -L::denorm_min(), L::min() / T(3), -L::min() / T(1000), T(3) * L::denorm_min(),
                         L::min(), L::max(), T(1), T(-0.75)};
  auto const [m, e] = jnp::frexp(jnp::array(v, jaxcc::Shape{static_cast<std::int64_t>(v.size())}));
  auto const mv = m.to_vector();
  auto const ev = e.to_vector();
  for (std::size_t i = 0; i < v.size(); ++i) {
    int exponent = 0;
    T const mantissa = std::frexp(v[i], &exponent);
    CHECK(mv[i] == mantissa);
    CHECK(ev[i] == exponent);
  }
  // ldexp undoes frexp, subnormals included.
  Array<T> const back = jnp::ldexp(m, e);
  CHECK(back.to_vector() == v);
}

TEST_CASE("jnp's integer functions: JAX's values on int32", "[ufuncs][golden][int]") {
  using I = std::int32_t;
  int checked = 0;
  for (auto const& c : int_cases()) {
    INFO(c.function);
    auto const n = static_cast<std::int64_t>(c.x.size());
    auto const x = jnp::array(std::vector<I>(c.x.begin(), c.x.end()), jaxcc::Shape{n});
    auto const y = jnp::array(std::vector<I>(c.y.begin(), c.y.end()), jaxcc::Shape{static_cast<std::int64_t>(c.y.size())});
    std::optional<Array<std::int64_t>> got;
    auto const as64 = [](auto const& a) { return std::optional(jaxcc::as_array(a).template astype<std::int64_t>()); };
    if (c.function == "floor_divide") got = as64(jnp::floor_divide(x, y));
    if (c.function == "remainder") got = as64(jnp::remainder(x, y));
    if (c.function == "gcd") got = as64(jnp::gcd(x, y));
    if (c.function == "lcm") got = as64(jnp::lcm(x, y));
    if (c.function == "lax_div") got = as64(lax::div(x, y));
    if (c.function == "lax_mulhi") got = as64(lax::mulhi(x, y));
    if (c.function == "fmax") got = as64(jnp::fmax(x, y));
    if (c.function == "logical_xor") got = as64(jnp::logical_xor(x, y));
    if (c.function == "bitwise_count") got = as64(jnp::bitwise_count(x));
    if (c.function == "lax_population_count") got = as64(lax::population_count(x));
    if (c.function == "lax_clz") got = as64(lax::clz(x));
    if (c.function == "signbit") got = as64(jnp::signbit(x));
    if (c.function == "trunc") got = as64(jnp::trunc(x));
    if (c.function == "lax_integer_pow3") got = as64(lax::integer_pow(x, 3));
    REQUIRE(got);
    CHECK(got->to_vector() == c.values);
    ++checked;
  }
  CHECK(checked == 14);
  // divmod is (floor_divide, remainder); 64-bit mulhi and bit counts of other widths.
  auto const [q, r] = jnp::divmod(jnp::array<I>({7, -7}), 2);
  CHECK(q.to_vector() == std::vector<I>{3, -4});
  CHECK(r.to_vector() == std::vector<I>{1, 1});
  auto const big = jnp::array<std::int64_t>({std::numeric_limits<std::int64_t>::min(), -3, 1LL << 40});
  CHECK(Array<std::int64_t>(lax::mulhi(big, big)).to_vector() == std::vector<std::int64_t>{1LL << 62, 0, 1LL << 16});
  CHECK(Array<std::uint32_t>(lax::mulhi(jnp::array<std::uint32_t>({0xffffffffu}), jnp::array<std::uint32_t>({2u})))
            .to_vector() == std::vector<std::uint32_t>{1u});
  CHECK(Array<std::int8_t>(lax::clz(jnp::array<std::int8_t>({0, 1, -1}))).to_vector() == std::vector<std::int8_t>{8, 7, 0});
  CHECK(Array<std::uint8_t>(jnp::bitwise_count(jnp::array<std::int8_t>({-1, 7, -128}))).to_vector() ==
        std::vector<std::uint8_t>{1, 3, 1});
  CHECK(Array<std::uint8_t>(jnp::bitwise_count(jnp::array<bool>({true, false}))).to_vector() == std::vector<std::uint8_t>{1, 0});
  // uint32, as JAX: x // 0 is all ones, x % 0 is 0.
  auto const u = jnp::array<std::uint32_t>({7u, 0u, 5u});
  auto const v = jnp::array<std::uint32_t>({2u, 0u, 0u});
  CHECK(jnp::floor_divide(u, v).to_vector() == std::vector<std::uint32_t>{3u, 0xffffffffu, 0xffffffffu});
  CHECK(jnp::remainder(u, v).to_vector() == std::vector<std::uint32_t>{1u, 0u, 0u});
}

TEMPLATE_TEST_CASE("the new SIMD kernels match the C library at zeros, infinities, nan, subnormals and range ends",
                   "[ufuncs][edges]", float, double) {
  check_kernels_at_edges<TestType>();
}

TEST_CASE("jnp's float functions take integers as floats; the integer ones keep their dtype", "[ufuncs][dtype]") {
  auto const i32 = jnp::array<std::int32_t>({3, -5, 0});
  auto const i64 = jnp::array<std::int64_t>({3, -5, 0});
  auto const f32 = jnp::array<float>({1.5f});
  using jaxcc::value_type_t;
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::sinh(i32))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::arccosh(i64))>, double>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::log10(i32))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::logaddexp2(i32, i64))>, double>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::reciprocal(i32))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::float_power(i32, 2))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::rint(i32))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::trunc(i32))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::remainder(i32, 2))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::floor_divide(i32, 2.5))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::copysign(i32, f32))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::heaviside(i32, 1))>, float>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(std::get<1>(jnp::frexp(i64)))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::bitwise_count(i64))>, std::uint8_t>);
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::signbit(f32))>, bool>);
  // The values of the integer forms, by hand.
  CHECK(Array<float>(jnp::sinh(i32)).to_vector()[0] == Catch::Approx(std::sinh(3.0)).epsilon(1e-6));
  CHECK(Array<float>(jnp::reciprocal(i32)).to_vector() == std::vector<float>{1.f / 3, -0.2f, std::numeric_limits<float>::infinity()});
  CHECK(Array<float>(jnp::deg2rad(jnp::array<std::int32_t>({180}))).item() == Catch::Approx(3.14159265f));
  // bfloat16 stays bfloat16; its sign bit is float32's.
  auto const half = jnp::array<jaxcc::bfloat16>({jaxcc::bfloat16(-0.f), jaxcc::bfloat16(2.f)});
  STATIC_REQUIRE(std::is_same_v<value_type_t<decltype(jnp::sinh(half))>, jaxcc::bfloat16>);
  CHECK(Array<bool>(jnp::signbit(half)).to_vector() == std::vector<bool>{true, false});
}

TEST_CASE("jnp's further functions pass check_grads to second order and batch", "[ufuncs][grad]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  using A = Array<double>;
  auto const x = jnp::array<double>({-0.7, -0.2, 0.3, 0.6});
  auto const y = jnp::array<double>({1.3, -2.1, 0.7, 2.9});
  auto const above = jnp::array<double>({1.2, 1.7, 3.0, 9.5});
  auto const unary = std::vector<std::function<A(A const&)>>{
      [](A const& v) { return A(jnp::sinh(v)); },       [](A const& v) { return A(jnp::cosh(v)); },
      [](A const& v) { return A(jnp::arcsin(v)); },     [](A const& v) { return A(jnp::arccos(v)); },
      [](A const& v) { return A(jnp::arcsinh(v)); },    [](A const& v) { return A(jnp::arctanh(v)); },
      [](A const& v) { return A(jnp::exp2(v)); },       [](A const& v) { return A(jnp::reciprocal(v)); },
      [](A const& v) { return A(jnp::sinc(v)); },       [](A const& v) { return A(jnp::deg2rad(v)); },
      [](A const& v) { return A(jnp::log2(v * v)); },   [](A const& v) { return A(jnp::log10(v * v)); }};
  for (std::size_t i = 0; i < unary.size(); ++i) {
    INFO("unary function " << i);
    CHECK_NOTHROW(check_grads(unary[i], std::tuple{x}, 2));
    CHECK_NOTHROW(check_batching_rule(unary[i], jaxcc::in_axes(0), x.reshape({2, 2})));
  }
  auto const acosh = [](A const& v) { return A(jnp::arccosh(v)); };
  CHECK_NOTHROW(check_grads(acosh, std::tuple{above}, 2));
  auto const binary = std::vector<std::function<A(A const&, A const&)>>{
      [](A const& a, A const& b) { return A(jnp::logaddexp2(a, b)); },
      [](A const& a, A const& b) { return A(jnp::remainder(a, b)); },
      [](A const& a, A const& b) { return A(jnp::copysign(a, b)); },
      [](A const& a, A const& b) { return A(jnp::fmax(a, b)); },
      [](A const& a, A const& b) { return A(jnp::float_power(jnp::abs(a) + 0.5, b)); }};
  for (std::size_t i = 0; i < binary.size(); ++i) {
    INFO("binary function " << i);
    CHECK_NOTHROW(check_grads(binary[i], std::tuple{x, y}, 2));
    CHECK_NOTHROW(check_batching_rule(binary[i], jaxcc::in_axes(0, 1), x.reshape({2, 2}), y.reshape({2, 2})));
  }
  // sinc at 0: JAX's Maclaurin derivatives 0 and -pi^2 / 3.
  auto const d1 = jaxcc::grad([](A const& v) { return A(jnp::sinc(v)); });
  auto const d2 = jaxcc::grad([&](A const& v) { return d1(v); });
  CHECK(d1(jnp::array(0.0)).item() == 0.0);
  CHECK(d2(jnp::array(0.0)).item() == Catch::Approx(-std::numbers::pi * std::numbers::pi / 3).epsilon(1e-14));
  // jit of a composition with tuples, against eager.
  auto const split = [](A const& v) { auto [m, e] = jnp::frexp(v); return A(jnp::ldexp(m, e)); };
  CHECK_NOTHROW(jaxcc::testing::check_jit(split, jaxcc_test::smooth({3, 4}) * 100.0));
  CHECK_THAT(jaxcc::jit(split)(jaxcc_test::smooth({3, 4}) * 100.0),
             jaxcc::testing::AllClose(jaxcc_test::smooth({3, 4}) * 100.0, 0, 0));
}

TEST_CASE("jnp's further functions on 0-d and empty inputs", "[ufuncs][edges]") {
  using jaxcc::testing::check_edges;
  using jaxcc::testing::rand_normal;
  using A = Array<double>;
  CHECK_NOTHROW(check_edges([](A const& v) { return A(jnp::sinh(v) + jnp::arctanh(v * 0.1) + jnp::exp2(v)); },
                            rand_normal<double>({3, 4})));
  CHECK_NOTHROW(check_edges([](A const& v) { return A(jnp::remainder(v, 0.7) + jnp::sinc(v) + jnp::spacing(v)); },
                            rand_normal<double>({3, 4})));
  CHECK_NOTHROW(check_edges([](A const& v) { return std::get<0>(jnp::frexp(v)) + std::get<1>(jnp::modf(v)); },
                            rand_normal<double>({2, 3})));
  CHECK_NOTHROW(check_edges([](Array<std::int32_t> const& v) { return jnp::gcd(v, 6); },
                            jaxcc::testing::rand_like(jnp::zeros<std::int32_t>({2, 3}))));
  CHECK(Array<float>(jnp::sinc(jnp::array(0.f))).item() == 1.f);
  CHECK(jnp::gcd(jnp::array<std::int32_t>(12), 18).item() == 6);
}

TEST_CASE("jnp's further functions raise JAX's messages where shapes do not broadcast", "[ufuncs][errors]") {
  auto const a = jnp::ones<float>({2});
  auto const b = jnp::ones<float>({3});
  CHECK(message_of([&] { return jnp::remainder(a, b); }) == "rem got incompatible shapes for broadcasting: (2,), (3,)");
  CHECK(message_of([&] { return jnp::mod(a, b); }) == "rem got incompatible shapes for broadcasting: (2,), (3,)");
  CHECK(message_of([&] { return jnp::logaddexp2(a, b); }) ==
        "logaddexp2 got incompatible shapes for broadcasting: (2,), (3,)");
  CHECK(message_of([&] { return jnp::copysign(a, b); }) == "select_n got incompatible shapes for broadcasting: (3,), (2,)");
  CHECK(message_of([&] { return jnp::nextafter(a, b); }) == "nextafter got incompatible shapes for broadcasting: (2,), (3,)");
  CHECK(message_of([&] {
          return jnp::gcd(jnp::ones<std::int32_t>({2}), jnp::ones<std::int32_t>({3}));
        }) == "add got incompatible shapes for broadcasting: (2,), (3,)");
}

}  // namespace test_ufuncs
