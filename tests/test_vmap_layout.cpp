// vmap of the layout, slicing and index-reduction primitives: squeeze,
// concatenate, slice, dynamic_slice, dynamic_update_slice, pad, argmax /
// argmin, stop_gradient, and the jnp / lax / nn functions built on them. Each
// batched result is compared with the function applied to each example
// WITHOUT vmap (examples cut out with a plain loop, results stacked), for
// in_axes 0, 1, -1 and none, on non-contiguous inputs, and under grad.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

namespace test_vmap_layout {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc::testing::AllClose;

namespace {

// Distinct, unsorted values (no ties for argmax).
Array<double> values(Shape const& shape, double scale = 0.73) {
  return jnp::sin(jnp::arange<double>(shape.numel()).reshape(shape) * scale + 0.3) * 2.0;
}

/// Example i of x along `axis` (negative counts from the end), cut out
/// without vmap.
template <jaxcc::Element T>
Array<T> example(Array<T> const& x, std::int64_t i, std::int64_t axis) {
  if (axis < 0) axis += x.ndim();
  Axes start(static_cast<std::size_t>(x.ndim()), 0), limit(x.shape().begin(), x.shape().end());
  start[static_cast<std::size_t>(axis)] = i;
  limit[static_cast<std::size_t>(axis)] = i + 1;
  return lax::squeeze(lax::slice(x, start, limit), {axis});
}

template <jaxcc::Element T>
std::int64_t batch_size(Array<T> const& x, std::int64_t axis) {
  return x.shape()[static_cast<std::size_t>(axis < 0 ? axis + x.ndim() : axis)];
}

/// vmap(f, in_axes(axis))(xs) against f on each example, stacked.
template <class F, jaxcc::Element T>
void check_vmap(F f, Array<T> const& xs, std::int64_t axis) {
  auto const batched = jaxcc::vmap(f, jaxcc::in_axes(axis))(xs);
  std::vector<decltype(f(xs))> outs;
  for (std::int64_t i = 0; i < batch_size(xs, axis); ++i) outs.push_back(f(example(xs, i, axis)));
  REQUIRE_THAT(batched, AllClose(jnp::stack(outs)));
}

/// The same for every in_axes of a rank-3 batch, contiguous or not.
template <class F>
void check_all_axes(F f, Shape const& example_shape) {
  for (std::int64_t axis : {0, 1, -1}) {
    Shape shape = example_shape;
    auto const at = axis < 0 ? static_cast<std::int64_t>(shape.size()) : axis;
    shape.insert(shape.begin() + at, 3);
    CHECK(shape.size() == example_shape.size() + 1);
    check_vmap(f, values(shape), axis);
  }
  // Non-contiguous: a transposed batch, mapped along its first axis.
  Shape shape{3};
  for (auto d : example_shape) shape.push_back(d);
  Shape reversed;
  for (auto d = shape.size(); d-- > 0;) reversed.push_back(shape[d]);
  Axes perm;
  for (auto d = static_cast<std::int64_t>(shape.size()); d-- > 0;) perm.push_back(d);
  check_vmap(f, lax::transpose(values(reversed), perm), 0);
}

}  // namespace

TEST_CASE("vmap of squeeze, expand_dims and the jnp layout functions", "[vmap][layout]") {
  SECTION("lax::squeeze and jnp::squeeze") {
    check_all_axes([](Array<double> const& x) { return lax::squeeze(x, {1}); }, Shape{4, 1, 2});
    check_all_axes([](Array<double> const& x) { return jnp::squeeze(x); }, Shape{1, 4, 1});
    check_all_axes([](Array<double> const& x) { return lax::squeeze(x, {0, 2}); }, Shape{1, 4, 1});
  }
  SECTION("expand_dims, moveaxis, swapaxes, reshape, ravel, broadcast_to") {
    check_all_axes([](Array<double> const& x) { return jnp::expand_dims(x, -1); }, Shape{2, 4});
    check_all_axes([](Array<double> const& x) { return jnp::moveaxis(x, 0, -1); }, Shape{2, 4});
    check_all_axes([](Array<double> const& x) { return jnp::swapaxes(x, 0, 1); }, Shape{2, 4});
    check_all_axes([](Array<double> const& x) { return jnp::ravel(x); }, Shape{2, 4});
    check_all_axes([](Array<double> const& x) { return jnp::broadcast_to(x, Shape{5, 2, 4}); }, Shape{2, 4});
  }
  SECTION("squeeze's mapped axis lands where the squeezed ones were") {
    auto const xs = values(Shape{1, 3, 1, 4});  // examples (1, 1, 4) along axis 1
    auto const out = jaxcc::vmap([](Array<double> const& x) { return lax::squeeze(x, {0, 1}); },
                                 jaxcc::in_axes(1))(xs);
    REQUIRE(out.shape() == Shape{3, 4});
    REQUIRE_THAT(out, AllClose(xs.reshape(Shape{3, 4})));
  }
}

TEST_CASE("vmap of concatenate and stack with mapped and unmapped operands", "[vmap][layout]") {
  auto const a = values(Shape{3, 2, 4});
  auto const b = values(Shape{2, 3, 5}, 0.41);
  auto const c = values(Shape{2, 1});
  auto join = [](Array<double> const& x, Array<double> const& y, Array<double> const& z) {
    return jnp::concatenate({x, y, jnp::broadcast_to(z, Shape{2, 2})}, 1);
  };
  // a mapped along 0, b along 1, c unmapped.
  auto const batched = jaxcc::vmap(join, jaxcc::in_axes(0, 1, jaxcc::none))(a, b, c);
  std::vector<Array<double>> outs;
  for (std::int64_t i = 0; i < 3; ++i) outs.push_back(join(example(a, i, 0), example(b, i, 1), c));
  REQUIRE_THAT(batched, AllClose(jnp::stack(outs)));

  SECTION("only the last operand mapped, along its last axis; stack along a new middle axis") {
    auto const y = values(Shape{2, 4, 3});
    auto f = [](Array<double> const& x, Array<double> const& z) { return jnp::stack({x, z, x}, 1); };
    auto const x = values(Shape{2, 4}, 0.2);
    auto const out = jaxcc::vmap(f, jaxcc::in_axes(jaxcc::none, -1))(x, y);
    std::vector<Array<double>> expected;
    for (std::int64_t i = 0; i < 3; ++i) expected.push_back(f(x, example(y, i, -1)));
    REQUIRE_THAT(out, AllClose(jnp::stack(expected)));
  }
  SECTION("every in_axes, non-contiguous") {
    check_all_axes([](Array<double> const& x) { return jnp::concatenate({x, Array<double>(x * 2.0)}, 0); },
                   Shape{2, 4});
    check_all_axes([](Array<double> const& x) { return jnp::concatenate({x, x}, -1); }, Shape{2, 4});
  }
}

TEST_CASE("vmap of slice", "[vmap][slicing]") {
  check_all_axes([](Array<double> const& x) { return lax::slice(x, {1, 0}, {3, 4}); }, Shape{4, 5});
  check_all_axes([](Array<double> const& x) { return lax::slice(x, {0, 1}, {4, 5}, {2, 3}); }, Shape{4, 5});
  check_all_axes([](Array<double> const& x) { return jnp::split(x, Axes{1, 3}, 1)[1]; }, Shape{4, 5});
  // The mapped axis is kept whole, wherever it is.
  auto const xs = values(Shape{4, 3, 5});
  auto const out = jaxcc::vmap([](Array<double> const& x) { return lax::slice(x, {1, 2}, {3, 5}); },
                               jaxcc::in_axes(1))(xs);
  REQUIRE(out.shape() == Shape{3, 2, 3});
  REQUIRE_THAT(out, AllClose(lax::transpose(lax::slice(xs, {1, 0, 2}, {3, 3, 5}), Axes{1, 0, 2})));
}

TEST_CASE("vmap of dynamic_slice", "[vmap][slicing]") {
  SECTION("unmapped start indices (clamped, negative)") {
    check_all_axes([](Array<double> const& x) { return lax::dynamic_slice(x, {1, 3}, Shape{2, 3}); }, Shape{4, 5});
    check_all_axes([](Array<double> const& x) { return lax::dynamic_slice(x, {-1, 0}, Shape{2, 5}); }, Shape{4, 5});
  }
  auto f = [](Array<double> const& x, Array<std::int32_t> const& i, Array<std::int32_t> const& j) {
    return lax::dynamic_slice(x, {i, j}, Shape{2, 3});
  };
  auto const i = jnp::array<std::int32_t>({0, 3, -1, 1});  // 3 and -1 -> 3: clamped to 2
  auto const j = jnp::array<std::int32_t>({2, 0, 1, 7});
  auto const x0 = values(Shape{4, 5});
  SECTION("mapped starts, unmapped operand") {
    auto const out = jaxcc::vmap(f, jaxcc::in_axes(jaxcc::none, 0, 0))(x0, i, j);
    std::vector<Array<double>> expected;
    for (std::int64_t e = 0; e < 4; ++e) expected.push_back(f(x0, example(i, e, 0), example(j, e, 0)));
    REQUIRE_THAT(out, AllClose(jnp::stack(expected)));
    // Hand-checked: example 1 starts at (2, 0), example 3 at (1, 2).
    REQUIRE_THAT(example(out, 1, 0), AllClose(lax::slice(x0, {2, 0}, {4, 3})));
    REQUIRE_THAT(example(out, 3, 0), AllClose(lax::slice(x0, {1, 2}, {3, 5})));
  }
  SECTION("mapped operand (non-contiguous, axis -1), one mapped start") {
    auto const xs = lax::transpose(values(Shape{4, 4, 5}), Axes{1, 2, 0});  // (4, 5, 4), examples along -1
    auto const j0 = jnp::array<std::int32_t>(1);
    auto const out = jaxcc::vmap(f, jaxcc::in_axes(-1, 0, jaxcc::none))(xs, i, j0);
    std::vector<Array<double>> expected;
    for (std::int64_t e = 0; e < 4; ++e) expected.push_back(f(example(xs, e, -1), example(i, e, 0), j0));
    REQUIRE_THAT(out, AllClose(jnp::stack(expected)));
  }
  SECTION("int64 starts, rank 1, vmap of vmap") {
    auto g = [](Array<double> const& x, Array<std::int64_t> const& s) { return lax::dynamic_slice(x, {s}, Shape{2}); };
    auto const xs = values(Shape{2, 3, 6});
    auto const s = jnp::array<std::int64_t>({{0, 4, 5}, {2, 1, 3}});
    auto const out = jaxcc::vmap(jaxcc::vmap(g))(xs, s);
    REQUIRE(out.shape() == Shape{2, 3, 2});
    for (std::int64_t a = 0; a < 2; ++a)
      for (std::int64_t b = 0; b < 3; ++b)
        REQUIRE_THAT(example(example(out, a, 0), b, 0),
                     AllClose(g(example(example(xs, a, 0), b, 0), example(example(s, a, 0), b, 0))));
  }
}

TEST_CASE("vmap of dynamic_update_slice", "[vmap][slicing]") {
  auto f = [](Array<double> const& x, Array<double> const& u, Array<std::int32_t> const& i,
              Array<std::int32_t> const& j) { return lax::dynamic_update_slice(x, u, {i, j}); };
  auto const xs = values(Shape{3, 4, 5});
  Array<double> const us = values(Shape{2, 3, 3}, 0.29) + 10.0;  // examples along axis 1
  auto const i = jnp::array<std::int32_t>({0, 3, 1});   // 3 is clamped to 2
  auto const j = jnp::array<std::int32_t>({2, -4, 1});  // -4 counts from the end: 1
  auto const i0 = jnp::array<std::int32_t>(1);
  auto const j0 = jnp::array<std::int32_t>(2);
  auto loop = [&](auto const& x_at, auto const& u_at, auto const& i_at, auto const& j_at) {
    std::vector<Array<double>> outs;
    for (std::int64_t e = 0; e < 3; ++e) outs.push_back(f(x_at(e), u_at(e), i_at(e), j_at(e)));
    return jnp::stack(outs);
  };
  auto x_e = [&](std::int64_t e) { return example(xs, e, 0); };
  auto u_e = [&](std::int64_t e) { return example(us, e, 1); };
  auto i_e = [&](std::int64_t e) { return example(i, e, 0); };
  auto j_e = [&](std::int64_t e) { return example(j, e, 0); };
  auto const x0 = example(xs, 0, 0);
  auto const u0 = example(us, 0, 1);
  auto x_same = [&](std::int64_t) { return x0; };
  auto u_same = [&](std::int64_t) { return u0; };
  auto i_same = [&](std::int64_t) { return i0; };
  auto j_same = [&](std::int64_t) { return j0; };

  SECTION("unmapped starts") {
    REQUIRE_THAT(jaxcc::vmap(f, jaxcc::in_axes(0, 1, jaxcc::none, jaxcc::none))(xs, us, i0, j0),
                 AllClose(loop(x_e, u_e, i_same, j_same)));
    REQUIRE_THAT(jaxcc::vmap(f, jaxcc::in_axes(jaxcc::none, 1, jaxcc::none, jaxcc::none))(x0, us, i0, j0),
                 AllClose(loop(x_same, u_e, i_same, j_same)));
    REQUIRE_THAT(jaxcc::vmap(f, jaxcc::in_axes(0, jaxcc::none, jaxcc::none, jaxcc::none))(xs, u0, i0, j0),
                 AllClose(loop(x_e, u_same, i_same, j_same)));
  }
  SECTION("mapped starts") {
    REQUIRE_THAT(jaxcc::vmap(f, jaxcc::in_axes(0, 1, 0, 0))(xs, us, i, j), AllClose(loop(x_e, u_e, i_e, j_e)));
    REQUIRE_THAT(jaxcc::vmap(f, jaxcc::in_axes(jaxcc::none, jaxcc::none, 0, jaxcc::none))(x0, u0, i, j0),
                 AllClose(loop(x_same, u_same, i_e, j_same)));
    REQUIRE_THAT(jaxcc::vmap(f, jaxcc::in_axes(0, jaxcc::none, jaxcc::none, 0))(xs, u0, i0, j),
                 AllClose(loop(x_e, u_same, i_same, j_e)));
  }
  SECTION("an empty update leaves the operand") {
    auto g = [](Array<double> const& x, Array<std::int32_t> const& s) {
      return lax::dynamic_update_slice(x, jnp::zeros<double>(Shape{0}), {s});
    };
    auto const x = values(Shape{2, 4});
    REQUIRE_THAT(jaxcc::vmap(g)(x, jnp::array<std::int32_t>({1, 2})), AllClose(x));
  }
}

TEST_CASE("vmap of pad with mapped and unmapped padding values", "[vmap][pad]") {
  using Config = jaxcc::primitives::pad_p::PaddingConfig;
  Config const config{{1, 2, 1}, {-1, 1, 0}};
  auto f = [&](Array<double> const& x, Array<double> const& v) { return lax::pad(x, v, config); };
  auto const xs = values(Shape{3, 4, 3});  // examples (3, 4) along axis 2
  auto const vs = jnp::array<double>({-1.0, -2.0, -3.0});
  auto const v0 = jnp::array<double>(7.0);
  auto const x0 = values(Shape{3, 4});
  auto check = [&](auto in, auto const& x, auto const& v, auto x_at, auto v_at) {
    std::vector<Array<double>> outs;
    for (std::int64_t e = 0; e < 3; ++e) outs.push_back(f(x_at(e), v_at(e)));
    REQUIRE_THAT(jaxcc::vmap(f, in)(x, v), AllClose(jnp::stack(outs)));
  };
  auto x_e = [&](std::int64_t e) { return example(xs, e, 2); };
  auto v_e = [&](std::int64_t e) { return example(vs, e, 0); };
  check(jaxcc::in_axes(2, jaxcc::none), xs, v0, x_e, [&](std::int64_t) { return v0; });
  check(jaxcc::in_axes(2, 0), xs, vs, x_e, v_e);
  check(jaxcc::in_axes(jaxcc::none, 0), x0, vs, [&](std::int64_t) { return x0; }, v_e);
  // Hand-checked corner: example 1's value fills the padding.
  auto const out = jaxcc::vmap(f, jaxcc::in_axes(jaxcc::none, 0))(x0, vs);
  REQUIRE(out.shape() == Shape{3, 8, 4});
  REQUIRE(example(example(out, 1, 0), 0, 0).to_vector() == std::vector<double>{-2.0, -2.0, -2.0, -2.0});
  SECTION("every in_axes of the operand, non-contiguous") {
    check_all_axes([](Array<double> const& x) { return lax::pad(x, 0.5, {{0, 1, 2}, {2, -1, 0}}); }, Shape{3, 4});
  }
}

TEST_CASE("vmap of argmax, argmin and the jnp reductions built on the primitives", "[vmap][reductions]") {
  check_all_axes([](Array<double> const& x) { return jnp::argmax(x, 1); }, Shape{4, 5});
  check_all_axes([](Array<double> const& x) { return jnp::argmin(x, 0); }, Shape{4, 5});
  check_all_axes([](Array<double> const& x) { return jnp::argmax(x); }, Shape{4, 5});
  check_all_axes([](Array<double> const& x) { return jnp::argmin(x, -1, true); }, Shape{4, 5});
  check_all_axes([](Array<double> const& x) { return jnp::mean(x, 0); }, Shape{4, 5});
  check_all_axes([](Array<double> const& x) { return jnp::var(x, 1); }, Shape{4, 5});
  check_all_axes([](Array<double> const& x) { return jaxcc::nn::logsumexp(x, 1); }, Shape{4, 5});
  check_all_axes([](Array<double> const& x) { return jaxcc::nn::softmax(x); }, Shape{4, 5});
  check_all_axes([](Array<double> const& x) { return jaxcc::nn::log_softmax(x, 0); }, Shape{4, 5});
  auto const out = jaxcc::vmap([](Array<double> const& x) { return jnp::argmax(x, 0); }, jaxcc::in_axes(1))(
      jnp::array<double>({{1.0, 5.0}, {3.0, 2.0}, {2.0, 5.0}}));
  REQUIRE(out.to_vector() == std::vector<std::int32_t>{1, 0});  // the first maximum wins
}

TEST_CASE("vmap of stop_gradient keeps the mapped axis and stops the derivative", "[vmap][grad]") {
  check_all_axes([](Array<double> const& x) { return Array<double>(jaxcc::stop_gradient(x) * x); }, Shape{2, 3});
  auto f = [](Array<double> const& x) { return jnp::sum(jaxcc::stop_gradient(x) * x); };
  auto const xs = values(Shape{2, 3});
  // d/dx sum(sg(x) * x) = sg(x): the examples themselves.
  REQUIRE_THAT(jaxcc::vmap(jaxcc::grad(f), jaxcc::in_axes(1))(xs), AllClose(xs.T()));
}

TEST_CASE("vmap composes with grad through the layout and slicing rules", "[vmap][grad]") {
  // A scalar function of one example touching every rule of this file.
  auto f = [](Array<double> const& x) {
    auto const s = lax::squeeze(lax::slice(x, {0, 1}, {1, 5}), {0});                  // (4,)
    auto const p = lax::pad(s, 0.25, {{1, 1, 1}});                                     // (9,)
    auto const w = lax::dynamic_slice(x, {1, 0}, Shape{2, 5});                         // (2, 5)
    auto const u = lax::dynamic_update_slice(w, jnp::expand_dims(s, 0) * 2.0, {1, 1});  // (2, 5)
    auto const c = jnp::concatenate({jnp::ravel(u), p, jaxcc::stop_gradient(p)}, 0);
    return Array<double>(jnp::sum(jnp::sin(c) * c) + jaxcc::nn::logsumexp(c) + jnp::var(x));
  };
  auto const xs = values(Shape{3, 4, 5});
  std::vector<Array<double>> grads;
  for (std::int64_t e = 0; e < 3; ++e) grads.push_back(jaxcc::grad(f)(example(xs, e, 0)));
  auto const expected = jnp::stack(grads);

  SECTION("vmap(grad(f)) against a loop of grad(f)") {
    REQUIRE_THAT(jaxcc::vmap(jaxcc::grad(f))(xs), AllClose(expected, 1e-9, 1e-12));
    auto const moved = jnp::moveaxis(xs, 0, -1);
    REQUIRE_THAT(jaxcc::vmap(jaxcc::grad(f), jaxcc::in_axes(-1))(moved), AllClose(expected, 1e-9, 1e-12));
  }
  SECTION("grad of a function that calls vmap") {
    auto total = [&](Array<double> const& x) { return jnp::sum(jaxcc::vmap(f)(x)); };
    REQUIRE_THAT(jaxcc::grad(total)(xs), AllClose(expected, 1e-9, 1e-12));
  }
}

TEST_CASE("grad through dynamic slices with mapped start indices", "[vmap][grad][slicing]") {
  auto f = [](Array<double> const& x, Array<std::int32_t> const& i) {
    auto const w = lax::dynamic_slice(x, {i, i}, Shape{2, 2});
    auto const u = lax::dynamic_update_slice(x, jnp::sin(w) * 3.0, {Array<std::int32_t>(i + 1), i});
    return jnp::sum(jnp::sin(u) * u);
  };
  auto const xs = values(Shape{3, 4, 4});
  auto const is = jnp::array<std::int32_t>({0, 2, 1});
  auto grad_f = jaxcc::grad(f);
  std::vector<Array<double>> grads;
  for (std::int64_t e = 0; e < 3; ++e) grads.push_back(grad_f(example(xs, e, 0), example(is, e, 0)));
  auto const expected = jnp::stack(grads);
  REQUIRE_THAT(jaxcc::vmap(grad_f)(xs, is), AllClose(expected, 1e-9, 1e-12));
  auto total = [&](Array<double> const& x) { return jnp::sum(jaxcc::vmap(f)(x, is)); };
  REQUIRE_THAT(jaxcc::grad(total)(xs), AllClose(expected, 1e-9, 1e-12));

  SECTION("one operand shared by the batch: its gradient sums the examples'") {
    auto const x0 = example(xs, 0, 0);
    Array<double> summed = jnp::zeros<double>(x0.shape());
    for (std::int64_t e = 0; e < 3; ++e) summed = summed + grad_f(x0, example(is, e, 0));
    auto shared = [&](Array<double> const& x) {
      return jnp::sum(jaxcc::vmap(f, jaxcc::in_axes(jaxcc::none, 0))(x, is));
    };
    REQUIRE_THAT(jaxcc::grad(shared)(x0), AllClose(summed, 1e-9, 1e-12));
  }
}

}  // namespace test_vmap_layout
