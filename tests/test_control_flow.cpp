// Control flow that traces: lax::cond, switch_, select, scan, map,
// fori_loop, while_loop, and optimization_barrier.
// Values are checked against plain C++ loops written here; derivatives
// against finite differences (check_grads) and derivatives worked out by
// hand; printed programs against what jax.make_jaxpr prints for the same
// Python function (the cond case is JAX's own api_test.py test_cond).
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "support.hpp"

namespace test_control_flow {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc::testing::check_grads;
using jaxcc_test::message_of;

namespace {

bool contains(std::string const& text, std::string const& part) { return text.find(part) != std::string::npos; }

std::size_t count_equations(jaxcc::ClosedJaxpr const& j, std::string_view name) {
  std::size_t n = 0;
  for (auto const& eq : j.trace().equations) n += eq.primitive->name() == name;
  return n;
}

/// h <- tanh(W h + u * x), one step of a small RNN; W h is sum(W * h, 1).
Array<double> rnn_step(Array<double> const& w, Array<double> const& u, Array<double> const& h, Array<double> const& x) {
  return Array<double>(jnp::tanh(jnp::sum(w * h, 1) + u * x));
}

}  // namespace

// ---- scan ---------------------------------------------------------------------

TEST_CASE("scan matches a plain loop", "[control_flow][scan]") {
  auto xs = jnp::array({1.0, 2.0, 3.0, 4.0});
  auto const cumsum = [](Array<double> c, Array<double> x) {
    auto next = Array<double>(c + x);
    return std::pair{next, next};
  };
  auto [total, partial] = lax::scan(cumsum, jnp::array(0.5), xs);
  // 0.5 + 1 + 2 + 3 + 4, and the running sums along the way.
  REQUIRE(total.item() == 10.5);
  REQUIRE(partial.to_vector() == std::vector<double>{1.5, 3.5, 6.5, 10.5});

  SECTION("reverse runs from the end; ys keep their positions") {
    auto [t, p] = lax::scan(cumsum, jnp::array(0.5), xs, std::nullopt, /*reverse=*/true);
    REQUIRE(t.item() == 10.5);
    REQUIRE(p.to_vector() == std::vector<double>{10.5, 9.5, 7.5, 4.5});
  }
  SECTION("pytree carry and xs, matrix rows, an int carry") {
    auto m = jnp::array({{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}});
    auto w = jnp::array({10, 20, 30});
    auto step = [](std::tuple<Array<float>, Array<std::int32_t>> c, std::pair<Array<float>, Array<std::int32_t>> x) {
      auto const& [acc, count] = c;
      auto const& [row, weight] = x;
      auto next = std::tuple{Array<float>(acc + row), Array<std::int32_t>(count + weight)};
      return std::pair{next, Array<float>(jnp::sum(row))};
    };
    auto [carry, sums] = lax::scan(step, std::tuple{jnp::zeros<float>({2}), jnp::array(0)}, std::pair{m, w});
    REQUIRE(std::get<0>(carry).to_vector() == std::vector<float>{9.f, 12.f});
    REQUIRE(std::get<1>(carry).item() == 60);
    REQUIRE(sums.to_vector() == std::vector<float>{3.f, 7.f, 11.f});
  }
  SECTION("non-contiguous xs: the columns of a transposed matrix") {
    auto m = jnp::array({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});  // m.T() rows are (1,4), (2,5), (3,6)
    auto [c, ys] = lax::scan([](Array<double> c, Array<double> row) { return std::pair{Array<double>(c * 2.0 + row), Array<double>(row * c)}; },
                             jnp::zeros<double>({2}), m.T());
    // c: (1,4) -> (2+2, 8+5) = (4,13) -> (8+3, 26+6) = (11,32)
    REQUIRE(c.to_vector() == std::vector<double>{11, 32});
    REQUIRE(ys.shape() == Shape{3, 2});
    REQUIRE(ys.to_vector() == std::vector<double>{0, 0, 2, 20, 12, 78});
  }
  SECTION("no xs: `length` steps; scalars in init become rank-0 arrays") {
    auto [c, ys] = lax::scan([](Array<double> c, jaxcc::none_t) { return std::pair{Array<double>(c * 3.0), jaxcc::none}; },
                             2.0, jaxcc::none, 4);
    REQUIRE(c.item() == 162.0);  // 2 * 3^4
  }
  SECTION("zero length: the carry as given, empty ys") {
    auto [c, ys] = lax::scan(cumsum, jnp::array(0.5), jnp::zeros<double>({0}));
    REQUIRE(c.item() == 0.5);
    REQUIRE(ys.shape() == Shape{0});
  }
}

TEST_CASE("scan's errors are JAX's", "[control_flow][scan][errors]") {
  auto xs = jnp::array({1.0, 2.0});
  auto grows = [](Array<double> c, Array<double> x) { return std::pair{Array<double>(jnp::stack({c, x})), x}; };
  REQUIRE(message_of([&] { lax::scan(grows, jnp::array(0.0), xs); }) ==
          "scan body function carry input and carry output must have equal types, but they differ:\n\n"
          "The input carry has type float64[] but the corresponding output carry component has type float64[2], so "
          "the shapes do not match.\n\n"
          "Revise the function so that all output types match the corresponding input types.");
  auto narrows = [](std::pair<Array<double>, Array<double>> c, Array<double>) {
    return std::pair{std::pair{Array<float>(c.first.astype<float>()), Array<float>(c.second.astype<float>())}, jaxcc::none};
  };
  REQUIRE(message_of([&] { lax::scan(narrows, std::pair{jnp::array(0.0), jnp::array(1.0)}, xs); }) ==
          "scan body function carry input and carry output must have equal types, but they differ:\n\n"
          "  * the input carry at path [0] has type float64[] but the corresponding output carry component has type "
          "float32[], so the dtypes do not match;\n\n"
          "  * the input carry at path [1] has type float64[] but the corresponding output carry component has type "
          "float32[], so the dtypes do not match.\n\n"
          "Revise the function so that all output types match the corresponding input types.");
  auto appends = [](std::vector<Array<double>> c, Array<double> x) {
    c.push_back(x);
    return std::pair{c, x};
  };
  REQUIRE(message_of([&] { lax::scan(appends, std::vector{jnp::array(0.0)}, xs); }) ==
          "scan body function carry input and carry output must have the same pytree structure, but they differ:\n\n"
          "the input tree structure is:\nPyTreeDef([*])\nthe output tree structure is:\nPyTreeDef([*, *])\n\n"
          "Revise the function so that the carry output has the same pytree structure as the carry input.");
  auto id = [](Array<double> c, auto) { return std::pair{c, c}; };
  REQUIRE(message_of([&] { lax::scan(id, jnp::array(0.0), xs, 3); }) ==
          "scan got `length` argument of 3 which disagrees with leading axis sizes [2].");
  REQUIRE(message_of([&] { lax::scan(id, jnp::array(0.0), std::pair{xs, jnp::zeros<double>({3})}); }) ==
          "scan got values with different leading axis sizes: 2, 3.");
  REQUIRE(message_of([&] { lax::scan(id, jnp::array(0.0), jaxcc::none); }) ==
          "scan got no values to scan over and `length` not provided.");
  REQUIRE(contains(message_of([&] { lax::scan(id, jnp::array(0.0), jnp::array(1.0)); }),
                   "scan got value with no leading axis to scan over: "));
}

TEST_CASE("scan derivatives: cumulative product and an RNN", "[control_flow][scan][grad]") {
  auto const cumprod = [](Array<double> xs) {
    auto [last, all] = lax::scan([](Array<double> c, Array<double> x) {
      auto next = Array<double>(c * x);
      return std::pair{next, next};
    }, jnp::array(1.0), xs);
    return Array<double>(jnp::sum(all) + last);
  };
  auto xs = jnp::array({0.5, -1.5, 2.0, 0.75});
  // d/dx_k of sum_j prod_{i<=j} x_i + prod_i x_i: the terms with j >= k,
  // divided by x_k (no x is zero).
  std::vector<double> x = xs.to_vector(), expected(4, 0.0), prefix(4);
  double p = 1;
  for (int j = 0; j < 4; ++j) prefix[static_cast<std::size_t>(j)] = p *= x[static_cast<std::size_t>(j)];
  for (std::size_t k = 0; k < 4; ++k) {
    for (std::size_t j = k; j < 4; ++j) expected[k] += prefix[j] / x[k];
    expected[k] += prefix[3] / x[k];
  }
  REQUIRE_THAT(jaxcc::grad(cumprod)(xs), AllClose(jnp::array(expected, Shape{4}), 1e-12));
  check_grads(cumprod, std::tuple{xs}, 2);

  // An RNN over 5 steps: h <- tanh(W h + u x_t); loss = sum of the hs.
  auto w = jnp::array({{0.5, -0.3}, {0.2, 0.8}});
  auto u = jnp::array({1.0, -0.5});
  auto seq = jnp::array({0.1, -0.4, 0.7, 0.2, -0.9});
  auto h0 = jnp::array({0.3, -0.2});
  auto const rnn = [](Array<double> w, Array<double> u, Array<double> h0, Array<double> seq) {
    auto [h, hs] = lax::scan([&](Array<double> h, Array<double> x) {
      auto next = rnn_step(w, u, h, x);
      return std::pair{next, next};
    }, h0, seq);
    return Array<double>(jnp::sum(hs) + jnp::sum(h * h));
  };
  // The same loss unrolled by hand in C++.
  auto const reference = [&](std::vector<double> const& wv) {
    std::vector<double> h = h0.to_vector(), uv = u.to_vector();
    double loss = 0;
    for (double x : seq.to_vector()) {
      std::vector<double> next(2);
      for (std::size_t i = 0; i < 2; ++i) next[i] = std::tanh(wv[2 * i] * h[0] + wv[2 * i + 1] * h[1] + uv[i] * x);
      h = next;
      loss += h[0] + h[1];
    }
    return loss + h[0] * h[0] + h[1] * h[1];
  };
  REQUIRE(rnn(w, u, h0, seq).item() == Catch::Approx(reference(w.to_vector())).epsilon(1e-12));
  // dloss/dW by central differences of the C++ reference.
  auto const gw = jaxcc::grad(rnn)(w, u, h0, seq).to_vector();
  for (std::size_t k = 0; k < 4; ++k) {
    auto plus = w.to_vector(), minus = w.to_vector();
    plus[k] += 1e-6;
    minus[k] -= 1e-6;
    REQUIRE(gw[k] == Catch::Approx((reference(plus) - reference(minus)) / 2e-6).epsilon(1e-6));
  }
  check_grads(rnn, std::tuple{w, u, h0, seq}, 2);
}

TEST_CASE("scan: closed-over values, reverse scans, jvp", "[control_flow][scan][grad]") {
  // ys_t = a * x_t * c_t with c the reversed running sum: both a (closed
  // over) and xs get cotangents.
  auto const f = [](Array<double> a, Array<double> xs) {
    auto [c, ys] = lax::scan([&](Array<double> c, Array<double> x) {
      return std::pair{Array<double>(c + x), Array<double>(a * x * c)};
    }, jnp::array(1.0), xs, std::nullopt, true);
    return Array<double>(jnp::sum(ys) * c);
  };
  check_grads(f, std::tuple{jnp::array(0.7), jnp::array({0.3, -1.2, 0.8})}, 2);
  // jvp: d/da of sum(a x c) * c_final = sum(x c) * c_final.
  auto xs = jnp::array({0.3, -1.2, 0.8});
  auto [out, t] = jaxcc::jvp(f, std::tuple{jnp::array(0.7), xs}, std::tuple{jnp::array(1.0), jnp::zeros<double>({3})});
  // Reversed: c enters each step as 1, 1.8, 0.6 (for x = 0.8, -1.2, 0.3); final 0.9.
  double const sum_xc = 0.8 * 1.0 + -1.2 * 1.8 + 0.3 * 0.6;
  REQUIRE(t.item() == Catch::Approx(sum_xc * 0.9));
  REQUIRE(out.item() == Catch::Approx(0.7 * sum_xc * 0.9));
}

TEST_CASE("scan: tangents that enter through the body, int values, constant ys", "[control_flow][scan][grad]") {
  // The carry starts with no tangent and gets one from the closed-over a:
  // a^4 after four steps, derivative 4 a^3.
  auto const power = [](Array<double> a) {
    return lax::scan([&](Array<double> c, jaxcc::none_t) { return std::pair{Array<double>(c * a), jaxcc::none}; },
                     jnp::array(1.0), jaxcc::none, 4).first;
  };
  auto [p, t] = jaxcc::jvp(power, std::tuple{jnp::array(1.5)}, std::tuple{jnp::array(1.0)});
  REQUIRE(p.item() == Catch::Approx(std::pow(1.5, 4)));
  REQUIRE(t.item() == Catch::Approx(4 * std::pow(1.5, 3)));
  REQUIRE(jaxcc::grad(power)(jnp::array(1.5)).item() == Catch::Approx(4 * std::pow(1.5, 3)));
  // Integer xs and an integer carry take no cotangent; the float ones do.
  // Each step adds w * k_t to c and counts; ys are a constant row.
  auto const scanned = [](Array<double> w, Array<double> xs) {
    return lax::scan([&](std::pair<Array<double>, Array<std::int32_t>> c, std::pair<Array<double>, Array<std::int32_t>> x) {
      auto next = std::pair{Array<double>(c.first + w * x.first * x.second.astype<double>()), Array<std::int32_t>(c.second + x.second)};
      return std::pair{next, jnp::array({7.0, 8.0})};
    }, std::pair{jnp::array(0.0), jnp::array(0)}, std::pair{xs, jnp::array({1, 2, 3})});
  };
  auto const weighted = [&](Array<double> w, Array<double> xs) {
    auto [carry, ys] = scanned(w, xs);
    return Array<double>(carry.first + jnp::sum(ys) * w);
  };
  auto xs = jnp::array({0.5, -1.0, 2.0});
  auto [carry, ys] = scanned(jnp::array(2.0), xs);
  REQUIRE(carry.second.item() == 6);
  REQUIRE(ys.to_vector() == std::vector<double>{7, 8, 7, 8, 7, 8});
  // c = w * (0.5 * 1 + -1 * 2 + 2 * 3) = 4.5 w, plus 45 w from the ys.
  auto [gw, gx] = jaxcc::grad(weighted, jaxcc::argnums<0, 1>)(jnp::array(2.0), xs);
  REQUIRE(gw.item() == 49.5);
  REQUIRE(gx.to_vector() == std::vector<double>{2.0, 4.0, 6.0});
  check_grads(weighted, std::tuple{jnp::array(2.0), xs}, 2);
}

// ---- fori_loop ----------------------------------------------------------------

TEST_CASE("fori_loop matches a plain loop and differentiates", "[control_flow][fori_loop]") {
  auto const body = [](Array<std::int32_t> i, Array<double> x) {
    return Array<double>(x * 0.9 + jnp::sin(x) * i.astype<double>() * 0.1);
  };
  auto const f = [&](Array<double> x) { return lax::fori_loop(2, 7, body, x); };
  std::vector<double> expected;
  for (double x0 : {0.3, -1.1}) {
    double x = x0;
    for (int i = 2; i < 7; ++i) x = x * 0.9 + std::sin(x) * i * 0.1;
    expected.push_back(x);
  }
  auto x = jnp::array({0.3, -1.1});
  REQUIRE_THAT(f(x), AllClose(jnp::array(expected, Shape{2}), 1e-12));
  check_grads(f, std::tuple{x}, 2);
  // No iterations when upper <= lower.
  REQUIRE(lax::fori_loop(5, 3, body, x).to_vector() == x.to_vector());
  // Concrete array bounds take the same path; the index has their dtype.
  auto const g = [&](Array<double> x) {
    return lax::fori_loop(jnp::array(std::int64_t{0}), std::int64_t{3},
                          [](Array<std::int64_t> i, Array<double> x) { return Array<double>(x + i.astype<double>()); }, x);
  };
  REQUIRE(g(jnp::array(1.0)).item() == 4.0);  // 1 + 0 + 1 + 2
}

TEST_CASE("grad of a 1000-step fori_loop does not unroll", "[control_flow][fori_loop][make_jaxpr]") {
  auto const loop = [](int n) {
    return [n](Array<double> x) {
      return lax::fori_loop(0, n, [](Array<std::int32_t>, Array<double> c) { return Array<double>(c * 0.999 + jnp::sin(c) * 0.001); }, x);
    };
  };
  auto const x = jnp::array(0.5);
  auto const short_grad = jaxcc::make_jaxpr(jaxcc::grad(loop(10)))(x);
  auto const long_grad = jaxcc::make_jaxpr(jaxcc::grad(loop(1000)))(x);
  REQUIRE(jaxcc::make_jaxpr(loop(1000))(x).num_equations() == 1);
  // The gradient's program is the same size whatever the trip count: the
  // forward loop, the loop that stacks the carries, and the backward loop.
  REQUIRE(long_grad.num_equations() == short_grad.num_equations());
  REQUIRE(count_equations(long_grad, "scan") == 3);
  REQUIRE(long_grad.num_equations() <= 5);
  // dc'/dc = 0.999 + 0.001 cos c, multiplied along the 1000 steps.
  double c = 0.5, d = 1;
  for (int i = 0; i < 1000; ++i) {
    d *= 0.999 + 0.001 * std::cos(c);
    c = c * 0.999 + std::sin(c) * 0.001;
  }
  REQUIRE(jaxcc::grad(loop(1000))(x).item() == Catch::Approx(d).epsilon(1e-12));
}

TEST_CASE("fori_loop with traced bounds is a while loop: forward mode only", "[control_flow][fori_loop][while_loop]") {
  auto const f = [](Array<double> x, Array<std::int32_t> n) {
    return lax::fori_loop(0, n, [](Array<std::int32_t>, Array<double> c) { return Array<double>(c * c * 0.5); }, x);
  };
  auto const n = jnp::array(3);
  REQUIRE(count_equations(jaxcc::make_jaxpr(f)(jnp::array(1.0), n), "while") == 1);
  // c -> c^2/2 three times: c^8 / 2^7, derivative 8 c^7 / 2^7.
  auto [out, t] = jaxcc::jvp(f, std::tuple{jnp::array(1.5), n}, std::tuple{jnp::array(1.0), jnp::array(0)});
  REQUIRE(out.item() == Catch::Approx(std::pow(1.5, 8) / 128));
  REQUIRE(t.item() == Catch::Approx(8 * std::pow(1.5, 7) / 128));
  // Named, not a structured binding: clang before 16 cannot capture those in lambdas.
  auto const value_and_pullback = jaxcc::vjp(f, jnp::array(1.5), n);
  REQUIRE(value_and_pullback.first.item() == Catch::Approx(std::pow(1.5, 8) / 128));
  REQUIRE(message_of([&] { value_and_pullback.second(jnp::array(1.0)); }) ==
          "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop "
          "values. Try using lax.scan, or using fori_loop with static start/stop.");
}

// ---- while_loop ---------------------------------------------------------------

TEST_CASE("while_loop matches a plain loop; jvp works, vjp raises", "[control_flow][while_loop]") {
  // Halve until below 1, counting steps: a pytree carry with an int leaf.
  auto const halve = [](Array<double> x) {
    auto [value, steps] = lax::while_loop([](std::pair<Array<double>, Array<std::int32_t>> const& c) { return c.first >= 1.0; },
                                          [](std::pair<Array<double>, Array<std::int32_t>> const& c) {
                                            return std::pair{Array<double>(c.first * 0.5), Array<std::int32_t>(c.second + 1)};
                                          },
                                          std::pair{x, jnp::array(0)});
    return value;
  };
  REQUIRE(halve(jnp::array(13.0)).item() == 0.8125);  // 13 / 16
  REQUIRE(halve(jnp::array(0.5)).item() == 0.5);      // no step
  auto [out, t] = jaxcc::jvp(halve, std::tuple{jnp::array(13.0)}, std::tuple{jnp::array(1.0)});
  REQUIRE(t.item() == 1.0 / 16);
  check_grads(halve, std::tuple{jnp::array(13.0)}, 2, {.rev = false});
  // A tangent that enters through a closed-over value only: d/dr of r^k
  // style growth x <- x * r while x < 10, from x = 1, r = 1.5 (6 steps).
  auto const grow = [](Array<double> r) {
    return lax::while_loop([](Array<double> x) { return x < 10.0; }, [&](Array<double> x) { return Array<double>(x * r); },
                           jnp::array(1.0));
  };
  auto [g, gt] = jaxcc::jvp(grow, std::tuple{jnp::array(1.5)}, std::tuple{jnp::array(1.0)});
  REQUIRE(g.item() == Catch::Approx(std::pow(1.5, 6)));
  REQUIRE(gt.item() == Catch::Approx(6 * std::pow(1.5, 5)));
  REQUIRE(message_of([&] { jaxcc::grad(grow)(jnp::array(1.5)); }) ==
          "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop "
          "values. Try using lax.scan, or using fori_loop with static start/stop.");
}

TEST_CASE("while_loop's errors are JAX's", "[control_flow][while_loop][errors]") {
  auto const body = [](Array<double> x) { return Array<double>(x + 1.0); };
  REQUIRE(message_of([&] { lax::while_loop([](Array<double> x) { return Array<double>(x); }, body, jnp::array(0.0)); }) ==
          "cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(float64[])].");
  REQUIRE(message_of([&] {
            lax::while_loop([](Array<double> x) { return std::pair{Array<bool>(x < 1.0), Array<bool>(x < 2.0)}; }, body,
                            jnp::array(0.0));
          }) == "cond_fun must return a boolean scalar, but got pytree PyTreeDef((*, *)).");
  REQUIRE(message_of([&] {
            lax::while_loop([](Array<double> x) { return Array<bool>(x < 1.0); },
                            [](Array<double> x) { return x.astype<float>(); }, jnp::array(0.0));
          }) ==
          "while_loop body function carry input and carry output must have equal types, but they differ:\n\n"
          "The input carry has type float64[] but the corresponding output carry component has type float32[], so "
          "the dtypes do not match.\n\n"
          "Revise the function so that all output types match the corresponding input types.");
}

// ---- cond ---------------------------------------------------------------------

TEST_CASE("cond runs the chosen branch", "[control_flow][cond]") {
  auto const twice = [](Array<float> x) { return Array<float>(x * 2.f); };
  auto const negate = [](Array<float> x) { return Array<float>(-x); };
  auto x = jnp::array({1.f, -2.f});
  REQUIRE(lax::cond(jnp::array(true), twice, negate, x).to_vector() == std::vector<float>{2.f, -4.f});
  REQUIRE(lax::cond(jnp::array(false), twice, negate, x).to_vector() == std::vector<float>{-1.f, 2.f});
  REQUIRE(lax::cond(true, twice, negate, x).to_vector() == std::vector<float>{2.f, -4.f});
  // Numbers are predicates compared with 0.
  REQUIRE(lax::cond(jnp::array(3), twice, negate, x).to_vector() == std::vector<float>{2.f, -4.f});
  REQUIRE(lax::cond(0, twice, negate, x).to_vector() == std::vector<float>{-1.f, 2.f});
  // Several operands, pytree outputs, a scalar operand passed through as it is.
  auto [s, d] = lax::cond(
      x.at(0).get() > 0.f, [](Array<float> a, Array<float> b, float k) { return std::pair{Array<float>(a + b * k), Array<float>(a - b)}; },
      [](Array<float> a, Array<float> b, float) { return std::pair{b, a}; }, x, jnp::array({10.f, 20.f}), 0.5f);
  REQUIRE(s.to_vector() == std::vector<float>{6.f, 8.f});
  REQUIRE(d.to_vector() == std::vector<float>{-9.f, -22.f});
}

TEST_CASE("cond derivatives in both branches", "[control_flow][cond][grad]") {
  // Closes over y; operand x. Branch 1: sin(x) * y; branch 0: x^3 - y.
  auto const f = [](Array<double> x, Array<double> y) {
    return lax::cond(jnp::sum(x) > 0.0, [&](Array<double> a) { return Array<double>(jnp::sum(jnp::sin(a) * y)); },
                     [&](Array<double> a) { return Array<double>(jnp::sum(a * a * a) - y); }, x);
  };
  auto pos = jnp::array({0.4, 0.9});
  auto neg = jnp::array({-0.4, -0.9});
  check_grads(f, std::tuple{pos, jnp::array(1.3)}, 2);
  check_grads(f, std::tuple{neg, jnp::array(1.3)}, 2);
  auto [gx, gy] = jaxcc::grad(f, jaxcc::argnums<0, 1>)(pos, jnp::array(1.3));
  REQUIRE_THAT(gx, AllClose(jnp::array({std::cos(0.4) * 1.3, std::cos(0.9) * 1.3}), 1e-12));
  REQUIRE(gy.item() == Catch::Approx(std::sin(0.4) + std::sin(0.9)));
  auto [hx, hy] = jaxcc::grad(f, jaxcc::argnums<0, 1>)(neg, jnp::array(1.3));
  REQUIRE_THAT(hx, AllClose(jnp::array({3 * 0.16, 3 * 0.81}), 1e-12));
  REQUIRE(hy.item() == -1.0);
  // An int output beside a float one: only the float one carries a cotangent.
  auto const with_count = [](Array<double> x) {
    auto [v, n] = lax::cond(x > 0.0, [](Array<double> a, Array<std::int32_t> k) { return std::pair{Array<double>(a * a), Array<std::int32_t>(k + 1)}; },
                            [](Array<double> a, Array<std::int32_t> k) { return std::pair{a, k}; }, x, jnp::array(4));
    return Array<double>(v * n.astype<double>());
  };
  REQUIRE(jaxcc::grad(with_count)(jnp::array(3.0)).item() == 30.0);  // d/dx 5 x^2
  REQUIRE(jaxcc::grad(with_count)(jnp::array(-3.0)).item() == 4.0);  // d/dx 4 x
  // jvp along y only: branch 0's output tangent is -1 (none from x).
  auto [out, t] = jaxcc::jvp(f, std::tuple{neg, jnp::array(1.3)}, std::tuple{jnp::zeros<double>({2}), jnp::array(1.0)});
  REQUIRE(t.item() == -1.0);
  // grad of grad: d2/dx2 of sin(x) * y is -sin(x) y.
  auto const g = [&](Array<double> x) { return jaxcc::grad(f)(x, jnp::array(2.0)); };
  auto const sum_g = [&](Array<double> x) { return Array<double>(jnp::sum(g(x))); };
  REQUIRE_THAT(jaxcc::grad(sum_g)(pos), AllClose(jnp::array({-std::sin(0.4) * 2, -std::sin(0.9) * 2}), 1e-12));
}

TEST_CASE("a C++ if on a traced predicate errors; lax::cond works", "[control_flow][cond]") {
  auto const with_if = [](Array<double> x) {
    if (Array<bool>(x > 0.0)) return Array<double>(x * x);
    return Array<double>(-x);
  };
  REQUIRE(contains(message_of([&] { jaxcc::grad(with_if)(jnp::array(2.0)); }),
                   "Attempted boolean conversion of traced array with shape bool[]."));
  auto const with_cond = [](Array<double> x) {
    return lax::cond(x > 0.0, [](Array<double> a) { return Array<double>(a * a); }, [](Array<double> a) { return Array<double>(-a); }, x);
  };
  REQUIRE(jaxcc::grad(with_cond)(jnp::array(2.0)).item() == 4.0);
  REQUIRE(jaxcc::grad(with_cond)(jnp::array(-2.0)).item() == -1.0);
}

TEST_CASE("cond's errors are JAX's", "[control_flow][cond][errors]") {
  auto x = jnp::array({1.0, 2.0});
  auto const id = [](Array<double> a) { return a; };
  REQUIRE(message_of([&] { lax::cond(true, id, [](Array<double> a) { return Array<double>(jnp::sum(a)); }, x); }) ==
          "cond branches must have equal output types but they differ.\n\n"
          "The output of true_fun has type float64[2] but the corresponding output of false_fun has type float64[], so "
          "the shapes do not match.\n\n"
          "Revise true_fun and/or false_fun so that all output types match.");
  REQUIRE(message_of([&] {
            lax::cond(true, [](Array<double> a) { return std::pair{a, a}; },
                      [](Array<double> a) { return std::pair{a.astype<float>(), Array<double>(jnp::sum(a))}; }, x);
          }) ==
          "cond branches must have equal output types but they differ.\n\n"
          "  * the output of true_fun at path [0] has type float64[2] but the corresponding output of false_fun has "
          "type float32[2], so the dtypes do not match;\n"
          "  * the output of true_fun at path [1] has type float64[2] but the corresponding output of false_fun has "
          "type float64[], so the shapes do not match.\n\n"
          "Revise true_fun and/or false_fun so that all output types match.");
  REQUIRE(message_of([&] {
            lax::cond(true, [](Array<double> a) { return std::vector{a}; }, [](Array<double> a) { return std::vector{a, a}; }, x);
          }) ==
          "cond branch outputs must have the same pytree structure, but they differ:\n\n"
          "true_fun output is PyTreeDef([*]) but false_fun output is PyTreeDef([*, *]).\n\n"
          "Revise true_fun and/or false_fun so that they have the same pytree structure.");
  REQUIRE(message_of([&] { lax::cond(jnp::array({true, false}), id, id, x); }) ==
          "Pred must be a scalar, got Array([ True, False], dtype=bool) of shape (2,).");
}

TEST_CASE("make_jaxpr prints cond, scan and while as JAX does", "[control_flow][make_jaxpr]") {
  // JAX's api_test.py test_cond, ported line for line.
  auto const f = [](Array<float> x) {
    return lax::cond(x >= 0.f, [&](Array<float> xt, Array<float>) { return Array<float>(xt + x); },
                     [&](Array<float>, Array<float> xf) { return Array<float>(xf - x); }, x + 1.f, x + 2.f);
  };
  REQUIRE(to_string(jaxcc::make_jaxpr(f)(jnp::array(3.f))) ==
          "{ lambda ; a:f32[]. let\n"
          "    b:bool[] = ge a 0.0:f32[]\n"
          "    c:f32[] = add a 1.0:f32[]\n"
          "    d:f32[] = add a 2.0:f32[]\n"
          "    e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n"
          "    f:f32[] = cond[\n"
          "      branches=(\n"
          "        { lambda ; g:f32[] h:f32[] i:f32[]. let j:f32[] = sub i g in (j,) }\n"
          "        { lambda ; k:f32[] l:f32[] m:f32[]. let n:f32[] = add l k in (n,) }\n"
          "      )\n"
          "    ] e a c d\n"
          "  in (f,) }");
  // jax.make_jaxpr(lambda x: lax.scan(lambda c, x: (c * x, c + x), 1., x))(jnp.ones(3)), with the
  // literal 1.0 as the initial carry.
  auto const s = [](Array<float> xs) {
    return lax::scan([](Array<float> c, Array<float> x) { return std::pair{Array<float>(c * x), Array<float>(c + x)}; },
                     jnp::array(1.f), xs);
  };
  REQUIRE(to_string(jaxcc::make_jaxpr(s)(jnp::ones<float>({3}))) ==
          "{ lambda ; a:f32[3]. let\n"
          "    b:f32[] c:f32[3] = scan[\n"
          "      _split_transpose=False\n"
          "      jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = mul d e; g:f32[] = add d e in (f, g) }\n"
          "      length=3\n"
          "      linear=(False, False)\n"
          "      num_carry=1\n"
          "      num_consts=0\n"
          "      reverse=False\n"
          "      unroll=1\n"
          "    ] 1.0:f32[] a\n"
          "  in (b, c) }");
  // A while loop whose body closes over y: y is a body const.
  auto const w = [](Array<float> x, Array<float> y) {
    return lax::while_loop([](Array<float> c) { return c < 10.f; }, [&](Array<float> c) { return Array<float>(c * y); }, x);
  };
  REQUIRE(to_string(jaxcc::make_jaxpr(w)(jnp::array(1.f), jnp::array(2.f))) ==
          "{ lambda ; a:f32[] b:f32[]. let\n"
          "    c:f32[] = while[\n"
          "      body_jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = mul e d in (f,) }\n"
          "      body_nconsts=1\n"
          "      cond_jaxpr={ lambda ; g:f32[]. let h:bool[] = lt g 10.0:f32[] in (h,) }\n"
          "      cond_nconsts=0\n"
          "    ] b a\n"
          "  in (c,) }");
}

TEST_CASE("control flow nests and composes", "[control_flow][grad]") {
  // A cond inside a scan body, differentiated twice.
  auto const f = [](Array<double> xs) {
    auto [c, ys] = lax::scan([](Array<double> c, Array<double> x) {
      auto next = lax::cond(x > 0.0, [](Array<double> c, Array<double> x) { return Array<double>(c * x); },
                            [](Array<double> c, Array<double> x) { return Array<double>(c + jnp::sin(x)); }, c, x);
      return std::pair{next, jaxcc::none};
    }, jnp::array(1.0), xs);
    return c;
  };
  auto xs = jnp::array({0.5, -0.3, 1.2});
  // c: 1 -> 0.5 -> 0.5 + sin(-0.3) -> (0.5 + sin(-0.3)) * 1.2
  REQUIRE(f(xs).item() == Catch::Approx((0.5 + std::sin(-0.3)) * 1.2));
  check_grads(f, std::tuple{xs}, 2);
  // A scan inside a fori_loop.
  auto const g = [](Array<double> x) {
    return lax::fori_loop(0, 3, [](Array<std::int32_t>, Array<double> v) {
      auto [c, ys] = lax::scan([](Array<double> c, Array<double> e) { return std::pair{Array<double>(c + e * c), c}; },
                               jnp::array(1.0), v);
      return Array<double>(v * c * 0.5);
    }, x);
  };
  check_grads(g, std::tuple{jnp::array({0.2, -0.1})}, 2);
  // The hessian of a scanned function: d2/dx2 of prod_i x_i along the diagonal is 0.
  auto const prod = [](Array<double> xs) {
    return lax::scan([](Array<double> c, Array<double> x) { return std::pair{Array<double>(c * x), jaxcc::none}; },
                     jnp::array(1.0), xs).first;
  };
  auto h = jaxcc::jacfwd(jaxcc::grad(prod))(jnp::array({2.0, 3.0, 5.0}));
  REQUIRE_THAT(h, AllClose(jnp::array({{0.0, 5.0, 3.0}, {5.0, 0.0, 2.0}, {3.0, 2.0, 0.0}}), 1e-12));
}

// ---- select -------------------------------------------------------------------

TEST_CASE("select chooses elementwise and differentiates", "[control_flow][select]") {
  auto p = jnp::array({true, false, true});
  auto a = jnp::array({1.0, 2.0, 3.0});
  auto b = jnp::array({10.0, 20.0, 30.0});
  REQUIRE(lax::select(p, a, b).to_vector() == std::vector<double>{1.0, 20.0, 3.0});
  REQUIRE(lax::select(jnp::array(false), a, b).to_vector() == b.to_vector());
  // Non-contiguous cases: a transposed matrix.
  auto m = jnp::array({{1.0, 2.0}, {3.0, 4.0}});
  REQUIRE(lax::select(m.T() > 2.0, m.T(), jnp::zeros<double>({2, 2})).to_vector() == std::vector<double>{0, 3, 0, 4});
  auto const f = [&](Array<double> x) { return Array<double>(jnp::sum(lax::select(p, x * x, -x))); };
  REQUIRE(jaxcc::grad(f)(a).to_vector() == std::vector<double>{2.0, -1.0, 6.0});
  REQUIRE(message_of([&] { lax::select(p, a, jnp::zeros<double>({2})); }) ==
          "select cases must have the same shapes, got [(2,), (3,)].");
  REQUIRE(message_of([&] { lax::select(jnp::array({true, false}), a, b); }) ==
          "select `which` must be scalar or have the same shape as cases, got `which` shape (2,) but case shape (3,).");
}

TEST_CASE("lax::switch_ runs the clamped branch; derivatives, batching, errors", "[control_flow][switch]") {
  using Branch = std::function<Array<double>(Array<double>)>;
  std::vector<Branch> const branches = {[](Array<double> a) { return Array<double>(a * 2.0); },
                                        [](Array<double> a) { return Array<double>(a + 1.0); },
                                        [](Array<double> a) { return Array<double>(-a * a); }};
  auto const x = jnp::array({1.5, -2.0});
  // By hand: the index is clamped into [0, 2], as JAX clamps it.
  CHECK(lax::switch_(1, branches, x).to_vector() == std::vector<double>{2.5, -1.0});
  CHECK(lax::switch_(jnp::array(-3), branches, x).to_vector() == std::vector<double>{3.0, -4.0});
  CHECK(lax::switch_(jnp::array<std::int64_t>(9), branches, x).to_vector() == std::vector<double>{-2.25, -4.0});
  // A tuple of callables of different types; one branch is just called.
  auto const pair = std::tuple{[](Array<double> const& a) { return Array<double>(jnp::sin(a)); },
                               [](Array<double> const& a) { return Array<double>(jnp::cos(a)); }};
  CHECK(lax::switch_(1, pair, x).to_vector() == Array<double>(jnp::cos(x)).to_vector());
  CHECK(lax::switch_(5, std::tuple{[](Array<double> const& a) { return a; }}, x).to_vector() == x.to_vector());
  // JAX: grad of switch(2, [2a, a + 1, -a^2]) at 3 is -6.
  auto const g = jaxcc::grad([&](Array<double> const& a) { return lax::switch_(2, branches, a); })(jnp::array(3.0));
  CHECK(g.item() == -6.0);
  auto const f = [&](Array<std::int32_t> const& i, Array<double> const& a) {
    return lax::switch_(i, branches, Array<double>(jnp::sin(a)));
  };
  REQUIRE_NOTHROW(check_grads([&](Array<double> const& a) { return f(jnp::array(2), a); }, std::tuple{x}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0, 0), jnp::array({0, 1, 2, 7}),
                                                      jaxcc_test::smooth({4, 3})));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, jnp::array(1), x));
  REQUIRE(message_of([&] { lax::switch_(jnp::array({1, 2}), branches, x); }) ==
          "Branch index must be scalar, got Array([1, 2], dtype=int32) of shape (2,).");
  REQUIRE(message_of([&] { lax::switch_(0, std::vector<Branch>{}, x); }) == "Empty branch sequence");
  std::vector<Branch> const mismatched = {[](Array<double> a) { return a; },
                                          [](Array<double> a) { return Array<double>(jnp::sum(a)); }};
  REQUIRE(message_of([&] { lax::switch_(0, mismatched, x); }) ==
          "switch branches must have equal output types but they differ.\n\nThe output of branch 0 has type "
          "float64[2] but the corresponding output of branch1 has type float64[], so the shapes do not match.\n\n"
          "Revise branch 0 and/or branch1 so that all output types match.");
}

TEST_CASE("lax::map maps over the leading axis, in batches too", "[control_flow][map]") {
  auto const sq = [](Array<double> const& r) { return Array<double>(r * r); };
  auto const xs = jnp::arange<double>(0, 5);
  // By hand: the squares 0, 1, 4, 9, 16, whatever the batch size (JAX's too).
  for (std::optional<std::int64_t> b : {std::optional<std::int64_t>{}, std::optional<std::int64_t>{2},
                                        std::optional<std::int64_t>{5}, std::optional<std::int64_t>{7}}) {
    INFO(b.value_or(0));
    CHECK(lax::map(sq, xs, b).to_vector() == std::vector<double>{0, 1, 4, 9, 16});
  }
  // A pytree in and out.
  auto const [sums, prods] = lax::map([](std::pair<Array<double>, Array<double>> const& p) {
    return std::tuple{Array<double>(p.first + p.second), Array<double>(jnp::sum(p.first * p.second))};
  }, std::pair{jnp::ones<double>({3, 2}), jaxcc_test::smooth({3, 2})}, 2);
  CHECK(sums.shape() == Shape{3, 2});
  CHECK(prods.shape() == Shape{3});
  auto const f = [](Array<double> const& a) {
    return lax::map([](Array<double> const& r) { return Array<double>(jnp::sin(r) * r.at(0).get()); }, a, 2);
  };
  REQUIRE_NOTHROW(check_grads(f, std::tuple{jaxcc_test::smooth({5, 3})}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(1), jaxcc_test::smooth({5, 2, 3})));
  REQUIRE(message_of([&] { lax::map(sq, xs, 0); }) == "lax.map: batch_size must be positive, got 0");
}

TEST_CASE("lax::optimization_barrier is the identity on a pytree", "[control_flow][optimization_barrier]") {
  auto const x = jnp::array({1.0, 2.0});
  auto const [a, b] = lax::optimization_barrier(std::tuple{x, jnp::array(3)});
  CHECK(a.to_vector() == x.to_vector());
  CHECK(b.item() == 3);
  auto const g = jaxcc::grad([](Array<double> const& y) { return jnp::sum(lax::optimization_barrier(Array<double>(y * y))); })(x);
  CHECK(g.to_vector() == std::vector<double>{2.0, 4.0});
}

}  // namespace test_control_flow
