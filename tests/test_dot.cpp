// lax::dot and lax::batch_matmul (lax/dot.hpp): products by hand, the
// preferred element type, second derivatives, vmap with its derivatives,
// and JAX's errors.
#include "catch.hpp"

#include <cstdint>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"

namespace test_dot {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;

TEST_CASE("lax::dot and lax::batch_matmul: products", "[dot]") {
  auto const a = jnp::array({{1, 2}, {3, 4}});
  auto const v = jnp::array({5, 6});
  // By hand: [[1, 2], [3, 4]]·[5, 6] = [17, 39]; [5, 6]·[5, 6] = 61; a·a = [[7, 10], [15, 22]].
  CHECK(jaxcc_test::as_doubles(lax::dot(a, v)) == std::vector<double>{17, 39});
  CHECK(lax::dot(v, v).item() == 61);
  CHECK(jaxcc_test::as_doubles(lax::dot(a, a)) == std::vector<double>{7, 10, 15, 22});
  CHECK(jaxcc_test::as_doubles(lax::dot(v, a)) == std::vector<double>{23, 34});
  // preferred_element_type: int32 operands, float32 result.
  auto const f = lax::dot<float>(a, v);
  CHECK(f.dtype() == jaxcc::DType::float32);
  CHECK(jaxcc_test::as_doubles(f) == std::vector<double>{17, 39});
  // With dimension numbers: dot_general.
  auto const t = jnp::arange<float>(12).reshape({2, 3, 2});
  CHECK(lax::dot(t, t, lax::DotDimensionNumbers{{2}, {2}, {0}, {0}}).shape() == Shape{2, 3, 3});
  // batch_matmul: each batch's product; [[0, 1], [2, 3]]² = [[2, 3], [6, 11]].
  auto const b = jnp::arange<float>(8).reshape({2, 2, 2});
  auto const p = lax::batch_matmul(b, b);
  CHECK(p.shape() == Shape{2, 2, 2});
  CHECK(jaxcc_test::as_doubles(p)[0] == 2);
  CHECK(jaxcc_test::as_doubles(p)[3] == 11);
  CHECK(jaxcc_test::as_doubles(p) == jaxcc_test::as_doubles(jnp::matmul(b, b)));
}

TEST_CASE("lax::dot and lax::batch_matmul: derivatives, vmap, jit", "[dot][grad][vmap][jit]") {
  using D = Array<double>;
  D const m = jaxcc_test::smooth({3, 4}), w = jaxcc_test::smooth({4, 2}, 0.3);
  auto const d = [](D const& x, D const& y) { return lax::dot(x, y); };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(d, std::tuple{m, w}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(d, jaxcc::in_axes(0, jaxcc::none), jaxcc_test::smooth({2, 3, 4}), w));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(d, m, w));
  auto const bm = [](D const& x, D const& y) { return lax::batch_matmul(x, y); };
  D const xs = jaxcc_test::smooth({2, 3, 4}), ys = jaxcc_test::smooth({2, 4, 2}, 0.7);
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(bm, std::tuple{xs, ys}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(bm, jaxcc::in_axes(0, 0), jaxcc_test::smooth({3, 2, 3, 4}),
                                                      jaxcc_test::smooth({3, 2, 4, 2}, 0.5)));
}

TEST_CASE("dot_general's cotangents come out in their operand's order", "[dot][grad]") {
  // JAX's transpose rule makes an operand's cotangent as g·y (or y·g)
  // contracted over the other's free dims, then transposes it into the
  // operand's order; where the operand's contracting dims come before its
  // free ones (a weight's rows), the product the other way round is already
  // in that order, and whatever reads the cotangent (an SGD update, the next
  // GEMM) reads it dense. check_grads above checks the values.
  using F = Array<float>;
  F const x = jaxcc_test::smooth({6, 4}).astype<float>(), w = jaxcc_test::smooth({4, 3}, 0.3).astype<float>();
  auto const loss = [](F const& x, F const& w) { return F(jnp::sum(jnp::tanh(jnp::matmul(x, w)))); };
  // (Before, w's cotangent was dot_general(g, x) of shape (3, 4) and a
  // transpose by (1, 0).)
  auto const of_w = to_string(jaxcc::make_jaxpr(jaxcc::grad(loss, jaxcc::argnums<1>))(x, w));
  CHECK(jaxcc_test::count(of_w, "transpose") == 0);
  CHECK(jaxcc_test::count(of_w, "f32[4,3] = dot_general[dimension_numbers=(([0], [0]), ([], []))]") == 1);
  // The input's cotangent g·wᵀ is in its order already (its transpose by
  // (0, 1) is JAX's too, and jit drops it); batched, the batch dims lead
  // both ways.
  CHECK(jaxcc_test::count(to_string(jaxcc::make_jaxpr(jaxcc::grad(loss))(x, w)), "transpose[permutation=(1, 0)]") == 0);
  auto const batched = [](F const& x, F const& w) { return F(jnp::sum(jnp::tanh(lax::batch_matmul(x, w)))); };
  F const xs = jaxcc_test::smooth({2, 5, 4}).astype<float>(), ws = jaxcc_test::smooth({2, 4, 3}, 0.7).astype<float>();
  CHECK(jaxcc_test::count(to_string(jaxcc::make_jaxpr(jaxcc::grad(batched, jaxcc::argnums<1>))(xs, ws)), "transpose") == 0);
}

TEST_CASE("lax::dot and lax::batch_matmul: errors", "[dot][errors]") {
  CHECK(message_of([] { lax::dot(jnp::ones<float>({2, 3}), jnp::ones<float>({2})); }) ==
        "jax.lax.dot: dimension_numbers must be specified when not performing simple un-batched matrix-matrix, "
        "matrix-vector, or vector-vector products; got lhs_shape=(2, 3) rhs_shape=(2,)");
  CHECK(message_of([] { lax::dot(jnp::ones<float>({2, 2, 2}), jnp::ones<float>({2})); }) ==
        "jax.lax.dot: dimension_numbers must be specified when not performing simple un-batched matrix-matrix, "
        "matrix-vector, or vector-vector products; got lhs_shape=(2, 2, 2) rhs_shape=(2,)");
  CHECK(message_of([] { lax::batch_matmul(jnp::ones<float>({2}), jnp::ones<float>({2, 2})); }) ==
        "Arguments to batch_matmul must be at least 2D, got 1, 2");
  CHECK(message_of([] { lax::batch_matmul(jnp::ones<float>({2, 2, 2}), jnp::ones<float>({2, 2})); }) ==
        "Arguments to batch_matmul must have same ndim, got 3, 2");
}

}  // namespace test_dot
