// lax::pad (the transpose of slice): values against JAX's docstring and a
// reference loop, negative and interior padding, non-contiguous, empty and
// rank-0 operands, JAX's errors. Derivatives and jaxprs of slice, pad,
// dynamic_slice and dynamic_update_slice: check_grads to second order in
// float64, and hand-worked cotangents explained beside them.
#include "catch.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/primitives/pad.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "support.hpp"

namespace test_slicing_grad {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc::testing::check_grads;
using Config = std::vector<std::array<std::int64_t, 3>>;
using jaxcc_test::jaxpr_of;
using jaxcc_test::message_of;
using jaxcc_test::pullback;
using jaxcc_test::smooth;

namespace {

/// lax.pad by definition: result position p of a dimension holds operand
/// element (p - lo) / (interior + 1) when that divides evenly and is in range.
template <class T>
std::vector<T> pad_reference(Array<T> const& x, T value, Config const& config, Shape const& out_shape) {
  auto const in = x.to_vector();
  std::vector<T> out(static_cast<std::size_t>(out_shape.numel()), value);
  for (std::int64_t flat = 0; flat < out_shape.numel(); ++flat) {
    std::int64_t rest = flat, source = 0, source_stride = 1;
    bool hit = true;
    for (std::size_t d = out_shape.size(); d-- > 0;) {
      auto const p = rest % out_shape[d];
      rest /= out_shape[d];
      auto const q = p - config[d][0];
      auto const step = config[d][2] + 1;
      if (q < 0 || q % step != 0 || q / step >= x.shape()[d]) hit = false;
      source += (q / step) * source_stride;
      source_stride *= x.shape()[d];
    }
    if (hit) out[static_cast<std::size_t>(flat)] = in[static_cast<std::size_t>(source)];
  }
  return out;
}

}  // namespace

TEST_CASE("lax::pad matches JAX's docstring examples", "[slicing][pad]") {
  auto x = jnp::array<std::int32_t>({1, 2, 3, 4});
  REQUIRE(lax::pad(x, 0, {{2, 3, 0}}).to_vector() == std::vector<std::int32_t>{0, 0, 1, 2, 3, 4, 0, 0, 0});
  REQUIRE(lax::pad(x, 0, {{0, 0, 1}}).to_vector() == std::vector<std::int32_t>{1, 0, 2, 0, 3, 0, 4});
  auto y = jnp::array<std::int32_t>({{1, 2, 3}, {4, 5, 6}});
  auto const p = lax::pad(y, -1, {{2, 2, 0}, {2, 2, 0}});
  REQUIRE(p.shape() == Shape{6, 7});
  REQUIRE(p.to_vector() == std::vector<std::int32_t>{-1, -1, -1, -1, -1, -1, -1,  //
                                                     -1, -1, -1, -1, -1, -1, -1,  //
                                                     -1, -1, 1,  2,  3,  -1, -1,  //
                                                     -1, -1, 4,  5,  6,  -1, -1,  //
                                                     -1, -1, -1, -1, -1, -1, -1,  //
                                                     -1, -1, -1, -1, -1, -1, -1});
  REQUIRE(lax::pad(jnp::array<std::int32_t>({1, 2, 3, 4, 5}), 0, {{-1, -2, 0}}).to_vector() ==
          std::vector<std::int32_t>{2, 3});
}

TEST_CASE("lax::pad matches a reference loop", "[slicing][pad]") {
  Array<float> const x = jnp::arange<float>(24).reshape({2, 3, 4}) + 1.0f;
  for (auto const& config : {Config{{1, 2, 0}, {0, 0, 2}, {-1, 1, 1}}, Config{{-2, 0, 3}, {2, -3, 1}, {0, 0, 0}},
                             Config{{0, 0, 0}, {-1, -1, 0}, {3, -5, 2}}, Config{{0, -1, 0}, {1, 1, 0}, {-7, 0, 1}}}) {
    auto const out = lax::pad(x, 0.5f, config);
    REQUIRE(out.to_vector() == pad_reference(x, 0.5f, config, out.shape()));
  }
  // Non-contiguous operands: a transposed view and a stride-0 broadcast.
  auto const xt = x.reshape({6, 4}).T();
  Config const c2{{1, 0, 1}, {-1, 2, 0}};
  auto const out = lax::pad(xt, -2.0f, c2);
  REQUIRE(out.shape() == Shape{8, 7});
  REQUIRE(out.to_vector() == pad_reference(xt, -2.0f, c2, out.shape()));
  auto const b = jnp::broadcast_to(jnp::array({1.0f, 2.0f}), Shape{3, 2});
  REQUIRE(lax::pad(b, 0.0f, {{0, 0, 1}, {1, 0, 0}}).to_vector() ==
          std::vector<float>{0, 1, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1, 2});
}

TEST_CASE("lax::pad handles empty, rank-0 and bool operands and array padding values", "[slicing][pad]") {
  // An empty operand becomes all padding; cropping everything gives an empty result.
  auto const e = lax::pad(jnp::zeros<double>(Shape{0, 2}), 7.0, {{1, 1, 3}, {0, 0, 0}});
  REQUIRE(e.shape() == Shape{2, 2});
  REQUIRE(e.to_vector() == std::vector<double>{7, 7, 7, 7});
  REQUIRE(lax::pad(jnp::ones<double>(Shape{3}), 0.0, {{-2, -1, 0}}).shape() == Shape{0});
  REQUIRE(lax::pad(jnp::ones<double>(Shape{2}), 0.0, {{-3, 1, 1}}).to_vector() == std::vector<double>{0});
  auto const s = lax::pad(jnp::array(3.0), 0.0, Config{});
  REQUIRE(s.shape() == Shape{});
  REQUIRE(s.item() == 3.0);
  REQUIRE(lax::pad(jnp::array({true, true}), false, {{0, 1, 1}}).to_vector() == std::vector<bool>{true, false, true, false});
  REQUIRE(lax::pad(jnp::array({1.0, 2.0}), jnp::array(9.0), {{1, 0, 0}}).to_vector() == std::vector<double>{9, 1, 2});
}

TEST_CASE("lax::pad raises JAX's errors", "[slicing][pad]") {
  auto const x = jnp::ones<float>(Shape{2, 3});
  REQUIRE(message_of([&] { lax::pad(x, 0.0f, {{1, 1, 0}}); }) ==
          "length of padding_config must equal the number of axes of operand, got padding_config ((1, 1, 0),) for "
          "operand shape (2, 3)");
  REQUIRE(message_of([&] { lax::pad(x, 0.0f, {{1, 1, -1}, {0, 0, 0}}); }) ==
          "interior padding in padding_config must be nonnegative, got padding_config ((1, 1, -1), (0, 0, 0))");
  REQUIRE(message_of([&] { lax::pad(x, 0.0f, {{0, 0, 0}, {-2, -2, 0}}); }) ==
          "Dimension size after padding is not at least 0, got result shape (2, -1), for padding_config ((0, 0, 0), "
          "(-2, -2, 0)) and operand shape (2, 3)");
  REQUIRE(message_of([&] { lax::pad(x, jnp::zeros<float>(Shape{2}), {{0, 0, 0}, {0, 0, 0}}); }) ==
          "padding_value must be a scalar; got np.shape(padding_value)=(2,)");
}

TEST_CASE("slice passes check_grads and its VJP pads the cotangent with zeros", "[slicing][grad][slice]") {
  auto f = [](Array<double> const& x) { return Array<double>(jnp::sin(lax::slice(Array<double>(x * x), {1, 0}, {3, 3}))); };
  REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({4, 3})}, 2));
  auto strided = [](Array<double> const& x) {
    return Array<double>(jnp::cos(lax::slice(Array<double>(jnp::sin(x)), {0, 1}, {5, 6}, {2, 3})));
  };
  REQUIRE_NOTHROW(check_grads(strided, std::tuple{smooth({5, 7})}, 2));
  // jnp::split is made of slices.
  auto parts = [](Array<double> const& x) {
    auto p = jnp::split(Array<double>(x * x), Axes{1, 3});
    return Array<double>(jnp::sin(p[0]) * 2.0 + jnp::sum(p[1]) - jnp::sum(jnp::cos(p[2])));
  };
  REQUIRE_NOTHROW(check_grads(parts, std::tuple{smooth({5})}, 2));

  // x[1:6:2] of a length-7 vector reads x[1], x[3], x[5]: the cotangent
  // (10, 20, 30) goes back to those places, zeros elsewhere.
  auto s = [](Array<double> const& x) { return lax::slice(x, {1}, {6}, {2}); };
  REQUIRE(pullback(s, smooth({7}), jnp::array({10.0, 20.0, 30.0})).to_vector() ==
          std::vector<double>{0, 10, 0, 20, 0, 30, 0});
  // x.at(1).get() is a slice and a squeeze: grad of x[1]^2 is 2 x[1] at 1.
  auto x = jnp::array({0.5, -1.5, 2.0});
  auto g = jaxcc::grad([](Array<double> const& a) { return Array<double>(jnp::square(a.at(1).get())); })(x);
  REQUIRE(g.to_vector() == std::vector<double>{0.0, -3.0, 0.0});
}

TEST_CASE("pad passes check_grads in both operands", "[slicing][grad][pad]") {
  auto f = [](Array<double> const& x, Array<double> const& v) {
    return Array<double>(jnp::sin(lax::pad(Array<double>(x * x), Array<double>(jnp::cos(v)), {{1, -1, 2}, {-1, 2, 0}})));
  };
  REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({3, 4}), jnp::array(0.3)}, 2));
  // The padding value's cotangent is the sum over the positions it fills:
  // pad([a, b], v, (1, 1, 1)) = [v, a, v, b, v]; with ct = (1, 2, 3, 4, 5)
  // that is 1 + 3 + 5 = 9, and the operand gets (2, 4).
  auto p = [](Array<double> const& x, Array<double> const& v) { return lax::pad(x, v, {{1, 1, 1}}); };
  auto [out, vjp_fn] = jaxcc::vjp(p, jnp::array({1.0, 2.0}), jnp::array(0.0));
  auto [dx, dv] = vjp_fn(jnp::array({1.0, 2.0, 3.0, 4.0, 5.0}));
  REQUIRE(dx.to_vector() == std::vector<double>{2, 4});
  REQUIRE(dv.item() == 9.0);
}

TEST_CASE("dynamic_slice passes check_grads; its VJP lands on the clamped window", "[slicing][grad][dynamic_slice]") {
  auto f = [](Array<double> const& x) {
    return Array<double>(jnp::sin(lax::dynamic_slice(Array<double>(x * x), Axes{1, -2}, Shape{2, 2})));
  };
  REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({4, 3})}, 2));
  // Start 5 on a length-4 axis with size 2 clamps to 2: the cotangent
  // (1, 2) goes to x[2], x[3].
  auto s = [](Array<double> const& x) {
    return lax::dynamic_slice(x, std::vector{jnp::array<std::int32_t>(5)}, Shape{2});
  };
  REQUIRE(pullback(s, smooth({4}), jnp::array({1.0, 2.0})).to_vector() == std::vector<double>{0, 0, 1, 2});
}

TEST_CASE("dynamic_update_slice passes check_grads in the operand and the update", "[slicing][grad][dynamic_update_slice]") {
  auto f = [](Array<double> const& x, Array<double> const& u) {
    return Array<double>(jnp::sin(lax::dynamic_update_slice(Array<double>(x * x), Array<double>(jnp::cos(u)), Axes{1, 1})));
  };
  REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({3, 4}), smooth({2, 2}, 0.8)}, 2));
  // y = x with y[1:3] = u: the operand's cotangent is ct with the window
  // zeroed, the update's is the window of ct.
  auto d = [](Array<double> const& x, Array<double> const& u) { return lax::dynamic_update_slice(x, u, Axes{1}); };
  auto [out, vjp_fn] = jaxcc::vjp(d, smooth({4}), jnp::array({5.0, 6.0}));
  auto [dx, du] = vjp_fn(jnp::array({1.0, 2.0, 3.0, 4.0}));
  REQUIRE(dx.to_vector() == std::vector<double>{1, 0, 0, 4});
  REQUIRE(du.to_vector() == std::vector<double>{2, 3});
  // JVP: tangents of both operands, combined the same way.
  auto [y, t] = jaxcc::jvp(d, std::tuple{jnp::zeros<double>(Shape{4}), jnp::ones<double>(Shape{2})},
                           std::tuple{jnp::array({1.0, 2.0, 3.0, 4.0}), jnp::array({-1.0, -2.0})});
  REQUIRE(y.to_vector() == std::vector<double>{0, 1, 1, 0});
  REQUIRE(t.to_vector() == std::vector<double>{1, -1, -2, 4});
}

TEST_CASE("the slicing primitives print as JAX's jaxprs", "[slicing][make_jaxpr]") {
  auto x = jnp::zeros<float>(Shape{5});
  REQUIRE(jaxpr_of([](Array<float> const& a) { return lax::slice(a, {1}, {4}); }, x).find(
              "b:f32[3] = slice[limit_indices=(4,) start_indices=(1,) strides=None] a\n") != std::string::npos);
  REQUIRE(jaxpr_of([](Array<float> const& a) { return lax::slice(a, {0}, {5}, {2}); }, x).find(
              "b:f32[3] = slice[limit_indices=(5,) start_indices=(0,) strides=(2,)] a\n") != std::string::npos);
  REQUIRE(jaxpr_of([](Array<float> const& a) { return lax::pad(a, 0.0f, {{1, 2, 1}}); }, x) ==
          "{ lambda ; a:f32[5]. let\n    b:f32[12] = pad[padding_config=((1, 2, 1),)] a 0.0:f32[]\n  in (b,) }");
  REQUIRE(jaxpr_of([](Array<float> const& a) { return lax::dynamic_slice(a, Axes{2}, Shape{2}); }, x) ==
          "{ lambda ; a:f32[5]. let\n    b:f32[2] = dynamic_slice[slice_sizes=(2,)] a 2:i64[]\n  in (b,) }");
  REQUIRE(jaxpr_of([](Array<float> const& a, Array<float> const& u) { return lax::dynamic_update_slice(a, u, Axes{1}); },
                   x, jnp::zeros<float>(Shape{2})) ==
          "{ lambda ; a:f32[5] b:f32[2]. let\n    c:f32[5] = dynamic_update_slice a b 1:i64[]\n  in (c,) }");
  // slice's transpose is pad with (start, operand size - limit, stride - 1):
  // x[1:4:2] of a length-6 vector reads 1 and 3, so the cotangent is padded
  // by (1, 2, 1).
  auto slice_vjp = [](Array<float> const& a, Array<float> const& ct) {
    auto [out, vjp_fn] = jaxcc::vjp([](Array<float> const& y) { return lax::slice(y, {1}, {4}, {2}); }, a);
    return std::get<0>(vjp_fn(ct));
  };
  REQUIRE(jaxpr_of(slice_vjp, jnp::zeros<float>(Shape{6}), jnp::zeros<float>(Shape{2})) ==
          "{ lambda ; a:f32[6] b:f32[2]. let\n"
          "    c:f32[2] = slice[limit_indices=(4,) start_indices=(1,) strides=(2,)] a\n"
          "    d:f32[6] = pad[padding_config=((1, 2, 1),)] b 0.0:f32[]\n"
          "  in (d,) }");
}

TEST_CASE("integer and bool slicing operations trace", "[slicing][grad]") {
  // Tracing instantiates every rule for these dtypes.
  // pad gives (9, 0, 9, 1, 9, 2, 9), the strided slice (0, 1, 2), and the
  // update writes its (1, 2) over the first two: (1, 2, 2).
  auto f = [](Array<std::int64_t> const& a) {
    auto s = lax::slice(lax::pad(a, std::int64_t{9}, {{1, 1, 1}}), {1}, {7}, {2});
    return lax::dynamic_update_slice(s, lax::dynamic_slice(s, Axes{1}, Shape{2}), Axes{0});
  };
  auto const i = jnp::arange<std::int64_t>(3);
  REQUIRE(f(i).to_vector() == std::vector<std::int64_t>{1, 2, 2});
  REQUIRE(jaxpr_of(f, i).find("i64[3] = dynamic_update_slice") != std::string::npos);
  auto [out, vjp_fn] = jaxcc::vjp(f, i);
  REQUIRE(std::get<0>(vjp_fn(jnp::ones<std::int64_t>(Shape{3}))).shape() == Shape{3});
  auto b = [](Array<bool> const& a) {
    auto s = lax::slice(lax::pad(a, true, {{0, 0, 1}}), {1}, {3});
    return lax::dynamic_update_slice(a, lax::dynamic_slice(s, Axes{0}, Shape{1}), Axes{1});
  };
  REQUIRE(jaxpr_of(b, jnp::zeros<bool>(Shape{2})).find("bool[2] = dynamic_update_slice") != std::string::npos);
}

}  // namespace test_slicing_grad
