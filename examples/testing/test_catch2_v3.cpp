// softmax_cross_entropy (softmax_xent.hpp) tested with Catch2 v3 and
// jaxcc::testing, in float and double (TEMPLATE_TEST_CASE) and over several
// seeds (GENERATE): values against the textbook formulas (reference.hpp)
// and against values worked out by hand, the custom gradient against the
// formula (and, in double, against finite differences to second order),
// and the function under vmap (its gradient too) and jit.
//
// Catch2 v3 from its amalgamated sources, whose .cpp holds the main (CMake:
// JAXCC_CATCH2_V3_DIR).
#include <catch_amalgamated.hpp>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/random_inputs.hpp>

#include <cmath>
#include <concepts>
#include <cstdint>
#include <tuple>
#include <vector>

#include "reference.hpp"
#include "softmax_xent.hpp"

namespace {

namespace jnp = jaxcc::numpy;
namespace testing = jaxcc::testing;
using jaxcc::Array;
using softmax_xent::softmax_cross_entropy;

template <class T>
struct Inputs {
  Array<T> logits, labels;
};

/// `rows` examples of `classes`: logits standard normal, labels
/// probabilities (uniform draws, normalized per row).
template <class T>
Inputs<T> inputs(std::int64_t rows, std::int64_t classes, std::uint32_t seed) {
  auto const u = testing::rand_uniform<T>({rows, classes}, seed + 1000, 0.1, 1.0);
  return {testing::rand_normal<T>({rows, classes}, seed), Array<T>(u / jnp::sum(u, -1, true))};
}

template <class T>
std::vector<double> doubles(Array<T> const& x) {
  auto const v = x.to_vector();
  return {v.begin(), v.end()};
}

/// How closely a result in T can match a reference computed in long double.
template <class T>
constexpr double close = std::same_as<T, float> ? 1e-5 : 1e-13;

/// vmap and jit against eager: float32 sums may round differently once batched.
template <class T>
constexpr testing::Tolerance transform_tolerance =
    std::same_as<T, float> ? testing::Tolerance{1e-5, 1e-6} : testing::Tolerance{};

TEMPLATE_TEST_CASE("softmax_cross_entropy: the textbook formula, row by row", "[softmax_xent]", float, double) {
  auto const seed = GENERATE(0u, 1u, 2u);
  auto const [logits, labels] = inputs<TestType>(8, 5, seed);
  auto const expected = softmax_xent::reference::loss(doubles(logits), doubles(labels), 5);
  REQUIRE_THAT(softmax_cross_entropy(logits, labels).template astype<double>(),
               testing::AllClose(jnp::array(expected, {8}), close<TestType>, close<TestType>));
}

TEMPLATE_TEST_CASE("softmax_cross_entropy: values worked out by hand, where exp overflows", "[softmax_xent]", float,
                   double) {
  using T = TestType;
  // exp(1000) overflows both types. With label 0, the loss is
  //   log(e^1000 + e^1001 + e^1002) - 1000 = 2 + log(1 + e^-1 + e^-2),
  // taking e^1002 out of the sum.
  auto const loss = softmax_cross_entropy(jnp::array<T>({1000, 1001, 1002}), jnp::array<T>({1, 0, 0}));
  REQUIRE_THAT(loss.item(), Catch::Matchers::WithinRel(2 + std::log(1 + std::exp(-1.0) + std::exp(-2.0)), close<T>));
  // Equal logits: softmax is uniform, 1/4 each, and the loss is log 4 for
  // any labels that sum to 1 (these do exactly, in binary).
  auto const uniform = softmax_cross_entropy(jnp::full<T>({4}, -1000), jnp::array<T>({0.125, 0.25, 0.125, 0.5}));
  REQUIRE_THAT(uniform.item(), Catch::Matchers::WithinRel(std::log(4.0), close<T>));
}

TEMPLATE_TEST_CASE("softmax_cross_entropy: the gradient is softmax - labels, times the cotangent",
                   "[softmax_xent][grad]", float, double) {
  using T = TestType;
  auto const seed = GENERATE(0u, 1u, 2u);
  auto const [logits, labels] = inputs<T>(8, 5, seed);
  auto const cotangent = testing::rand_normal<T>({8}, seed + 2000);
  auto const [d_logits, d_labels] = jaxcc::vjp(softmax_cross_entropy, logits, labels).second(cotangent);
  auto const expected = softmax_xent::reference::loss_grad(doubles(logits), doubles(labels), doubles(cotangent), 5);
  REQUIRE_THAT(d_logits.template astype<double>(), testing::AllClose(jnp::array(expected, {8, 5}), close<T>, close<T>));
  REQUIRE_THAT(d_labels, testing::AllClose(-jnp::expand_dims(cotangent, -1) * logits));
  // Finite differences are too coarse in float32 for check_grads'
  // tolerances. A custom_vjp has no forward mode: reverse only.
  if constexpr (std::same_as<T, double>)
    CHECK(testing::grads_match(softmax_cross_entropy, std::tuple{logits, labels}, 2, {.fwd = false}));
}

TEMPLATE_TEST_CASE("softmax_cross_entropy under vmap and jit", "[softmax_xent][vmap][jit]", float, double) {
  using T = TestType;
  auto const seed = GENERATE(0u, 1u, 2u);
  auto const [logits, labels] = inputs<T>(6, 4, seed);
  auto const& tol = transform_tolerance<T>;
  // One row per example, or the classes-major layout (examples along axis 1).
  CHECK(testing::vmap_matches(softmax_cross_entropy, jaxcc::in_axes(0), tol, logits, labels));
  CHECK(testing::vmap_matches(softmax_cross_entropy, jaxcc::in_axes(1), tol, logits.T(), labels.T()));
  // vmap of the custom_vjp's backward pass too (it has no JVP to batch).
  CHECK(testing::batching_rule_matches(softmax_cross_entropy, jaxcc::in_axes(0), {.tolerance = tol, .fwd = false},
                                       logits, labels));
  CHECK(testing::jit_matches(softmax_cross_entropy, tol, logits, labels));
}

}  // namespace
