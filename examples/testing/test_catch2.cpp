// softmax_cross_entropy (softmax_xent.hpp) tested with Catch2 v2 and
// jaxcc::testing: values against the textbook formulas (reference.hpp) and
// against values worked out by hand, the custom gradient against the
// formula and against finite differences to second order, and the function
// under vmap (its gradient too) and jit. Inputs are reproducible
// jaxcc::random draws (testing/random_inputs.hpp).
//
// Catch2 v2 as Debian packages it: one header, and this file is the only
// one of the program, so it defines the main.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/random_inputs.hpp>

#include <cmath>
#include <cstdint>
#include <tuple>

#include "reference.hpp"
#include "softmax_xent.hpp"

namespace {

namespace jnp = jaxcc::numpy;
namespace testing = jaxcc::testing;
using jaxcc::Array;
using jaxcc::Shape;
using softmax_xent::softmax_cross_entropy;

struct Inputs {
  Array<double> logits, labels;
};

/// `rows` examples of `classes`: logits standard normal, labels
/// probabilities (uniform draws, normalized per row).
Inputs inputs(std::int64_t rows, std::int64_t classes, std::uint32_t seed) {
  auto const u = testing::rand_uniform<double>({rows, classes}, seed + 1000, 0.1, 1.0);
  return {testing::rand_normal<double>({rows, classes}, seed), Array<double>(u / jnp::sum(u, -1, true))};
}

TEST_CASE("softmax_cross_entropy: the textbook formula, row by row", "[softmax_xent]") {
  auto const [logits, labels] = inputs(8, 5, 1);
  auto const loss = softmax_cross_entropy(logits, labels);
  REQUIRE(loss.shape() == Shape{8});
  auto const expected = softmax_xent::reference::loss(logits.to_vector(), labels.to_vector(), 5);
  REQUIRE_THAT(loss, testing::AllClose(jnp::array(expected, {8}), 1e-13, 1e-13));
}

TEST_CASE("softmax_cross_entropy: values worked out by hand, where exp overflows", "[softmax_xent]") {
  // exp(1000) overflows a double. With label 0, the loss is
  //   log(e^1000 + e^1001 + e^1002) - 1000 = 2 + log(1 + e^-1 + e^-2),
  // taking e^1002 out of the sum.
  auto const high = jnp::array<double>({1000.0, 1001.0, 1002.0});
  auto const one_hot = jnp::array<double>({1.0, 0.0, 0.0});
  CHECK(softmax_cross_entropy(high, one_hot).item() ==
        Approx(2 + std::log(1 + std::exp(-1.0) + std::exp(-2.0))).epsilon(1e-15));
  // Equal logits: softmax is uniform, 1/4 each, and the loss is log 4 for
  // any labels that sum to 1 (these do exactly, in binary). exp(-1000)
  // underflows to 0.
  auto const low = jnp::full<double>({4}, -1000.0);
  CHECK(softmax_cross_entropy(low, jnp::array<double>({0.125, 0.25, 0.125, 0.5})).item() ==
        Approx(std::log(4.0)).epsilon(1e-15));
  // The gradient there: softmax = (e^-2, e^-1, 1) / (1 + e^-1 + e^-2), minus the label.
  auto const d = 1 + std::exp(-1.0) + std::exp(-2.0);
  REQUIRE_THAT(jaxcc::grad(softmax_cross_entropy)(high, one_hot),
               testing::AllClose(jnp::array<double>({std::exp(-2.0) / d - 1, std::exp(-1.0) / d, 1 / d}), 1e-15, 1e-15));
}

TEST_CASE("softmax_cross_entropy: the gradient is softmax - labels, times the cotangent", "[softmax_xent][grad]") {
  auto const [logits, labels] = inputs(8, 5, 2);
  auto const cotangent = testing::rand_normal<double>({8}, 3);
  auto const pullback = jaxcc::vjp(softmax_cross_entropy, logits, labels).second;
  auto const [d_logits, d_labels] = pullback(cotangent);
  auto const expected =
      softmax_xent::reference::loss_grad(logits.to_vector(), labels.to_vector(), cotangent.to_vector(), 5);
  REQUIRE_THAT(d_logits, testing::AllClose(jnp::array(expected, {8, 5}), 1e-13, 1e-13));
  // d loss / d labels = -logits, per row's cotangent.
  REQUIRE_THAT(d_labels, testing::AllClose(-jnp::expand_dims(cotangent, -1) * logits, 1e-15, 1e-15));
  // Against finite differences, to second order (the derivatives of the
  // custom_vjp's backward pass too). A custom_vjp has no forward mode: rev only.
  REQUIRE_NOTHROW(testing::check_grads(softmax_cross_entropy, std::tuple{logits, labels}, 2, {.fwd = false}));
}

TEST_CASE("softmax_cross_entropy under vmap and jit", "[softmax_xent][vmap][jit]") {
  auto const [logits, labels] = inputs(6, 4, 4);
  // One row per example; or the classes-major layout, examples along axis 1;
  // or one label row shared by all examples.
  CHECK(testing::vmap_matches(softmax_cross_entropy, jaxcc::in_axes(0), logits, labels));
  CHECK(testing::vmap_matches(softmax_cross_entropy, jaxcc::in_axes(1), logits.T(), labels.T()));
  auto const shared_labels = testing::rand_uniform<double>({4}, 5);
  CHECK(testing::vmap_matches(softmax_cross_entropy, jaxcc::in_axes(0, jaxcc::none), logits, shared_labels));
  // vmap of the custom_vjp's backward pass too (it has no JVP to batch).
  CHECK(testing::batching_rule_matches(softmax_cross_entropy, jaxcc::in_axes(0), {.fwd = false}, logits, labels));
  CHECK(testing::batching_rule_matches(softmax_cross_entropy, jaxcc::in_axes(1, jaxcc::none), {.fwd = false},
                                       logits.T(), shared_labels));
  CHECK(testing::jit_matches(softmax_cross_entropy, logits, labels));
  CHECK(testing::jit_matches(jaxcc::grad(softmax_cross_entropy), testing::rand_normal<double>({4}, 6),
                             jnp::array<double>({0.0, 1.0, 0.0, 0.0})));
}

}  // namespace
