// Reverse mode: grad, value_and_grad, vjp. Expected values are worked out by
// hand (the derivation is in each comment) or checked against forward mode
// and central differences.
#include "catch.hpp"

#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_vjp {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc_test::message_of;

namespace {

// An ordinary function with Array parameters, not a generic lambda.
Array<float> sin_plus_square(Array<float> x) { return jnp::sum(x * x + jnp::sin(x)); }
}  // namespace

TEST_CASE("grad of an ordinary function", "[vjp][grad]") {
  auto x = jnp::array({0.5f, 1.0f, 2.0f});
  // d/dx sum(x^2 + sin x) = 2x + cos x
  auto g = jaxcc::grad(sin_plus_square)(x);
  std::vector<float> expected;
  for (float v : {0.5f, 1.0f, 2.0f}) expected.push_back(2 * v + std::cos(v));
  REQUIRE_THAT(g, AllClose(jnp::array(expected, Shape{3}), 1e-6));
  // The function can live in a std::function too.
  std::function<Array<float>(Array<float>)> stored = sin_plus_square;
  REQUIRE_THAT(jaxcc::grad(stored)(x), AllClose(g));
}

TEST_CASE("higher order: grad of grad of grad", "[vjp][grad]") {
  auto f = [](Array<double> x) { return Array<double>(x * x * x + jnp::sin(x)); };
  auto x = jnp::array(0.7);
  // f' = 3x^2 + cos x, f'' = 6x - sin x, f''' = 6 - cos x
  REQUIRE(jaxcc::grad(f)(x).item() == Catch::Approx(3 * 0.49 + std::cos(0.7)));
  REQUIRE(jaxcc::grad(jaxcc::grad(f))(x).item() == Catch::Approx(6 * 0.7 - std::sin(0.7)));
  REQUIRE(jaxcc::grad(jaxcc::grad(jaxcc::grad(f)))(x).item() == Catch::Approx(6 - std::cos(0.7)));
}

TEST_CASE("argnums and has_aux, in any order", "[vjp][grad]") {
  auto f = [](Array<double> a, Array<double> b, Array<double> c) {
    // d/da = b c, d/db = a c, d/dc = a b
    return Array<double>(a * b * c);
  };
  auto a = jnp::array(2.0), b = jnp::array(3.0), c = jnp::array(5.0);
  REQUIRE(jaxcc::grad(f)(a, b, c).item() == 15.0);
  auto [ga, gc] = jaxcc::grad(f, jaxcc::argnums<0, 2>)(a, b, c);
  REQUIRE(ga.item() == 15.0);
  REQUIRE(gc.item() == 6.0);
  REQUIRE(jaxcc::grad(f, jaxcc::argnums<1>)(a, b, c).item() == 10.0);

  auto with_aux = [](Array<double> x) { return std::pair{Array<double>(x * x), Array<double>(x + 1.0)}; };
  auto [g, aux] = jaxcc::grad(with_aux, jaxcc::has_aux)(jnp::array(3.0));
  REQUIRE(g.item() == 6.0);
  REQUIRE(aux.item() == 4.0);
  auto [value_aux, g2] = jaxcc::value_and_grad(with_aux, jaxcc::has_aux, jaxcc::argnums<0>)(jnp::array(3.0));
  REQUIRE(value_aux.first.item() == 9.0);
  REQUIRE(value_aux.second.item() == 4.0);
  REQUIRE(g2.item() == 6.0);
  auto [value, g3] = jaxcc::value_and_grad(f, jaxcc::argnums<0, 1>)(a, b, c);
  REQUIRE(value.item() == 30.0);
  REQUIRE(std::get<1>(g3).item() == 10.0);

  // An argnum past the arguments does not compile (named constraint).
  STATIC_REQUIRE_FALSE(std::is_invocable_v<decltype(jaxcc::grad(f, jaxcc::argnums<3>)), Array<double>, Array<double>, Array<double>>);
  STATIC_REQUIRE(std::is_invocable_v<decltype(jaxcc::grad(f, jaxcc::argnums<2>)), Array<double>, Array<double>, Array<double>>);
}

TEST_CASE("gradients of pytrees keep their structure", "[vjp][grad][tree]") {
  using Params = std::map<std::string, Array<double>>;
  auto f = [](Params const& p) { return jnp::sum(p.at("w") * p.at("w")) + jnp::sum(p.at("b")); };
  Params p{{"w", jnp::array({1.0, -2.0})}, {"b", jnp::array({3.0})}};
  auto g = jaxcc::grad(f)(p);
  REQUIRE(g.size() == 2);
  REQUIRE_THAT(g.at("w"), AllClose(jnp::array({2.0, -4.0})));
  REQUIRE_THAT(g.at("b"), AllClose(jnp::array({1.0})));
}

TEST_CASE("shared subexpressions: one node, gradient linear in graph size", "[vjp][grad][dag]") {
  // x <- x*x*0.1 + sin(x), 64 times; each step is one fused region.
  auto chain = [](Array<double> x) {
    for (int i = 0; i < 64; ++i) x = x * x * 0.1 + jnp::sin(x);
    return x;
  };
  auto x0 = jnp::array(0.3);
  jaxcc::graph::counters().vjp_rules_applied = 0;
  auto g = jaxcc::grad(chain)(x0);
  REQUIRE(jaxcc::graph::counters().vjp_rules_applied == 64);  // each equation visited once
  auto [out, tangent] = jaxcc::jvp(chain, std::tuple{x0}, std::tuple{jnp::array(1.0)});
  REQUIRE(g.item() == Catch::Approx(tangent.item()).epsilon(1e-12));
  // And against the chain rule written out by hand.
  double v = 0.3, d = 1.0;
  for (int i = 0; i < 64; ++i) {
    d *= 0.2 * v + std::cos(v);
    v = v * v * 0.1 + std::sin(v);
  }
  REQUIRE(g.item() == Catch::Approx(d).epsilon(1e-10));
}

TEST_CASE("reverse mode forms no cotangent for inputs not asked for", "[vjp][dag]") {
  // out = sum(dot(a, b)) + sum(a * c). Asking for a's cotangent only, b's
  // and c's stay empty: dot_general's transpose for b and the region's loop
  // for c never run (JAX's UndefinedPrimal). By hand, d out / d a = b on
  // each row + c; d out / d b = the column sums of a; d out / d c = a.
  namespace graph = jaxcc::graph;
  auto const a_value = jaxcc_test::smooth({2, 3}), b_value = jaxcc_test::smooth({3}, 0.5, 1.0),
             c_value = jaxcc_test::smooth({2, 3}, 0.3, -0.7);
  graph::Trace trace;
  Array<double> out;
  {
    graph::ScopedTrace scope(trace);
    auto const a = trace.add_input<double>({2, 3});
    auto const b = trace.add_input<double>({3});
    auto const c = trace.add_input<double>({2, 3});
    out = Array<double>(jnp::sum(jnp::dot(a, b)) + jnp::sum(Array<double>(a * c)));
  }
  std::vector<jaxcc::AnyArray> const inputs{a_value, b_value, c_value};
  auto const env = graph::evaluate(trace, inputs);
  auto const seed = [&] {
    std::vector<graph::MaybeArray> s(trace.var_count());
    s[graph::var_of(out)->id] = jaxcc::AnyArray(jnp::array(1.0));
    return s;
  };
  std::uint8_t const only_a[] = {1, 0, 0};
  auto const cts = graph::backward(trace, env, seed(), graph::Wanted(only_a));
  REQUIRE(cts[0].has_value());
  REQUIRE(!cts[1].has_value());
  REQUIRE(!cts[2].has_value());
  REQUIRE_THAT(cts[0]->as<double>(), AllClose(Array<double>(jnp::broadcast_to(b_value, {2, 3}) + c_value), 1e-14));

  auto const all = graph::backward(trace, env, seed());
  REQUIRE(all[1].has_value());
  REQUIRE(all[2].has_value());
  REQUIRE_THAT(all[1]->as<double>(), AllClose(jnp::sum(a_value, 0), 1e-14));
  REQUIRE_THAT(all[2]->as<double>(), AllClose(a_value, 1e-14));
}

TEST_CASE("x*a + x*b and a repeated subexpression differentiate correctly", "[vjp][grad][dag]") {
  auto x = jnp::array(1.5);
  REQUIRE(jaxcc::grad([](Array<double> v) { return Array<double>(v * 2.0 + v * 7.0); })(x).item() == 9.0);
  // sin(x) written twice: d/dx (sin x)^2 computed as s * s' + s' * s.
  auto twice = [](Array<double> v) {
    auto s1 = jnp::sin(v);
    auto s2 = jnp::sin(v);
    return Array<double>(s1 * s2);
  };
  REQUIRE(jaxcc::grad(twice)(x).item() == Catch::Approx(2 * std::sin(1.5) * std::cos(1.5)));
  // The same Array used many times is one Var.
  auto reuse = [](Array<double> v) {
    Array<double> s = jnp::sin(v);
    return Array<double>(s * s + s);
  };
  REQUIRE(jaxcc::grad(reuse)(x).item() == Catch::Approx(2 * std::sin(1.5) * std::cos(1.5) + std::cos(1.5)));
}

TEST_CASE("a region's cotangent is one fused equation, differentiated as its ops", "[vjp][grad][fusion]") {
  // f(x) = sum(y * y), y = 0.99 x + 0.01 sin x: one region with x as two
  // leaves. y's cotangent 2y is traced, so the region's cotangent for its
  // second leaf, ct * cos(x) * 0.01, is recorded as one derived region: the
  // traced gradient holds two fused equations (y and that one) and no cos
  // of its own. (A cotangent with a constant leaf, such as the ones a sum
  // seeds, goes op by op so that jit can fold `* 1`.)
  auto f = [](Array<double> x) {
    Array<double> y = x * 0.99 + jnp::sin(x) * 0.01;
    return jnp::sum(y * y);
  };
  auto const x = jnp::array({-1.0, 0.25, 2.0});
  auto const jaxpr = jaxcc::make_jaxpr(jaxcc::grad(f))(x);
  auto const count = [&](std::string_view name) {
    std::size_t n = 0;
    for (auto const& eq : jaxpr.trace().equations) n += eq.primitive->name() == name;
    return n;
  };
  REQUIRE(count("fused") == 2);
  REQUIRE(count("cos") == 0);
  // By hand, with y' = 0.99 + 0.01 cos x: f' = 2 y y', f'' = 2 y'^2 - 0.02 y sin x.
  // The second derivative differentiates the derived region through its
  // ops (reverse and forward mode), eagerly and under jit.
  std::vector<double> first, second;
  for (double v : x.to_vector()) {
    double const y = 0.99 * v + 0.01 * std::sin(v), dy = 0.99 + 0.01 * std::cos(v);
    first.push_back(2 * y * dy);
    second.push_back(2 * dy * dy - 0.02 * y * std::sin(v));
  }
  REQUIRE_THAT(jaxcc::grad(f)(x), AllClose(jnp::array(first, Shape{3})));
  REQUIRE_THAT(jaxcc::jit(jaxcc::grad(f))(x), AllClose(jnp::array(first, Shape{3})));
  auto const sum_of_grad = [&](Array<double> v) { return jnp::sum(jaxcc::grad(f)(v)); };
  REQUIRE_THAT(jaxcc::grad(sum_of_grad)(x), AllClose(jnp::array(second, Shape{3})));
  REQUIRE_THAT(jaxcc::jit(jaxcc::grad(sum_of_grad))(x), AllClose(jnp::array(second, Shape{3})));
  auto const [df, ddf] = jaxcc::jvp(jaxcc::grad(f), std::tuple{x}, std::tuple{jnp::ones_like(x)});
  REQUIRE_THAT(df, AllClose(jnp::array(first, Shape{3})));
  REQUIRE_THAT(ddf, AllClose(jnp::array(second, Shape{3})));
}

TEST_CASE("vjp returns the value and a pullback per primal", "[vjp]") {
  auto f = [](Array<float> a, Array<float> b) { return Array<float>(a * b); };
  // Named, not a structured binding: clang before 16 cannot capture those in lambdas.
  auto const out_and_pullback = jaxcc::vjp(f, jnp::array({1.f, 2.f}), jnp::array({3.f, 4.f}));
  auto const& out = out_and_pullback.first;
  auto const& pullback = out_and_pullback.second;
  REQUIRE_THAT(out, AllClose(jnp::array({3.f, 8.f})));
  auto [ca, cb] = pullback(jnp::array({1.f, 10.f}));
  REQUIRE_THAT(ca, AllClose(jnp::array({3.f, 40.f})));
  REQUIRE_THAT(cb, AllClose(jnp::array({1.f, 20.f})));
  REQUIRE(message_of([&] { return pullback(jnp::ones<float>({3})); }) ==
          "vjp: cotangent 0 has type f32[3], but the primal output there has type f32[2]");
}

TEST_CASE("broadcast operands get their cotangent summed back", "[vjp][broadcast]") {
  // f(x, b) = sum(x * b) with x (2, 3) and b (3,): df/db = column sums of x.
  auto f = [](Array<double> x, Array<double> b) { return jnp::sum(x * b); };
  auto x = jnp::array<double>({{1, 2, 3}, {4, 5, 6}});
  auto gb = jaxcc::grad(f, jaxcc::argnums<1>)(x, jnp::array({1.0, 1.0, 1.0}));
  REQUIRE_THAT(gb, AllClose(jnp::array({5.0, 7.0, 9.0})));
}

TEST_CASE("errors are JAX's", "[vjp][errors]") {
  auto vector_out = [](Array<float> x) { return Array<float>(x * 2.0f); };
  REQUIRE(message_of([&] { return jaxcc::grad(vector_out)(jnp::ones<float>({3})); }) ==
          "Gradient only defined for scalar-output functions. Output had shape: (3,). To get the gradient, reduce "
          "the output to a scalar with jnp::sum(output), or use jaxcc::jacrev to differentiate a function with a "
          "non-scalar output.");
  REQUIRE(message_of([&] { return jaxcc::grad(vector_out)(jnp::ones<float>({1})); }) ==
          "Gradient only defined for scalar-output functions. Output had shape: (1,). To get the gradient, extract "
          "the scalar with output.reshape({}), reduce the output to a scalar with jnp::sum(output), or use "
          "jaxcc::jacrev to differentiate a function with a non-scalar output.");
  auto int_in = [](Array<std::int32_t> x) { return jnp::sum(x.astype<float>()); };
  REQUIRE(message_of([&] { return jaxcc::grad(int_in)(jnp::array<std::int32_t>({1, 2})); }) ==
          "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got "
          "int32. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True.");
  auto int_out = [](Array<float> x) { return jnp::sum(x).astype<std::int32_t>(); };
  REQUIRE(message_of([&] { return jaxcc::grad(int_out)(jnp::ones<float>({2})); }) ==
          "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32. For "
          "differentiation of functions with integer outputs, use jaxcc::vjp directly.");
}

TEST_CASE("a C++ if on a traced value explains lax::cond", "[vjp][errors]") {
  auto branchy = [](Array<float> x) {
    if (jnp::sum(x) > 0.0f) return Array<float>(x * 2.0f);
    return x;
  };
  REQUIRE(message_of([&] { return jaxcc::grad([&](Array<float> x) { return jnp::sum(branchy(x)); })(jnp::ones<float>({2})); }) ==
          "Attempted boolean conversion of traced array with shape bool[]. A C++ `if` cannot branch on a value being "
          "traced; use jaxcc::lax::cond to choose between computations, or jnp::where to choose between values.");
  auto reads = [](Array<float> x) {
    (void)x.to_vector();
    return jnp::sum(x);
  };
  REQUIRE(message_of([&] { return jaxcc::grad(reads)(jnp::ones<float>({2})); }) ==
          "Abstract tracer value encountered where concrete value is expected: traced array with shape f32[2]\nThe "
          "problem arose with `to_vector`, which needs the array's values; under a transform only its shape and "
          "dtype are known.");
}

TEST_CASE("a leaked tracer is reported when used", "[vjp][errors]") {
  Array<float> leaked;
  auto f = [&](Array<float> x) {
    leaked = x * 2.0f;
    return jnp::sum(x);
  };
  (void)jaxcc::grad(f)(jnp::ones<float>({2}));
  REQUIRE(message_of([&] { return jaxcc::grad([&](Array<float> y) { return jnp::sum(y + leaked); })(jnp::ones<float>({2})); })
              .starts_with("Encountered an unexpected tracer. A function transformed by jaxcc had a side effect, "
                           "allowing for a reference to an intermediate value with type f32[2]"));
}

}  // namespace test_vjp
