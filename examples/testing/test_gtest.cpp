// softmax_cross_entropy (softmax_xent.hpp) tested with GoogleTest,
// GoogleMock and jaxcc::testing, over several seeds (a value-parameterized
// suite): values against the textbook formulas (reference.hpp) and against
// values worked out by hand, the custom gradient against the formula and
// against finite differences to second order, and the function under vmap
// (its gradient too) and jit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/gtest.hpp>
#include <jaxcc/testing/random_inputs.hpp>

#include <cmath>
#include <cstdint>
#include <tuple>

#include "reference.hpp"
#include "softmax_xent.hpp"

namespace {

namespace jnp = jaxcc::numpy;
namespace jt = jaxcc::testing;  // (`testing` is GoogleTest's)
using jaxcc::Array;
using jt::AllClose;
using softmax_xent::softmax_cross_entropy;

/// Probabilities: uniform draws, normalized per row.
Array<double> probabilities(jaxcc::Shape const& shape, std::uint32_t seed) {
  auto const u = jt::rand_uniform<double>(shape, seed, 0.1, 1.0);
  return u / jnp::sum(u, -1, true);
}

/// 8 examples of 5 classes, drawn from the test's seed.
class SoftmaxCrossEntropy : public ::testing::TestWithParam<std::uint32_t> {
 protected:
  Array<double> logits = jt::rand_normal<double>({8, 5}, GetParam());
  Array<double> labels = probabilities({8, 5}, GetParam() + 1000);
};

TEST_P(SoftmaxCrossEntropy, MatchesTheTextbookFormula) {
  auto const expected = softmax_xent::reference::loss(logits.to_vector(), labels.to_vector(), 5);
  EXPECT_THAT(softmax_cross_entropy(logits, labels), AllClose(jnp::array(expected, {8}), 1e-13, 1e-13));
}

TEST_P(SoftmaxCrossEntropy, GradientIsSoftmaxMinusLabelsTimesTheCotangent) {
  auto const cotangent = jt::rand_normal<double>({8}, GetParam() + 2000);
  auto const [d_logits, d_labels] = jaxcc::vjp(softmax_cross_entropy, logits, labels).second(cotangent);
  auto const expected =
      softmax_xent::reference::loss_grad(logits.to_vector(), labels.to_vector(), cotangent.to_vector(), 5);
  EXPECT_THAT(d_logits, AllClose(jnp::array(expected, {8, 5}), 1e-13, 1e-13));
  EXPECT_ALLCLOSE(d_labels, -jnp::expand_dims(cotangent, -1) * logits);
  // Against finite differences, to second order. A custom_vjp has no
  // forward mode: reverse only.
  EXPECT_PASSES(jt::grads_match(softmax_cross_entropy, std::tuple{logits, labels}, 2, {.fwd = false}));
}

TEST_P(SoftmaxCrossEntropy, BatchesAndJitsAsItRunsEagerly) {
  // One row per example, or the classes-major layout (examples along axis 1).
  EXPECT_PASSES(jt::vmap_matches(softmax_cross_entropy, jaxcc::in_axes(0), logits, labels));
  EXPECT_PASSES(jt::vmap_matches(softmax_cross_entropy, jaxcc::in_axes(1), logits.T(), labels.T()));
  // vmap of the custom_vjp's backward pass too (it has no JVP to batch).
  EXPECT_PASSES(jt::batching_rule_matches(softmax_cross_entropy, jaxcc::in_axes(0), {.fwd = false}, logits, labels));
  EXPECT_PASSES(jt::jit_matches(softmax_cross_entropy, logits, labels));
}

INSTANTIATE_TEST_SUITE_P(Seeds, SoftmaxCrossEntropy, ::testing::Values(0u, 1u, 2u));

TEST(SoftmaxCrossEntropyByHand, LargeLogitsDoNotOverflow) {
  // exp(1000) overflows a double. With label 0, the loss is
  //   log(e^1000 + e^1001 + e^1002) - 1000 = 2 + log(1 + e^-1 + e^-2),
  // taking e^1002 out of the sum; its gradient is softmax = (e^-2, e^-1, 1)
  // / (1 + e^-1 + e^-2) minus the label.
  auto const logits = jnp::array<double>({1000.0, 1001.0, 1002.0});
  auto const one_hot = jnp::array<double>({1.0, 0.0, 0.0});
  auto const d = 1 + std::exp(-1.0) + std::exp(-2.0);
  EXPECT_NEAR(softmax_cross_entropy(logits, one_hot).item(), 2 + std::log(d), 1e-14);
  EXPECT_THAT(jaxcc::grad(softmax_cross_entropy)(logits, one_hot),
              AllClose(jnp::array<double>({std::exp(-2.0) / d - 1, std::exp(-1.0) / d, 1 / d}), 1e-15, 1e-15));
}

TEST(SoftmaxCrossEntropyByHand, EqualLogitsGiveLogOfTheClasses) {
  // softmax is uniform, 1/4 each: the loss is log 4 for any labels that sum
  // to 1 (these do exactly, in binary). exp(-1000) underflows to 0.
  auto const loss = softmax_cross_entropy(jnp::full<double>({4}, -1000.0), jnp::array<double>({0.125, 0.25, 0.125, 0.5}));
  EXPECT_NEAR(loss.item(), std::log(4.0), 1e-15);
}

}  // namespace
