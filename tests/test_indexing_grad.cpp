// Derivatives and jaxprs of indexing: gather (jnp::take), its transpose
// scatter-add, and the scatters behind x.at(i).set / add / subtract /
// multiply / min / max. check_grads compares JVPs and VJPs to second order
// with central differences in float64; hand-worked cotangents are explained
// beside them; scatter-add's values are checked against a reference loop.
#include "catch.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check_grads.hpp>

#include "support.hpp"

namespace test_indexing_grad {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc::primitives::gather_p;
using jaxcc::primitives::scatter_add_p;
using jaxcc::testing::AllClose;
using jaxcc::testing::check_grads;
using Mode = gather_p::Mode;
using jaxcc_test::jaxpr_of;
using jaxcc_test::message_of;
using jaxcc_test::pullback;
using jaxcc_test::smooth;

namespace {

/// scatter-add by definition, x of shape (outer, n, inner) and updates of
/// shape (outer, m, inner), for the three index modes.
template <class T>
std::vector<T> scatter_add_reference(std::vector<T> x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                                     std::vector<std::int64_t> const& idx, std::vector<T> const& u, Mode mode) {
  auto const m = static_cast<std::int64_t>(idx.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < m; ++j) {
      auto i = idx[static_cast<std::size_t>(j)];
      if (mode == Mode::clip) i = std::min(std::max(i, std::int64_t{0}), n - 1);
      if (mode == Mode::wrap) i = ((i % n) + n) % n;
      if (i < 0 || i >= n) continue;
      for (std::int64_t q = 0; q < inner; ++q)
        x[static_cast<std::size_t>((o * n + i) * inner + q)] += u[static_cast<std::size_t>((o * m + j) * inner + q)];
    }
  return x;
}

}  // namespace

TEST_CASE("take passes check_grads in every mode", "[indexing][grad][gather]") {
  auto const x = smooth({3, 4});
  // Repeated and negative indices, a 2-d index array, along axis 1.
  auto fill = [](Array<double> const& a) {
    return Array<double>(jnp::sin(jnp::take(Array<double>(a * a), jnp::array<std::int32_t>({{0, 2}, {2, -1}}), 1)));
  };
  REQUIRE_NOTHROW(check_grads(fill, std::tuple{x}, 2));
  // Out-of-range indices read the fill value, a constant.
  auto dropped = [](Array<double> const& a) {
    return Array<double>(jnp::cos(jnp::take(Array<double>(jnp::sin(a)), jnp::array<std::int64_t>({1, 5, -7, 1}), 0,
                                            "fill", 1.5)));
  };
  REQUIRE_NOTHROW(check_grads(dropped, std::tuple{x}, 2));
  auto clip = [](Array<double> const& a) {
    return Array<double>(jnp::sin(jnp::take(Array<double>(a * a), jnp::array<std::int32_t>({-5, 7, 1}), 1, "clip")));
  };
  REQUIRE_NOTHROW(check_grads(clip, std::tuple{x}, 2));
  auto wrap = [](Array<double> const& a) {
    return Array<double>(jnp::sin(jnp::take(Array<double>(a * a), jnp::array<std::int32_t>({5, -1, 2}), 0, "wrap")));
  };
  REQUIRE_NOTHROW(check_grads(wrap, std::tuple{x}, 2));
  // Without an axis the operand is flattened; a non-contiguous operand.
  auto flat = [](Array<double> const& a) {
    return Array<double>(jnp::sin(jnp::take(Array<double>(a * a).T(), jnp::array<std::int32_t>({11, 0, 4, 4}))));
  };
  REQUIRE_NOTHROW(check_grads(flat, std::tuple{x}, 2));
}

TEST_CASE("grad of sum(take(x, idx)) counts each index", "[indexing][grad][gather]") {
  auto const x = jnp::array({0.5, -1.0, 2.0, 3.0});
  auto counts = [&](Array<std::int32_t> const& idx, std::string_view mode) {
    return jaxcc::grad([&](Array<double> const& a) { return jnp::sum(jnp::take(a, idx, 0, mode, 0.0)); })(x).to_vector();
  };
  // Index 2 twice; -1 is the last element.
  REQUIRE(counts(jnp::array<std::int32_t>({0, 2, 2, -1}), "fill") == std::vector<double>{1, 0, 2, 1});
  // Out of range reads the fill value: no derivative reaches x (7, and -5 which wraps once to -1).
  REQUIRE(counts(jnp::array<std::int32_t>({1, 7, -5}), "fill") == std::vector<double>{0, 1, 0, 0});
  // clip: -3 reads x[0], 9 reads x[3].
  REQUIRE(counts(jnp::array<std::int32_t>({-3, 9, 9, 1}), "clip") == std::vector<double>{1, 1, 0, 2});
  // wrap: 5 reads x[1], -6 reads x[2].
  REQUIRE(counts(jnp::array<std::int32_t>({5, -6, 1}), "wrap") == std::vector<double>{0, 2, 1, 0});
  // Along an inner axis with a 2-d index array: out[i, j, k] = x[i, idx[j, k]],
  // so x[i, c] collects ct[i, j, k] over the (j, k) with idx[j, k] == c.
  auto const idx = jnp::array<std::int32_t>({{2, 0}, {2, 2}});
  auto const ct = jnp::arange<double>(8).reshape({2, 2, 2}) + 1.0;
  auto const g = pullback([&](Array<double> const& a) { return jnp::take(a, idx, 1); }, smooth({2, 3}), ct);
  // Row 0: ct = (1, 2, 3, 4) at indices (2, 0, 2, 2): x[0, 0] = 2, x[0, 2] = 1 + 3 + 4.
  REQUIRE(g.to_vector() == std::vector<double>{2, 0, 8, 6, 0, 5 + 7 + 8});
}

TEST_CASE("scatter-add, gather's transpose, matches a reference loop", "[indexing][scatter_add]") {
  auto const x = jnp::arange<double>(2 * 4 * 3).reshape({2, 4, 3});
  auto const idx = jnp::array<std::int64_t>({3, -1, 0, 3, 6});
  auto const u = jnp::arange<double>(2 * 5 * 3).reshape({2, 5, 3}) * 10.0;
  for (auto mode : {Mode::fill, Mode::clip, Mode::wrap}) {
    auto const out = jaxcc::detail::bind<scatter_add_p>({1, mode}, x, idx, Array<double>(u));
    REQUIRE(out.shape() == Shape{2, 4, 3});
    REQUIRE(out.to_vector() == scatter_add_reference(x.to_vector(), 2, 4, 3, idx.to_vector(),
                                                     Array<double>(u).to_vector(), mode));
  }
  // Non-contiguous updates (a transposed view) and operand (a broadcast).
  Array<double> const ut = jnp::arange<double>(4).reshape({2, 2}) + 1.0;
  auto const xb = jnp::broadcast_to(jnp::array({100.0, 200.0, 300.0}), Shape{2, 3});
  auto const out = jaxcc::detail::bind<scatter_add_p>({0, Mode::fill}, xb.T(), jnp::array<std::int32_t>({1, 1}), ut.T());
  // xb.T() rows are (100, 100), (200, 200), (300, 300); ut.T() = ((1, 3), (2, 4)), both rows land on row 1.
  REQUIRE(out.to_vector() == std::vector<double>{100, 100, 200 + 1 + 2, 200 + 3 + 4, 300, 300});
  // Integers wrap around, bools add as OR, empty updates leave the operand.
  auto const big = jnp::array<std::int32_t>({2147483647, 0});
  REQUIRE(jaxcc::detail::bind<scatter_add_p>({0, Mode::fill}, big, jnp::array<std::int32_t>({0}),
                                            jnp::array<std::int32_t>({1}))
              .to_vector() == std::vector<std::int32_t>{-2147483647 - 1, 0});
  REQUIRE(jaxcc::detail::bind<scatter_add_p>({0, Mode::fill}, jnp::array({false, true}), jnp::array<std::int32_t>({0, 0}),
                                            jnp::array({true, true}))
              .to_vector() == std::vector<bool>{true, true});
  REQUIRE(jaxcc::detail::bind<scatter_add_p>({0, Mode::fill}, jnp::array({1.0, 2.0}), jnp::zeros<std::int32_t>(Shape{0}),
                                            jnp::zeros<double>(Shape{0}))
              .to_vector() == std::vector<double>{1, 2});
  REQUIRE(message_of([&] {
            jaxcc::detail::bind<scatter_add_p>({0, Mode::fill}, jnp::zeros<double>(Shape{3}),
                                               jnp::array<std::int32_t>({0, 1}), jnp::zeros<double>(Shape{3}));
          }) == "scatter_add: updates of shape (3,) do not match the shape (2,) that indices of shape (2,) select along "
                "axis 0 of an operand of shape (3,)");
}

TEST_CASE("scatter-add passes check_grads in the operand and the updates", "[indexing][grad][scatter_add]") {
  auto const idx = jnp::array<std::int32_t>({2, 0, 2, 9});
  for (auto mode : {Mode::fill, Mode::clip, Mode::wrap}) {
    auto f = [&](Array<double> const& x, Array<double> const& u) {
      return Array<double>(jnp::sin(
          jaxcc::detail::bind<scatter_add_p>({1, mode}, Array<double>(x * x), idx, Array<double>(jnp::cos(u)))));
    };
    REQUIRE_NOTHROW(check_grads(f, std::tuple{smooth({2, 3}), smooth({2, 4}, 0.6)}, 2));
  }
}

TEST_CASE("x.at(...) updates pass check_grads", "[indexing][grad][scatter]") {
  auto const x = smooth({3, 4});
  Array<double> const v = smooth({4}, 1.3) * 2.0;  // cos(v) is far from x[1]^2: min and max have no ties
  auto check = [&](auto update) {
    auto f = [update](Array<double> const& a, Array<double> const& b) {
      return Array<double>(jnp::sin(update(Array<double>(a * a), Array<double>(jnp::cos(b)))));
    };
    check_grads(f, std::tuple{x, v}, 2);
  };
  REQUIRE_NOTHROW(check([](Array<double> const& a, Array<double> const& b) { return a.at(1).set(b); }));
  REQUIRE_NOTHROW(check([](Array<double> const& a, Array<double> const& b) { return a.at(-1).add(b); }));
  REQUIRE_NOTHROW(check([](Array<double> const& a, Array<double> const& b) { return a.at(0).subtract(b); }));
  REQUIRE_NOTHROW(check([](Array<double> const& a, Array<double> const& b) { return a.at(2).multiply(b); }));
  REQUIRE_NOTHROW(check([](Array<double> const& a, Array<double> const& b) { return a.at(1).min(b); }));
  REQUIRE_NOTHROW(check([](Array<double> const& a, Array<double> const& b) { return a.at(1).max(b); }));
  // Two indices and a scalar update (broadcast to the window); an
  // out-of-range index, whose update is dropped.
  REQUIRE_NOTHROW(check([](Array<double> const& a, Array<double> const& b) { return a.at(2, 3).set(b.at(0).get()); }));
  REQUIRE_NOTHROW(check([](Array<double> const& a, Array<double> const& b) { return a.at(5).multiply(b); }));
}

TEST_CASE("the scatters' derivatives, worked by hand", "[indexing][grad][scatter]") {
  auto const x = jnp::array({1.0, 2.0, 3.0});
  auto const ct = jnp::array({10.0, 20.0, 30.0});
  auto grads = [&](auto f, double v) {
    auto [out, vjp_fn] = jaxcc::vjp(f, x, jnp::array(v));
    auto [dx, dv] = vjp_fn(ct);
    return std::pair{dx.to_vector(), dv.item()};
  };
  // y = x with y[1] = v: nothing of x[1] survives, the update gets ct[1].
  auto [dx_set, dv_set] = grads([](Array<double> const& a, Array<double> const& b) { return a.at(1).set(b); }, 7.0);
  REQUIRE(dx_set == std::vector<double>{10, 0, 30});
  REQUIRE(dv_set == 20.0);
  // y[1] = x[1] + v and y[1] = x[1] - v.
  auto [dx_add, dv_add] = grads([](Array<double> const& a, Array<double> const& b) { return a.at(1).add(b); }, 7.0);
  REQUIRE(dx_add == std::vector<double>{10, 20, 30});
  REQUIRE(dv_add == 20.0);
  auto [dx_sub, dv_sub] = grads([](Array<double> const& a, Array<double> const& b) { return a.at(1).subtract(b); }, 7.0);
  REQUIRE(dx_sub == std::vector<double>{10, 20, 30});
  REQUIRE(dv_sub == -20.0);
  // y[2] = x[2] * v: d/dx[2] = v = 4, d/dv = x[2] = 3.
  auto [dx_mul, dv_mul] = grads([](Array<double> const& a, Array<double> const& b) { return a.at(2).multiply(b); }, 4.0);
  REQUIRE(dx_mul == std::vector<double>{10, 20, 120});
  REQUIRE(dv_mul == 90.0);
  // y[0] = min(x[0], v) with v = 0.5 < 1: the update wins and takes ct[0].
  auto [dx_min, dv_min] = grads([](Array<double> const& a, Array<double> const& b) { return a.at(0).min(b); }, 0.5);
  REQUIRE(dx_min == std::vector<double>{0, 20, 30});
  REQUIRE(dv_min == 10.0);
  // y[0] = max(x[0], v) with v = 0.5 < 1: x[0] is kept.
  auto [dx_max, dv_max] = grads([](Array<double> const& a, Array<double> const& b) { return a.at(0).max(b); }, 0.5);
  REQUIRE(dx_max == std::vector<double>{10, 20, 30});
  REQUIRE(dv_max == 0.0);
  // A tie, max(x[1], 2): JAX shares the derivative equally.
  auto [dx_tie, dv_tie] = grads([](Array<double> const& a, Array<double> const& b) { return a.at(1).max(b); }, 2.0);
  REQUIRE(dx_tie == std::vector<double>{10, 10, 30});
  REQUIRE(dv_tie == 10.0);
  // An index past the end drops the update: x passes through, v gets nothing.
  auto [dx_out, dv_out] = grads([](Array<double> const& a, Array<double> const& b) { return a.at(3).set(b); }, 7.0);
  REQUIRE(dx_out == std::vector<double>{10, 20, 30});
  REQUIRE(dv_out == 0.0);
  // grad of sum(x.at(1).set(v)) w.r.t. x is zero at index 1.
  auto g = jaxcc::grad([](Array<double> const& a) { return jnp::sum(a.at(1).set(5.0)); })(x);
  REQUIRE(g.to_vector() == std::vector<double>{1, 0, 1});
  // JVP of the tie: the tangents average, (1 + 3) / 2 at index 1.
  auto [y, t] = jaxcc::jvp([](Array<double> const& a, Array<double> const& b) { return a.at(1).max(b); },
                           std::tuple{x, jnp::array(2.0)}, std::tuple{jnp::array({1.0, 1.0, 1.0}), jnp::array(3.0)});
  REQUIRE(y.to_vector() == std::vector<double>{1, 2, 3});
  REQUIRE(t.to_vector() == std::vector<double>{1, 2, 1});
}

TEST_CASE("gather and the scatters print as JAX's jaxprs", "[indexing][make_jaxpr]") {
  auto const x = jnp::zeros<float>(Shape{3, 2});
  auto const take = jaxpr_of([](Array<float> const& a) { return jnp::take(a, jnp::array<std::int32_t>({2, 0}), 0); }, x);
  CHECK(take.find("c:f32[2,2] = gather[axis=0 fill_value=None indices_are_sorted=False "
                  "mode=GatherScatterMode.FILL_OR_DROP unique_indices=False] b a\n") != std::string::npos);
  auto const clip =
      jaxpr_of([](Array<float> const& a) { return jnp::take(a, jnp::array<std::int32_t>({2, 0}), 1, "clip"); }, x);
  CHECK(clip.find("mode=GatherScatterMode.CLIP") != std::string::npos);
  auto const set = jaxpr_of([](Array<float> const& a, Array<float> const& v) { return a.at(1).set(v); }, x,
                            jnp::zeros<float>(Shape{2}));
  CHECK(set.find("c:f32[3,2] = scatter[dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), "
                 "inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
                 "scatter_indices_batching_dims=()) indices=(1,) indices_are_sorted=True "
                 "mode=GatherScatterMode.FILL_OR_DROP unique_indices=True update_consts=() update_jaxpr=None] a b\n") !=
        std::string::npos);
  auto const add = jaxpr_of([](Array<float> const& a, Array<float> const& v) { return a.at(2, 0).add(v); }, x,
                            jnp::zeros<float>(Shape{}));
  CHECK(add.find("c:f32[3,2] = scatter-add[dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), "
                 "inserted_window_dims=(0, 1), scatter_dims_to_operand_dims=(0, 1), operand_batching_dims=(), "
                 "scatter_indices_batching_dims=()) indices=(2, 0) indices_are_sorted=True "
                 "mode=GatherScatterMode.FILL_OR_DROP unique_indices=True update_consts=() "
                 "update_jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = add d e in (f,) }] a b\n") != std::string::npos);
  for (auto const& [name, op] : {std::pair{"scatter-sub[", "= sub"}, std::pair{"scatter-mul[", "= mul"},
                                 std::pair{"scatter-min[", "= min"}, std::pair{"scatter-max[", "= max"}}) {
    std::string_view const kind = name;
    auto const text = jaxpr_of(
        [kind](Array<float> const& a, Array<float> const& v) {
          return kind == "scatter-sub[" ? a.at(0).subtract(v)
                 : kind == "scatter-mul[" ? a.at(0).multiply(v)
                 : kind == "scatter-min[" ? a.at(0).min(v)
                                          : a.at(0).max(v);
        },
        x, jnp::zeros<float>(Shape{2}));
    CHECK(text.find(name) != std::string::npos);
    CHECK(text.find(op) != std::string::npos);
  }
  // take's JVP gathers the tangent with fill value 0, as JAX's rule does.
  auto const take_jvp = jaxpr_of(
      [](Array<float> const& a, Array<float> const& t) {
        auto f = [](Array<float> const& y) { return jnp::take(y, jnp::array<std::int32_t>({1, 4}), 0, "fill", 1.5); };
        return std::get<1>(jaxcc::jvp(f, std::tuple{a}, std::tuple{t}));
      },
      jnp::zeros<float>(Shape{3}), jnp::zeros<float>(Shape{3}));
  CHECK(take_jvp.find("gather[axis=0 fill_value=1.5 ") != std::string::npos);
  CHECK(take_jvp.find("gather[axis=0 fill_value=0 ") != std::string::npos);
  // take's VJP is a scatter-add of the cotangent into zeros.
  auto const take_vjp = jaxpr_of(
      [](Array<float> const& a, Array<float> const& ct) {
        auto [out, vjp_fn] = jaxcc::vjp([](Array<float> const& y) { return jnp::take(y, jnp::array<std::int32_t>({1, 1}), 0); }, a);
        return std::get<0>(vjp_fn(ct));
      },
      jnp::zeros<float>(Shape{3}), jnp::zeros<float>(Shape{2}));
  CHECK(take_vjp.find("scatter-add[axis=0 indices_are_sorted=False mode=GatherScatterMode.FILL_OR_DROP "
                      "unique_indices=False update_consts=() update_jaxpr={ lambda ; ") != std::string::npos);
}

TEST_CASE("integer and bool indexing operations trace", "[indexing][grad]") {
  // Tracing instantiates every rule for these dtypes.
  auto f = [](Array<std::int32_t> const& a) {
    auto t = jnp::take(a, jnp::array<std::int32_t>({0, 0, 2}), 0, "clip");
    return t.at(1).add(5).at(0).max(std::int32_t{1});
  };
  auto const i = jnp::array<std::int32_t>({-3, 4, 6});
  REQUIRE(f(i).to_vector() == std::vector<std::int32_t>{1, 2, 6});
  auto const text = jaxpr_of(f, i);
  REQUIRE(text.find("scatter-add[") != std::string::npos);
  REQUIRE(text.find(":i32[] = add ") != std::string::npos);
  auto [out, vjp_fn] = jaxcc::vjp(f, i);
  REQUIRE(std::get<0>(vjp_fn(jnp::ones<std::int32_t>(Shape{3}))).shape() == Shape{3});
  auto b = [](Array<bool> const& a) { return jnp::take(a, jnp::array<std::int32_t>({1}), 0).at(0).set(true); };
  REQUIRE(jaxpr_of(b, jnp::zeros<bool>(Shape{2})).find("bool[1] = scatter[") != std::string::npos);
}

}  // namespace test_indexing_grad
