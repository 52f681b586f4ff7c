// vmap of the elementwise regions, reductions, dot_general / einsum and the
// layout primitives transpose, reshape and broadcast_in_dim. Each batched
// result is compared with the function applied to each example WITHOUT
// vmap (examples cut out with a plain loop, results stacked), for in_axes 0,
// 1, -1 and none, and under grad.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_vmap_linalg {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::none;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc_test::example;

namespace {

/// Distinct values of a shape (a smooth function of the flat index).
Array<float> wave(Shape const& shape, float phase) {
  return jnp::sin(jnp::arange<float>(shape.numel()).reshape(shape) * 0.37f + phase) * 1.5f;
}

/// A batch of `n` examples of `shape` stacked along `axis` (none: one shared example).
Array<float> batch_of(Shape const& shape, std::optional<std::int64_t> axis, std::int64_t n, float phase) {
  if (!axis) return wave(shape, phase);
  Shape batched = shape;
  auto const at = *axis < 0 ? *axis + static_cast<std::int64_t>(shape.size()) + 1 : *axis;
  batched.insert(batched.begin() + at, n);
  return wave(batched, phase);
}

/// Example i of x along `axis`, or x itself when it is not mapped.
Array<float> example_at(Array<float> const& x, std::optional<std::int64_t> axis, std::int64_t i) {
  return axis ? example(x, *axis, i) : x;
}

/// "" when `got` is close to `expected`, else both arrays.
std::string far_from(Array<float> const& got, Array<float> const& expected) {
  if (jaxcc::testing::allclose(got, expected, 1e-5, 1e-5)) return "";
  return "got " + jaxcc_test::streamed(got) + "\nexpected " + jaxcc_test::streamed(expected);
}

template <class Spec>
std::optional<std::int64_t> as_axis(Spec s) {
  if constexpr (std::is_same_v<Spec, jaxcc::none_t>) return std::nullopt;
  else return s;
}

/// vmap(f, in_axes(a, b)) against f on each example pair, stacked: "" when
/// they agree.
template <class F, class A, class B>
std::string binary_mismatch(F f, Shape const& x_shape, A ax, Shape const& y_shape, B ay) {
  constexpr std::int64_t n = 3;
  auto const x = batch_of(x_shape, as_axis(ax), n, 0.1f);
  auto const y = batch_of(y_shape, as_axis(ay), n, 0.7f);
  auto const batched = jaxcc::vmap(f, jaxcc::in_axes(ax, ay))(x, y);
  std::vector<Array<float>> outs;
  for (std::int64_t i = 0; i < n; ++i) outs.push_back(f(example_at(x, as_axis(ax), i), example_at(y, as_axis(ay), i)));
  return far_from(batched, jnp::stack(outs));
}

/// vmap(f, in_axes(a)) for a = 0, 1, -1 against f on each example: "" when
/// they agree.
template <class F>
std::string unary_mismatch(F f, Shape const& shape) {
  for (std::int64_t axis : {0, 1, -1}) {
    auto const x = batch_of(shape, axis, 3, 0.2f);
    auto const batched = jaxcc::vmap(f, jaxcc::in_axes(axis))(x);
    std::vector<Array<float>> outs;
    for (std::int64_t i = 0; i < 3; ++i) outs.push_back(f(example(x, axis, i)));
    if (auto m = far_from(batched, jnp::stack(outs)); !m.empty()) return "in_axes " + std::to_string(axis) + ": " + m;
  }
  return "";
}

}  // namespace

TEST_CASE("vmap of fused elementwise regions with broadcasting operands", "[vmap][elementwise]") {
  auto const f = [](Array<float> const& x, Array<float> const& y) { return Array<float>(jnp::sin(x) * y + x / (1.0f + y * y)); };
  // x (4, 3) with y (3,): y broadcasts along x's leading axis in each example.
  REQUIRE("" == binary_mismatch(f, {4, 3}, 0, {3}, 0));
  REQUIRE("" == binary_mismatch(f, {4, 3}, 1, {3}, none));
  REQUIRE("" == binary_mismatch(f, {4, 3}, -1, {3}, -1));
  REQUIRE("" == binary_mismatch(f, {4, 3}, none, {3}, 0));
  REQUIRE("" == binary_mismatch(f, {4, 3}, 2, {3}, 1));
  auto const g = [](Array<float> const& x, Array<float> const& y) { return Array<float>(jnp::where(x > y, x, y * 2.0f)); };
  REQUIRE("" == binary_mismatch(g, {2, 5}, 1, {2, 5}, 0));
  REQUIRE("" == binary_mismatch(g, {}, 0, {2, 5}, none));
}

TEST_CASE("vmap of reductions over one, several and all axes", "[vmap][reductions]") {
  REQUIRE("" == unary_mismatch([](Array<float> const& x) { return jnp::sum(x, 0); }, {4, 5}));
  REQUIRE("" == unary_mismatch([](Array<float> const& x) { return jnp::max(x, -1); }, {4, 5}));
  REQUIRE("" == unary_mismatch([](Array<float> const& x) { return jnp::min(x); }, {4, 5}));
  REQUIRE("" == unary_mismatch([](Array<float> const& x) { return jnp::prod(x, jaxcc::Axes{0, 2}, true); }, {2, 3, 2}));
  REQUIRE("" == unary_mismatch([](Array<float> const& x) { return jnp::mean(x, 1); }, {2, 3, 2}));
}

TEST_CASE("vmap of dot_general and einsum: one batched product", "[vmap][linalg]") {
  auto const mv = [](Array<float> const& a, Array<float> const& v) { return jnp::dot(a, v); };
  REQUIRE("" == binary_mismatch(mv, {3, 4}, 0, {4}, 0));
  REQUIRE("" == binary_mismatch(mv, {3, 4}, none, {4}, 0));
  REQUIRE("" == binary_mismatch(mv, {3, 4}, 2, {4}, none));
  REQUIRE("" == binary_mismatch(mv, {3, 4}, 1, {4}, -1));
  auto const mm = [](Array<float> const& a, Array<float> const& b) { return jnp::matmul(a, b); };
  REQUIRE("" == binary_mismatch(mm, {2, 3, 4}, 0, {4, 5}, 1));
  REQUIRE("" == binary_mismatch(mm, {2, 3, 4}, -1, {4, 5}, none));
  REQUIRE("" == binary_mismatch(mm, {2, 3, 4}, none, {4, 5}, 2));
  auto const es = [](Array<float> const& a, Array<float> const& b) { return jnp::einsum("ij,kj->ki", a, b); };
  REQUIRE("" == binary_mismatch(es, {3, 4}, 1, {2, 4}, 0));
  REQUIRE("" == binary_mismatch(es, {3, 4}, none, {2, 4}, -1));

  // One dot_general in the batched program whichever operand is mapped.
  for (int which = 0; which < 3; ++which) {
    auto const a = wave({3, 3, 4}, 0.0f), v = wave({3, 4}, 1.0f);
    std::ostringstream os;
    if (which == 0) os << jaxcc::make_jaxpr(jaxcc::vmap(mv))(a, v);
    if (which == 1) os << jaxcc::make_jaxpr(jaxcc::vmap(mv, jaxcc::in_axes(0, none)))(a, wave({4}, 1.0f));
    if (which == 2) os << jaxcc::make_jaxpr(jaxcc::vmap(mv, jaxcc::in_axes(none, 0)))(wave({3, 4}, 0.0f), v);
    auto const text = os.str();
    REQUIRE(text.find("dot_general") != std::string::npos);
    REQUIRE(text.find("dot_general") == text.rfind("dot_general"));
  }
}

TEST_CASE("vmap of transpose, reshape and broadcast_in_dim", "[vmap][layout]") {
  REQUIRE("" == unary_mismatch([](Array<float> const& x) { return jnp::transpose(x); }, {2, 3, 4}));
  REQUIRE("" == unary_mismatch([](Array<float> const& x) { return jnp::transpose(x, {1, 2, 0}); }, {2, 3, 4}));
  REQUIRE("" == unary_mismatch([](Array<float> const& x) { return x.reshape({4, -1}); }, {2, 3, 4}));
  REQUIRE("" == unary_mismatch([](Array<float> const& x) { return jnp::broadcast_to(x, {2, 2, 3, 4}); }, {3, 1}));
  REQUIRE("" == unary_mismatch([](Array<float> const& x) { return lax::broadcast_in_dim(x, {3, 5, 2}, {0, 2}); }, {3, 2}));
}

TEST_CASE("vmap(grad) of a small network equals a loop of grad", "[vmap][grad]") {
  auto const loss = [](Array<float> const& w, Array<float> const& x) {
    return jnp::sum(jnp::tanh(jnp::matmul(x, w)) * jnp::arange<float>(2));
  };
  auto const w = wave({3, 2}, 0.3f);
  auto const xs = wave({4, 3}, 0.9f);
  auto const per_example = jaxcc::vmap(jaxcc::grad(loss), jaxcc::in_axes(none, 0))(w, xs);
  std::vector<Array<float>> expected;
  for (std::int64_t i = 0; i < 4; ++i) expected.push_back(jaxcc::grad(loss)(w, example(xs, 0, i)));
  REQUIRE_THAT(per_example, AllClose(jnp::stack(expected), 1e-5, 1e-6));
  // And the gradient of the summed batch is the sum of per-example gradients.
  auto const total = [&](Array<float> const& wt) { return jnp::sum(jaxcc::vmap(loss, jaxcc::in_axes(none, 0))(wt, xs)); };
  REQUIRE_THAT(jaxcc::grad(total)(w), AllClose(jnp::sum(per_example, 0), 1e-5, 1e-6));
}

}  // namespace test_vmap_linalg
