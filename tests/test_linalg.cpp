// lax.dot_general and jnp's dot, matmul, vdot, inner, outer, tensordot, each
// checked against a contraction written out by definition in this file (a
// loop over every output and contracted index), on every dtype, with batch
// dims, broadcasting, strided (transposed, broadcast, sliced) operands, empty
// dims, rank-0 operands, and JAX's error messages.
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/transforms/make_jaxpr.hpp>

#include "support.hpp"

namespace test_linalg {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc_test::for_each_index;
using jaxcc_test::message_of;
using jaxcc_test::mismatch;
using jaxcc_test::sample;

namespace {

std::int64_t flat(Shape const& shape, std::vector<std::int64_t> const& index) {
  std::int64_t f = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + index[d];
  return f;
}

bool contains(Axes const& axes, std::int64_t d) {
  for (auto a : axes)
    if (a == d) return true;
  return false;
}

/// dot_general by definition: out[b..., l..., r...] = sum over c... of
/// lhs[...] * rhs[...] (logical or of ands for bool), summed in Acc.
template <class Acc, class T>
Array<Acc> reference(Array<T> const& lhs, Array<T> const& rhs, Axes lc, Axes rc, Axes lb = {}, Axes rb = {}) {
  auto const lv = lhs.to_vector(), rv = rhs.to_vector();
  Shape out_shape, contract_shape;
  for (auto a : lb) out_shape.push_back(lhs.shape()[static_cast<std::size_t>(a)]);
  Axes lfree, rfree;
  for (std::int64_t d = 0; d < lhs.ndim(); ++d)
    if (!contains(lb, d) && !contains(lc, d)) lfree.push_back(d), out_shape.push_back(lhs.shape()[static_cast<std::size_t>(d)]);
  for (std::int64_t d = 0; d < rhs.ndim(); ++d)
    if (!contains(rb, d) && !contains(rc, d)) rfree.push_back(d), out_shape.push_back(rhs.shape()[static_cast<std::size_t>(d)]);
  for (auto a : lc) contract_shape.push_back(lhs.shape()[static_cast<std::size_t>(a)]);
  std::vector<Acc> out(static_cast<std::size_t>(out_shape.numel()), Acc{0});
  for_each_index(out_shape, [&](auto const& o) {
    std::vector<std::int64_t> li(static_cast<std::size_t>(lhs.ndim())), ri(static_cast<std::size_t>(rhs.ndim()));
    std::size_t k = 0;
    for (std::size_t i = 0; i < lb.size(); ++i, ++k) li[static_cast<std::size_t>(lb[i])] = ri[static_cast<std::size_t>(rb[i])] = o[k];
    for (auto d : lfree) li[static_cast<std::size_t>(d)] = o[k++];
    for (auto d : rfree) ri[static_cast<std::size_t>(d)] = o[k++];
    Acc sum{0};
    auto accumulate = [&](auto const& c) {
      for (std::size_t i = 0; i < lc.size(); ++i) li[static_cast<std::size_t>(lc[i])] = ri[static_cast<std::size_t>(rc[i])] = c[i];
      auto const a = lv[static_cast<std::size_t>(flat(lhs.shape(), li))];
      auto const b = rv[static_cast<std::size_t>(flat(rhs.shape(), ri))];
      if constexpr (std::is_same_v<Acc, bool>) sum = sum || (a && b);
      else sum += static_cast<Acc>(a) * static_cast<Acc>(b);
    };
    if (contract_shape.empty()) accumulate(std::vector<std::int64_t>{});
    else for_each_index(contract_shape, accumulate);
    out[static_cast<std::size_t>(flat(out_shape, o))] = sum;
  });
  return jnp::array(out, out_shape);
}

/// A view of x's buffer with any shape and strides (broadcast and sliced operands).
template <class T>
Array<T> strided(Array<T> const& x, Shape shape, jaxcc::Strides strides, std::int64_t offset = 0) {
  return jaxcc::detail::view(x, std::move(shape), std::move(strides), jaxcc::detail::offset_of(x) + offset);
}

}  // namespace

TEMPLATE_TEST_CASE("dot follows numpy's rank rules on every dtype", "[linalg]", float, double, std::int32_t,
                   std::int64_t, bool) {
  using T = TestType;
  auto const m23 = sample<T>({2, 3}, 1), m34 = sample<T>({3, 4}, 2), v3 = sample<T>({3}, 3), v4 = sample<T>({4}, 4);

  SECTION("matrix times matrix") { REQUIRE(mismatch(jnp::dot(m23, m34), reference<T>(m23, m34, {1}, {0})) == ""); }
  SECTION("vector times vector is a rank-0 inner product") {
    auto got = jnp::dot(v3, sample<T>({3}, 5));
    REQUIRE(got.shape() == Shape{});
    REQUIRE(mismatch(got, reference<T>(v3, sample<T>({3}, 5), {0}, {0})) == "");
  }
  SECTION("matrix times vector, vector times matrix") {
    REQUIRE(mismatch(jnp::dot(m23, v3), reference<T>(m23, v3, {1}, {0})) == "");
    REQUIRE(mismatch(jnp::dot(v3, m34), reference<T>(v3, m34, {0}, {0})) == "");
  }
  SECTION("N-D times M-D contracts a's last axis with b's second-to-last; batch axes stack") {
    auto a = sample<T>({2, 3, 4}, 6), b = sample<T>({5, 4, 3}, 7);
    auto got = jnp::dot(a, b);
    REQUIRE(got.shape() == Shape{2, 3, 5, 3});
    REQUIRE(mismatch(got, reference<T>(a, b, {2}, {1})) == "");
    REQUIRE(mismatch(jnp::dot(a, v4), reference<T>(a, v4, {2}, {0})) == "");
  }
  SECTION("a rank-0 operand multiplies") {
    auto s = sample<T>({}, 8);
    REQUIRE(mismatch(jnp::dot(s, m23), reference<T>(s, m23, {}, {})) == "");
    REQUIRE(mismatch(jnp::dot(m23, s), reference<T>(m23, s, {}, {})) == "");
    REQUIRE(mismatch(jnp::dot(s, s), reference<T>(s, s, {}, {})) == "");
  }
}

TEMPLATE_TEST_CASE("matmul broadcasts batch dims and promotes 1-D operands", "[linalg]", float, double,
                   std::int32_t, std::int64_t, bool) {
  using T = TestType;
  // Reference: broadcast the batch dims by hand, then one matrix product per batch.
  auto reference_matmul = [](Array<T> const& a, Array<T> const& b) {
    auto const av = a.to_vector(), bv = b.to_vector();
    auto const ab = Shape(a.shape().begin(), a.shape().end() - 2), bb = Shape(b.shape().begin(), b.shape().end() - 2);
    auto const batch = jaxcc::detail::broadcast_shapes(ab, bb, "reference");
    auto const m = a.shape()[a.shape().size() - 2], k = a.shape().back(), n = b.shape().back();
    Shape out_shape = batch;
    out_shape.push_back(m);
    out_shape.push_back(n);
    std::vector<T> out;
    for_each_index(out_shape, [&](auto const& o) {
      auto source = [&](Shape const& s) {  // row-major index of the broadcast batch in an operand
        std::int64_t f = 0;
        for (std::size_t d = 0; d < s.size(); ++d) {
          auto const i = o[d + batch.size() - s.size()];
          f = f * s[d] + (s[d] == 1 ? 0 : i);
        }
        return f;
      };
      auto const i = o[batch.size()], j = o[batch.size() + 1];
      bool any = false;
      T sum{0};
      for (std::int64_t p = 0; p < k; ++p) {
        auto x = av[static_cast<std::size_t>((source(ab) * m + i) * k + p)];
        auto y = bv[static_cast<std::size_t>((source(bb) * k + p) * n + j)];
        if constexpr (std::is_same_v<T, bool>) any = any || (x && y);
        else sum += x * y;
      }
      if constexpr (std::is_same_v<T, bool>) out.push_back(any);
      else out.push_back(sum);
    });
    return jnp::array(out, out_shape);
  };

  SECTION("equal batch dims") {
    auto a = sample<T>({3, 2, 4}, 1), b = sample<T>({3, 4, 5}, 2);
    REQUIRE(mismatch(jnp::matmul(a, b), reference_matmul(a, b)) == "");
  }
  SECTION("size-1 and missing batch dims broadcast") {
    auto a = sample<T>({2, 1, 3, 4}, 3), b = sample<T>({5, 4, 2}, 4);
    auto got = jnp::matmul(a, b);
    REQUIRE(got.shape() == Shape{2, 5, 3, 2});
    REQUIRE(mismatch(got, reference_matmul(a, b)) == "");
    auto c = sample<T>({1, 4, 2}, 5);
    REQUIRE(mismatch(jnp::matmul(a, c), reference_matmul(a, c)) == "");
    REQUIRE(mismatch(jnp::matmul(c, sample<T>({3, 1, 2, 6}, 6)), reference_matmul(c, sample<T>({3, 1, 2, 6}, 6))) ==
            "");
    auto plain = sample<T>({3, 4}, 7), stack = sample<T>({6, 4, 5}, 8);
    REQUIRE(mismatch(jnp::matmul(plain, stack), reference_matmul(plain, stack)) == "");
    auto stack_t = lax::transpose(stack, {0, 2, 1});
    REQUIRE(mismatch(jnp::matmul(stack_t, plain.T()), reference_matmul(stack_t, plain.T())) == "");
  }
  SECTION("1-D operands: a row on the left, a column on the right, axis dropped") {
    auto v = sample<T>({4}, 9), stack = sample<T>({2, 4, 5}, 10), mats = sample<T>({2, 3, 4}, 11);
    auto left = jnp::matmul(v, stack);
    REQUIRE(left.shape() == Shape{2, 5});
    REQUIRE(mismatch(left, jnp::array(reference_matmul(v.reshape({1, 4}), stack).to_vector(), Shape{2, 5})) == "");
    auto right = jnp::matmul(mats, v);
    REQUIRE(right.shape() == Shape{2, 3});
    REQUIRE(mismatch(right, jnp::array(reference_matmul(mats, v.reshape({4, 1})).to_vector(), Shape{2, 3})) == "");
    auto both = jnp::matmul(v, sample<T>({4}, 12));
    REQUIRE(both.shape() == Shape{});
    REQUIRE(mismatch(both, reference<T>(v, sample<T>({4}, 12), {0}, {0})) == "");
  }
}

TEMPLATE_TEST_CASE("lax.dot_general: batch and contracting dims anywhere, in any order", "[linalg]", float,
                   std::int32_t, std::int64_t, bool) {
  using T = TestType;
  auto lhs = sample<T>({3, 2, 4, 5}, 1), rhs = sample<T>({5, 2, 6, 4}, 2);
  // Batch lhs 1 with rhs 1; contract (lhs 3, lhs 2) with (rhs 0, rhs 3).
  auto got = lax::dot_general(lhs, rhs, {{3, 2}, {0, 3}, {1}, {1}});
  REQUIRE(got.shape() == Shape{2, 3, 6});
  REQUIRE(mismatch(got, reference<T>(lhs, rhs, {3, 2}, {0, 3}, {1}, {1})) == "");
  // No contraction at all: a batched outer product.
  auto outer = lax::dot_general(lhs, rhs, {{}, {}, {1}, {1}});
  REQUIRE(outer.shape() == Shape{2, 3, 4, 5, 5, 6, 4});
  REQUIRE(mismatch(outer, reference<T>(lhs, rhs, {}, {}, {1}, {1})) == "");
}

TEMPLATE_TEST_CASE("strided operands: transposed, broadcast (stride 0) and sliced views", "[linalg]", float, double,
                   std::int32_t) {
  using T = TestType;
  auto a = sample<T>({4, 3}, 1), b = sample<T>({5, 4}, 2);
  SECTION("transposed views read column-major without a copy") {
    REQUIRE(mismatch(jnp::dot(a.T(), b.T()), reference<T>(a.T(), b.T(), {1}, {0})) == "");
    REQUIRE(mismatch(jnp::matmul(a.T(), a), reference<T>(a.T(), a, {1}, {0})) == "");
    REQUIRE(mismatch(jnp::matmul(b, a), reference<T>(b, a, {1}, {0})) == "");
    auto cube = sample<T>({2, 3, 4}, 3);
    auto perm = lax::transpose(cube, {2, 0, 1});  // (4, 2, 3), strides mixed
    REQUIRE(mismatch(lax::dot_general(perm, a, {{0}, {0}}), reference<T>(perm, a, {0}, {0})) == "");
    REQUIRE(mismatch(lax::dot_general(perm, cube, {{1, 2}, {0, 1}}), reference<T>(perm, cube, {1, 2}, {0, 1})) == "");
  }
  SECTION("broadcast operands") {
    auto row = sample<T>({3}, 4);
    auto rows = strided(row, {4, 3}, {0, 1});   // every row the same
    auto cols = strided(row, {3, 4}, {1, 0});   // every column the same
    auto everywhere = strided(row, {3, 5}, {0, 0});
    REQUIRE(mismatch(jnp::dot(rows, cols), reference<T>(rows, cols, {1}, {0})) == "");
    REQUIRE(mismatch(jnp::dot(cols.T(), rows.T()), reference<T>(cols.T(), rows.T(), {1}, {0})) == "");
    REQUIRE(mismatch(jnp::dot(a, everywhere), reference<T>(a, everywhere, {1}, {0})) == "");
    auto stack = strided(a, {6, 4, 3}, {0, 3, 1});  // a batch of six copies of a
    REQUIRE(mismatch(jnp::matmul(stack, cols), reference<T>(stack, cols, {2}, {0})) == "");
  }
  SECTION("sliced operands (no unit stride on either axis) are copied once") {
    auto big = sample<T>({8, 6}, 5);
    auto every_other = strided(big, {4, 3}, {12, 2}, 1);  // big[::2, 1::2]
    REQUIRE(mismatch(jnp::dot(every_other, sample<T>({3, 2}, 6)),
                     reference<T>(every_other, sample<T>({3, 2}, 6), {1}, {0})) == "");
    REQUIRE(mismatch(jnp::dot(every_other.T(), a), reference<T>(every_other.T(), a, {1}, {0})) == "");
  }
  SECTION("fused expressions as operands") {
    auto expr = a * T(2) + a;
    REQUIRE(mismatch(jnp::dot(b, expr), reference<T>(b, Array<T>(expr), {1}, {0})) == "");
  }
}

TEST_CASE("empty dims: a zero-size contraction gives zeros, zero-size free dims an empty result", "[linalg]") {
  auto got = jnp::dot(jnp::zeros<float>({2, 0}), jnp::zeros<float>({0, 3}));
  REQUIRE(got.shape() == Shape{2, 3});
  REQUIRE(got.to_vector() == std::vector<float>(6, 0.f));
  auto ints = jnp::matmul(jnp::ones<std::int64_t>({4, 2, 0}), jnp::ones<std::int64_t>({4, 0, 3}));
  REQUIRE(ints.shape() == Shape{4, 2, 3});
  REQUIRE(ints.to_vector() == std::vector<std::int64_t>(24, 0));
  auto bools = jnp::dot(jnp::ones<bool>(Shape{0}), jnp::ones<bool>(Shape{0}));
  REQUIRE(bools.shape() == Shape{});
  REQUIRE(bools.item() == false);
  REQUIRE(jnp::dot(jnp::ones<float>({0, 3}), jnp::ones<float>({3, 4})).shape() == Shape{0, 4});
  REQUIRE(jnp::matmul(jnp::ones<double>({0, 2, 3}), jnp::ones<double>({3, 4})).shape() == Shape{0, 2, 4});
  REQUIRE(jnp::vdot(jnp::ones<float>(Shape{0}), jnp::ones<float>({0, 5})).item() == 0.f);
}

TEST_CASE("operands are promoted to their common dtype, as jnp does", "[linalg]") {
  auto i32 = sample<std::int32_t>({2, 3}, 1);
  auto i64 = sample<std::int64_t>({3, 2}, 2);
  auto f32 = sample<float>({3, 2}, 3);
  auto f64 = sample<double>({3, 2}, 4);
  auto b = sample<bool>({3, 2}, 5);
  STATIC_REQUIRE(std::is_same_v<decltype(jnp::dot(i32, i64)), Array<std::int64_t>>);
  STATIC_REQUIRE(std::is_same_v<decltype(jnp::matmul(i32, f32)), Array<float>>);
  STATIC_REQUIRE(std::is_same_v<decltype(jnp::dot(i32, f64)), Array<double>>);
  STATIC_REQUIRE(std::is_same_v<decltype(jnp::dot(i32, b)), Array<std::int32_t>>);
  REQUIRE(mismatch(jnp::dot(i32, f32), reference<float>(i32.astype<float>(), f32, {1}, {0})) == "");
  REQUIRE(mismatch(jnp::dot(i32, b), reference<std::int32_t>(i32, b.astype<std::int32_t>(), {1}, {0})) == "");
}

TEST_CASE("vdot, inner, outer and tensordot", "[linalg]") {
  auto a = sample<float>({2, 3}, 1), b = sample<float>({3, 2}, 2);
  SECTION("vdot flattens both operands") {
    // sum of a.ravel() * b.ravel(), by hand.
    auto av = a.to_vector(), bv = b.to_vector();
    float sum = 0;
    for (std::size_t i = 0; i < av.size(); ++i) sum += av[i] * bv[i];
    auto got = jnp::vdot(a, b);
    REQUIRE(got.shape() == Shape{});
    REQUIRE(got.item() == sum);
    REQUIRE(jnp::vdot(a.T(), b).item() == reference<float>(a.T().reshape({-1}), b.reshape({-1}), {0}, {0}).item());
  }
  SECTION("inner contracts the last axes") {
    auto c = sample<float>({4, 3}, 3);
    REQUIRE(mismatch(jnp::inner(a, c), reference<float>(a, c, {1}, {1})) == "");
    auto s = jnp::array(2.f);
    REQUIRE(mismatch(jnp::inner(s, a), reference<float>(s, a, {}, {})) == "");
  }
  SECTION("outer flattens and multiplies every pair") {
    auto x = jnp::array({1, 2, 3});
    auto y = jnp::array({{4.f, 5.f}, {6.f, 7.f}});
    auto got = jnp::outer(x, y);
    // Worked by hand: rows are 1, 2, 3 times (4, 5, 6, 7).
    REQUIRE(got.shape() == Shape{3, 4});
    REQUIRE(got.to_vector() == std::vector<float>{4, 5, 6, 7, 8, 10, 12, 14, 12, 15, 18, 21});
    auto flags = jnp::outer(jnp::array({true, false}), jnp::array({true, true, false}));
    REQUIRE(flags.to_vector() == std::vector<bool>{true, true, false, false, false, false});
  }
  SECTION("tensordot with an axis count and with axis lists") {
    auto x = sample<double>({2, 3, 4}, 4), y = sample<double>({3, 4, 5}, 5);
    REQUIRE(mismatch(jnp::tensordot(x, y), reference<double>(x, y, {1, 2}, {0, 1})) == "");
    auto z = sample<double>({4, 5}, 6);
    REQUIRE(mismatch(jnp::tensordot(x, z, 1), reference<double>(x, z, {2}, {0})) == "");
    REQUIRE(mismatch(jnp::tensordot(x, y, 0), reference<double>(x, y, {}, {})) == "");
    REQUIRE(mismatch(jnp::tensordot(x, y, {{1, 2}, {0, 1}}), reference<double>(x, y, {1, 2}, {0, 1})) == "");
    REQUIRE(mismatch(jnp::tensordot(x, y, {{-1, 1}, {1, 0}}), reference<double>(x, y, {2, 1}, {1, 0})) == "");
    REQUIRE(mismatch(jnp::tensordot(x, y, {{1}, {0}}), reference<double>(x, y, {1}, {0})) == "");
  }
}

TEST_CASE("large products match the loop within float tolerance", "[linalg]") {
  SECTION("300x200 times 200x100, plain and transposed") {
    auto a = sample<float>({300, 200}, 1), b = sample<float>({200, 100}, 2);
    // Small integers: every partial sum is exact in float, so this is exact too.
    REQUIRE(mismatch(jnp::matmul(a, b), reference<float>(a, b, {1}, {0})) == "");
    auto bt = sample<float>({100, 200}, 3);
    REQUIRE(mismatch(jnp::matmul(a, bt.T()), reference<float>(a, bt.T(), {1}, {0})) == "");
  }
  SECTION("non-integer values, float and double") {
    auto a = jnp::sin(jnp::arange<float>(0, 300 * 200).reshape({300, 200}));
    auto b = jnp::cos(jnp::arange<float>(0, 200 * 100).reshape({200, 100}) * 0.37f);
    Array<float> af = a, bf = b;
    Array<double> expected = reference<double>(af, bf, {1}, {0});
    REQUIRE_THAT(Array<double>(jnp::matmul(af, bf).astype<double>()), jaxcc::testing::AllClose(expected, 1e-4, 1e-4));
    Array<double> ad = af.astype<double>(), bd = bf.astype<double>();
    REQUIRE_THAT(jnp::matmul(ad.T().T(), bd), jaxcc::testing::AllClose(expected, 1e-12, 1e-12));
  }
  SECTION("many small batches (split over threads) and a shared right operand") {
    auto a = sample<float>({512, 8, 8}, 4), b = sample<float>({512, 8, 8}, 5);
    REQUIRE(mismatch(jnp::matmul(a, b), reference<float>(a, b, {2}, {1}, {0}, {0})) == "");
    auto c = sample<std::int32_t>({8, 50, 60}, 6), d = sample<std::int32_t>({60, 40}, 7);
    REQUIRE(mismatch(jnp::matmul(c, d), reference<std::int32_t>(c, d, {2}, {0})) == "");
  }
}

TEST_CASE("errors carry JAX's messages", "[linalg][errors]") {
  auto m23 = jnp::zeros<float>({2, 3}), m45 = jnp::zeros<float>({4, 5});
  CHECK(message_of([&] { jnp::dot(m23, m45); }) ==
        "dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).");
  CHECK(message_of([&] { jnp::matmul(m23, m45); }) ==
        "dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).");
  CHECK(message_of([&] { jnp::matmul(m23, jnp::array(1.f)); }) ==
        "matmul input operand 1 must have ndim at least 1, but it has ndim 0");
  CHECK(message_of([&] { jnp::matmul(jnp::array(1), m23); }) ==
        "matmul input operand 0 must have ndim at least 1, but it has ndim 0");
  CHECK(message_of([&] { jnp::matmul(jnp::zeros<float>({2, 3, 4}), jnp::zeros<std::int32_t>({5, 4, 2})); }) ==
        "Incompatible types for matmul arguments: float32[2,3,4] and int32[5,4,2]");
  CHECK(message_of([&] { jnp::vdot(m23, m45); }) ==
        "dot_general requires contracting dimensions to have the same shape, got (6,) and (20,).");

  auto x = jnp::zeros<float>({2, 3, 4}), y = jnp::zeros<float>({2, 4, 5});
  CHECK(message_of([&] { lax::dot_general(x, y, {{3}, {1}}); }) ==
        "dot_general requires lhs dimension numbers to be nonnegative and less than the number of axes of the lhs "
        "value, got lhs_batch of () and lhs_contracting of (3,) for lhs of rank 3");
  CHECK(message_of([&] { lax::dot_general(x, y, {{2}, {-1}, {0}, {0}}); }) ==
        "dot_general requires rhs dimension numbers to be nonnegative and less than the number of axes of the rhs "
        "value, got rhs_batch of (0,) and rhs_contracting of (-1,) for rhs of rank 3");
  CHECK(message_of([&] { lax::dot_general(x, y, {{2}, {1}, {0}, {}}); }) ==
        "dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, got lhs_batch (0,) and rhs_batch ().");
  CHECK(message_of([&] { lax::dot_general(x, y, {{2}, {1}, {0, 0}, {0, 2}}); }) ==
        "dot_general requires lhs batch dimensions to be distinct, got lhs_batch (0, 0).");
  CHECK(message_of([&] { lax::dot_general(x, y, {{2}, {1}, {0, 1}, {0, 0}}); }) ==
        "dot_general requires rhs batch dimensions to be distinct, got rhs_batch (0, 0).");
  CHECK(message_of([&] { lax::dot_general(x, y, {{2, 2}, {1, 1}}); }) ==
        "dot_general requires lhs contracting dimensions to be distinct, got lhs_contracting (2, 2).");
  CHECK(message_of([&] { lax::dot_general(x, y, {{2, 1}, {1, 1}}); }) ==
        "dot_general requires rhs contracting dimensions to be distinct, got rhs_contracting (1, 1).");
  CHECK(message_of([&] { lax::dot_general(x, y, {{2}, {1}, {2}, {0}}); }) ==
        "dot_general requires lhs batch dimensions to be disjoint from contracting dimensions, got lhs_batch (2,) "
        "and lhs_contracting (2,).");
  CHECK(message_of([&] { lax::dot_general(x, y, {{2}, {1}, {0}, {1}}); }) ==
        "dot_general requires rhs batch dimensions to be disjoint from contracting dimensions, got rhs_batch (1,) "
        "and rhs_contracting (1,).");
  CHECK(message_of([&] { lax::dot_general(x, y, {{2}, {1}, {1}, {2}}); }) ==
        "dot_general requires lhs batch dimensions and rhs batch dimensions to have the same shape, got (3,) and "
        "(5,).");
  CHECK(message_of([&] { lax::dot_general(x, y, {{2, 1}, {1, 0}}); }) ==
        "dot_general requires contracting dimensions to have the same shape, got (4, 3) and (4, 2).");

  CHECK(message_of([&] { jnp::tensordot(x, m23, 3); }) ==
        "Number of tensordot axes (axes 3) exceeds input ranks ((2, 3, 4) and (2, 3))");
  CHECK(message_of([&] { jnp::tensordot(x, y, {{1, 2}, {0}}); }) ==
        "tensordot requires axes lists to have equal length, got [1, 2] and [0].");
  CHECK(message_of([&] { jnp::tensordot(x, y, {{3}, {0}}); }) ==
        "tensordot: axis 3 is out of bounds for array of dimension 3");
}

TEST_CASE("matmul traces to squeeze, dot_general and transpose", "[linalg][trace]") {
  auto f = [](Array<float> const& a, Array<float> const& b) { return jnp::matmul(a, b); };
  auto const text = to_string(jaxcc::make_jaxpr(f)(jnp::ones<float>({2, 1, 3, 4}), jnp::ones<float>({5, 4, 2})));
  CHECK(text.find("dimension_numbers=(([2], [1]), ([], []))") != std::string::npos);
  CHECK(text.find("squeeze") != std::string::npos);
}

}  // namespace test_linalg
