// jnp::array_repr and jnp::array_str (numpy/array_text.hpp) against JAX's
// text (tests/golden/dtype_queries_cases.py): every dtype, 0-d, empty,
// summarized and wrapped arrays; then traced arrays and 0-d array_str, which
// raise as JAX does.
#include "catch.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_array_text {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc_test::message_of;

namespace {

struct TextCase {
  std::string name, repr, str;
};

#include "golden/dtype_queries_cases.inc"

/// The golden's arrays, by name, each printed as (array_repr, array_str or "").
std::map<std::string, std::function<std::pair<std::string, std::string>()>> const& printed() {
  auto const both = [](auto const& x) {
    return std::pair{jnp::array_repr(x), x.ndim() == 0 ? std::string() : jnp::array_str(x)};
  };
  using bf16 = jaxcc::bfloat16;
  static std::map<std::string, std::function<std::pair<std::string, std::string>()>> const all = {
      {"float64 arange(3)", [=] { return both(jnp::arange<double>(3)); }},
      {"int64 arange(3)", [=] { return both(jnp::arange<std::int64_t>(3)); }},
      {"int32 arange(3)", [=] { return both(jnp::arange<std::int32_t>(3)); }},
      {"bool [True, False]", [=] { return both(jnp::array<bool>({true, false})); }},
      {"bool scalar True", [=] { return both(jnp::array(true)); }},
      {"float32 scalar 0.1", [=] { return both(jnp::array(0.1f)); }},
      {"float64 scalar 0.1", [=] { return both(jnp::array(0.1)); }},
      {"bfloat16 [1.5, 2.25, -3]", [=] { return both(jnp::array<bf16>({bf16(1.5), bf16(2.25), bf16(-3)})); }},
      {"bfloat16 scalar 2.5", [=] { return both(jnp::array(bf16(2.5))); }},
      {"bfloat16 arange(24) * 0.140625", [=] { return both(jnp::arange<bf16>(24) * 0.140625); }},
      {"float32 arange(1001)", [=] { return both(jnp::arange<float>(1001)); }},
      {"float16 [1.5, 2]", [=] { return both(jnp::array<jaxcc::float16>({jaxcc::float16(1.5), jaxcc::float16(2)})); }},
      {"int8 scalar 7", [=] { return both(jnp::array(std::int8_t{7})); }},
      {"float32 zeros (0, 3)", [=] { return both(jnp::zeros<float>({0, 3})); }},
      {"float32 zeros (0,)", [=] { return both(jnp::zeros<float>({0})); }},
      {"float64 zeros (0,)", [=] { return both(jnp::zeros<double>({0})); }},
      {"float64 zeros (2, 0)", [=] { return both(jnp::zeros<double>({2, 0})); }},
      {"int32 arange(1200)", [=] { return both(jnp::arange<std::int32_t>(1200)); }},
      {"int64 arange(1200) (2, 600)", [=] { return both(jnp::reshape(jnp::arange<std::int64_t>(1200), {2, 600})); }},
      {"float64 arange(20) (4, 5) * 1.5", [=] { return both(jnp::reshape(jnp::arange<double>(20), {4, 5}) * 1.5); }},
      {"int32 arange(30) * 1000", [=] { return both(jnp::arange<std::int32_t>(30) * 1000); }},
      {"int32 arange(13)", [=] { return both(jnp::arange<std::int32_t>(13)); }},
      {"int8 arange(13)", [=] { return both(jnp::arange<std::int8_t>(13)); }},
      {"float32 [[1e-5, 2], [3, 4e5]]", [=] { return both(jnp::array<float>({{1e-5f, 2.f}, {3.f, 4e5f}})); }},
      {"uint32 [[1, 2], [3, 4]] (2, 2, 1)",
       [=] { return both(jnp::reshape(jnp::array<std::uint32_t>({{1, 2}, {3, 4}}), {2, 2, 1})); }},
  };
  return all;
}

}  // namespace

TEST_CASE("array_repr and array_str are JAX's text", "[array_text][golden]") {
  std::vector<TextCase> const cases = {JAXCC_GOLDEN_ARRAY_TEXT};
  REQUIRE(cases.size() == printed().size());
  for (auto const& c : cases) {
    INFO(c.name);
    auto const [repr, str] = printed().at(c.name)();
    CHECK(repr == c.repr);
    CHECK(str == c.str);
  }
}

TEST_CASE("array_repr and array_str of traced arrays and of 0-d arrays raise as JAX does", "[array_text]") {
  auto const x = jnp::arange<float>(3);
  auto const repr_in_jit = [](Array<float> const& y) {
    (void)jnp::array_repr(y);
    return y;
  };
  auto const str_in_jit = [](Array<float> const& y) {
    (void)jnp::array_str(y * 2.f);
    return y;
  };
  std::string const traced =
      "Abstract tracer value encountered where concrete value is expected: traced array with shape f32[3]\n"
      "The problem arose with `jnp::array_repr`, which needs the array's values; under a transform only its shape "
      "and dtype are known.";
  CHECK(message_of([&] { jaxcc::jit(repr_in_jit)(x); }) == traced);
  CHECK(message_of([&] { jaxcc::vmap(str_in_jit)(jnp::reshape(x, {3, 1})); }).find("`jnp::array_str`") !=
        std::string::npos);
  CHECK(message_of([] { (void)jnp::array_str(jnp::array(1.f)); }) ==
        "array_str: JAX gives no array_str of a 0-d array (numpy's array_str indexes it as an ndarray); use "
        "jnp::array_repr(x) or x.item()");
  // Outside transforms a fused expression prints as its array.
  CHECK(jnp::array_str(x * 2.f) == "[0. 2. 4.]");
}

}  // namespace test_array_text
