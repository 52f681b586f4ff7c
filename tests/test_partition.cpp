// Sharded jit: jit over arrays laid out on a mesh runs partitioned, each
// device computing its part, and gives what the unsharded function gives.
// Every primitive's partition rule is checked against the unsharded
// result for random layouts of its operands (a fixed seed, so a failure
// repeats). Run with JAXCC_NUM_DEVICES=8 (tests/CMakeLists.txt).
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_partition {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::axes;
using jaxcc::Mesh;
using jaxcc_test::mesh_of;
using jaxcc::NamedSharding;
using jaxcc::none;
using jaxcc::P;
using jaxcc::testing::AllClose;

namespace {


// A random PartitionSpec for a rank-2 array on the ('x', 'y') mesh: each
// dimension whole, or split over 'x', 'y' or both, no mesh axis twice.
P random_spec(std::mt19937& gen) {
  std::vector<P::Entry> entries;
  std::vector<std::string> unused{"x", "y"};
  for (int d = 0; d < 2; ++d) {
    P::Entry e;
    switch (std::uniform_int_distribution<int>(0, 3)(gen)) {
      case 1: e.names = {"x"}; break;
      case 2: e.names = {"y"}; break;
      case 3: e.names = {"x", "y"}, e.tuple = true; break;
      default: break;
    }
    bool free = true;
    for (auto const& n : e.names) free = free && std::find(unused.begin(), unused.end(), n) != unused.end();
    if (!free) e = {};
    for (auto const& n : e.names) unused.erase(std::find(unused.begin(), unused.end(), n));
    entries.push_back(e);
  }
  return P::from_entries(entries);
}

using Binary = std::function<Array<float>(Array<float> const&, Array<float> const&)>;

// f(a, b) under jit with a, b laid out by random specs equals f unsharded;
// returns for how many of the 12 random layout pairs it did.
int check_rule(std::string const& what, Binary const& f, jaxcc::Shape const& a_shape, jaxcc::Shape const& b_shape) {
  auto const mesh = mesh_of({2, 2}, {"x", "y"});
  auto const a = jaxcc_test::smooth(a_shape, 0.37, 0.2).astype<float>();
  auto const b = jaxcc_test::smooth(b_shape, 0.61, 1.1).astype<float>();
  auto const expected = f(a, b);
  std::mt19937 gen(7);
  int matched = 0;
  for (int trial = 0; trial < 12; ++trial) {
    auto const sa = random_spec(gen), sb = random_spec(gen);
    INFO(what << " with a laid out as " << sa << " and b as " << sb);
    auto const got = jaxcc::jit(f)(jaxcc::device_put(a, NamedSharding(mesh, sa)), jaxcc::device_put(b, NamedSharding(mesh, sb)));
    REQUIRE_THAT(got, AllClose(expected, 1e-5, 1e-5));
    REQUIRE(got.sharding().mesh() == mesh);
    matched += jaxcc::testing::allclose(got, expected, 1e-5, 1e-5) ? 1 : 0;
  }
  return matched;
}

}  // namespace

TEST_CASE("the seed's matmul: the output is split as its operands' free dimensions", "[partition][seed]") {
  auto const mesh = mesh_of({4, 2}, {"data", "model"});
  auto const matmul = jaxcc::jit([](Array<float> const& a, Array<float> const& b) { return jnp::matmul(a, b); });
  auto const a = jaxcc::device_put(jnp::ones<float>({1024, 512}), NamedSharding(mesh, P("data", none)));
  auto const b = jaxcc::device_put(jnp::ones<float>({512, 256}), NamedSharding(mesh, P(none, "model")));
  auto const c = matmul(a, b);
  REQUIRE(c.sharding() == NamedSharding(mesh, P("data", "model")));
  // Each element adds 512 ones.
  REQUIRE_THAT(c, AllClose(jnp::full<float>({1024, 256}, 512.f), 0, 0));
}

TEST_CASE("a split contraction becomes partial sums and a psum", "[partition]") {
  auto const mesh = mesh_of({4}, {"k"});
  auto const a = jaxcc_test::smooth({6, 8}).astype<float>();
  auto const b = jaxcc_test::smooth({8, 5}, 0.23).astype<float>();
  auto const f = jaxcc::jit([](Array<float> const& x, Array<float> const& y) { return jnp::matmul(x, y); });
  auto const c = f(jaxcc::device_put(a, NamedSharding(mesh, P(none, "k"))), jaxcc::device_put(b, NamedSharding(mesh, P("k"))));
  REQUIRE(c.sharding().spec() == P());
  REQUIRE_THAT(c, AllClose(jnp::matmul(a, b), 1e-5, 1e-5));
}

TEST_CASE("a reduction keeps the layout of the dimensions it keeps and completes split ones", "[partition]") {
  // The reduction's own partition rule, not the gather-whole fallback: the
  // row sums stay split over 'data' as the rows were; a sum over the split
  // rows is per-device partial sums and a psum, replicated.
  auto const mesh = mesh_of({4}, {"data"});
  auto const x = jaxcc_test::smooth({8, 6}).astype<float>();
  auto const split = jaxcc::device_put(x, NamedSharding(mesh, P("data", none)));
  auto const rows = jaxcc::jit([](Array<float> const& v) { return jnp::sum(v, 1); })(split);
  REQUIRE(rows.sharding() == NamedSharding(mesh, P("data")));
  REQUIRE_THAT(rows, AllClose(jnp::sum(x, 1), 1e-5, 1e-6));
  auto const columns = jaxcc::jit([](Array<float> const& v) { return jnp::max(v, 0); })(split);
  REQUIRE(columns.sharding() == NamedSharding(mesh, P()));
  REQUIRE_THAT(columns, AllClose(jnp::max(x, 0), 0, 0));
}

TEST_CASE("the seed's data-parallel training step gives the unsharded step's params", "[partition][seed]") {
  auto const mesh = mesh_of({4, 2}, {"data", "model"});
  auto const train_step = [](Array<float> const& params, Array<float> const& x, Array<float> const& y, float lr) {
    auto const loss_fn = [&](Array<float> const& p) { return jnp::mean(jnp::square(jnp::matmul(x, p) - y)); };
    auto const [loss, grads] = jaxcc::value_and_grad(loss_fn)(params);
    return std::tuple{Array<float>(params - lr * grads), loss};
  };
  auto const params = jaxcc_test::smooth({16}, 0.3).astype<float>();
  auto const x = jaxcc_test::smooth({64, 16}, 0.11).astype<float>();
  auto const y = jaxcc_test::smooth({64}, 0.7).astype<float>();
  auto const [want_params, want_loss] = train_step(params, x, y, 0.01f);

  auto const replicated = NamedSharding(mesh, P());
  auto const step = jaxcc::jit(train_step);
  auto const [new_params, loss] = step(jaxcc::device_put(params, replicated), jaxcc::device_put(x, NamedSharding(mesh, P("data", none))),
                                      jaxcc::device_put(y, NamedSharding(mesh, P("data"))), 0.01f);
  REQUIRE_THAT(new_params, AllClose(want_params, 1e-5, 1e-6));
  REQUIRE_THAT(loss, AllClose(want_loss, 1e-5, 1e-6));
  REQUIRE(new_params.sharding() == replicated);
  // The same layouts again: no new trace.
  step(jaxcc::device_put(params, replicated), jaxcc::device_put(x, NamedSharding(mesh, P("data", none))),
       jaxcc::device_put(y, NamedSharding(mesh, P("data"))), 0.01f);
  REQUIRE(step.cache_size() == 1);
  // Another layout is another signature.
  step(jaxcc::device_put(params, replicated), jaxcc::device_put(x, NamedSharding(mesh, P(axes("data", "model"), none))),
       jaxcc::device_put(y, NamedSharding(mesh, P("data"))), 0.01f);
  REQUIRE(step.cache_size() == 2);
}

TEST_CASE("every partition rule matches the unsharded result", "[partition]") {
  REQUIRE(check_rule("elementwise", [](auto const& a, auto const& b) { return Array<float>(a * jnp::sin(b) + 1.f); }, {4, 8}, {4, 8}) == 12);
  REQUIRE(check_rule("broadcast_in_dim", [](auto const& a, auto const& b) { return Array<float>(a + jnp::sum(b, 0)); }, {4, 8}, {4, 8}) == 12);
  REQUIRE(check_rule("transpose and dot_general", [](auto const& a, auto const& b) { return jnp::matmul(a.T(), b); }, {4, 8}, {4, 8}) == 12);
  REQUIRE(check_rule("dot_general, both free", [](auto const& a, auto const& b) { return jnp::matmul(a, b.T()); }, {4, 8}, {4, 8}) == 12);
  REQUIRE(check_rule("batched dot_general", [](auto const& a, auto const& b) { return jnp::einsum("ij,ij->i", a, b); }, {4, 8}, {4, 8}) == 12);
  REQUIRE(check_rule("reshape", [](auto const& a, auto const& b) { return jnp::reshape(jnp::reshape(a, jaxcc::Shape{4, 2, 4}) * 2.f, jaxcc::Shape{4, 8}) + b; }, {4, 8}, {4, 8}) == 12);
  REQUIRE(check_rule("squeeze", [](auto const& a, auto const& b) { return Array<float>(jnp::squeeze(jnp::expand_dims(a, 0), 0) - b); }, {4, 8}, {4, 8}) == 12);
  REQUIRE(check_rule("reductions", [](auto const& a, auto const& b) { return Array<float>(jnp::max(a, 1) + jnp::min(b, 1) + jnp::sum(a * b)); }, {4, 8}, {4, 8}) == 12);
  REQUIRE(check_rule("log_softmax (stop_gradient, broadcasting regions)",
             [](auto const& a, auto const& b) { return jaxcc::nn::log_softmax(Array<float>(a * b), 1); }, {4, 8}, {4, 8}) == 12);
  REQUIRE(check_rule("no rule: concatenate, slice", [](auto const& a, auto const& b) { return lax::slice(jnp::concatenate({a, b}, 1), {0, 2}, {4, 10}); }, {4, 8}, {4, 8}) == 12);
  REQUIRE(check_rule("gradient", [](auto const& a, auto const& b) {
    return jaxcc::grad([&](Array<float> const& w) { return jnp::sum(jnp::tanh(jnp::matmul(w, b.T()))); })(a);
  }, {4, 8}, {4, 8}) == 12);
}

TEST_CASE("out_shardings and with_sharding_constraint lay results out", "[partition]") {
  auto const mesh = mesh_of({2, 2}, {"x", "y"});
  auto const a = jaxcc_test::smooth({4, 8}).astype<float>();
  auto const f = jaxcc::jit([](Array<float> const& x) { return Array<float>(x * 2.f); },
                            jaxcc::out_shardings(NamedSharding(mesh, P("x", "y"))));
  auto const out = f(a);
  REQUIRE(out.sharding() == NamedSharding(mesh, P("x", "y")));
  REQUIRE_THAT(out, AllClose(Array<float>(a * 2.f), 0, 0));

  auto const g = jaxcc::jit([&](Array<float> const& x) {
    return lax::with_sharding_constraint(Array<float>(x + 1.f), NamedSharding(mesh, P(none, axes("x", "y"))));
  });
  auto const gout = g(jaxcc::device_put(a, NamedSharding(mesh, P("x"))));
  REQUIRE(gout.sharding().spec() == P(none, axes("x", "y")));
  REQUIRE_THAT(gout, AllClose(Array<float>(a + 1.f), 0, 0));
  // Eagerly it is device_put.
  REQUIRE(lax::with_sharding_constraint(a, NamedSharding(mesh, P("y"))).sharding().spec() == P("y"));
  REQUIRE(jaxcc_test::message_of([&] { f(jnp::ones<float>({3, 8})); }) ==
          "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x', 'y')) implies that array axis 0 is partitioned 2 "
          "times, but the dimension size is 3 (full shape: (3, 8), per-dimension tiling factors: (2, 2) should evenly "
          "divide the shape)");
}

TEST_CASE("arguments on two meshes are an error", "[partition][errors]") {
  auto const a = jaxcc::device_put(jnp::ones<float>({4}), NamedSharding(mesh_of({4}, {"x"}), P("x")));
  auto const b = jaxcc::device_put(jnp::ones<float>({4}), NamedSharding(mesh_of({2}, {"x"}), P("x")));
  auto const f = jaxcc::jit([](Array<float> const& x, Array<float> const& y) { return Array<float>(x + y); });
  REQUIRE(jaxcc_test::message_of([&] { f(a, b); }) ==
          "Received incompatible devices for jitted computation: arguments (or out_shardings) are laid out on "
          "Mesh('x': 4) and on Mesh('x': 2); put them on one mesh");
}

// The MLP of the examples, scaled down: its first weight used as stored
// (x @ W) or transposed (x @ W.T, W stored (hidden, in)).
struct Mlp {
  Array<float> w1, b1, w2, b2;
};
JAXCC_PYTREE(Mlp, w1, b1, w2, b2);

template <bool Transposed>
Array<float> mlp_loss(Mlp const& p, Array<float> const& x, Array<float> const& y) {
  Array<float> const xw = Transposed ? jnp::matmul(x, p.w1.T()) : jnp::matmul(x, p.w1);
  Array<float> const h = jnp::tanh(xw + p.b1);
  Array<float> const logits = jnp::matmul(h, p.w2) + p.b2;
  return -jnp::mean(jnp::sum(y * jaxcc::nn::log_softmax(logits, -1), 1));
}

template <bool Transposed>
Mlp mlp_step(Mlp const& p, Array<float> const& x, Array<float> const& y) {
  auto const g = jaxcc::grad(mlp_loss<Transposed>)(p, x, y);
  return jaxcc::tree::map([](Array<float> const& w, Array<float> const& gw) { return Array<float>(w - 0.1f * gw); }, p, g);
}

TEST_CASE("the data-parallel MLP step gathers nothing, written with x @ W or x @ W.T", "[partition]") {
  // Params replicated, the batch split: every equation of the step's
  // forward and backward programs has a rule that keeps the batch split
  // (a GatherLog lists those that gathered a split operand).
  auto const mesh = mesh_of({4}, {"data"});
  auto const x = jaxcc_test::smooth({16, 12}, 0.3).astype<float>();
  auto const y = jaxcc::nn::one_hot<float>(jnp::array(std::vector<std::int32_t>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0}, jaxcc::Shape{16}), 3);
  auto const replicated = NamedSharding(mesh, P());
  auto const batch = NamedSharding(mesh, P("data", none));
  auto const check = [&]<bool Transposed>(std::integral_constant<bool, Transposed>) {
    INFO((Transposed ? "x @ W.T" : "x @ W"));
    Mlp const p{jaxcc_test::smooth(Transposed ? jaxcc::Shape{8, 12} : jaxcc::Shape{12, 8}, 0.17, 0.4).astype<float>() * 0.3f,
                jaxcc_test::smooth({8}, 0.5).astype<float>() * 0.1f, jaxcc_test::smooth({8, 3}, 0.23, 0.9).astype<float>() * 0.3f,
                jaxcc_test::smooth({3}, 0.7).astype<float>() * 0.1f};
    auto const want = mlp_step<Transposed>(p, x, y);
    jaxcc::debug::GatherLog log;
    auto const got = jaxcc::jit(mlp_step<Transposed>)(jaxcc::device_put(p, replicated), jaxcc::device_put(x, batch),
                                                      jaxcc::device_put(y, batch));
    CHECK(log.primitives() == std::vector<std::string>{});
    REQUIRE_THAT(got.w1, AllClose(want.w1, 1e-5, 1e-6));
    REQUIRE_THAT(got.b1, AllClose(want.b1, 1e-5, 1e-6));
    REQUIRE_THAT(got.w2, AllClose(want.w2, 1e-5, 1e-6));
    REQUIRE_THAT(got.b2, AllClose(want.b2, 1e-5, 1e-6));
    REQUIRE(got.w1.sharding() == replicated);
  };
  check(std::false_type{});
  check(std::true_type{});

  // The log sees a program that does gather: a concatenation (no rule) of
  // split operands.
  jaxcc::debug::GatherLog log;
  auto const split = jaxcc::device_put(x, batch);
  jaxcc::jit([](Array<float> const& a) { return jnp::concatenate({a, a}, 1); })(split);
  REQUIRE(log.primitives() == std::vector<std::string>{"concatenate"});
}

TEST_CASE("each device writes its part of the outputs, in place or copied", "[partition]") {
  // Outputs computed by a fused run into a dense part are written in
  // place; the others (a part that is strided in the global array, a value
  // output twice, an input returned as it is, a matmul's result) are
  // copied. All must hold the unsharded values.
  auto const mesh = mesh_of({2, 2}, {"x", "y"});
  auto const a = jaxcc_test::smooth({4, 8}, 0.37, 0.2).astype<float>();
  auto const f = [](Array<float> const& v) {
    Array<float> const y = jnp::sin(v) * 2.f + v;
    return std::tuple{y, y, v, jnp::matmul(v, v.T()), Array<float>(y * 3.f)};
  };
  auto const [y, y_again, v, vvt, y3] = f(a);
  for (auto const& spec : {P("x"), P(none, "y"), P("x", "y"), P(axes("x", "y")), P()}) {
    INFO("a laid out as " << spec);
    auto const [gy, gy_again, gv, gvvt, gy3] = jaxcc::jit(f)(jaxcc::device_put(a, NamedSharding(mesh, spec)));
    REQUIRE_THAT(gy, AllClose(y, 1e-6, 1e-6));
    REQUIRE_THAT(gy_again, AllClose(y_again, 1e-6, 1e-6));
    REQUIRE_THAT(gv, AllClose(v, 0, 0));
    REQUIRE_THAT(gvvt, AllClose(vvt, 1e-5, 1e-5));
    REQUIRE_THAT(gy3, AllClose(y3, 1e-6, 1e-6));
    REQUIRE(gy.sharding().spec() == spec);
  }
}

TEST_CASE("eager ops on sharded arrays run partitioned, laid out as jit lays them out", "[partition][eager]") {
  auto const mesh = mesh_of({4}, {"data"});
  auto const a = jaxcc_test::smooth({8, 6}, 0.37, 0.2).astype<float>();
  auto const b = jaxcc_test::smooth({6, 5}, 0.61, 1.1).astype<float>();
  auto const split = jaxcc::device_put(a, NamedSharding(mesh, P("data", none)));
  auto const whole = jaxcc::device_put(b, NamedSharding(mesh, P()));

  // A fused expression: one region, split as its operand.
  Array<float> const fused = split * 1.5f - jnp::sin(split) * 0.75f;
  REQUIRE(fused.sharding() == NamedSharding(mesh, P("data")));  // as JAX gives it over Auto mesh axes
  REQUIRE_THAT(fused, AllClose(Array<float>(a * 1.5f - jnp::sin(a) * 0.75f), 1e-6, 1e-6));
  // Primitives with rules: rows stay split, a sum over them is replicated.
  auto const product = jnp::matmul(split, whole);
  REQUIRE(product.sharding() == NamedSharding(mesh, P("data")));
  REQUIRE_THAT(product, AllClose(jnp::matmul(a, b), 1e-5, 1e-6));
  auto const rows = jnp::sum(split, 1);
  REQUIRE(rows.sharding() == NamedSharding(mesh, P("data")));
  REQUIRE_THAT(rows, AllClose(jnp::sum(a, 1), 1e-5, 1e-6));
  auto const total = jnp::sum(split);
  REQUIRE(total.sharding() == NamedSharding(mesh, P()));
  REQUIRE_THAT(total, AllClose(jnp::sum(a), 1e-5, 1e-6));
  // A sharded operand with a plain one: the plain one is whole on every device.
  Array<float> const shifted = split + jnp::arange<float>(0, 6);
  REQUIRE(shifted.sharding() == NamedSharding(mesh, P("data")));
  REQUIRE_THAT(shifted, AllClose(Array<float>(a + jnp::arange<float>(0, 6)), 0, 0));
  // The same op again (a cached executable) and on other values.
  Array<float> const columns = a.T();
  REQUIRE_THAT(jnp::sum(jaxcc::device_put(columns, NamedSharding(mesh, P(none, "data"))) * 2.f, 0),
               AllClose(Array<float>(jnp::sum(columns * 2.f, 0)), 1e-5, 1e-6));
  REQUIRE_THAT(jnp::sum(split, 1), AllClose(jnp::sum(a, 1), 1e-5, 1e-6));
  // Transforms of functions of sharded arrays: traced, then run partitioned.
  auto const g = jaxcc::grad([](Array<float> const& v) { return jnp::sum(jnp::tanh(v)); })(split);
  REQUIRE_THAT(g, AllClose(Array<float>(1.f - jnp::square(jnp::tanh(a))), 1e-5, 1e-6));
  // Operands on two meshes: jit's error.
  auto const other = jaxcc::device_put(a, NamedSharding(mesh_of({2}, {"data"}), P("data")));
  REQUIRE(jaxcc_test::message_of([&] { (void)Array<float>(split + other); }) ==
          "Received incompatible devices for jitted computation: arguments (or out_shardings) are laid out on "
          "Mesh('data': 4) and on Mesh('data': 2); put them on one mesh");
}

TEMPLATE_TEST_CASE("the narrow dtypes' partial results and reshards, moved in a wider dtype, are the unsharded ones",
                   "[partition][dtype]", bool, std::int8_t, std::uint8_t, std::int16_t, std::uint32_t, jaxcc::bfloat16,
                   jaxcc::float16) {
  // Their mesh operations go through int32, int64 or float32 and back
  // (sharding/bits/spmd_ops.hpp). Small integers: every sum here is exact
  // in each dtype, so the sharded results equal the unsharded ones exactly.
  using T = TestType;
  auto const mesh = mesh_of({2}, {"data"});
  std::vector<T> values;
  for (int i = 0; i < 48; ++i) {
    if constexpr (std::same_as<T, bool>) values.push_back((i * 7) % 3 == 0);
    else values.push_back(static_cast<T>((i * 7) % 23));
  }
  auto const x = jnp::array(values, {8, 6});
  auto const split = jaxcc::device_put(x, NamedSharding(mesh, P("data", none)));

  // Resharded: rows split -> columns split.
  auto const moved = jaxcc::jit([](Array<T> const& v) { return v; },
                                jaxcc::out_shardings(NamedSharding(mesh, P(none, "data"))))(split);
  CHECK(moved.sharding().spec() == P(none, "data"));
  CHECK(moved.to_vector() == values);

  // A reduction over the split rows: per-device partial results combined by
  // a maximum (any, for bool) and a sum.
  auto const most = jaxcc::jit([](Array<T> const& v) {
    if constexpr (std::same_as<T, bool>) return jnp::any(v, 0);
    else return Array<T>(jnp::max(v, 0));
  })(split);
  if constexpr (std::same_as<T, bool>) CHECK(most.to_vector() == jnp::any(x, 0).to_vector());
  else CHECK(most.to_vector() == Array<T>(jnp::max(x, 0)).to_vector());
  auto const total = jaxcc::jit([](Array<T> const& v) { return jnp::sum(v, 0); })(split);
  CHECK(total.to_vector() == jnp::sum(x, 0).to_vector());
}

}  // namespace test_partition
