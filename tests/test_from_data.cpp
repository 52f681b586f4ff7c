// jnp::frombuffer, fromstring, fromfile and fromiter (numpy/from_data.hpp)
// against JAX's and numpy's arrays (tests/golden/dtype_queries_cases.py):
// every dtype, counts and offsets, numpy's separator rules; fromfile reads the
// same bytes and texts from a file; then the errors.
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <list>
#include <set>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_from_data {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::DType;
using jaxcc_test::message_of;

namespace {

struct BufferCase {
  std::string dtype;
  std::int64_t count, offset;
  std::vector<double> values;
};
struct TextCase {
  std::string dtype, text, sep;
  std::int64_t count;
  std::vector<double> values;
};
struct UnmatchedCase {
  std::string dtype, text, sep;
};
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

#include "golden/dtype_queries_cases.inc"

/// The golden's buffer: bytes 0..15, then four 0xff.
std::vector<std::uint8_t> buffer() {
  std::vector<std::uint8_t> b;
  for (int i = 0; i < 16; ++i) b.push_back(static_cast<std::uint8_t>(i));
  b.insert(b.end(), 4, 0xff);
  return b;
}

DType dtype_named(std::string const& name) {
  for (auto d : {DType::bool_, DType::int8, DType::int16, DType::int32, DType::int64, DType::uint8, DType::uint32,
                 DType::bfloat16, DType::float16, DType::float32, DType::float64})
    if (jaxcc::name(d) == name) return d;
  FAIL("no dtype " << name);
  return DType::bool_;
}

/// f.template operator()<T>() for the element type T named `dtype`, whose
/// array is checked against `expected` (NaN equal to NaN).
template <class F>
void check_values(std::string const& dtype, std::vector<double> const& expected, F const& f) {
  jaxcc::detail::with_element_type(dtype_named(dtype), [&](auto t) {
    using T = typename decltype(t)::type;
    if constexpr (jaxcc::ComplexElement<T>) {  // the golden cases name real dtypes only
      FAIL("no complex cases here: " << dtype);
    } else {
      Array<T> const x = f.template operator()<T>();
      CHECK(x.dtype() == dtype_named(dtype));
      REQUIRE(x.shape() == jaxcc::Shape{static_cast<std::int64_t>(expected.size())});
      auto const got = x.to_vector();
      for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("element " << i);
        auto const v = static_cast<double>(got[i]);
        CHECK((v == expected[i] || (std::isnan(v) && std::isnan(expected[i]))));
      }
    }
  });
}

/// A file holding `bytes`, removed when it goes.
struct TempFile {
  std::string path;
  explicit TempFile(std::string const& bytes, std::string const& name) : path("/tmp/jaxcc_test_from_data_" + name) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  ~TempFile() { std::remove(path.c_str()); }
};

}  // namespace

TEST_CASE("frombuffer is jnp.frombuffer, and fromfile reads the same bytes", "[from_data][golden]") {
  std::vector<BufferCase> const cases = {JAXCC_GOLDEN_FROMBUFFER};
  auto const bytes = buffer();
  TempFile const file(std::string(bytes.begin(), bytes.end()), "binary");
  for (auto const& c : cases) {
    INFO(c.dtype << " count " << c.count << " offset " << c.offset);
    check_values(c.dtype, c.values, [&]<class T>() { return jnp::frombuffer<T>(bytes, c.count, c.offset); });
    check_values(c.dtype, c.values, [&]<class T>() { return jnp::fromfile<T>(file.path, c.count, "", c.offset); });
  }
  // Other byte ranges: std::string, std::byte, a string literal (without its null).
  CHECK(jnp::frombuffer<std::uint8_t>(std::string("\x01\x02")).to_vector() == std::vector<std::uint8_t>{1, 2});
  std::vector<std::byte> const b = {std::byte{3}, std::byte{4}};
  CHECK(jnp::frombuffer<std::int8_t>(b).to_vector() == std::vector<std::int8_t>{3, 4});
  CHECK(jnp::frombuffer<std::uint8_t>("ab").to_vector() == std::vector<std::uint8_t>{'a', 'b'});
  CHECK(jnp::frombuffer(bytes, 1).dtype() == DType::float32);  // JAX's float, 32-bit
}

TEST_CASE("fromstring is jnp.fromstring, and fromfile reads the same texts", "[from_data][golden]") {
  std::vector<TextCase> const cases = {JAXCC_GOLDEN_FROMSTRING};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto const& c = cases[i];
    INFO(c.dtype << " '" << c.text << "' sep '" << c.sep << "' count " << c.count);
    check_values(c.dtype, c.values, [&]<class T>() { return jnp::fromstring<T>(c.text, c.count, c.sep); });
    TempFile const file(c.text, "text" + std::to_string(i));
    check_values(c.dtype, c.values, [&]<class T>() { return jnp::fromfile<T>(file.path, c.count, c.sep); });
  }
  CHECK(jnp::fromstring("1 2", " ").dtype() == DType::float32);
  std::vector<UnmatchedCase> const unmatched = {JAXCC_GOLDEN_FROMSTRING_UNMATCHED};
  for (auto const& c : unmatched) {
    INFO(c.dtype << " '" << c.text << "' sep '" << c.sep << "'");
    jaxcc::detail::with_element_type(dtype_named(c.dtype), [&](auto t) {
      using T = typename decltype(t)::type;
      CHECK(message_of([&] {
              jnp::fromstring<T>(c.text, c.sep);
            }).starts_with("fromstring: string or file could not be read to its end due to unmatched data"));
    });
  }
}

TEST_CASE("fromiter reads a C++ range, as np.fromiter an iterable", "[from_data]") {
  std::vector<double> const values = {0.5, 1.5, -2.25, 4};
  CHECK(jnp::fromiter<float>(values).to_vector() == std::vector<float>{0.5f, 1.5f, -2.25f, 4.f});
  CHECK(jnp::fromiter<std::int32_t>(std::list<int>{4, 5, 6, 7}, 3).to_vector() == std::vector<std::int32_t>{4, 5, 6});
  CHECK(jnp::fromiter<std::uint8_t>(std::set<int>{9, 1, 5}).to_vector() == std::vector<std::uint8_t>{1, 5, 9});
  CHECK(jnp::fromiter<std::int32_t>(std::vector<int>{}).shape() == jaxcc::Shape{0});
  CHECK(message_of([] {
          jnp::fromiter<std::int32_t>(std::list<int>{0, 1, 2, 3, 4}, 7);
        }) == "fromiter: iterator too short: Expected 7 but iterator had only 5 items.");
}

TEST_CASE("frombuffer, fromstring and fromfile raise numpy's errors", "[from_data]") {
  auto const bytes = buffer();  // 20 bytes
  CHECK(message_of([&] { jnp::frombuffer<std::int32_t>(bytes, -1, 2); }) ==
        "frombuffer: buffer size must be a multiple of element size: 18 bytes after the offset, 4 per int32");
  CHECK(message_of([&] { jnp::frombuffer<std::int16_t>(bytes, 11); }) ==
        "frombuffer: buffer is smaller than requested size: 11 int16 elements need 22 bytes, 20 are left after the "
        "offset");
  CHECK(message_of([&] { jnp::frombuffer<std::int16_t>(bytes, -1, 21); }) ==
        "frombuffer: offset must be non-negative and no greater than buffer length (20), got 21");
  CHECK(message_of([&] { jnp::frombuffer<std::int16_t>(bytes, -1, -1); }) ==
        "frombuffer: offset must be non-negative and no greater than buffer length (20), got -1");
  CHECK(message_of([] { jnp::fromstring<std::int32_t>("1 2", ""); }) ==
        "fromstring: the binary mode of fromstring is removed (sep is empty); use frombuffer");
  CHECK(message_of([] {
          jnp::fromstring<jaxcc::bfloat16>("1.5", " ");
        }).starts_with("fromstring: don't know how to read character strings with that array type"));
  CHECK(message_of([] { jnp::fromstring<std::int32_t>("1 2 3", 5, " "); }) ==
        "fromstring: string is smaller than requested size: 5 elements requested, 3 read");
  CHECK(message_of([] { jnp::fromstring<std::int32_t>("1 x", " "); }) ==
        "fromstring: string or file could not be read to its end due to unmatched data (at offset 2 with separator "
        "' ')");
  CHECK(message_of([] { jnp::fromfile<float>("/nonexistent/jaxcc.bin"); }) ==
        "fromfile: cannot open '/nonexistent/jaxcc.bin': No such file or directory");
  TempFile const file("1 2 3\n4", "errors");
  CHECK(message_of([&] { jnp::fromfile<std::int32_t>(file.path, -1, " ", 2); }) ==
        "fromfile: 'offset' argument only permitted for binary files");
  CHECK(message_of([&] { jnp::fromfile<std::int32_t>(file.path, -1, "", -1); }) ==
        "fromfile: offset must be non-negative, got -1");
  CHECK(message_of([&] { jnp::fromfile<std::int32_t>(file.path, -1, "", 8); }) ==
        "fromfile: offset 8 is past the end of '" + file.path + "' (7 bytes)");
  // np.fromfile's text mode reads the elements there are, fewer than count;
  // its binary mode the whole elements there are.
  CHECK(jnp::fromfile<std::int32_t>(file.path, 6, " ").to_vector() == std::vector<std::int32_t>{1, 2, 3, 4});
  CHECK(jnp::fromfile<std::int16_t>(file.path).shape() == jaxcc::Shape{3});
}

TEST_CASE("arrays made from data are constants under jit", "[from_data][jit]") {
  auto const bytes = buffer();
  auto const f = [&](Array<std::int16_t> const& x) -> Array<std::int16_t> {
    return x + jnp::frombuffer<std::int16_t>(bytes, 2);
  };
  auto const x = jnp::frombuffer<std::int16_t>(bytes, 2, 4);
  CHECK(jaxcc::jit(f)(x).to_vector() == f(x).to_vector());
}

}  // namespace test_from_data
