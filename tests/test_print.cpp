#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_print {

namespace jnp = jaxcc::numpy;
using jaxcc_test::streamed;

namespace {

template <class T>
struct PrintCase {
  std::string name;
  jaxcc::Shape shape;
  std::vector<T> values;
  std::string expected;
};

// Golden strings from numpy, formatted as jax.Array.__repr__ formats them;
// see tests/golden/print_cases.py.
#include "golden/print_cases.inc"

// Each case whose printed array differs from its golden string, with both
// strings; "" when every case matches (and there is at least one).
template <class T>
std::string golden_mismatches(std::vector<PrintCase<T>> const& cases) {
  if (cases.empty()) return "no cases";
  std::string out;
  for (auto const& c : cases) {
    auto const got = jaxcc::to_string(jnp::array(c.values, c.shape));
    if (got != c.expected) out += "case " + c.name + " printed\n" + got + "\nnot\n" + c.expected + "\n";
  }
  return out;
}

template <class T>
std::string golden(std::vector<PrintCase<T>> const& cases, std::string const& name) {
  for (auto const& c : cases)
    if (c.name == name) return c.expected;
  FAIL("no golden case " << name);
  return {};
}

}  // namespace

TEST_CASE("print: golden strings from numpy match for every dtype") {
  SECTION("float32") { CHECK(golden_mismatches(float32_print_cases) == ""); }
  SECTION("float64") { CHECK(golden_mismatches(float64_print_cases) == ""); }
  SECTION("int32") { CHECK(golden_mismatches(int32_print_cases) == ""); }
  SECTION("int64") { CHECK(golden_mismatches(int64_print_cases) == ""); }
  SECTION("bool") { CHECK(golden_mismatches(bool_print_cases) == ""); }
  SECTION("complex64") { CHECK(golden_mismatches(complex64_print_cases) == ""); }
  SECTION("complex128") { CHECK(golden_mismatches(complex128_print_cases) == ""); }
}

TEST_CASE("print: hand-written reprs") {
  // The API contract's example: two columns padded to the widest integer
  // part (" 3.5" ... "11.5"), continuation lines under the first "[".
  auto x = jnp::array({{3.5f, 6.5f}, {2.5f, 5.5f}, {6.5f, 11.5f}});
  CHECK(streamed(x) ==
        "Array([[ 3.5,  6.5],\n"
        "       [ 2.5,  5.5],\n"
        "       [ 6.5, 11.5]], dtype=float32)");
  CHECK(jaxcc::to_string(x) == streamed(x));

  CHECK(streamed(jnp::array({1, 2, 3})) == "Array([1, 2, 3], dtype=int32)");
  CHECK(streamed(jnp::array({std::int64_t{-4}, std::int64_t{50}})) == "Array([-4, 50], dtype=int64)");
  // " True" is padded to the width of "False", except in a 0-d array.
  CHECK(streamed(jnp::array({true, false})) == "Array([ True, False], dtype=bool)");
  CHECK(streamed(jnp::array(true)) == "Array(True, dtype=bool)");
  // Whole floats keep a trailing "."; float64 names its dtype.
  CHECK(streamed(jnp::array(1.0f)) == "Array(1., dtype=float32)");
  CHECK(streamed(jnp::array({0.5, -2.0})) == "Array([ 0.5, -2. ], dtype=float64)");
  // 0.1f is shortest as "0.1" among float32 values; as a double it is not.
  CHECK(streamed(jnp::array({0.1f})) == "Array([0.1], dtype=float32)");
  // As a float64, 0.1f needs 17 digits to round-trip, but numpy stops at 8
  // fraction digits and rounds: 0.10000000|149... prints as 0.1.
  CHECK(streamed(jnp::array({static_cast<double>(0.1f)})) == "Array([0.1], dtype=float64)");
  // Empty arrays print their shape (JAX's repr, not numpy's "[]").
  CHECK(streamed(jnp::zeros<float>(jaxcc::Shape{0, 3})) == "Array([], shape=(0, 3), dtype=float32)");
  CHECK(streamed(jaxcc::Array<float>()) == "Array([], shape=(0,), dtype=float32)");
  // Non-finite values and -0.0 share the column layout.
  CHECK(streamed(jnp::array({-0.0f, NAN, -INFINITY, 2.5f})) == "Array([-0. ,  nan, -inf,  2.5], dtype=float32)");
}

TEST_CASE("print: non-contiguous views print their logical order") {
  SECTION("transpose of a small matrix") {
    // [[1, 2, 3], [4, 5, 6]] transposed is [[1, 4], [2, 5], [3, 6]].
    auto x = jnp::array({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}}).T();
    REQUIRE(!x.is_contiguous());
    CHECK(streamed(x) ==
          "Array([[1., 4.],\n"
          "       [2., 5.],\n"
          "       [3., 6.]], dtype=float32)");
  }
  SECTION("transposed and summarized") {
    auto x = jnp::arange<std::int32_t>(2000).reshape({40, 50}).T();
    REQUIRE(!x.is_contiguous());
    CHECK(streamed(x) == golden(int32_print_cases, "int32_40x50_transposed"));
  }
  SECTION("transposed rank 3") {
    jaxcc::Array<double> x = jnp::arange<double>(24).reshape({2, 3, 4}) / 8.0 - 1.0;
    CHECK(streamed(x.T()) == golden(float64_print_cases, "float64_2x3x4_transposed"));
  }
  SECTION("broadcast view with a zero stride") {
    // Row [7, 8] repeated three times without copying.
    auto row = jnp::array({7, 8});
    auto x = jaxcc::detail::view(row, jaxcc::Shape{3, 2}, jaxcc::Strides{0, 1}, jaxcc::detail::offset_of(row));
    CHECK(streamed(x) ==
          "Array([[7, 8],\n"
          "       [7, 8],\n"
          "       [7, 8]], dtype=int32)");
  }
}

TEST_CASE("print: fused expressions print the array they evaluate to") {
  auto a = jnp::array({1.f, 2.f});
  auto b = jnp::array({3.f, 4.5f});
  CHECK(streamed(a + b) == "Array([4. , 6.5], dtype=float32)");
  CHECK(jaxcc::to_string(a * 2.0f - b) == "Array([-1. , -0.5], dtype=float32)");
  // Comparisons are expressions too and print as bool arrays.
  CHECK(streamed(a < b) == "Array([ True,  True], dtype=bool)");
}

}  // namespace test_print
