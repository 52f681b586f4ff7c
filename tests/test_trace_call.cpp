// Every transform takes every kind of argument JAX takes (transforms/
// trace_call.hpp turns each into the arrays it traces): an Array, a fused
// expression, std::tuple, std::pair, std::array, std::vector, std::map,
// std::optional, a JAXCC_PYTREE struct, a struct inside a tuple and a vector
// of structs. Each cell compares the transform with the computation worked
// out by hand: the function is the sum of the squares of every element, so
// its value, its gradient (2x per element) and its per-example values are
// known in closed form from the values the arguments are made of.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace test_trace_call {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
namespace tree = jaxcc::tree;
using jaxcc::Array;
using jaxcc::P;

constexpr std::int64_t rows = 4, cols = 2;

/// Element (r, c) of leaf k.
float value_at(std::size_t k, std::int64_t r, std::int64_t c) {
  return 0.1f * static_cast<float>(k + 1) + 0.05f * static_cast<float>(2 * r + c);
}
/// Leaf k: a (rows, cols) array of value_at.
Array<float> leaf(std::size_t k) {
  std::vector<float> v;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) v.push_back(value_at(k, r, c));
  return jnp::array(v, {rows, cols});
}
/// Σ of the squares of leaves 0..n-1, over the rows in [lo, hi).
float squares(std::size_t n, std::int64_t lo = 0, std::int64_t hi = rows) {
  float total = 0;
  for (std::size_t k = 0; k < n; ++k)
    for (std::int64_t r = lo; r < hi; ++r)
      for (std::int64_t c = 0; c < cols; ++c) total += value_at(k, r, c) * value_at(k, r, c);
  return total;
}

struct Params {
  Array<float> w, b;
};
JAXCC_PYTREE(Params, w, b)

// ---- the argument kinds: make() builds one whose leaves are leaf(0), leaf(1), ... in flatten order ----

struct OneArray {
  static constexpr std::size_t leaves = 1;
  static Array<float> make() { return leaf(0); }
};
struct Expression {
  static constexpr std::size_t leaves = 1;
  static auto make() { return leaf(0) * 1.0f; }  // a fused expression, not an Array
};
struct Tuple {
  static constexpr std::size_t leaves = 2;
  static auto make() { return std::tuple{leaf(0), leaf(1)}; }
};
struct Pair {
  static constexpr std::size_t leaves = 2;
  static auto make() { return std::pair{leaf(0), leaf(1)}; }
};
struct StdArray {
  static constexpr std::size_t leaves = 3;
  static auto make() { return std::array<Array<float>, 3>{leaf(0), leaf(1), leaf(2)}; }
};
struct Vector {
  static constexpr std::size_t leaves = 2;
  static auto make() { return std::vector<Array<float>>{leaf(0), leaf(1)}; }
};
struct Map {
  static constexpr std::size_t leaves = 2;
  static auto make() { return std::map<std::string, Array<float>>{{"a", leaf(0)}, {"b", leaf(1)}}; }
};
struct Optional {
  static constexpr std::size_t leaves = 1;
  static auto make() { return std::optional<Array<float>>{leaf(0)}; }
};
struct Struct {
  static constexpr std::size_t leaves = 2;
  static auto make() { return Params{leaf(0), leaf(1)}; }
};
struct StructInTuple {
  static constexpr std::size_t leaves = 3;
  static auto make() { return std::tuple{Params{leaf(0), leaf(1)}, leaf(2)}; }
};
struct VectorOfStructs {
  static constexpr std::size_t leaves = 4;
  static auto make() { return std::vector<Params>{{leaf(0), leaf(1)}, {leaf(2), leaf(3)}}; }
};

using Kinds = std::tuple<OneArray, Expression, Tuple, Pair, StdArray, Vector, Map, Optional, Struct, StructInTuple,
                         VectorOfStructs>;

/// Σ over every element of every leaf of its square.
auto const energy = [](auto const& t) {
  return tree::reduce([](Array<float> acc, Array<float> const& x) { return Array<float>(acc + jnp::sum(x * x)); }, t,
                      jnp::zeros<float>({}));
};

/// Each leaf of a gradient tree is 2 leaf(k).
template <class Tree>
void require_twice_the_leaves(Tree const& g, std::size_t n, float scale = 1.0f) {
  auto const got = tree::leaves(g);
  REQUIRE(got.size() == n);
  for (std::size_t k = 0; k < n; ++k) REQUIRE_THAT(got[k], jaxcc::testing::AllClose(Array<float>(leaf(k) * (2.0f * scale))));
}

/// Σ_k Σ_c leaf_k[r, c]² for each row r.
std::vector<float> per_row(std::size_t n) {
  std::vector<float> out;
  for (std::int64_t r = 0; r < rows; ++r) out.push_back(squares(n, r, r + 1));
  return out;
}
void require_per_row(Array<float> const& got, std::size_t n, float scale = 1.0f) {
  auto const want = per_row(n);
  auto const v = got.to_vector();
  REQUIRE(v.size() == want.size());
  for (std::size_t r = 0; r < v.size(); ++r) REQUIRE(v[r] == Catch::Approx(want[r] * scale).epsilon(1e-5));
}

TEMPLATE_LIST_TEST_CASE("the autodiff transforms take every kind of argument", "[arguments][grad]", Kinds) {
  auto const x = TestType::make();
  constexpr auto n = TestType::leaves;
  auto const total = Catch::Approx(squares(n)).epsilon(1e-5);

  SECTION("grad and value_and_grad") {
    require_twice_the_leaves(jaxcc::grad(energy)(x), n);
    auto const [value, g] = jaxcc::value_and_grad(energy)(x);
    REQUIRE(value.item() == total);
    require_twice_the_leaves(g, n);
  }
  SECTION("jvp along the arguments themselves: Σ 2x·x") {
    // make_tuple: std::tuple{x} of a tuple x would copy x, not wrap it.
    auto const [value, tangent] = jaxcc::jvp(energy, std::make_tuple(x), std::make_tuple(x));
    REQUIRE(value.item() == total);
    REQUIRE(tangent.item() == Catch::Approx(2 * squares(n)).epsilon(1e-5));
  }
  SECTION("vjp") {
    auto const [value, pullback] = jaxcc::vjp(energy, x);
    REQUIRE(value.item() == total);
    require_twice_the_leaves(std::get<0>(pullback(jnp::array(1.0f))), n);
  }
  SECTION("jacfwd and jacrev of a scalar function are its gradient") {
    require_twice_the_leaves(jaxcc::jacfwd(energy)(x), n);
    require_twice_the_leaves(jaxcc::jacrev(energy)(x), n);
  }
  SECTION("hessian: a tree of trees, 2I on each leaf's own block and zero across leaves") {
    // Where the outer tree has a struct, the inner trees come in a std::tuple
    // of its members: the flattened order is the same.
    auto const blocks = tree::leaves(jaxcc::hessian(energy)(x));
    REQUIRE(blocks.size() == n * n);
    auto const own_block = Array<float>(jnp::eye<float>(rows * cols).reshape({rows, cols, rows, cols}) * 2.0f);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        REQUIRE_THAT(blocks[i * n + j],
                     jaxcc::testing::AllClose(i == j ? own_block : jnp::zeros<float>({rows, cols, rows, cols})));
  }
  SECTION("checkpoint and custom_vjp") {
    require_twice_the_leaves(jaxcc::grad(jaxcc::checkpoint(energy))(x), n);
    // The user's rule says 3x instead of 2x, so the gradient shows it ran.
    auto const rule = jaxcc::custom_vjp(
        energy, [](auto const& t) { return std::pair{energy(t), t}; },
        [](auto const& t, Array<float> const& ct) {
          return std::make_tuple(tree::map([&](Array<float> const& l) { return Array<float>(l * (3.0f * ct)); }, t));
        });
    require_twice_the_leaves(jaxcc::grad(rule)(x), n, 1.5f);
  }
}

TEMPLATE_LIST_TEST_CASE("vmap, jit, shard_map and pmap take every kind of argument", "[arguments][vmap][jit]", Kinds) {
  auto const x = TestType::make();
  constexpr auto n = TestType::leaves;

  SECTION("vmap over axis 0, over axis -2, and unmapped beside a mapped array (a prefix of none)") {
    require_per_row(jaxcc::vmap(energy)(x), n);
    require_per_row(jaxcc::vmap(energy, jaxcc::in_axes(-2))(x), n);
    // x unmapped, scales mapped: scales[r] * energy(x) for each r.
    auto const scaled = [](auto const& t, Array<float> const& s) { return Array<float>(s * energy(t)); };
    auto const got = jaxcc::vmap(scaled, jaxcc::in_axes(jaxcc::none, 0))(x, jnp::array({1.f, 2.f, 3.f, 4.f})).to_vector();
    for (std::size_t r = 0; r < got.size(); ++r)
      REQUIRE(got[r] == Catch::Approx(static_cast<float>(r + 1) * squares(n)).epsilon(1e-5));
  }
  SECTION("vmap(grad): per-example gradients are 2x, row by row") {
    require_twice_the_leaves(jaxcc::vmap(jaxcc::grad(energy))(x), n);
  }
  SECTION("jit, and jit(grad)") {
    REQUIRE(jaxcc::jit(energy)(x).item() == Catch::Approx(squares(n)).epsilon(1e-5));
    require_twice_the_leaves(jaxcc::jit(jaxcc::grad(energy))(x), n);
  }
  SECTION("shard_map over the rows on 2 devices, psum of the parts; pmap over 4 devices") {
    auto const mesh = jaxcc::make_mesh({2}, {"x"});
    auto const total = jaxcc::shard_map([](auto const& t) { return lax::psum(energy(t), "x"); }, mesh,
                                        jaxcc::in_specs(P("x")), jaxcc::out_specs(P()))(x);
    REQUIRE(total.item() == Catch::Approx(squares(n)).epsilon(1e-5));
    // pmap: device r holds row r of every leaf; out (rows,) of per-row sums.
    auto const each = jaxcc::pmap([](auto const& t) { return energy(t); })(x);
    require_per_row(each, n);
  }
}

TEST_CASE("scalars where JAX takes them: unmapped by vmap, constants of jit and grad", "[arguments]") {
  auto const x = leaf(0);
  auto const scaled = [](Array<float> const& a, float s) { return Array<float>(jnp::sum(a * a) * s); };
  // vmap: the scalar unmapped, each row's squares times 3.
  require_per_row(jaxcc::vmap(scaled, jaxcc::in_axes(0, jaxcc::none))(x, 3.0f), 1, 3.0f);
  // jit: the same program for each value of the scalar.
  REQUIRE(jaxcc::jit(scaled)(x, 2.0f).item() == Catch::Approx(2 * squares(1)).epsilon(1e-5));
  REQUIRE(jaxcc::jit(scaled)(x, 0.5f).item() == Catch::Approx(0.5f * squares(1)).epsilon(1e-5));
  // grad with respect to the array, the scalar passed along: 2 s x.
  require_twice_the_leaves(std::make_tuple(jaxcc::grad(scaled)(x, 4.0f)), 1, 4.0f);
}

// Plain functions with declared parameter types, as well as generic lambdas.
Array<float> params_energy(Params const& p) { return energy(p); }
Array<float> scaled_params_energy(Params const& p, Array<float> const& s) { return Array<float>(s * energy(p)); }

TEST_CASE("transforms of functions with declared types: free functions, function objects", "[arguments]") {
  Params const p{leaf(0), leaf(1)};
  require_twice_the_leaves(jaxcc::grad(params_energy)(p), 2);
  require_per_row(jaxcc::vmap(params_energy)(p), 2);
  require_per_row(jaxcc::jit(jaxcc::vmap(params_energy))(p), 2);
  auto const got = jaxcc::vmap(scaled_params_energy, jaxcc::in_axes(jaxcc::none, 0))(p, jnp::array({1.f, 2.f})).to_vector();
  REQUIRE(got[1] == Catch::Approx(2 * squares(2)).epsilon(1e-5));
  struct Energy {
    Array<float> operator()(Params const& q) const { return energy(q); }
  };
  require_twice_the_leaves(jaxcc::value_and_grad(Energy{})(p).second, 2);
  // The seed's hessian of a sum of squares: 2 on the diagonal.
  auto const h = jaxcc::hessian([](Array<float> const& v) { return jnp::sum(v * v); })(jnp::array({1.f, 2.f, 3.f}));
  REQUIRE_THAT(h, jaxcc::testing::AllClose(Array<float>(jnp::eye<float>(3) * 2.0f)));
  // An expression argument to hessian.
  auto const he = jaxcc::hessian([](Array<float> const& v) { return jnp::sum(v * v); })(jnp::array({1.f, 2.f}) * 1.0f);
  REQUIRE_THAT(he, jaxcc::testing::AllClose(Array<float>(jnp::eye<float>(2) * 2.0f)));
}

}  // namespace test_trace_call
