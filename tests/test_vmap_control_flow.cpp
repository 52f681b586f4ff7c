// vmap of the program-carrying primitives: lax::cond (with the predicate
// shared by the batch or mapped), lax::select, lax::scan (carries that
// become mapped), fori_loop, lax::while_loop (a predicate that differs per
// example), checkpoint, custom_vjp and custom_jvp; each composed with the
// autodiff transforms. Every golden is f applied to one example at a time
// without vmap, stacked.
#include "catch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_vmap_control_flow {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::in_axes;
using jaxcc::none;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc_test::count;
using jaxcc_test::example;
using jaxcc_test::jaxpr_of;
using jaxcc_test::smooth;

namespace {

/// g(0), ..., g(n - 1) stacked on a new axis 0.
template <class G>
auto stacked(std::int64_t n, G const& g) {
  std::vector<decltype(g(std::int64_t{0}))> out;
  for (std::int64_t i = 0; i < n; ++i) out.push_back(g(i));
  return jnp::stack(out);
}

}  // namespace

// ---- cond -----------------------------------------------------------------------

TEST_CASE("vmap of cond with the predicate shared by the batch", "[vmap][cond]") {
  // Per example x is (3, 4); the branches differ in which outputs depend on x.
  auto const f = [](Array<bool> p, Array<double> x, Array<double> c) {
    return lax::cond(
        p, [&](Array<double> v) { return std::pair{Array<double>(jnp::sin(v) * 2.0), Array<double>(c * 3.0)}; },
        [&](Array<double> v) { return std::pair{Array<double>(v * v), Array<double>(jnp::sum(v, 0) + c)}; }, x);
  };
  auto const xs = smooth({5, 3, 4});
  auto const c = jnp::array({1.0, -2.0, 0.5, 4.0});
  for (bool taken : {true, false}) {
    auto const p = jnp::array(taken);
    for (std::int64_t in : {0, 1, -1}) {
      auto const moved = jnp::moveaxis(xs, 0, in);  // a transposed, non-contiguous view for 1 and -1
      auto const [a, b] = jaxcc::vmap(f, in_axes(none, in, none))(p, moved, c);
      CHECK_THAT(a, AllClose(stacked(5, [&](std::int64_t i) { return f(p, example(moved, in, i), c).first; }), 1e-12));
      CHECK_THAT(b, AllClose(stacked(5, [&](std::int64_t i) { return f(p, example(moved, in, i), c).second; }), 1e-12));
    }
    // Only the closed-over value mapped.
    auto const x = example(xs, 0, 0);
    auto const cs = smooth({3, 4});
    auto const [a, b] = jaxcc::vmap(f, in_axes(none, none, 0))(p, x, cs);
    CHECK_THAT(a, AllClose(stacked(3, [&](std::int64_t i) { return f(p, x, example(cs, 0, i)).first; }), 1e-12));
    CHECK_THAT(b, AllClose(stacked(3, [&](std::int64_t i) { return f(p, x, example(cs, 0, i)).second; }), 1e-12));
  }
  // One cond equation, not one per example.
  REQUIRE(count(jaxpr_of(jaxcc::vmap(f, in_axes(none, 0, none)), jnp::array(true), xs, c), "cond[") == 1);
}

TEST_CASE("vmap of cond with a mapped predicate selects per example", "[vmap][cond]") {
  // The predicate, the operands, or both mapped; an int output rides along.
  auto const f = [](Array<double> x, Array<double> y) {
    return lax::cond(
        jnp::sum(x) > 0.0,
        [](Array<double> a, Array<double> b) { return std::pair{Array<double>(jnp::sin(a) * b), jnp::array(std::int32_t{1})}; },
        [](Array<double> a, Array<double> b) { return std::pair{Array<double>(a - b), jnp::array(std::int32_t{-1})}; }, x, y);
  };
  auto const xs = smooth({6, 3}, 1.3, 0.1);  // sums of mixed sign
  auto const y = jnp::array({0.5, -1.0, 2.0});
  auto const expect = [&](auto const& got, auto const& xi, auto const& yi) {
    auto const ys = stacked(6, [&](std::int64_t i) { return f(xi(i), yi(i)).first; });
    auto const flags = stacked(6, [&](std::int64_t i) { return f(xi(i), yi(i)).second; });
    CHECK_THAT(got.first, AllClose(ys, 1e-12));
    CHECK(got.second.to_vector() == flags.to_vector());
  };
  for (std::int64_t in : {0, 1, -1}) {
    auto const moved = jnp::moveaxis(xs, 0, in);
    expect(jaxcc::vmap(f, in_axes(in, none))(moved, y), [&](std::int64_t i) { return example(moved, in, i); },
           [&](std::int64_t) { return y; });
  }
  auto const ys = smooth({6, 3}, 0.7);
  expect(jaxcc::vmap(f, in_axes(0, 0))(xs, ys), [&](std::int64_t i) { return example(xs, 0, i); },
         [&](std::int64_t i) { return example(ys, 0, i); });
  // The flags differ between examples, so the select is real.
  auto const flags = jaxcc::vmap(f, in_axes(0, none))(xs, y).second.to_vector();
  REQUIRE(std::count(flags.begin(), flags.end(), 1) > 0);
  REQUIRE(std::count(flags.begin(), flags.end(), -1) > 0);
}

TEST_CASE("vmap of cond with a mapped predicate composes with grad", "[vmap][cond][grad]") {
  // Every example runs both branches; each gets the gradient of its own.
  auto const f = [](Array<double> x) {
    return lax::cond(x > 0.0, [](Array<double> v) { return Array<double>(jnp::sqrt(v + 3.0) * 3.0); },
                     [](Array<double> v) { return Array<double>(v * v); }, x);
  };
  auto const xs = jnp::array({-1.0, 1.0, 6.0, -2.0, 13.0});
  auto const looped = stacked(5, [&](std::int64_t i) { return jaxcc::grad(f)(example(xs, 0, i)); });
  // d/dx 3 sqrt(x + 3) = 1.5 / sqrt(x + 3); d/dx x^2 = 2x.
  REQUIRE_THAT(looped, AllClose(jnp::array({-2.0, 0.75, 0.5, -4.0, 0.375}), 1e-12));
  REQUIRE_THAT(jaxcc::vmap(jaxcc::grad(f))(xs), AllClose(looped, 1e-12));
  auto const total = [&](Array<double> v) { return jnp::sum(jaxcc::vmap(f)(v)); };
  REQUIRE_THAT(jaxcc::grad(total)(xs), AllClose(looped, 1e-12));
  // And the values.
  REQUIRE_THAT(jaxcc::vmap(f)(xs), AllClose(stacked(5, [&](std::int64_t i) { return f(example(xs, 0, i)); }), 1e-12));
}

TEST_CASE("vmap of lax::select", "[vmap][select]") {
  auto const f = [](Array<bool> p, Array<double> a, Array<double> b) { return lax::select(p, a, b); };
  auto const p = jnp::array({{true, false, true}, {false, false, true}});
  auto const a = smooth({2, 3});
  auto const b = smooth({2, 3}, 0.9);
  auto const got = jaxcc::vmap(f, in_axes(0, 0, 0))(p, a, b);
  REQUIRE_THAT(got, AllClose(stacked(2, [&](std::int64_t i) { return f(example(p, 0, i), example(a, 0, i), example(b, 0, i)); })));
  auto const b0 = jnp::array({7.0, 8.0});
  auto const mixed = jaxcc::vmap(f, in_axes(1, 1, none))(p, a, b0);
  REQUIRE_THAT(mixed, AllClose(stacked(3, [&](std::int64_t i) { return f(example(p, 1, i), example(a, 1, i), b0); })));
}

// ---- scan -----------------------------------------------------------------------

namespace {

// Per example: w (3,) closed over, init (3,), xs (4, 3). The carry decays
// toward sin(x) w; the ys are a scalar and a vector per step.
auto const scanned = [](Array<double> w, Array<double> init, Array<double> xs) {
  auto [c, ys] = lax::scan(
      [&](Array<double> c, Array<double> x) {
        auto next = Array<double>(c * 0.5 + jnp::sin(x) * w);
        return std::pair{next, std::pair{Array<double>(jnp::sum(c * x)), Array<double>(x * 2.0)}};
      },
      init, xs);
  return std::tuple{c, ys.first, ys.second};
};

auto const scan_loss = [](Array<double> w, Array<double> init, Array<double> xs) {
  auto [c, y, z] = scanned(w, init, xs);
  return Array<double>(jnp::sum(c * c) + jnp::sum(y) + jnp::sum(z * w));
};

template <class Got, class Per>
void check_scanned(Got const& got, std::int64_t n, Per const& per_example) {
  auto const& [c, y, z] = got;
  CHECK_THAT(c, AllClose(stacked(n, [&](std::int64_t i) { return std::get<0>(per_example(i)); }), 1e-12));
  CHECK_THAT(y, AllClose(stacked(n, [&](std::int64_t i) { return std::get<1>(per_example(i)); }), 1e-12));
  CHECK_THAT(z, AllClose(stacked(n, [&](std::int64_t i) { return std::get<2>(per_example(i)); }), 1e-12));
}

}  // namespace

TEST_CASE("vmap of scan: xs mapped along any axis, carries that become mapped", "[vmap][scan]") {
  auto const w = jnp::array({0.3, -0.7, 1.1});
  auto const init = jnp::array({1.0, 0.0, -1.0});
  auto const batch_xs = smooth({5, 4, 3});
  // xs mapped along 0, 1 and -1 (non-contiguous views); the carry starts
  // unmapped and becomes mapped after a step.
  for (std::int64_t in : {0, 1, -1}) {
    auto const moved = jnp::moveaxis(batch_xs, 0, in);
    check_scanned(jaxcc::vmap(scanned, in_axes(none, none, in))(w, init, moved), 5,
                  [&](std::int64_t i) { return scanned(w, init, example(moved, in, i)); });
  }
  // Only the closed-over w mapped: a mapped const makes the carry and ys mapped.
  auto const ws = smooth({2, 3}, 0.8);
  auto const xs = smooth({4, 3}, 0.5);
  check_scanned(jaxcc::vmap(scanned, in_axes(0, none, none))(ws, init, xs), 2,
                [&](std::int64_t i) { return scanned(example(ws, 0, i), init, xs); });
  // Only the initial carry mapped, along axis 1.
  auto const inits = smooth({3, 2}, 0.6);
  check_scanned(jaxcc::vmap(scanned, in_axes(none, 1, none))(w, inits, xs), 2,
                [&](std::int64_t i) { return scanned(w, example(inits, 1, i), xs); });
  // All mapped.
  auto const all_xs = smooth({2, 4, 3}, 0.45);
  check_scanned(jaxcc::vmap(scanned, in_axes(0, 1, 0))(ws, inits, all_xs), 2,
                [&](std::int64_t i) { return scanned(example(ws, 0, i), example(inits, 1, i), example(all_xs, 0, i)); });
  // One scan equation for the batch.
  REQUIRE(count(jaxpr_of(jaxcc::vmap(scanned, in_axes(none, none, 0)), w, init, batch_xs), "scan[") == 1);
}

TEST_CASE("vmap of a reverse scan with an integer carry", "[vmap][scan]") {
  auto const f = [](Array<double> xs) {
    auto [carry, ys] = lax::scan(
        [](std::pair<Array<double>, Array<std::int32_t>> c, Array<double> x) {
          auto next = std::pair{Array<double>(c.first * x + 1.0), Array<std::int32_t>(c.second + 1)};
          return std::pair{next, Array<double>(c.first - x)};
        },
        std::pair{jnp::array(0.5), jnp::array(0)}, xs, std::nullopt, /*reverse=*/true);
    return std::tuple{carry.first, carry.second, ys};
  };
  auto const xs = smooth({3, 5});
  auto const [c, k, ys] = jaxcc::vmap(f)(xs);
  CHECK_THAT(c, AllClose(stacked(3, [&](std::int64_t i) { return std::get<0>(f(example(xs, 0, i))); }), 1e-12));
  CHECK(k.to_vector() == std::vector<std::int32_t>{5, 5, 5});
  CHECK_THAT(ys, AllClose(stacked(3, [&](std::int64_t i) { return std::get<2>(f(example(xs, 0, i))); }), 1e-12));
}

TEST_CASE("vmap of scan composes with grad both ways", "[vmap][scan][grad]") {
  auto const w = jnp::array({0.3, -0.7, 1.1});
  auto const init = jnp::array({1.0, 0.0, -1.0});
  auto const xs = smooth({5, 4, 3});
  auto const grads = jaxcc::grad(scan_loss, jaxcc::argnums<0, 2>);
  // Per-example gradients: vmap(grad) against a loop of grad.
  auto const [gw, gx] = jaxcc::vmap(grads, in_axes(none, none, 0))(w, init, xs);
  CHECK_THAT(gw, AllClose(stacked(5, [&](std::int64_t i) { return std::get<0>(grads(w, init, example(xs, 0, i))); }), 1e-12));
  CHECK_THAT(gx, AllClose(stacked(5, [&](std::int64_t i) { return std::get<1>(grads(w, init, example(xs, 0, i))); }), 1e-12));
  // grad of a batched loss: the shared w's gradient sums the examples'.
  auto const batched_loss = [&](Array<double> w, Array<double> xs) {
    return jnp::sum(jaxcc::vmap(scan_loss, in_axes(none, none, 1))(w, init, xs));
  };
  auto const moved = jnp::moveaxis(xs, 0, 1);
  auto const [bw, bx] = jaxcc::grad(batched_loss, jaxcc::argnums<0, 1>)(w, moved);
  CHECK_THAT(bw, AllClose(jnp::sum(gw, 0), 1e-12));
  CHECK_THAT(bx, AllClose(jnp::moveaxis(gx, 0, 1), 1e-12));
}

// ---- fori_loop and while_loop -------------------------------------------------------

TEST_CASE("vmap of fori_loop, with static and with mapped bounds", "[vmap][fori_loop][while_loop]") {
  auto const body = [](Array<std::int32_t> i, Array<double> c) { return Array<double>(c * 0.9 + jnp::sin(c) * i.astype<double>()); };
  auto const xs = smooth({4, 2});
  auto const fixed = [&](Array<double> x) { return lax::fori_loop(1, 5, body, x); };
  REQUIRE_THAT(jaxcc::vmap(fixed)(xs), AllClose(stacked(4, [&](std::int64_t i) { return fixed(example(xs, 0, i)); }), 1e-12));
  // A mapped upper bound: a while loop whose predicate differs per example
  // (per example, with a concrete bound, the loop is a scan).
  auto const bounded = [&](Array<std::int32_t> n, Array<double> x) { return lax::fori_loop(0, n, body, x); };
  auto const ns = jnp::array<std::int32_t>({0, 3, 1, 6});
  REQUIRE_THAT(jaxcc::vmap(bounded)(ns, xs),
               AllClose(stacked(4, [&](std::int64_t i) { return bounded(example(ns, 0, i), example(xs, 0, i)); }), 1e-12));
  REQUIRE(count(jaxpr_of(jaxcc::vmap(bounded), ns, xs), "while[") == 1);
}

TEST_CASE("vmap of while_loop", "[vmap][while_loop]") {
  SECTION("a mapped predicate: each example stops on its own") {
    auto const f = [](Array<double> x) {
      return lax::while_loop([](Array<double> v) { return Array<bool>(jnp::sum(v) < 10.0); },
                             [](Array<double> v) { return Array<double>(v * 2.0 + 1.0); }, x);
    };
    auto const xs = jnp::array({{0.0, 0.5}, {4.0, 7.0}, {-3.0, 1.0}, {20.0, 1.0}});
    for (std::int64_t in : {0, 1}) {
      auto const moved = jnp::moveaxis(xs, 0, in);
      REQUIRE_THAT(jaxcc::vmap(f, in_axes(in))(moved),
                   AllClose(stacked(4, [&](std::int64_t i) { return f(example(moved, in, i)); }), 1e-12));
    }
  }
  SECTION("a predicate shared by the batch, a carry that becomes mapped") {
    // (i, acc, x): i counts to 3 the same for every example; acc starts as a
    // shared 1 and takes x's mapped values.
    auto const f = [](Array<double> x) {
      auto [i, acc, v] = lax::while_loop(
          [](std::tuple<Array<std::int32_t>, Array<double>, Array<double>> const& c) { return Array<bool>(std::get<0>(c) < 3); },
          [](std::tuple<Array<std::int32_t>, Array<double>, Array<double>> const& c) {
            auto const& [i, acc, v] = c;
            return std::tuple{Array<std::int32_t>(i + 1), Array<double>(acc * v + 0.5), Array<double>(jnp::cos(v))};
          },
          std::tuple{jnp::array(0), jnp::array(1.0), x});
      return std::tuple{i, acc, v};
    };
    auto const xs = jnp::array({0.3, -1.2, 2.0});
    auto const [i, acc, v] = jaxcc::vmap(f)(xs);
    CHECK(i.to_vector() == std::vector<std::int32_t>{3, 3, 3});
    CHECK_THAT(acc, AllClose(stacked(3, [&](std::int64_t k) { return std::get<1>(f(example(xs, 0, k))); }), 1e-12));
    CHECK_THAT(v, AllClose(stacked(3, [&](std::int64_t k) { return std::get<2>(f(example(xs, 0, k))); }), 1e-12));
  }
  SECTION("a mapped value the predicate closes over") {
    auto const f = [](Array<double> limit, Array<double> x) {
      return lax::while_loop([&](Array<double> v) { return Array<bool>(v < limit); },
                             [](Array<double> v) { return Array<double>(v + 1.5); }, x);
    };
    auto const limits = jnp::array({0.0, 2.0, 7.5});
    auto const x = jnp::array(0.25);
    REQUIRE_THAT(jaxcc::vmap(f, in_axes(0, none))(limits, x),
                 AllClose(stacked(3, [&](std::int64_t i) { return f(example(limits, 0, i), x); }), 1e-12));
  }
}

TEST_CASE("vmap of while_loop composes with jvp both ways", "[vmap][while_loop][jvp]") {
  // Squares x until it leaves [-4, 4] (or 5 steps): the trip count depends on x.
  auto const f = [](Array<double> x) {
    auto [k, v] = lax::while_loop(
        [](std::pair<Array<std::int32_t>, Array<double>> const& c) {
          return Array<bool>(jnp::logical_and(c.first < 5, jnp::abs(c.second) < 4.0));
        },
        [](std::pair<Array<std::int32_t>, Array<double>> const& c) {
          return std::pair{Array<std::int32_t>(c.first + 1), Array<double>(c.second * c.second + 0.25)};
        },
        std::pair{jnp::array(0), x});
    return v;
  };
  auto const tangent_of = [&](Array<double> x, Array<double> t) { return jaxcc::jvp(f, std::tuple{x}, std::tuple{t}).second; };
  auto const xs = jnp::array({0.5, 1.1, -1.6, 3.0});
  auto const ts = jnp::array({1.0, 2.0, -1.0, 0.5});
  auto const looped = stacked(4, [&](std::int64_t i) { return tangent_of(example(xs, 0, i), example(ts, 0, i)); });
  REQUIRE_THAT(jaxcc::vmap(tangent_of)(xs, ts), AllClose(looped, 1e-12));
  auto const [out, tout] = jaxcc::jvp(jaxcc::vmap(f), std::tuple{xs}, std::tuple{ts});
  REQUIRE_THAT(tout, AllClose(looped, 1e-12));
  REQUIRE_THAT(out, AllClose(stacked(4, [&](std::int64_t i) { return f(example(xs, 0, i)); }), 1e-12));
}

TEST_CASE("nested vmap of scan and of while_loop with a mapped predicate", "[vmap][scan][while_loop]") {
  auto const w = jnp::array({0.3, -0.7, 1.1});
  auto const init = jnp::array({1.0, 0.0, -1.0});
  auto const xs = smooth({2, 3, 4, 3});
  auto const inner = jaxcc::vmap(scanned, in_axes(none, none, 0));
  auto const [c, y, z] = jaxcc::vmap(inner, in_axes(none, none, 0))(w, init, xs);
  auto const per_example = [&](std::int64_t i, std::int64_t j) { return scanned(w, init, example(example(xs, 0, i), 0, j)); };
  CHECK_THAT(c, AllClose(stacked(2, [&](std::int64_t i) { return stacked(3, [&](std::int64_t j) { return std::get<0>(per_example(i, j)); }); }), 1e-12));
  CHECK_THAT(y, AllClose(stacked(2, [&](std::int64_t i) { return stacked(3, [&](std::int64_t j) { return std::get<1>(per_example(i, j)); }); }), 1e-12));
  CHECK_THAT(z, AllClose(stacked(2, [&](std::int64_t i) { return stacked(3, [&](std::int64_t j) { return std::get<2>(per_example(i, j)); }); }), 1e-12));

  auto const grow = [](Array<double> x) {
    return lax::while_loop([](Array<double> v) { return Array<bool>(jnp::sum(v) < 10.0); },
                           [](Array<double> v) { return Array<double>(v * 2.0 + 1.0); }, x);
  };
  auto const starts = smooth({2, 3, 2}, 2.1);
  REQUIRE_THAT(jaxcc::vmap(jaxcc::vmap(grow))(starts),
               AllClose(stacked(2, [&](std::int64_t i) {
                          return stacked(3, [&](std::int64_t j) { return grow(example(example(starts, 0, i), 0, j)); });
                        }),
                        1e-12));
}

TEST_CASE("vmap with a named axis: collectives inside control flow", "[vmap][cond][scan][while_loop][collectives]") {
  SECTION("a cond with only unmapped operands still sums over the axis") {
    auto const f = [](Array<double> x, Array<double> u) {
      auto const total = lax::cond(jnp::array(true), [](Array<double> v) { return Array<double>(lax::psum(v, "i")); },
                                   [](Array<double> v) { return v; }, u);
      return Array<double>(x + total);
    };
    auto const got = jaxcc::vmap(f, in_axes(0, none), jaxcc::axis_name("i"))(jnp::array({1.0, 2.0, 3.0}), jnp::array(0.5));
    REQUIRE_THAT(got, AllClose(jnp::array({2.5, 3.5, 4.5})));
  }
  SECTION("a while loop whose predicate is a psum: every example runs the same steps") {
    auto const f = [](Array<double> x) {
      return lax::while_loop([](Array<double> v) { return Array<bool>(lax::psum(v, "i") < 20.0); },
                             [](Array<double> v) { return Array<double>(v + 1.0); }, x);
    };
    // The sum starts at 6 and grows by 3 a step: 5 steps.
    REQUIRE_THAT(jaxcc::vmap(f, jaxcc::axis_name("i"))(jnp::array({1.0, 2.0, 3.0})), AllClose(jnp::array({6.0, 7.0, 8.0})));
  }
  SECTION("a scan body centered by the mean over the axis") {
    auto const f = [](Array<double> xs) {
      return lax::scan([](Array<double> c, Array<double> x) { return std::pair{Array<double>(c + x - lax::pmean(x, "i")), jaxcc::none}; },
                       jnp::array(0.0), xs)
          .first;
    };
    auto const xs = smooth({3, 4});
    REQUIRE_THAT(jaxcc::vmap(f, jaxcc::axis_name("i"))(xs), AllClose(jnp::sum(xs - jnp::mean(xs, 0), 1), 1e-12));
  }
}

// ---- checkpoint ---------------------------------------------------------------------

TEST_CASE("vmap of checkpoint stays a checkpoint and composes with grad", "[vmap][checkpoint][grad]") {
  auto const inner = jaxcc::checkpoint([](Array<double> w, Array<double> x) { return Array<double>(jnp::sin(x * w) * x); });
  auto const loss = [&](Array<double> w, Array<double> x) { return jnp::sum(inner(w, x)); };
  auto const w = jnp::array({0.5, -1.5, 2.0});
  auto const xs = smooth({4, 3});
  for (std::int64_t in : {0, 1}) {
    auto const moved = jnp::moveaxis(xs, 0, in);
    REQUIRE_THAT(jaxcc::vmap(inner, in_axes(none, in))(w, moved),
                 AllClose(stacked(4, [&](std::int64_t i) { return inner(w, example(moved, in, i)); }), 1e-12));
  }
  auto const grad_w = jaxcc::grad(loss);
  auto const looped = stacked(4, [&](std::int64_t i) { return grad_w(w, example(xs, 0, i)); });
  REQUIRE_THAT(jaxcc::vmap(grad_w, in_axes(none, 0))(w, xs), AllClose(looped, 1e-12));
  auto const batched_loss = [&](Array<double> w, Array<double> xs) { return jnp::sum(jaxcc::vmap(inner, in_axes(none, 0))(w, xs)); };
  REQUIRE_THAT(jaxcc::grad(batched_loss)(w, xs), AllClose(jnp::sum(looped, 0), 1e-12));
  REQUIRE(count(jaxpr_of(jaxcc::vmap(inner, in_axes(none, 0)), w, xs), "checkpoint") == 1);
}

// ---- custom_vjp and custom_jvp ------------------------------------------------------------

namespace {

// sin with a backward pass that doubles the true gradient, and a product
// whose cotangent for w is tripled: only the user's rules give these.
auto const doubled_sin = jaxcc::custom_vjp([](Array<double> x) { return Array<double>(jnp::sin(x)); },
                                           [](Array<double> x) { return std::pair{Array<double>(jnp::sin(x)), Array<double>(jnp::cos(x))}; },
                                           [](Array<double> const& cos_x, Array<double> const& g) {
                                             return std::tuple{Array<double>(2.0 * cos_x * g)};
                                           });
auto const tripled_product = jaxcc::custom_vjp(
    [](Array<double> w, Array<double> x) { return Array<double>(w * x); },
    [](Array<double> w, Array<double> x) { return std::pair{Array<double>(w * x), std::pair{w, x}}; },
    [](std::pair<Array<double>, Array<double>> const& res, Array<double> const& g) {
      return std::tuple{Array<double>(3.0 * res.second * g), Array<double>(res.first * g)};
    });

// log(1 + exp(x)) whose tangent rule is scaled by 5.
auto const scaled_softplus = jaxcc::custom_jvp([](Array<double> x) { return Array<double>(jnp::log1p(jnp::exp(x))); },
                                               [](auto const& primals, auto const& tangents) {
                                                 auto const& [x] = primals;
                                                 auto const& [t] = tangents;
                                                 return std::pair{Array<double>(jnp::log1p(jnp::exp(x))),
                                                                  Array<double>(5.0 * t / (1.0 + jnp::exp(-x)))};
                                               });

}  // namespace

TEST_CASE("vmap of custom_vjp keeps the user's backward pass", "[vmap][custom_vjp][grad]") {
  auto const xs = smooth({4, 3});
  auto const loss = [](Array<double> x) { return jnp::sum(doubled_sin(x)); };
  auto const expected = Array<double>(2.0 * jnp::cos(xs));
  REQUIRE_THAT(jaxcc::vmap(doubled_sin)(xs), AllClose(jnp::sin(xs), 1e-12));
  // vmap(grad) and grad(vmap): both the doubled gradient.
  REQUIRE_THAT(jaxcc::vmap(jaxcc::grad(loss))(xs), AllClose(expected, 1e-12));
  auto const batched = [](Array<double> x) { return jnp::sum(jaxcc::vmap(doubled_sin, in_axes(1))(x)); };
  REQUIRE_THAT(jaxcc::grad(batched)(xs.T()), AllClose(expected.T(), 1e-12));
  // Nested vmaps, and grad through them.
  REQUIRE_THAT(jaxcc::vmap(jaxcc::vmap(doubled_sin))(xs), AllClose(jnp::sin(xs), 1e-12));
  auto const nested = [](Array<double> x) { return jnp::sum(jaxcc::vmap(jaxcc::vmap(doubled_sin))(x)); };
  REQUIRE_THAT(jaxcc::grad(nested)(xs), AllClose(expected, 1e-12));
  // A shared operand's cotangent sums over the batch (3 w-cotangents per example).
  auto const w = jnp::array({0.5, -2.0, 1.5});
  auto const product_loss = [](Array<double> w, Array<double> xs) {
    return jnp::sum(jaxcc::vmap(tripled_product, in_axes(none, 0))(w, xs));
  };
  auto const [gw, gx] = jaxcc::grad(product_loss, jaxcc::argnums<0, 1>)(w, xs);
  auto const per_example = jaxcc::grad([](Array<double> w, Array<double> x) { return jnp::sum(tripled_product(w, x)); },
                                       jaxcc::argnums<0, 1>);
  auto const looped_w = stacked(4, [&](std::int64_t i) { return std::get<0>(per_example(w, example(xs, 0, i))); });
  REQUIRE_THAT(gw, AllClose(jnp::sum(looped_w, 0), 1e-12));
  REQUIRE_THAT(gw, AllClose(Array<double>(3.0 * jnp::sum(xs, 0)), 1e-12));
  REQUIRE_THAT(gx, AllClose(stacked(4, [&](std::int64_t i) { return std::get<1>(per_example(w, example(xs, 0, i))); }), 1e-12));
}

TEST_CASE("vmap of custom_jvp keeps the user's tangent rule", "[vmap][custom_jvp][jvp][grad]") {
  auto const xs = smooth({5});
  auto const ts = smooth({5}, 0.9, 1.0);
  auto const tangent_of = [](Array<double> x, Array<double> t) {
    return jaxcc::jvp(scaled_softplus, std::tuple{x}, std::tuple{t}).second;
  };
  auto const looped = stacked(5, [&](std::int64_t i) { return tangent_of(example(xs, 0, i), example(ts, 0, i)); });
  REQUIRE_THAT(looped, AllClose(Array<double>(5.0 * ts / (1.0 + jnp::exp(-xs))), 1e-12));
  REQUIRE_THAT(jaxcc::vmap(tangent_of)(xs, ts), AllClose(looped, 1e-12));
  REQUIRE_THAT(jaxcc::jvp(jaxcc::vmap(scaled_softplus), std::tuple{xs}, std::tuple{ts}).second, AllClose(looped, 1e-12));
  // Reverse mode through the batched rule: the pullback of the scaled tangent map.
  auto const total = [](Array<double> x) { return jnp::sum(jaxcc::vmap(scaled_softplus)(x)); };
  REQUIRE_THAT(jaxcc::grad(total)(xs), AllClose(Array<double>(5.0 / (1.0 + jnp::exp(-xs))), 1e-12));
  auto const per_example = jaxcc::grad([](Array<double> x) { return scaled_softplus(x); });
  REQUIRE_THAT(jaxcc::vmap(per_example)(xs), AllClose(Array<double>(5.0 / (1.0 + jnp::exp(-xs))), 1e-12));
}

}  // namespace test_vmap_control_flow
