// jnp rearranging functions (numpy/rearrange.hpp): flip, fliplr, flipud,
// roll, tile, repeat; and meshgrid (numpy/creation.hpp). Expected values come
// from index formulas evaluated by plain loops (`over`), or are JAX's own
// docstring examples where marked; every error message is checked. One block
// checks grads (order 2), vmap against a loop and jit of a function built
// from all of them.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "shape_golden.hpp"
#include "support.hpp"

namespace test_rearrange {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::over;
using jaxcc_test::require_values;
using jaxcc_test::values;

namespace {

using Idx = std::vector<std::int64_t>;

/// The index's digits read as a decimal number: digit({1, 2, 3}) = 123.
double digit(Idx const& i) {
  double v = 0;
  for (auto k : i) v = 10 * v + static_cast<double>(k);
  return v;
}

Array<double> digits(Shape const& shape) { return jnp::array(over(shape, digit), shape); }

std::int64_t mod(std::int64_t a, std::int64_t n) { return ((a % n) + n) % n; }

}  // namespace

TEST_CASE("flip, fliplr, flipud: listed, negative and all axes; strided, int32 and bool", "[rearrange][flip]") {
  auto const x = digits({2, 3, 4});
  require_values(jnp::flip(x, {0, -1}), {2, 3, 4}, [](Idx i) { return digit({1 - i[0], i[1], 3 - i[2]}); });
  require_values(jnp::flip(x, -2), {2, 3, 4}, [](Idx i) { return digit({i[0], 2 - i[1], i[2]}); });
  require_values(jnp::flip(x), {2, 3, 4}, [](Idx i) { return digit({1 - i[0], 2 - i[1], 3 - i[2]}); });
  require_values(jnp::flipud(x * 1.0), {2, 3, 4}, [](Idx i) { return digit({1 - i[0], i[1], i[2]}); });
  // A transposed view: xt[i, j] = digit(j, i).
  Array<double> const xt = digits({3, 2}).T();
  require_values(jnp::fliplr(xt), {2, 3}, [](Idx i) { return digit({2 - i[1], i[0]}); });
  REQUIRE(jnp::flip(jnp::array(2.5)).item() == 2.5);
  // JAX's docstring: jnp.fliplr([[1, 2], [3, 4]]) is [[2, 1], [4, 3]].
  REQUIRE(jnp::fliplr(jnp::array<std::int32_t>({{1, 2}, {3, 4}})).to_vector() == values<std::int32_t>({2, 1, 4, 3}));
  REQUIRE(jnp::flipud(jnp::array({true, false, false})).to_vector() == values<bool>({false, false, true}));

  REQUIRE(message_of([&] { jnp::flip(x, 3); }) == "flip: axis 3 is out of bounds for array of dimension 3");
  REQUIRE(message_of([&] { jnp::flip(x, {0, -3}); }) == "rev dimensions must be unique, got (0, 0).");
  REQUIRE(message_of([] { jnp::fliplr(jnp::zeros<double>(3)); }) ==
          "fliplr: axis 1 is out of bounds for array of dimension 1");
}

TEST_CASE("roll: one or several axes, negative and large shifts, flattened; strided and int32", "[rearrange][roll]") {
  auto const x = digits({2, 3, 4});
  require_values(jnp::roll(x, -7, -1), {2, 3, 4}, [](Idx i) { return digit({i[0], i[1], mod(i[2] + 7, 4)}); });
  // One shift for two axes; two shifts applied in turn to one axis (3 in all).
  require_values(jnp::roll(x, 1, {0, 2}), {2, 3, 4},
                 [](Idx i) { return digit({mod(i[0] - 1, 2), i[1], mod(i[2] - 1, 4)}); });
  require_values(jnp::roll(x, {1, 2}, 1), {2, 3, 4}, [](Idx i) { return digit({i[0], mod(i[1] - 3, 3), i[2]}); });
  require_values(jnp::roll(x, {5, -1}, {0, 1}), {2, 3, 4},
                 [](Idx i) { return digit({mod(i[0] - 5, 2), mod(i[1] + 1, 3), i[2]}); });
  // Flattened: element f of the result is element (f - 9) mod 24 of x read row-major.
  require_values(jnp::roll(x, 9), {2, 3, 4}, [](Idx i) {
    auto const f = mod(i[0] * 12 + i[1] * 4 + i[2] - 9, 24);
    return digit({f / 12, f / 4 % 3, f % 4});
  });
  // A transposed view xt[i, j] = digit(j, i), flattened row-major: f -> (f / 3, f % 3).
  Array<double> const xt = digits({3, 2}).T();
  require_values(jnp::roll(xt, Axes{-1}), {2, 3}, [](Idx i) {
    auto const f = mod(i[0] * 3 + i[1] + 1, 6);
    return digit({f % 3, f / 3});
  });
  REQUIRE(jnp::roll(jnp::zeros<double>({2, 0}), 3, 1).shape() == Shape{2, 0});
  // JAX's docstring: jnp.roll(jnp.array([0, 1, 2, 3, 4, 5]), 2) is [4, 5, 0, 1, 2, 3].
  REQUIRE(jnp::roll(jnp::arange<std::int32_t>(6), 2).to_vector() == values<std::int32_t>({4, 5, 0, 1, 2, 3}));

  REQUIRE(message_of([&] { jnp::roll(x, {1, 2, 3}, {0, 1}); }) ==
          "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape "
          "(2,) and arg 1 with shape (3,).");
  REQUIRE(message_of([&] { jnp::roll(x, 1, 3); }) == "roll: axis 3 is out of bounds for array of dimension 3");
}

TEST_CASE("tile: reps shorter, equal and longer than ndim; strided input", "[rearrange][tile]") {
  auto const x = digits({2, 3});
  require_values(jnp::tile(x, {2, 2}), {4, 6}, [](Idx i) { return digit({i[0] % 2, i[1] % 3}); });
  require_values(jnp::tile(x, 2), {2, 6}, [](Idx i) { return digit({i[0], i[1] % 3}); });
  require_values(jnp::tile(digits({3}), {2, 1, 2}), {2, 1, 6}, [](Idx i) { return digit({i[2] % 3}); });
  Array<double> const xt = digits({3, 2}).T();  // xt[i, j] = digit(j, i)
  require_values(jnp::tile(xt, {1, 2}), {2, 6}, [](Idx i) { return digit({i[1] % 3, i[0]}); });
  REQUIRE(jnp::tile(x, {0, 1}).shape() == Shape{0, 3});
  REQUIRE(message_of([&] { jnp::tile(x, {2, -1}); }) == "tile: reps must be nonnegative, got (2, -1)");
}

TEST_CASE("repeat: one count, per-element counts, flattened; strided input", "[rearrange][repeat]") {
  auto const x = digits({2, 3});
  require_values(jnp::repeat(x, 2, 1), {2, 6}, [](Idx i) { return digit({i[0], i[1] / 2}); });
  require_values(jnp::repeat(x, 2), {12}, [](Idx i) { return digit({i[0] / 2 / 3, i[0] / 2 % 3}); });
  // Columns [0, 2, 2] (counts 1, 0, 2); rows [0, 0, 0, 1] (counts 3, 1).
  require_values(jnp::repeat(x, {1, 0, 2}, -1), {2, 3}, [](Idx i) { return digit({i[0], i[1] == 0 ? 0 : 2}); });
  require_values(jnp::repeat(x, std::vector<int>{3, 1}, 0), {4, 3},
                 [](Idx i) { return digit({i[0] < 3 ? 0 : 1, i[1]}); });
  require_values(jnp::repeat(x, Axes{2}, jaxcc::none), {12}, [](Idx i) { return digit({i[0] / 6, i[0] / 2 % 3}); });
  Array<double> const xt = digits({3, 2}).T();  // xt[i, j] = digit(j, i)
  require_values(jnp::repeat(xt, 2, 0), {4, 3}, [](Idx i) { return digit({i[1], i[0] / 2}); });
  REQUIRE(jnp::repeat(x, {0, 0, 0}, 1).shape() == Shape{2, 0});

  REQUIRE(message_of([&] { jnp::repeat(x, {1, 2}, 1); }) ==
          "operands could not be broadcast together with remapped shapes [original->remapped]: (2,)  and "
          "requested shape (3,)");
  REQUIRE(message_of([&] { jnp::repeat(x, -1, 0); }) == "repeat: repeats may not contain negative values, got -1");
  REQUIRE(message_of([&] { jnp::repeat(x, {1, -1, 0}, 1); }) ==
          "repeat: repeats may not contain negative values, got (1, -1, 0)");
  REQUIRE(message_of([&] { jnp::repeat(x, 2, 2); }) == "repeat: axis 2 is out of bounds for array of dimension 2");
}

TEST_CASE("meshgrid: xy and ij indexing, three inputs, variadic and list calls", "[rearrange][meshgrid]") {
  auto const x = jnp::array({1.0, 2.0, 3.0});
  auto const y = jnp::array({10.0, 20.0});
  // JAX's docstring: meshgrid([1, 2, 3], [10, 20]) is ([[1, 2, 3], [1, 2, 3]], [[10, 10, 10], [20, 20, 20]]).
  auto const xy = jnp::meshgrid(x, y);
  REQUIRE(xy.size() == 2);
  require_values(xy[0], {2, 3}, [](Idx i) { return static_cast<double>(i[1] + 1); });
  require_values(xy[1], {2, 3}, [](Idx i) { return static_cast<double>(10 * (i[0] + 1)); });
  auto const ij = jnp::meshgrid({x, y * 1.0}, "ij");
  require_values(ij[0], {3, 2}, [](Idx i) { return static_cast<double>(i[0] + 1); });
  require_values(ij[1], {3, 2}, [](Idx i) { return static_cast<double>(10 * (i[1] + 1)); });
  // Three inputs, "xy": shape (len(y), len(x), len(z)); z varies along axis 2.
  auto const z = jnp::array({7.0, 8.0, 9.0, 6.0});
  auto const three = jnp::meshgrid(std::vector<Array<double>>{x, y, z});
  REQUIRE(three.size() == 3);
  require_values(three[0], {2, 3, 4}, [](Idx i) { return static_cast<double>(i[1] + 1); });
  require_values(three[2], {2, 3, 4}, [](Idx i) { return i[2] == 3 ? 6.0 : static_cast<double>(7 + i[2]); });

  REQUIRE(message_of([&] { jnp::meshgrid({x, y}, "xz"); }) == "Valid values for indexing are 'xy' and 'ij', got xz");
  REQUIRE(message_of([&] { jnp::meshgrid(digits({2, 3}), x); }) ==
          "Arguments to jax.numpy.meshgrid must be 1D, got shapes [(2, 3), (3,)]");
}

TEST_CASE("rearranging: grads to second order, vmap against a loop, jit", "[rearrange][grad][vmap][jit]") {
  // tile, both repeats, roll on listed axes and flattened, flip: (3, 4) -> (12, 4).
  auto const f = [](Array<double> const& a) -> Array<double> {
    auto const t = jnp::repeat(jnp::repeat(jnp::tile(a, {2, 1}), {1, 0, 2, 1}, -1), 2, 0);
    return jnp::sin(jnp::flip(jnp::roll(t, {1, -5}, {0, 1}), {0, 1})) * jnp::roll(t, 2);
  };
  auto const a = jaxcc_test::smooth({3, 4});
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{a}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(f, jaxcc::in_axes(1), jaxcc_test::smooth({3, 2, 4})));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, a));
}

TEST_CASE("rot90 and resize match JAX", "[rearrange][rot90][resize]") {
  using jaxcc_test::shape_golden::parts;
  jaxcc_test::shape_golden::Inputs const in;
  jaxcc_test::shape_golden::check_cases(
      "rearrange/",
      {
          {"rot90", [&] { return parts(jnp::rot90(in.m23)); }},
          {"rot90_2", [&] { return parts(jnp::rot90(in.m23, 2)); }},
          {"rot90_3", [&] { return parts(jnp::rot90(in.t234, 3, {2, 0})); }},
          {"rot90_neg", [&] { return parts(jnp::rot90(in.t234, -1, {1, 2})); }},
          {"resize_grow", [&] { return parts(jnp::resize(in.m23, {3, 5})); }},
          {"resize_shrink", [&] { return parts(jnp::resize(in.t234, 5)); }},
          {"resize_empty", [&] { return parts(jnp::resize(in.v3(jaxcc::slice(0, 0)), {2, 2})); }},
      });
}

TEST_CASE("rot90 and resize under grad and vmap; errors", "[rearrange][rot90][resize][grad][vmap][errors]") {
  auto const xs = jaxcc_test::smooth({2, 3, 4});
  auto const f = [](Array<double> const& x) {
    return jnp::sum(jnp::rot90(x) * jnp::rot90(x, 3)(jaxcc::slice(jaxcc::none, jaxcc::none, -1))) +
           jnp::sum(jnp::resize(x, {5, 3}) * jnp::resize(x, {5, 3})) + jnp::sum(jnp::rot90(x, 2, {1, 0}) * x);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{jaxcc_test::example(xs, 0, 1)}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0), xs));
  CHECK(message_of([] { jnp::rot90(jnp::ones<float>(3)); }) ==
        "rot90 requires its first argument to have ndim at least two, but got first argument of shape (3,), which has ndim 1");
  CHECK(message_of([] { jnp::rot90(jnp::ones<float>({2, 2}), 1, {0, -2}); }) == "Axes must be different");
  CHECK(message_of([] { jnp::resize(jnp::ones<float>(2), {-1}); }) == "all elements of `new_shape` must be non-negative");
}

}  // namespace test_rearrange
