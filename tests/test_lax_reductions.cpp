// lax's reductions (lax/reductions.hpp: reduce_sum, reduce_prod,
// reduce_max, reduce_min, reduce_and, reduce_or, reduce_xor, reduce with a
// computation, argmax, argmin, cumlogsumexp, reduce_window_shape_tuple) and sorts (lax/sorting.hpp:
// sort of one or several operands, sort_key_val, approx_max_k,
// approx_min_k): against JAX's values (tests/golden/lax_more_cases.py),
// derivatives, batching, jit and JAX's errors.
#include "catch.hpp"

#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "lax_more_golden.hpp"
#include "support.hpp"

namespace test_lax_reductions {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::smooth;
using lax_more_golden::check;
using namespace lax_more_golden;

auto const add_squares = [](Array<float> const& a, Array<float> const& b) { return Array<float>(a + b * b); };
auto const product = [](auto const& a, auto const& b) { return Array<jaxcc::value_type_t<decltype(a)>>(a * b); };

TEST_CASE("lax reductions match JAX", "[lax][reductions]") {
  check("reduce_sum(t, (0, 2))", lax::reduce_sum(t(), {0, 2}));
  check("reduce_prod(m, (1,))", lax::reduce_prod(m(), {1}));
  check("reduce_max(t, (1,))", lax::reduce_max(t(), {1}));
  check("reduce_min(m, (0, 1))", lax::reduce_min(m(), {1, 0}));
  check("reduce_and(b, (1,))", lax::reduce_and(b(), {1}));
  check("reduce_or(b, (0,))", lax::reduce_or(b(), {0}));
  check("reduce_xor(b, (1,))", lax::reduce_xor(b(), {1}));
  check("reduce_xor(iv, (0, 1))", lax::reduce_xor(iv(), {0, 1}));
  check("reduce_and(iv, (1,))", lax::reduce_and(iv(), {1}));
  check("reduce(m, 0.0, add, (1,))", lax::reduce(m(), 0.0f, lax::add, {1}));
  check("reduce(m, 1.0, add, (0,))", lax::reduce(m(), 1.0f, lax::add, {0}));
  check("reduce(m, -inf, max, (1,))", lax::reduce(m(), -std::numeric_limits<float>::infinity(), lax::max, {1}));
  // Not associative: the elements fold into the init value in order, as XLA's reduce on CPU.
  check("reduce(t, 0.0, a + b * b, (0, 2))", lax::reduce(t(), 0.0f, add_squares, {0, 2}));
  auto const am = lax::argmax(m(), 1);
  STATIC_REQUIRE(std::same_as<decltype(am), Array<std::int32_t> const>);
  check("argmax(m, 1, int32)", am);
  check("argmin(t, 0, int32)", lax::argmin(t(), 0));
  CHECK(lax::argmin<std::int64_t>(t(), 0).dtype() == jaxcc::DType::int64);
  check("cumlogsumexp(m, 1)", lax::cumlogsumexp(m(), 1));
  check("cumlogsumexp(m, 0, True)", lax::cumlogsumexp(m(), 0, true));
  check("grad reduce(m, 1.0, a * b, (1,))",
        sin_grad([](Array<float> const& a) { return lax::reduce(a, 1.0f, product, {1}); }, m()));
  check("grad cumlogsumexp(m, 1)", sin_grad([](Array<float> const& a) { return lax::cumlogsumexp(a, 1); }, m()));
  // By hand: an empty reduction is the init value; a rank-0 init array takes derivatives.
  CHECK(lax::reduce(jnp::zeros<float>({0, 3}), 2.0f, add_squares, {0}).to_vector() == std::vector<float>{2, 2, 2});
  auto const g = jaxcc::grad([](Array<double> const& init) {
    return lax::reduce(jnp::array({1.0, 2.0}), init, [](Array<double> const& a, Array<double> const& b) {
      return Array<double>(a * b);
    }, {0});
  })(jnp::array(3.0));
  CHECK(g.item() == 2.0);  // d(init * 1 * 2)/d init
}

TEST_CASE("lax reductions: derivatives, batching, jit", "[lax][reductions][grad][vmap][jit]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  auto const x = smooth({2, 3, 4});
  auto const f = [](Array<double> const& a) {
    auto const mul = [](Array<double> const& p, Array<double> const& q) { return Array<double>(p * q); };
    return Array<double>(lax::reduce(a, 1.0, mul, {2}) + lax::reduce_sum(a, {2}) +
                         lax::cumlogsumexp(lax::reduce_max(a, {2}), 1) + lax::reduce(a, 0.5, lax::add, {2}));
  };
  REQUIRE_NOTHROW(check_grads(f, std::tuple{x}, 2));
  REQUIRE_NOTHROW(check_batching_rule(f, jaxcc::in_axes(2), smooth({2, 3, 3, 4})));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, x));
  auto const ints = [](Array<std::int32_t> const& a) {
    return std::tuple{lax::reduce_xor(a, {1}), lax::argmax(a, 0), lax::argmin<std::int64_t>(a, 1)};
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(ints, jaxcc::in_axes(1), jaxcc_test::sample<std::int32_t>({3, 4, 5}, 7)));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(ints, jaxcc_test::sample<std::int32_t>({3, 4}, 3)));
}

TEST_CASE("lax reductions: JAX's errors", "[lax][reductions][errors]") {
  auto const x = jnp::ones<float>({2, 3});
  CHECK(message_of([&] { lax::reduce_sum(x, {1, 1}); }) == "reduce_sum: duplicate value in 'axes' of reduction: (1, 1)");
  CHECK(message_of([&] { lax::reduce_max(x, {2}); }) ==
        "reduce_max: reduction axes (2,) contains out-of-bounds indices for operand shape (2, 3).");
  CHECK(message_of([&] { lax::argmax(x, -1); }) == "Invalid axis -1 for operand shape (2, 3)");
  CHECK(message_of([&] { lax::argmin(jnp::ones<float>({0, 2}), 0); }) ==
        "argmin: argmin and argmax require non-empty reduced dimension. operand.shape=(0, 2) axis=0");
  CHECK(message_of([&] { lax::cumlogsumexp(x, -1); }) == "XLA operations do not allow negative axes");
  CHECK(message_of([&] { lax::cumlogsumexp(x, 2); }) == "axis 2 is out of bounds for array of shape (2, 3)");
  CHECK(message_of([&] { lax::reduce(x, jnp::ones<float>({2}), lax::add, {0}); }) ==
        "reduce: init_value must be a scalar, got shape (2,)");
}

TEST_CASE("lax::reduce_window_shape_tuple", "[lax][reduce_window]") {
  // By hand (JAX gives the same): dimension 0 is 7 + 1 padding = 8 cells, a
  // window of 2 dilated by 2 spans 3, stride 2: (8 - 3) / 2 + 1 = 3;
  // dimension 1 is 5 dilated by 2 = 9 cells + 2 padding, window 3, stride 1: 9.
  CHECK(lax::reduce_window_shape_tuple({7, 5}, {2, 3}, {2, 1}, {{1, 0}, {0, 2}}, {1, 2}, {2, 1}) == Shape{3, 9});
  CHECK(lax::reduce_window_shape_tuple({4}, {7}, {2}, {{0, 0}}) == Shape{0});  // no window fits
  // It is the shape reduce_window gives.
  auto const x = jnp::ones<float>({5, 6});
  CHECK(lax::reduce_window(x, 0.0f, lax::add, {2, 3}, {2, 2}, {{1, 1}, {0, 1}}).shape() ==
        lax::reduce_window_shape_tuple({5, 6}, {2, 3}, {2, 2}, {{1, 1}, {0, 1}}));
}

TEST_CASE("lax sorts match JAX", "[lax][sorting]") {
  check("sort(m, 0)", lax::sort(m(), 0));
  check("sort((keys, vals), 0, num_keys=1)[1]", std::get<1>(lax::sort(std::tuple{keys(), vals()}, 0)));
  auto const [k1, k2, sorted] = lax::sort(std::tuple{keys(), keys2(), vals()}, 0, true, 2);
  check("sort((keys, keys2, vals), 0, num_keys=2)[1]", k2);
  check("sort((keys, keys2, vals), 0, num_keys=2)[2]", sorted);
  CHECK(k1.to_vector() == std::vector<std::int32_t>{0, 1, 1, 2, 2, 2});
  check("sort_key_val(m, t[0], 0)[1]", std::get<1>(lax::sort_key_val(m(), lax::index_in_dim(t(), 0, 0, false), 0)));
  check("approx_max_k(m, 2)[0]", std::get<0>(lax::approx_max_k(m(), 2)));
  check("approx_max_k(m, 2)[1]", std::get<1>(lax::approx_max_k(m(), 2)));
  check("approx_min_k(m, 2, 0)[0]", std::get<0>(lax::approx_min_k(m(), 2, 0)));
  check("approx_min_k(m, 2, 0)[1]", std::get<1>(lax::approx_min_k(m(), 2, 0)));
  check("grad sort((keys, keys2, vals), 0, num_keys=2)[2]",
        sin_grad([](Array<float> const& x) { return std::get<2>(lax::sort(std::tuple{keys(), keys2(), x}, 0, true, 2)); },
                 vals()));
  // One dtype: a vector, the same order as the tuple form.
  auto const same = lax::sort(std::vector{keys2(), vals()}, -1, true, 2);
  CHECK(same[1].to_vector() == std::get<1>(lax::sort(std::tuple{keys2(), vals()}, 0, true, 2)).to_vector());
}

TEST_CASE("lax sorts: derivatives, batching, jit, errors", "[lax][sorting][grad][vmap][jit][errors]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  auto const f = [](Array<double> const& k, Array<double> const& x) {
    auto const [sk, sx] = lax::sort_key_val(k, x, 0);
    return Array<double>(sk * jnp::sin(sx) + std::get<0>(lax::approx_min_k(x, 2, 0)).at(0).get());
  };
  auto const k = smooth({4, 3}), x = smooth({4, 3}, 0.71, 0.4);
  REQUIRE_NOTHROW(check_grads(f, std::tuple{k, x}, 2));
  REQUIRE_NOTHROW(check_batching_rule(f, jaxcc::in_axes(1, 2), smooth({4, 2, 3}), smooth({4, 3, 2}, 0.71, 0.4)));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, k, x));
  auto const x3 = jnp::ones<float>({2, 3});
  CHECK(message_of([&] { lax::sort(x3, -1, true, 2); }) == "num_keys=2 must equal 1 for a single operand.");
  CHECK(message_of([&] { lax::sort(std::tuple{x3, x3}, -1, true, 3); }) == "num_keys=3 must be between 1 and len(operand)=2");
  CHECK(message_of([&] { lax::sort(std::tuple{x3, jnp::ones<float>({3, 2})}); }) ==
        "Arguments to sort must have equal shapes, got: (2, 3) (3, 2)");
  CHECK(message_of([&] { lax::sort(std::vector<Array<float>>{}); }) == "Sort requires at least one operand");
  CHECK(message_of([&] { lax::approx_max_k(x3, 0); }) == "k must be positive, got 0");
  CHECK(message_of([&] { lax::approx_max_k(x3, 4); }) == "k must be smaller than the size of reduction_dim 3, got 4");
  CHECK(message_of([&] { lax::approx_min_k(jnp::ones<float>({}), 1); }) ==
        "approx_top_k operand must have >= 1 dimension, got ()");
}

}  // namespace test_lax_reductions
