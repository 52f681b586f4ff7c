// numpy indexing (core/index.hpp's index kinds, numpy/indexing.hpp's
// reading of them): `x[i]`, `x(i, jaxcc::all, jaxcc::slice(...),
// jaxcc::newaxis, idx)` and `x.at(...)` with the same indices. Values and
// gradients are JAX's (tests/golden/indexing_cases.py; each case is named
// by its Python spelling, written beside its C++ form here): basic and
// advanced indexing, negative steps, new axes, where the broadcast index
// axes go, clamping on reads and dropping on updates, repeated positions.
// Then vmap against a loop, jit against eager, derivatives to second
// order, views, and the errors.
#include "catch.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"

namespace test_index {

namespace jnp = jaxcc::numpy;
using jaxcc::all;
using jaxcc::Array;
using jaxcc::newaxis;
using jaxcc::none;
using jaxcc::Shape;
using jaxcc::slice;
using jaxcc_test::message_of;

namespace {

struct Golden {
  std::string what, name;
  Shape shape;
  std::vector<double> values;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const all_cases = {
#include "golden/indexing_cases.inc"
  };
  return all_cases;
}

/// JAX's `what` ("value", "grad_x", "grad_v") for case `name`.
Golden const& expected(std::string const& what, std::string const& name) {
  for (auto const& g : golden())
    if (g.what == what && g.name == name) return g;
  FAIL("no golden " << what << " for " << name);
  return golden().front();
}

/// "" when `got` has JAX's shape and values (within 1e-6), else what differs.
std::string differences(Golden const& g, Array<float> const& got) {
  if (!(got.shape() == g.shape)) return "shape " + jaxcc::to_string(got.shape()) + " vs " + jaxcc::to_string(g.shape);
  return jaxcc_test::mismatches<float>(jaxcc_test::as_doubles(got), g.values, 1e-6);
}

Array<int> idx(std::initializer_list<int> v) { return jnp::array(v); }

/// The (2, 3, 4) input, as the generator makes it.
Array<float> input() { return jnp::arange<float>(24).reshape({2, 3, 4}) * 1.5f - 7.0f; }

/// w[i] = 1 + (i % 5): the gradient cases' weights.
Array<float> weights(Shape const& shape) {
  std::vector<float> w(static_cast<std::size_t>(shape.numel()));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 1.0f + static_cast<float>(i % 5);
  return jnp::array(w, shape);
}

/// values(shape)[i] = 0.75 i - 3.1: the updates' array values.
Array<float> update_values(Shape const& shape) {
  return jnp::arange<float>(shape.numel()).reshape(shape) * 0.75f - 3.1f;
}

using Read = std::function<Array<float>(Array<float> const&)>;
std::vector<std::pair<std::string, Read>> const& reads() {
  static std::vector<std::pair<std::string, Read>> const cases = {
      {"x[1]", [](auto const& x) { return x[1]; }},
      {"x[-1, 2]", [](auto const& x) { return x(-1, 2); }},
      {"x[:, 1:3]", [](auto const& x) { return x(all, slice(1, 3)); }},
      {"x[:, :, ::-1]", [](auto const& x) { return x(all, all, slice(none, none, -1)); }},
      {"x[::-1, 2::-2, 1]", [](auto const& x) { return x(slice(none, none, -1), slice(2, none, -2), 1); }},
      {"x[None, 0, :, None]", [](auto const& x) { return x(newaxis, 0, all, newaxis); }},
      {"x[-5:2:1]", [](auto const& x) { return x(slice(-5, 2, 1)); }},
      {"x[:, ::2, -3::2]", [](auto const& x) { return x(all, slice(none, none, 2), slice(-3, none, 2)); }},
      {"x[:, 3:1]", [](auto const& x) { return x(all, slice(3, 1)); }},
      {"x[7]", [](auto const& x) { return x[7]; }},
      {"x[[1, 0]]", [](auto const& x) { return x[idx({1, 0})]; }},
      {"x[:, [2, 0, 2]]", [](auto const& x) { return x(all, idx({2, 0, 2})); }},
      {"x[:, [0, 2], [1, 3]]", [](auto const& x) { return x(all, idx({0, 2}), idx({1, 3})); }},
      {"x[[0, 1], :, [1, 3]]", [](auto const& x) { return x(idx({0, 1}), all, idx({1, 3})); }},
      {"x[0, :, [1, 2]]", [](auto const& x) { return x(0, all, idx({1, 2})); }},
      {"x[[[0], [1]], [0, 2]]", [](auto const& x) { return x(jnp::array({{0}, {1}}), idx({0, 2})); }},
      {"x[:, [-1, 5]]", [](auto const& x) { return x(all, idx({-1, 5})); }},
      {"x[1:, None, [2, 0]]", [](auto const& x) { return x(slice(1, none), newaxis, idx({2, 0})); }},
      {"x[[1, 0], None, 1::-1]", [](auto const& x) { return x(idx({1, 0}), newaxis, slice(1, none, -1)); }},
  };
  return cases;
}

using Update = std::function<Array<float>(Array<float> const&, Array<float> const&)>;
struct UpdateCase {
  std::string name;
  Update f;
  std::optional<Shape> value_shape;  // the shape of v, for updates that take an array
};
std::vector<UpdateCase> const& updates() {
  static std::vector<UpdateCase> const cases = {
      {"x.at[1, 2].set(9)", [](auto const& x, auto const&) { return x.at(1, 2).set(9.0f); }, {}},
      {"x.at[:, 1].add(10)", [](auto const& x, auto const&) { return x.at(all, 1).add(10.0f); }, {}},
      {"x.at[[0, 0, 1], 2].set(v)", [](auto const& x, auto const& v) { return x.at(idx({0, 0, 1}), 2).set(v); }, Shape{3, 4}},
      {"x.at[:, [0, 2, 0]].add(v)", [](auto const& x, auto const& v) { return x.at(all, idx({0, 2, 0})).add(v); },
       Shape{2, 3, 4}},
      {"x.at[:, :, ::2].multiply(2)",
       [](auto const& x, auto const&) { return x.at(all, all, slice(none, none, 2)).multiply(2.0f); }, {}},
      {"x.at[[1, 5]].set(0)", [](auto const& x, auto const&) { return x.at(idx({1, 5})).set(0.0f); }, {}},
      {"x.at[0, [2, 1]].max(v)", [](auto const& x, auto const& v) { return x.at(0, idx({2, 1})).max(v); }, Shape{2, 4}},
      {"x.at[:, [1, -1], [0, 3]].min(-1)",
       [](auto const& x, auto const&) { return x.at(all, idx({1, -1}), idx({0, 3})).min(-1.0f); }, {}},
      {"x.at[::-1, 0].set(v)", [](auto const& x, auto const& v) { return x.at(slice(none, none, -1), 0).set(v); },
       Shape{2, 4}},
      {"x.at[:, [0, 0]].multiply(v)", [](auto const& x, auto const& v) { return x.at(all, idx({0, 0})).multiply(v); },
       Shape{2, 2, 4}},
  };
  return cases;
}

}  // namespace

TEST_CASE("indexing reads match JAX's, values and gradients", "[index]") {
  auto const x = input();
  for (auto const& [name, f] : reads()) {
    INFO(name);
    auto const& value = expected("value", name);
    CHECK(differences(value, f(x)) == "");
    if (name == "x[:, [-1, 5]]") continue;  // no gradient golden: see the generator
    auto const w = weights(value.shape);
    auto const read = f;  // not a structured binding: clang 14 cannot capture one
    CHECK(differences(expected("grad_x", name),
                      jaxcc::grad([&](Array<float> const& a) { return jnp::sum(w * read(a)); })(x)) == "");
  }
}

TEST_CASE("indexed updates match JAX's, values and gradients", "[index]") {
  auto const x = input();
  for (auto const& c : updates()) {
    auto const v = c.value_shape ? update_values(*c.value_shape) : jnp::zeros<float>({1});
    INFO(c.name);
    auto const& value = expected("value", c.name);
    CHECK(differences(value, c.f(x, v)) == "");
    if (c.name.find("multiply(v)") != std::string::npos) {
      // As JAX's: a multiply at repeated positions has no derivative.
      CHECK(message_of([&] { jaxcc::grad([&](Array<float> const& a) { return jnp::sum(c.f(a, v)); })(x); }) ==
            "scatter_mul gradients are only implemented if `unique_indices=True`");
      continue;
    }
    auto const w = weights(value.shape);
    CHECK(differences(expected("grad_x", c.name),
                      jaxcc::grad([&](Array<float> const& a) { return jnp::sum(w * c.f(a, v)); })(x)) == "");
    if (c.value_shape)
      CHECK(differences(expected("grad_v", c.name),
                        jaxcc::grad([&](Array<float> const& u) { return jnp::sum(w * c.f(x, u)); })(v)) == "");
  }
}

TEST_CASE("indexing under vmap, jit and second derivatives", "[index][vmap][jit][grad]") {
  auto const xs = jaxcc_test::smooth({3, 4, 5});
  auto const picks = jnp::array({{2, 0}, {1, 1}, {4, 3}});
  // Mapped index arrays, mapped arrays, or both.
  auto const read = [](Array<double> const& a, Array<int> const& i) { return a(slice(none, none, -1), i); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(read, jaxcc::in_axes(0, 0), xs, picks));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(read, jaxcc::in_axes(0, none), xs, jnp::array({3, -1})));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(read, jaxcc::in_axes(none, 0), jaxcc_test::example(xs, 0, 1), picks));
  auto const write = [](Array<double> const& a, Array<int> const& i) {
    return a.at(all, i).set(jnp::ones<double>({4, 2})).at(1, i).max(0.25);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(write, jaxcc::in_axes(0, 0), xs, picks));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(write, jaxcc::in_axes(0, none), xs, jnp::array({3, 3})));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(write, jaxcc_test::example(xs, 0, 0), jnp::array({4, 0})));

  // scatter_apply_p's own batching rule, with the mapped axes last (x.at(...) maps them first).
  auto const apply_max = [](Array<double> const& a, Array<int> const& at, Array<double> const& u) {
    return jaxcc::detail::bind<jaxcc::primitives::scatter_apply_p>({jaxcc::primitives::scatter_p::Kind::max}, a, at, u);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(apply_max, jaxcc::in_axes(1, 1, 1), jaxcc_test::smooth({5, 3}),
                                             jnp::array({{0, 4, 9}, {4, -1, 0}}), jaxcc_test::smooth({2, 3}, 3.0)));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(apply_max, jaxcc::in_axes(1, none, 0), jaxcc_test::smooth({5, 3}),
                                             jnp::array({2, 2}), jaxcc_test::smooth({3, 2}, 3.0)));

  auto const x = jaxcc_test::example(xs, 0, 2);
  auto const f = [](Array<double> const& a) {
    auto const b = a(slice(1, none), jnp::array({4, 0, 2}));
    return jnp::sin(a.at(jnp::array({0, 2}), slice(none, none, 2)).add(b(slice(none, 2), all)) * 2.0);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{x}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, x));
}

TEST_CASE("basic indexing returns views; an index with arrays copies", "[index]") {
  auto const x = jnp::arange<float>(24).reshape({2, 3, 4});
  CHECK(jaxcc_test::shares_buffer(x[1], x));
  CHECK(jaxcc_test::shares_buffer(x(all, slice(1, none, 2), newaxis, 3), x));
  CHECK_FALSE(jaxcc_test::shares_buffer(x(all, jnp::array({0, 1})), x));
  // By hand: x[1, 2, 3] is the last element, 23; x[:, -1, ::-3] is [[11, 8], [23, 20]].
  CHECK(x(1, 2, 3).item() == 23.0f);
  CHECK(x(all, -1, slice(none, none, -3)).to_vector() == std::vector<float>{11, 8, 23, 20});
}

TEST_CASE("indexing errors", "[index][errors]") {
  auto const x = jnp::ones<float>({2, 3});
  CHECK(message_of([&] { x(0, 1, 2); }) == "Too many indices: array is 2-dimensional, but 3 were indexed");
  CHECK(message_of([&] { x.at(all, all, jnp::array({0})).set(1.0f); }) ==
        "Too many indices: array is 2-dimensional, but 3 were indexed");
  CHECK(message_of([&] { x(all, slice(0, 2, 0)); }) == "slice step cannot be zero");
  CHECK(message_of([&] { jnp::ones<float>({0, 3})(jnp::array({0})); }) == "index is out of bounds for axis 0 with size 0");
  CHECK(message_of([&] { x(jnp::array({0, 1}), jnp::array({0, 1, 2})); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]");
  // scatter_apply_p's own check, which `.at(...)` keeps from users.
  CHECK(message_of([&] {
          jaxcc::detail::bind<jaxcc::primitives::scatter_apply_p>({jaxcc::primitives::scatter_p::Kind::set}, x,
                                                                  jnp::array({0}), jnp::ones<float>({1}));
        }) == "scatter_apply: takes a 1-d operand and 1-d positions and updates of one length, got (2, 3), (1,) and (1,)");
}

}  // namespace test_index
