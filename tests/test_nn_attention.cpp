// nn::dot_product_attention (nn/attention.hpp): JAX's values and gradients
// for multi-head, grouped-query and multi-query attention, causal masks,
// bias, boolean masks, scale, sequence lengths, local windows, 3-d operands
// float64 (whose softmax runs in float32, as JAX's) and bfloat16 from
// tests/golden/nn_more_cases.py; check_grads to second order, vmap (of the
// function, its JVP and its VJP) against a loop, jit, and JAX's shape
// errors.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support.hpp"

namespace test_nn_attention {

namespace jnp = jaxcc::numpy;
namespace nn = jaxcc::nn;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc::testing::check_grads;
using jaxcc_test::message_of;

namespace {

[[maybe_unused]] constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct AttentionCase {
  std::string label;
  int bits;
  std::vector<std::int64_t> q_shape;
  std::vector<double> q;
  std::vector<std::int64_t> kv_shape;
  std::vector<double> k, v;
  std::vector<std::int64_t> bias_shape;
  std::vector<double> bias;
  std::vector<std::int64_t> mask_shape;
  std::vector<double> mask;
  double scale;  // nan: none
  bool is_causal;
  std::vector<std::int32_t> q_len, kv_len;
  std::pair<std::int64_t, std::int64_t> window;  // (-1, -1): none
  std::vector<double> w, values, dq, dk, dv, dbias;
};

std::vector<AttentionCase> const& cases() {
  static std::vector<AttentionCase> const all = {
#define JAXCC_GOLDEN_NN_ATTENTION
#include "golden/nn_more_cases.inc"
#undef JAXCC_GOLDEN_NN_ATTENTION
  };
  return all;
}

template <class T>
Array<T> array_of(std::vector<double> const& v, std::vector<std::int64_t> const& shape) {
  return jnp::array<T>(std::vector<T>(v.begin(), v.end()), Shape(shape.begin(), shape.end()));
}

std::optional<Array<std::int32_t>> lengths(std::vector<std::int32_t> const& v) {
  if (v.empty()) return std::nullopt;
  return jnp::array<std::int32_t>(v, Shape{static_cast<std::int64_t>(v.size())});
}

// Each element within rtol of the largest one: the outputs are sums of
// products, near zero where terms cancel.
void require_close(Array<float> const& got, std::vector<double> const& want, double rtol) {
  auto const g = jaxcc_test::as_doubles(got);
  REQUIRE(g.size() == want.size());
  double largest = 0;
  for (double v : want) largest = std::max(largest, std::abs(v));
  for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == Catch::Approx(want[i]).margin(rtol * largest));
}
template <class T>
void require_close(Array<T> const& got, std::vector<double> const& want, double rtol) {
  require_close(got.template astype<float>(), want, rtol);
}

/// The case's attention as a function of query, key, value and bias (the
/// bias ignored where the case has none).
template <class T>
auto attention_of(AttentionCase const& c) {
  std::optional<Array<bool>> mask;
  if (!c.mask.empty()) mask = array_of<bool>(c.mask, c.mask_shape);
  jaxcc::detail::AttentionScale const scale = std::isnan(c.scale) ? jaxcc::detail::AttentionScale{} : c.scale;
  jaxcc::detail::LocalWindow const window =
      c.window.first < 0 ? jaxcc::detail::LocalWindow{} : jaxcc::detail::LocalWindow(c.window.first, c.window.second);
  bool const has_bias = !c.bias.empty();
  return [=, q_len = lengths(c.q_len), kv_len = lengths(c.kv_len), causal = c.is_causal](
             Array<T> const& q, Array<T> const& k, Array<T> const& v, Array<T> const& b) {
    std::optional<Array<T>> bias;
    if (has_bias) bias = b;
    return nn::dot_product_attention(q, k, v, bias, mask, scale, causal, q_len, kv_len, window);
  };
}

template <class T>
void check_case(AttentionCase const& c, double rtol) {
  auto const q = array_of<T>(c.q, c.q_shape);
  auto const k = array_of<T>(c.k, c.kv_shape);
  auto const v = array_of<T>(c.v, c.kv_shape);
  auto const b = c.bias.empty() ? jnp::zeros<T>(Shape{}) : array_of<T>(c.bias, c.bias_shape);
  auto const f = attention_of<T>(c);
  auto const out = f(q, k, v, b);
  CHECK(out.shape() == q.shape());
  require_close(out, c.values, rtol);
  auto const w = array_of<T>(c.w, c.q_shape);
  auto const [gq, gk, gv, gb] = jaxcc::grad([&](Array<T> const& a, Array<T> const& bk, Array<T> const& bv,
                                                Array<T> const& bb) { return jnp::sum(w * f(a, bk, bv, bb)); },
                                            jaxcc::argnums<0, 1, 2, 3>)(q, k, v, b);
  require_close(gq, c.dq, rtol);
  require_close(gk, c.dk, rtol);
  require_close(gv, c.dv, rtol);
  if (!c.bias.empty()) require_close(gb, c.dbias, rtol);
  // jit gives eager's values.
  require_close(jaxcc::jit(f)(q, k, v, b), c.values, rtol);
}

}  // namespace

TEST_CASE("dot_product_attention: JAX's values and gradients", "[nn][attention][golden]") {
  int checked = 0;
  for (auto const& c : cases()) {
    INFO(c.label);
    // Within 1e-5 of the largest element; bfloat16 within 1e-2 (one
    // rounding of its 8-bit significand either way).
    if (c.bits == 32) check_case<float>(c, 1e-5);
    else if (c.bits == 64) check_case<double>(c, 1e-5);
    else check_case<jaxcc::bfloat16>(c, 1e-2);
    ++checked;
  }
  CHECK(checked == 11);
}

namespace {

// A causal GQA problem in float64: B 2, T 3, S 4, N 4, K 2, H 3.
struct Problem {
  Array<double> q = jaxcc_test::smooth({2, 3, 4, 3}, 0.41);
  Array<double> k = jaxcc_test::smooth({2, 4, 2, 3}, 0.29, 0.7);
  Array<double> v = jaxcc_test::smooth({2, 4, 2, 3}, 0.53, 1.1);
  Array<double> bias = jaxcc_test::smooth({1, 4, 3, 4}, 0.33, 0.4);
};

auto causal_gqa(Array<double> const& q, Array<double> const& k, Array<double> const& v, Array<double> const& bias) {
  return nn::dot_product_attention(q, k, v, bias, jaxcc::none, jaxcc::none, true,
                                   jnp::array<std::int32_t>({3, 2}), jnp::array<std::int32_t>({4, 3}));
}

}  // namespace

TEST_CASE("dot_product_attention: check_grads, jit and vmap", "[nn][attention][grad][vmap]") {
  Problem const p;
  // The softmax runs in float32, so the differences are taken wider and
  // compared more loosely than float64 would allow.
  jaxcc::testing::GradCheckOptions const loose{.eps = 1e-3, .atol = 2e-3, .rtol = 2e-3};
  CHECK_NOTHROW(check_grads(causal_gqa, std::tuple{p.q, p.k, p.v, p.bias}, 2, loose));
  auto windowed = [](Array<double> const& q, Array<double> const& k, Array<double> const& v) {
    return nn::dot_product_attention(q, k, v, jaxcc::none, jaxcc::none, 0.8, false, jaxcc::none, jaxcc::none, {1, 0});
  };
  CHECK_NOTHROW(check_grads(windowed, std::tuple{p.q, p.k, p.v}, 2, loose));
  CHECK_NOTHROW(jaxcc::testing::check_jit(causal_gqa, p.q, p.k, p.v, p.bias));

  // vmap over the batch of 3-d (TNH) operands is the 4-d call.
  auto per_example = [](Array<double> const& q, Array<double> const& k, Array<double> const& v) {
    return nn::dot_product_attention(q, k, v, jaxcc::none, jaxcc::none, jaxcc::none, true);
  };
  auto const batched = jaxcc::vmap(per_example)(p.q, p.k, p.v);
  auto const whole = nn::dot_product_attention(p.q, p.k, p.v, jaxcc::none, jaxcc::none, jaxcc::none, true);
  CHECK(jaxcc_test::mismatch(batched, whole) == "");
  jaxcc::testing::BatchingRuleOptions const tol{.tolerance = {.rtol = 1e-6, .atol = 1e-6}};
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(per_example, jaxcc::in_axes(0), tol, p.q, p.k, p.v));
  // vmap of the 4-d call over a leading axis, with the bias shared.
  auto const stacked = [](Array<double> const& a) { return jnp::stack({a, Array<double>(a * 0.5)}); };
  auto with_bias = [&](Array<double> const& q, Array<double> const& k, Array<double> const& v) {
    return causal_gqa(q, k, v, p.bias);
  };
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(with_bias, jaxcc::in_axes(0), tol, stacked(p.q), stacked(p.k),
                                                    stacked(p.v)));
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(with_bias, jaxcc::in_axes(0, jaxcc::none, jaxcc::none), tol,
                                                    stacked(p.q), p.k, p.v));
  // float64 operands: logits in float64, the softmax in float32, as JAX.
  auto const text = jaxcc_test::jaxpr_of(per_example, p.q, p.k, p.v);
  CHECK(text.find("f32[") != std::string::npos);
}

TEST_CASE("dot_product_attention: JAX's shape errors", "[nn][attention][errors]") {
  auto const q = jnp::zeros<float>(Shape{2, 3, 4, 8});
  auto const k = jnp::zeros<float>(Shape{2, 5, 2, 8});
  auto const none = jaxcc::none;
  auto const message = [](auto&& f) { return message_of(f); };
  CHECK(message([&] { (void)nn::dot_product_attention(q, k, jnp::zeros<float>(Shape{2, 4, 2, 8})); }) ==
        "dot_product_attention: value shape should be [2, 5, 2, 8] (-1: any size), but got (2, 4, 2, 8)");
  CHECK(message([&] { (void)nn::dot_product_attention(jnp::zeros<float>(Shape{2, 3, 4, 6}), k, k); }) ==
        "dot_product_attention: query shape should be [2, -1, -1, 8] (-1: any size), but got (2, 3, 4, 6)");
  CHECK(message([&] { (void)nn::dot_product_attention(jnp::zeros<float>(Shape{1, 2, 3, 4, 8}), k, k); }) ==
        "dot_product_attention: query ndim should be 4, but got 5");
  CHECK(message([&] { (void)nn::dot_product_attention(q, jnp::zeros<float>(Shape{1, 2, 5, 2, 8}), k); }) ==
        "dot_product_attention: key ndim should be 4 (BSKH) or less (SKH), but got 5");
  CHECK(message([&] { (void)nn::dot_product_attention(q, k, k, jnp::zeros<float>(Shape{1, 1, 4, 3, 5})); }) ==
        "dot_product_attention: bias ndim should be 4, but got 5");
  CHECK(message([&] { (void)nn::dot_product_attention(q, k, k, none, jnp::ones<bool>(Shape{1, 1, 4, 3, 5})); }) ==
        "dot_product_attention: mask ndim should be 4, but got 5");
  CHECK(message([&] {
          (void)nn::dot_product_attention(q, k, k, none, none, none, false, jnp::array<std::int32_t>({1, 2, 3}));
        }) == "dot_product_attention: query_seq_lengths shape should be [2] (-1: any size), but got (3,)");
  CHECK(message([&] {
          (void)nn::dot_product_attention(q, k, k, none, none, none, false, none, jnp::ones<std::int32_t>(Shape{2, 1}));
        }) == "dot_product_attention: key_value_seq_lengths ndim should be 1, but got 2");
  CHECK(message([&] { (void)nn::dot_product_attention(jnp::zeros<float>(Shape{2, 3, 3, 8}), k, k); }) ==
        "dot_product_attention: the number of query heads must be a multiple of key/value heads, but got 3 vs 2");
  CHECK(message([&] { (void)nn::dot_product_attention(q, k, k, none, none, none, false, none, none, none, "cudnn"); }) ==
        "dot_product_attention: implementation 'cudnn' needs cuDNN on a GPU; jaxcc has the 'xla' one");
  CHECK(message([&] { (void)nn::dot_product_attention(q, k, k, none, none, none, false, none, none, none, "flash"); }) ==
        "dot_product_attention: unsupported implementation option: flash (expected 'xla' or 'cudnn')");
  // Past JAX's checks: a bias or mask whose heads are neither 1 nor N (JAX's
  // assertion), or whose other axes do not broadcast.
  CHECK(message([&] { (void)nn::dot_product_attention(q, k, k, jnp::zeros<float>(Shape{1, 2, 3, 5})); }) ==
        "dot_product_attention: bias of shape (1, 2, 3, 5) does not broadcast to (B, N, T, S) = (2, 4, 3, 5)");
  CHECK(message([&] { (void)nn::dot_product_attention(q, k, k, none, jnp::ones<bool>(Shape{2, 1, 2, 5})); }) ==
        "dot_product_attention: mask of shape (2, 1, 2, 5) does not broadcast to (B, N, T, S) = (2, 4, 3, 5)");
  // A bias of fewer axes gets size-1 ones in front, as JAX's _ensure_4d.
  auto const flat_bias = nn::dot_product_attention(q, k, k, jnp::zeros<float>(Shape{3, 5}));
  CHECK(flat_bias.shape() == q.shape());
}

}  // namespace test_nn_attention
