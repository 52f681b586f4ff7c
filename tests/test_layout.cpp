// jnp layout functions: reshape, ravel, transpose, moveaxis, swapaxes,
// expand_dims, squeeze, broadcast_to, concatenate, stack, split. Values come
// from reference loops over index formulas; every function also gets
// non-contiguous (transposed, broadcast) inputs, empty and rank-0 arrays,
// int/bool dtypes, and JAX's error messages.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "shape_golden.hpp"
#include "support.hpp"

namespace test_layout {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::shares_buffer;
using jaxcc_test::values;

namespace {

/// x[i, j, k] = 100 i + 10 j + k over `shape` (rank 3), as float.
Array<float> digits(Shape const& shape) {
  std::vector<float> data;
  for (std::int64_t i = 0; i < shape[0]; ++i)
    for (std::int64_t j = 0; j < shape[1]; ++j)
      for (std::int64_t k = 0; k < shape[2]; ++k) data.push_back(static_cast<float>(100 * i + 10 * j + k));
  return jnp::array(data, shape);
}

}  // namespace

TEST_CASE("reshape and ravel: views of contiguous input, copies of strided input", "[layout][reshape]") {
  auto x = jnp::arange<std::int32_t>(6);
  auto r = jnp::reshape(x, Shape{2, -1});
  REQUIRE(r.shape() == Shape{2, 3});
  REQUIRE(r.data() == x.data());
  // The transpose of [[0, 1, 2], [3, 4, 5]] read row-major: column-major order of the original.
  auto t = jnp::transpose(r);
  REQUIRE(jnp::ravel(t).to_vector() == values<std::int32_t>({0, 3, 1, 4, 2, 5}));
  REQUIRE(jnp::reshape(t, 6).to_vector() == values<std::int32_t>({0, 3, 1, 4, 2, 5}));
  REQUIRE(jnp::ravel(jnp::array(true)).shape() == Shape{1});
  REQUIRE(jnp::ravel(jnp::zeros<float>({2, 0})).shape() == Shape{0});
  REQUIRE(message_of([&] { jnp::reshape(x, Shape{4, 2}); }).find("cannot reshape array of shape (6,)") !=
          std::string::npos);
}

TEST_CASE("transpose: default, explicit and negative axes", "[layout][transpose]") {
  auto x = digits(Shape{2, 3, 4});
  auto t = jnp::transpose(x, {-1, 0, 1});  // t[k, i, j] = x[i, j, k]
  REQUIRE(t.shape() == Shape{4, 2, 3});
  REQUIRE(t.data() == x.data());
  std::vector<float> expected;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) expected.push_back(static_cast<float>(100 * i + 10 * j + k));
  REQUIRE(t.to_vector() == expected);
  REQUIRE(jnp::transpose(x).shape() == Shape{4, 3, 2});
  REQUIRE(jnp::transpose(jnp::array(3)).item() == 3);
  REQUIRE(jnp::transpose(jnp::zeros<bool>({0, 3})).shape() == Shape{3, 0});
  REQUIRE(jnp::moveaxis(jnp::zeros<float>({0, 2, 1}), 0, -1).shape() == Shape{2, 1, 0});
  REQUIRE(message_of([&] { jnp::transpose(x, {0, 0, 1}); }) ==
          "transpose permutation isn't a permutation of operand dimensions, got permutation (0, 0, 1) for operand "
          "shape (2, 3, 4).");
  REQUIRE(message_of([&] { jnp::transpose(x, {0, 3, 1}); }) ==
          "transpose: axis 3 is out of bounds for array of dimension 3");
}

TEST_CASE("moveaxis: JAX's docstring shapes and values", "[layout][moveaxis]") {
  auto a = jnp::ones<float>({2, 3, 4, 5});
  REQUIRE(jnp::moveaxis(a, 1, -1).shape() == Shape{2, 4, 5, 3});
  REQUIRE(jnp::moveaxis(a, -1, 1).shape() == Shape{2, 5, 3, 4});
  REQUIRE(jnp::moveaxis(a, {0, 1}, {-1, -2}).shape() == Shape{4, 5, 3, 2});
  REQUIRE(jnp::moveaxis(a, {0, 3}, {3, 0}).shape() == Shape{5, 3, 4, 2});
  // Values: m[j, k, i] = x[i, j, k].
  auto x = digits(Shape{2, 3, 4});
  auto m = jnp::moveaxis(x, 0, 2);
  REQUIRE(m.shape() == Shape{3, 4, 2});
  std::vector<float> expected;
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 2; ++i) expected.push_back(static_cast<float>(100 * i + 10 * j + k));
  REQUIRE(m.to_vector() == expected);
  REQUIRE(message_of([&] { jnp::moveaxis(x, {0, 1}, {0}); }) == "Inconsistent number of elements: 2 vs 1");
  REQUIRE(message_of([&] { jnp::moveaxis(x, 3, 0); }) == "moveaxis: axis 3 is out of bounds for array of dimension 3");
  REQUIRE(message_of([&] { jnp::moveaxis(x, {0, -3}, {1, 2}); }) ==
          "moveaxis: repeated axis -3 in axes (0, -3)");
}

TEST_CASE("swapaxes", "[layout][swapaxes]") {
  REQUIRE(jnp::swapaxes(jnp::ones<float>({2, 3, 4, 5}), 1, 3).shape() == Shape{2, 5, 4, 3});
  auto x = digits(Shape{2, 3, 4});
  auto s = jnp::swapaxes(x, -1, 0);  // s[k, j, i] = x[i, j, k]
  std::vector<float> expected;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) expected.push_back(static_cast<float>(100 * i + 10 * j + k));
  REQUIRE(s.to_vector() == expected);
  REQUIRE(jnp::swapaxes(x, 1, 1).to_vector() == x.to_vector());
  REQUIRE(message_of([&] { jnp::swapaxes(x, 0, -4); }) ==
          "swapaxes: axis -4 is out of bounds for array of dimension 3");
}

TEST_CASE("expand_dims: JAX's docstring shapes, views, errors", "[layout][expand_dims]") {
  auto x = jnp::array<std::int32_t>({1, 2, 3});
  REQUIRE(jnp::expand_dims(x, 0).shape() == Shape{1, 3});
  REQUIRE(jnp::expand_dims(x, 1).shape() == Shape{3, 1});
  REQUIRE(jnp::expand_dims(x, -1).shape() == Shape{3, 1});
  auto e = jnp::expand_dims(x, {0, 1, 3});
  REQUIRE(e.shape() == Shape{1, 1, 3, 1});
  REQUIRE(e.to_vector() == values<std::int32_t>({1, 2, 3}));
  REQUIRE(e.data() == x.data());
  REQUIRE(jnp::expand_dims(jnp::array(2.f), 0).shape() == Shape{1});
  // Of a transposed input: t[j, i] = 3 i + j over (2, 3); result (3, 1, 2).
  auto t = jnp::transpose(jnp::arange<std::int32_t>(6).reshape({2, 3}));
  REQUIRE(jnp::expand_dims(t, 1).to_vector() == values<std::int32_t>({0, 3, 1, 4, 2, 5}));
  REQUIRE(message_of([&] { jnp::expand_dims(x, {0, 0}); }) == "repeated axis in lax.expand_dims: (0, 0)");
  // -1 and 2 name the same axis of the rank-3 result.
  REQUIRE(message_of([&] { jnp::expand_dims(x, {2, -1}); }) == "repeated axis in lax.expand_dims: (2, 2)");
  REQUIRE(message_of([&] { jnp::expand_dims(x, 2); }) ==
          "expand_dims: axis 2 is out of bounds for array of dimension 2");
}

TEST_CASE("squeeze: all, explicit and negative axes; errors", "[layout][squeeze]") {
  auto x = jnp::array<std::int32_t>({{{0}}, {{1}}, {{2}}});  // shape (3, 1, 1)
  REQUIRE(jnp::squeeze(x).shape() == Shape{3});
  REQUIRE(jnp::squeeze(x).to_vector() == values<std::int32_t>({0, 1, 2}));
  REQUIRE(jnp::squeeze(x, {1, 2}).shape() == Shape{3});
  REQUIRE(jnp::squeeze(x, -1).shape() == Shape{3, 1});
  REQUIRE(jnp::squeeze(x).data() == x.data());
  REQUIRE(jnp::squeeze(jnp::array(1.5)).item() == 1.5);
  REQUIRE(jnp::squeeze(jnp::ones<float>({1, 1})).shape() == Shape{});
  REQUIRE(jnp::squeeze(jnp::zeros<float>({0, 1})).shape() == Shape{0});
  // Non-contiguous input: a (1, 3) transposed to (3, 1) then squeezed.
  auto row = jnp::array({{true, false, true}});
  REQUIRE(jnp::squeeze(row.T()).to_vector() == values({true, false, true}));
  REQUIRE(message_of([&] { jnp::squeeze(x, 0); }) ==
          "cannot select an axis to squeeze out which has size not equal to one, got shape=(3, 1, 1) and "
          "dimensions=(0,)");
  REQUIRE(message_of([&] { jnp::squeeze(jnp::ones<float>({2, 3}), 0); }) ==
          "cannot select an axis to squeeze out which has size not equal to one, got shape=(2, 3) and "
          "dimensions=(0,)");
  REQUIRE(message_of([&] { jnp::squeeze(x, {1, -2}); }) == "dimensions are not unique: (1, 1)");
  REQUIRE(message_of([&] { jnp::squeeze(x, 3); }) == "squeeze: axis 3 is out of bounds for array of dimension 3");
}

TEST_CASE("broadcast_to: stride-0 views matching a reference loop", "[layout][broadcast_to]") {
  auto x = jnp::array<std::int32_t>({{2}, {4}});  // (2, 1)
  auto b = jnp::broadcast_to(x, Shape{3, 2, 4});
  REQUIRE(b.shape() == Shape{3, 2, 4});
  REQUIRE(b.strides()[0] == 0);
  REQUIRE(b.strides()[2] == 0);
  REQUIRE(shares_buffer(b, x));
  std::vector<std::int32_t> expected;
  for (int a = 0; a < 3; ++a)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) expected.push_back(i == 0 ? 2 : 4);
  REQUIRE(b.to_vector() == expected);
  REQUIRE(jnp::broadcast_to(jnp::array(1), Shape{1, 4}).to_vector() == values<std::int32_t>({1, 1, 1, 1}));
  REQUIRE(jnp::broadcast_to(jnp::array(true), 3).to_vector() == values({true, true, true}));
  // A transposed input: t[j, i] = 3 i + j over (2, 3) -> (3, 2), broadcast to (2, 3, 2).
  auto t = jnp::transpose(jnp::arange<float>(6).reshape({2, 3}));
  auto bt = jnp::broadcast_to(t, Shape{2, 3, 2});
  REQUIRE(bt.to_vector() == values<float>({0, 3, 1, 4, 2, 5, 0, 3, 1, 4, 2, 5}));
  // Broadcasting a broadcast: (3,) -> (2, 3) -> (4, 2, 3).
  auto twice = jnp::broadcast_to(jnp::broadcast_to(jnp::array({1.f, 2.f, 3.f}), Shape{2, 3}), Shape{4, 2, 3});
  REQUIRE(twice.size() == 24);
  REQUIRE(twice.to_vector()[23] == 3.f);
  // Empty: a size-1 axis broadcasts to 0.
  REQUIRE(jnp::broadcast_to(jnp::ones<float>({1, 3}), Shape{0, 3}).shape() == Shape{0, 3});
  REQUIRE(jnp::broadcast_to(jnp::ones<float>(0), Shape{2, 0}).shape() == Shape{2, 0});
  REQUIRE(message_of([&] { jnp::broadcast_to(jnp::ones<float>(3), Shape{4}); }) ==
          "Incompatible shapes for broadcasting: (3,) and requested shape (4,)");
  REQUIRE(message_of([&] { jnp::broadcast_to(jnp::ones<float>({2, 3}), Shape{3}); }) ==
          "Incompatible shapes for broadcasting: (2, 3) and requested shape (3,)");
}

TEST_CASE("lax::broadcast_in_dim errors are JAX's", "[layout][broadcast_in_dim][errors]") {
  auto x = jnp::ones<float>({2, 3});
  REQUIRE(lax::broadcast_in_dim(x, Shape{3, 4, 2}, {2, 0}).shape() == Shape{3, 4, 2});
  REQUIRE(message_of([&] { lax::broadcast_in_dim(x, Shape{2, 3}, {0}); }) ==
          "broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got broadcast_dimensions "
          "(0,) for operand ndim 2.");
  REQUIRE(message_of([&] { lax::broadcast_in_dim(x, Shape{2, 4}, {0, 1}); }) ==
          "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their corresponding dimensions "
          "in the target broadcast shape; got operand of shape (2, 3), target broadcast shape (2, 4), "
          "broadcast_dimensions (0, 1) ");
  REQUIRE(message_of([&] { lax::broadcast_in_dim(x, Shape{2, 3}, {0, 2}); }) ==
          "broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, got (0, 2) for operand ndim "
          "2 and shape (2, 3).");
  REQUIRE(message_of([&] { lax::broadcast_in_dim(jnp::ones<float>({3, 3}), Shape{3, 3}, {1, 1}); }) ==
          "broadcast_in_dim broadcast_dimensions must not contain duplicates, got broadcast_dimensions (1, 1)");
}

TEST_CASE("concatenate: axes, strided inputs, dtypes, empty pieces", "[layout][concatenate]") {
  auto x = digits(Shape{2, 3, 4});
  auto y = digits(Shape{2, 1, 4}) + 1000.f;
  auto c = jnp::concatenate({x, Array<float>(y)}, -2);
  REQUIRE(c.shape() == Shape{2, 4, 4});
  std::vector<float> expected;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k)
        expected.push_back(static_cast<float>(j < 3 ? 100 * i + 10 * j + k : 1000 + 100 * i + k));
  REQUIRE(c.to_vector() == expected);
  // Transposed and broadcast operands along axis 0.
  auto t = jnp::transpose(jnp::arange<std::int32_t>(6).reshape({3, 2}));  // [[0, 2, 4], [1, 3, 5]]
  auto b = jnp::broadcast_to(jnp::array<std::int32_t>({7, 8, 9}), Shape{2, 3});
  auto tb = jnp::concatenate({t, b}, 0);
  REQUIRE(tb.to_vector() == values<std::int32_t>({0, 2, 4, 1, 3, 5, 7, 8, 9, 7, 8, 9}));
  auto tb1 = jnp::concatenate(std::vector{t, b, t}, 1);
  REQUIRE(tb1.to_vector() == values<std::int32_t>({0, 2, 4, 7, 8, 9, 0, 2, 4, 1, 3, 5, 7, 8, 9, 1, 3, 5}));
  // bool, and an empty piece.
  auto f = jnp::concatenate({jnp::array({true}), jnp::zeros<bool>(0), jnp::array({false, true})});
  REQUIRE(f.to_vector() == values({true, false, true}));
  REQUIRE(jnp::concatenate({jnp::zeros<float>({0, 3}), jnp::zeros<float>({0, 3})}).shape() == Shape{0, 3});
  // axis = none flattens first.
  auto flat = jnp::concatenate({t, b}, jaxcc::none);
  REQUIRE(flat.to_vector() == values<std::int32_t>({0, 2, 4, 1, 3, 5, 7, 8, 9, 7, 8, 9}));
  // The result is a new array: the inputs are unchanged.
  REQUIRE(t.to_vector() == values<std::int32_t>({0, 2, 4, 1, 3, 5}));
}

TEST_CASE("concatenate errors are JAX's", "[layout][concatenate][errors]") {
  auto a = jnp::ones<float>({2, 3});
  REQUIRE(message_of([&] { jnp::concatenate({a, jnp::ones<float>({2, 4})}, 0); }) ==
          "Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: "
          "concatenating along dimension 0 for shapes (2, 3), (2, 4).");
  REQUIRE(message_of([&] { jnp::concatenate({a, jnp::ones<float>(3)}, 0); }) ==
          "Cannot concatenate arrays with different numbers of dimensions: got (2, 3), (3,).");
  REQUIRE(message_of([&] { jnp::concatenate(std::vector<Array<float>>{}); }) ==
          "Need at least one array to concatenate.");
  REQUIRE(message_of([&] { jnp::concatenate({jnp::array(1.f), jnp::array(2.f)}); }) ==
          "Zero-dimensional arrays cannot be concatenated.");
  REQUIRE(message_of([&] { jnp::concatenate({a, a}, 2); }) ==
          "concatenate: axis 2 is out of bounds for array of dimension 2");
}

TEST_CASE("stack: new axis anywhere, strided inputs, rank 0", "[layout][stack]") {
  auto a = jnp::array<std::int32_t>({1, 2});
  auto b = jnp::array<std::int32_t>({3, 4});
  REQUIRE(jnp::stack({a, b}, 0).to_vector() == values<std::int32_t>({1, 2, 3, 4}));
  REQUIRE(jnp::stack({a, b}, 1).to_vector() == values<std::int32_t>({1, 3, 2, 4}));
  REQUIRE(jnp::stack({a, b}, -1).to_vector() == values<std::int32_t>({1, 3, 2, 4}));
  REQUIRE(jnp::stack({a, b}, -2).shape() == Shape{2, 2});
  // s[i, n, j] = input n at (i, j): a transposed and a broadcast input.
  auto t = jnp::transpose(jnp::arange<float>(6).reshape({3, 2}));            // t[i, j] = 2 j + i, (2, 3)
  auto bc = jnp::broadcast_to(jnp::array({10.f, 20.f}).reshape({2, 1}), Shape{2, 3});  // bc[i, j] = 10 (i + 1)
  auto s = jnp::stack({t, bc, t}, 1);
  REQUIRE(s.shape() == Shape{2, 3, 3});
  std::vector<float> expected;
  for (int i = 0; i < 2; ++i)
    for (int n = 0; n < 3; ++n)
      for (int j = 0; j < 3; ++j)
        expected.push_back(n == 1 ? 10.f * static_cast<float>(i + 1) : static_cast<float>(2 * j + i));
  REQUIRE(s.to_vector() == expected);
  REQUIRE(jnp::stack({jnp::array(true), jnp::array(false)}).to_vector() == values({true, false}));
  REQUIRE(jnp::stack({jnp::zeros<float>(0), jnp::zeros<float>(0)}, 1).shape() == Shape{0, 2});
  REQUIRE(jnp::stack(std::vector{a}).shape() == Shape{1, 2});
  REQUIRE(message_of([&] { jnp::stack(std::vector<Array<float>>{}); }) == "Need at least one array to stack.");
  REQUIRE(message_of([&] { jnp::stack({a, jnp::array<std::int32_t>({1, 2, 3})}); }) ==
          "All input arrays must have the same shape. Got (2,), (3,).");
  REQUIRE(message_of([&] { jnp::stack({a, b}, 2); }) == "stack: axis 2 is out of bounds for array of dimension 2");
}

TEST_CASE("stack and concatenate take braced lists of arrays and expressions", "[layout][stack][concatenate]") {
  // Each element converts to an array of the list's dtype (an expression is
  // evaluated once); the values are worked out by hand.
  auto const x = jnp::arange<float>(3);  // 0, 1, 2
  REQUIRE(jnp::stack({x, x * 2.f}).to_vector() == values<float>({0, 1, 2, 0, 2, 4}));
  REQUIRE(jnp::stack({x + 1.f, x - 1.f}, 1).to_vector() == values<float>({1, -1, 2, 0, 3, 1}));
  REQUIRE(jnp::stack<float>({x, x * x}).to_vector() == values<float>({0, 1, 2, 0, 1, 4}));
  REQUIRE(jnp::concatenate({x, x * 10.f}).to_vector() == values<float>({0, 1, 2, 0, 10, 20}));
  auto const m = jnp::arange<std::int32_t>(4).reshape({2, 2});  // [[0, 1], [2, 3]]
  REQUIRE(jnp::concatenate({m, m + 4}, jaxcc::none).to_vector() == values<std::int32_t>({0, 1, 2, 3, 4, 5, 6, 7}));
  REQUIRE(jnp::stack({x > 0.5f, x < 1.5f}).to_vector() == values({false, true, true, true, true, false}));
  REQUIRE(message_of([&] { jnp::stack({x, jnp::ones<float>(2) * 2.f}); }) ==
          "All input arrays must have the same shape. Got (3,), (2,).");
  // Under a transform the expressions' leaves are traced: vmap over x.
  auto const rows = jaxcc::vmap([](Array<float> v) { return jnp::stack({v, v * v}); })(x.reshape({3, 1}));
  REQUIRE(rows.shape() == Shape{3, 2, 1});
  REQUIRE(rows.to_vector() == values<float>({0, 0, 1, 1, 2, 4}));
}

TEST_CASE("split: sections and indices give views", "[layout][split]") {
  auto x = jnp::arange<std::int32_t>(1, 10);  // [1 .. 9]
  auto three = jnp::split(x, 3);
  REQUIRE(three.size() == 3);
  REQUIRE(three[0].to_vector() == values<std::int32_t>({1, 2, 3}));
  REQUIRE(three[2].to_vector() == values<std::int32_t>({7, 8, 9}));
  REQUIRE(three[1].data() == x.data() + 3);
  auto cut = jnp::split(x, {2, 7});
  REQUIRE(cut.size() == 3);
  REQUIRE(cut[0].to_vector() == values<std::int32_t>({1, 2}));
  REQUIRE(cut[1].to_vector() == values<std::int32_t>({3, 4, 5, 6, 7}));
  REQUIRE(cut[2].to_vector() == values<std::int32_t>({8, 9}));
  // {3} is one index (two parts), as [3] in Python, not three sections.
  auto at3 = jnp::split(x, {3});
  REQUIRE(at3.size() == 2);
  REQUIRE(at3[1].size() == 6);
  // Empty parts at the ends.
  auto ends = jnp::split(x, {0, 9});
  REQUIRE(ends[0].size() == 0);
  REQUIRE(ends[1].size() == 9);
  REQUIRE(ends[2].size() == 0);
  // Along axis 1 (and -1) of a 2-D array: JAX's docstring example.
  auto m = jnp::array<std::int32_t>({{1, 2, 3, 4}, {5, 6, 7, 8}});
  auto halves = jnp::split(m, 2, -1);
  REQUIRE(halves[0].to_vector() == values<std::int32_t>({1, 2, 5, 6}));
  REQUIRE(halves[1].to_vector() == values<std::int32_t>({3, 4, 7, 8}));
  // Of a transposed input: m.T = [[1, 5], [2, 6], [3, 7], [4, 8]].
  auto rows = jnp::split(m.T(), {1, 3}, 0);
  REQUIRE(rows[0].to_vector() == values<std::int32_t>({1, 5}));
  REQUIRE(rows[1].to_vector() == values<std::int32_t>({2, 6, 3, 7}));
  REQUIRE(rows[2].to_vector() == values<std::int32_t>({4, 8}));
  // bool, empty axis.
  auto flags = jnp::split(jnp::array({true, false, false, true}), 2);
  REQUIRE(flags[1].to_vector() == values({false, true}));
  auto none = jnp::split(jnp::zeros<float>({0, 2}), 3);
  REQUIRE(none.size() == 3);
  REQUIRE(none[2].shape() == Shape{0, 2});
}

TEST_CASE("split errors are JAX's", "[layout][split][errors]") {
  auto x = jnp::arange<std::int32_t>(1, 10);
  REQUIRE(message_of([&] { jnp::split(x, 2); }) == "array split does not result in an equal division: rest is 1");
  REQUIRE(message_of([&] { jnp::split(x, {3, 1}); }) == "Sizes passed to split must be nonnegative, got [3, -2, 8]");
  REQUIRE(message_of([&] { jnp::split(x, 0); }) == "split: number sections must be larger than 0.");
  REQUIRE(message_of([&] { jnp::split(x, 3, 1); }) == "split: axis 1 is out of bounds for array of dimension 1");
}

TEST_CASE("chains of views read correctly", "[layout][views]") {
  // A broadcast, transposed, sliced, moved, expanded and squeezed view, checked
  // against the index formula it should end at.
  auto base = jnp::array<std::int32_t>({0, 1, 2, 3});            // v[k] = k
  auto b = jnp::broadcast_to(base, Shape{3, 4});                 // b[i, k] = k
  auto t = b.T();                                                // t[k, i] = k
  auto s = lax::slice(t, {1, 0}, {4, 3}, {2, 2});                // s[a, c] = 1 + 2 a, (2, 2)
  auto e = jnp::expand_dims(s, 0);                               // (1, 2, 2)
  auto m = jnp::moveaxis(e, 0, -1);                              // (2, 2, 1)
  auto q = jnp::squeeze(m);                                      // (2, 2)
  REQUIRE(q.shape() == Shape{2, 2});
  REQUIRE(q.to_vector() == values<std::int32_t>({1, 1, 3, 3}));
  REQUIRE(shares_buffer(q, base));
  auto cat = jnp::concatenate({q, jnp::swapaxes(q, 0, 1)}, 1);
  REQUIRE(cat.to_vector() == values<std::int32_t>({1, 1, 1, 3, 3, 3, 1, 3}));
  auto parts = jnp::split(jnp::ravel(cat), 4);
  REQUIRE(parts[3].to_vector() == values<std::int32_t>({1, 3}));
}

TEST_CASE("large inputs (threaded copies) match a reference loop", "[layout][large]") {
  // x[i, j] = 1000 i + j over (300, 400), transposed to (400, 300), joined
  // with a broadcast block along axis 1.
  std::vector<std::int64_t> data(300 * 400);
  for (std::int64_t i = 0; i < 300; ++i)
    for (std::int64_t j = 0; j < 400; ++j) data[static_cast<std::size_t>(i * 400 + j)] = 1000 * i + j;
  auto x = jnp::array(data, Shape{300, 400});
  auto b = jnp::broadcast_to(jnp::array<std::int64_t>(-1), Shape{400, 250});
  auto c = jnp::concatenate({x.T(), b}, 1);
  REQUIRE(c.shape() == Shape{400, 550});
  auto got = c.to_vector();
  bool all = true;
  for (std::int64_t j = 0; j < 400; ++j)
    for (std::int64_t k = 0; k < 550; ++k)
      all = all && got[static_cast<std::size_t>(j * 550 + k)] == (k < 300 ? 1000 * k + j : -1);
  REQUIRE(all);
}

TEST_CASE("permute_dims, matrix_transpose, rollaxis, broadcast_arrays match JAX", "[layout]") {
  using jaxcc_test::shape_golden::parts;
  jaxcc_test::shape_golden::Inputs const in;
  jaxcc_test::shape_golden::check_cases(
      "layout/",
      {
          {"permute_dims", [&] { return parts(jnp::permute_dims(in.t234, {2, 0, 1})); }},
          {"matrix_transpose", [&] { return parts(jnp::matrix_transpose(in.t234)); }},
          {"rollaxis_2_0", [&] { return parts(jnp::rollaxis(in.t234, 2)); }},
          {"rollaxis_0_3", [&] { return parts(jnp::rollaxis(in.t234, 0, 3)); }},
          {"rollaxis_neg", [&] { return parts(jnp::rollaxis(in.t234, -1, -2)); }},
          {"broadcast_arrays",
           [&] { return parts(jnp::broadcast_arrays(in.v3, in.m23(jaxcc::slice(0, 1)).T(), in.s)); }},
      });
  CHECK(jnp::broadcast_shapes({{2, 1, 3}, {4, 1}, {}}) == Shape{2, 4, 3});
  CHECK(jnp::broadcast_shapes({}) == Shape{});
  CHECK(jnp::shape(in.t234) == Shape{2, 3, 4});
  CHECK(jnp::shape(2.5) == Shape{});
  CHECK(jnp::ndim(in.t234) == 3);
  CHECK(jnp::ndim(in.t234 * 2.f) == 3);
  CHECK(jnp::ndim(1) == 0);
  CHECK(jnp::size(in.t234) == 24);
  CHECK(jnp::size(in.t234, -1) == 4);
  CHECK(jnp::size(3.f) == 1);
  CHECK(jnp::isscalar(in.s));
  CHECK(jnp::isscalar(1.5));
  CHECK_FALSE(jnp::isscalar(in.v3));
  CHECK_FALSE(jnp::isscalar(std::string("a")));
  // Views of their input.
  CHECK(shares_buffer(jnp::matrix_transpose(in.t234), in.t234));
  CHECK(shares_buffer(jnp::broadcast_arrays(in.v3, in.m23)[0], in.v3));
}

TEST_CASE("permute_dims, matrix_transpose, rollaxis under grad and vmap; errors", "[layout][grad][vmap][errors]") {
  auto const xs = jaxcc_test::smooth({2, 3, 4, 5});
  auto const f = [](Array<double> const& x) {
    // Each term has shape (4, 5, 3) for x of shape (3, 4, 5).
    auto const p = jnp::permute_dims(x, {1, 2, 0});
    return p * jnp::rollaxis(x, 0, 3) + jnp::matrix_transpose(jnp::permute_dims(x, {1, 0, 2})) * p +
           jnp::broadcast_arrays(jnp::sum(p, 0), p)[0];
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{jaxcc_test::example(xs, 0, 1)}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0), xs));
  auto const m = jnp::ones<float>({2, 3});
  CHECK(message_of([&] { jnp::permute_dims(m, {0}); }) ==
        "transpose permutation isn't a permutation of operand dimensions, got permutation (0,) for operand shape (2, 3).");
  CHECK(message_of([] { jnp::matrix_transpose(jnp::ones<float>(3)); }) ==
        "x must be at least two-dimensional for matrix_transpose; got ndim=1");
  CHECK(message_of([&] { jnp::rollaxis(m, 0, 4); }) == "start=4 must satisfy -2<=start<=2");
  CHECK(message_of([] { jnp::broadcast_shapes({{2, 3}, {4}}); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2, 3), (4,)]");
  CHECK(message_of([&] { jnp::broadcast_arrays(m, jnp::ones<float>(2)); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2, 3), (2,)]");
}

}  // namespace test_layout
