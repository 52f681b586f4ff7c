// jaxcc::vmap itself: in_axes/out_axes handling, composition with the
// autodiff transforms, collectives over a named axis, and JAX's errors. The
// per-primitive batching rules are tested in test_vmap_<area>.cpp.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <map>
#include <string>
#include <tuple>

#include "support.hpp"

namespace test_vmap {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::in_axes;
using jaxcc::none;
using jaxcc::out_axes;
using jaxcc::testing::AllClose;
using jaxcc_test::message_of;

namespace {

// JAX's vmap tutorial: predict((w, b), x) = w·x + b and its squared loss.
Array<float> const w = jnp::array<float>({{1, 2}, {3, 4}});
Array<float> const b = jnp::array<float>({0.5f, -0.5f});
Array<float> const xs = jnp::array<float>({{1, 1}, {2, 0}, {0, 3}});
Array<float> const ys = jnp::array<float>({{1, 1}, {0, 0}, {1, 1}});

auto const predict = [](auto const& params, auto const& x) {
  auto const& [w, b] = params;
  return Array<float>(jnp::dot(w, x) + b);
};
auto const loss_fn = [](auto const& params, auto const& x, auto const& y) {
  auto const d = predict(params, x) - y;
  return jnp::sum(d * d);
};

}  // namespace

TEST_CASE("vmap: the seed's batched predict prints what JAX prints") {
  auto const batched = jaxcc::vmap(predict, in_axes(none, 0));
  auto const out = batched(std::tuple{w, b}, xs);
  // w·(1,1) = (3,7), w·(2,0) = (2,6), w·(0,3) = (6,12); plus b = (0.5,-0.5).
  std::ostringstream os;
  os << out;
  REQUIRE(os.str() ==
          "Array([[ 3.5,  6.5],\n"
          "       [ 2.5,  5.5],\n"
          "       [ 6.5, 11.5]], dtype=float32)");
}

TEST_CASE("vmap(grad): the seed's per-example gradients, worked by hand") {
  auto const per_example_grad = jaxcc::vmap(jaxcc::grad(loss_fn), in_axes(none, 0, 0));
  auto const [dw, db] = per_example_grad(std::tuple{w, b}, xs, ys);
  REQUIRE(dw.shape() == jaxcc::Shape{3, 2, 2});
  REQUIRE(db.shape() == jaxcc::Shape{3, 2});
  // d_i = w x_i + b - y_i: (2.5, 5.5), (2.5, 5.5), (5.5, 10.5);
  // dL/dw = 2 d_i x_iᵀ, dL/db = 2 d_i.
  REQUIRE_THAT(dw, AllClose(jnp::array<float>({{{5, 5}, {11, 11}}, {{10, 0}, {22, 0}}, {{0, 33}, {0, 63}}})));
  REQUIRE_THAT(db, AllClose(jnp::array<float>({{5, 11}, {5, 11}, {11, 21}})));
}

TEST_CASE("vmap: nested batching makes a matrix product (JAX testNestedBatchingMatMat)") {
  auto const matvec = jaxcc::vmap([](auto const& a, auto const& v) { return jnp::vdot(a, v); }, in_axes(0, none));
  auto const matmat = jaxcc::vmap(matvec, in_axes(none, 1), out_axes(1));
  auto const A = jnp::array<float>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {1, -1, 2}});
  auto const B = jnp::array<float>({{1, 0}, {2, 1}, {-1, 3}});
  // A @ B by hand.
  auto const expected = jnp::array<float>({{2, 11}, {8, 23}, {14, 35}, {-3, 5}});
  REQUIRE_THAT(matmat(A, B), AllClose(expected));
  // One batched dot_general, not a loop (JAX: jaxpr.eqns has length 1).
  std::ostringstream os;
  os << jaxcc::make_jaxpr(matmat)(A, B);
  auto const text = os.str();
  REQUIRE(text.find("dot_general") != std::string::npos);
  REQUIRE(text.find("dot_general") == text.rfind("dot_general"));
}

TEST_CASE("vmap: negative in_axes and out_axes (JAX testNegativeAxes)") {
  auto const x = jnp::arange<float>(60).reshape({3, 4, 5});
  auto const sum = [](auto const& v) { return jnp::sum(v); };
  // Reference sums by plain loops over x[i][j][k] = 20 i + 5 j + k.
  auto reference = [](int keep) {
    int const n = keep == 0 ? 3 : keep == 1 ? 4 : 5;
    std::vector<float> out(static_cast<std::size_t>(n), 0.0f);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 5; ++k) out[static_cast<std::size_t>(keep == 0 ? i : keep == 1 ? j : k)] += 20.0f * i + 5.0f * j + k;
    return jnp::array<float>(out, {n});
  };
  REQUIRE_THAT(jaxcc::vmap(sum, in_axes(-3))(x), AllClose(reference(0)));
  REQUIRE_THAT(jaxcc::vmap(sum, in_axes(-2))(x), AllClose(reference(1)));
  REQUIRE_THAT(jaxcc::vmap(sum, in_axes(-1))(x), AllClose(reference(2)));
  REQUIRE(message_of([&] { jaxcc::vmap(sum, in_axes(-4))(x); }) ==
          "vmap was requested to map its argument along axis -4, which implies that its rank should be at least 4, "
          "but is only 3 (its shape is (3, 4, 5))");

  auto const id = [](auto const& v) { return v; };
  REQUIRE_THAT(jaxcc::vmap(id, in_axes(0), out_axes(-3))(x), AllClose(x));
  REQUIRE_THAT(jaxcc::vmap(id, in_axes(0), out_axes(-2))(x), AllClose(jnp::transpose(x, {1, 0, 2})));
  REQUIRE_THAT(jaxcc::vmap(id, in_axes(0), out_axes(-1))(x), AllClose(jnp::transpose(x, {1, 2, 0})));
  REQUIRE(message_of([&] { jaxcc::vmap(id, in_axes(0), out_axes(-4))(x); }).find("axis -4 is out of bounds") !=
          std::string::npos);

  // An unmapped output with an int out_axis is broadcast along it.
  auto const pair = [](auto const& a, auto const& c) { return std::tuple{a, c}; };
  auto const seven = jnp::full<float>({}, 7.0f);
  auto const [first, second] = jaxcc::vmap(pair, in_axes(0, none), out_axes(0, -1))(jnp::arange<float>(5), seven);
  REQUIRE_THAT(first, AllClose(jnp::arange<float>(5)));
  REQUIRE_THAT(second, AllClose(jnp::full<float>({5}, 7.0f)));
  REQUIRE(message_of([&] { jaxcc::vmap(pair, in_axes(0, none), out_axes(0, -2))(jnp::arange<float>(5), seven); })
              .find("axis -2 is out of bounds") != std::string::npos);
}

TEST_CASE("vmap: structured in_axes are pytree prefixes (JAX's ((0, (1, 2)),))") {
  // Batch size 6 at a different position in each leaf.
  auto const x = jnp::ones<float>({6, 2, 3});
  auto const y = jnp::ones<float>({3, 6, 4});
  auto const z = jnp::ones<float>({4, 5, 6});
  auto const foo = [](auto const& tree) {
    auto const& [a, rest] = tree;
    auto const& [c, d] = rest;
    return jnp::dot(a, jnp::dot(c, d));
  };
  auto const out = jaxcc::vmap(foo, in_axes(std::tuple{0, std::tuple{1, 2}}))(std::tuple{x, std::tuple{y, z}});
  REQUIRE(out.shape() == jaxcc::Shape{6, 2, 5});
  // Every entry sums 3 * 4 products of ones.
  REQUIRE_THAT(out, AllClose(jnp::full<float>({6, 2, 5}, 12.0f)));

  auto const foo_dict = [](auto const& tree) {
    auto const& [a, dict] = tree;
    return jnp::dot(a, jnp::dot(dict.at("a"), dict.at("b")));
  };
  std::map<std::string, Array<float>> const dict{{"a", y}, {"b", z}};
  std::map<std::string, int> const dict_axes{{"a", 1}, {"b", 2}};
  auto const out_dict = jaxcc::vmap(foo_dict, in_axes(std::tuple{0, dict_axes}))(std::tuple{x, dict});
  REQUIRE_THAT(out_dict, AllClose(jnp::full<float>({6, 2, 5}, 12.0f)));

  // An in_axes tree that is not a prefix of the argument.
  auto const msg = message_of([&] { jaxcc::vmap(foo, in_axes(std::tuple{0, std::tuple{1, 2, 0}}))(std::tuple{x, std::tuple{y, z}}); });
  REQUIRE(msg.find("vmap in_axes specification must be a tree prefix of the corresponding value") != std::string::npos);
  REQUIRE(msg.find("vmap in_axes[0][1]") != std::string::npos);
}

TEST_CASE("vmap: out_axes none for unmapped outputs, and its errors") {
  auto const f = [](auto const& a, auto const& c) { return std::tuple{Array<float>(a * 2.0f), Array<float>(c + 1.0f)}; };
  auto const [mapped, unmapped] = jaxcc::vmap(f, in_axes(0, none), out_axes(0, none))(jnp::arange<float>(4), jnp::ones<float>({2}));
  REQUIRE_THAT(mapped, AllClose(jnp::array<float>({0, 2, 4, 6})));
  REQUIRE_THAT(unmapped, AllClose(jnp::array<float>({2, 2})));

  auto const id = [](auto const& v) { return v; };
  auto const v = jnp::array<float>({1, 2});
  REQUIRE(message_of([&] { jaxcc::vmap(id, out_axes(none), jaxcc::axis_name("foo"))(v); }) ==
          "vmap has mapped output (axis_name=foo) but out_axes is None");
  REQUIRE(message_of([&] { jaxcc::vmap(id, out_axes(none))(v); }).find("at vmap out_axes") != std::string::npos);
  REQUIRE(message_of([&] { jaxcc::vmap(id, in_axes(0), out_axes(std::tuple{2, 3}))(v); })
              .find("vmap out_axes specification must be a tree prefix of the corresponding value") != std::string::npos);
}

TEST_CASE("vmap: inconsistent sizes and nothing mapped, worded as JAX") {
  auto const X = jnp::ones<float>({10, 4});
  auto const U = jnp::ones<float>({10, 2});
  auto const h = [](auto const& a, auto const& c) { return Array<float>(jnp::sum(a) + jnp::sum(c)); };
  REQUIRE(message_of([&] { jaxcc::vmap(h, in_axes(0, 1))(X, U); }) ==
          "vmap got inconsistent sizes for array axes to be mapped:\n"
          "  * one axis had size 10: axis 0 of args[0] of type float32[10,4];\n"
          "  * one axis had size 2: axis 1 of args[1] of type float32[10,2]");
  auto const h3 = [](auto const& a, auto const&, auto const&) { return a; };
  REQUIRE(message_of([&] { jaxcc::vmap(h3, in_axes(0, 1, 0))(X, U, X); }) ==
          "vmap got inconsistent sizes for array axes to be mapped:\n"
          "  * most axes (2 of them) had size 10, e.g. axis 0 of args[0] of type float32[10,4];\n"
          "  * one axis had size 2: axis 1 of args[1] of type float32[10,2]");
  auto const hv = [](auto const& a, auto const& us) { return Array<float>(jnp::sum(a) + jnp::sum(us[0])); };
  REQUIRE(message_of([&] { jaxcc::vmap(hv, in_axes(0, 1))(X, std::vector{U, U}); }) ==
          "vmap got inconsistent sizes for array axes to be mapped:\n"
          "  * most axes (2 of them) had size 2, e.g. axis 1 of args[1][0] of type float32[10,2];\n"
          "  * one axis had size 10: axis 0 of args[0] of type float32[10,4]");

  auto const id = [](auto const& v) { return v; };
  REQUIRE(message_of([&] { jaxcc::vmap(id, in_axes(none))(jnp::array<float>({1, 2})); }) ==
          "vmap must have at least one non-None value in in_axes or axis_size must be specified");
  REQUIRE(message_of([&] { jaxcc::vmap(id, in_axes(1))(jnp::array<float>({1, 2})); }) ==
          "vmap was requested to map its argument along axis 1, which implies that its rank should be at least 2, but "
          "is only 1 (its shape is (2,))");
  // axis_size stands in when nothing is mapped; it must agree otherwise.
  auto const tiled = jaxcc::vmap(id, in_axes(none), jaxcc::axis_size(3))(jnp::array<float>({1, 2}));
  REQUIRE_THAT(tiled, AllClose(jnp::array<float>({{1, 2}, {1, 2}, {1, 2}})));
  REQUIRE(message_of([&] { jaxcc::vmap(id, jaxcc::axis_size(3))(jnp::array<float>({1, 2})); }) ==
          "vmap got inconsistent sizes for array axes to be mapped:\n"
          "  * the `axis_size` argument was 3;\n"
          "  * one axis had size 2: axis 0 of args[0] of type float32[2]");
}

TEST_CASE("vmap: collectives over the named axis") {
  SECTION("x - pmean(x) centers each column (JAX's vmap docs example)") {
    auto const x = jnp::array<float>({{1, 2}, {3, 6}, {5, 10}});
    auto const centered = jaxcc::vmap([](auto const& v) { return Array<float>(v - lax::pmean(v, "i")); },
                                      jaxcc::axis_name("i"))(x);
    // Column means (3, 6).
    REQUIRE_THAT(centered, AllClose(jnp::array<float>({{-2, -4}, {0, 0}, {2, 4}})));
  }
  SECTION("x - axis_index is zero (JAX testAxisIndex)") {
    auto const x = jnp::arange<std::int32_t>(10);
    auto const out = jaxcc::vmap([](auto const& v) { return Array<std::int32_t>(v - lax::axis_index("i")); },
                                 jaxcc::axis_name("i"))(x);
    REQUIRE_THAT(out, AllClose(jnp::zeros<std::int32_t>({10})));
  }
  SECTION("all_gather to an unmapped output is x.T (JAX testAllGatherToUnmapped)") {
    auto const x = jnp::arange<std::int32_t>(15).reshape({3, 5});
    auto const out = jaxcc::vmap([](auto const& v) { return lax::all_gather(v, "i"); }, jaxcc::axis_name("i"),
                                 in_axes(1), out_axes(none))(x);
    REQUIRE_THAT(out, AllClose(jnp::transpose(x)));
  }
  SECTION("nested: all_gather over the outer and inner axes (JAX testBatchedAllGather)") {
    auto const x = jnp::arange<std::int32_t>(15).reshape({3, 5});
    auto const f = [](auto const& v) { return lax::all_gather(v, "i"); };
    auto const inner_i = jaxcc::vmap(jaxcc::vmap(f, jaxcc::axis_name("i"), out_axes(none)), jaxcc::axis_name("j"))(x);
    REQUIRE_THAT(inner_i, AllClose(x));
    auto const outer_i = jaxcc::vmap(jaxcc::vmap(f, jaxcc::axis_name("j")), jaxcc::axis_name("i"), out_axes(none))(x);
    REQUIRE_THAT(outer_i, AllClose(jnp::transpose(x)));
  }
  SECTION("psum, pmax, pmin of mapped and unmapped values") {
    auto const x = jnp::array<float>({3, -1, 4});
    auto const c = jnp::array<float>({2, 2});
    auto const f = [](auto const& v, auto const& u) {
      return std::tuple{lax::psum(v, "i"), lax::pmax(v, "i"), lax::pmin(v, "i"), lax::psum(u, "i")};
    };
    auto const [s, mx, mn, su] = jaxcc::vmap(f, in_axes(0, none), jaxcc::axis_name("i"), out_axes(none))(x, c);
    REQUIRE_THAT(s, AllClose(jnp::full<float>({}, 6.0f)));
    REQUIRE_THAT(mx, AllClose(jnp::full<float>({}, 4.0f)));
    REQUIRE_THAT(mn, AllClose(jnp::full<float>({}, -1.0f)));
    // An unmapped value summed over an axis of 3 is 3 times itself.
    REQUIRE_THAT(su, AllClose(jnp::array<float>({6, 6})));
  }
  SECTION("grad through psum: grad(-psum(x)) is -1 everywhere (JAX testGradOfPsum)") {
    auto const f = jaxcc::vmap(jaxcc::grad([](auto const& v) { return Array<float>(-lax::psum(v, "i")); }),
                               out_axes(none), jaxcc::axis_name("i"));
    // psum's transpose is psum: each of the 5 elements' cotangent -1 reaches
    // every element's input, so each gradient is -5, the same for all.
    REQUIRE_THAT(f(jnp::ones<float>({5})), AllClose(jnp::full<float>({}, -5.0f)));
  }
  SECTION("all_gather's axis must fit the gathered rank") {
    auto const f = [](auto const& v) { return lax::all_gather(v, "i", 2); };
    REQUIRE(message_of([&] { jaxcc::vmap(f, jaxcc::axis_name("i"))(jnp::ones<float>({3, 4})); }) ==
            "all_gather: axis 2 is out of bounds for array of dimension 2");
  }
  SECTION("an unbound axis name") {
    REQUIRE(message_of([] { lax::psum(jnp::ones<float>({2}), "k"); }).rfind("unbound axis name: k", 0) == 0);
  }
}

TEST_CASE("vmap composes with itself and with the autodiff transforms") {
  auto const f = [](auto const& v) { return jnp::sum(jnp::sin(v) * v); };
  auto const x = jnp::array<float>({{0.5f, -1.0f, 2.0f}, {1.5f, 0.25f, -0.75f}});
  // d/dv sum(sin v * v) = cos v * v + sin v, elementwise.
  auto expected_grad = [](float v) { return std::cos(v) * v + std::sin(v); };
  std::vector<float> grads;
  for (float v : {0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f}) grads.push_back(expected_grad(v));
  auto const expected = jnp::array<float>(grads, {2, 3});

  SECTION("vmap(grad)") { REQUIRE_THAT(jaxcc::vmap(jaxcc::grad(f))(x), AllClose(expected, 1e-5, 1e-6)); }
  SECTION("vmap(vmap(grad)) over both axes of a matrix, elementwise") {
    auto const g = jaxcc::grad([](auto const& s) { return Array<float>(jnp::sin(s) * s); });
    REQUIRE_THAT(jaxcc::vmap(jaxcc::vmap(g))(x), AllClose(expected, 1e-5, 1e-6));
    REQUIRE_THAT(jaxcc::vmap(jaxcc::vmap(g), in_axes(1), out_axes(1))(x), AllClose(expected, 1e-5, 1e-6));
  }
  SECTION("grad of a function that calls vmap") {
    auto const total = [&](auto const& m) { return jnp::sum(jaxcc::vmap(f)(m)); };
    REQUIRE_THAT(jaxcc::grad(total)(x), AllClose(expected, 1e-5, 1e-6));
  }
  SECTION("vmap(jvp) and vmap of a vjp function") {
    auto const tangents = jnp::ones<float>({2, 3});
    auto const jvp_row = [&](auto const& p, auto const& t) { return std::get<1>(jaxcc::jvp(f, std::tuple{p}, std::tuple{t})); };
    // The directional derivative along ones is the row sum of the gradient.
    REQUIRE_THAT(jaxcc::vmap(jvp_row)(x, tangents), AllClose(jnp::sum(expected, 1), 1e-5, 1e-6));
    auto const vjp_row = [&](auto const& p) {
      auto const [out, pullback] = jaxcc::vjp(f, p);
      return std::get<0>(pullback(jnp::ones_like(out)));
    };
    REQUIRE_THAT(jaxcc::vmap(vjp_row)(x), AllClose(expected, 1e-5, 1e-6));
  }
  SECTION("a closure over a traced value of an enclosing grad") {
    auto const scale = [](auto const& s) {
      auto const row = jaxcc::vmap([&](auto const& r) { return Array<float>(r * s); });
      return jnp::sum(row(jnp::array<float>({{1, 2}, {3, 4}})));
    };
    // d/ds sum(m * s) = sum(m) = 10.
    REQUIRE_THAT(jaxcc::grad(scale)(jnp::full<float>({}, 2.0f)), AllClose(jnp::full<float>({}, 10.0f)));
  }
}

}  // namespace test_vmap
