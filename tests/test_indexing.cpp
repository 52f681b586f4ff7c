// jnp::take and the functional updates `x.at(...)`: values against JAX's
// documented examples and reference loops, out-of-range modes, dtype
// promotion, non-contiguous inputs, empty and rank-0 arrays, the guarantee
// that updates never change their input, and JAX's error messages.
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_indexing {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::values;

namespace {

constexpr float fnan = std::numeric_limits<float>::quiet_NaN();

/// Elementwise equality where NaN equals NaN.
bool same(std::vector<float> const& a, std::vector<float> const& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

}  // namespace

TEST_CASE("take matches JAX's docstring examples", "[indexing][take]") {
  auto x = jnp::array({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  auto indices = jnp::array<std::int32_t>({2, 0});
  REQUIRE(jnp::take(x, indices).to_vector() == values({3.f, 1.f}));  // flattened
  auto by_column = jnp::take(x, indices, 1);
  REQUIRE(by_column.shape() == Shape{2, 2});
  REQUIRE(by_column.to_vector() == values({3.f, 1.f, 6.f, 4.f}));
  // Row 2 is out of range: filled with NaN.
  REQUIRE(same(jnp::take(x, indices, 0).to_vector(), {fnan, fnan, fnan, 1.f, 2.f, 3.f}));
  REQUIRE(jnp::take(x, indices, 0, "clip").to_vector() == values({4.f, 5.f, 6.f, 1.f, 2.f, 3.f}));
}

TEST_CASE("take: negative indices, modes, fill values, dtypes", "[indexing][take]") {
  auto v = jnp::array<std::int32_t>({10, 20, 30});
  auto idx = jnp::array<std::int64_t>({-1, -3, -4, 3, 1});
  // fill: [-3, 3) is valid (negatives counted from the end once); others fill.
  constexpr auto low = std::numeric_limits<std::int32_t>::min();
  REQUIRE(jnp::take(v, idx, 0).to_vector() == values<std::int32_t>({30, 10, low, low, 20}));
  REQUIRE(jnp::take(v, idx, 0, "fill", -7).to_vector() == values<std::int32_t>({30, 10, -7, -7, 20}));
  // clip: clamped into [0, 3) without wrapping negatives first (as lax.gather's clip mode).
  REQUIRE(jnp::take(v, idx, 0, "clip").to_vector() == values<std::int32_t>({10, 10, 10, 30, 20}));
  // wrap: Python's modulo: -1 % 3 = 2, -3 % 3 = 0, -4 % 3 = 2, 3 % 3 = 0.
  REQUIRE(jnp::take(v, idx, 0, "wrap").to_vector() == values<std::int32_t>({30, 10, 30, 10, 20}));
  auto flags = jnp::array({false, false});
  REQUIRE(jnp::take(flags, jnp::array<std::int32_t>({5, 1})).to_vector() == values({true, false}));
  auto d = jnp::take(jnp::array({1.0, 2.0}), jnp::array<std::int32_t>({2}), 0, "fill", 0.5);
  REQUIRE(d.item() == 0.5);
  auto wide = jnp::take(jnp::array<std::int64_t>({1, 2}), jnp::array<std::int32_t>({-5}));
  REQUIRE(wide.item() == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("take along a middle axis matches a reference loop", "[indexing][take]") {
  // x[i, j, k] = 100 i + 10 j + k over (2, 4, 3); 2-D indices of shape (2, 3).
  std::vector<double> data;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) data.push_back(100 * i + 10 * j + k);
  auto x = jnp::array(data, Shape{2, 4, 3});
  std::vector<std::int32_t> raw{3, -1, 0, 2, 9, -2};
  auto idx = jnp::array(raw, Shape{2, 3});
  auto out = jnp::take(x, idx, -2);
  REQUIRE(out.shape() == Shape{2, 2, 3, 3});
  std::vector<double> expected;
  for (int i = 0; i < 2; ++i)
    for (int a = 0; a < 6; ++a)
      for (int k = 0; k < 3; ++k) {
        int j = raw[static_cast<std::size_t>(a)];
        if (j < 0) j += 4;
        expected.push_back(j >= 0 && j < 4 ? 100 * i + 10 * j + k : std::nan(""));
      }
  auto got = out.to_vector();
  REQUIRE(got.size() == expected.size());
  for (std::size_t n = 0; n < got.size(); ++n)
    CHECK((got[n] == expected[n] || (std::isnan(got[n]) && std::isnan(expected[n]))));
}

TEST_CASE("take reads non-contiguous arrays and indices", "[indexing][take]") {
  // t = transpose of [[0, 1, 2], [3, 4, 5]]: [[0, 3], [1, 4], [2, 5]].
  auto t = jnp::transpose(jnp::arange<float>(6).reshape({2, 3}));
  REQUIRE(jnp::take(t, jnp::array<std::int32_t>({1, 0}), 1).to_vector() == values<float>({3, 0, 4, 1, 5, 2}));
  REQUIRE(jnp::take(t, jnp::array<std::int32_t>({2, 0}), 0).to_vector() == values<float>({2, 5, 0, 3}));
  // Flattened take of a transposed array reads it in its own row-major order.
  REQUIRE(jnp::take(t, jnp::array<std::int32_t>({1, 4})).to_vector() == values<float>({3, 2}));
  // Broadcast operand and transposed indices.
  auto b = jnp::broadcast_to(jnp::array<std::int32_t>({7, 8, 9}), Shape{4, 3});
  auto idx = jnp::array<std::int32_t>({{0, 2}, {1, 2}}).T();  // [[0, 1], [2, 2]]
  auto got = jnp::take(b, idx, 1);
  REQUIRE(got.shape() == Shape{4, 2, 2});
  std::vector<std::int32_t> expected;
  for (int r = 0; r < 4; ++r)
    for (int k : {7, 8, 9, 9}) expected.push_back(k);
  REQUIRE(got.to_vector() == expected);
  // Indices given as an expression.
  auto iv = jnp::array<std::int32_t>({0, 1});
  REQUIRE(jnp::take(jnp::array({5.f, 6.f, 7.f}), iv + 1).to_vector() == values({6.f, 7.f}));
}

TEST_CASE("take: empty and rank-0 cases", "[indexing][take]") {
  auto x = jnp::arange<float>(6).reshape({2, 3});
  // Rank-0 index: the axis disappears.
  auto col = jnp::take(x, jnp::array<std::int32_t>(2), 1);
  REQUIRE(col.shape() == Shape{2});
  REQUIRE(col.to_vector() == values({2.f, 5.f}));
  // No indices: an empty axis in the result.
  REQUIRE(jnp::take(x, jnp::zeros<std::int32_t>(0), 1).shape() == Shape{2, 0});
  REQUIRE(jnp::take(jnp::zeros<float>({0, 3}), jnp::zeros<std::int32_t>(0), 0).shape() == Shape{0, 3});
  // A rank-0 array is flattened to one element when no axis is given.
  REQUIRE(jnp::take(jnp::array(4.f), jnp::array<std::int32_t>({0, 0})).to_vector() == values({4.f, 4.f}));
}

TEST_CASE("take errors", "[indexing][take][errors]") {
  auto x = jnp::arange<float>(6).reshape({2, 3});
  auto i = jnp::array<std::int32_t>({0});
  REQUIRE(message_of([&] { jnp::take(jnp::zeros<float>({0, 3}), i, 0); }) ==
          "Cannot do a non-empty jnp.take() from an empty axis.");
  REQUIRE(message_of([&] { jnp::take(x, i, 0, "nearest"); }) == "Invalid mode 'nearest' for np.take");
  REQUIRE(message_of([&] { jnp::take(x, i, 0, "raise"); }) == "The 'raise' mode to jnp.take is not supported.");
  REQUIRE(message_of([&] { jnp::take(x, i, 2); }) == "take: axis 2 is out of bounds for array of dimension 2");
  REQUIRE(message_of([&] { jnp::take(jnp::array<std::int32_t>({1}), i, 0, "fill", 1e20); }) ==
          "take: fill_value 1e+20 is not representable in int32");
}

TEST_CASE("at().get() indexes leading axes and clamps", "[indexing][at]") {
  auto x = jnp::arange<std::int32_t>(12).reshape({3, 4});
  auto row = x.at(1).get();
  REQUIRE(row.shape() == Shape{4});
  REQUIRE(row.to_vector() == values<std::int32_t>({4, 5, 6, 7}));
  REQUIRE(x.at(-1, -2).get().item() == 10);
  REQUIRE(x.at(1, 2).get().shape() == Shape{});
  // Out of range clamps (JAX's default for gathers): 7 -> 2, -9 -> -6 -> 0, 100 -> 3.
  REQUIRE(x.at(7).get().to_vector() == values<std::int32_t>({8, 9, 10, 11}));
  REQUIRE(x.at(-9, 100).get().item() == 3);
  REQUIRE(x.at().get().shape() == Shape{3, 4});
  // A transposed and a broadcast input.
  REQUIRE(x.T().at(1).get().to_vector() == values<std::int32_t>({1, 5, 9}));
  auto b = jnp::broadcast_to(jnp::array({1.5f, 2.5f}), Shape{3, 2});
  REQUIRE(b.at(2, 1).get().item() == 2.5f);
}

TEST_CASE("at().set() and friends return new arrays and leave the input alone", "[indexing][at]") {
  auto x = jnp::arange<float>(5);
  auto const before = x.to_vector();
  // JAX's docstring: x.at[2].add(10) on arange(5.0).
  REQUIRE(x.at(2).add(10).to_vector() == values<float>({0, 1, 12, 3, 4}));
  REQUIRE(x.at(-1).set(9.f).to_vector() == values<float>({0, 1, 2, 3, 9}));
  REQUIRE(x.at(3).subtract(1).to_vector() == values<float>({0, 1, 2, 2, 4}));
  REQUIRE(x.at(4).multiply(0.5).to_vector() == values<float>({0, 1, 2, 3, 2}));
  REQUIRE(x.at(1).min(-1).to_vector() == values<float>({0, -1, 2, 3, 4}));
  REQUIRE(x.at(1).max(-1).to_vector() == values<float>({0, 1, 2, 3, 4}));
  REQUIRE(x.at(0).max(fnan).to_vector()[0] != x.at(0).max(fnan).to_vector()[0]);  // NaN wins
  REQUIRE(x.to_vector() == before);
}

TEST_CASE("at() updates of sub-arrays broadcast the values", "[indexing][at]") {
  auto x = jnp::zeros<std::int32_t>({2, 3, 2});
  auto const zeros = x.to_vector();
  // A row of the window broadcast over it: window (3, 2), values (2,).
  auto y = x.at(1).set(jnp::array<std::int32_t>({5, 6}));
  std::vector<std::int32_t> expected;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) expected.push_back(i == 1 ? 5 + k : 0);
  REQUIRE(y.to_vector() == expected);
  // A transposed values array: window (3, 2) from (2, 3).T.
  auto v = jnp::array<std::int32_t>({{1, 2, 3}, {4, 5, 6}});
  auto z = x.at(0).add(v.T());
  REQUIRE(z.to_vector() == values<std::int32_t>({1, 4, 2, 5, 3, 6, 0, 0, 0, 0, 0, 0}));
  // Whole-array update with no indices.
  REQUIRE(x.at().add(2).to_vector() == std::vector<std::int32_t>(12, 2));
  REQUIRE(x.to_vector() == zeros);
  REQUIRE(v.to_vector() == values<std::int32_t>({1, 2, 3, 4, 5, 6}));
}

TEST_CASE("at() on non-contiguous arrays", "[indexing][at]") {
  // t = [[0, 3], [1, 4], [2, 5]] (a transpose).
  auto t = jnp::transpose(jnp::arange<std::int32_t>(6).reshape({2, 3}));
  REQUIRE(t.at(1, 0).set(-1).to_vector() == values<std::int32_t>({0, 3, -1, 4, 2, 5}));
  REQUIRE(t.at(2).multiply(10).to_vector() == values<std::int32_t>({0, 3, 1, 4, 20, 50}));
  // A broadcast input: the result is a full array, the input view unchanged.
  auto b = jnp::broadcast_to(jnp::array({1.f, 2.f}), Shape{3, 2});
  auto c = b.at(1, 1).add(5);
  REQUIRE(c.to_vector() == values<float>({1, 2, 1, 7, 1, 2}));
  REQUIRE(b.to_vector() == values<float>({1, 2, 1, 2, 1, 2}));
}

TEST_CASE("at() updates drop out-of-range indices", "[indexing][at]") {
  auto x = jnp::array<std::int32_t>({1, 2, 3});
  REQUIRE(x.at(3).set(9).to_vector() == values<std::int32_t>({1, 2, 3}));
  REQUIRE(x.at(-4).add(9).to_vector() == values<std::int32_t>({1, 2, 3}));
  auto m = jnp::zeros<float>({2, 2});
  REQUIRE(m.at(0, 5).set(1.f).to_vector() == values<float>({0, 0, 0, 0}));
  REQUIRE(m.at(-2, -1).set(1.f).to_vector() == values<float>({0, 1, 0, 0}));
  // An empty window: nothing to update.
  auto e = jnp::zeros<float>({2, 0});
  REQUIRE(e.at(1).set(5.f).shape() == Shape{2, 0});
  REQUIRE(e.at(1).get().shape() == Shape{0});
}

TEST_CASE("at() promotes like JAX: compute in the common dtype, convert back", "[indexing][at]") {
  auto x = jnp::array<std::int32_t>({1, 1});
  // float32(1) + (-0.5) = 0.5, converted back to int32 truncates to 0
  // (adding int32(-0.5) = 0 first would leave 1).
  REQUIRE(x.at(0).add(-0.5).to_vector() == values<std::int32_t>({0, 1}));
  REQUIRE(x.at(1).set(2.7).to_vector() == values<std::int32_t>({1, 2}));
  REQUIRE(x.at(1).multiply(jnp::array(2.5f)).to_vector() == values<std::int32_t>({1, 2}));
  auto flags = jnp::array({false, true, false});
  REQUIRE(flags.at(0).set(true).to_vector() == values({true, true, false}));
  REQUIRE(flags.at(1).add(true).to_vector() == values({false, true, false}));     // OR
  REQUIRE(flags.at(1).multiply(false).to_vector() == values({false, false, false}));  // AND
  REQUIRE(flags.at(2).max(true).to_vector() == values({false, true, true}));
  REQUIRE(flags.at(1).min(false).to_vector() == values({false, false, false}));
  // Integers wrap on overflow.
  auto big = jnp::array<std::int32_t>({std::numeric_limits<std::int32_t>::max()});
  REQUIRE(big.at(0).add(1).item() == std::numeric_limits<std::int32_t>::min());
  // Rank 0.
  REQUIRE(jnp::array(3.0).at().set(4).item() == 4.0);
}

TEST_CASE("at() errors are JAX's", "[indexing][at][errors]") {
  auto x = jnp::zeros<float>({2, 3});
  REQUIRE(message_of([&] { x.at(0, 1, 2).get(); }) == "Too many indices: array is 2-dimensional, but 3 were indexed");
  REQUIRE(message_of([&] { x.at(0, 1, 2).set(1); }) == "Too many indices: array is 2-dimensional, but 3 were indexed");
  REQUIRE(message_of([&] { jnp::zeros<float>({2, 0}).at(0, 0).get(); }) ==
          "index is out of bounds for axis 1 with size 0");
  REQUIRE(message_of([&] { jnp::zeros<float>(0).at(0).add(1); }) == "index is out of bounds for axis 0 with size 0");
  REQUIRE(message_of([&] { x.at(0).set(jnp::ones<float>(4)); }) ==
          "Incompatible shapes for broadcasting: (4,) and requested shape (3,)");
}

TEST_CASE("large take and update (threaded paths) match a reference loop", "[indexing][large]") {
  // v[k] = 3 k over 1000 elements; 100000 indices, some out of range.
  auto v = jnp::arange<std::int32_t>(0, 3000, 3);
  std::vector<std::int32_t> raw(100000);
  for (std::size_t n = 0; n < raw.size(); ++n) raw[n] = static_cast<std::int32_t>((n * 7919) % 1200) - 100;
  auto got = jnp::take(v, jnp::array(raw, Shape{100000}), 0, "fill", -5).to_vector();
  bool all = true;
  for (std::size_t n = 0; n < raw.size(); ++n) {
    auto i = raw[n] < 0 ? raw[n] + 1000 : raw[n];
    all = all && got[n] == (i >= 0 && i < 1000 ? 3 * i : -5);
  }
  REQUIRE(all);
  // A (2, 300, 300) update through a transposed operand.
  auto x = jnp::zeros<float>({300, 300, 2});
  auto y = jnp::moveaxis(x, -1, 0).at(1).add(jnp::arange<float>(300));
  auto yv = y.to_vector();
  all = true;
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 300; ++j)
      for (std::size_t k = 0; k < 300; ++k)
        all = all && yv[(i * 300 + j) * 300 + k] == (i == 1 ? static_cast<float>(k) : 0.f);
  REQUIRE(all);
}

}  // namespace test_indexing
