// Derivatives and jaxprs of the layout primitives: broadcast_in_dim (also
// behind broadcast_to and expand_dims), squeeze and concatenate (also behind
// stack). check_grads compares JVPs and VJPs, to second order, with central
// differences in float64; the hand-worked values are explained beside them.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "support.hpp"

namespace test_layout_grad {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc::testing::check_grads;
using jaxcc_test::jaxpr_of;
using jaxcc_test::pullback;
using jaxcc_test::smooth;

TEST_CASE("broadcast_in_dim passes check_grads to second order", "[layout][grad][broadcast_in_dim]") {
  auto f = [](Array<double> const& x) {
    return Array<double>(jnp::sin(lax::broadcast_in_dim(Array<double>(jnp::sin(x)), Shape{2, 3, 4}, Axes{0, 2})));
  };
  REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({2, 4})}, 2));
  // Size-1 operand dimensions that are broadcast, and numpy-style broadcast_to.
  auto g = [](Array<double> const& x) {
    return Array<double>(jnp::cos(jnp::broadcast_to(Array<double>(x * x), Shape{3, 2, 4})));
  };
  REQUIRE_NOTHROW(check_grads(g, std::tuple{smooth({2, 1})}, 2));
  // Operand dimensions placed out of order: a transpose as well as a broadcast.
  auto h = [](Array<double> const& x) {
    return Array<double>(jnp::sin(lax::broadcast_in_dim(Array<double>(x * x), Shape{3, 5, 2}, Axes{2, 0})));
  };
  REQUIRE_NOTHROW(check_grads(h, std::tuple{smooth({2, 3})}, 2));
  // expand_dims is a broadcast_in_dim into size-1 dimensions; a rank-0 operand.
  auto e = [](Array<double> const& x) { return Array<double>(jnp::sin(jnp::expand_dims(Array<double>(x * x), Axes{0, 2}))); };
  REQUIRE_NOTHROW(check_grads(e, std::tuple{smooth({3})}, 2));
  REQUIRE_NOTHROW(check_grads(g, std::tuple{jnp::array(0.7).reshape({1, 1})}, 2));
}

TEST_CASE("broadcast_in_dim's VJP sums over the repeated dimensions", "[layout][grad][broadcast_in_dim]") {
  // out[i, j, k] = x[i, k] repeated over j (3 times): d/dx sum(ct * out) =
  // sum_j ct[i, j, k]. With ct[i, j, k] = 100 i + 10 j + k that is
  // 300 i + 30 + 3 k.
  auto f = [](Array<double> const& x) { return lax::broadcast_in_dim(x, Shape{2, 3, 4}, Axes{0, 2}); };
  std::vector<double> c(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) c[static_cast<std::size_t>(12 * i + 4 * j + k)] = 100 * i + 10 * j + k;
  REQUIRE_THAT(pullback(f, smooth({2, 4}), jnp::array(c, Shape{2, 3, 4})),
               AllClose(jnp::array({30.0, 33.0, 36.0, 39.0, 330.0, 333.0, 336.0, 339.0}).reshape({2, 4})));
  // grad of sum(broadcast_to(x, (4, 3))) for x of shape (1, 3): every
  // element is read 4 times.
  auto g = [](Array<double> const& x) { return jnp::sum(jnp::broadcast_to(x, Shape{4, 3})); };
  REQUIRE_THAT(jaxcc::grad(g)(smooth({1, 3})), AllClose(jnp::full<double>(Shape{1, 3}, 4.0)));
  // Out of order: out[k, j, i] = x[i, k]; with ct = arange the cotangent of
  // x[i, k] is sum_j ct[k, j, i] = sum_j (10 k + 2 j + i) = 50 k + 20 + 5 i.
  auto h = [](Array<double> const& x) { return lax::broadcast_in_dim(x, Shape{3, 5, 2}, Axes{2, 0}); };
  REQUIRE_THAT(pullback(h, smooth({2, 3}), jnp::arange<double>(30).reshape({3, 5, 2})),
               AllClose(jnp::array({20.0, 70.0, 120.0, 25.0, 75.0, 125.0}).reshape({2, 3})));
}

TEST_CASE("squeeze passes check_grads and its VJP restores the dimensions", "[layout][grad][squeeze]") {
  auto f = [](Array<double> const& x) { return Array<double>(jnp::sin(jnp::squeeze(Array<double>(x * x), Axes{0, 2}))); };
  REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({1, 3, 1})}, 2));
  auto all = [](Array<double> const& x) { return Array<double>(jnp::cos(jnp::squeeze(Array<double>(x * x)))); };
  REQUIRE_NOTHROW(check_grads(all, std::tuple{smooth({1, 1})}, 2));
  // The pullback is the cotangent reshaped back: (3,) -> (1, 3, 1).
  auto s = [](Array<double> const& x) { return jnp::squeeze(x, Axes{-1, 0}); };
  auto const ct = jnp::array({1.0, 2.0, 3.0});
  auto const g = pullback(s, smooth({1, 3, 1}), ct);
  REQUIRE(g.shape() == Shape{1, 3, 1});
  REQUIRE(g.to_vector() == std::vector<double>{1.0, 2.0, 3.0});
}

TEST_CASE("concatenate passes check_grads and splits the cotangent", "[layout][grad][concatenate]") {
  auto f = [](Array<double> const& a, Array<double> const& b, Array<double> const& c) {
    return Array<double>(jnp::sin(jnp::concatenate({Array<double>(a * b.T()), b.T(), Array<double>(jnp::cos(c))}, 1)));
  };
  REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({2, 3}), smooth({3, 2}, 0.5), smooth({2, 1}, 0.9)}, 2));
  // stack: expand_dims then concatenate.
  auto s = [](Array<double> const& a, Array<double> const& b) {
    return Array<double>(jnp::sin(jnp::stack({Array<double>(a * b), a, b}, -1)));
  };
  REQUIRE_NOTHROW(check_grads(s, std::tuple{smooth({3}), smooth({3}, 0.8)}, 2));

  // d/da, d/db of sum(w * concatenate(a, b)) are the two halves of w: the
  // cotangent is split where the operands were joined (along axis 0: a's 2
  // rows, then b's 1).
  auto w = jnp::arange<double>(9).reshape({3, 3}) + 1.0;
  auto loss = [w](Array<double> const& a, Array<double> const& b) {
    return jnp::sum(w * jnp::concatenate({a, b}, 0));
  };
  auto [da, db] = jaxcc::grad(loss, jaxcc::argnums<0, 1>)(smooth({2, 3}), smooth({1, 3}));
  REQUIRE(da.to_vector() == std::vector<double>{1, 2, 3, 4, 5, 6});
  REQUIRE(db.to_vector() == std::vector<double>{7, 8, 9});
  // An operand used twice collects both slices: concatenate(a, a) along 1.
  auto twice = [](Array<double> const& a) { return jnp::concatenate({a, a}, 1); };
  auto const g = pullback(twice, smooth({2, 2}), jnp::array({1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}).reshape({2, 4}));
  REQUIRE(g.to_vector() == std::vector<double>{1 + 3, 2 + 4, 5 + 7, 6 + 8});
}

TEST_CASE("jvp of the layout primitives applies them to the tangents", "[layout][grad]") {
  // All three are linear: the output tangent is the primitive of the tangent.
  auto f = [](Array<double> const& a, Array<double> const& b) {
    return jnp::concatenate({jnp::squeeze(a), jnp::broadcast_to(b, Shape{2})}, 0);
  };
  auto [out, t] = jaxcc::jvp(f, std::tuple{jnp::array({1.0, 2.0}).reshape({1, 2}), jnp::array({3.0})},
                             std::tuple{jnp::array({10.0, 20.0}).reshape({1, 2}), jnp::array({30.0})});
  REQUIRE(out.to_vector() == std::vector<double>{1, 2, 3, 3});
  REQUIRE(t.to_vector() == std::vector<double>{10, 20, 30, 30});
}

TEST_CASE("the layout primitives print as JAX's jaxprs", "[layout][make_jaxpr]") {
  auto x = jnp::zeros<float>(Shape{3});
  // Programs longer than a line print one equation per line.
  REQUIRE(jaxpr_of([](Array<float> const& a) { return lax::broadcast_in_dim(a, Shape{2, 3}, Axes{1}); }, x) ==
          "{ lambda ; a:f32[3]. let\n"
          "    b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(2, 3) sharding=None] a\n"
          "  in (b,) }");
  REQUIRE(jaxpr_of([](Array<float> const& a) { return jnp::squeeze(a); }, jnp::zeros<float>(Shape{1, 3, 1})) ==
          "{ lambda ; a:f32[1,3,1]. let b:f32[3] = squeeze[dimensions=(0, 2)] a in (b,) }");
  REQUIRE(jaxpr_of([](Array<float> const& a, Array<float> const& b) { return jnp::concatenate({a, b, a}); }, x,
                   jnp::zeros<float>(Shape{2})) ==
          "{ lambda ; a:f32[3] b:f32[2]. let\n    c:f32[8] = concatenate[dimension=0] a b a\n  in (c,) }");
  // JAX's expand_dims is a broadcast_in_dim too.
  REQUIRE(jaxpr_of([](Array<float> const& a) { return jnp::expand_dims(a, 0); }, x).find(
              "b:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(1, 3) sharding=None] a\n") !=
          std::string::npos);
}

TEST_CASE("the VJPs of the layout primitives are themselves traced primitives", "[layout][grad][make_jaxpr]") {
  // make_jaxpr of a pullback shows the transposes JAX uses: reduce_sum for
  // broadcast_in_dim, broadcast_in_dim for squeeze, slices for concatenate.
  auto bcast = [](Array<float> const& x, Array<float> const& ct) {
    auto [out, vjp_fn] = jaxcc::vjp([](Array<float> const& a) { return lax::broadcast_in_dim(a, Shape{2, 3}, Axes{1}); }, x);
    return std::get<0>(vjp_fn(ct));
  };
  auto const text = jaxpr_of(bcast, jnp::zeros<float>(Shape{3}), jnp::zeros<float>(Shape{2, 3}));
  CHECK(text.find("reduce_sum[axes=(0,)] b") != std::string::npos);
  auto split = [](Array<float> const& x, Array<float> const& ct) {
    auto [out, vjp_fn] = jaxcc::vjp([](Array<float> const& a) { return jnp::concatenate({a, a}); }, x);
    return std::get<0>(vjp_fn(ct));
  };
  auto const text2 = jaxpr_of(split, jnp::zeros<float>(Shape{2}), jnp::zeros<float>(Shape{4}));
  CHECK(text2.find("slice[limit_indices=(2,) start_indices=(0,) strides=None] b") != std::string::npos);
  CHECK(text2.find("slice[limit_indices=(4,) start_indices=(2,) strides=None] b") != std::string::npos);
}

TEST_CASE("integer and bool layout operations trace and carry no cotangent", "[layout][grad]") {
  // Tracing instantiates every rule for these dtypes; an int input passed
  // through vjp gets back a cotangent of its own shape.
  auto f = [](Array<std::int32_t> const& a) {
    return jnp::concatenate({jnp::squeeze(jnp::broadcast_to(a, Shape{1, 2, 3})), a}, 0);
  };
  auto const ints = jnp::arange<std::int32_t>(6).reshape({2, 3});
  REQUIRE(jaxpr_of(f, ints).find("concatenate[dimension=0]") != std::string::npos);
  auto [out, vjp_fn] = jaxcc::vjp(f, ints);
  REQUIRE(out.shape() == Shape{4, 3});
  REQUIRE(std::get<0>(vjp_fn(jnp::ones<std::int32_t>(Shape{4, 3}))).shape() == Shape{2, 3});
  auto b = [](Array<bool> const& a) { return jnp::concatenate({jnp::squeeze(jnp::expand_dims(a, 1)), a}, 0); };
  REQUIRE(jaxpr_of(b, jnp::ones<bool>(Shape{2})).find("bool[4]") != std::string::npos);
}

}  // namespace test_layout_grad
