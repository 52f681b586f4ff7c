// jnp.einsum against einsum by definition, written out in this file: loop
// over every assignment of every label, multiply the operands' elements
// (index 0 along a size-1 axis, which broadcasts), add into the output.
#include "catch.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/transforms/make_jaxpr.hpp>

#include "support.hpp"

namespace test_einsum {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::for_each_index;
using jaxcc_test::message_of;
using jaxcc_test::mismatch;
using jaxcc_test::sample;

namespace {

/// Einsum by definition for an explicit spec of letters ("ij,jk->ik").
template <class T>
Array<T> reference(std::string const& spec, std::vector<Array<T>> const& operands) {
  auto const arrow = spec.find("->");
  std::vector<std::string> terms(1);
  for (char c : spec.substr(0, arrow)) {
    if (c == ',') terms.emplace_back();
    else terms.back() += c;
  }
  std::string const out = spec.substr(arrow + 2);
  std::string labels;
  std::map<char, std::int64_t> size;
  for (std::size_t t = 0; t < terms.size(); ++t)
    for (std::size_t d = 0; d < terms[t].size(); ++d) {
      char const c = terms[t][d];
      if (labels.find(c) == std::string::npos) labels += c;
      size[c] = std::max(size[c], operands[t].shape()[d]);
      if (operands[t].shape()[d] == 0) size[c] = 0;
    }
  Shape all, out_shape;
  for (char c : labels) all.push_back(size[c]);
  for (char c : out) out_shape.push_back(size[c]);
  std::vector<std::vector<T>> values;
  for (auto const& x : operands) values.push_back(x.to_vector());
  std::vector<T> result(static_cast<std::size_t>(out_shape.numel()), T{0});
  for_each_index(all, [&](auto const& assignment) {
    auto value_of = [&](char c) { return assignment[labels.find(c)]; };
    bool product_bool = true;
    T product{1};
    for (std::size_t t = 0; t < terms.size(); ++t) {
      std::int64_t flat = 0;
      for (std::size_t d = 0; d < terms[t].size(); ++d) {
        auto const n = operands[t].shape()[d];
        flat = flat * n + (n == 1 ? 0 : value_of(terms[t][d]));
      }
      auto const v = values[t][static_cast<std::size_t>(flat)];
      if constexpr (std::is_same_v<T, bool>) product_bool = product_bool && v;
      else product *= v;
    }
    std::int64_t o = 0;
    for (char c : out) o = o * size[c] + value_of(c);
    auto const slot = static_cast<std::size_t>(o);
    if constexpr (std::is_same_v<T, bool>) result[slot] = result[slot] || product_bool;
    else result[slot] += product;
  });
  return jnp::array(result, out_shape);
}

}  // namespace

TEMPLATE_TEST_CASE("einsum matches the definition on every dtype", "[einsum]", float, double, std::int32_t,
                   std::int64_t, bool) {
  using T = TestType;
  auto a = sample<T>({3, 4}, 1), b = sample<T>({4, 5}, 2), c = sample<T>({5, 2}, 3), sq = sample<T>({4, 4}, 4);
  auto v = sample<T>({4}, 5), w = sample<T>({3}, 6);
  auto ba = sample<T>({2, 3, 4}, 7), bb = sample<T>({2, 4, 5}, 8);

  SECTION("matrix product") {
    REQUIRE(mismatch(jnp::einsum("ij,jk->ik", a, b), reference<T>("ij,jk->ik", {a, b})) == "");
  }
  SECTION("trace") {
    auto got = jnp::einsum("ii->", sq);
    REQUIRE(got.shape() == Shape{});
    REQUIRE(mismatch(got, reference<T>("ii->", {sq})) == "");
  }
  SECTION("diagonal") { REQUIRE(mismatch(jnp::einsum("ii->i", sq), reference<T>("ii->i", {sq})) == ""); }
  SECTION("transpose") { REQUIRE(mismatch(jnp::einsum("ij->ji", a), reference<T>("ij->ji", {a})) == ""); }
  SECTION("batched matrix product") {
    REQUIRE(mismatch(jnp::einsum("bij,bjk->bik", ba, bb), reference<T>("bij,bjk->bik", {ba, bb})) == "");
    REQUIRE(mismatch(jnp::einsum("bij,bjk->kbi", ba, bb), reference<T>("bij,bjk->kbi", {ba, bb})) == "");
  }
  SECTION("outer product") { REQUIRE(mismatch(jnp::einsum("i,j->ij", w, v), reference<T>("i,j->ij", {w, v})) == ""); }
  SECTION("sums") {
    REQUIRE(mismatch(jnp::einsum("ij->", a), reference<T>("ij->", {a})) == "");
    REQUIRE(mismatch(jnp::einsum("ij->i", a), reference<T>("ij->i", {a})) == "");
    REQUIRE(mismatch(jnp::einsum("ij->j", a), reference<T>("ij->j", {a})) == "");
    REQUIRE(mismatch(jnp::einsum("bij->jb", ba), reference<T>("bij->jb", {ba})) == "");
  }
  SECTION("three and four operands") {
    REQUIRE(mismatch(jnp::einsum("ij,jk,kl->il", a, b, c), reference<T>("ij,jk,kl->il", {a, b, c})) == "");
    REQUIRE(mismatch(jnp::einsum("ij,jk,kl->", a, b, c), reference<T>("ij,jk,kl->", {a, b, c})) == "");
    REQUIRE(mismatch(jnp::einsum("i,ij,j,jk->k", w, a, v, b), reference<T>("i,ij,j,jk->k", {w, a, v, b})) == "");
    // j is shared by all three and kept: a batch axis, then summed last.
    REQUIRE(mismatch(jnp::einsum("ij,j,jk->j", a, v, b), reference<T>("ij,j,jk->j", {a, v, b})) == "");
  }
  SECTION("elementwise products and inner products") {
    REQUIRE(mismatch(jnp::einsum("i,i->i", v, v), reference<T>("i,i->i", {v, v})) == "");
    REQUIRE(mismatch(jnp::einsum("i,i->", v, v), reference<T>("i,i->", {v, v})) == "");
    REQUIRE(mismatch(jnp::einsum("ij,ij->", a, a), reference<T>("ij,ij->", {a, a})) == "");
  }
  SECTION("repeated labels inside one operand of several") {
    REQUIRE(mismatch(jnp::einsum("ii,ij->j", sq, b), reference<T>("ii,ij->j", {sq, b})) == "");
    REQUIRE(mismatch(jnp::einsum("ii,i->i", sq, v), reference<T>("ii,i->i", {sq, v})) == "");
    auto cube = sample<T>({3, 3, 3}, 9);
    REQUIRE(mismatch(jnp::einsum("iii->i", cube), reference<T>("iii->i", {cube})) == "");
    REQUIRE(mismatch(jnp::einsum("iji->j", cube), reference<T>("iji->j", {cube})) == "");
  }
  SECTION("rank-0 operands") {
    auto s = sample<T>({}, 10);
    REQUIRE(mismatch(jnp::einsum(",ij->ij", s, a), reference<T>(",ij->ij", {s, a})) == "");
    REQUIRE(mismatch(jnp::einsum("ij,->ji", a, s), reference<T>("ij,->ji", {a, s})) == "");
    REQUIRE(mismatch(jnp::einsum("->", s), s) == "");
  }
}

TEST_CASE("einsum: implicit output is the labels used once, sorted (uppercase first)", "[einsum]") {
  auto a = sample<float>({3, 4}, 1), b = sample<float>({4, 5}, 2), sq = sample<float>({4, 4}, 3);
  REQUIRE(mismatch(jnp::einsum("ij,jk", a, b), reference<float>("ij,jk->ik", {a, b})) == "");
  REQUIRE(mismatch(jnp::einsum("ii", sq), reference<float>("ii->", {sq})) == "");
  REQUIRE(mismatch(jnp::einsum("ji", a), reference<float>("ji->ij", {a})) == "");
  REQUIRE(mismatch(jnp::einsum("Ba,ab", a, b), reference<float>("Ba,ab->Bb", {a, b})) == "");
  REQUIRE(mismatch(jnp::einsum(" i j , j k ", a, b), reference<float>("ij,jk->ik", {a, b})) == "");
}

TEST_CASE("einsum: ellipses and size-1 axes broadcast", "[einsum]") {
  auto x = sample<double>({2, 1, 3, 4}, 1), y = sample<double>({5, 4, 2}, 2);
  // The ellipses align to the right: x's (2, 1) with y's (5,), as yz and z.
  auto got = jnp::einsum("...ij,...jk->...ik", x, y);
  REQUIRE(got.shape() == Shape{2, 5, 3, 2});
  REQUIRE(mismatch(got, reference<double>("yzij,zjk->yzik", {x, y})) == "");
  REQUIRE(mismatch(jnp::einsum("...ij,...jk", x, y), got) == "");
  REQUIRE(mismatch(jnp::einsum("ij...->...", sample<double>({3, 4, 2}, 3)),
                reference<double>("ijz->z", {sample<double>({3, 4, 2}, 3)})) == "");
  REQUIRE(mismatch(jnp::einsum("i...i", sample<double>({3, 2, 3}, 4)),
                   reference<double>("izi->z", {sample<double>({3, 2, 3}, 4)})) == "");
  // A contracted label of size 1 in one operand broadcasts against the other's.
  auto col = sample<double>({2, 1}, 5), m = sample<double>({3, 4}, 6);
  REQUIRE(mismatch(jnp::einsum("ij,jk->ik", col, m), reference<double>("ij,jk->ik", {col, m})) == "");
  REQUIRE(mismatch(jnp::einsum("ij,ij->ij", col, sample<double>({2, 5}, 7)),
                reference<double>("ij,ij->ij", {col, sample<double>({2, 5}, 7)})) == "");
}

TEST_CASE("einsum: strided operands, empty dims, dtype promotion, operand lists", "[einsum]") {
  auto a = sample<std::int32_t>({4, 3}, 1), b = sample<std::int32_t>({5, 4}, 2);
  REQUIRE(mismatch(jnp::einsum("ij,jk->ik", a.T(), b.T()), reference<std::int32_t>("ji,kj->ik", {a, b})) == "");
  // The diagonal of a.T() a is the column sums of squares.
  REQUIRE(mismatch(jnp::einsum("ii->i", jnp::matmul(a.T(), a)), reference<std::int32_t>("ji,ji->i", {a, a})) == "");
  auto row = sample<std::int32_t>({3}, 3);
  auto broadcast = jaxcc::detail::view(row, Shape{4, 3}, jaxcc::Strides{0, 1}, 0);
  REQUIRE(mismatch(jnp::einsum("ij,ij->j", broadcast, a), reference<std::int32_t>("ij,ij->j", {broadcast, a})) == "");

  auto empty = jnp::einsum("ij,jk->ik", jnp::ones<float>({2, 0}), jnp::ones<float>({0, 3}));
  REQUIRE(empty.shape() == Shape{2, 3});
  REQUIRE(empty.to_vector() == std::vector<float>(6, 0.f));
  REQUIRE(jnp::einsum("ij->", jnp::ones<float>({0, 3})).item() == 0.f);
  REQUIRE(jnp::einsum("ij->j", jnp::ones<float>({0, 3})).to_vector() == std::vector<float>(3, 0.f));
  REQUIRE(jnp::einsum("ij->i", jnp::ones<float>({0, 3})).shape() == Shape{0});

  auto f = sample<float>({3}, 4);
  STATIC_REQUIRE(std::is_same_v<decltype(jnp::einsum("ij,j->i", a, f)), Array<float>>);
  STATIC_REQUIRE(std::is_same_v<decltype(jnp::einsum("ij,j,j->i", a, row, sample<std::int64_t>({3}, 5))),
                                Array<std::int64_t>>);
  REQUIRE(mismatch(jnp::einsum("ij,j->i", a, f.astype<float>()),
                reference<float>("ij,j->i", {a.astype<float>(), f})) == "");

  std::vector<Array<std::int32_t>> list{a, b, row};
  REQUIRE(mismatch(jnp::einsum("ij,ki,j->k", list), reference<std::int32_t>("ij,ki,j->k", list)) == "");
}

TEST_CASE("einsum errors carry opt_einsum's messages", "[einsum][errors]") {
  auto a = jnp::zeros<float>({2, 3}), b = jnp::zeros<float>({4, 5});
  CHECK(message_of([&] { jnp::einsum("i1,jk", a, b); }) == "einsum: Character 1 is not a valid symbol.");
  CHECK(message_of([&] { jnp::einsum("ij->j->i", a); }) == "einsum: Subscripts can only contain one '->'.");
  CHECK(message_of([&] { jnp::einsum("ij-j", a); }) == "einsum: Subscripts can only contain one '->'.");
  CHECK(message_of([&] { jnp::einsum("ij,jk", a); }) ==
        "einsum: Number of einsum subscripts, 2, must be equal to the number of operands, 1.");
  CHECK(message_of([&] { jnp::einsum("ij", a, b); }) ==
        "einsum: Number of einsum subscripts, 1, must be equal to the number of operands, 2.");
  CHECK(message_of([&] { jnp::einsum(".i...", a); }) == "einsum: Invalid Ellipses.");
  CHECK(message_of([&] { jnp::einsum("...ijk", a); }) == "einsum: Ellipses lengths do not match.");
  CHECK(message_of([&] { jnp::einsum("ij->ii", a); }) ==
        "einsum: Output character 'i' appeared more than once in the output.");
  CHECK(message_of([&] { jnp::einsum("ij->k", a); }) == "einsum: Output character 'k' did not appear in the input");
  CHECK(message_of([&] { jnp::einsum("ijk,jk", a, b); }) ==
        "einsum: Einstein sum subscript 'ijk' does not contain the correct number of indices for operand 0.");
  CHECK(message_of([&] { jnp::einsum("ij,jk", a, b); }) ==
        "einsum: Size of label 'j' for operand 1 (3) does not match previous terms (4).");
  CHECK(message_of([&] { jnp::einsum("ij", std::vector<Array<float>>{}); }) == "einsum: No input operands");
}

TEST_CASE("einsum traces: diagonals, broadcasting and sums are all primitives", "[einsum][trace]") {
  auto f = [](Array<float> const& x, Array<float> const& y) { return jnp::einsum("ii,ij->j", x, y); };
  auto jaxpr = jaxcc::make_jaxpr(f)(jnp::ones<float>({3, 3}), jnp::ones<float>({1, 4}));
  auto const text = to_string(jaxpr);
  CHECK(text.find("dot_general[dimension_numbers=") != std::string::npos);
  CHECK(text.find("squeeze") != std::string::npos);
}

}  // namespace test_einsum
