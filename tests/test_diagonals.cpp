// jnp triangle and diagonal functions (numpy/diagonals.hpp): tril, triu,
// diagonal, trace, diag. Expected values come from index formulas evaluated
// by plain loops (`over`), or are worked out by hand where marked; every
// error message is checked. One block checks grads (order 2), vmap against
// a loop and jit of a function built from all of them.
#include "catch.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "shape_golden.hpp"
#include "support.hpp"

namespace test_diagonals {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::over;
using jaxcc_test::require_values;
using jaxcc_test::values;

namespace {

using Idx = std::vector<std::int64_t>;

/// The index's digits read as a decimal number, plus 1000 so that none is 0:
/// digit({1, 2, 3}) = 1123.
double digit(Idx const& i) {
  double v = 0;
  for (auto k : i) v = 10 * v + static_cast<double>(k);
  return 1000 + v;
}

Array<double> digits(Shape const& shape) { return jnp::array(over(shape, digit), shape); }

}  // namespace

TEST_CASE("tril, triu: offsets, batched, non-square and strided; int32 and bool", "[diagonals][tril]") {
  auto const x = digits({2, 3, 4});
  require_values(jnp::tril(x), {2, 3, 4}, [](Idx i) { return i[2] <= i[1] ? digit(i) : 0.0; });
  require_values(jnp::tril(x, -1), {2, 3, 4}, [](Idx i) { return i[2] <= i[1] - 1 ? digit(i) : 0.0; });
  require_values(jnp::triu(x, 2), {2, 3, 4}, [](Idx i) { return i[2] >= i[1] + 2 ? digit(i) : 0.0; });
  Array<double> const xt = digits({4, 3}).T();  // (3, 4), xt[i, j] = digit(j, i)
  require_values(jnp::triu(xt, -1), {3, 4}, [](Idx i) { return i[1] >= i[0] - 1 ? digit({i[1], i[0]}) : 0.0; });
  // By hand: arange(9) as 3x3 is [[0, 1, 2], [3, 4, 5], [6, 7, 8]].
  REQUIRE(jnp::triu(jnp::arange<std::int32_t>(9).reshape({3, 3})).to_vector() ==
          values<std::int32_t>({0, 1, 2, 0, 4, 5, 0, 0, 8}));
  REQUIRE(jnp::tril(jnp::ones<bool>({2, 3})).to_vector() == values<bool>({true, false, false, true, true, false}));

  REQUIRE(message_of([] { jnp::tril(jnp::zeros<double>(3)); }) == "Argument to jax.numpy.tril must be at least 2D");
  REQUIRE(message_of([] { jnp::triu(jnp::array(1.0)); }) == "Argument to jax.numpy.triu must be at least 2D");
}

TEST_CASE("diagonal: offsets, empty diagonals, other and negative axes, strided input", "[diagonals][diagonal]") {
  auto const x = digits({3, 4});
  for (std::int64_t k : {0, 1, -1, 3, -2, 4, -3}) {
    auto const size = std::max<std::int64_t>(0, std::min(3 + std::min<std::int64_t>(k, 0), 4 - std::max<std::int64_t>(k, 0)));
    require_values(jnp::diagonal(x, k), {size}, [k](Idx i) { return k >= 0 ? digit({i[0], i[0] + k}) : digit({i[0] - k, i[0]}); });
  }
  auto const x3 = digits({2, 3, 4});
  // axis1 = 2 (size 4), axis2 = 0 (size 2), offset 1: one element, out[b, d] = x3[d + 1, b, d].
  require_values(jnp::diagonal(x3, 1, -1, 0), {3, 1}, [](Idx i) { return digit({i[1] + 1, i[0], i[1]}); });
  // axis1 = 2, axis2 = 1 (size 3), offset -1: out[b, d] = x3[b, d, d + 1].
  require_values(jnp::diagonal(x3, -1, 2, 1), {2, 3}, [](Idx i) { return digit({i[0], i[1], i[1] + 1}); });
  Array<double> const xt = digits({4, 3}).T();  // (3, 4), xt[i, j] = digit(j, i)
  require_values(jnp::diagonal(xt, 1), {3}, [](Idx i) { return digit({i[0] + 1, i[0]}); });

  REQUIRE(message_of([] { jnp::diagonal(jnp::zeros<double>(3)); }) ==
          "diagonal requires an array of at least two dimensions.");
  REQUIRE(message_of([&] { jnp::diagonal(x3, 0, 0, -3); }) ==
          "diagonal: axis1 and axis2 can not be same. axis1=0 and axis2=-3");
  REQUIRE(message_of([&] { jnp::diagonal(x3, 0, 0, 3); }) == "diagonal: axis 3 is out of bounds for array of dimension 3");
}

TEST_CASE("trace: offsets, other axes, dtypes of int32 and bool", "[diagonals][trace]") {
  auto const x = digits({3, 4});
  for (std::int64_t k : {0, 2, -1, 5}) {
    double expected = 0;
    for (std::int64_t i = 0; i < 3; ++i)
      if (i + k >= 0 && i + k < 4) expected += digit({i, i + k});
    REQUIRE(jnp::trace(x, k).item() == expected);
  }
  // Axes 1 and 2 of (2, 3, 4), offset -1: out[b] = x3[b, 1, 0] + x3[b, 2, 1].
  require_values(jnp::trace(digits({2, 3, 4}), -1, 1, 2), {2},
                 [](Idx i) { return digit({i[0], 1, 0}) + digit({i[0], 2, 1}); });
  // By hand: 0 + 4 + 8; three trues count 3. Both int32, as jnp.sum's dtype.
  auto const ti = jnp::trace(jnp::arange<std::int32_t>(9).reshape({3, 3}));
  auto const tb = jnp::trace(jnp::eye<bool>(3, 4));
  static_assert(std::is_same_v<decltype(ti), Array<std::int32_t> const>);
  static_assert(std::is_same_v<decltype(tb), Array<std::int32_t> const>);
  REQUIRE(ti.item() == 12);
  REQUIRE(tb.item() == 3);

  REQUIRE(message_of([&] { jnp::trace(x, 0, 1, -1); }) == "axis1 and axis2 can not be same. axis1=1 and axis2=-1");
  REQUIRE(message_of([] { jnp::trace(jnp::zeros<double>(3)); }) ==
          "trace: axis 1 is out of bounds for array of dimension 1");
}

TEST_CASE("diag: builds from 1-D at any offset, extracts from 2-D; int32", "[diagonals][diag]") {
  auto const v = jnp::array({1.0, 2.0, 3.0});
  for (std::int64_t k : {0, 2, -1}) {
    auto const n = 3 + std::abs(k);
    require_values(jnp::diag(v, k), {n, n}, [k](Idx i) {
      auto const row = k >= 0 ? i[0] : i[0] + k;  // the element of v on this row, if the column fits
      return i[1] == i[0] + k ? static_cast<double>(row + 1) : 0.0;
    });
  }
  REQUIRE(jnp::diag(jnp::zeros<double>(0), 2).to_vector() == std::vector<double>(4, 0.0));
  auto const x = digits({3, 4});
  require_values(jnp::diag(x, -2), {1}, [](Idx) { return digit({2, 0}); });
  // By hand: [4, 5] one below the diagonal of a 3x3 zero matrix.
  REQUIRE(jnp::diag(jnp::array<std::int32_t>({4, 5}), -1).to_vector() ==
          values<std::int32_t>({0, 0, 0, 4, 0, 0, 0, 5, 0}));

  REQUIRE(message_of([] { jnp::diag(jnp::zeros<double>({2, 2, 2})); }) == "diag input must be 1d or 2d");
  REQUIRE(message_of([] { jnp::diag(jnp::array(1.0)); }) == "diag input must be 1d or 2d");
}

TEST_CASE("triangles and diagonals: grads to second order, vmap against a loop, jit", "[diagonals][grad][vmap][jit]") {
  // tril, triu, diagonal, diag (both ways), trace: (3, 4) -> (4, 4).
  auto const f = [](Array<double> const& a) -> Array<double> {
    Array<double> const m = jnp::sin(jnp::tril(a, 1)) * jnp::triu(a, -1);
    return jnp::trace(m * m, -1) * jnp::diag(jnp::diagonal(m, 1), -1) + jnp::diag(jnp::diag(a), 1);
  };
  auto const a = jaxcc_test::smooth({3, 4});
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{a}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(f, jaxcc::in_axes(2), jaxcc_test::smooth({3, 4, 2})));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, a));
}

TEST_CASE("diagflat and fill_diagonal match JAX; grads, vmap; errors", "[diagonals][diagflat][fill_diagonal]") {
  using jaxcc_test::shape_golden::parts;
  jaxcc_test::shape_golden::Inputs const in;
  jaxcc_test::shape_golden::check_cases(
      "diagonals/",
      {
          {"diagflat", [&] { return parts(jnp::diagflat(in.m22)); }},
          {"diagflat_k", [&] { return parts(jnp::diagflat(in.v3, -2)); }},
          {"fill_diagonal", [&] { return parts(jnp::fill_diagonal(in.m23, 9.0f, false, false)); }},
          {"fill_diagonal_3d", [&] { return parts(jnp::fill_diagonal(jnp::zeros<float>({3, 3, 3}), in.v2, false, false)); }},
          {"fill_diagonal_tall", [&] { return parts(jnp::fill_diagonal(in.m23.T(), in.v3 * 10.f, false, false)); }},
      });
  auto const xs = jaxcc_test::smooth({3, 3, 4});
  auto const vs = jaxcc_test::smooth({3, 2}, 0.5);
  auto const f = [](Array<double> const& x, Array<double> const& v) {
    return jnp::sum(jnp::fill_diagonal(x, v * v, false, false) * x) + jnp::sum(jnp::diagflat(v, 1) * jnp::diagflat(v, 1));
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{jaxcc_test::example(xs, 0, 1), jaxcc_test::example(vs, 0, 1)}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0, 0), xs, vs));
  auto const m = jnp::ones<float>({2, 2});
  CHECK(message_of([&] { jnp::fill_diagonal(m, 1.f); }) == "JAX arrays are immutable, must use inplace=False");
  CHECK(message_of([&] { jnp::fill_diagonal(m, 1.f, true, false); }) == "wrap=True is not implemented, must use wrap=False");
  CHECK(message_of([] { jnp::fill_diagonal(jnp::ones<float>(2), 1.f, false, false); }) == "array must be at least 2-d");
  CHECK(message_of([] { jnp::fill_diagonal(jnp::ones<float>({2, 2, 3}), 1.f, false, false); }) ==
        "All dimensions of input must be of equal length");
}

}  // namespace test_diagonals
