// Array handles: shape and dtype queries, value semantics, reshape and
// transpose views, conversion, and the errors for bad input.
#include "catch.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_array {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;

TEST_CASE("Shape prints and compares like a Python tuple", "[array][shape]") {
  REQUIRE(jaxcc::to_string(Shape{3, 4}) == "(3, 4)");
  REQUIRE(jaxcc::to_string(Shape{5}) == "(5,)");
  REQUIRE(jaxcc::to_string(Shape{}) == "()");
  REQUIRE(Shape{3, 2} == Shape{3, 2});
  REQUIRE_FALSE(Shape{3, 2} == Shape{2, 3});
  REQUIRE(Shape{2, 3, 4}.numel() == 24);
  REQUIRE(Shape{}.numel() == 1);
  REQUIRE(std::hash<Shape>{}(Shape{2, 3}) == std::hash<Shape>{}(Shape{2, 3}));
  // Ranks beyond the inline capacity spill to the heap and still behave.
  Shape big{1, 2, 3, 4, 5, 6, 7, 8};
  Shape copy = big;
  REQUIRE(copy == big);
  REQUIRE(copy.numel() == 40320);
}

TEST_CASE("shapes and axes take any integer type: braced lists, std::vector, std::array", "[array][shape]") {
  std::vector<int> const dims{2, 3};
  std::size_t const n = 6;
  std::array<std::size_t, 2> const transposed{3, 2};
  auto const a = jnp::zeros<float>(dims);
  REQUIRE(a.shape() == Shape{2, 3});
  REQUIRE(jnp::ones<float>({n}).shape() == Shape{6});
  REQUIRE(jnp::ones<float>({2u, 3u}).shape() == Shape{2, 3});
  auto const x = jnp::arange<float>(0, 6);
  auto const b = jnp::reshape(x, transposed);
  REQUIRE(b.shape() == Shape{3, 2});
  REQUIRE(b.to_vector() == x.to_vector());
  // Axes: a reduction over std::vector<int>{0, 1} is over both axes; a transpose by a std::array<std::size_t, 2>.
  REQUIRE(jnp::sum(jnp::reshape(x, dims), std::vector<int>{0, 1}).item() == 15.f);
  auto const t = jnp::transpose(jnp::reshape(x, dims), std::array<std::size_t, 2>{1, 0});
  REQUIRE(t.shape() == Shape{3, 2});
  REQUIRE(t.to_vector() == std::vector<float>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("queries: shape, ndim, size, dtype", "[array]") {
  auto x = jnp::zeros<float>({2, 3, 4});
  REQUIRE(x.shape() == Shape{2, 3, 4});
  REQUIRE(x.ndim() == 3);
  REQUIRE(x.size() == 24);
  REQUIRE(x.dtype() == jaxcc::DType::float32);
  REQUIRE(jaxcc::name(jnp::zeros<double>({1}).dtype()) == "float64");
  REQUIRE(jaxcc::name(jnp::zeros<std::int32_t>({1}).dtype()) == "int32");
  REQUIRE(jaxcc::name(jnp::zeros<std::int64_t>({1}).dtype()) == "int64");
  REQUIRE(jaxcc::name(jnp::zeros<bool>({1}).dtype()) == "bool");
}

TEST_CASE("a default Array is an empty float vector and can be assigned", "[array]") {
  Array<float> a;
  REQUIRE(a.shape() == Shape{0});
  REQUIRE(a.size() == 0);
  REQUIRE(a.to_vector().empty());
  a = jnp::ones<float>({2});
  REQUIRE(a.to_vector() == std::vector<float>{1, 1});
}

TEST_CASE("buffers are 64-byte aligned", "[array]") {
  for (int n : {1, 3, 17, 1000}) {
    auto x = jnp::zeros<double>({n});
    REQUIRE(reinterpret_cast<std::uintptr_t>(x.data()) % 64 == 0);
  }
}

TEST_CASE("copies share storage; operations never write into an input", "[array][values]") {
  auto x = jnp::arange<float>(6);
  auto y = x;  // a handle copy: same buffer
  REQUIRE(y.data() == x.data());
  Array<float> z = x + 1.0f;
  REQUIRE(z.data() != x.data());
  REQUIRE(x.to_vector() == std::vector<float>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("item and to_vector", "[array]") {
  REQUIRE(jnp::array(7).item() == 7);
  REQUIRE(jnp::array<double>({2.5}).item() == 2.5);
  REQUIRE(message_of([] { return jnp::arange<float>(3).item(); }) ==
          "item: can only convert an array of size 1 to a scalar, got shape (3,)");
}

TEST_CASE("reshape is a view of contiguous data and infers one -1", "[array][reshape]") {
  auto x = jnp::arange<std::int32_t>(12);
  auto r = x.reshape({3, 4});
  REQUIRE(r.shape() == Shape{3, 4});
  REQUIRE(r.data() == x.data());
  REQUIRE(r.to_vector() == x.to_vector());
  REQUIRE(x.reshape({2, -1, 3}).shape() == Shape{2, 2, 3});
  REQUIRE(x.reshape({-1}).shape() == Shape{12});
  REQUIRE(jnp::array(5.0f).reshape({1, 1}).shape() == Shape{1, 1});
  REQUIRE(jnp::zeros<float>({0, 4}).reshape({4, 0, 7}).shape() == Shape{4, 0, 7});

  SECTION("a transposed view is copied into row-major order first") {
    auto t = r.T().reshape({12});
    std::vector<std::int32_t> expected;
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 3; ++i) expected.push_back(i * 4 + j);
    REQUIRE(t.to_vector() == expected);
  }
  SECTION("size mismatches name both shapes, as JAX does") {
    REQUIRE(message_of([&] { return x.reshape({5, 2}); }) ==
            "cannot reshape array of shape (12,) (size 12) into shape (5, 2) (size 10)");
    REQUIRE(message_of([&] { return x.reshape({5, -1}); }) == "cannot reshape array of shape (12,) (size 12) into shape (5, -1) because the product of specified "
            "axis sizes (5) does not evenly divide 12");
    REQUIRE(message_of([&] { return x.reshape({-1, -1}); }) ==
            "can only specify one unknown axis size with a `-1` value, got (-1, -1)");
  }
}

TEST_CASE("T() and lax::transpose permute strides without copying", "[array][transpose]") {
  auto x = jnp::arange<double>(24).reshape({2, 3, 4});
  auto t = x.T();
  REQUIRE(t.shape() == Shape{4, 3, 2});
  REQUIRE(t.data() == x.data());
  auto xv = x.to_vector();
  auto tv = t.to_vector();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) CHECK(tv[static_cast<std::size_t>(k * 6 + j * 2 + i)] == xv[static_cast<std::size_t>(i * 12 + j * 4 + k)]);

  auto p = jaxcc::lax::transpose(x, {1, 0, 2});
  REQUIRE(p.shape() == Shape{3, 2, 4});
  REQUIRE(p.to_vector()[4] == xv[12]);  // p[0][1][0] == x[1][0][0]
  REQUIRE(jnp::array(1.0f).T().shape() == Shape{});
  REQUIRE(message_of([&] { return jaxcc::lax::transpose(x, {0, 0, 1}); }) ==
          "transpose permutation isn't a permutation of operand dimensions, got permutation (0, 0, 1) for "
          "operand shape (2, 3, 4).");
  REQUIRE(message_of([&] { return jaxcc::lax::transpose(x, {0, 1}); }) ==
          "transpose permutation isn't a permutation of operand dimensions, got permutation (0, 1) for "
          "operand shape (2, 3, 4).");
}

}  // namespace test_array
