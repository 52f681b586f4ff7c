// Creation functions, checked against values worked out by hand or by a loop.
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "shape_golden.hpp"
#include "support.hpp"

namespace test_creation {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;

TEST_CASE("array from nested initializer lists", "[creation]") {
  auto a = jnp::array({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  STATIC_REQUIRE(std::is_same_v<decltype(a), Array<float>>);
  REQUIRE(a.shape() == Shape{2, 3});
  REQUIRE(a.to_vector() == std::vector<float>{1, 2, 3, 4, 5, 6});
  auto b = jnp::array<std::int64_t>({{{1, 2}}, {{3, 4}}});
  REQUIRE(b.shape() == Shape{2, 1, 2});
  auto c = jnp::array<bool>({true, false, true});
  REQUIRE(c.to_vector() == std::vector<bool>{true, false, true});
  auto d = jnp::array<double>({{{{1}}}});
  REQUIRE(d.shape() == Shape{1, 1, 1, 1});
  auto s = jnp::array(2.5);
  REQUIRE(s.shape() == Shape{});
  REQUIRE(s.item() == 2.5);
  auto empty = jnp::array<float>(std::initializer_list<float>{});
  REQUIRE(empty.shape() == Shape{0});
  REQUIRE(message_of([] { return jnp::array<float>({{1, 2}, {3}}); }) ==
          "array: ragged nested initializer list: a list at depth 1 has 1 elements where the first had 2; all lists at "
          "one depth must have equal lengths");
}

TEST_CASE("array from data and a shape", "[creation]") {
  auto a = jnp::array(std::vector<double>{1, 2, 3, 4, 5, 6}, Shape{3, 2});
  REQUIRE(a.shape() == Shape{3, 2});
  REQUIRE(a.to_vector()[5] == 6);
  REQUIRE(message_of([] { return jnp::array(std::vector<float>{1, 2, 3}, Shape{2, 2}); }) ==
          "array: 3 values cannot fill shape (2, 2) (size 4)");
}

TEST_CASE("zeros, ones, full and their _like forms", "[creation]") {
  REQUIRE(jnp::zeros<float>({2, 2}).to_vector() == std::vector<float>(4, 0.0f));
  REQUIRE(jnp::ones<std::int32_t>({3}).to_vector() == std::vector<std::int32_t>{1, 1, 1});
  REQUIRE(jnp::ones<float>(4).shape() == Shape{4});
  REQUIRE(jnp::full<double>({2}, 7.5).to_vector() == std::vector<double>{7.5, 7.5});
  REQUIRE(jnp::full<bool>({2}, 1).to_vector() == std::vector<bool>{true, true});
  REQUIRE(jnp::zeros<float>(Shape{}).shape() == Shape{});
  REQUIRE(jnp::zeros<float>({}).shape() == Shape{});  // like jnp.zeros(()), not a length 0
  REQUIRE(jnp::full<float>(3, 1.5f).to_vector() == std::vector<float>{1.5f, 1.5f, 1.5f});
  auto like = jnp::full_like(jnp::zeros<std::int64_t>({2, 3}), 9);
  STATIC_REQUIRE(std::is_same_v<decltype(like), Array<std::int64_t>>);
  REQUIRE(like.shape() == Shape{2, 3});
  REQUIRE(jnp::ones_like(jnp::zeros<float>({1, 2})).to_vector() == std::vector<float>{1, 1});
  REQUIRE(jnp::zeros_like(jnp::ones<float>({3}) * 2.0f).to_vector() == std::vector<float>{0, 0, 0});
  REQUIRE(message_of([] { return jnp::zeros<float>({2, -1}); }) ==
          "full: negative dimensions are not allowed, got shape (2, -1)");
}

TEST_CASE("arange counts like numpy", "[creation]") {
  REQUIRE(jnp::arange<std::int32_t>(5).to_vector() == std::vector<std::int32_t>{0, 1, 2, 3, 4});
  REQUIRE(jnp::arange<std::int32_t>(2, 11, 3).to_vector() == std::vector<std::int32_t>{2, 5, 8});
  REQUIRE(jnp::arange<std::int32_t>(5, 0, -2).to_vector() == std::vector<std::int32_t>{5, 3, 1});
  REQUIRE(jnp::arange<float>(0.0, 1.0, 0.25).to_vector() == std::vector<float>{0, 0.25f, 0.5f, 0.75f});
  REQUIRE(jnp::arange<float>(3, 1).size() == 0);
  // ceil((1 - 0) / 0.3) = 4 elements: 0, .3, .6, .9
  REQUIRE(jnp::arange<double>(0.0, 1.0, 0.3).size() == 4);
  REQUIRE(message_of([] { return jnp::arange<float>(0, 1, 0); }) == "arange: step must not be zero");
}

TEST_CASE("linspace includes the endpoint unless asked not to", "[creation]") {
  REQUIRE(jnp::linspace<double>(0, 1, 5).to_vector() == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
  REQUIRE(jnp::linspace<double>(0, 1, 4, false).to_vector() == std::vector<double>{0, 0.25, 0.5, 0.75});
  REQUIRE(jnp::linspace<float>(2, 3, 1).to_vector() == std::vector<float>{2});
  REQUIRE(jnp::linspace<float>(2, 3, 0).size() == 0);
  REQUIRE(jnp::linspace<float>(0, 10).size() == 50);
  // Integer dtypes floor the float values: -1, -0.5, 0, 0.5, 1 → -1, -1, 0, 0, 1.
  REQUIRE(jnp::linspace<std::int32_t>(-1, 1, 5).to_vector() == std::vector<std::int32_t>{-1, -1, 0, 0, 1});
  REQUIRE(message_of([] { return jnp::linspace<float>(0, 1, -1); }) ==
          "linspace: number of samples, -1, must be non-negative.");
}

TEST_CASE("eye puts ones on a diagonal", "[creation]") {
  REQUIRE(jnp::eye<float>(3).to_vector() == std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  REQUIRE(jnp::eye<std::int32_t>(2, 3, 1).to_vector() == std::vector<std::int32_t>{0, 1, 0, 0, 0, 1});
  REQUIRE(jnp::eye<std::int32_t>(3, 2, -1).to_vector() == std::vector<std::int32_t>{0, 0, 1, 0, 0, 1});
  REQUIRE(jnp::eye<double>(0).shape() == Shape{0, 0});
}

TEST_CASE("logspace, geomspace, identity, empty match JAX; copy", "[creation]") {
  using jaxcc_test::shape_golden::parts;
  jaxcc_test::shape_golden::check_cases(
      "creation/",
      {
          {"logspace", [] { return parts(jnp::logspace(0.0, 2.0, 5)); }},
          {"logspace_base", [] { return parts(jnp::logspace(-1.0, 1.5, 4, false, 2.0)); }},
          {"geomspace", [] { return parts(jnp::geomspace(1.0, 1000.0, 4)); }},
          {"geomspace_neg", [] { return parts(jnp::geomspace(-2.0, -32.0, 5, false)); }},
          {"identity", [] { return parts(jnp::identity(3)); }},
          {"identity_int", [] { return parts(jnp::identity<std::int32_t>(2)); }},
          {"empty", [] { return parts(jnp::empty({2, 3})); }},
      });
  auto const x = jnp::array({1.f, 2.f});
  CHECK(jnp::copy(x * 2.f).to_vector() == std::vector<float>{2.f, 4.f});
  CHECK(jnp::empty_like(jnp::ones<std::int32_t>({2, 1})).shape() == Shape{2, 1});
  CHECK(jnp::logspace<double>(0.0, 3.0, 4).to_vector() == std::vector<double>{1, 10, 100, 1000});
}

}  // namespace test_creation
