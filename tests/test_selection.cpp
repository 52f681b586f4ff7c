// jnp's selection functions (numpy/selection.hpp): select, choose,
// piecewise, compress, extract, place, put, put_along_axis against JAX's
// values (tests/golden/shape_cases.py); derivatives, vmap and jit of a
// function built from them; the errors, with JAX's concretization error
// where values must be concrete.
#include "catch.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "shape_golden.hpp"
#include "support.hpp"

namespace test_selection {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc_test::message_of;
using jaxcc_test::shape_golden::parts;

namespace {

template <class T>
using Piece = std::function<Array<T>(Array<T> const&)>;

}  // namespace

TEST_CASE("selection matches JAX", "[selection]") {
  jaxcc_test::shape_golden::Inputs const in;
  auto const& m = in.m23;
  auto const& v = in.v3;
  jaxcc_test::shape_golden::check_cases(
      "selection/",
      {
          {"select", [&] { return parts(jnp::select({m > 4.f, m < 3.f, m > 1.f}, {m * 10.f, -m, v}, 0.5f)); }},
          {"select_default_array", [&] { return parts(jnp::select({v > 1.f}, {v}, Array<float>(m * 100.f))); }},
          {"choose", [&] { return parts(jnp::choose(jnp::array({{0, 1, 2}, {2, 1, 0}}), {m, m * 10.f, v * 100.f})); }},
          {"choose_wrap", [&] { return parts(jnp::choose(jnp::array({3, -1, 4}), {v, v * 10.f, v * 100.f}, "wrap")); }},
          {"choose_clip", [&] { return parts(jnp::choose(jnp::array({3, -1, 1}), {v, v * 10.f, v * 100.f}, "clip")); }},
          {"piecewise",
           [&] {
             return parts(jnp::piecewise(m, {m < 3.f, m > 4.f},
                                         std::vector<Piece<float>>{[](auto const& x) { return Array<float>(x * 2.f); },
                                                                   [](auto const& x) { return Array<float>(-x); },
                                                                   [](auto const& x) { return Array<float>(x + 100.f); }}));
           }},
          {"piecewise_overlap",
           [&] {
             return parts(jnp::piecewise(v, {v > 0.f, v > 1.f},
                                         std::vector<Piece<float>>{[](auto const& x) { return Array<float>(x * 2.f); },
                                                                   [](auto const& x) { return Array<float>(-x); }}));
           }},
          {"compress", [&] { return parts(jnp::compress(jnp::array({true, false, true}), m, 1)); }},
          {"compress_flat", [&] { return parts(jnp::compress(jnp::array({false, true, true, false, true}), m)); }},
          {"compress_size", [&] { return parts(jnp::compress(jnp::array({false, true, false}), m, 1, 2, -1.f)); }},
          {"compress_size_0", [&] { return parts(jnp::compress(jnp::array({true, true}), in.t234, 0, 1)); }},
          {"extract", [&] { return parts(jnp::extract(m > 2.f, m)); }},
          {"extract_size", [&] { return parts(jnp::extract(m > 4.f, m, 4, 7.f)); }},
          {"place", [&] { return parts(jnp::place(m, m > 2.f, jnp::array({10.f, 20.f}), false)); }},
          {"put", [&] { return parts(jnp::put(m, jnp::array({0, 4, -1, 20}), jnp::array({10.f, 20.f}), {}, false)); }},
          {"put_clip", [&] { return parts(jnp::put(m, jnp::array({-3, 20}), 9.f, "clip", false)); }},
          {"put_wrap", [&] { return parts(jnp::put(m, jnp::array({-3, 20}), 9.f, "wrap", false)); }},
          {"put_along_axis", [&] { return parts(jnp::put_along_axis(m, jnp::array({{0}, {2}}), 7.f, 1, false)); }},
          {"put_along_axis_0",
           [&] {
             auto const corner = in.t234(jaxcc::slice(0, 1), jaxcc::slice(0, 1));
             return parts(jnp::put_along_axis(in.t234, jnp::array({{{1, 0, 1, 1}}}), -corner, 0, false));
           }},
          {"put_along_axis_none",
           [&] { return parts(jnp::put_along_axis(m, jnp::array({5, 0}), in.v2 * 10.f, jaxcc::none, false)); }},
      });
}

TEST_CASE("selection under grad, vmap and jit", "[selection][grad][vmap][jit]") {
  auto const xs = jaxcc_test::smooth({3, 2, 3}, 0.9);
  auto const f = [](Array<double> const& x) {
    auto const sq = [](Array<double> const& a) { return Array<double>(a * a); };
    auto const twice = [](Array<double> const& a) { return Array<double>(a * 2.0); };
    return jnp::sum(jnp::select({x > 0.5, x < -0.5}, {x * x, x * 3.0}, 1.0)) +
           jnp::sum(jnp::choose(jnp::array({{0, 1, 1}, {1, 0, 1}}), {x, x * x}, "clip")) +
           jnp::sum(jnp::piecewise(x, {x > 0.0}, std::vector<Piece<double>>{sq, twice})) +
           jnp::sum(jnp::compress(jnp::array({true, false, true}), x * x, 1)) +
           jnp::sum(jnp::compress(x(0) > 10.0, x, 1, 2)) +
           jnp::sum(jnp::place(x, jnp::array({{true, false, true}, {false, false, true}}), jnp::ravel(x * x), false)) +
           jnp::sum(jnp::put(x, jnp::array({1, 4}), x(0, jaxcc::slice(0, 2)) * 5.0, {}, false) * x) +
           jnp::sum(jnp::put_along_axis(x, jnp::array({{2}, {0}}), x(jaxcc::all, jaxcc::slice(1, 2)) * x(jaxcc::all, jaxcc::slice(1, 2)), 1, false));
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{jaxcc_test::example(xs, 0, 1)}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0), xs));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, jaxcc_test::example(xs, 0, 2)));
}

TEST_CASE("selection: errors", "[selection][errors]") {
  auto const m = jnp::ones<float>({2, 3});
  Array<bool> const t = m > 0.f;
  CHECK(message_of([&] { jnp::select({t, t}, {m}); }) == "condlist must have length equal to choicelist (2 vs 1)");
  CHECK(message_of([&] { jnp::select(std::vector<Array<bool>>{}, std::vector<Array<float>>{}); }) ==
        "condlist must be non-empty");
  CHECK(message_of([&] { jnp::choose(jnp::array({2}), {m, m}); }) == "invalid entry in choice array");
  CHECK(message_of([&] { jnp::choose(jnp::array({0}), {m}, "nope"); }) ==
        "mode='nope' not understood. Must be 'raise', 'wrap', or 'clip'");
  auto const chose = message_of([&] {
    jaxcc::jit([&](Array<std::int32_t> const& a) { return jnp::choose(a, {m, m}); })(jnp::array({0}));
  });
  INFO(chose);
  CHECK(chose.find("under jit use mode='wrap' or mode='clip' instead") != std::string::npos);
  CHECK(message_of([&] { jnp::piecewise(m, {t}, std::vector<Piece<float>>{}); }) ==
        "with 1 condition(s), either 1 or 2 functions are expected; got 0");
  CHECK(message_of([&] { jnp::compress(t, m); }) == "condition must be a 1D array");
  CHECK(message_of([&] { jnp::compress(jnp::array({true, false, false, true}), m, 1); }) ==
        "condition contains entries that are out of bounds");
  CHECK(message_of([&] { jnp::compress(jnp::array({true}), m, 1, 2); }) ==
        "size must be positive and not greater than the size of the array axis; got size=2 for a.shape[axis]=1");
  auto const compressed = message_of([&] {
    jaxcc::jit([&](Array<bool> const& c) { return jnp::compress(c, m, 1); })(jnp::array({true, false, true}));
  });
  CHECK(compressed.find("Abstract tracer value encountered where concrete value is expected") != std::string::npos);
  CHECK(message_of([&] { jnp::place(m, t, m); }) ==
        "jax.numpy.place cannot modify arrays in-place, because JAX arrays are immutable. Pass inplace=False to "
        "instead return an updated array.");
  CHECK(message_of([&] { jnp::place(m, jnp::array({true}), m, false); }) == "place: arr and mask must be the same size");
  CHECK(message_of([&] { jnp::place(m, t, jnp::ones<float>(0), false); }) == "Cannot place values from an empty array");
  CHECK(message_of([&] { jnp::put(m, jnp::array({0}), 1.f, "raise", false); }) ==
        "The 'raise' mode to jnp.put is not supported.");
  CHECK(message_of([&] { jnp::put(m, jnp::array({0}), 1.f, "nope", false); }) ==
        "mode should be one of 'wrap' or 'clip'; got mode='nope'");
  CHECK(message_of([&] { jnp::put_along_axis(m, jnp::array({0}), 1.f, 1, false); }) ==
        "put_along_axis arguments 'arr' and 'indices' must have same ndim. Got arr.ndim=2 and indices.ndim=1.");
  CHECK(message_of([&] { jnp::put_along_axis(m, jnp::array({{0}}), jnp::ones<float>(3), 1, false); }) ==
        "put_along_axis argument 'values' must be broadcastable to 'indices'. Got values.shape=(3,) and "
        "indices.shape=(1, 1).");
}

}  // namespace test_selection
