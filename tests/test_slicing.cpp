// lax::slice, lax::dynamic_slice and lax::dynamic_update_slice: values
// against reference loops and JAX's documented examples, views versus
// copies, clamping of start indices, non-contiguous operands, empty and
// rank-0 cases, and JAX's error messages.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_slicing {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::shares_buffer;
using jaxcc_test::values;

namespace {

// x[i, j] = 4 * i + j: JAX's docstring operand `jnp.arange(12).reshape(3, 4)`.
Array<std::int32_t> arange34() { return jnp::arange<std::int32_t>(12).reshape({3, 4}); }

}  // namespace

TEST_CASE("lax::slice matches JAX's docstring examples", "[slicing][slice]") {
  auto x = arange34();
  auto a = lax::slice(x, {1, 0}, {3, 2});
  REQUIRE(a.shape() == Shape{2, 2});
  REQUIRE(a.to_vector() == values<std::int32_t>({4, 5, 8, 9}));
  auto b = lax::slice(x, {0, 0}, {3, 4}, {1, 2});
  REQUIRE(b.shape() == Shape{3, 2});
  REQUIRE(b.to_vector() == values<std::int32_t>({0, 2, 4, 6, 8, 10}));
  // Both are views of x's buffer.
  REQUIRE(shares_buffer(a, x));
  REQUIRE(shares_buffer(b, x));
}

TEST_CASE("lax::slice with strides matches a reference loop", "[slicing][slice]") {
  // x[i, j, k] = 100 i + 10 j + k over shape (4, 5, 6).
  std::vector<float> data;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 6; ++k) data.push_back(static_cast<float>(100 * i + 10 * j + k));
  auto x = jnp::array(data, Shape{4, 5, 6});
  struct Case {
    std::vector<std::int64_t> start, limit, strides;
  };
  for (auto const& c : {Case{{0, 0, 0}, {4, 5, 6}, {1, 1, 1}}, Case{{1, 0, 2}, {4, 5, 6}, {2, 3, 2}},
                        Case{{3, 1, 5}, {4, 5, 6}, {1, 4, 7}}, Case{{0, 2, 1}, {4, 2, 6}, {1, 1, 3}}}) {
    jaxcc::Axes start(c.start.begin(), c.start.end()), limit(c.limit.begin(), c.limit.end()),
        strides(c.strides.begin(), c.strides.end());
    auto y = lax::slice(x, start, limit, strides);
    std::vector<float> expected;
    Shape expected_shape;
    for (int d = 0; d < 3; ++d) {
      std::int64_t n = 0;
      for (auto i = c.start[d]; i < c.limit[d]; i += c.strides[d]) ++n;
      expected_shape.push_back(n);
    }
    for (auto i = c.start[0]; i < c.limit[0]; i += c.strides[0])
      for (auto j = c.start[1]; j < c.limit[1]; j += c.strides[1])
        for (auto k = c.start[2]; k < c.limit[2]; k += c.strides[2])
          expected.push_back(static_cast<float>(100 * i + 10 * j + k));
    REQUIRE(y.shape() == expected_shape);
    REQUIRE(y.to_vector() == expected);
  }
}

TEST_CASE("lax::slice reads non-contiguous operands and chains of views", "[slicing][slice]") {
  auto x = arange34();
  // Transposed: t[j, i] = 4 i + j, shape (4, 3).
  auto t = x.T();
  auto s = lax::slice(t, {1, 0}, {4, 3}, {2, 2});  // rows 1, 3; columns 0, 2
  REQUIRE(s.shape() == Shape{2, 2});
  REQUIRE(s.to_vector() == values<std::int32_t>({1, 9, 3, 11}));
  // Broadcast (stride 0) rows, then a transpose, then a strided slice.
  auto row = jnp::array<std::int32_t>({10, 20, 30});
  auto b = jnp::broadcast_to(row, Shape{4, 3});  // b[i, j] = row[j]
  auto c = lax::slice(b.T(), {0, 1}, {3, 4}, {2, 2});  // (b.T)[j, i] = row[j], j in {0, 2}, i in {1, 3}
  REQUIRE(c.to_vector() == values<std::int32_t>({10, 10, 30, 30}));
  // A slice of a slice.
  auto d = lax::slice(lax::slice(x, {1, 1}, {3, 4}), {1, 0}, {2, 3}, {1, 2});
  REQUIRE(d.to_vector() == values<std::int32_t>({9, 11}));
}

TEST_CASE("lax::slice: empty results, rank 0, bool", "[slicing][slice]") {
  auto x = arange34();
  auto e = lax::slice(x, {3, 0}, {3, 4});
  REQUIRE(e.shape() == Shape{0, 4});
  REQUIRE(e.to_vector().empty());
  auto e2 = lax::slice(x, {1, 4}, {2, 4}, {1, 3});
  REQUIRE(e2.shape() == Shape{1, 0});
  auto scalar = jnp::array(7.5f);
  REQUIRE(lax::slice(scalar, {}, {}).item() == 7.5f);
  auto flags = jnp::array({true, false, true, true});
  REQUIRE(lax::slice(flags, {1}, {4}, {2}).to_vector() == values({false, true}));
  // An expression operand is materialized first.
  REQUIRE(lax::slice(x * 2, {2, 3}, {3, 4}).item() == 22);
}

TEST_CASE("lax::slice errors are JAX's", "[slicing][slice][errors]") {
  auto x = arange34();
  REQUIRE(message_of([&] { lax::slice(x, {0}, {3}); }) ==
          "slice start_indices must have length equal to the number of dimensions of the operand, got indices (0,) "
          "for operand shape (3, 4).");
  REQUIRE(message_of([&] { lax::slice(x, {0, 0}, {3}); }) ==
          "slice limit_indices must have the same length as start_indices, got start_indices (0, 0) and "
          "limit_indices (3,).");
  REQUIRE(message_of([&] { lax::slice(x, {0, 0}, {4, 4}); }) ==
          "slice limit_indices must be less than or equal to operand shape, got limit_indices (4, 4) for operand "
          "shape (3, 4).");
  REQUIRE(message_of([&] { lax::slice(x, {-1, 0}, {2, 4}); }) ==
          "slice start_indices must have every element be nonnegative, got (-1, 0).");
  REQUIRE(message_of([&] { lax::slice(x, {2, 0}, {1, 4}); }) ==
          "slice limit_indices must be greater than or equal to start_indices, got start_indices (2, 0) and "
          "limit_indices (1, 4).");
  REQUIRE(message_of([&] { lax::slice(x, {0, 0}, {3, 4}, {1}); }) ==
          "slice strides must have length equal to the number of dimensions of the operand, got strides (1,) for "
          "operand shape (3, 4).");
  REQUIRE(message_of([&] { lax::slice(x, {0, 0}, {3, 4}, {1, 0}); }) == "slice strides must be positive, got (1, 0)");
}

TEST_CASE("lax::dynamic_slice matches JAX's docstring examples and clamps", "[slicing][dynamic_slice]") {
  auto x = arange34();
  auto a = lax::dynamic_slice(x, {1, 1}, {2, 3});
  REQUIRE(a.to_vector() == values<std::int32_t>({5, 6, 7, 9, 10, 11}));
  REQUIRE(shares_buffer(a, x));
  // Overrunning the end moves the start back so the window fits.
  REQUIRE(lax::dynamic_slice(x, {1, 1}, {2, 4}).to_vector() == values<std::int32_t>({4, 5, 6, 7, 8, 9, 10, 11}));
  REQUIRE(lax::dynamic_slice(x, {100, 100}, {1, 1}).item() == 11);
  // A negative start counts from the end once: -1 -> 2 (last row) ...
  REQUIRE(lax::dynamic_slice(x, {-1, 0}, {1, 4}).to_vector() == values<std::int32_t>({8, 9, 10, 11}));
  // ... and -2 on the columns -> 2, so columns 2, 3.
  REQUIRE(lax::dynamic_slice(x, {0, -2}, {1, 2}).to_vector() == values<std::int32_t>({2, 3}));
  // Still negative after that (-10 + 3 = -7): clamped to 0.
  REQUIRE(lax::dynamic_slice(x, {-10, 0}, {1, 1}).item() == 0);
  // Zero-size windows.
  REQUIRE(lax::dynamic_slice(x, {3, 1}, {0, 2}).shape() == Shape{0, 2});
  // Rank 0.
  REQUIRE(lax::dynamic_slice(jnp::array(2.5), {}, {}).item() == 2.5);
}

TEST_CASE("lax::dynamic_slice takes rank-0 int arrays as start indices", "[slicing][dynamic_slice]") {
  auto x = arange34();
  auto i32 = [](std::int32_t v) { return jnp::array<std::int32_t>(v); };
  auto i64 = [](std::int64_t v) { return jnp::array<std::int64_t>(v); };
  REQUIRE(lax::dynamic_slice(x, {i32(2), i32(1)}, {1, 2}).to_vector() == values<std::int32_t>({9, 10}));
  REQUIRE(lax::dynamic_slice(x, {i64(-1), i64(-1)}, {1, 1}).item() == 11);
  REQUIRE(lax::dynamic_slice(x, {i64(5), i64(-9)}, {2, 2}).to_vector() == values<std::int32_t>({4, 5, 8, 9}));
  std::vector<Array<std::int32_t>> starts{i32(0), i32(3)};
  REQUIRE(lax::dynamic_slice(x, starts, {3, 1}).to_vector() == values<std::int32_t>({3, 7, 11}));
}

TEST_CASE("lax::dynamic_slice of non-contiguous operands", "[slicing][dynamic_slice]") {
  auto x = arange34();
  // t[j, i] = 4 i + j.
  auto t = x.T();
  REQUIRE(lax::dynamic_slice(t, {2, 1}, {2, 2}).to_vector() == values<std::int32_t>({6, 10, 7, 11}));
  auto b = jnp::broadcast_to(jnp::array({1.f, 2.f}), Shape{5, 2});
  auto s = lax::dynamic_slice(b, {3, 1}, {2, 1});
  REQUIRE(s.to_vector() == values({2.f, 2.f}));
  auto flags = jnp::array({{true, false}, {true, true}});  // transposed: {{T, T}, {F, T}}
  REQUIRE(lax::dynamic_slice(flags.T(), {1, 0}, {1, 2}).to_vector() == values({false, true}));
}

TEST_CASE("lax::dynamic_slice errors", "[slicing][dynamic_slice][errors]") {
  auto x = arange34();
  REQUIRE(message_of([&] { lax::dynamic_slice(x, {1}, {1, 1}); }) ==
          "Length of slice indices must match number of operand dimensions (1 vs (3, 4))");
  REQUIRE(message_of([&] { lax::dynamic_slice(x, {0, 0}, {4, 4}); }) ==
          "slice slice_sizes must be less than or equal to operand shape, got slice_sizes (4, 4) for operand shape "
          "(3, 4).");
  REQUIRE(message_of([&] { lax::dynamic_slice(x, {0, 0}, {-1, 2}); }) ==
          "slice slice_sizes must be greater than or equal to zero, got slice_sizes of (-1, 2).");
  REQUIRE(message_of([&] { lax::dynamic_slice(x, {0, 0}, {1}); }) ==
          "dynamic_slice slice_sizes must have length equal to the number of dimensions of the operand, got "
          "slice_sizes (1,) for operand shape (3, 4).");
  auto vector_index = jnp::array<std::int32_t>({0, 1});
  REQUIRE(message_of([&] { lax::dynamic_slice(x, {vector_index, jnp::array<std::int32_t>(0)}, {1, 1}); }) ==
          "start_indices arguments to dynamic_slice must be scalars, got indices of shapes (2,), ()");
}

TEST_CASE("lax::dynamic_update_slice matches JAX's docstring examples", "[slicing][dynamic_update_slice]") {
  auto x = jnp::zeros<float>(6);
  auto y = jnp::ones<float>(3);
  REQUIRE(lax::dynamic_update_slice(x, y, {2}).to_vector() == values({0.f, 0.f, 1.f, 1.f, 1.f, 0.f}));
  // Too large to fit at 3 or 5: the start moves back to 3.
  REQUIRE(lax::dynamic_update_slice(x, y, {3}).to_vector() == values({0.f, 0.f, 0.f, 1.f, 1.f, 1.f}));
  REQUIRE(lax::dynamic_update_slice(x, y, {5}).to_vector() == values({0.f, 0.f, 0.f, 1.f, 1.f, 1.f}));
  auto z = lax::dynamic_update_slice(jnp::zeros<float>({4, 4}), jnp::ones<float>({2, 2}), {1, 2});
  REQUIRE(z.to_vector() == values<float>({0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0}));
  // The operand is untouched.
  REQUIRE(x.to_vector() == std::vector<float>(6, 0.f));
}

TEST_CASE("lax::dynamic_update_slice matches a reference loop on strided inputs", "[slicing][dynamic_update_slice]") {
  // Operand: the transpose of x (x[i, j] = 4 i + j), so t[j, i] = 4 i + j, shape (4, 3).
  auto x = arange34();
  auto t = x.T();
  // Update: a broadcast view u[a, b] = 100 + b, shape (3, 2).
  auto u = jnp::broadcast_to(jnp::array<std::int32_t>({100, 101}), Shape{3, 2});
  auto out = lax::dynamic_update_slice(t, u, {jnp::array<std::int64_t>(-3), jnp::array<std::int64_t>(1)});
  // Start (-3 + 4, 1) = (1, 1) fits as is.
  std::vector<std::int32_t> expected;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i)
      expected.push_back(j >= 1 && j < 4 && i >= 1 && i < 3 ? 100 + (i - 1) : 4 * i + j);
  REQUIRE(out.shape() == Shape{4, 3});
  REQUIRE(out.to_vector() == expected);
  // Neither input changed.
  REQUIRE(x.to_vector() == arange34().to_vector());
  REQUIRE(u.to_vector() == values<std::int32_t>({100, 101, 100, 101, 100, 101}));
}

TEST_CASE("lax::dynamic_update_slice: bool, empty update, rank 0", "[slicing][dynamic_update_slice]") {
  auto flags = jnp::array({false, false, false});
  REQUIRE(lax::dynamic_update_slice(flags, jnp::array({true, true}), {-1}).to_vector() == values({false, true, true}));
  auto x = arange34();
  REQUIRE(lax::dynamic_update_slice(x, jnp::zeros<std::int32_t>({0, 2}), {3, 3}).to_vector() == x.to_vector());
  REQUIRE(lax::dynamic_update_slice(jnp::array(1.0), jnp::array(4.0), {}).item() == 4.0);
}

TEST_CASE("lax::dynamic_update_slice errors", "[slicing][dynamic_update_slice][errors]") {
  auto x = arange34();
  REQUIRE(message_of([&] { lax::dynamic_update_slice(x, jnp::zeros<std::int32_t>(2), {0, 0}); }) ==
          "dynamic_update_slice update must have the same rank as operand, got update shape (2,) for operand shape "
          "(3, 4).");
  REQUIRE(message_of([&] { lax::dynamic_update_slice(x, jnp::zeros<std::int32_t>({4, 1}), {0, 0}); }) ==
          "dynamic_update_slice update shape must be smaller than operand shape, got update shape (4, 1) for "
          "operand shape (3, 4).");
  REQUIRE(message_of([&] { lax::dynamic_update_slice(x, jnp::zeros<std::int32_t>({1, 1}), {0}); }) ==
          "Length of slice indices must match number of operand dimensions (1 vs (3, 4))");
}

}  // namespace test_slicing
