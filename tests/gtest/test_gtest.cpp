// The GoogleTest and GoogleMock adapters (testing/gtest.hpp): matching
// arrays and passing checks pass; a mismatch fails with both arrays printed
// as JAX prints them and the worst element named (checked through
// gtest-spi, which runs a failing assertion and captures its message).
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/gtest.hpp>

namespace {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::testing::AllClose;

TEST(AllClose, MatchesCloseArraysAndExpressions) {
  auto const x = jnp::linspace<float>(0.0, 1.0, 4);
  EXPECT_THAT(Array<float>(x * 2.0f), AllClose(x + x));
  EXPECT_THAT(x, AllClose(x + 1e-7f, 1e-5, 1e-6));
  EXPECT_ALLCLOSE(x * 2.0f, x + x);
}

TEST(AllClose, AMismatchPrintsBothArraysAndTheWorstElement) {
  EXPECT_NONFATAL_FAILURE(
      EXPECT_THAT(jnp::array({1.0f, 2.5f, 3.0f}), AllClose(jnp::array({1.0f, 2.0f, 3.0f}))),
      "1 of 3 elements differ; the worst, at index (1,): 2.5 vs 2 (difference 0.5");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(jnp::array({1.0f, 2.5f}), AllClose(jnp::array({1.0f, 2.0f}))),
                          "Array([1., 2.], dtype=float32)");
  EXPECT_NONFATAL_FAILURE(EXPECT_ALLCLOSE(jnp::array({1.0, 2.0}), jnp::array({1.0, 3.0})),
                          "the worst, at index (1,): 2 vs 3");
  EXPECT_NONFATAL_FAILURE(EXPECT_ALLCLOSE(jnp::array({1.0, 2.0}), jnp::array({1.0, 3.0})),
                          "Array([1., 3.], dtype=float64)");
  EXPECT_NONFATAL_FAILURE(EXPECT_ALLCLOSE(jnp::zeros<float>({2}), jnp::zeros<float>({3})), "shapes differ: (2,) vs (3,)");
}

TEST(Checks, PassAndFailThroughExpectPasses) {
  auto const x = jnp::linspace<double>(-1.0, 1.0, 5);
  EXPECT_PASSES(jaxcc::testing::jit_matches([](Array<double> const& v) { return jnp::sum(jnp::sin(v)); }, x));
  EXPECT_PASSES(jaxcc::testing::grads_match([](Array<double> const& v) { return jnp::sum(jnp::sin(v) * v); },
                                            std::tuple{x}, 2));
  EXPECT_PASSES(jaxcc::testing::vmap_matches([](Array<double> const& v) { return jnp::sum(v * v); },
                                             jaxcc::in_axes(0), jnp::reshape(x, {5, 1})));
  EXPECT_NONFATAL_FAILURE(EXPECT_PASSES(jaxcc::testing::CheckResult{"check_jit: something differed"}),
                          "check_jit: something differed");
}

}  // namespace
