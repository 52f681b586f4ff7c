// The Catch2 adapter (testing/catch.hpp) under Catch2 v3, built against its
// amalgamated sources when CMake is given them (JAXCC_CATCH2_V3_DIR; Debian
// ships v2 only, which the rest of the suite uses).
#include <catch_amalgamated.hpp>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

namespace {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::testing::AllClose;

static_assert(CATCH_VERSION_MAJOR == 3);

TEST_CASE("AllClose under Catch2 v3: matches, and describes a mismatch by its worst element") {
  auto const x = jnp::linspace<float>(0.0, 1.0, 4);
  REQUIRE_THAT(Array<float>(x * 2.0f), AllClose(x + x));
  auto const matcher = AllClose(jnp::array({1.0f, 2.0f, 3.0f}));
  REQUIRE_FALSE(matcher.match(jnp::array({1.0f, 2.5f, 3.0f})));
  auto const description = matcher.describe();
  CHECK(description.find("Array([1., 2., 3.], dtype=float32)") != std::string::npos);
  CHECK(description.find("1 of 3 elements differ; the worst, at index (1,): 2.5 vs 2") != std::string::npos);
}

TEST_CASE("the checks under Catch2 v3") {
  auto const x = jnp::linspace<double>(-1.0, 1.0, 5);
  CHECK(jaxcc::testing::jit_matches([](Array<double> const& v) { return jnp::sum(jnp::sin(v)); }, x));
  CHECK(jaxcc::testing::vmap_matches([](Array<double> const& v) { return jnp::sum(v * v); }, jaxcc::in_axes(0),
                                     jnp::reshape(x, {5, 1})));
  CHECK(jaxcc::testing::grads_match([](Array<double> const& v) { return jnp::sum(jnp::sin(v) * v); }, std::tuple{x}, 2));
  auto const failed = jaxcc::testing::CheckResult{"check_jit: something differed"};
  CHECK_FALSE(failed);
  CHECK(Catch::StringMaker<jaxcc::testing::CheckResult>::convert(failed) == "check_jit: something differed");
}

}  // namespace
