// The test helpers themselves (testing/allclose.hpp, testing/check.hpp,
// testing/random_inputs.hpp): matching computations pass; a jit-only
// difference, a wrong batching rule (of a primitive, and of a custom_jvp's
// and a custom_vjp's derivative rules) and a wrong gradient are each caught,
// with a message naming the output leaf or input and the element; NaN
// handling and shape mismatches; the random inputs are reproducible and are
// jaxcc::random's (so JAX's) draws; the edge inputs (0-d, each axis empty)
// and check_edges, which runs f and jit(f) on them.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/random_inputs.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "support.hpp"

namespace test_check {

namespace jnp = jaxcc::numpy;
namespace testing = jaxcc::testing;
using jaxcc::Array;
using jaxcc::Shape;

TEST_CASE("compare names the worst element by its index, values and difference", "[testing][allclose]") {
  auto const expected = jnp::array<double>({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  auto const actual = jnp::array<double>({{1.0, 2.1, 3.0}, {4.0, 5.0, 6.5}});
  auto const report = testing::compare(actual, expected, 1e-5, 1e-8);
  REQUIRE_FALSE(report.close);
  // |6.5 - 6| = 0.5 misses by more than |2.1 - 2| = 0.1: (1, 2) is the worst of the two.
  CHECK(report.why.starts_with("2 of 6 elements differ; the worst, at index (1, 2): 6.5 vs 6 (difference 0.5"));
  CHECK(testing::compare(actual, expected, 0.06, 0.0).why.starts_with("1 of 6 elements differ; the worst, at index (1, 2)"));
  CHECK(testing::compare(expected, expected).close);
  CHECK(testing::compare(jnp::zeros<double>({2, 3}), jnp::zeros<double>({3, 2})).why == "shapes differ: (2, 3) vs (3, 2)");
  // NaN equals NaN only when asked; an infinity only itself.
  auto const nan = jnp::array<double>({1.0, std::nan("")});
  CHECK_FALSE(testing::allclose(nan, nan));
  CHECK(testing::allclose(nan, nan, 1e-5, 1e-8, true));
  CHECK_FALSE(testing::allclose(jnp::array<double>({INFINITY}), jnp::array<double>({-INFINITY})));
}

TEST_CASE("default tolerances are JAX's test tolerances per dtype", "[testing]") {
  CHECK(testing::default_tolerance(jaxcc::DType::float32) == 1e-6);
  CHECK(testing::default_tolerance(jaxcc::DType::float64) == 1e-15);
  CHECK(testing::default_tolerance(jaxcc::DType::int32) == 0);
}

TEST_CASE("jit_matches: jit against eager, traced and cached", "[testing][jit]") {
  auto const x = jnp::linspace<double>(-1.0, 1.0, 5);
  auto const f = [](Array<double> const& v) { return std::pair{Array<double>(jnp::sin(v) * 2.0), jnp::sum(v * v)}; };
  auto const passed = testing::jit_matches(f, x);
  CHECK(passed);
  CHECK(passed.message.empty());
  REQUIRE_NOTHROW(testing::check_jit(f, x));

  // A function whose value depends on how often it ran: traced once by jit
  // (its second run), it bakes in 2 where eager f used 1.
  int runs = 0;
  auto const impure = [&runs](Array<double> const& v) { return Array<double>(v * static_cast<double>(++runs)); };
  auto const failed = testing::jit_matches(impure, x);
  REQUIRE_FALSE(failed);
  CHECK(failed.message.starts_with("check_jit: jit(f), traced on its first call, differs from f at output leaf 0: "
                                   "4 of 5 elements differ; the worst, at index (0,)"));
  runs = 0;
  REQUIRE_THROWS_AS(testing::check_jit(impure, x), testing::CheckError);
}

TEST_CASE("edge_shapes and edge_inputs: the 0-d shape, then each axis empty in turn", "[testing][random]") {
  auto const shapes = testing::edge_shapes({3, 4});
  REQUIRE(shapes.size() == 3);
  CHECK(shapes[0] == Shape{});
  CHECK(shapes[1] == Shape{0, 4});
  CHECK(shapes[2] == Shape{3, 0});
  REQUIRE(testing::edge_shapes({}).size() == 1);
  CHECK(testing::edge_shapes({})[0] == Shape{});
  auto const edges = testing::edge_inputs(jnp::zeros<std::int32_t>({2, 5, 3}), 4);
  STATIC_REQUIRE(std::same_as<decltype(edges), std::vector<Array<std::int32_t>> const>);
  REQUIRE(edges.size() == 4);
  CHECK(edges[0].shape() == Shape{});
  CHECK(edges[0].to_vector() == testing::rand_like(Array<std::int32_t>(jnp::zeros<std::int32_t>({})), 4).to_vector());
  CHECK(edges[1].shape() == Shape{0, 5, 3});
  CHECK(edges[2].shape() == Shape{2, 0, 3});
  CHECK(edges[3].shape() == Shape{2, 5, 0});
}

TEST_CASE("edges_match: f and jit(f) agree at 0-d and empty inputs, raising or not", "[testing][jit]") {
  // Running sums, a reflecting pad and a reduction over axis 0: at the 0-d
  // input they raise (eager and jitted alike); at the empty ones they return.
  auto const f = [](Array<float> const& x, Array<float> const& w) {
    return std::pair{Array<float>(jnp::cumsum(jnp::pad(x, 1, "reflect"), 0) * 2.0f), jnp::sum(x * w, 0)};
  };
  auto const x = testing::rand_normal({3, 4}, 1), w = testing::rand_normal({3, 4}, 2);
  auto const passed = testing::edges_match(f, x, w);
  CHECK(passed.message == "");
  REQUIRE_NOTHROW(testing::check_edges(f, x, w));

  // A function that raises at its first 0-d input only: eager f raises,
  // jit(f), which runs it next, does not.
  int zero_d_runs = 0;
  auto const flaky = [&zero_d_runs](Array<float> const& v) {
    if (v.ndim() == 0 && zero_d_runs++ == 0) throw jaxcc::Error("not at 0-d");
    return Array<float>(v * 2.0f);
  };
  auto const failed = testing::edges_match(flaky, x);
  REQUIRE_FALSE(failed);
  CHECK(failed.message == "check_edges: f raised at argument 0 of shape () (not at 0-d), jit(f) did not");
  zero_d_runs = 0;
  REQUIRE_THROWS_AS(testing::check_edges(flaky, x), testing::CheckError);
}

/// Σ over the last axis of a (rows, n) array; its batching rule ignores
/// where the mapped axis is, which is right only when it is axis 0.
struct row_sum_p {
  static constexpr std::string_view name = "row_sum";
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };
  static Shape shape_rule(Params const&, Array<float> const& x) { return Shape{x.shape()[0]}; }
  static Array<float> impl(Params const&, Shape const&, Array<float> const& x) { return jnp::sum(x, -1); }
  static std::pair<Array<float>, jaxcc::graph::BatchDim> batch(Params const&, jaxcc::graph::AxisData const&,
                                                              std::span<jaxcc::graph::BatchDim const>,
                                                              Array<float> const& x) {
    return {jnp::sum(x, -1), 0};
  }
};
Array<float> row_sum(Array<float> const& x) { return jaxcc::detail::bind<row_sum_p>({}, x); }

TEST_CASE("vmap_matches: vmap against a loop of f, a wrong batching rule caught", "[testing][vmap]") {
  auto const xs = jnp::reshape(jnp::arange<float>(0, 24), {2, 3, 4});
  auto const f = [](Array<float> const& x, Array<float> const& s) { return Array<float>(jnp::tanh(x) * s); };
  CHECK(testing::vmap_matches(f, jaxcc::in_axes(0, jaxcc::none), xs, jnp::array(0.5f)));
  CHECK(testing::vmap_matches(f, jaxcc::in_axes(-1, jaxcc::none), xs, jnp::array(0.5f)));
  REQUIRE_NOTHROW(testing::check_vmap(f, jaxcc::in_axes(1, jaxcc::none), xs, jnp::array(0.5f)));
  // An unevaluated expression is mapped as the Array it stands for.
  CHECK(testing::vmap_matches(f, jaxcc::in_axes(2, jaxcc::none), xs * 2.0f, jnp::array(0.5f)));

  // Mapped along axis 0, the rule's assumption holds.
  CHECK(testing::vmap_matches(row_sum, jaxcc::in_axes(0), xs));
  // Mapped along axis 2, it sums over the examples instead of each row.
  auto const wrong = testing::vmap_matches(row_sum, jaxcc::in_axes(2), xs);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.message.starts_with("check_vmap: vmap(f) differs from f at output leaf 0: shapes differ: (2, 3) vs (4, 2)"));
  REQUIRE_THROWS_AS(testing::check_vmap(row_sum, jaxcc::in_axes(2), xs), testing::CheckError);
  // Nothing mapped: nothing to loop over.
  CHECK(testing::vmap_matches(row_sum, jaxcc::in_axes(jaxcc::none), xs).message == "check_vmap: no argument is mapped");
}

TEST_CASE("grads_match: a wrong custom gradient is caught", "[testing][grad]") {
  auto const x = jnp::array<double>({0.3, -1.2, 2.0});
  auto const good = [](Array<double> const& v) { return jnp::sum(jnp::sin(v) * v); };
  CHECK(testing::grads_match(good, std::tuple{x}, 2));
  // d/dx sin(x) is cos(x); this rule says -cos(x).
  auto const bad = jaxcc::custom_vjp([](Array<double> v) { return Array<double>(jnp::sin(v)); },
                                     [](Array<double> v) { return std::pair{Array<double>(jnp::sin(v)), v}; },
                                     [](Array<double> const& v, Array<double> const& g) {
                                       return std::tuple{Array<double>(-g * jnp::cos(v))};
                                     });
  auto const failed = testing::grads_match([&](Array<double> const& v) { return jnp::sum(bad(v)); }, std::tuple{x}, 1,
                                           {.fwd = false});
  REQUIRE_FALSE(failed);
  CHECK(failed.message.starts_with("check_grads: VJP of f disagrees with finite differences"));
}

/// x minus the mean of all its elements. Its batching rule subtracts the
/// mean of the whole batch instead of each example's (it forgets which axis
/// is the batch's): right for one example, wrong for a batch.
struct center_p {
  static constexpr std::string_view name = "center";
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };
  static Shape shape_rule(Params const&, Array<double> const& x) { return x.shape(); }
  static Array<double> impl(Params const&, Shape const&, Array<double> const& x) { return x - jnp::mean(x); }
  static std::pair<Array<double>, jaxcc::graph::BatchDim> batch(Params const&, jaxcc::graph::AxisData const&,
                                                               std::span<jaxcc::graph::BatchDim const> dims,
                                                               Array<double> const& x) {
    return {x - jnp::mean(x), dims[0]};
  }
};
Array<double> center(Array<double> const& x) { return jaxcc::detail::bind<center_p>({}, x); }

// Functions computed with jnp (which batches right) whose derivative rules
// use `center`: centering is linear and self-adjoint, so its JVP centers
// the tangent and its VJP the cotangent. Only the rules meet center_p's
// wrong batching, so vmap of the functions alone is right.
Array<double> centered(Array<double> const& x) { return x - jnp::mean(x); }
// x - mean(x), with a JVP rule.
auto const centered_by_jvp_rule = jaxcc::custom_jvp(centered, [](auto const& primals, auto const& tangents) {
  return std::pair{centered(std::get<0>(primals)), center(std::get<0>(tangents))};
});
// s (x - mean(x)) for a scalar s, with a VJP rule: the cotangent of s is
// <g, x - mean(x)>, that of x is center(s g).
auto const scaled_centered_by_vjp_rule = jaxcc::custom_vjp(
    [](Array<double> const& s, Array<double> const& x) { return Array<double>(s * centered(x)); },
    [](Array<double> const& s, Array<double> const& x) { return std::pair{Array<double>(s * centered(x)), std::pair{s, x}}; },
    [](std::pair<Array<double>, Array<double>> const& sx, Array<double> const& g) {
      return std::tuple{jnp::sum(g * centered(sx.second)), center(g * sx.first)};
    });

TEST_CASE("batching_rule_matches: vmap of f, of its JVP and of its VJP against loops", "[testing][vmap][grad]") {
  auto const xs = jaxcc_test::smooth({3, 4});
  // JAX's custom_jvp example, log(1 + exp(x)) with a stable tangent rule.
  auto const log1pexp = jaxcc::custom_jvp([](Array<double> x) { return Array<double>(jnp::log1p(jnp::exp(x))); },
                                          [](auto const& primals, auto const& tangents) {
                                            auto const& x = std::get<0>(primals);
                                            auto const& t = std::get<0>(tangents);
                                            return std::pair{Array<double>(jnp::log1p(jnp::exp(x))),
                                                             Array<double>(t * (1.0 - 1.0 / (1.0 + jnp::exp(x))))};
                                          });
  CHECK(testing::batching_rule_matches(log1pexp, jaxcc::in_axes(0), xs));
  CHECK(testing::batching_rule_matches(log1pexp, jaxcc::in_axes(1), xs));
  // A custom_vjp of two arguments, one of them shared by the batch; it has
  // no JVP to check.
  auto const product = jaxcc::custom_vjp(
      [](Array<double> x, Array<double> y) { return Array<double>(x * y); },
      [](Array<double> x, Array<double> y) { return std::pair{Array<double>(x * y), std::pair{x, y}}; },
      [](std::pair<Array<double>, Array<double>> const& xy, Array<double> const& g) {
        return std::tuple{Array<double>(g * xy.second), Array<double>(g * xy.first)};
      });
  auto const y = jnp::array<double>({0.5, -1.0, 2.0, 3.0});
  CHECK(testing::batching_rule_matches(product, jaxcc::in_axes(0, jaxcc::none), {.fwd = false}, xs, y));
  REQUIRE_NOTHROW(testing::check_batching_rule(product, jaxcc::in_axes(1, 0), {.fwd = false}, xs, xs.T()));
  // Without custom rules, the library's own batching: f and its derivatives.
  auto const f = [](Array<double> const& x, Array<double> const& s) { return jnp::sum(jnp::sin(x) * s); };
  REQUIRE_NOTHROW(testing::check_batching_rule(f, jaxcc::in_axes(0, jaxcc::none), xs, y));
  CHECK(testing::batching_rule_matches(f, jaxcc::in_axes(jaxcc::none), xs, y).message ==
        "check_batching_rule: no argument is mapped");
}

TEST_CASE("batching_rule_matches: a derivative rule batched wrongly is caught, where check_vmap sees nothing",
          "[testing][vmap][grad]") {
  auto const xs = jaxcc_test::smooth({3, 4});
  auto const s = jnp::array(1.5);
  // One example at a time, the rules are right.
  CHECK(testing::grads_match(centered_by_jvp_rule, std::tuple{xs}, 1, {.rev = false}));
  CHECK(testing::grads_match(scaled_centered_by_vjp_rule, std::tuple{s, xs}, 1, {.fwd = false}));
  // vmap of the functions themselves is right too.
  CHECK(testing::vmap_matches(centered_by_jvp_rule, jaxcc::in_axes(0), xs));
  CHECK(testing::vmap_matches(scaled_centered_by_vjp_rule, jaxcc::in_axes(jaxcc::none, 0), s, xs));

  // Batched, each example's tangent is centered by the batch's mean: every
  // element of the 3 examples of 4 is off. (center_p has no transpose rule,
  // so the custom_jvp function has no VJP to check.)
  auto const wrong_jvp = testing::batching_rule_matches(centered_by_jvp_rule, jaxcc::in_axes(0), {.rev = false}, xs);
  REQUIRE_FALSE(wrong_jvp);
  CHECK(wrong_jvp.message.starts_with("check_batching_rule: vmap(jvp(f)) differs from jvp(f) at the tangent of output "
                                      "leaf 0: 12 of 12 elements differ; the worst, at index ("));
  CHECK(wrong_jvp.message.ends_with(" (jvp(f) looped over the 3 examples, stacked along axis 0)"));

  // Likewise each example's cotangent of x in the VJP; the message names
  // the argument (s's cotangent, computed without center, is right).
  auto const wrong_vjp = testing::batching_rule_matches(scaled_centered_by_vjp_rule, jaxcc::in_axes(jaxcc::none, 0),
                                                        {.fwd = false}, s, xs);
  REQUIRE_FALSE(wrong_vjp);
  CHECK(wrong_vjp.message.starts_with("check_batching_rule: vmap(vjp(f)) differs from vjp(f) at the cotangent of "
                                      "argument 1: 12 of 12 elements differ; the worst, at index ("));
  CHECK(wrong_vjp.message.ends_with(" (vjp(f) looped over the 3 examples, stacked along axis 0)"));
  REQUIRE_THROWS_AS(testing::check_batching_rule(scaled_centered_by_vjp_rule, jaxcc::in_axes(jaxcc::none, 0),
                                                 {.fwd = false}, s, xs),
                    testing::CheckError);
  // A custom_vjp function has no JVP: asking for it is JAX's error.
  REQUIRE_THROWS_WITH(testing::check_batching_rule(scaled_centered_by_vjp_rule, jaxcc::in_axes(jaxcc::none, 0), s, xs),
                      "can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
}

TEST_CASE("rand_normal, rand_uniform, rand_like: reproducible jaxcc::random draws", "[testing][random]") {
  namespace jr = jaxcc::random;
  auto const a = testing::rand_normal<double>({3, 4}, 7);
  CHECK(a.shape() == Shape{3, 4});
  STATIC_REQUIRE(std::same_as<decltype(a), Array<double> const>);
  STATIC_REQUIRE(std::same_as<decltype(testing::rand_normal({2})), Array<float>>);
  // The same seed gives the same values, another seed others.
  CHECK(a.to_vector() == testing::rand_normal<double>({3, 4}, 7).to_vector());
  CHECK(a.to_vector() != testing::rand_normal<double>({3, 4}, 8).to_vector());
  // They are jaxcc::random's draws for jaxcc::random::key(seed) ...
  CHECK(a.to_vector() == jr::normal<double>(jr::key(7), {3, 4}).to_vector());
  auto const u = testing::rand_uniform<float>({1000}, 3, -2.0, 5.0);
  CHECK(u.to_vector() == jr::uniform<float>(jr::key(3), {1000}, -2.0f, 5.0f).to_vector());
  CHECK(u.to_vector() != testing::rand_uniform<float>({1000}, 4, -2.0, 5.0).to_vector());
  CHECK(jnp::min(u).item() >= -2.0f);
  CHECK(jnp::max(u).item() < 5.0f);
  // ... which are JAX's: jax.random.normal and uniform(jax.random.key(0),
  // (7,)) as JAX 0.10.2 gave them (tests/golden/random_cases.inc).
  REQUIRE_THAT(testing::rand_normal({7}, 0),
               testing::AllClose(jnp::array<float>({1.622642159461975f, 2.0252647399902344f, -0.4335944354534149f,
                                                    -0.07861734926700592f, 0.17609089612960815f,
                                                    -0.9720892310142517f, -0.49529874324798584f}),
                                 1e-6, 0));
  REQUIRE_THAT(testing::rand_uniform({7}, 0),
               testing::AllClose(jnp::array<float>({0.9476670026779175f, 0.9785798788070679f, 0.33229148387908936f,
                                                    0.46866846084594727f, 0.569888710975647f, 0.16550302505493164f,
                                                    0.31019461154937744f}),
                                 0, 0));

  // rand_like: the shape and dtype of its argument; floats are rand_normal's.
  auto const like_a = testing::rand_like(Array<double>(a * 2.0), 7);
  CHECK(like_a.shape() == a.shape());
  CHECK(like_a.to_vector() == a.to_vector());
  CHECK(testing::rand_like(a * 2.0, 7).to_vector() == a.to_vector());  // an expression: its shape, unevaluated
  auto const ints = testing::rand_like(jnp::zeros<std::int64_t>({50}), 1);
  STATIC_REQUIRE(std::same_as<decltype(ints), Array<std::int64_t> const>);
  CHECK(ints.shape() == Shape{50});
  auto const int_values = ints.to_vector();
  CHECK(std::ranges::all_of(int_values, [](std::int64_t v) { return v >= -8 && v < 8; }));
  CHECK(int_values != testing::rand_like(jnp::zeros<std::int64_t>({50}), 2).to_vector());
  auto const unsigned_values = testing::rand_like(jnp::zeros<std::uint32_t>({50}), 1).to_vector();
  CHECK(std::ranges::all_of(unsigned_values, [](std::uint32_t v) { return v < 16; }));
  auto const bools = testing::rand_like(jnp::zeros<bool>({2, 25}), 1);
  CHECK(bools.shape() == Shape{2, 25});
  CHECK(bools.to_vector() == testing::rand_like(jnp::zeros<bool>({2, 25}), 1).to_vector());
  CHECK(jnp::any(bools).item());
  CHECK_FALSE(jnp::all(bools).item());
}

}  // namespace test_check
