// Elementwise math, operators, broadcasting and dtype promotion, each checked
// against a plain loop over std:: functions written here, or against JAX's
// own values (tests/golden/elementwise_nn_cases.py).
#include "catch.hpp"

#include <bit>
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

namespace test_elementwise {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;

namespace {

// Values that exercise signs, zero crossings, fractions and magnitudes.
template <class T>
std::vector<T> sample(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<T>(std::sin(0.7 * static_cast<double>(i) + 0.3) * (1.0 + static_cast<double>(i % 7)));
  return v;
}

// "" when every got[i] is ref(in[i]) within 1e-5 relative / 1e-6 absolute,
// else the first element that is not: CHECK(mismatch_each(...) == "").
template <class T, class Ref>
std::string mismatch_each(Array<T> const& got, std::vector<T> const& in, Ref ref) {
  auto g = got.to_vector();
  if (g.size() != in.size()) return "size " + std::to_string(g.size()) + " vs " + std::to_string(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    auto const expected = static_cast<double>(ref(in[i]));
    if (!(g[i] == Catch::Approx(expected).epsilon(1e-5).margin(1e-6))) {
      std::ostringstream os;
      os.precision(17);
      os << "element " << i << " of f(" << in[i] << "): " << g[i] << " vs " << expected;
      return os.str();
    }
  }
  return "";
}

}  // namespace

TEMPLATE_TEST_CASE("unary float functions match std:: on every element", "[elementwise]", float, double) {
  using T = TestType;
  // 37 elements: several SIMD batches plus a scalar tail at every vector width.
  auto values = sample<T>(37);
  auto x = jnp::array(values, Shape{37});
  Array<T> pos = jnp::abs(x) + T(0.5);
  auto pv = pos.to_vector();

  CHECK(mismatch_each<T>(jnp::sin(x), values, [](T v) { return std::sin(v); }) == "");
  CHECK(mismatch_each<T>(jnp::cos(x), values, [](T v) { return std::cos(v); }) == "");
  CHECK(mismatch_each<T>(jnp::tan(x * T(0.2)), values, [](T v) { return std::tan(v * T(0.2)); }) == "");
  CHECK(mismatch_each<T>(jnp::tanh(x), values, [](T v) { return std::tanh(v); }) == "");
  CHECK(mismatch_each<T>(jnp::arctan(x), values, [](T v) { return std::atan(v); }) == "");
  CHECK(mismatch_each<T>(jnp::exp(x), values, [](T v) { return std::exp(v); }) == "");
  CHECK(mismatch_each<T>(jnp::expm1(x), values, [](T v) { return std::expm1(v); }) == "");
  CHECK(mismatch_each<T>(jnp::log(pos), pv, [](T v) { return std::log(v); }) == "");
  CHECK(mismatch_each<T>(jnp::log1p(pos), pv, [](T v) { return std::log1p(v); }) == "");
  CHECK(mismatch_each<T>(jnp::sqrt(pos), pv, [](T v) { return std::sqrt(v); }) == "");
  CHECK(mismatch_each<T>(jnp::square(x), values, [](T v) { return v * v; }) == "");
  CHECK(mismatch_each<T>(jnp::abs(x), values, [](T v) { return std::abs(v); }) == "");
  CHECK(mismatch_each<T>(-x, values, [](T v) { return -v; }) == "");
  CHECK(mismatch_each<T>(jnp::negative(x), values, [](T v) { return -v; }) == "");
  CHECK(mismatch_each<T>(jnp::sign(x), values, [](T v) { return T((v > 0) - (v < 0)); }) == "");
  CHECK(mismatch_each<T>(jnp::floor(x), values, [](T v) { return std::floor(v); }) == "");
  CHECK(mismatch_each<T>(jnp::power(pos, T(1.5)), pv, [](T v) { return std::pow(v, T(1.5)); }) == "");
}

TEMPLATE_TEST_CASE("expm1, log1p and erf keep a zero's sign in every lane, as the C library does", "[elementwise]",
                   float, double) {
  using T = TestType;
  // 17 zeros of alternating sign: whole SIMD batches at every width, then a scalar tail.
  std::vector<T> zeros(17);
  for (std::size_t i = 0; i < zeros.size(); ++i) zeros[i] = i % 2 ? T(-0.0) : T(0.0);
  auto const x = jnp::array(zeros, Shape{17});
  for (auto const& y : {Array<T>(jnp::expm1(x)).to_vector(), Array<T>(jnp::log1p(x)).to_vector(),
                        Array<T>(jaxcc::lax::erf(x)).to_vector()})
    for (std::size_t i = 0; i < zeros.size(); ++i) {
      CHECK(y[i] == T(0));
      CHECK(std::signbit(y[i]) == std::signbit(zeros[i]));
    }
}

TEST_CASE("a fused expression is one value per element, whatever its depth", "[elementwise][fusion]") {
  auto x = jnp::arange<float>(-50, 50);
  auto a = 2.0f;
  auto b = jnp::full<float>({100}, 3.0f);
  Array<float> y = a * x + b * jnp::sin(x);
  auto xs = x.to_vector();
  auto ys = y.to_vector();
  for (std::size_t i = 0; i < xs.size(); ++i)
    CHECK(ys[i] == Catch::Approx(2 * xs[i] + 3 * std::sin(xs[i])).epsilon(1e-6));

  // An expression type is its graph; nothing runs until it becomes an Array.
  auto expr = a * x + b * jnp::sin(x);
  STATIC_REQUIRE(jaxcc::fusion::is_expr<decltype(expr)>::value);
  STATIC_REQUIRE(jaxcc::fusion::leaf_count<decltype(expr)> == 3);
  STATIC_REQUIRE(jaxcc::fusion::vectorizable<decltype(expr)>);
  REQUIRE(expr.shape() == Shape{100});
}

TEST_CASE("binary operators broadcast as numpy does", "[elementwise][broadcast]") {
  // (2, 3) + (3,) + (2, 1): each output element is a[i][j] + b[j] + c[i].
  auto a = jnp::array<double>({{1, 2, 3}, {4, 5, 6}});
  auto b = jnp::array<double>({10, 20, 30});
  auto c = jnp::array<double>({{100}, {200}});
  Array<double> y = a + b + c;
  REQUIRE(y.shape() == Shape{2, 3});
  REQUIRE(y.to_vector() == std::vector<double>{111, 122, 133, 214, 225, 236});

  SECTION("rank 0 against rank 2") {
    Array<double> z = jnp::array(5.0) * a;
    REQUIRE(z.to_vector() == std::vector<double>{5, 10, 15, 20, 25, 30});
  }
  SECTION("(3, 1) against (1, 4) gives an outer sum") {
    auto col = jnp::arange<std::int32_t>(3).reshape({3, 1});
    auto row = jnp::arange<std::int32_t>(4).reshape({1, 4});
    Array<std::int32_t> s = col * 10 + row;
    REQUIRE(s.shape() == Shape{3, 4});
    std::vector<std::int32_t> expected;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) expected.push_back(i * 10 + j);
    REQUIRE(s.to_vector() == expected);
  }
  SECTION("empty dimensions broadcast to empty results") {
    Array<float> e = jnp::zeros<float>({0, 3}) + jnp::ones<float>({3});
    REQUIRE(e.shape() == Shape{0, 3});
    REQUIRE(e.size() == 0);
    Array<float> e2 = jnp::zeros<float>({2, 0}) * jnp::ones<float>({2, 1});
    REQUIRE(e2.shape() == Shape{2, 0});
  }
  SECTION("incompatible shapes raise JAX's message at the line that combines them") {
    auto bad = [] { return jnp::ones<float>({3, 4}) + jnp::ones<float>({5}); };
    REQUIRE(message_of(bad) == "add got incompatible shapes for broadcasting: (3, 4), (5,)");
    auto bad_mul = [] { return jnp::multiply(jnp::ones<float>({2, 3}), jnp::ones<float>({3, 2})); };
    REQUIRE(message_of(bad_mul) == "mul got incompatible shapes for broadcasting: (2, 3), (3, 2)");
  }
}

TEST_CASE("non-contiguous operands read through their strides", "[elementwise][strided]") {
  auto m = jnp::arange<float>(0, 12).reshape({3, 4});
  auto mt = m.T();  // (4, 3) view, strides (1, 4)
  REQUIRE_FALSE(mt.is_contiguous());
  Array<float> y = mt * 2.0f + jnp::array<float>({1, 2, 3});
  REQUIRE(y.shape() == Shape{4, 3});
  std::vector<float> expected;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) expected.push_back(static_cast<float>(j * 4 + i) * 2 + static_cast<float>(j + 1));
  REQUIRE(y.to_vector() == expected);

  // A large transposed operand takes the row-by-row path over OpenMP threads.
  auto big = jnp::arange<double>(0, 512 * 300).reshape({512, 300});
  Array<double> z = jnp::sin(big.T()) + big.T();
  auto bv = big.to_vector();
  auto zv = z.to_vector();
  for (std::size_t i = 0; i < 300; i += 37)
    for (std::size_t j = 0; j < 512; j += 29) {
      double v = bv[j * 300 + i];
      CHECK(zv[i * 512 + j] == Catch::Approx(std::sin(v) + v));
    }
}

TEST_CASE("large contiguous expressions split over threads and agree with the loop", "[elementwise][parallel]") {
  std::int64_t const n = (1 << 18) + 7;  // above the parallel grain, ragged tail
  auto x = jnp::arange<float>(0, static_cast<float>(n)) * 1e-4f;
  Array<float> y = jnp::exp(-x) * jnp::cos(x);
  auto yv = y.to_vector();
  for (std::int64_t i = 0; i < n; i += 997) {
    float v = static_cast<float>(i) * 1e-4f;
    CHECK(yv[static_cast<std::size_t>(i)] == Catch::Approx(std::exp(-v) * std::cos(v)).epsilon(1e-5).margin(1e-7));
  }
  CHECK(yv.back() == Catch::Approx(std::exp(-(n - 1) * 1e-4f) * std::cos((n - 1) * 1e-4f)).epsilon(1e-4).margin(1e-6));
}

TEMPLATE_TEST_CASE("negation flips the sign bit, in SIMD batches too", "[elementwise][neg]", float, double) {
  using T = TestType;
  // IEEE negation (what XLA's neg does): -(+0) is -0 and a NaN keeps its
  // payload. 100 elements run whole SIMD batches at any width and a tail.
  std::vector<T> values(100, T(0));
  values[1] = -T(0);
  values[2] = std::numeric_limits<T>::signaling_NaN();
  values[3] = std::numeric_limits<T>::infinity();
  for (std::size_t i = 4; i < values.size(); ++i) values[i] = T(static_cast<double>(i) - 50.5);
  auto const x = jnp::array(values, {100});
  auto const negated = Array<T>(jnp::negative(x)).to_vector();
  for (std::size_t i = 0; i < values.size(); ++i) {
    INFO("element " << i);
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    Bits const sign = Bits{1} << (8 * sizeof(T) - 1);
    CHECK(std::bit_cast<Bits>(negated[i]) == (std::bit_cast<Bits>(values[i]) ^ sign));
  }
}

TEST_CASE("rank-0 arrays compute like scalars", "[elementwise]") {
  auto s = jnp::array(2.0f);
  Array<float> y = s * s + 1.0f;
  REQUIRE(y.shape() == Shape{});
  REQUIRE(y.item() == 5.0f);
}

TEST_CASE("dtype promotion follows JAX's lattice", "[elementwise][dtype]") {
  auto f = jnp::ones<float>({2});
  auto d = jnp::ones<double>({2});
  auto i = jnp::ones<std::int32_t>({2});
  auto l = jnp::ones<std::int64_t>({2});
  auto b = jnp::ones<bool>({2});
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(f + d)>, double>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(i + f)>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(l + f)>, float>);  // int64 joins float32 at float32
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(i + l)>, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(b + i)>, std::int32_t>);
  // C++ scalars are weakly typed, like Python scalars in JAX.
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(f * 2.0)>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(i * 2)>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(i * 2.5)>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(b + 1)>, std::int32_t>);
  // True division and float functions of integers give floats.
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(i / i)>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(jnp::sin(i))>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(jnp::sqrt(l))>, double>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(i < f)>, bool>);

  Array<float> q = jnp::array<std::int32_t>({7, -7}) / 2;
  REQUIRE(q.to_vector() == std::vector<float>{3.5f, -3.5f});
  Array<float> mixed = jnp::array<std::int32_t>({1, 2}) * 0.5;
  REQUIRE(mixed.to_vector() == std::vector<float>{0.5f, 1.0f});
}

TEST_CASE("integer arithmetic stays exact", "[elementwise][int]") {
  auto a = jnp::array<std::int64_t>({-3, 0, 5, 1'000'000'000'000});
  Array<std::int64_t> y = a * 3 - 1;
  REQUIRE(y.to_vector() == std::vector<std::int64_t>{-10, -1, 14, 2'999'999'999'999});
  Array<std::int32_t> p = jnp::power(jnp::array<std::int32_t>({2, 3, -2, 5}), jnp::array<std::int32_t>({10, 3, 3, 0}));
  REQUIRE(p.to_vector() == std::vector<std::int32_t>{1024, 27, -8, 1});
  Array<std::int32_t> ab = jnp::abs(jnp::array<std::int32_t>({-4, 4, 0}));
  REQUIRE(ab.to_vector() == std::vector<std::int32_t>{4, 4, 0});
  Array<std::int32_t> mx = jnp::maximum(jnp::arange<std::int32_t>(40), 20);
  for (std::int32_t k = 0; k < 40; ++k) CHECK(mx.to_vector()[static_cast<std::size_t>(k)] == std::max(k, 20));
  // floor and round leave integers as they are.
  REQUIRE(jnp::floor(jnp::array<std::int32_t>({3, -3})).to_vector() == std::vector<std::int32_t>{3, -3});
}

TEST_CASE("comparisons and where", "[elementwise][bool]") {
  auto x = jnp::array<float>({-2, -1, 0, 1, 2});
  Array<bool> gt = x > 0.0f;
  REQUIRE(gt.to_vector() == std::vector<bool>{false, false, false, true, true});
  REQUIRE((x <= 0).eval().to_vector() == std::vector<bool>{true, true, true, false, false});
  REQUIRE((x == 1).eval().to_vector() == std::vector<bool>{false, false, false, true, false});
  REQUIRE((x != 1).eval().to_vector() == std::vector<bool>{true, true, true, false, true});
  REQUIRE(jnp::greater_equal(x, -1).eval().to_vector() == std::vector<bool>{false, true, true, true, true});
  REQUIRE(jnp::less(x, -1).eval().to_vector() == std::vector<bool>{true, false, false, false, false});

  Array<float> relu_like = jnp::where(x > 0, x, 0);
  REQUIRE(relu_like.to_vector() == std::vector<float>{0, 0, 0, 1, 2});
  Array<float> picked = jnp::where(jnp::array<bool>({true, false}), jnp::array<float>({{1, 2}, {3, 4}}), -1.0f);
  REQUIRE(picked.to_vector() == std::vector<float>{1, -1, 3, -1});
  Array<bool> both = jnp::logical_and(x > -2, x < 2);
  REQUIRE(both.to_vector() == std::vector<bool>{false, true, true, true, false});
  Array<bool> negated = jnp::logical_not(both);
  REQUIRE(negated.to_vector() == std::vector<bool>{true, false, false, false, true});
  Array<bool> either = jnp::logical_or(x < -1, x > 1);
  REQUIRE(either.to_vector() == std::vector<bool>{true, false, false, false, true});
}

TEST_CASE("a concrete boolean converts to bool; an ambiguous one says why not", "[elementwise][bool]") {
  auto one = jnp::array(true);
  REQUIRE(static_cast<bool>(one));
  REQUIRE_FALSE(static_cast<bool>(jnp::array(1.0f) > 2.0f));
  REQUIRE(static_cast<bool>(jnp::array(3.0f) > 2.0f));
  auto many = jnp::array<bool>({true, false});
  REQUIRE(message_of([&] { return static_cast<bool>(many); }) ==
          "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
}

TEST_CASE("maximum and minimum propagate NaN; clip bounds", "[elementwise][nan]") {
  float const nan = std::numeric_limits<float>::quiet_NaN();
  float const inf = std::numeric_limits<float>::infinity();
  // 19 elements so both the SIMD body and the scalar tail see NaNs.
  std::vector<float> a(19, 1.0f), b(19, 2.0f);
  a[3] = nan;
  b[17] = nan;
  a[5] = -inf;
  auto x = jnp::array(a, Shape{19});
  auto y = jnp::array(b, Shape{19});
  auto mx = jnp::maximum(x, y).eval().to_vector();
  auto mn = jnp::minimum(x, y).eval().to_vector();
  for (std::size_t i = 0; i < 19; ++i) {
    if (i == 3 || i == 17) {
      CHECK(std::isnan(mx[i]));
      CHECK(std::isnan(mn[i]));
    } else {
      CHECK(mx[i] == std::max(a[i], b[i]));
      CHECK(mn[i] == std::min(a[i], b[i]));
    }
  }
  Array<float> clipped = jnp::clip(jnp::array<float>({-5, 0.5f, 5}), 0, 1);
  REQUIRE(clipped.to_vector() == std::vector<float>{0, 0.5f, 1});
  Array<float> s = jnp::sign(jnp::array<float>({-0.0f, 3, -3, nan}));
  auto sv = s.to_vector();
  CHECK(sv[0] == 0.0f);
  CHECK(sv[1] == 1.0f);
  CHECK(sv[2] == -1.0f);
  CHECK(std::isnan(sv[3]));
}

TEST_CASE("round is half to even, as numpy", "[elementwise]") {
  // 17 values: the SIMD body and the scalar tail must agree.
  std::vector<double> in{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, 0.51, 3.5, 4.5, -3.5, 7.0, 1e15 + 0.5, 2.4, -2.6, 0.0, 5.5};
  std::vector<double> want{0, 2, 2, -0.0, -2, -2, 0, 1, 4, 4, -4, 7, 1e15, 2, -3, 0, 6};
  auto r = jnp::round(jnp::array(in, Shape{17})).eval().to_vector();
  REQUIRE(r == want);
}

TEST_CASE("astype converts; float to int saturates and maps NaN to 0", "[elementwise][dtype]") {
  auto x = jnp::array<float>({1.9f, -1.9f, 3e10f, -3e10f, std::numeric_limits<float>::quiet_NaN()});
  REQUIRE(x.astype<std::int32_t>().to_vector() ==
          std::vector<std::int32_t>{1, -1, std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min(), 0});
  REQUIRE(jnp::array<float>({0, 2, -0.5f}).astype<bool>().to_vector() == std::vector<bool>{false, true, true});
  REQUIRE(jnp::array<bool>({true, false}).astype<double>().to_vector() == std::vector<double>{1, 0});
  auto same = jnp::arange<float>(3);
  REQUIRE(same.astype<float>().data() == same.data());  // no copy for the same dtype
}

TEST_CASE("compound assignment rebinds to a new array", "[elementwise]") {
  auto x = jnp::arange<float>(4);
  auto before = x;
  x += 1.0f;
  x *= jnp::array<float>({1, 2, 3, 4});
  REQUIRE(x.to_vector() == std::vector<float>{1, 4, 9, 16});
  REQUIRE(before.to_vector() == std::vector<float>{0, 1, 2, 3});  // copies never alias
}

TEST_CASE("empty arrays flow through unary and binary ops", "[elementwise][empty]") {
  auto e = jnp::zeros<double>({3, 0});
  Array<double> y = jnp::exp(e) + e * 2.0;
  REQUIRE(y.shape() == Shape{3, 0});
  REQUIRE(y.to_vector().empty());
}

TEST_CASE("comparisons with NaN follow IEEE in the SIMD body and the tail", "[elementwise][nan]") {
  float const nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a(19, 1.0f);
  a[2] = nan;
  a[18] = nan;
  auto x = jnp::array(a, Shape{19});
  // Select through a mask inside one fused region: NaN != NaN is true, NaN == NaN false.
  Array<float> ne = jnp::where(x != x, 1.0f, 0.0f);
  Array<float> eq = jnp::where(x == x, 1.0f, 0.0f);
  for (std::size_t i = 0; i < 19; ++i) {
    bool is_nan = i == 2 || i == 18;
    CHECK(ne.to_vector()[i] == (is_nan ? 1.0f : 0.0f));
    CHECK(eq.to_vector()[i] == (is_nan ? 0.0f : 1.0f));
  }
}

TEST_CASE("erf, erf_inv, rem and fma against the C library, and their derivatives", "[elementwise]") {
  auto const x = jnp::array<double>({-0.999, -0.5, -1e-3, 0.0, 0.25, 0.9, 0.999999});
  auto const xs = x.to_vector();
  auto const e = Array<double>(jaxcc::lax::erf(x)).to_vector();
  auto const inv = Array<double>(jaxcc::lax::erf_inv(x)).to_vector();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    CHECK(e[i] == Catch::Approx(std::erf(xs[i])).epsilon(1e-13));  // xsimd's erf, some ulps from the C library's
    CHECK(std::erf(inv[i]) == Catch::Approx(xs[i]).epsilon(1e-14).margin(1e-16));  // the inverse, to double precision
  }
  // float32: XLA's polynomial; erf of it returns the input to float precision, over SIMD body and tail.
  auto const xf = jnp::linspace<float>(-0.9999f, 0.9999f, 1001);
  auto const invf = Array<float>(jaxcc::lax::erf_inv(xf)).to_vector();
  auto const xfs = xf.to_vector();
  for (std::size_t i = 0; i < xfs.size(); ++i) CHECK(std::erf(double(invf[i])) == Catch::Approx(xfs[i]).margin(2e-6));
  // Edge values first, so that they fall in the SIMD body at every width
  // (xsimd's erf of an infinity or NaN went through an undefined
  // conversion in its exp, which the sanitizer build reports).
  auto const inf = std::numeric_limits<double>::infinity();
  std::vector<double> const ev{inf, -inf, std::numeric_limits<double>::quiet_NaN(), -0.0, 7.0, -6.5, 1e300, 0.5, 2.0};
  auto const ed = Array<double>(jaxcc::lax::erf(jnp::array<double>(ev, {std::int64_t(ev.size())}))).to_vector();
  for (std::size_t i = 0; i < ev.size(); ++i) {
    if (std::isnan(ev[i])) CHECK(std::isnan(ed[i]));
    else CHECK(ed[i] == Catch::Approx(std::erf(ev[i])).epsilon(1e-13));
  }
  CHECK(std::signbit(ed[3]));
  std::vector<float> const fv{float(inf), float(-inf), std::numeric_limits<float>::quiet_NaN(), 7.f, -6.5f, 3e38f, 0.5f, 2.f, -1.f};
  auto const efs = Array<float>(jaxcc::lax::erf(jnp::array<float>(fv, {std::int64_t(fv.size())}))).to_vector();
  for (std::size_t i = 0; i < fv.size(); ++i) {
    if (std::isnan(fv[i])) CHECK(std::isnan(efs[i]));
    else CHECK(efs[i] == Catch::Approx(std::erf(fv[i])).epsilon(1e-6));
  }
  auto const edges = Array<float>(jaxcc::lax::erf_inv(jnp::array<float>({-1.f, 1.f}))).to_vector();
  CHECK(edges == std::vector<float>{-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()});

  // rem: C's %, sign of the dividend; an integer remainder by zero is the dividend (XLA's).
  auto const r = Array<std::int32_t>(jnp::fmod(jnp::array<std::int32_t>({7, -7, 7, -7, 5}),
                                               jnp::array<std::int32_t>({3, 3, -3, -3, 0})));
  CHECK(r.to_vector() == std::vector<std::int32_t>{1, -1, 1, -1, 5});
  auto const rf = Array<float>(jnp::fmod(jnp::array<float>({5.5f, -5.5f}), 2.f)).to_vector();
  CHECK(rf == std::vector<float>{std::fmod(5.5f, 2.f), std::fmod(-5.5f, 2.f)});

  // Derivatives against finite differences (check_grads), away from rem's jumps.
  auto const smooth = jnp::array<double>({-0.7, -0.2, 0.3, 0.6});
  CHECK_NOTHROW(jaxcc::testing::check_grads([](Array<double> const& v) { return Array<double>(jaxcc::lax::erf(v)); },
                                            std::tuple{smooth}, 2));
  CHECK_NOTHROW(jaxcc::testing::check_grads(
      [](Array<double> const& v) { return Array<double>(jaxcc::lax::erf_inv(v)); }, std::tuple{smooth}, 2));
  CHECK_NOTHROW(jaxcc::testing::check_grads(
      [](Array<double> const& a, Array<double> const& b) { return Array<double>(jnp::fmod(a, b)); },
      std::tuple{jnp::array<double>({5.3, -4.2, 2.9}), jnp::array<double>({2.1, 1.7, -1.3})}, 1));
}

TEST_CASE("uint32 arrays: JAX's promotion, wraparound, shifts and bit operations", "[elementwise][uint32]") {
  using u32 = std::uint32_t;
  static_assert(std::same_as<jaxcc::promote_t<u32, std::int32_t>, std::int64_t>);
  static_assert(std::same_as<jaxcc::promote_t<u32, std::int64_t>, std::int64_t>);
  static_assert(std::same_as<jaxcc::promote_t<u32, bool>, u32>);
  static_assert(std::same_as<jaxcc::promote_t<u32, float>, float>);
  static_assert(std::same_as<jaxcc::promote_weak_t<u32, int>, u32>);
  static_assert(std::same_as<jaxcc::promote_weak_t<u32, double>, float>);
  auto const a = jnp::array<u32>({0u, 1u, 0x80000000u, 0xFFFFFFFFu});
  // Worked by hand: 0 - 1 wraps to 2^32 - 1; 2^32 - 1 + 1 wraps to 0.
  CHECK(Array<u32>(a - 1).to_vector() == std::vector<u32>{0xFFFFFFFFu, 0u, 0x7FFFFFFFu, 0xFFFFFFFEu});
  CHECK(Array<u32>(a + 1).to_vector() == std::vector<u32>{1u, 2u, 0x80000001u, 0u});
  CHECK(Array<u32>(a * 2u).to_vector() == std::vector<u32>{0u, 2u, 0u, 0xFFFFFFFEu});
  // >> is logical on unsigned; shifts by 32 or more give 0, as XLA's.
  CHECK(Array<u32>(a >> 31).to_vector() == std::vector<u32>{0u, 0u, 1u, 1u});
  CHECK(Array<u32>(a << 4).to_vector() == std::vector<u32>{0u, 16u, 0u, 0xFFFFFFF0u});
  CHECK(Array<u32>(a << 32).to_vector() == std::vector<u32>{0u, 0u, 0u, 0u});
  CHECK(Array<u32>(a ^ 0xFFu).to_vector() == std::vector<u32>{0xFFu, 0xFEu, 0x800000FFu, 0xFFFFFF00u});
  CHECK(Array<u32>(a & 0x80000001u).to_vector() == std::vector<u32>{0u, 1u, 0x80000000u, 0x80000001u});
  CHECK(Array<u32>(~a).to_vector() == std::vector<u32>{0xFFFFFFFFu, 0xFFFFFFFEu, 0x7FFFFFFFu, 0u});
  CHECK(Array<bool>(a > 1u).to_vector() == std::vector<bool>{false, false, true, true});  // unsigned order
  // int32: >> is arithmetic; past the width it fills with the sign.
  auto const s = jnp::array<std::int32_t>({-8, 8});
  CHECK(Array<std::int32_t>(s >> 1).to_vector() == std::vector<std::int32_t>{-4, 4});
  CHECK(Array<std::int32_t>(s >> 40).to_vector() == std::vector<std::int32_t>{-1, 0});
  CHECK(Array<std::int32_t>(jaxcc::lax::shift_right_logical(s, 28)).to_vector() == std::vector<std::int32_t>{15, 0});
  // Mixed with int32 the result is int64, as jnp.promote_types(uint32, int32) with x64.
  auto const mixed = a + jnp::array<std::int32_t>({-1, -1, -1, -1});
  static_assert(std::same_as<jaxcc::value_type_t<decltype(mixed)>, std::int64_t>);
  CHECK(Array<std::int64_t>(mixed).to_vector() == std::vector<std::int64_t>{-1, 0, 2147483647, 4294967294});
  CHECK(jaxcc_test::streamed(a) == "Array([         0,          1, 2147483648, 4294967295], dtype=uint32)");
  CHECK(Array<float>(a.astype<float>()).to_vector() == std::vector<float>{0.f, 1.f, 2147483648.f, 4294967296.f});
  CHECK(jnp::array<float>({-3.f, 1e10f, 7.9f}).astype<u32>().to_vector() == std::vector<u32>{0u, 0xFFFFFFFFu, 7u});
  CHECK(jnp::sum(a).item() == 0x80000000u);  // 1 + (2^32 - 1) wraps to 0, leaving 2^31
}

namespace golden = jaxcc_test::elementwise_nn_golden;

namespace {

template <class T>
golden::Function<T> golden_function(std::string const& name) {
  using F = golden::Function<T>;
  if (name == "logaddexp") return F([](Array<T> const& x, Array<T> const& y) -> Array<T> { return jnp::logaddexp(x, y); });
  if (name == "hypot") return F([](Array<T> const& x, Array<T> const& y) -> Array<T> { return jnp::hypot(x, y); });
  if (name == "arctan2") return F([](Array<T> const& x, Array<T> const& y) -> Array<T> { return jnp::arctan2(x, y); });
  if (name == "erfc") return F([](Array<T> const& x, Array<T> const&) -> Array<T> { return jaxcc::lax::erfc(x); });
  if (name == "isnan") return F([](Array<T> const& x, Array<T> const&) { return Array<bool>(jnp::isnan(x)).astype<T>(); });
  if (name == "isinf") return F([](Array<T> const& x, Array<T> const&) { return Array<bool>(jnp::isinf(x)).astype<T>(); });
  if (name == "isfinite")
    return F([](Array<T> const& x, Array<T> const&) { return Array<bool>(jnp::isfinite(x)).astype<T>(); });
  if (name == "nan_to_num") return F([](Array<T> const& x, Array<T> const&) -> Array<T> { return jnp::nan_to_num(x); });
  if (name == "nan_to_num_given")
    return F([](Array<T> const& x, Array<T> const&) -> Array<T> { return jnp::nan_to_num(x, 1.5, 7.0, -8.0); });
  return {};
}

/// lax.lgamma, lax.digamma and lax.polygamma(1 | 3, x) as golden functions.
template <class T>
golden::Function<T> special_function(std::string const& name) {
  using F = golden::Function<T>;
  if (name == "lgamma") return F([](Array<T> const& x, Array<T> const&) -> Array<T> { return jaxcc::lax::lgamma(x); });
  if (name == "digamma") return F([](Array<T> const& x, Array<T> const&) -> Array<T> { return jaxcc::lax::digamma(x); });
  if (name == "polygamma1")
    return F([](Array<T> const& x, Array<T> const&) -> Array<T> { return jaxcc::lax::polygamma(1, x); });
  if (name == "polygamma3")
    return F([](Array<T> const& x, Array<T> const&) -> Array<T> { return jaxcc::lax::polygamma(3, x); });
  return {};
}

}  // namespace

TEST_CASE("lgamma, digamma, polygamma: JAX's values and derivatives, and check_grads to second order",
          "[elementwise][golden][grad]") {
  int checked = 0;
  for (auto const& c : golden::cases()) {
    // Computed in double and rounded; the float32 cases hold JAX's float64 values (see the generator).
    if (c.bits == 32) {
      if (auto const f = special_function<float>(c.function)) golden::check_case<float>(c, f, 1e-6), ++checked;
    } else {
      if (auto const f = special_function<double>(c.function)) golden::check_case<double>(c, f, 1e-12), ++checked;
    }
  }
  CHECK(checked == 16);
  // By hand: lgamma(1) = lgamma(2) = 0, digamma(1) = -euler_gamma, polygamma(1, 1) = pi^2 / 6.
  auto const ones = Array<double>(jaxcc::lax::lgamma(jnp::array({1.0, 2.0}))).to_vector();
  CHECK(std::abs(ones[0]) < 1e-14);
  CHECK(std::abs(ones[1]) < 1e-14);
  CHECK(Array<double>(jaxcc::lax::digamma(jnp::array(1.0))).item() == Catch::Approx(-0.57721566490153286).epsilon(1e-15));
  CHECK(Array<double>(jaxcc::lax::polygamma(1, jnp::array(1.0))).item() ==
        Catch::Approx(1.6449340668482264).epsilon(1e-14));
  auto const x = jnp::array<double>({-2.5, -0.5, 0.5, 1.5, 3.5, 10.0});
  REQUIRE_NOTHROW(jaxcc::testing::check_grads([](Array<double> const& a) { return Array<double>(jaxcc::lax::lgamma(a)); },
                                              std::tuple{x}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(
      [](Array<double> const& a) { return Array<double>(jaxcc::lax::polygamma(2, a)); }, std::tuple{x}, 2));
}

TEST_CASE("logaddexp, hypot, arctan2, erfc, isnan, isinf, isfinite, nan_to_num: JAX's values and derivatives",
          "[elementwise][golden]") {
  int checked = 0;
  for (auto const& c : golden::cases()) {
    // float32 within 8 ulp of XLA's (its exp, log1p and erfc are not libm's); float64 within 50.
    if (c.bits == 32) {
      if (auto const f = golden_function<float>(c.function)) golden::check_case<float>(c, f, 1e-6), ++checked;
    } else {
      if (auto const f = golden_function<double>(c.function)) golden::check_case<double>(c, f, 1e-14), ++checked;
    }
  }
  CHECK(checked == 26);
}

TEST_CASE("logaddexp, hypot, arctan2 and erfc pass check_grads to second order", "[elementwise][grad]") {
  using jaxcc::testing::check_grads;
  auto const x = jnp::array<double>({1.0, -1.0, 1.0, -1.0, 3.0, 0.5, -20.0, 0.0});
  auto const y = jnp::array<double>({2.0, 2.0, -2.0, -2.0, 4.0, -7.0, 15.0, 0.0});
  CHECK_NOTHROW(check_grads([](Array<double> const& a, Array<double> const& b) { return Array<double>(jnp::logaddexp(a, b)); },
                            std::tuple{x, y}, 2));
  // hypot and arctan2 away from (0, 0), where they are not differentiable.
  auto const x7 = jaxcc::lax::slice(x, {0}, {7}), y7 = jaxcc::lax::slice(y, {0}, {7});
  CHECK_NOTHROW(check_grads([](Array<double> const& a, Array<double> const& b) { return Array<double>(jnp::hypot(a, b)); },
                            std::tuple{x7, y7}, 2));
  CHECK_NOTHROW(check_grads([](Array<double> const& a, Array<double> const& b) { return Array<double>(jnp::arctan2(a, b)); },
                            std::tuple{x7, y7}, 2));
  CHECK_NOTHROW(check_grads([](Array<double> const& a) { return Array<double>(jaxcc::lax::erfc(a)); }, std::tuple{x}, 2));
}

TEST_CASE("the new elementwise functions promote as JAX's and take integers", "[elementwise][dtype]") {
  auto const i32 = jnp::array<std::int32_t>({3, -5, 0});
  auto const i64 = jnp::array<std::int64_t>({3, -5, 0});
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(jnp::logaddexp(i32, 1))>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(jnp::logaddexp(i64, i64))>, double>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(jnp::hypot(i32, 2.5))>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(jnp::arctan2(i32, i64))>, double>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(jnp::isnan(i32))>, bool>);
  // hypot with a scalar leg; 3-4-5 exactly, as JAX.
  CHECK(Array<float>(jnp::hypot(i32, 4)).to_vector() == std::vector<float>{5.f, std::hypot(5.f, 4.f), 4.f});
  CHECK(Array<double>(jnp::arctan2(i64, 1)).to_vector() == std::vector<double>{std::atan2(3.0, 1.0), std::atan2(-5.0, 1.0), 0.0});
  // Integers are never nan or infinite; nan_to_num leaves them be.
  CHECK(Array<bool>(jnp::isnan(i32)).to_vector() == std::vector<bool>{false, false, false});
  CHECK(Array<bool>(jnp::isinf(i32)).to_vector() == std::vector<bool>{false, false, false});
  CHECK(Array<bool>(jnp::isfinite(i32)).to_vector() == std::vector<bool>{true, true, true});
  CHECK(jnp::nan_to_num(i32).to_vector() == i32.to_vector());
}


namespace {

/// Whether jaxcc::lax::cbrt takes an X (lax.cbrt raises for integers).
template <class X>
constexpr bool lax_cbrt_takes = requires(X const& x) { jaxcc::lax::cbrt(x); };

/// "" when every got[i] is std::cbrt(in[i]) (computed here) within 4 ulp,
/// zeros and infinities with their sign and nan as nan; else the first that is not.
template <class T>
std::string cbrt_mismatch(std::vector<T> const& got, std::vector<T> const& in) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    T const want = std::cbrt(in[i]);
    bool const ok = std::isnan(want) ? std::isnan(got[i])
                    : (want == 0 || std::isinf(want))
                        ? got[i] == want && std::signbit(got[i]) == std::signbit(want)
                        : std::abs(got[i] - want) <= 4 * std::numeric_limits<T>::epsilon() * std::abs(want);
    if (!ok) {
      std::ostringstream os;
      os.precision(17);
      os << "element " << i << ", cbrt(" << in[i] << "): " << got[i] << " vs std::cbrt's " << want;
      return os.str();
    }
  }
  return "";
}

}  // namespace

TEMPLATE_TEST_CASE("cbrt is the real cube root: std::cbrt's values, negatives, zeros, infinities, nan, subnormals",
                   "[elementwise][cbrt]", float, double) {
  using T = TestType;
  using limits = std::numeric_limits<T>;
  // The edge values first, so that they fall in the SIMD body at every
  // width (the scalar tail is std::cbrt itself); then a sweep of magnitudes.
  std::vector<T> values{T(-8), T(27), T(0), -T(0), limits::infinity(), -limits::infinity(), limits::quiet_NaN(),
                        limits::denorm_min(), -limits::denorm_min(), T(3) * limits::denorm_min(), limits::min() / T(7),
                        -limits::min() / T(1000), limits::min(), limits::max(), limits::lowest(), T(1e-30), T(-0.125)};
  for (T v : sample<T>(37)) values.push_back(v * T(10));
  for (int e = -40; e <= 40; e += 3) values.push_back(std::pow(T(10), T(e)) * (e % 2 ? T(-1.7) : T(2.3)));
  auto const n = static_cast<std::int64_t>(values.size());
  auto const x = jnp::array(values, Shape{n});
  CHECK(cbrt_mismatch<T>(Array<T>(jnp::cbrt(x)).to_vector(), values) == "");
  CHECK(cbrt_mismatch<T>(Array<T>(jaxcc::lax::cbrt(x)).to_vector(), values) == "");
  // Under jit the row kernels run tile by tile; the same values.
  CHECK(cbrt_mismatch<T>(jaxcc::jit([](Array<T> const& v) { return Array<T>(jnp::cbrt(v)); })(x).to_vector(), values) == "");
  // A negative number has a real cube root (power(x, 1/3) is nan there); a 0-d array is one.
  Array<T> const minus_two = jnp::cbrt(jnp::array(T(-8)));
  CHECK(minus_two.shape() == Shape{});
  CHECK(minus_two.item() == T(-2));
  CHECK(std::isnan(Array<T>(jnp::power(jnp::array(T(-8)), T(1) / T(3))).item()));
}

TEST_CASE("cbrt of integers is float, as jnp.cbrt's; lax::cbrt takes floats only", "[elementwise][cbrt][dtype]") {
  auto const i32 = jnp::array<std::int32_t>({-8, -1, 0, 1, 27, 1000, -343});
  auto const i64 = jnp::array<std::int64_t>({-8, 27});
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(jnp::cbrt(i32))>, float>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(jnp::cbrt(i64))>, double>);
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(jnp::cbrt(jnp::ones<jaxcc::bfloat16>({2})))>, jaxcc::bfloat16>);
  STATIC_REQUIRE(lax_cbrt_takes<Array<float>>);
  STATIC_REQUIRE_FALSE(lax_cbrt_takes<Array<std::int32_t>>);
  auto const got = Array<float>(jnp::cbrt(i32)).to_vector();
  std::vector<float> const want{-2, -1, 0, 1, 3, 10, -7};
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == Catch::Approx(want[i]).epsilon(1e-6));
  // Not == std::cbrt(27.0): g++ folds that constant correctly rounded (3),
  // where the C library's cbrt, which the scalar kernel calls, gives 3 + 1 ulp.
  CHECK(cbrt_mismatch<double>(Array<double>(jnp::cbrt(i64)).to_vector(), {-8.0, 27.0}) == "");
  // bfloat16: computed in float32, rounded once.
  CHECK(static_cast<float>(Array<jaxcc::bfloat16>(jnp::cbrt(jnp::array<jaxcc::bfloat16>({jaxcc::bfloat16(-8.f)}))).item()) == -2.f);
}

TEST_CASE("cbrt's derivative is JAX's 1 / (3 cbrt(x)^2): check_grads, vmap, jit, make_jaxpr, edges",
          "[elementwise][cbrt][grad]") {
  using jaxcc::testing::check_grads;
  auto const f = [](Array<double> const& v) { return Array<double>(jnp::cbrt(v)); };
  auto const x = jnp::array<double>({-27.0, -2.0, -0.3, 0.5, 1.0, 8.0, 40.0});
  // Against finite differences, forward and reverse, to second order.
  CHECK_NOTHROW(check_grads(f, std::tuple{x}, 2));
  // Against the closed form, written here; at 0 the slope is +inf, as JAX's.
  auto const slope = jaxcc::grad([](Array<double> const& v) { return jnp::sum(jnp::cbrt(v)); });
  auto const xs = x.to_vector();
  auto const g = slope(x).to_vector();
  for (std::size_t i = 0; i < xs.size(); ++i) CHECK(g[i] == Catch::Approx(1 / (3 * std::cbrt(xs[i]) * std::cbrt(xs[i]))).epsilon(1e-14));
  auto const at_zero = slope(jnp::array(0.0)).item();
  CHECK((std::isinf(at_zero) && at_zero > 0));
  auto const slope32 = jaxcc::grad([](Array<float> const& v) { return jnp::sum(jnp::cbrt(v)); });
  CHECK(slope32(jnp::array(-8.f)).item() == Catch::Approx(1.f / 12.f).epsilon(1e-6));

  // Batching: vmap of f, of its JVP and of its VJP against loops, along either axis.
  Array<double> const xb = jaxcc_test::smooth({3, 5}) * 4.0 + 0.1;
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0), xb));
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(1), xb));
  // jit against eager, of f and of its gradient; the jaxpr names the primitive as JAX does.
  CHECK_NOTHROW(jaxcc::testing::check_jit(f, xb));
  CHECK_NOTHROW(jaxcc::testing::check_jit(slope, xb));
  CHECK(jaxcc_test::jaxpr_of([](Array<float> const& v) { return Array<float>(jnp::cbrt(v)); }, jnp::ones<float>({3})) ==
        "{ lambda ; a:f32[3]. let b:f32[3] = cbrt a in (b,) }");
  // 0-d and empty inputs, of f, of its gradient and of integers promoted.
  CHECK_NOTHROW(jaxcc::testing::check_edges(f, jaxcc::testing::rand_normal<double>({3, 4})));
  CHECK_NOTHROW(jaxcc::testing::check_edges(slope, jaxcc::testing::rand_normal<double>({3, 4}, 1)));
  CHECK_NOTHROW(jaxcc::testing::check_edges([](Array<std::int32_t> const& v) { return Array<float>(jnp::cbrt(v)); },
                                            jaxcc::testing::rand_like(jnp::zeros<std::int32_t>({2, 3}))));
}

TEST_CASE("cbrt on a sharded array: eager, jit and grad stay split and gather nothing", "[elementwise][cbrt][partition]") {
  using jaxcc::NamedSharding;
  using jaxcc::P;
  using jaxcc::testing::AllClose;
  auto const mesh = jaxcc_test::mesh_of({4}, {"x"});
  Array<double> const x = jaxcc_test::smooth({8, 6}) * 5.0;
  auto const rows = NamedSharding(mesh, P("x"));
  auto const split = jaxcc::device_put(x, rows);
  auto const f = [](Array<double> const& v) { return Array<double>(jnp::cbrt(v)); };
  auto const slope = jaxcc::grad([](Array<double> const& v) { return jnp::sum(jnp::cbrt(v)); });
  jaxcc::debug::GatherLog log;
  auto const eager = f(split);
  CHECK(eager.sharding() == rows);
  REQUIRE_THAT(eager, AllClose(f(x), 1e-15, 0));
  auto const jitted = jaxcc::jit(f)(split);
  CHECK(jitted.sharding() == rows);
  REQUIRE_THAT(jitted, AllClose(f(x), 1e-15, 0));
  auto const grads = jaxcc::jit(slope)(split);
  CHECK(grads.sharding() == rows);
  REQUIRE_THAT(grads, AllClose(slope(x), 1e-15, 0));
  CHECK(log.primitives() == std::vector<std::string>{});
}

}  // namespace test_elementwise
