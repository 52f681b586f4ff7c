// Derivatives of the reductions: the reduce_* primitives' JVP and VJP rules
// and the jnp functions built on them (sum, prod, max, min, mean, var, std,
// any, all, argmax, argmin). check_grads compares JVPs and VJPs, to second
// order, with central differences in float64; the hand-worked values are
// explained beside them.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <tuple>
#include <vector>

#include "support.hpp"

namespace test_reductions_grad {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc::testing::check_grads;
using AxisArg = jaxcc::detail::AxisArg;
using jaxcc_test::jaxpr_of;
using jaxcc_test::smooth;

namespace {

/// The axis sets every reduction is checked over, on a (2, 3, 5) operand:
/// all axes, one axis (even and odd lengths, negative), two axes given out
/// of order, and no axes at all.
std::vector<std::pair<std::string, AxisArg>> axis_sets() {
  return {{"all", jaxcc::none}, {"0", 0},         {"1", 1},
          {"-1", -1},           {"(2, 0)", {2, 0}}, {"()", Axes{}}};
}

/// Runs check_grads on `reduce(x, axis, keepdims)` composed with sin, for
/// every axis set and both keepdims: "" when all pass, else the first failure.
template <class Reduce>
std::string reduction_grad_failure(Reduce reduce, Array<double> const& x) {
  for (auto const& [name, axis] : axis_sets())
    for (bool keepdims : {false, true}) {
      auto f = [&, axis = axis, keepdims = keepdims](Array<double> const& a) {
        return Array<double>(jnp::sin(reduce(a, axis, keepdims)));
      };
      try {
        check_grads(f, std::tuple{x}, 2);
      } catch (std::exception const& e) {
        return "axes " + name + ", keepdims " + (keepdims ? "1" : "0") + ": " + e.what();
      }
    }
  return "";
}

}  // namespace

TEST_CASE("sum, prod, max and min pass check_grads to second order", "[reductions][grad]") {
  auto const x = smooth({2, 3, 5});
  SECTION("sum") {
    auto const sum_of = [](auto const& a, AxisArg const& axis, bool k) { return jnp::sum(a, axis, k); };
    REQUIRE(reduction_grad_failure(sum_of, x) == "");
  }
  SECTION("prod") {
    // Values in [0.2, 1.6]: products of up to 30 of them stay well scaled.
    Array<double> const y = x * 0.7 + 0.9;
    auto const prod_of = [](auto const& a, AxisArg const& axis, bool k) { return jnp::prod(a, axis, k); };
    REQUIRE(reduction_grad_failure(prod_of, y) == "");
  }
  SECTION("max") {
    auto const max_of = [](auto const& a, AxisArg const& axis, bool k) { return jnp::max(a, axis, k); };
    REQUIRE(reduction_grad_failure(max_of, x) == "");
  }
  SECTION("min") {
    auto const min_of = [](auto const& a, AxisArg const& axis, bool k) { return jnp::min(a, axis, k); };
    REQUIRE(reduction_grad_failure(min_of, x) == "");
  }
}

TEST_CASE("mean, var and std pass check_grads to second order", "[reductions][grad]") {
  auto const x = smooth({2, 3, 5});
  SECTION("mean") {
    auto const mean_of = [](auto const& a, AxisArg const& axis, bool k) { return jnp::mean(a, axis, k); };
    REQUIRE(reduction_grad_failure(mean_of, x) == "");
  }
  // var and std over no axes are 0 (std's derivative is infinite there), so
  // they take the axis sets that reduce something.
  for (AxisArg axis : {AxisArg(jaxcc::none), AxisArg(1), AxisArg({2, 0})})
    for (bool keepdims : {false, true})
      for (double ddof : {0.0, 1.0}) {
        INFO("keepdims " << keepdims << ", ddof " << ddof);
        auto var = [=](Array<double> const& a) { return Array<double>(jnp::sin(jnp::var(a, axis, ddof, keepdims))); };
        auto stddev = [=](Array<double> const& a) { return Array<double>(jnp::sin(jnp::std(a, axis, ddof, keepdims))); };
        REQUIRE_NOTHROW(check_grads(var, std::tuple{x}, 2));
        REQUIRE_NOTHROW(check_grads(stddev, std::tuple{x}, 2));
      }
}

TEST_CASE("reduce_prod's product tree: odd lengths, zeros and negative values", "[reductions][grad][prod]") {
  // Lengths 1 to 9 exercise every padding pattern of the pairwise tree.
  for (std::int64_t n = 1; n <= 9; ++n) {
    INFO("n = " << n);
    auto f = [](Array<double> const& a) { return jnp::prod(a); };
    REQUIRE_NOTHROW(check_grads(f, std::tuple{Array<double>(smooth({n}) * 1.5)}, 2));
  }
  auto g = jaxcc::grad([](Array<double> const& a) { return jnp::prod(a); });
  // d/dx_i prod(x) = product of the others: (2, 3, 4) -> (3*4, 2*4, 2*3).
  REQUIRE_THAT(g(jnp::array<double>({2, 3, 4})), AllClose(jnp::array<double>({12, 8, 6})));
  // One zero: only its own derivative survives, 2*4 = 8; no 0/0 anywhere.
  REQUIRE_THAT(g(jnp::array<double>({2, 0, 4})), AllClose(jnp::array<double>({0, 8, 0})));
  // Two zeros: every product of the others holds a zero.
  REQUIRE_THAT(g(jnp::array<double>({0, 0, 4})), AllClose(jnp::array<double>({0, 0, 0})));
  // Odd length with a zero and negatives: the zero's derivative is
  // 1 * -2 * 3 * 5 = -30.
  REQUIRE_THAT(g(jnp::array<double>({1, -2, 0, 3, 5})), AllClose(jnp::array<double>({0, 0, -30, 0, 0})));
  // Derivatives at a zero, to second order: check_grads on a vector holding one.
  REQUIRE_NOTHROW(check_grads([](Array<double> const& a) { return jnp::prod(a); },
                              std::tuple{jnp::array<double>({1.5, 0, -0.5, 2, 0.7})}, 2));
  // Second derivative by hand: d2/dx0 dx1 of x0*x1*x2 is x2 = 4, and the
  // diagonal is 0.
  // Row i of the Hessian is the gradient of <grad prod, e_i>.
  std::vector<std::vector<double>> const hessian{{0, 4, 3}, {4, 0, 2}, {3, 2, 0}};
  for (std::size_t i = 0; i < 3; ++i) {
    std::vector<double> basis(3, 0.0);
    basis[i] = 1;
    auto const e = jnp::array<double>(basis, Shape{3});
    auto row = jaxcc::grad([&](Array<double> const& a) { return jnp::sum(g(a) * e); });
    REQUIRE_THAT(row(jnp::array<double>({2, 3, 4})), AllClose(jnp::array<double>(hessian[i], Shape{3})));
  }
  // Along one axis of a matrix: row products (1*2, 3*4) -> rows (2, 1), (4, 3).
  auto rows = jaxcc::grad([](Array<double> const& a) { return jnp::sum(jnp::prod(a, 1)); });
  REQUIRE_THAT(rows(jnp::array<double>({{1, 2}, {3, 4}})), AllClose(jnp::array<double>({{2, 1}, {4, 3}})));
}

TEST_CASE("hand-worked gradients of sum, mean, max, min, var and std", "[reductions][grad]") {
  auto const x = jnp::array<double>({{1, 2, 3}, {4, 5, 6}});
  SECTION("sum: ones; along an axis, each output's cotangent repeated") {
    REQUIRE_THAT(jaxcc::grad([](Array<double> const& a) { return jnp::sum(a); })(x),
                 AllClose(jnp::ones<double>({2, 3})));
    // sum(w * sum(x, 0)): each column j gets w[j].
    auto const w = jnp::array<double>({10, 20, 30});
    auto f = [&](Array<double> const& a) { return jnp::sum(w * jnp::sum(a, 0)); };
    REQUIRE_THAT(jaxcc::grad(f)(x), AllClose(jnp::array<double>({{10, 20, 30}, {10, 20, 30}})));
    // keepdims gives the same values.
    auto k = [&](Array<double> const& a) { return jnp::sum(w * jnp::sum(a, 0, true)); };
    REQUIRE_THAT(jaxcc::grad(k)(x), AllClose(jnp::array<double>({{10, 20, 30}, {10, 20, 30}})));
  }
  SECTION("mean: 1/n") {
    REQUIRE_THAT(jaxcc::grad([](Array<double> const& a) { return jnp::mean(a); })(x),
                 AllClose(jnp::full<double>({2, 3}, 1.0 / 6)));
    // mean along axis 1 (n = 3), summed: 1/3 everywhere.
    REQUIRE_THAT(jaxcc::grad([](Array<double> const& a) { return jnp::sum(jnp::mean(a, 1)); })(x),
                 AllClose(jnp::full<double>({2, 3}, 1.0 / 3)));
  }
  SECTION("max and min: the tangent at the extremum, split evenly among ties") {
    auto gmax = jaxcc::grad([](Array<double> const& a) { return jnp::max(a); });
    auto gmin = jaxcc::grad([](Array<double> const& a) { return jnp::min(a); });
    REQUIRE_THAT(gmax(jnp::array<double>({1, 3, 2})), AllClose(jnp::array<double>({0, 1, 0})));
    REQUIRE_THAT(gmax(jnp::array<double>({1, 3, 3, 2})), AllClose(jnp::array<double>({0, 0.5, 0.5, 0})));
    REQUIRE_THAT(gmin(jnp::array<double>({2, -1, 5, -1})), AllClose(jnp::array<double>({0, 0.5, 0, 0.5})));
    REQUIRE_THAT(gmax(jnp::array<double>({7, 7, 7})), AllClose(jnp::full<double>({3}, 1.0 / 3)));
    // Per row: (1, 1) ties, (2, 0) does not.
    auto rows = jaxcc::grad([](Array<double> const& a) { return jnp::sum(jnp::max(a, 1)); });
    REQUIRE_THAT(rows(jnp::array<double>({{1, 1}, {2, 0}})), AllClose(jnp::array<double>({{0.5, 0.5}, {1, 0}})));
    // The JVP averages the tangents at the ties: (1 + 3) / 2.
    auto [y, t] = jaxcc::jvp([](Array<double> const& a) { return jnp::max(a); },
                             std::tuple{jnp::array<double>({1, 3, 3, 2})}, std::tuple{jnp::array<double>({5, 1, 3, 7})});
    REQUIRE(y.item() == 3);
    REQUIRE(t.item() == 2);
  }
  SECTION("var and std") {
    // (1, 2, 3, 6): mean 3, var = (4 + 1 + 0 + 9) / 4 = 3.5;
    // d var / dx = 2 (x - mean) / n = (-1, -0.5, 0, 1.5);
    // d std / dx = (x - mean) / (n std) = (-2, -1, 0, 3) / (4 sqrt(3.5)).
    auto const v = jnp::array<double>({1, 2, 3, 6});
    REQUIRE_THAT(jaxcc::grad([](Array<double> const& a) { return jnp::var(a); })(v),
                 AllClose(jnp::array<double>({-1, -0.5, 0, 1.5})));
    double const s = 4 * std::sqrt(3.5);
    REQUIRE_THAT(jaxcc::grad([](Array<double> const& a) { return jnp::std(a); })(v),
                 AllClose(jnp::array<double>({-2 / s, -1 / s, 0, 3 / s})));
    // ddof = 1 divides by n - 1 = 3: 2 (x - mean) / 3.
    REQUIRE_THAT(jaxcc::grad([](Array<double> const& a) { return jnp::var(a, jaxcc::none, 1); })(v),
                 AllClose(jnp::array<double>({-4.0 / 3, -2.0 / 3, 0, 2})));
  }
}

TEST_CASE("reductions of non-contiguous operands differentiate", "[reductions][grad][strided]") {
  auto const x = smooth({3, 4});
  // Reductions of a transposed view inside the function.
  REQUIRE_NOTHROW(check_grads([](Array<double> const& a) { return jnp::prod(a.T(), 0); }, std::tuple{x}, 2));
  REQUIRE_NOTHROW(check_grads([](Array<double> const& a) { return jnp::max(a.T(), 1); }, std::tuple{x}, 2));
  // A transposed argument: d/dx sum(w * sum(xT, 1)) is w[i] along row i of xT.
  auto const w = jnp::array<double>({1, 2, 3, 4});
  auto f = [&](Array<double> const& a) { return jnp::sum(w * jnp::sum(a, 1)); };
  auto const g = jaxcc::grad(f)(x.T());
  REQUIRE(g.shape() == Shape{4, 3});
  REQUIRE_THAT(g, AllClose(jnp::broadcast_to(jnp::array<double>({{1}, {2}, {3}, {4}}), Shape{4, 3})));
  // A broadcast argument (stride 0) is all ties along the broadcast axis:
  // each column's max splits its cotangent between the two rows.
  auto const b = jnp::broadcast_to(jnp::array<double>({1, 2, 3}), Shape{2, 3});
  auto const gb = jaxcc::grad([](Array<double> const& a) { return jnp::sum(jnp::max(a, 0)); })(b);
  REQUIRE_THAT(gb, AllClose(jnp::full<double>({2, 3}, 0.5)));
}

TEST_CASE("rank-0 and empty reductions differentiate", "[reductions][grad][edge]") {
  auto const s = jnp::array<double>(2.5);
  REQUIRE(jaxcc::grad([](Array<double> const& a) { return jnp::sum(a); })(s).item() == 1);
  REQUIRE(jaxcc::grad([](Array<double> const& a) { return jnp::prod(a); })(s).item() == 1);
  REQUIRE(jaxcc::grad([](Array<double> const& a) { return jnp::max(a); })(s).item() == 1);
  REQUIRE(jaxcc::grad([](Array<double> const& a) { return jnp::mean(a); })(s).item() == 1);
  // Reducing an empty axis: sum is 0 and prod is 1 whatever the (no)
  // elements, so the gradient is an empty array of the operand's shape.
  auto const e = jnp::zeros<double>({0, 3});
  auto const gs = jaxcc::grad([](Array<double> const& a) { return jnp::sum(jnp::sum(a, 0)); })(e);
  REQUIRE(gs.shape() == Shape{0, 3});
  auto const gp = jaxcc::grad([](Array<double> const& a) { return jnp::sum(jnp::prod(a, 0)); })(e);
  REQUIRE(gp.shape() == Shape{0, 3});
  auto [y, t] = jaxcc::jvp([](Array<double> const& a) { return jnp::prod(a, 0); }, std::tuple{e}, std::tuple{e});
  REQUIRE_THAT(y, AllClose(jnp::ones<double>({3})));
  REQUIRE_THAT(t, AllClose(jnp::zeros<double>({3})));
}

TEST_CASE("float32 gradients keep their dtype", "[reductions][grad][float32]") {
  auto const x = jnp::array<float>({{1, 4}, {3, 2}});
  auto const g = jaxcc::grad([](Array<float> const& a) { return jnp::sum(jnp::max(a, 1) * jnp::prod(a, 0)); })(x);
  // Row maxima m = (4 at [0,1], 3 at [1,0]); column products p = (x00 x10,
  // x01 x11) = (3, 8); f = m0 p0 + m1 p1. By element:
  //   [0,0]: in p0 only:             m0 x10 = 4 * 3 = 12
  //   [0,1]: is m0, and in p1:  p0 + m1 x11 = 3 + 3 * 2 = 9
  //   [1,0]: is m1, and in p0:  p1 + m0 x00 = 8 + 4 * 1 = 12
  //   [1,1]: in p1 only:             m1 x01 = 3 * 4 = 12
  REQUIRE_THAT(g, AllClose(jnp::array<float>({{12, 9}, {12, 12}})));
}

TEST_CASE("logical and integer reductions inside a differentiated function", "[reductions][grad][int]") {
  // any, all, argmax and argmin have no derivative, but must not stop the
  // differentiation of the float path around them.
  auto f = [](Array<double> const& a) {
    Array<double> const flag = jnp::all(a > -10.0).astype<double>() + jnp::any(a > 100.0).astype<double>();
    Array<double> const index = jnp::argmax(a).astype<double>() + jnp::argmin(a, 0).astype<double>();
    return jnp::sum(a * flag * index);
  };
  auto const x = jnp::array<double>({0.5, 3, -1, 2});
  // flag = 1 + 0, index = 1 + 2 = 3: f = 3 sum(x), gradient 3.
  REQUIRE_THAT(jaxcc::grad(f)(x), AllClose(jnp::full<double>({4}, 3.0)));
  REQUIRE_NOTHROW(check_grads(f, std::tuple{x}, 2));
  auto [y, t] = jaxcc::jvp([](Array<double> const& a) { return jnp::argmax(a); }, std::tuple{x}, std::tuple{x});
  REQUIRE(y.item() == 1);
  REQUIRE(t.shape() == Shape{});

  // Integer operands traced by vjp: no rule throws, and the cotangents are zero.
  auto ints = [](Array<std::int32_t> const& a) {
    return Array<std::int32_t>(jnp::sum(a, 0) + jnp::prod(a, 0) + jnp::max(a, 0) + jnp::min(a, 0) + jnp::argmax(a, 0));
  };
  auto const xi = jnp::array<std::int32_t>({{1, 2}, {3, 4}});
  auto [out, pullback] = jaxcc::vjp(ints, xi);
  REQUIRE_THAT(out, AllClose(jnp::array<std::int32_t>({4 + 3 + 3 + 1 + 1, 6 + 8 + 4 + 2 + 1})));
  auto const ct = std::get<0>(pullback(jnp::ones<std::int32_t>({2})));
  REQUIRE_THAT(ct, AllClose(jnp::zeros<std::int32_t>({2, 2})));
  auto bools = [](Array<bool> const& a) { return Array<bool>(jnp::logical_or(jnp::all(a, 0), jnp::any(a, 1))); };
  auto [bout, bpullback] = jaxcc::vjp(bools, jnp::array<bool>({{true, false}, {true, true}}));
  REQUIRE_THAT(bout, AllClose(jnp::array<bool>({true, true})));
  REQUIRE(std::get<0>(bpullback(jnp::array<bool>({true, true}))).shape() == Shape{2, 2});
}

TEST_CASE("the reductions' derivatives are traced primitives", "[reductions][grad][make_jaxpr]") {
  // reduce_sum's pullback is JAX's transpose rule: a broadcast_in_dim of the
  // cotangent along the kept dimensions.
  auto pullback = [](Array<float> const& x, Array<float> const& ct) {
    auto [out, vjp_fn] = jaxcc::vjp([](Array<float> const& a) { return jnp::sum(a, 1); }, x);
    return std::get<0>(vjp_fn(ct));
  };
  REQUIRE(jaxpr_of(pullback, jnp::zeros<float>({2, 3}), jnp::zeros<float>({2})) ==
          "{ lambda ; a:f32[2,3] b:f32[2]. let\n"
          "    c:f32[2] = reduce_sum[axes=(1,)] a\n"
          "    d:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(2, 3) sharding=None] b\n"
          "  in (d,) }");
  // grad of sum(x)^2: the cotangent reaching reduce_sum is 2 sum(x), traced,
  // and the gradient its broadcast to x's shape.
  auto g = jaxcc::grad([](Array<float> const& a) { return Array<float>(jnp::square(jnp::sum(a))); });
  auto const text = jaxpr_of(g, jnp::zeros<float>({3}));
  INFO(text);
  REQUIRE(text.find("reduce_sum[axes=(0,)] a") != std::string::npos);
  REQUIRE(text.find("f32[3] = broadcast_in_dim[broadcast_dimensions=() shape=(3,) sharding=None]") != std::string::npos);
  // max's JVP finds the locations with eq and counts them with reduce_sum.
  auto jvp_max = [](Array<float> const& x, Array<float> const& t) {
    return jaxcc::jvp([](Array<float> const& a) { return jnp::max(a); }, std::tuple{x}, std::tuple{t}).second;
  };
  auto const text2 = jaxpr_of(jvp_max, jnp::zeros<float>({3}), jnp::zeros<float>({3}));
  INFO(text2);
  REQUIRE(text2.find("reduce_max[axes=(0,)] a") != std::string::npos);
  REQUIRE(text2.find("eq") != std::string::npos);
  REQUIRE(text2.find("div") != std::string::npos);
}

}  // namespace test_reductions_grad
