// lax's elementwise functions (lax/elementwise.hpp): operands of one
// dtype, floats only where lax takes floats only; JAX's values
// (tests/golden/elementwise_more_cases.py), printing, derivatives,
// batching, select_n, clamp, integer_pow, bitcast_convert_type, and
// JAX's errors.
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "elementwise_nn_golden.hpp"
#include "support.hpp"

namespace test_lax_elementwise {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
namespace golden = jaxcc_test::elementwise_nn_golden;
using jaxcc::Array;
using jaxcc_test::jaxpr_of;
using jaxcc_test::message_of;

namespace {

std::vector<golden::Case> const& float_cases() {
  using golden::inf;
  using golden::nan;
  static std::vector<golden::Case> const all = {
#define JAXCC_GOLDEN_ELEMENTWISE
#include "golden/elementwise_more_cases.inc"
#undef JAXCC_GOLDEN_ELEMENTWISE
  };
  return all;
}

template <class T>
golden::Function<T> lax_function(std::string const& name) {
  using F = golden::Function<T>;
  using A = Array<T>;
  if (name == "lax_round") return F([](A const& x, A const&) { return lax::round(x); });
  if (name == "lax_round_even")
    return F([](A const& x, A const&) { return lax::round(x, lax::RoundingMethod::TO_NEAREST_EVEN); });
  if (name == "lax_rsqrt") return F([](A const& x, A const&) { return A(lax::rsqrt(x)); });
  if (name == "lax_integer_pow3") return F([](A const& x, A const&) { return lax::integer_pow(x, 3); });
  if (name == "lax_integer_pow_neg2") return F([](A const& x, A const&) { return lax::integer_pow(x, -2); });
  if (name == "lax_ceil") return F([](A const& x, A const&) { return A(lax::ceil(x)); });
  if (name == "lax_clamp") return F([](A const& x, A const&) { return lax::clamp(T(-1), x, T(2)); });
  if (name == "lax_div") return F([](A const& x, A const& y) { return A(lax::div(x, y)); });
  return {};
}

template <class T>
int check_lax_cases(int bits, double rtol) {
  int checked = 0;
  for (auto const& c : float_cases())
    if (c.bits == bits)
      if (auto const f = lax_function<T>(c.function)) golden::check_case<T>(c, f, rtol), ++checked;
  return checked;
}

// Whether lax::sub / lax::sin / lax::clamp take these operand types.
template <class A, class B>
concept lax_sub_takes = requires(A const& a, B const& b) { lax::sub(a, b); };
template <class A>
concept lax_sin_takes = requires(A const& a) { lax::sin(a); };
template <class L, class X>
concept lax_clamp_takes = requires(L const& lo, X const& x) { lax::clamp(lo, x, lo); };
template <class A>
concept lax_popcount_takes = requires(A const& a) { lax::population_count(a); };

}  // namespace

TEST_CASE("lax's elementwise functions: JAX's values, derivatives, jit and vmap", "[lax][golden]") {
  CHECK(check_lax_cases<float>(32, 1e-6) == 12);
  CHECK(check_lax_cases<double>(64, 1e-14) == 12);
}

TEST_CASE("lax's functions take one dtype, and floats where lax does", "[lax][dtype]") {
  using F = Array<float>;
  using D = Array<double>;
  using I = Array<std::int32_t>;
  STATIC_REQUIRE(lax_sub_takes<F, F>);
  STATIC_REQUIRE(lax_sub_takes<F, float>);  // a plain number takes the array's dtype
  STATIC_REQUIRE_FALSE(lax_sub_takes<F, D>);
  STATIC_REQUIRE_FALSE(lax_sub_takes<F, I>);
  STATIC_REQUIRE(lax_sin_takes<D>);
  STATIC_REQUIRE_FALSE(lax_sin_takes<I>);
  STATIC_REQUIRE(lax_clamp_takes<F, F>);
  STATIC_REQUIRE_FALSE(lax_clamp_takes<D, F>);
  STATIC_REQUIRE(lax_popcount_takes<I>);
  STATIC_REQUIRE_FALSE(lax_popcount_takes<F>);
  // Integer division truncates; x / 0 is -1, as XLA's.
  auto const i = jnp::array<std::int32_t>({7, -7, 3});
  CHECK(Array<std::int32_t>(lax::div(i, jnp::array<std::int32_t>({2, 2, 0}))).to_vector() == std::vector<std::int32_t>{3, -3, -1});
  CHECK(Array<std::int32_t>(lax::neg(i)).to_vector() == std::vector<std::int32_t>{-7, 7, -3});
  CHECK(Array<std::int32_t>(lax::abs(lax::sub(i, 10))).to_vector() == std::vector<std::int32_t>{3, 17, 7});
  CHECK(Array<bool>(lax::ge(i, 3)).to_vector() == std::vector<bool>{true, false, true});
  CHECK(Array<std::int32_t>(lax::bitwise_xor(i, 1)).to_vector() == std::vector<std::int32_t>{6, -8, 2});
  CHECK(Array<std::int32_t>(lax::bitwise_not(i)).to_vector() == std::vector<std::int32_t>{-8, 6, -4});
  // Signed integer arithmetic wraps around, as XLA's.
  auto const big = jnp::array<std::int32_t>({std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min()});
  CHECK(Array<std::int32_t>(lax::mul(big, 2)).to_vector() == std::vector<std::int32_t>{-2, 0});
  CHECK(Array<std::int32_t>(lax::neg(big)).to_vector() == std::vector<std::int32_t>{-2147483647, std::numeric_limits<std::int32_t>::min()});
}

TEST_CASE("the new primitives print as JAX's", "[lax][jaxpr]") {
  auto const x = jnp::ones<float>({3});
  auto const i = jnp::ones<std::int32_t>({3});
  using F = Array<float>;
  using I = Array<std::int32_t>;
  CHECK(jaxpr_of([](F const& v) { return F(lax::sinh(v)); }, x) == "{ lambda ; a:f32[3]. let b:f32[3] = sinh a in (b,) }");
  CHECK(jaxpr_of([](F const& v) { return F(lax::asin(v)); }, x) == "{ lambda ; a:f32[3]. let b:f32[3] = asin a in (b,) }");
  CHECK(jaxpr_of([](F const& v) { return F(lax::exp2(v)); }, x) == "{ lambda ; a:f32[3]. let b:f32[3] = exp2 a in (b,) }");
  CHECK(jaxpr_of([](F const& v) { return F(lax::rsqrt(v)); }, x) == "{ lambda ; a:f32[3]. let b:f32[3] = rsqrt a in (b,) }");
  CHECK(jaxpr_of([](F const& v) { return lax::round(v); }, x) ==
        "{ lambda ; a:f32[3]. let b:f32[3] = round[rounding_method=0] a in (b,) }");
  CHECK(jaxpr_of([](F const& v) { return I(lax::bitcast_convert_type<std::int32_t>(v)); }, x) ==
        "{ lambda ; a:f32[3]. let\n    b:i32[3] = bitcast_convert_type[new_dtype=int32] a\n  in (b,) }");
  CHECK(jaxpr_of([](F const& v) { return lax::clamp(0.f, v, 1.f); }, x) ==
        "{ lambda ; a:f32[3]. let b:f32[3] = clamp 0.0:f32[] a 1.0:f32[] in (b,) }");
  CHECK(jaxpr_of([](I const& v) { return I(lax::population_count(v)); }, i) ==
        "{ lambda ; a:i32[3]. let b:i32[3] = population_count a in (b,) }");
  CHECK(jaxpr_of([](I const& v) { return I(lax::clz(v)); }, i) == "{ lambda ; a:i32[3]. let b:i32[3] = clz a in (b,) }");
  CHECK(jaxpr_of([](F const& a, F const& b) { return F(lax::nextafter(a, b)); }, x, x) ==
        "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = nextafter a b in (c,) }");
  CHECK(jaxpr_of([](I const& a, I const& b) { return I(lax::mulhi(a, b)); }, i, i) ==
        "{ lambda ; a:i32[3] b:i32[3]. let c:i32[3] = mulhi a b in (c,) }");
}

TEST_CASE("lax's differentiable functions pass check_grads to second order and batch", "[lax][grad]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  using A = Array<double>;
  auto const x = jnp::array<double>({-1.7, -0.4, 0.3, 0.6, 1.4, 2.2});
  auto const pos = jnp::array<double>({0.3, 0.9, 1.4, 2.5, 4.0, 7.5});
  auto const unary = std::vector<std::function<A(A const&)>>{
      [](A const& v) { return lax::clamp(-1.0, v, 2.0); },  // away from the bounds
      [](A const& v) { return lax::integer_pow(v, 3); },
      [](A const& v) { return lax::integer_pow(v, -2); },
      [](A const& v) { return A(lax::exp2(v)); },
      [](A const& v) { return A(lax::cosh(v)); },
      [](A const& v) { return A(lax::asinh(v)); },
      [](A const& v) { return A(lax::logistic(v)); },
      [](A const& v) { return A(lax::mul(lax::sub(v, 1.0), lax::div(v, 3.0))); }};
  for (std::size_t i = 0; i < unary.size(); ++i) {
    INFO("function " << i);
    CHECK_NOTHROW(check_grads(unary[i], std::tuple{x}, 2));
    CHECK_NOTHROW(check_batching_rule(unary[i], jaxcc::in_axes(1), x.reshape({2, 3})));
  }
  auto const rsqrt = [](A const& v) { return A(lax::rsqrt(v)); };
  CHECK_NOTHROW(check_grads(rsqrt, std::tuple{pos}, 2));
  CHECK_NOTHROW(jaxcc::testing::check_jit(rsqrt, pos));
  // clamp's derivative flows to the bound that is taken, as JAX's rule says (0 at a tie).
  auto const bounds = jaxcc::grad([](A const& lo, A const& v, A const& hi) { return jnp::sum(lax::clamp(lo, v, hi)); },
                                  jaxcc::argnums<0, 1, 2>);
  auto const [dlo, dx, dhi] =
      bounds(jnp::array<double>({0.0, 0.0, 0.0, 0.0}), jnp::array<double>({-1.0, 0.0, 0.5, 3.0}), jnp::array<double>({1.0, 1.0, 1.0, 1.0}));
  CHECK(dlo.to_vector() == std::vector<double>{1, 0, 0, 0});
  CHECK(dx.to_vector() == std::vector<double>{0, 0, 1, 0});
  CHECK(dhi.to_vector() == std::vector<double>{0, 0, 0, 1});
  // integer_pow(x, 0) is 1 with derivative 0.
  auto const zeroth = jaxcc::grad([](A const& v) { return jnp::sum(lax::integer_pow(v, 0)); });
  CHECK(zeroth(x).to_vector() == std::vector<double>(6, 0.0));
  CHECK(lax::integer_pow(x, 0).to_vector() == std::vector<double>(6, 1.0));
}

TEST_CASE("select_n picks a case per element; bitcast_convert_type keeps the bits", "[lax][select_n]") {
  using F = Array<float>;
  auto const cases = std::vector<F>{jnp::zeros<float>({4}), jnp::ones<float>({4}), jnp::full<float>({4}, 2.f)};
  CHECK(lax::select_n(jnp::array<std::int32_t>({0, 2, 1, 2}), cases).to_vector() == std::vector<float>{0, 2, 1, 2});
  CHECK(lax::select_n(jnp::array<bool>({true, false, true, false}), std::vector<F>{cases[0], cases[1]}).to_vector() ==
        std::vector<float>{1, 0, 1, 0});
  CHECK(lax::select_n(jnp::array(std::int32_t{1}), cases).to_vector() == std::vector<float>(4, 1.f));
  CHECK(lax::select_n(jnp::array(true), std::vector<F>{cases[2]}).to_vector() == std::vector<float>(4, 2.f));
  CHECK_NOTHROW(jaxcc::testing::check_batching_rule(
      [](Array<std::int32_t> const& w, F const& a, F const& b) { return lax::select_n(w, std::vector<F>{a, b, a * b}); },
      jaxcc::in_axes(0, 0, 0), jnp::array<std::int32_t>({{0, 1, 2}, {2, 1, 0}}), jnp::ones<float>({2, 3}),
      jnp::full<float>({2, 3}, 3.f)));

  auto const x = jnp::array<float>({1.f, -0.f, std::numeric_limits<float>::infinity()});
  auto const bits = Array<std::int32_t>(lax::bitcast_convert_type<std::int32_t>(x));
  CHECK(bits.to_vector() == std::vector<std::int32_t>{0x3f800000, std::numeric_limits<std::int32_t>::min(), 0x7f800000});
  auto const back = Array<float>(lax::bitcast_convert_type<float>(bits)).to_vector();
  CHECK((back[0] == 1.f && back[1] == 0.f && std::signbit(back[1]) && std::isinf(back[2])));
  CHECK(Array<std::uint32_t>(lax::bitcast_convert_type<std::uint32_t>(jnp::array<float>({-2.f}))).item() == 0xc0000000u);
}

TEST_CASE("lax's functions on 0-d and empty inputs", "[lax][edges]") {
  using jaxcc::testing::check_edges;
  using A = Array<double>;
  CHECK_NOTHROW(check_edges([](A const& v) { return A(lax::clamp(-0.5, v, 0.5) + lax::integer_pow(v, 3) + lax::round(v)); },
                            jaxcc::testing::rand_normal<double>({3, 4})));
  CHECK_NOTHROW(check_edges([](A const& v) { return A(lax::nextafter(v, 0.0) + lax::sinh(v)); },
                            jaxcc::testing::rand_normal<double>({2, 3})));
  CHECK(lax::clamp(0.0, jnp::array(3.0), 1.0).item() == 1.0);
}

TEST_CASE("lax's functions raise JAX's errors", "[lax][errors]") {
  using F = Array<float>;
  auto const a = jnp::ones<float>({3});
  CHECK(message_of([&] { return lax::clamp(jnp::zeros<float>({2}), a, 1.f); }) ==
        "clamp requires min.shape == operand.shape or min.shape == (), got min.shape=(2,), operand.shape=(3,).");
  CHECK(message_of([&] { return lax::clamp(0.f, a, jnp::ones<float>({2, 3})); }) ==
        "clamp requires max.shape == operand.shape or max.shape == (), got max.shape=(2, 3), operand.shape=(3,).");
  CHECK(message_of([] { return lax::integer_pow(jnp::ones<std::int32_t>({2}), -1); }) ==
        "Integers cannot be raised to negative powers, got integer_pow(int32[2], -1)");
  CHECK(message_of([&] { return lax::select_n(jnp::ones<bool>({2}), std::vector<F>{a, a}); }) ==
        "select `which` must be scalar or have the same shape as cases, got `which` shape (2,) but case shape (3,).");
  CHECK(message_of([&] { return lax::select_n(jnp::ones<std::int32_t>({3}), std::vector<F>{a, jnp::ones<float>({2})}); }) ==
        "select cases must have the same shapes, got [(3,), (2,)].");
  CHECK(message_of([&] { return lax::select_n(jnp::ones<bool>({3}), std::vector<F>{a, a, a}); }) ==
        "select with boolean `which` cannot have > 2 cases.");
  CHECK(message_of([] { return lax::select_n(jnp::ones<bool>({3}), std::vector<F>{}); }) ==
        "select_n() must have at least one case");
  CHECK(message_of([&] { return lax::sub(a, jnp::ones<float>({2})); }) == "sub got incompatible shapes for broadcasting: (3,), (2,)");
}

}  // namespace test_lax_elementwise
