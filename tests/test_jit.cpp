// jit: one trace per signature (counted by the traced function itself),
// results equal to the function run without jit under every composition,
// the optimizations (CSE, DCE) visible in make_jaxpr, a thread-safe cache,
// and JAX's cache-miss explanations.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "allocation_counter.hpp"
#include "support.hpp"

namespace test_jit {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::testing::AllClose;
using jaxcc_test::count;
using jaxcc_test::jaxpr_of;
using jaxcc_test::mismatch;
using jaxcc_test::smooth;

namespace {

// log(sum(exp(w x + b))) of one example: a little of everything (dot,
// broadcast, fused region, reduction).
Array<double> model(std::tuple<Array<double>, Array<double>> const& params, Array<double> const& x) {
  auto const& [w, b] = params;
  return jnp::log(jnp::sum(jnp::exp(jnp::dot(w, x) + b)));
}

// std::cerr's text while `f` runs.
template <class F>
std::string cerr_of(F&& f) {
  std::ostringstream captured;
  auto* old = std::cerr.rdbuf(captured.rdbuf());
  f();
  std::cerr.rdbuf(old);
  return captured.str();
}

}  // namespace

TEST_CASE("jit traces once per signature", "[jit]") {
  int traces = 0;
  auto f = jaxcc::jit([&](Array<float> x) {
    ++traces;
    return Array<float>(jnp::sin(x) * 2.0f);
  });
  auto const x = jnp::arange<float>(3);
  auto const y = f(x);
  REQUIRE(traces == 1);
  REQUIRE_THAT(y, AllClose(jnp::array<float>({0.f, 2 * std::sin(1.f), 2 * std::sin(2.f)})));
  // Other values of the same shape and dtype: the plan runs, f is not called.
  auto const y2 = f(jnp::array<float>({4.f, 5.f, 6.f}));
  REQUIRE(traces == 1);
  REQUIRE_THAT(y2, AllClose(jnp::array<float>({2 * std::sin(4.f), 2 * std::sin(5.f), 2 * std::sin(6.f)})));
  // A copy of the jitted function shares its cache.
  auto const g = f;
  g(x);
  REQUIRE(traces == 1);
  REQUIRE(f.cache_size() == 1);
}

TEST_CASE("jit traces again for a new shape, dtype, structure or static value", "[jit]") {
  int traces = 0;
  auto f = jaxcc::jit([&](std::vector<Array<double>> const& xs) {
    ++traces;
    auto total = jnp::zeros<double>({});
    for (auto const& x : xs) total = total + jnp::sum(x);
    return total;
  });
  f(std::vector{jnp::ones<double>({2})});
  f(std::vector{jnp::ones<double>({3})});              // new shape
  f(std::vector{jnp::ones<double>({3}), jnp::ones<double>({1})});  // new structure
  REQUIRE(traces == 3);
  REQUIRE(f(std::vector{jnp::ones<double>({3}), jnp::full<double>({1}, 4.0)}).item() == 7.0);
  REQUIRE(traces == 3);
  REQUIRE(f.cache_size() == 3);

  int dtype_traces = 0;
  auto h = jaxcc::jit([&](auto x) {
    ++dtype_traces;
    return jnp::sum(x);
  });
  h(jnp::ones<float>({2}));
  h(jnp::ones<double>({2}));  // new dtype (a new C++ type too)
  h(jnp::ones<float>({2}));
  REQUIRE(dtype_traces == 2);
  REQUIRE(h.cache_size() == 2);
}

TEST_CASE("static arguments are plain C++ values baked into the trace", "[jit][static_argnums]") {
  int traces = 0;
  // `n` drives C++ control flow, which a traced value could not.
  auto power = jaxcc::jit(
      [&](Array<double> x, int n) {
        ++traces;
        Array<double> y = jnp::ones_like(x);
        for (int i = 0; i < n; ++i) y = y * x;
        return y;
      },
      jaxcc::static_argnums<1>);
  auto const x = jnp::array({1.5, -2.0});
  REQUIRE(power(x, 3).to_vector() == std::vector<double>{1.5 * 1.5 * 1.5, -8.0});
  REQUIRE(power(x, 2).to_vector() == std::vector<double>{2.25, 4.0});
  REQUIRE(power(x * 2.0, 3).to_vector() == std::vector<double>{27.0, -64.0});
  REQUIRE(traces == 2);
  REQUIRE(power.cache_size() == 2);

  // Any hashable, comparable type: a string picks the activation.
  auto act = jaxcc::jit(
      [](std::string const& which, Array<float> x) { return which == "relu" ? Array<float>(jnp::maximum(x, 0.0f)) : Array<float>(jnp::tanh(x)); },
      jaxcc::static_argnums<0>);
  auto const v = jnp::array<float>({-1.f, 2.f});
  REQUIRE(act(std::string("relu"), v).to_vector() == std::vector<float>{0.f, 2.f});
  REQUIRE_THAT(act(std::string("tanh"), v), AllClose(jnp::tanh(v)));
  REQUIRE(act.cache_size() == 2);
}

TEST_CASE("a scalar argument is a constant of the trace", "[jit]") {
  // C++ scalars are not traced (JAX traces Python scalars as weak-typed
  // arrays): each value is its own signature. Pass an Array to trace it.
  int traces = 0;
  auto f = jaxcc::jit([&](Array<float> x, float scale) {
    ++traces;
    return Array<float>(x * scale);
  });
  auto const x = jnp::array<float>({1.f, 2.f});
  REQUIRE(f(x, 2.f).to_vector() == std::vector<float>{2.f, 4.f});
  REQUIRE(f(x, 3.f).to_vector() == std::vector<float>{3.f, 6.f});
  REQUIRE(f(x, 2.f).to_vector() == std::vector<float>{2.f, 4.f});
  REQUIRE(traces == 2);
}

TEST_CASE("jit takes and returns pytrees", "[jit][pytree]") {
  auto f = jaxcc::jit([](std::map<std::string, Array<double>> const& p) {
    return std::pair{Array<double>(p.at("a") + p.at("b")), std::tuple{jnp::sum(p.at("a")), 7.0}};
  });
  std::map<std::string, Array<double>> p{{"a", jnp::array({1.0, 2.0})}, {"b", jnp::array({10.0, 20.0})}};
  auto [sum, rest] = f(p);
  REQUIRE(sum.to_vector() == std::vector<double>{11.0, 22.0});
  REQUIRE(std::get<0>(rest).item() == 3.0);
  REQUIRE(std::get<1>(rest) == 7.0);  // a non-array output leaf comes back as it was
}

TEST_CASE("jit composes with grad, vmap and itself", "[jit][grad][vmap]") {
  auto const params = std::tuple{smooth({3, 4}), smooth({3}, 0.5, 1.0)};
  auto const xs = smooth({5, 4}, 0.21, -0.4);
  auto const x0 = jaxcc_test::example(xs, 0, 0);

  // Per-example gradients, jitted: the same numbers as without jit.
  auto per_example = jaxcc::vmap(jaxcc::grad(model), jaxcc::in_axes(jaxcc::none, 0));
  auto const [gw, gb] = per_example(params, xs);
  auto const [jw, jb] = jaxcc::jit(per_example)(params, xs);
  REQUIRE_THAT(jw, AllClose(gw, 1e-12));
  REQUIRE_THAT(jb, AllClose(gb, 1e-12));

  // grad of a jitted function.
  auto const [dw, db] = jaxcc::grad(model)(params, x0);
  auto const [kw, kb] = jaxcc::grad(jaxcc::jit(model))(params, x0);
  REQUIRE_THAT(kw, AllClose(dw, 1e-12));
  REQUIRE_THAT(kb, AllClose(db, 1e-12));
  // Its second derivative too (d²/dx² of the jitted function).
  auto const f = [&](Array<double> x) { return model(params, x); };
  auto const hess = jaxcc::hessian(f)(x0);
  REQUIRE_THAT(jaxcc::hessian(jaxcc::jit(f))(x0), AllClose(hess, 1e-10));

  // vmap of a jitted function, and jit of a jitted function.
  auto const batched = jaxcc::vmap(f)(xs);
  REQUIRE_THAT(jaxcc::vmap(jaxcc::jit(f))(xs), AllClose(batched, 1e-12));
  REQUIRE_THAT(jaxcc::jit(jaxcc::jit(f))(x0), AllClose(f(x0), 1e-12));
}

TEST_CASE("jit around control flow", "[jit][control_flow]") {
  auto const step = [](Array<double> c, Array<double> x) {
    auto const next = Array<double>(c * 0.5 + jnp::sin(x));
    return std::pair{next, Array<double>(next * x)};
  };
  auto const scanned = [&](Array<double> xs) { return lax::scan(step, jnp::array(0.0), xs); };
  auto const looped = [](Array<double> x) {
    return lax::fori_loop(0, 4, [](Array<std::int32_t> i, Array<double> v) { return Array<double>(v * 0.9 + i.astype<double>()); }, x);
  };
  auto const branch = [](Array<double> x) {
    return lax::cond(jnp::sum(x) > 0.0, [](Array<double> v) { return Array<double>(v * 2.0); },
                     [](Array<double> v) { return Array<double>(-v); }, x);
  };
  auto const xs = smooth({6});
  auto const [c, ys] = scanned(xs);
  auto const [jc, jys] = jaxcc::jit(scanned)(xs);
  REQUIRE(mismatch(jc, c) == "");
  REQUIRE(mismatch(jys, ys) == "");
  REQUIRE(mismatch(jaxcc::jit(looped)(xs), looped(xs)) == "");
  REQUIRE(mismatch(jaxcc::jit(branch)(xs), branch(xs)) == "");
  REQUIRE(mismatch(jaxcc::jit(branch)(-xs * 3.0), branch(-xs * 3.0)) == "");
  // And differentiated through the jitted loop.
  auto const g = jaxcc::grad([&](Array<double> x) { return jnp::sum(jaxcc::jit(looped)(x)); })(xs);
  REQUIRE_THAT(g, AllClose(jnp::full<double>({6}, std::pow(0.9, 4)), 1e-12));
}

TEST_CASE("make_jaxpr shows the optimized program of a jitted function", "[jit][make_jaxpr]") {
  // sum(x) is computed twice and `unused` never reaches the output: CSE
  // keeps one reduce_sum and DCE drops the exp.
  auto f = [](Array<float> x) {
    auto const unused = Array<float>(jnp::exp(x));
    return Array<float>(jnp::sum(x) * jnp::sum(x));
  };
  auto const plain = jaxpr_of(f, jnp::ones<float>({3}));
  REQUIRE(count(plain, "reduce_sum") == 2);
  REQUIRE(count(plain, "exp") == 1);
  REQUIRE(jaxpr_of(jaxcc::jit(f), jnp::ones<float>({3})) ==
          "{ lambda ; a:f32[3]. let\n"
          "    b:f32[] = jit[jaxpr={ lambda ; c:f32[3]. let\n"
          "        d:f32[] = reduce_sum[axes=(0,)] c\n"
          "        e:f32[] = mul d d\n"
          "      in (e,) }] a\n"
          "  in (b,) }");
}

TEST_CASE("jit folds the ones VJP rules make, and only exact identities", "[jit][cse]") {
  // grad of sum(sin(x) * x) seeds the cotangent with an array of ones; the
  // products with it return their other operand, and cos(x) * x + sin(x)
  // is what is left (derivative by hand).
  auto const f = [](Array<float> x) { return jnp::sum(jnp::sin(x) * x); };
  auto const x = smooth({5}).astype<float>();
  auto const plain = jaxpr_of(jaxcc::grad(f), x);
  auto const jitted = jaxpr_of(jaxcc::jit(jaxcc::grad(f)), x);
  REQUIRE(count(plain, "mul") == 4);
  REQUIRE(count(jitted, "mul") == 1);
  REQUIRE(count(jitted, "lambda ") == 3);  // the function, jit's program, its fusion
  REQUIRE(count(jitted, "lambda ; ") == 3);  // none with a constant
  auto const by_hand = Array<float>(jnp::cos(x) * x + jnp::sin(x));
  REQUIRE_THAT(jaxcc::jit(jaxcc::grad(f))(x), AllClose(by_hand, 1e-6));
  REQUIRE(mismatch(jaxcc::jit(jaxcc::grad(f))(x), jaxcc::grad(f)(x)) == "");

  // x * 1, 1 * x, x / 1, x - 0 and x + -0 are x for every float x (so for
  // -0.0 too); x + 0 is not (-0 + 0 is +0) and x * 2 is not.
  auto const ops = [](Array<float> x) {
    return std::tuple{Array<float>(x * 1.0f), Array<float>(1.0f * x), Array<float>(x / 1.0f), Array<float>(x - 0.0f),
                      Array<float>(x + -0.0f), Array<float>(x + 0.0f), Array<float>(x * 2.0f)};
  };
  auto const neg_zero = jnp::full<float>({2}, -0.0f);
  auto const text = jaxpr_of(jaxcc::jit(ops), neg_zero);
  REQUIRE(count(text, " = mul") == 1);
  REQUIRE(count(text, " = div") == 0);
  REQUIRE(count(text, " = sub") == 0);
  REQUIRE(count(text, " = add") == 1);
  auto const [a, b, c, d, e, plus_zero, twice] = jaxcc::jit(ops)(neg_zero);
  for (auto const& same : {a, b, c, d, e}) REQUIRE(std::signbit(same.data()[0]));
  REQUIRE(!std::signbit(plus_zero.data()[0]));
  REQUIRE(std::signbit(twice.data()[0]));

  // A product with ones that broadcasts its other operand keeps its shape.
  auto const ones = jnp::ones<float>({3});
  auto const widen = [&](Array<float> s) { return Array<float>(s * ones); };
  REQUIRE(count(jaxpr_of(jaxcc::jit(widen), jnp::array(2.0f)), " = mul") == 1);
  REQUIRE_THAT(jaxcc::jit(widen)(jnp::array(2.0f)), AllClose(jnp::full<float>({3}, 2.0f), 0.0));
}

TEST_CASE("jit drops layout operations that change nothing", "[jit][cse]") {
  // A transpose by (0, 1) and a reshape to the same shape return their
  // operand; the transpose by (1, 0) of a square matrix does not.
  auto const f = [](Array<float> x) {
    auto const same = lax::reshape(lax::transpose(x, {0, 1}), {3, 3});
    return Array<float>(same * 2.0f + lax::transpose(x, {1, 0}));
  };
  auto const x = smooth({3, 3}).astype<float>();
  auto const plain = jaxpr_of(f, x);
  REQUIRE(count(plain, "transpose[permutation=(0, 1)]") == 1);
  REQUIRE(count(plain, "reshape") == 1);
  auto const jitted = jaxpr_of(jaxcc::jit(f), x);
  REQUIRE(count(jitted, "transpose[permutation=(0, 1)]") == 0);
  REQUIRE(count(jitted, "reshape") == 0);
  REQUIRE(count(jitted, "transpose[permutation=(1, 0)]") == 1);
  REQUIRE(mismatch(jaxcc::jit(f)(x), f(x)) == "");
}

TEST_CASE("CSE merges equal constants and equal applications only", "[jit][cse]") {
  // sum(x, 0) is written twice (so then are the sums of it); sum(x, 1) has
  // other parameters and stays apart. Two captured one-element constants of
  // equal value become one; the third differs.
  auto const two_a = jnp::array({2.0f}), two_b = jnp::array({2.0f}), three = jnp::array({3.0f});
  auto f = [&](Array<float> x) {
    auto const s0 = jnp::sum(x, 0), s0_again = jnp::sum(x, 0), s1 = jnp::sum(x, 1);
    return Array<float>(jnp::sum(s0) * two_a + jnp::sum(s0_again) * two_b + jnp::sum(s1) * three);
  };
  auto const x = smooth({2, 3}).astype<float>();
  auto const plain = jaxcc::make_jaxpr(f)(x);
  REQUIRE(count(to_string(plain), "reduce_sum[axes=(0,)]") == 5);
  REQUIRE(plain.trace().captures.size() == 3);

  auto const jitted = jaxcc::make_jaxpr(jaxcc::jit(f))(x);
  REQUIRE(jitted.num_equations() == 1);
  auto const& program = *jitted.trace().equations[0].primitive->subprogram();
  auto const text = to_string(jitted);
  REQUIRE(count(text, "reduce_sum[axes=(0,)]") == 3);  // sum(x, 0), sum of it, sum(s1)
  REQUIRE(count(text, "reduce_sum[axes=(1,)]") == 1);
  REQUIRE(program.trace->captures.size() == 2);
  REQUIRE_THAT(jaxcc::jit(f)(x), AllClose(f(x), 1e-6));
}

// The plan of the one jit equation in f's jaxpr at x.
template <class F, class... X>
std::size_t plan_steps(F const& f, X const&... x) {
  auto const j = jaxcc::make_jaxpr(jaxcc::jit(f))(x...);
  auto const* call = dynamic_cast<jaxcc::detail::ClosedCall const*>(j.trace().equations.at(0).primitive.get());
  REQUIRE(call != nullptr);
  return call->plan().num_steps();
}

TEST_CASE("a run of elementwise equations is one tiled loop", "[jit][fusion]") {
  // Four separately materialized ops: four equations, one step in the plan.
  auto const op_by_op = [](Array<float> const& x) {
    Array<float> ax = 1.5f * x;
    Array<float> s = jnp::sin(x);
    Array<float> bs = 0.75f * s;
    return Array<float>(ax + bs);
  };
  auto const x = jnp::linspace<float>(-10.0, 10.0, 5000);  // several tiles and a partial one
  REQUIRE(jaxcc::make_jaxpr(op_by_op)(x).num_equations() == 4);
  REQUIRE(plan_steps(op_by_op, x) == 1);
  REQUIRE(jaxpr_of(jaxcc::jit(op_by_op), x) ==
          "{ lambda ; a:f32[5000]. let\n"
          "    b:f32[5000] = jit[jaxpr={ lambda ; c:f32[5000]. let\n"
          "        g:f32[5000] = fusion[jaxpr={ lambda ; c:f32[5000]. let\n"
          "            d:f32[5000] = mul 1.5:f32[] c\n"
          "            e:f32[5000] = sin c\n"
          "            f:f32[5000] = mul 0.75:f32[] e\n"
          "            g:f32[5000] = add d f\n"
          "          in (g,) }] c\n"
          "      in (g,) }] a\n"
          "  in (b,) }");
  auto const expected = Array<float>(1.5f * x + 0.75f * jnp::sin(x));
  REQUIRE_THAT(jaxcc::jit(op_by_op)(x), AllClose(expected, 1e-6));

  // A value the run makes and a later equation reads is written out; a
  // one-element operand is read as a scalar; a reduction ends the run.
  auto const with_exit = [](Array<double> const& v, Array<double> const& scale) {
    Array<double> a = v * scale;
    Array<double> b = jnp::exp(a);
    Array<double> c = b + a;
    return std::pair{Array<double>(jnp::sum(c) + jnp::sum(a)), c};
  };
  auto const v = smooth({7, 300});
  auto const scale = jnp::array(0.5);
  auto const [total, c] = jaxcc::jit(with_exit)(v, scale);
  auto const [total_eager, c_eager] = with_exit(v, scale);
  REQUIRE_THAT(c, AllClose(c_eager, 1e-14));
  REQUIRE_THAT(total, AllClose(total_eager, 1e-12));

  // A transposed (strided) input is copied dense once, then read in tiles.
  auto const vt = smooth({300, 7}).T();
  REQUIRE(!vt.is_contiguous());
  auto const [total_t, c_t] = jaxcc::jit(with_exit)(vt, scale);
  REQUIRE_THAT(c_t, AllClose(std::get<1>(with_exit(vt, scale)), 1e-14));
}

// addend (a matrix, or a row broadcast down the rows) + scale * x·y, by
// loops in double: what the plan's accumulating GEMM must give.
Array<double> affine_product(Array<double> const& addend, double scale, Array<double> const& x, Array<double> const& y) {
  auto const m = x.shape()[0], k = x.shape()[1], n = y.shape()[1];
  auto const a = addend.to_vector(), xs = x.to_vector(), ys = y.to_vector();
  std::vector<double> out(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::int64_t l = 0; l < k; ++l) sum += xs[static_cast<std::size_t>(i * k + l)] * ys[static_cast<std::size_t>(l * n + j)];
      auto const from = addend.ndim() == 2 ? i * n + j : j;
      out[static_cast<std::size_t>(i * n + j)] = a[static_cast<std::size_t>(from)] + scale * sum;
    }
  return jnp::array(out, jaxcc::Shape{m, n});
}

TEST_CASE("a GEMM adds its product into the update that reads it", "[jit][fusion]") {
  // `c - 0.25 * x·y` where only the update reads the product: the plan's
  // one step is the GEMM, adding its product times -0.25 into a copy of c
  // (no pass over the product, no zeroing of it). A bias row broadcasts
  // into the copy; negation and constant factors fold into the scale.
  using D = Array<double>;
  auto const x = smooth({6, 5}), y = smooth({5, 4}, 0.3, 0.1), c = smooth({6, 4}, 0.5, 0.7), b = smooth({4}, 0.9);
  auto const update = [](D const& c, D const& x, D const& y) { return D(c - 0.25 * jnp::matmul(x, y)); };
  auto const biased = [](D const& x, D const& y, D const& b) { return D(jnp::matmul(x, y) + b); };
  auto const scaled = [](D const& x, D const& y, D const& b) { return D(b + -jnp::matmul(x, y) * 2.0); };
  CHECK(plan_steps(update, c, x, y) == 1);
  CHECK(plan_steps(biased, x, y, b) == 1);
  CHECK(plan_steps(scaled, x, y, b) == 1);
  CHECK_THAT(jaxcc::jit(update)(c, x, y), AllClose(affine_product(c, -0.25, x, y), 1e-13, 1e-13));
  CHECK_THAT(jaxcc::jit(biased)(x, y, b), AllClose(affine_product(b, 1.0, x, y), 1e-13, 1e-13));
  CHECK_THAT(jaxcc::jit(scaled)(x, y, b), AllClose(affine_product(b, -2.0, x, y), 1e-13, 1e-13));

  // A product read twice is written out, and the update runs as before.
  auto const twice = [](D const& x, D const& y, D const& b) {
    auto const p = jnp::matmul(x, y);
    return D(b + p + jnp::sin(p));
  };
  CHECK(plan_steps(twice, x, y, b) == 2);
  CHECK_THAT(jaxcc::jit(twice)(x, y, b), AllClose(twice(x, y, b), 1e-14));

  // Float32, large enough that the GEMM adds in blocks over k and over
  // threads, and a contraction over nothing (the result is the addend).
  using F = Array<float>;
  auto const xf = smooth({96, 300}, 0.11).astype<float>(), yf = smooth({300, 80}, 0.07, 0.4).astype<float>();
  auto const cf = smooth({96, 80}, 0.13, 0.3).astype<float>();
  auto const update_f = [](F const& c, F const& x, F const& y) { return F(c - 0.01f * jnp::matmul(x, y)); };
  CHECK(plan_steps(update_f, cf, xf, yf) == 1);
  auto const reference = affine_product(cf.astype<double>(), -0.01f, xf.astype<double>(), yf.astype<double>());
  CHECK_THAT(jaxcc::jit(update_f)(cf, xf, yf).astype<double>(), AllClose(reference, 1e-5, 1e-6));
  auto const none = jnp::zeros<float>({96, 0}), none_t = jnp::zeros<float>({0, 80});
  CHECK(mismatch(jaxcc::jit(update_f)(cf, none, none_t), cf) == "");
}

TEST_CASE("a primitive adds into an addend only as a plan runs it", "[jit][fusion][errors]") {
  // dot_general's equation, asked directly: addend + scale * x·y on
  // concrete arrays; an operand on a mesh (a plan never has one) and a
  // primitive that does not accumulate are internal errors, not wrong values.
  using D = Array<double>;
  auto const x = smooth({6, 5}), y = smooth({5, 4}, 0.3, 0.1), c = smooth({6, 4}, 0.5, 0.7);
  auto const product = jaxcc::make_jaxpr([](D const& x, D const& y) { return D(jnp::matmul(x, y)); })(x, y);
  auto const& dot = *product.trace().equations.at(0).primitive;
  REQUIRE(dot.accumulates());
  jaxcc::AnyArray const operands[] = {x, y};
  CHECK_THAT(dot.evaluate_accumulating(operands, c, -0.25).as<double>(), AllClose(affine_product(c, -0.25, x, y), 1e-13, 1e-13));
  auto const mesh = jaxcc_test::mesh_of({1}, {"data"});
  jaxcc::AnyArray const on_mesh[] = {jaxcc::device_put(x, jaxcc::NamedSharding(mesh, jaxcc::P())), y};
  CHECK(jaxcc_test::message_of([&] { (void)dot.evaluate_accumulating(on_mesh, c, 1.0); }) ==
        "internal error: 'dot_general' accumulates only on concrete arrays on no mesh");
  auto const tanh = jaxcc::make_jaxpr([](D const& x) { return D(jnp::tanh(x)); })(x);
  auto const& elementwise = *tanh.trace().equations.at(0).primitive;
  CHECK_FALSE(elementwise.accumulates());
  jaxcc::AnyArray const one[] = {x};
  CHECK(jaxcc_test::message_of([&] { (void)elementwise.evaluate_accumulating(one, x, 1.0); }) ==
        "internal error: this primitive does not accumulate into an addend");
}

TEST_CASE("independent equations of one shape group into one run across a tree's leaves", "[jit][fusion]") {
  // tree::map writes an update leaf by leaf, so the traced equations
  // alternate between the leaves' shapes (9 equations, each next to one of
  // another shape). Grouped, each leaf's three ops are one run, and the
  // scalar's op comes first: 4 steps, and 10 without grouping.
  using Leaves = std::tuple<Array<float>, Array<float>, Array<float>>;
  auto const step = [](Leaves const& p, Leaves const& g, Array<float> const& t) {
    auto const rate = Array<float>(t * 0.5f);
    auto const m = jaxcc::tree::map([](Array<float> const& x) { return Array<float>(0.9f * x); }, g);
    auto const v = jaxcc::tree::map([&](Array<float> const& x) { return Array<float>(x * rate); }, m);
    return jaxcc::tree::map([](Array<float> const& x, Array<float> const& d) { return Array<float>(x - d); }, p, v);
  };
  Leaves const p{smooth({300}).astype<float>(), smooth({20, 30}).astype<float>(), smooth({7}).astype<float>()};
  Leaves const g{smooth({300}).astype<float>() * 2.0f, smooth({20, 30}).astype<float>() * 3.0f,
                 smooth({7}).astype<float>() * 4.0f};
  auto const t = jnp::array(0.25f);
  REQUIRE(jaxcc::make_jaxpr(step)(p, g, t).num_equations() == 10);
  REQUIRE(plan_steps(step, p, g, t) == 4);
  auto const jitted = jaxcc::jit(step)(p, g, t);
  auto const eager = step(p, g, t);
  REQUIRE_THAT(std::get<0>(jitted), AllClose(std::get<0>(eager), 1e-6));
  REQUIRE_THAT(std::get<1>(jitted), AllClose(std::get<1>(eager), 1e-6));
  REQUIRE_THAT(std::get<2>(jitted), AllClose(std::get<2>(eager), 1e-6));

  // A reduction of a run's value that the run could fold comes with it.
  auto const with_sums = [](Array<float> const& a, Array<float> const& b) {
    auto const ea = Array<float>(jnp::exp(a));
    auto const eb = Array<float>(jnp::exp(b));
    auto const sa = Array<float>(ea * 2.0f);
    auto const sb = Array<float>(eb * 3.0f);
    return std::pair{Array<float>(jnp::sum(sa)), Array<float>(jnp::sum(sb))};
  };
  auto const a = smooth({50}).astype<float>(), b = smooth({60}).astype<float>();
  REQUIRE(plan_steps(with_sums, a, b) == 2);  // exp, mul and sum of each leaf: one step each
  auto const [sa, sb] = jaxcc::jit(with_sums)(a, b);
  REQUIRE_THAT(sa, AllClose(jnp::sum(jnp::exp(a) * 2.0f), 1e-5));
  REQUIRE_THAT(sb, AllClose(jnp::sum(jnp::exp(b) * 3.0f), 1e-5));
}

TEST_CASE("a run whose values widen along it keeps each in its own tile", "[jit][fusion]") {
  // The computed int8 and bfloat16 values die where they are widened: a
  // wider result must not take their tile in place, as writing element i
  // would overwrite elements not yet read. Exact comparisons (each value is
  // the eager one's).
  auto const widening = [](Array<std::int8_t> const& i, Array<jaxcc::bfloat16> const& b) {
    Array<std::int8_t> const doubled = i * std::int8_t{2};
    Array<std::int32_t> const wide = doubled.astype<std::int32_t>();
    Array<jaxcc::bfloat16> const s = jnp::sin(b);
    Array<float> const f = s.astype<float>();
    return std::pair{Array<std::int32_t>(wide + 1), f.astype<jaxcc::bfloat16>()};
  };
  auto const i = jnp::arange<std::int32_t>(-500, 500).astype<std::int8_t>();  // wraps; several tiles
  auto const b = jnp::linspace<float>(-4.0, 4.0, 1000).astype<jaxcc::bfloat16>();
  REQUIRE(plan_steps(widening, i, b) == 1);
  auto const [wide, narrow] = jaxcc::jit(widening)(i, b);
  auto const [wide_eager, narrow_eager] = widening(i, b);
  CHECK(wide.to_vector() == wide_eager.to_vector());
  CHECK(narrow.astype<float>().to_vector() == narrow_eager.astype<float>().to_vector());
}

TEST_CASE("a reduction over every axis folds the run that computes its operand", "[jit][fusion][reduction]") {
  // sum(x * x + sin(x)): the run's value is folded tile by tile, never
  // written out; the run and the reduction are one step of the plan.
  auto const sum_of = [](Array<float> const& x) {
    Array<float> sq = x * x;
    Array<float> s = jnp::sin(x);
    return jnp::sum(Array<float>(sq + s));
  };
  auto const x = jnp::linspace<float>(-3.0, 3.0, 200001);  // several chunks of many tiles, and a partial tile
  REQUIRE(plan_steps(sum_of, x) == 1);
  auto const text = jaxpr_of(jaxcc::jit(sum_of), x);
  auto const fusion = text.find("fusion[jaxpr={");
  REQUIRE(fusion != std::string::npos);
  REQUIRE(text.find("reduce_sum[axes=(0,)]", fusion) < text.find(" in (", fusion));
  // Against the sum in double of the same float products and sines.
  double reference = 0;
  auto const values = x.to_vector();
  for (float v : values) reference += static_cast<double>(v * v) + std::sin(static_cast<double>(v));
  auto const got = jaxcc::jit(sum_of)(x);
  REQUIRE(got.shape() == jaxcc::Shape{});
  REQUIRE(got.item() == Catch::Approx(reference).epsilon(1e-5));
  REQUIRE_THAT(got, AllClose(sum_of(x), 1e-5));
  REQUIRE(jaxcc::jit(sum_of)(x).item() == got.item());  // the same order of partial sums every call

  // One elementwise equation and its reduction are a run too; max and min
  // fold exactly, integers too.
  auto const max_of = [](Array<double> const& v) { return jnp::max(Array<double>(jnp::abs(v))); };
  auto const min_of = [](Array<std::int32_t> const& v) { return jnp::min(Array<std::int32_t>(v * 3)); };
  auto const sum_int = [](Array<std::int64_t> const& v) { return jnp::sum(Array<std::int64_t>(v * v)); };
  auto const v = smooth({300, 700});
  REQUIRE(plan_steps(max_of, v) == 1);
  REQUIRE(jaxcc::jit(max_of)(v).item() == max_of(v).item());
  auto const iv = jnp::arange<std::int32_t>(-100000, 100000);
  REQUIRE(plan_steps(min_of, iv) == 1);
  REQUIRE(jaxcc::jit(min_of)(iv).item() == -300000);
  auto const lv = jnp::arange<std::int64_t>(100000);
  // sum of k^2 for k < n is (n - 1) n (2n - 1) / 6.
  REQUIRE(jaxcc::jit(sum_int)(lv).item() == std::int64_t{99999} * 100000 * 199999 / 6);

  // The folded value also returned: written out as well, and folded.
  auto const both = [](Array<float> const& x) {
    Array<float> y = jnp::exp(x) - 1.0f;
    return std::pair{jnp::sum(y), y};
  };
  auto const [total, y] = jaxcc::jit(both)(x);
  REQUIRE(plan_steps([&](Array<float> const& x) { return std::get<0>(both(x)); }, x) == 1);
  REQUIRE_THAT(y, AllClose(Array<float>(jnp::exp(x) - 1.0f), 1e-6));
  REQUIRE_THAT(total, AllClose(jnp::sum(y), 1e-5));


  // An empty operand: the sum of nothing is 0; the max of nothing is an
  // error at trace time, as in JAX.
  auto const empty = jnp::zeros<double>(jaxcc::Shape{0});
  auto const sum_doubled = [](Array<double> const& v) { return jnp::sum(Array<double>(v * 2.0)); };
  REQUIRE(plan_steps(sum_doubled, empty) == 1);
  REQUIRE(jaxcc::jit(sum_doubled)(empty).item() == 0.0);
  REQUIRE(jaxcc_test::message_of([&] { jaxcc::jit(max_of)(empty); }) ==
          "zero-size array to reduction operation max which has no identity (shape (0,), axes (0,))");
}

TEST_CASE("a reduction over the last axes folds the run that computes its operand", "[jit][fusion][reduction]") {
  // Each result folds one segment of consecutive elements (the product of
  // the reduced dimensions); segments shorter than a tile, longer than one,
  // and not dividing it; chunks over both threads when the run is long.
  auto const row_sums = [](Array<double> const& v) {
    Array<double> y = v * v + jnp::sin(v);
    return jnp::sum(y, -1);
  };
  // The same sums in a plain loop, element by element in order.
  auto const by_hand = [](Array<double> const& v) {
    auto const segment = v.shape().back();
    auto const values = v.to_vector();
    std::vector<double> sums(values.size() / static_cast<std::size_t>(segment), 0.0);
    for (std::size_t i = 0; i < values.size(); ++i)
      sums[i / static_cast<std::size_t>(segment)] += values[i] * values[i] + std::sin(values[i]);
    return sums;
  };
  for (auto const& shape : {jaxcc::Shape{7, 3}, jaxcc::Shape{300, 700}, jaxcc::Shape{3, 1025}, jaxcc::Shape{1, 5000},
                            jaxcc::Shape{2, 50, 4000}}) {
    auto const v = smooth(shape, 0.4, 0.1);
    REQUIRE(plan_steps(row_sums, v) == 1);
    auto const got = jaxcc::jit(row_sums)(v);
    jaxcc::Shape kept(shape.begin(), shape.end() - 1);
    REQUIRE(got.shape() == kept);
    REQUIRE_THAT(got, AllClose(jnp::array(by_hand(v), kept), 1e-12));
  }
  auto const v = smooth({300, 700}, 0.4, 0.1);
  auto const text = jaxpr_of(jaxcc::jit(row_sums), v);
  auto const fusion = text.find("fusion[jaxpr={");
  REQUIRE(fusion != std::string::npos);
  REQUIRE(text.find("reduce_sum[axes=(1,)]", fusion) < text.find(" in (", fusion));

  // Over the last two axes, and max: exact.
  auto const v3 = smooth({6, 40, 30}, 0.4, 0.1);
  auto const max_last_two = [](Array<double> const& x) { return jnp::max(Array<double>(jnp::abs(x) * 2.0), jaxcc::Axes{1, 2}); };
  REQUIRE(plan_steps(max_last_two, v3) == 1);
  REQUIRE(mismatch(jaxcc::jit(max_last_two)(v3), max_last_two(v3)) == "");

  // Over a leading axis, or an empty segment: a step of its own.
  auto const columns = [](Array<double> const& x) { return jnp::sum(Array<double>(x * 2.0), 0); };
  REQUIRE(plan_steps(columns, v) == 2);
  REQUIRE_THAT(jaxcc::jit(columns)(v), AllClose(columns(v), 1e-12));
  auto const empty_rows = jnp::zeros<double>(jaxcc::Shape{4, 0});
  REQUIRE(plan_steps(row_sums, empty_rows) == 2);
  REQUIRE(mismatch(jaxcc::jit(row_sums)(empty_rows), jnp::zeros<double>(jaxcc::Shape{4})) == "");
}

TEST_CASE("a run reads operands broadcast along its leading or trailing dimensions", "[jit][fusion]") {
  // (256, 300): enough elements for both threads. A bias row repeats every
  // 300 elements; a (256, 1) column holds one value per 300. Each is read
  // in the run, tile by tile, with tiles cut where a period ends.
  auto const x = smooth({256, 300}, 0.3, 0.2).astype<float>();
  auto const bias = smooth({300}, 0.5, 0.7).astype<float>();
  auto const column = smooth({256, 1}, 0.5, 0.9).astype<float>();
  auto const xs = x.to_vector(), bs = bias.to_vector(), cs = column.to_vector();
  auto const at = [](std::size_t i, std::size_t j) { return i * 300 + j; };

  auto const biased = [&](Array<float> const& v) {
    Array<float> s = jnp::sin(v);
    return Array<float>(s * 2.0f + bias);
  };
  REQUIRE(plan_steps(biased, x) == 1);
  std::vector<float> expected(xs.size());
  for (std::size_t i = 0; i < 256; ++i)
    for (std::size_t j = 0; j < 300; ++j) expected[at(i, j)] = std::sin(xs[at(i, j)]) * 2.0f + bs[j];
  // (xsimd's float sin and std::sin may differ in the last bit; where the
  // sum nears 0 that is more than 1e-5 of it, hence the absolute 1e-6.)
  REQUIRE_THAT(jaxcc::jit(biased)(x), AllClose(jnp::array(expected, {256, 300}), 1e-5, 1e-6));

  // The column, and the row sums folded at the run's end.
  auto const scaled_exp = [&](Array<float> const& v) {
    Array<float> e = jnp::exp(v - column);
    return std::pair{Array<float>(e * 2.0f), jnp::sum(e, -1)};
  };
  REQUIRE(plan_steps(scaled_exp, x) == 1);
  std::vector<float> sums(256, 0.0f);
  for (std::size_t i = 0; i < 256; ++i)
    for (std::size_t j = 0; j < 300; ++j) {
      expected[at(i, j)] = std::exp(xs[at(i, j)] - cs[i]) * 2.0f;
      sums[i] += std::exp(xs[at(i, j)] - cs[i]);
    }
  auto const [doubled, row_sums] = jaxcc::jit(scaled_exp)(x);
  REQUIRE_THAT(doubled, AllClose(jnp::array(expected, {256, 300}), 1e-5, 1e-6));
  REQUIRE_THAT(row_sums, AllClose(jnp::array(sums, {256}), 1e-5, 1e-6));

  // The whole softmax, against its unjitted self.
  auto const softmax = [](Array<float> const& v) {
    Array<float> e = jnp::exp(v - jnp::max(v, -1, true));
    return Array<float>(e / jnp::sum(e, -1, true));
  };
  REQUIRE_THAT(jaxcc::jit(softmax)(x), AllClose(softmax(x), 1e-6));

  // A broadcast along a middle dimension, or a period shorter than 16
  // elements: each region a step of its own, as before.
  auto const middle = smooth({8, 1, 40}, 0.5, 0.3).astype<float>();
  auto const short_row = smooth({10}, 0.5, 0.3).astype<float>();
  auto const x3 = smooth({8, 5, 40}, 0.3, 0.2).astype<float>();
  auto const x10 = smooth({100, 10}, 0.3, 0.2).astype<float>();
  auto const with_middle = [&](Array<float> const& v) {
    Array<float> s = jnp::sin(v);
    return Array<float>(s + middle);
  };
  auto const with_short_row = [&](Array<float> const& v) {
    Array<float> s = jnp::sin(v);
    return Array<float>(s + short_row);
  };
  REQUIRE(plan_steps(with_middle, x3) == 2);
  REQUIRE(plan_steps(with_short_row, x10) == 2);
  // An absolute tolerance of an ulp of sin's values: the sums come close to
  // zero, and with the runtime linked jit's rows run at the CPU's SIMD
  // level, eager's at this file's.
  REQUIRE_THAT(jaxcc::jit(with_middle)(x3), AllClose(with_middle(x3), 1e-6, 1e-6));
  REQUIRE_THAT(jaxcc::jit(with_short_row)(x10), AllClose(with_short_row(x10), 1e-6, 1e-6));
}

TEST_CASE("a run's outputs of 16 MiB and more are streamed to memory", "[jit][fusion]") {
  // Outputs from 16 MiB up are computed into a scratch tile and copied out
  // with streaming stores. (4100, 1030) floats is just over 16 MiB: each of
  // the two outputs is streamed; the bias row's period cuts tiles at rows
  // that start off a cache line, and the element count is not a whole
  // number of SIMD batches.
  constexpr std::size_t rows = 4100, cols = 1030;
  auto const x = smooth({rows, cols}, 0.3, 0.2).astype<float>();
  auto const bias = smooth({cols}, 0.5, 0.7).astype<float>();
  auto const two_outputs = [&](Array<float> const& v) {
    Array<float> s = jnp::sin(v);
    Array<float> y = s * 2.0f + bias;
    return std::pair{y, Array<float>(v * y)};
  };
  REQUIRE(plan_steps(two_outputs, x) == 1);
  auto const xs = x.to_vector(), bs = bias.to_vector();
  std::vector<float> ys(xs.size()), zs(xs.size());
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      auto const k = i * cols + j;
      ys[k] = std::sin(xs[k]) * 2.0f + bs[j];
      zs[k] = xs[k] * ys[k];
    }
  auto const [y, z] = jaxcc::jit(two_outputs)(x);
  REQUIRE_THAT(y, AllClose(jnp::array(ys, {rows, cols}), 1e-5, 1e-6));
  REQUIRE_THAT(z, AllClose(jnp::array(zs, {rows, cols}), 1e-5, 1e-6));

  // A donated input's buffer takes the streamed output: each tile is read
  // before its results are written over it.
  constexpr std::int64_t n = (std::int64_t{1} << 22) + 3;
  auto const w = jnp::linspace<float>(-2.0, 2.0, n);
  auto const g = jnp::full<float>({n}, 0.5f);
  float const* const w_buffer = w.data();
  auto const sgd = jaxcc::jit([](Array<float> const& p, Array<float> const& grad) { return Array<float>(p - 0.25f * grad); },
                              jaxcc::donate_argnums<0>);
  auto const ws = w.to_vector();
  auto const updated = sgd(w, g);
  REQUIRE(updated.data() == w_buffer);
  std::vector<float> expected(ws.size());
  for (std::size_t i = 0; i < ws.size(); ++i) expected[i] = ws[i] - 0.25f * 0.5f;
  REQUIRE(mismatch(updated, jnp::array(expected, {n})) == "");
}

TEST_CASE("a donated argument's buffer holds an output", "[jit][donate]") {
  auto const sgd = [](Array<float> const& w, Array<float> const& g) { return Array<float>(w - 0.5f * g); };
  auto const g = jnp::array<float>({2.f, 2.f, 2.f});
  auto const w = jnp::array<float>({1.f, 2.f, 3.f});
  float const* const w_buffer = w.data();
  auto const donating = jaxcc::jit(sgd, jaxcc::donate_argnums<0>);
  auto const w2 = donating(w, g);
  REQUIRE(w2.data() == w_buffer);
  REQUIRE(w2.to_vector() == std::vector<float>{0.f, 1.f, 2.f});

  // Without donation: a new buffer, the argument as it was.
  auto const w3 = jaxcc::jit(sgd)(w2, g);
  REQUIRE(w3.data() != w2.data());
  REQUIRE(w2.to_vector() == std::vector<float>{0.f, 1.f, 2.f});

  // The same array passed again as another argument is still read: its
  // buffer is not overwritten.
  auto const twice = donating(w3, w3);
  REQUIRE(twice.data() != w3.data());
  REQUIRE(twice.to_vector() == std::vector<float>{-0.5f, 0.f, 0.5f});

  // A donated array read after the elementwise run (by the sum) keeps its
  // buffer to itself.
  auto const v = jnp::array<float>({1.f, 2.f});
  auto const [doubled, total] = jaxcc::jit([](Array<float> const& x) { return std::pair{Array<float>(x * 2.f), jnp::sum(x)}; },
                                           jaxcc::donate_argnums<0>)(v);
  REQUIRE(doubled.data() != v.data());
  REQUIRE(doubled.to_vector() == std::vector<float>{2.f, 4.f});
  REQUIRE(total.item() == 3.f);

  // Pytree leaves, with a static argument beside: each leaf's buffer is reused.
  using Pair = std::pair<Array<float>, Array<float>>;
  auto const update = jaxcc::jit(
      [](Pair const& p, Pair const& grads, float lr) {
        return Pair{Array<float>(p.first - lr * grads.first), Array<float>(p.second - lr * grads.second)};
      },
      jaxcc::donate_argnums<0>, jaxcc::static_argnums<2>);
  Pair const params{jnp::array<float>({1.f}), jnp::array<float>({4.f, 8.f})};
  float const* const first = params.first.data();
  float const* const second = params.second.data();
  auto const [a, b] = update(params, Pair{jnp::array<float>({2.f}), jnp::array<float>({4.f, 4.f})}, 0.25f);
  REQUIRE(a.data() == first);
  REQUIRE(b.data() == second);
  REQUIRE(a.to_vector() == std::vector<float>{0.5f});
  REQUIRE(b.to_vector() == std::vector<float>{3.f, 7.f});
}

TEST_CASE("one jitted function called from 8 threads at once", "[jit][threads]") {
  std::atomic<int> traces{0};
  auto f = jaxcc::jit([&](Array<double> x) {
    ++traces;
    return Array<double>(jnp::sin(x) * x + 1.0);
  });
  // Four signatures, two threads each, each thread calling many times.
  std::vector<Array<double>> inputs;
  for (int n = 1; n <= 4; ++n) inputs.push_back(smooth({n * 5}, 0.3, n));
  std::vector<std::string> failures(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      auto const& x = inputs[static_cast<std::size_t>(t % 4)];
      auto const expected = Array<double>(jnp::sin(x) * x + 1.0);
      for (int k = 0; k < 50 && failures[static_cast<std::size_t>(t)].empty(); ++k)
        failures[static_cast<std::size_t>(t)] = mismatch(f(x), expected);
    });
  for (auto& th : threads) th.join();
  for (auto const& fail : failures) REQUIRE(fail == "");
  REQUIRE(f.cache_size() == 4);
  // Two threads may both miss on one signature before either caches it;
  // only one entry is kept.
  REQUIRE(traces.load() >= 4);
  REQUIRE(traces.load() <= 8);
}

TEST_CASE("a steady-state call of a jitted function allocates nothing", "[jit][allocation]") {
  // Counted at the global operator new (tests/allocation_counter.cpp), on
  // every thread, from the third call on: the first traces, and the second
  // still finds the first call's results held here (the next call can take
  // their buffers back only once the caller lets go of them).
  auto const steady_state_allocations = [](auto const& call) {
    for (int k = 0; k < 3; ++k) call();
    long const before = jaxcc_test::heap_allocations();
    for (int k = 0; k < 4; ++k) call();
    return jaxcc_test::heap_allocations() - before;
  };

  SECTION("a fused run, a reduction folded into it, and a tuple out") {
    auto f = jaxcc::jit([](Array<float> const& x, Array<float> const& y) {
      Array<float> z = jnp::sin(x) * y + 2.0f * x;
      return std::tuple{z, jnp::sum(z * z)};
    });
    // 1000 elements: small blocks, one thread; 2^18: the shared cache of
    // large buffers, and the run's chunks on every thread.
    for (std::int64_t n : {std::int64_t{1000}, std::int64_t{1} << 18}) {
      auto const x = smooth({n}, 0.5, 1).astype<float>(), y = smooth({n}, 0.5, 2).astype<float>();
      std::tuple<Array<float>, Array<float>> out;
      long const allocations = steady_state_allocations([&] { out = f(x, y); });
      if (jaxcc_test::counts_allocations) CHECK(allocations == 0);
      Array<float> const z = jnp::sin(x) * y + 2.0f * x;
      CHECK(mismatch(std::get<0>(out), z) == "");
      REQUIRE_THAT(std::get<1>(out), AllClose(jnp::sum(z * z), 1e-5));
    }
  }
  SECTION("the gradient of a model with a dot, and a static argument") {
    auto f = jaxcc::jit(
        [](std::tuple<Array<double>, Array<double>> const& params, Array<double> const& x, int power) {
          return jaxcc::grad([&](auto const& p) { return jnp::power(model(p, x), double(power)); })(params);
        },
        jaxcc::static_argnums<2>);
    auto const params = std::tuple{smooth({3, 4}, 0.3, 3), smooth({3}, 0.3, 4)};
    auto const x = smooth({4}, 0.3, 5);
    std::tuple<Array<double>, Array<double>> out;
    long const allocations = steady_state_allocations([&] { out = f(params, x, 2); });
    if (jaxcc_test::counts_allocations) CHECK(allocations == 0);
    auto const expected = jaxcc::grad([&](auto const& p) { return jnp::power(model(p, x), 2.0); })(params);
    CHECK(mismatch(std::get<0>(out), std::get<0>(expected)) == "");
    CHECK(mismatch(std::get<1>(out), std::get<1>(expected)) == "");
  }
}

TEST_CASE("cache misses are explained as JAX explains them", "[jit][explain]") {
  jaxcc::config::explain_cache_misses() = true;
  auto f = jaxcc::jit([](Array<float> x, std::vector<Array<float>> const& ys, int n) { return Array<float>(x * ys.size() * n); },
                      jaxcc::static_argnums<2>);
  std::vector<Array<float>> one{jnp::ones<float>({2})};
  auto const first = cerr_of([&] { f(jnp::ones<float>({3}), one, 1); });
  auto const shape = cerr_of([&] { f(jnp::ones<float>({4}), one, 1); });
  auto const tree = cerr_of([&] { f(jnp::ones<float>({4}), std::vector{one[0], one[0]}, 1); });
  auto const statics = cerr_of([&] { f(jnp::ones<float>({4}), one, 2); });
  auto const hit = cerr_of([&] { f(jnp::ones<float>({4}), one, 2); });
  jaxcc::config::explain_cache_misses() = false;
  REQUIRE(first == "TRACING CACHE MISS:\n  never seen function\n");
  REQUIRE(shape ==
          "TRACING CACHE MISS:\n"
          "  all previously seen cache keys differ. For the closest previous key:\n"
          "  different input types:\n"
          "  * at args[0], now float32[4] and before float32[3]\n");
  REQUIRE(tree ==
          "TRACING CACHE MISS:\n"
          "  all previously seen cache keys differ. For the closest previous key:\n"
          "  different input pytree:\n"
          "  * at input path args[1], now PyTreeDef([*, *]) and before PyTreeDef([*])\n");
  REQUIRE(statics ==
          "TRACING CACHE MISS:\n"
          "  all previously seen cache keys differ. For the closest previous key:\n"
          "  different static arguments:\n"
          "  * at args[2], a value not equal to the one before\n");
  REQUIRE(hit.empty());
}

TEST_CASE("a jitted function closing over a traced value is traced each call", "[jit][grad]") {
  // d/dy jit(x -> x * y)(x) = x: y belongs to grad's trace, so the jitted
  // program takes it as an operand and is not cached past that trace.
  auto const dy = jaxcc::grad([](Array<double> y) {
    auto inner = jaxcc::jit([&](Array<double> x) { return Array<double>(x * y); });
    return inner(jnp::array(3.0));
  })(jnp::array(2.0));
  REQUIRE(dy.item() == 3.0);
}

}  // namespace test_jit
