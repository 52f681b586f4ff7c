// vmap of indexing: gather (jnp::take), its transpose scatter-add, and the
// scatters behind x.at(i).set / add / multiply / min / max, with the operand,
// the indices or both mapped, along any axis, on non-contiguous inputs, and
// composed with grad. Every golden is f applied to one example at a time
// without vmap, stacked.
#include "catch.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_vmap_indexing {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc_test::count;
using jaxcc_test::example;
using jaxcc_test::jaxpr_of;
using jaxcc_test::smooth;

namespace {

/// f applied to each example of x (mapped along x_axis) and y (along
/// y_axis, or the same y for all when y_axis is empty), stacked on axis 0.
template <class F, class X, class Y>
auto stacked(F f, Array<X> const& x, std::optional<std::int64_t> x_axis, Array<Y> const& y,
             std::optional<std::int64_t> y_axis, std::int64_t size) {
  using R = jaxcc::value_type_t<decltype(f(x, y))>;
  std::vector<Array<R>> out;
  for (std::int64_t i = 0; i < size; ++i)
    out.push_back(f(x_axis ? example(x, *x_axis, i) : x, y_axis ? example(y, *y_axis, i) : y));
  return jnp::stack(out);
}

}  // namespace

TEST_CASE("vmap of take with only the operand mapped", "[vmap][indexing]") {
  // Per example x is (3, 4); indices out of range and negative exercise the modes.
  auto const xs = smooth({5, 3, 4});
  auto const idx = jnp::array<std::int32_t>({{2, -1, 0}, {7, 1, -6}});
  for (std::string mode : {"fill", "clip", "wrap"})
    for (std::int64_t axis : {0, 1, -1}) {
      auto const f = [&](Array<double> x, Array<std::int32_t> i) { return jnp::take(x, i, axis, mode); };
      for (std::int64_t in : {0, 1, -1}) {
        auto const moved = jnp::moveaxis(xs, 0, in);
        auto const got = jaxcc::vmap(f, jaxcc::in_axes(in, jaxcc::none))(moved, idx);
        CHECK_THAT(got, AllClose(stacked(f, moved, in, idx, std::nullopt, 5), 1e-12, 0, /*equal_nan=*/true));
      }
    }
}

TEST_CASE("vmap of take with only the indices mapped", "[vmap][indexing]") {
  auto const x = smooth({3, 4});
  // Per example the indices are (2, 3).
  auto const is = jnp::array<std::int64_t>({{{0, 3, -1}, {2, 9, 1}},
                                            {{1, 1, 0}, {-4, 2, 3}},
                                            {{3, 2, 1}, {0, -2, 5}},
                                            {{2, 2, 2}, {1, 0, 3}}});
  for (std::string mode : {"fill", "clip", "wrap"})
    for (std::int64_t axis : {0, 1}) {
      auto const f = [&](Array<double> a, Array<std::int64_t> i) { return jnp::take(a, i, axis, mode); };
      for (std::int64_t in : {0, 1, -1}) {
        auto const moved = jnp::moveaxis(is, 0, in);
        auto const got = jaxcc::vmap(f, jaxcc::in_axes(jaxcc::none, in))(x, moved);
        CHECK_THAT(got, AllClose(stacked(f, x, std::nullopt, moved, in, 4), 1e-12, 0, true));
      }
    }
}

TEST_CASE("vmap of take with the operand and the indices mapped", "[vmap][indexing]") {
  auto const xs = smooth({4, 3, 5, 2});
  auto const is = jnp::array<std::int32_t>({{0, 4, -1}, {2, 9, 1}, {3, 3, 0}, {-7, 2, 1}});
  for (std::string mode : {"fill", "clip", "wrap"})
    for (std::int64_t axis : {0, 1, 2}) {
      auto const f = [&](Array<double> x, Array<std::int32_t> i) { return jnp::take(x, i, axis, mode, 2.5); };
      for (std::int64_t x_in : {0, 2, -1})
        for (std::int64_t i_in : {0, 1}) {
          auto const x_moved = jnp::moveaxis(xs, 0, x_in);
          auto const i_moved = jnp::moveaxis(is, 0, i_in);
          auto const got = jaxcc::vmap(f, jaxcc::in_axes(x_in, i_in))(x_moved, i_moved);
          CHECK_THAT(got, AllClose(stacked(f, x_moved, x_in, i_moved, i_in, 4), 1e-12, 0, true));
        }
    }
}

TEST_CASE("vmap of take: non-contiguous inputs, flattening, out_axes", "[vmap][indexing]") {
  // A transposed, strided operand and a transposed index array.
  auto const base = smooth({6, 5, 4});
  auto const xs = jaxcc::lax::slice(jnp::transpose(base, {2, 0, 1}), {0, 0, 0}, {4, 6, 5}, {1, 2, 2});  // (4, 3, 3)
  REQUIRE(xs.shape() == Shape{4, 3, 3});
  auto const is = jnp::transpose(jnp::array<std::int32_t>({{0, 2, 1, 2}, {1, 1, 0, -1}}), {1, 0});  // (4, 2)
  auto const f = [](Array<double> x, Array<std::int32_t> i) { return jnp::take(x, i, 1); };
  CHECK_THAT(jaxcc::vmap(f)(xs, is), AllClose(stacked(f, xs, 0, is, 0, 4), 1e-12));
  CHECK_THAT(jaxcc::vmap(f, jaxcc::in_axes(1, jaxcc::none))(xs, is),
             AllClose(stacked(f, xs, 1, is, std::nullopt, 3), 1e-12));

  // Without an axis take flattens each example.
  auto const flat = [](Array<double> x, Array<std::int32_t> i) { return jnp::take(x, i); };
  auto const flat_idx = jnp::array<std::int32_t>({{8, 0, 4}, {1, 7, 2}, {3, 3, 5}, {6, 2, 0}});
  CHECK_THAT(jaxcc::vmap(flat)(xs, flat_idx), AllClose(stacked(flat, xs, 0, flat_idx, 0, 4), 1e-12));

  // out_axes=1 puts the mapped axis second.
  auto const got = jaxcc::vmap(f, jaxcc::in_axes(0, 0), jaxcc::out_axes(1))(xs, is);
  CHECK_THAT(got, AllClose(jnp::moveaxis(stacked(f, xs, 0, is, 0, 4), 0, 1), 1e-12));
}

TEST_CASE("vmap of vmap of take: shared batch axes batched again", "[vmap][indexing]") {
  // Both levels map both operands, so the inner gather's shared axis is
  // itself batched; then mixed levels.
  auto const xs = smooth({3, 2, 5});
  auto const is = jnp::array<std::int32_t>({{{0, 4}, {1, 1}}, {{2, -1}, {3, 0}}, {{4, 4}, {0, 2}}});  // (3, 2, 2)
  auto const f = [](Array<double> x, Array<std::int32_t> i) { return jnp::take(x, i, 0, "clip"); };
  auto const inner = jaxcc::vmap(f);
  auto const expected = jnp::stack({stacked(f, example(xs, 0, 0), 0, example(is, 0, 0), 0, 2),
                                    stacked(f, example(xs, 0, 1), 0, example(is, 0, 1), 0, 2),
                                    stacked(f, example(xs, 0, 2), 0, example(is, 0, 2), 0, 2)});
  CHECK_THAT(jaxcc::vmap(inner)(xs, is), AllClose(expected, 1e-12));
  CHECK_THAT(jaxcc::vmap(inner, jaxcc::in_axes(1, 1))(jnp::moveaxis(xs, 0, 1), jnp::moveaxis(is, 0, 1)),
             AllClose(expected, 1e-12));

  // Outer maps only the indices, inner maps both.
  auto const x = example(xs, 0, 0);
  auto const expected_mixed = jnp::stack({stacked(f, x, 0, example(is, 0, 0), 0, 2),
                                          stacked(f, x, 0, example(is, 0, 1), 0, 2),
                                          stacked(f, x, 0, example(is, 0, 2), 0, 2)});
  CHECK_THAT(jaxcc::vmap(inner, jaxcc::in_axes(jaxcc::none, 0))(x, is), AllClose(expected_mixed, 1e-12));
}

TEST_CASE("vmap of take records one batched gather", "[vmap][indexing][jaxpr]") {
  auto const xs = smooth({4, 3, 5});
  auto const is = jnp::array<std::int32_t>({{0, 2}, {1, 1}, {2, 0}, {1, 2}});
  auto const f = [](Array<double> x, Array<std::int32_t> i) { return jnp::take(x, i, 1, "clip"); };
  auto const both = jaxpr_of(jaxcc::vmap(f), xs, is);
  CHECK(count(both, "gather[") == 1);
  CHECK(both.find("gather[axis=2 batch_dims=1 fill_value=None") != std::string::npos);
  auto const operand_only = jaxpr_of(jaxcc::vmap(f, jaxcc::in_axes(0, jaxcc::none)), xs, example(is, 0, 0));
  CHECK(count(operand_only, "gather[") == 1);
  CHECK(operand_only.find("gather[axis=2 fill_value=None") != std::string::npos);
}

TEST_CASE("vmap of x.at(i) updates", "[vmap][indexing][scatter]") {
  auto const xs = smooth({4, 3, 2});
  auto const vs = smooth({4, 2}, 0.9);
  auto const v = smooth({2}, 1.3);
  auto const set = [](Array<double> x, Array<double> u) { return x.at(1).set(u); };
  auto const add = [](Array<double> x, Array<double> u) { return x.at(-1).add(u); };
  auto const mul = [](Array<double> x, Array<double> u) { return x.at(0).multiply(u); };
  auto const mn = [](Array<double> x, Array<double> u) { return x.at(2).min(u); };
  auto const mx = [](Array<double> x, Array<double> u) { return x.at(1).max(u); };
  auto const dropped = [](Array<double> x, Array<double> u) { return x.at(5).set(u); };
  auto const scalar_window = [](Array<double> x, Array<double> u) { return x.at(2, 1).add(jnp::sum(u)); };
  auto const check = [&](auto f) {
    CHECK_THAT(jaxcc::vmap(f)(xs, vs), AllClose(stacked(f, xs, 0, vs, 0, 4), 1e-12));
    CHECK_THAT(jaxcc::vmap(f, jaxcc::in_axes(0, jaxcc::none))(xs, v),
               AllClose(stacked(f, xs, 0, v, std::nullopt, 4), 1e-12));
    auto const x = example(xs, 0, 3);
    CHECK_THAT(jaxcc::vmap(f, jaxcc::in_axes(jaxcc::none, 0))(x, vs),
               AllClose(stacked(f, x, std::nullopt, vs, 0, 4), 1e-12));
    // Mapped along the last axis, non-contiguous.
    auto const xs_last = jnp::moveaxis(xs, 0, -1);
    auto const vs_last = jnp::transpose(vs, {1, 0});
    CHECK_THAT(jaxcc::vmap(f, jaxcc::in_axes(-1, 1))(xs_last, vs_last),
               AllClose(stacked(f, xs_last, -1, vs_last, 1, 4), 1e-12));
  };
  check(set);
  check(add);
  check(mul);
  check(mn);
  check(mx);
  check(dropped);
  check(scalar_window);

  auto const get = [](Array<double> x, Array<double> u) -> Array<double> { return x.at(1).get() * u; };
  CHECK_THAT(jaxcc::vmap(get)(xs, vs), AllClose(stacked(get, xs, 0, vs, 0, 4), 1e-12));
}

TEST_CASE("vmap(grad(f)) with take: per-example gradients", "[vmap][indexing][grad]") {
  // Repeated indices collect the cotangent of every position that read them.
  auto const xs = smooth({4, 5, 3});
  auto const is = jnp::array<std::int32_t>({{0, 0, 4}, {1, 3, 1}, {2, 2, 2}, {4, -1, 9}});
  auto const loss = [](Array<double> x, Array<std::int32_t> i) {
    return jnp::sum(jnp::sin(jnp::take(x, i, 0, "clip")) * jnp::arange<double>(3));
  };
  auto const g = jaxcc::grad(loss);
  CHECK_THAT(jaxcc::vmap(g)(xs, is), AllClose(stacked(g, xs, 0, is, 0, 4), 1e-12));
  CHECK_THAT(jaxcc::vmap(g, jaxcc::in_axes(2, 0))(jnp::moveaxis(xs, 0, 2), is),
             AllClose(stacked(g, jnp::moveaxis(xs, 0, 2), 2, is, 0, 4), 1e-12));
  auto const i0 = example(is, 0, 1);
  CHECK_THAT(jaxcc::vmap(g, jaxcc::in_axes(0, jaxcc::none))(xs, i0),
             AllClose(stacked(g, xs, 0, i0, std::nullopt, 4), 1e-12));
  auto const x0 = example(xs, 0, 2);
  CHECK_THAT(jaxcc::vmap(g, jaxcc::in_axes(jaxcc::none, 0))(x0, is),
             AllClose(stacked(g, x0, std::nullopt, is, 0, 4), 1e-12));
  // Fill mode drops the cotangent of an out-of-range index.
  auto const fill_loss = [](Array<double> x, Array<std::int32_t> i) { return jnp::sum(jnp::take(x, i, 1, "fill", 0.0)); };
  auto const gf = jaxcc::grad(fill_loss);
  CHECK_THAT(jaxcc::vmap(gf, jaxcc::in_axes(0, jaxcc::none))(xs, i0),
             AllClose(stacked(gf, xs, 0, i0, std::nullopt, 4), 1e-12));
}

TEST_CASE("vmap(grad(f)) with x.at(i) updates", "[vmap][indexing][grad][scatter]") {
  auto const xs = smooth({3, 4, 2});
  Array<double> const vs = smooth({3, 2}, 0.8) + 2.0;
  auto const loss = [](Array<double> x, Array<double> u) {
    auto const y = x.at(1).multiply(u).at(2).set(u * u).at(0).max(jnp::cos(u));
    return jnp::sum(y * y);
  };
  auto const g = jaxcc::grad(loss, jaxcc::argnums<0, 1>);
  auto const [gx, gu] = jaxcc::vmap(g)(xs, vs);
  std::vector<Array<double>> ex, eu;
  for (std::int64_t i = 0; i < 3; ++i) {
    auto const [a, b] = g(example(xs, 0, i), example(vs, 0, i));
    ex.push_back(a);
    eu.push_back(b);
  }
  CHECK_THAT(gx, AllClose(jnp::stack(ex), 1e-12));
  CHECK_THAT(gu, AllClose(jnp::stack(eu), 1e-12));
}

TEST_CASE("grad of a function that calls vmap over take and at", "[vmap][indexing][grad]") {
  // d/dx sum_i f(x, idx_i) = sum_i grad f(x, idx_i): the gradient through
  // the batched gather (indices mapped) equals the summed loop of gradients.
  auto const x = smooth({5, 2});
  auto const is = jnp::array<std::int32_t>({{0, 4, 4}, {1, 2, 3}, {3, 0, -1}});
  auto const f = [](Array<double> a, Array<std::int32_t> i) {
    return jnp::sum(jnp::exp(jnp::take(a, i, 0)) * jnp::arange<double>(1, 7, 1).reshape({3, 2}));
  };
  auto const batched_total = [&](Array<double> a) {
    return jnp::sum(jaxcc::vmap(f, jaxcc::in_axes(jaxcc::none, 0))(a, is));
  };
  auto expected = jaxcc::grad(f)(x, example(is, 0, 0));
  for (std::int64_t i = 1; i < 3; ++i) expected = expected + jaxcc::grad(f)(x, example(is, 0, i));
  CHECK_THAT(jaxcc::grad(batched_total)(x), AllClose(expected, 1e-12));

  // Operand and indices mapped: the batched gather with a shared axis, and
  // its transpose, the batched scatter-add.
  auto const xs = smooth({3, 5, 2});
  auto const both_total = [&](Array<double> a) { return jnp::sum(jaxcc::vmap(f)(a, is)); };
  std::vector<Array<double>> per_example;
  for (std::int64_t i = 0; i < 3; ++i) per_example.push_back(jaxcc::grad(f)(example(xs, 0, i), example(is, 0, i)));
  CHECK_THAT(jaxcc::grad(both_total)(xs), AllClose(jnp::stack(per_example), 1e-12));
  CHECK(count(jaxpr_of(jaxcc::grad(both_total), xs), "scatter-add[axis=1 batch_dims=1") == 1);

  // Through .at() updates under vmap.
  auto const vs = smooth({3, 2}, 0.6);
  auto const at_total = [&](Array<double> a) {
    auto const upd = [](Array<double> y, Array<double> u) { return jnp::sum(jnp::sin(y.at(2).add(u * y.at(0).get()))); };
    return jnp::sum(jaxcc::vmap(upd)(a, vs));
  };
  per_example.clear();
  for (std::int64_t i = 0; i < 3; ++i)
    per_example.push_back(jaxcc::grad([&](Array<double> y) {
      return jnp::sum(jnp::sin(y.at(2).add(example(vs, 0, i) * y.at(0).get())));
    })(example(xs, 0, i)));
  CHECK_THAT(jaxcc::grad(at_total)(xs), AllClose(jnp::stack(per_example), 1e-12));
}

TEST_CASE("take_along_axis", "[indexing]") {
  auto const x = jnp::array<double>({{1, 2, 3}, {4, 5, 6}});
  CHECK_THAT(jnp::take_along_axis(x, jnp::array<std::int32_t>({{0, 2}, {1, 0}}), 1),
             AllClose(jnp::array<double>({{1, 3}, {5, 4}})));
  // Out of range fills with NaN; negatives count from the end, once.
  auto const nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THAT(jnp::take_along_axis(x, jnp::array<std::int32_t>({{1, 0, 2}}), 0),
             AllClose(jnp::array<double>({{4, 2, nan}}), 1e-12, 0, true));
  CHECK_THAT(jnp::take_along_axis(x, jnp::array<std::int32_t>({{-1, -3, 0}}), 0),
             AllClose(jnp::array<double>({{4, nan, 3}}), 1e-12, 0, true));
  CHECK_THAT(jnp::take_along_axis(x, jnp::array<std::int32_t>({{-1, -3, 7}}), -2, "clip"),
             AllClose(jnp::array<double>({{4, 2, 6}})));
  // The other axes broadcast.
  CHECK_THAT(jnp::take_along_axis(x, jnp::array<std::int64_t>({{2, 0}}), 1),
             AllClose(jnp::array<double>({{3, 1}, {6, 4}})));
  CHECK_THAT(jnp::take_along_axis(jnp::array<double>({{10, 20, 30}}), jnp::array<std::int64_t>({{2}, {0}}), 1),
             AllClose(jnp::array<double>({{30}, {10}})));
  // Without an axis: flattened.
  CHECK_THAT(jnp::take_along_axis(x, jnp::array<std::int32_t>({5, 0, 3}), jaxcc::none),
             AllClose(jnp::array<double>({6, 1, 4})));

  std::string what;
  try {
    jnp::take_along_axis(x, jnp::array<std::int32_t>({0, 1}), 0);
  } catch (jaxcc::Error const& e) {
    what = e.what();
  }
  REQUIRE(what == "indices and arr must have the same number of dimensions; 1 vs. 2");
}

TEST_CASE("vmap and grad of take_along_axis", "[vmap][indexing][grad]") {
  auto const xs = smooth({4, 3, 5});
  auto const is = jnp::array<std::int32_t>({{{0, 4}, {1, 1}, {2, -1}},
                                            {{3, 0}, {4, 4}, {0, 2}},
                                            {{1, 2}, {3, 4}, {0, 0}},
                                            {{2, 2}, {9, 1}, {4, 3}}});  // (4, 3, 2)
  for (std::int64_t axis : {1, -1}) {
    auto const f = [axis](Array<double> x, Array<std::int32_t> i) {
      return jnp::take_along_axis(x, i, axis, "clip");
    };
    CHECK_THAT(jaxcc::vmap(f)(xs, is), AllClose(stacked(f, xs, 0, is, 0, 4), 1e-12));
    auto const xs1 = jnp::moveaxis(xs, 0, 1);
    CHECK_THAT(jaxcc::vmap(f, jaxcc::in_axes(1, jaxcc::none))(xs1, example(is, 0, 1)),
               AllClose(stacked(f, xs1, 1, example(is, 0, 1), std::nullopt, 4), 1e-12));
    auto const x0 = example(xs, 0, 2);
    auto const is2 = jnp::moveaxis(is, 0, 2);
    CHECK_THAT(jaxcc::vmap(f, jaxcc::in_axes(jaxcc::none, 2))(x0, is2),
               AllClose(stacked(f, x0, std::nullopt, is2, 2, 4), 1e-12));

    auto const g = jaxcc::grad([&](Array<double> x, Array<std::int32_t> i) {
      return jnp::sum(jnp::sin(f(x, i)) * jnp::arange<double>(6).reshape({3, 2}));
    });
    CHECK_THAT(jaxcc::vmap(g)(xs, is), AllClose(stacked(g, xs, 0, is, 0, 4), 1e-12));
    CHECK_THAT(jaxcc::vmap(g, jaxcc::in_axes(jaxcc::none, 0))(x0, is),
               AllClose(stacked(g, x0, std::nullopt, is, 0, 4), 1e-12));
  }
}

TEST_CASE("gather and scatter-add with shared batch axes: values and errors", "[indexing][scatter]") {
  using jaxcc::primitives::gather_p;
  using jaxcc::primitives::scatter_add_p;
  // out[b, o, j] = x[b, o, idx[b, j]], written out by hand.
  auto const x = jnp::arange<double>(12).reshape({2, 2, 3});
  auto const idx = jnp::array<std::int32_t>({{2, 0}, {1, 5}});
  auto const out = jaxcc::detail::bind<gather_p>({2, gather_p::Mode::clip, std::nullopt, 1}, x, idx);
  CHECK_THAT(out, AllClose(jnp::array<double>({{{2, 0}, {5, 3}}, {{7, 8}, {10, 11}}})));
  // Its transpose adds each row of updates back at the same places.
  auto const added = jaxcc::detail::bind<scatter_add_p>({2, gather_p::Mode::clip, 1}, jnp::zeros<double>({2, 2, 3}), idx,
                                                        jnp::ones<double>({2, 2, 2}));
  CHECK_THAT(added, AllClose(jnp::array<double>({{{1, 0, 1}, {1, 0, 1}}, {{0, 1, 1}, {0, 1, 1}}})));

  std::string what;
  try {
    jaxcc::detail::bind<gather_p>({2, gather_p::Mode::clip, std::nullopt, 1}, x, jnp::zeros<std::int32_t>({3, 2}));
  } catch (jaxcc::Error const& e) {
    what = e.what();
  }
  REQUIRE(what.find("Gather op requires operand batching dimensions and indices batching dimensions to have the "
                    "same shape, got (2,) and (3,).") != std::string::npos);
}

}  // namespace test_vmap_indexing
