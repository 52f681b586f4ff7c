// lax::conv_general_dilated and lax::conv (lax/convolution.hpp): outputs and
// gradients against JAX's (tests/golden/conv_cases.py; each case named by
// its Python spelling, written beside its C++ form here) over strides,
// SAME/SAME_LOWER/VALID and explicit (also negative) padding, lhs and rhs
// dilation, other dimension numbers, feature and batch groups and 0- to
// 3-d convolutions; vmap against a loop with either or both operands
// mapped, jit against eager, derivatives to second order, and the errors.
#include "catch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <omp.h>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"

namespace test_conv {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc_test::message_of;

namespace {

struct Golden {
  std::string name;
  Shape lhs_shape, rhs_shape, out_shape;
  std::vector<float> out, lhs_grad, rhs_grad;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const all = {
#include "golden/conv_cases.inc"
  };
  return all;
}

// The generator's inputs: sin(0.37 i + 0.1), 0.5 cos(0.53 i) and the cotangent cos(0.11 i).
Array<float> lhs_of(Shape const& shape) {
  return jnp::reshape(jnp::sin(jnp::arange<float>(shape.numel()) * 0.37f + 0.1f), shape);
}
Array<float> rhs_of(Shape const& shape) {
  return jnp::reshape(jnp::cos(jnp::arange<float>(shape.numel()) * 0.53f) * 0.5f, shape);
}
Array<float> cot_of(Shape const& shape) {
  return jnp::reshape(jnp::cos(jnp::arange<float>(shape.numel()) * 0.11f), shape);
}

using Conv = std::function<Array<float>(Array<float> const&, Array<float> const&)>;
std::vector<std::pair<std::string, Conv>> cases() {
  using P = std::vector<std::pair<int, int>>;
  return {
      {"conv(x, w, (1, 1), 'SAME')", [](auto const& x, auto const& w) { return lax::conv(x, w, {1, 1}, "SAME"); }},
      {"conv(x, w, (2, 2), 'VALID')", [](auto const& x, auto const& w) { return lax::conv(x, w, {2, 2}, "VALID"); }},
      {"conv(x, w, (2, 1), 'SAME')", [](auto const& x, auto const& w) { return lax::conv(x, w, {2, 1}, "SAME"); }},
      {"conv_general_dilated(x, w, (1, 1), 'SAME_LOWER')",
       [](auto const& x, auto const& w) { return lax::conv_general_dilated(x, w, {1, 1}, "SAME_LOWER"); }},
      {"conv_general_dilated(x, w, (1, 2), ((1, 2), (0, 1)), rhs_dilation=(2, 1))",
       [](auto const& x, auto const& w) {
         return lax::conv_general_dilated(x, w, {1, 2}, {{1, 2}, {0, 1}}, {}, {2, 1});
       }},
      {"conv_general_dilated(x, w, (1, 1), ((2, 2), (1, 1)), lhs_dilation=(2, 2))",
       [](auto const& x, auto const& w) { return lax::conv_general_dilated(x, w, {1, 1}, {{2, 2}, {1, 1}}, {2, 2}); }},
      {"conv_general_dilated(x, w, (2, 2), ((1, 1), (1, 1)), (2, 2), (1, 3))",
       [](auto const& x, auto const& w) {
         // Padding as a vector of pairs of int: any integer type.
         return lax::conv_general_dilated(x, w, {2, 2}, P{{1, 1}, {1, 1}}, {2, 2}, {1, 3});
       }},
      {"conv_general_dilated(x, w, (1, 1), ((-1, 0), (0, -1)))",
       [](auto const& x, auto const& w) { return lax::conv_general_dilated(x, w, {1, 1}, {{-1, 0}, {0, -1}}); }},
      {"conv_general_dilated(x, w, (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))",
       [](auto const& x, auto const& w) {
         return lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, {"NHWC", "HWIO", "NHWC"});
       }},
      {"conv_general_dilated(x, w, (2, 1), 'VALID', dimension_numbers=('NWCH', 'WHOI', 'CHWN'))",
       [](auto const& x, auto const& w) {
         return lax::conv_general_dilated(x, w, {2, 1}, "VALID", {}, {}, {"NWCH", "WHOI", "CHWN"});
       }},
      {"conv_general_dilated(x, w, (1, 1), 'SAME', feature_group_count=3)",
       [](auto const& x, auto const& w) { return lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, {}, 3); }},
      {"conv_general_dilated(x, w, (1, 1), 'VALID', batch_group_count=2)",
       [](auto const& x, auto const& w) {
         return lax::conv_general_dilated(x, w, {1, 1}, "VALID", {}, {}, {}, 1, 2);
       }},
      {"conv(x, w, (1,), 'SAME') [1-d]", [](auto const& x, auto const& w) { return lax::conv(x, w, {1}, "SAME"); }},
      {"conv(x, w, (1, 2, 1), 'VALID') [3-d]",
       [](auto const& x, auto const& w) { return lax::conv(x, w, {1, 2, 1}, "VALID"); }},
      {"conv(x, w, (), 'VALID') [0-d]", [](auto const& x, auto const& w) { return lax::conv(x, w, {}, "VALID"); }},
  };
}

Golden const& golden_case(std::string const& name) {
  for (auto const& g : golden())
    if (g.name == name) return g;
  FAIL("no golden case " << name);
  return golden().front();
}

}  // namespace

TEST_CASE("conv_general_dilated: outputs and gradients equal JAX's", "[conv]") {
  REQUIRE(cases().size() == golden().size());
  for (auto const& entry : cases()) {
    // Named, not a structured binding: clang before 16 cannot capture those in lambdas.
    auto const& name = entry.first;
    auto const& conv = entry.second;
    INFO(name);
    auto const& g = golden_case(name);
    auto const x = lhs_of(g.lhs_shape), w = rhs_of(g.rhs_shape);
    auto const out = conv(x, w);
    REQUIRE(out.shape() == g.out_shape);
    REQUIRE_THAT(out, AllClose(jnp::array(g.out, g.out_shape), 1e-5, 1e-5));
    auto const c = cot_of(g.out_shape);
    auto const [gx, gw] =
        jaxcc::grad([&](Array<float> const& a, Array<float> const& b) { return jnp::sum(conv(a, b) * c); },
                    jaxcc::argnums<0, 1>)(x, w);
    CHECK_THAT(gx, AllClose(jnp::array(g.lhs_grad, g.lhs_shape), 1e-5, 1e-5));
    CHECK_THAT(gw, AllClose(jnp::array(g.rhs_grad, g.rhs_shape), 1e-5, 1e-5));
  }
}

TEST_CASE("conv_general_dilated in double, and on strided views of its operands", "[conv]") {
  // A double convolution against the float one, and operands that are
  // transposed views (read through their strides, not copied first).
  auto const x = lhs_of({2, 3, 6, 5}), w = rhs_of({4, 3, 3, 2});
  auto const expected = lax::conv(x, w, {1, 2}, "SAME");
  auto const in_double = lax::conv(x.astype<double>(), w.astype<double>(), {1, 2}, "SAME");
  REQUIRE_THAT(in_double, AllClose(expected.astype<double>(), 1e-5, 1e-6));
  // (A product with 1 materializes the transposed order; transposing back views it.)
  auto const x_view = jnp::transpose(Array<float>(jnp::transpose(x, {0, 1, 3, 2}) * 1.0f), {0, 1, 3, 2});
  auto const w_view = jnp::transpose(Array<float>(jnp::transpose(w, {3, 2, 1, 0}) * 1.0f), {3, 2, 1, 0});
  REQUIRE(x_view.strides() != x.strides());
  REQUIRE_THAT(lax::conv(x_view, w_view, {1, 2}, "SAME"), AllClose(expected, 1e-6, 1e-6));
}

/// The SAME convolution of x (n, in, size, size) with w (out, in, k, k),
/// stride 1, summed directly in double.
Array<float> direct_conv(Array<float> const& x, Array<float> const& w) {
  auto const n = x.shape()[0], in = x.shape()[1], size = x.shape()[2], out = w.shape()[0], k = w.shape()[2];
  auto const xs = x.to_vector(), ws = w.to_vector();
  std::vector<double> sums;
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t o = 0; o < out; ++o)
      for (std::int64_t r = 0; r < size; ++r)
        for (std::int64_t c = 0; c < size; ++c) {
          double sum = 0;
          for (std::int64_t i = 0; i < in; ++i)
            for (std::int64_t dr = 0; dr < k; ++dr)
              for (std::int64_t dc = 0; dc < k; ++dc) {
                auto const sr = r + dr - k / 2, sc = c + dc - k / 2;
                if (sr < 0 || sr >= size || sc < 0 || sc >= size) continue;
                sum += double(xs[std::size_t(((b * in + i) * size + sr) * size + sc)]) *
                       double(ws[std::size_t(((o * in + i) * k + dr) * k + dc)]);
              }
          sums.push_back(sum);
        }
  return jnp::array<double>(sums, Shape{n, out, size, size}).astype<float>();
}

TEST_CASE("conv_general_dilated over many input features: GEMM blocks summed in place equal a direct sum", "[conv]") {
  // Kernels read in place (OIHW) and through a transposed view (copied to
  // OIHW first); the layout Flax uses, NHWC input and output with HWIO
  // kernels (the input copied to NCHW first, the output's features written
  // innermost); on one thread and on the team.
  auto const check = [](Shape const& x_shape, Shape const& w_shape) {
    CAPTURE(x_shape, w_shape);
    auto const x = lhs_of(x_shape), w = rhs_of(w_shape);
    auto const want = direct_conv(x, w);
    auto const w_view = jnp::transpose(Array<float>(jnp::transpose(w, {3, 2, 1, 0}) * 1.0f), {3, 2, 1, 0});
    REQUIRE(w_view.strides() != w.strides());
    Array<float> const x_nhwc = jnp::transpose(x, {0, 2, 3, 1}) * 1.0f;
    Array<float> const w_hwio = jnp::transpose(w, {2, 3, 1, 0}) * 1.0f;
    auto const threads = omp_get_max_threads();
    for (int t : {1, std::max(threads, 2)}) {
      CAPTURE(t);
      omp_set_num_threads(t);
      CHECK_THAT(lax::conv(x, w, {1, 1}, "SAME"), AllClose(want, 1e-5, 1e-5));
      CHECK_THAT(lax::conv(x, w_view, {1, 1}, "SAME"), AllClose(want, 1e-5, 1e-5));
      auto const out_nhwc = lax::conv_general_dilated(x_nhwc, w_hwio, {1, 1}, "SAME", {}, {}, {"NHWC", "HWIO", "NHWC"});
      CHECK_THAT(jnp::transpose(out_nhwc, {0, 3, 1, 2}), AllClose(want, 1e-5, 1e-5));
    }
    omp_set_num_threads(threads);
  };
  // im2col: 64 features of 32 x 32 positions and a 3 x 3 window come in
  // blocks of 28 (about 1 MiB of patches); the first block's GEMM writes
  // the output's rows, the next add to them (on two threads, the second
  // thread's share is two blocks).
  check({1, 64, 32, 32}, {64, 64, 3, 3});
  // Fewer output than input features: the products, then shift and add.
  check({2, 16, 24, 24}, {4, 16, 3, 3});
}

TEST_CASE("conv_general_dilated under vmap: either operand or both mapped, with groups", "[conv][vmap]") {
  using jaxcc::in_axes;
  using jaxcc::none;
  using jaxcc::testing::check_vmap;
  auto const xs = lhs_of({3, 2, 4, 5, 5}), ws = rhs_of({3, 4, 4, 3, 3});
  auto const x = lhs_of({2, 4, 5, 5}), w = rhs_of({4, 4, 3, 3});
  auto const plain = [](Array<float> const& a, Array<float> const& b) { return lax::conv(a, b, {1, 2}, "SAME"); };
  REQUIRE_NOTHROW(check_vmap(plain, in_axes(0, none), xs, w));
  REQUIRE_NOTHROW(check_vmap(plain, in_axes(none, 0), x, ws));
  REQUIRE_NOTHROW(check_vmap(plain, in_axes(0, 0), xs, ws));
  // Mapped axes elsewhere than first.
  REQUIRE_NOTHROW(check_vmap(plain, in_axes(2, 3), jnp::moveaxis(xs, 0, 2), jnp::moveaxis(ws, 0, 3)));
  auto const grouped = [](Array<float> const& a, Array<float> const& b) {
    return lax::conv_general_dilated(a, b, {1, 1}, "SAME", {}, {}, {}, 2);
  };
  auto const w_grouped = rhs_of({4, 2, 3, 3}), ws_grouped = rhs_of({3, 4, 2, 3, 3});
  REQUIRE_NOTHROW(check_vmap(grouped, in_axes(0, none), xs, w_grouped));
  REQUIRE_NOTHROW(check_vmap(grouped, in_axes(none, 1), x, jnp::moveaxis(ws_grouped, 0, 1)));
  REQUIRE_NOTHROW(check_vmap(grouped, in_axes(1, 0), jnp::moveaxis(xs, 0, 1), ws_grouped));
  auto const batch_grouped = [](Array<float> const& a, Array<float> const& b) {
    return lax::conv_general_dilated(a, b, {1, 1}, "VALID", {}, {}, {}, 1, 2);
  };
  auto const xs_b = lhs_of({3, 4, 4, 5, 5}), w_b = rhs_of({4, 4, 2, 2}), ws_b = rhs_of({3, 4, 4, 2, 2});
  REQUIRE_NOTHROW(check_vmap(batch_grouped, in_axes(0, none), xs_b, w_b));
  REQUIRE_NOTHROW(check_vmap(batch_grouped, in_axes(none, 2), lhs_of({4, 4, 5, 5}), jnp::moveaxis(ws_b, 0, 2)));
  REQUIRE_NOTHROW(check_vmap(batch_grouped, in_axes(3, 0), jnp::moveaxis(xs_b, 0, 3), ws_b));
  // Per-example gradients through the convolution's transposes.
  auto const loss = [](Array<float> const& b, Array<float> const& a) { return jnp::sum(jnp::tanh(lax::conv(a, b, {1, 1}, "SAME"))); };
  REQUIRE_NOTHROW(check_vmap(jaxcc::grad(loss), in_axes(none, 0), w, xs));
}

TEST_CASE("conv_general_dilated: jit against eager, derivatives to second order", "[conv][jit][grad]") {
  auto const x = lhs_of({2, 2, 5, 4}), w = rhs_of({3, 2, 3, 2});
  auto const strided = [](Array<float> const& a, Array<float> const& b) {
    return lax::conv_general_dilated(a, b, {2, 1}, {{1, 0}, {1, 1}}, {1, 2}, {2, 1});
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(strided, x, w));
  auto const xd = x.astype<double>(), wd = w.astype<double>();
  auto const in_double = [](Array<double> const& a, Array<double> const& b) {
    return lax::conv_general_dilated(a, b, {2, 1}, {{1, 0}, {1, 1}}, {1, 2}, {2, 1}, {"NCWH", "OIWH", "NCWH"});
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(in_double, std::tuple{xd, wd}, 2));
  auto const grouped = [](Array<double> const& a, Array<double> const& b) {
    return lax::conv_general_dilated(a, b, {1, 1}, "SAME", {}, {}, {}, 2);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(grouped, std::tuple{xd, rhs_of({4, 1, 3, 2}).astype<double>()}, 2));
  auto const batch_grouped = [](Array<double> const& a, Array<double> const& b) {
    return lax::conv_general_dilated(a, b, {1, 1}, "VALID", {}, {}, {}, 1, 2);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(batch_grouped, std::tuple{xd, rhs_of({4, 2, 2, 2}).astype<double>()}, 2));
}

TEST_CASE("conv_general_dilated under sharded jit: split batch and features stay split", "[conv][partition]") {
  using jaxcc::NamedSharding;
  using jaxcc::P;
  auto const mesh = jaxcc_test::mesh_of({2, 2}, {"data", "model"});
  auto const x = lhs_of({8, 4, 6, 6}), w = rhs_of({4, 4, 3, 3});
  auto const conv = [](Array<float> const& a, Array<float> const& b) { return lax::conv(a, b, {1, 1}, "SAME"); };
  auto const xs = jaxcc::device_put(x, NamedSharding(mesh, P("data"))),
             ws = jaxcc::device_put(w, NamedSharding(mesh, P("model")));
  auto const y = jaxcc::jit(conv)(xs, ws);
  CHECK(y.sharding() == NamedSharding(mesh, P("data", "model")));
  REQUIRE_THAT(y, AllClose(conv(x, w), 1e-5, 1e-5));
  // A data-parallel kernel gradient: the batch is the contraction of the
  // kernel's transposed convolution, so each device sums its part and a
  // psum completes them: the gradient comes out whole on every device.
  auto const loss = [](Array<float> const& b, Array<float> const& a) {
    return jnp::sum(jnp::square(lax::conv(a, b, {1, 1}, "SAME")));
  };
  auto const replicated_w = jaxcc::device_put(w, NamedSharding(mesh, P()));
  auto const g = jaxcc::jit(jaxcc::grad(loss))(replicated_w, xs);
  CHECK(g.sharding().spec() == P());
  REQUIRE_THAT(g, AllClose(jaxcc::grad(loss)(w, x), 1e-4, 1e-5));
  // Layouts the rule gathers: features split on the input only, spatial splits.
  for (auto const& [sx, sw] : {std::pair{P(jaxcc::none, "model"), P()}, std::pair{P(jaxcc::none, jaxcc::none, "data"), P(jaxcc::none, "model")}}) {
    INFO("x laid out as " << sx << ", w as " << sw);
    auto const got = jaxcc::jit(conv)(jaxcc::device_put(x, NamedSharding(mesh, sx)), jaxcc::device_put(w, NamedSharding(mesh, sw)));
    REQUIRE_THAT(got, AllClose(conv(x, w), 1e-5, 1e-5));
  }
}

TEST_CASE("conv_general_dilated's errors are JAX's", "[conv][errors]") {
  auto const x = lhs_of({1, 4, 5, 5}), w = rhs_of({2, 4, 3, 3});
  CHECK(message_of([&] { lax::conv(x, rhs_of({2, 4, 3}), {1, 1}, "SAME"); }) ==
        "convolution requires lhs and rhs ndim to be equal, got 4 and 3.");
  CHECK(message_of([&] { lax::conv(x, w, {1, 1}, "FULL"); }) ==
        "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got FULL.");
  CHECK(message_of([&] { lax::conv(x, rhs_of({2, 3, 3, 3}), {1, 1}, "SAME"); }) ==
        "conv_general_dilated lhs feature dimension size divided by feature_group_count must equal the rhs input "
        "feature dimension size, but 4 // 1 != 3.");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, {}, 3); }) ==
        "conv_general_dilated feature_group_count must divide lhs feature dimension size, but 3 does not divide 4.");
  CHECK(message_of([&] { lax::conv_general_dilated(x, rhs_of({3, 2, 3, 3}), {1, 1}, "SAME", {}, {}, {}, 2); }) ==
        "conv_general_dilated rhs output feature dimension size must be a multiple of feature_group_count, but 3 is "
        "not a multiple of 2.");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, {}, 1, 2); }) ==
        "conv_general_dilated batch_group_count must divide lhs batch dimension size, but 2 does not divide 1.");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, {}, 0); }) ==
        "conv_general_dilated feature_group_count must be a positive integer, got 0.");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, {}, 1, 0); }) ==
        "conv_general_dilated batch_group_count must be a positive integer, got 0.");
  CHECK(message_of([&] {
          lax::conv_general_dilated(lhs_of({2, 4, 5, 5}), rhs_of({4, 2, 3, 3}), {1, 1}, "SAME", {}, {}, {}, 2, 2);
        }) == "At most one of batch_group_count and feature_group_count may be > 1, got batch_group_count=2 and "
              "feature_group_count=2");
  CHECK(message_of([&] { lax::conv_general_dilated(lhs_of({2, 4, 5, 5}), rhs_of({3, 4, 3, 3}), {1, 1}, "SAME", {}, {}, {}, 1, 2); }) ==
        "conv_general_dilated rhs output feature dimension size must be a multiple of batch_group_count, but 3 is "
        "not a multiple of 2.");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, {{0, 0}, {0, 0}}, {1, 0}); }) ==
        "conv_general_dilated lhs_dilation must be positive, got (1, 0)");
  CHECK(message_of([&] { lax::conv(x, w, {1}, "SAME"); }) ==
        "conv_general_dilated window_strides must have one entry per spatial dimension (2), got (1,)");
  CHECK(message_of([&] { lax::conv(x, w, {1, 0}, "SAME"); }) ==
        "conv_general_dilated window_strides must be positive, got (1, 0)");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, {{1, 1}}); }) ==
        "Wrong number of explicit pads for convolution: expected 2, got 1.");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, {{-3, -3}, {0, 0}}); }) ==
        "Negative padding is larger than the size of the corresponding dimension: got padding=((-3, -3), (0, 0)) "
        "for lhs_shape[2:]=(5, 5)");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, "SAME", {2, 2}); }) ==
        "String padding is not implemented for transposed convolution using this op. Please either exactly specify "
        "the required padding or use conv_transpose.");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, {"NCHW", "OIHW", "NCH"}); }) ==
        "convolution dimension_numbers[2] must have len equal to the ndim of lhs and rhs, got 3 for lhs and rhs "
        "shapes (1, 4, 5, 5) and (2, 4, 3, 3).");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, {"NCHW", "OOHW", "NCHW"}); }) ==
        "convolution dimension_numbers[1] must contain the characters 'O' and 'I' exactly once, got OOHW.");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, {"NCHH", "OIHW", "NCHW"}); }) ==
        "convolution dimension_numbers[0] cannot have duplicate characters, got NCHH.");
  CHECK(message_of([&] { lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, {"NCHW", "OIHW", "NCHX"}); }) ==
        "convolution dimension_numbers elements must each have the same set of spatial characters, got ('NCHW', "
        "'OIHW', 'NCHX').");
}

TEST_CASE("conv_general_dilated prints in a jaxpr as JAX prints it", "[conv][make_jaxpr]") {
  // JAX 0.10.2: jax.make_jaxpr(lambda x, w: lax.conv(x, w, (1, 1), 'SAME')) at f32[2,3,5,5], f32[4,3,3,3].
  auto const jaxpr = jaxcc::make_jaxpr([](Array<float> const& x, Array<float> const& w) {
                      return lax::conv(x, w, {1, 1}, "SAME");
                    })(lhs_of({2, 3, 5, 5}), rhs_of({4, 3, 3, 3}));
  auto const text = to_string(jaxpr);
  INFO(text);
  CHECK(text.find("conv_general_dilated[batch_group_count=1 dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, "
                  "2, 3), rhs_spec=(0, 1, 2, 3), out_spec=(0, 1, 2, 3)) feature_group_count=1 lhs_dilation=(1, 1) "
                  "out_sharding=None padding=((1, 1), (1, 1)) precision=None preferred_element_type=None "
                  "rhs_dilation=(1, 1) window_strides=(1, 1)]") != std::string::npos);
}

namespace {

struct TransposeGolden {
  std::string name;
  Shape rhs_shape, out_shape;
  std::vector<double> out, lhs_grad, rhs_grad;
};
struct ShapeGolden {
  std::string name;
  std::vector<std::int64_t> shape;
};

// conv_transpose_cases.py's inputs: 2 sin(scale i + 0.3), reshaped.
Array<float> arr(Shape const& shape, float scale) {
  return jnp::reshape(jnp::sin(jnp::arange<float>(shape.numel()) * scale + 0.3f) * 2.0f, shape);
}

}  // namespace

TEST_CASE("conv_transpose and conv_with_general_padding: outputs and gradients equal JAX's", "[conv]") {
  static std::vector<TransposeGolden> const goldens = {
#define CONV_TRANSPOSE_CASES
#include "golden/conv_transpose_cases.inc"
#undef CONV_TRANSPOSE_CASES
  };
  auto const x1 = arr({2, 5, 3}, 0.7f), k1 = arr({3, 3, 4}, 0.45f);
  auto const x2 = arr({1, 4, 3, 2}, 0.31f), k2 = arr({2, 3, 2, 3}, 0.53f);
  auto const y2 = arr({1, 2, 5, 4}, 0.29f), w2 = arr({3, 2, 2, 3}, 0.61f);
  std::vector<std::tuple<std::string, Array<float>, Array<float>, Conv>> const cases = {
      {"conv_transpose(x1, k1, (2,), 'SAME')", x1, k1,
       [](auto const& a, auto const& b) { return lax::conv_transpose(a, b, {2}, "SAME"); }},
      {"conv_transpose(x1, k1, (2,), 'VALID')", x1, k1,
       [](auto const& a, auto const& b) { return lax::conv_transpose(a, b, {2}, "VALID"); }},
      {"conv_transpose(x1, k1, (1,), 'SAME', (2,))", x1, k1,
       [](auto const& a, auto const& b) { return lax::conv_transpose(a, b, {1}, "SAME", {2}); }},
      {"conv_transpose(x1, k1, (3,), [(1, 2)])", x1, k1,
       [](auto const& a, auto const& b) { return lax::conv_transpose(a, b, {3}, {{1, 2}}); }},
      {"conv_transpose(x2, k2, (2, 1), 'SAME')", x2, k2,
       [](auto const& a, auto const& b) { return lax::conv_transpose(a, b, {2, 1}, "SAME"); }},
      {"conv_transpose(x2, k2.swapaxes(2, 3), (2, 2), 'VALID', transpose_kernel=True)", x2, jnp::swapaxes(k2, 2, 3),
       [](auto const& a, auto const& b) { return lax::conv_transpose(a, b, {2, 2}, "VALID", {}, {}, true); }},
      {"conv_transpose(y2, w2.swapaxes(0, 1), (1, 2), 'SAME', None, ('NCHW', 'IOHW', 'NCHW'))", y2,
       jnp::swapaxes(w2, 0, 1),
       [](auto const& a, auto const& b) {
         return lax::conv_transpose(a, b, {1, 2}, "SAME", {}, {"NCHW", "IOHW", "NCHW"});
       }},
      {"conv_with_general_padding(y2, w2, (1, 2), [(1, 0), (2, 1)], (2, 1), (1, 2))", y2, w2,
       [](auto const& a, auto const& b) {
         return lax::conv_with_general_padding(a, b, {1, 2}, {{1, 0}, {2, 1}}, {2, 1}, {1, 2});
       }},
  };
  REQUIRE(cases.size() == goldens.size());
  auto const close = [](Array<float> const& got, std::vector<double> const& expected) {
    auto const g = jaxcc_test::as_doubles(got);
    if (g.size() != expected.size()) return false;
    for (std::size_t i = 0; i < g.size(); ++i)
      if (std::abs(g[i] - expected[i]) > 1e-4 * (1 + std::abs(expected[i]))) return false;
    return true;
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto const& [name, a, b, f] = cases[i];
    auto const& g = goldens[i];
    INFO(name);
    REQUIRE(g.name == name);
    CHECK(b.shape() == g.rhs_shape);
    auto const y = f(a, b);
    CHECK(y.shape() == g.out_shape);
    CHECK(close(y, g.out));
    auto const fn = f;
    auto const [ga, gb] = jaxcc::grad([&](Array<float> const& p, Array<float> const& q) { return jnp::sum(fn(p, q)); },
                                      jaxcc::argnums<0, 1>)(a, b);
    CHECK(close(ga, g.lhs_grad));
    CHECK(close(gb, g.rhs_grad));
  }
  // Second derivatives and vmap in double.
  auto const ct = [](Array<double> const& a, Array<double> const& b) { return lax::conv_transpose(a, b, {2}, "SAME"); };
  Array<double> const xd = jaxcc_test::smooth({2, 4, 2}), kd = jaxcc_test::smooth({3, 2, 3}, 0.29);
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(ct, std::tuple{xd, kd}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(ct, jaxcc::in_axes(jaxcc::none, 2),
                                                      xd, jaxcc_test::smooth({3, 2, 3, 2}, 0.41)));
}

TEST_CASE("conv_general_dilated_patches: outputs and gradients equal JAX's", "[conv]") {
  struct PatchGolden {
    std::string name;
    Shape out_shape;
    std::vector<double> out, lhs_grad;
  };
  static std::vector<PatchGolden> const goldens = {
#define CONV_PATCHES_CASES
#include "golden/conv_transpose_cases.inc"
#undef CONV_PATCHES_CASES
  };
  auto const x2 = arr({1, 4, 3, 2}, 0.31f), y2 = arr({1, 2, 5, 4}, 0.29f);
  using Patches = std::function<Array<float>(Array<float> const&)>;
  std::vector<std::tuple<std::string, Array<float>, Patches>> const cases = {
      {"conv_general_dilated_patches(y2, (2, 3), (1, 2), 'SAME')", y2,
       [](auto const& a) { return lax::conv_general_dilated_patches(a, {2, 3}, {1, 2}, "SAME"); }},
      {"conv_general_dilated_patches(x2, (3, 2), (1, 1), 'VALID', None, (1, 2), dimension_numbers=('NHWC', 'OIHW', "
       "'NCHW'))",
       x2,
       [](auto const& a) {
         return lax::conv_general_dilated_patches(a, {3, 2}, {1, 1}, "VALID", {}, {1, 2}, {"NHWC", "OIHW", "NCHW"});
       }},
  };
  REQUIRE(cases.size() == goldens.size());
  auto const close = [](Array<float> const& got, std::vector<double> const& expected) {
    auto const g = jaxcc_test::as_doubles(got);
    if (g.size() != expected.size()) return false;
    for (std::size_t i = 0; i < g.size(); ++i)
      if (std::abs(g[i] - expected[i]) > 1e-4 * (1 + std::abs(expected[i]))) return false;
    return true;
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto const& [name, a, f] = cases[i];
    auto const& g = goldens[i];
    INFO(name);
    REQUIRE(g.name == name);
    auto const y = f(a);
    CHECK(y.shape() == g.out_shape);
    CHECK(close(y, g.out));
    auto const fn = f;
    auto const weights = Array<float>(jnp::cos(jnp::arange<float>(y.size()))).reshape(y.shape());
    auto const ga = jaxcc::grad([&](Array<float> const& p) { return jnp::sum(fn(p) * weights); })(a);
    CHECK(close(ga, g.lhs_grad));
  }
}

TEST_CASE("conv's shape helpers equal JAX's", "[conv]") {
  static std::vector<ShapeGolden> const goldens = {
#include "golden/conv_transpose_cases.inc"
  };
  auto const flat = [](std::tuple<jaxcc::Axes, jaxcc::Axes, jaxcc::Axes> const& t) {
    std::vector<std::int64_t> out;
    for (auto const* p : {&std::get<0>(t), &std::get<1>(t), &std::get<2>(t)}) out.insert(out.end(), p->begin(), p->end());
    return out;
  };
  auto const vec = [](Shape const& s) { return std::vector<std::int64_t>(s.begin(), s.end()); };
  auto const dn = lax::conv_dimension_numbers({1, 2, 3, 4}, {1, 2, 3, 4}, {"NCHW", "HWOI", "NHWC"});
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> const got = {
      {"conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 3), 'SAME')",
       vec(lax::conv_shape_tuple({2, 3, 9, 8}, {4, 3, 3, 2}, {2, 3}, "SAME"))},
      {"conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 3), [(1, 0), (-1, 2)])",
       vec(lax::conv_shape_tuple({2, 3, 9, 8}, {4, 3, 3, 2}, {2, 3}, {{1, 0}, {-1, 2}}))},
      {"conv_shape_tuple((4, 3, 2), (4, 3, 5), (2,), 'VALID', 2)",
       vec(lax::conv_shape_tuple({4, 3, 2}, {4, 3, 5}, {2}, "VALID", 2))},
      {"conv_general_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 3), 'SAME', ('NHWC', 'HWIO', 'NCHW'))",
       vec(lax::conv_general_shape_tuple({2, 9, 8, 3}, {3, 2, 3, 4}, {2, 3}, "SAME", {"NHWC", "HWIO", "NCHW"}))},
      {"conv_transpose_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 3), 'SAME', ('NHWC', 'HWIO', 'NHWC'))",
       vec(lax::conv_transpose_shape_tuple({2, 9, 8, 3}, {3, 2, 3, 4}, {2, 3}, "SAME", {"NHWC", "HWIO", "NHWC"}))},
      {"conv_transpose_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 3), 'VALID', ('NHWC', 'HWIO', 'NHWC'))",
       vec(lax::conv_transpose_shape_tuple({2, 9, 8, 3}, {3, 2, 3, 4}, {2, 3}, "VALID", {"NHWC", "HWIO", "NHWC"}))},
      {"conv_general_permutations(('NHWC', 'HWIO', 'NCWH'))", flat(lax::conv_general_permutations({"NHWC", "HWIO", "NCWH"}))},
      {"conv_dimension_numbers((1, 2, 3, 4), (1, 2, 3, 4), ('NCHW', 'HWOI', 'NHWC'))",
       flat({dn.lhs_spec, dn.rhs_spec, dn.out_spec})},
  };
  REQUIRE(got.size() == goldens.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO(got[i].first);
    CHECK(got[i].first == goldens[i].name);
    CHECK(got[i].second == goldens[i].shape);
  }
  CHECK(message_of([] { lax::conv_shape_tuple({2, 3, 9, 8}, {4, 3, 3, 2}, {2, 3}, {{1, 0}}); }) ==
        "Wrong number of explicit pads for convolution: expected 2, got 1.");
  CHECK(message_of([] { lax::conv_transpose(jnp::ones<float>({1, 2, 3}), jnp::ones<float>({1, 2}), {1}, "SAME"); }) ==
        "conv_transpose requires lhs and rhs of one rank, at least 2, got (1, 2, 3) and (1, 2)");
}

}  // namespace test_conv
