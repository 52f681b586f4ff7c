// jaxcc::random against JAX's own draws (tests/golden/random_cases.py wrote
// them with JAX), and keys under vmap, jit, grad and a sharded jit.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>
#include <jaxcc/testing/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_random {

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::streamed;

struct Golden {
  std::string name;
  std::int64_t seed;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> positions;
  std::vector<double> values;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const cases = {
#include "golden/random_cases.inc"
  };
  return cases;
}

// The draw the case names, from our implementation, as doubles (exact for
// every value here: uint32, int32, bool, float32, float64).
std::vector<double> draw(Golden const& c) {
  auto const k = jr::key(static_cast<std::int32_t>(c.seed));
  Shape const shape(c.shape.begin(), c.shape.end());
  auto const as_doubles = [](auto const& a) {
    std::vector<double> out;
    for (auto v : a.to_vector()) out.push_back(static_cast<double>(v));
    return out;
  };
  auto const& n = c.name;
  if (n == "bits") return as_doubles(jr::bits(k, shape));
  if (n == "uniform") return as_doubles(jr::uniform(k, shape));
  if (n == "normal") return as_doubles(jr::normal(k, shape));
  if (n == "uniform_range") return as_doubles(jr::uniform(k, shape, -2.0, 3.5));
  if (n == "uniform_f64") return as_doubles(jr::uniform<double>(k, shape));
  if (n == "truncated_normal") return as_doubles(jr::truncated_normal(k, -1.5, 2.0, shape));
  if (n == "randint_0_10") return as_doubles(jr::randint(k, shape, 0, 10));
  if (n == "randint_wide") return as_doubles(jr::randint(k, shape, -5, 1000000));
  if (n == "randint_full") return as_doubles(jr::randint(k, shape, -2147483648LL, 2147483647LL));
  if (n == "randint_empty") return as_doubles(jr::randint(k, shape, 3, 3));
  if (n == "randint_u32") return as_doubles(jr::randint<std::uint32_t>(k, shape, 7, 3000000000LL));
  if (n == "bernoulli") return as_doubles(jr::bernoulli(k, 0.3, shape));
  if (n == "categorical") return as_doubles(jr::categorical(k, jnp::array<float>({0.f, 1.f, 2.f, -1.f}), -1, shape));
  if (n == "categorical_axis0")
    return as_doubles(jr::categorical(k, jnp::arange<float>(12).reshape({3, 4}) / 4.f, 0, Shape{2, 4}));
  if (n == "permutation_20") return as_doubles(jr::permutation(k, 20));
  if (n == "permutation_2000") return as_doubles(jr::permutation(k, 2000));
  if (n == "choice_replace") return as_doubles(jr::choice(k, 10, shape, true));
  if (n == "choice_no_replace") return as_doubles(jr::choice(k, 10, shape, false));
  if (n == "gumbel") return as_doubles(jr::gumbel(k, shape));
  if (n == "exponential") return as_doubles(jr::exponential(k, shape));
  if (n == "split_4") return as_doubles(jr::key_data(jr::split(k, 4)));
  if (n == "split_2x3") return as_doubles(jr::key_data(jr::split(jr::split(k, 4)[2], Shape{2, 3})));
  if (n == "fold_in_12345") return as_doubles(jr::key_data(jr::fold_in(k, 12345)));
  if (n == "split_fold_in_chain") {
    auto chain = k;
    for (int i = 0; i < 5; ++i) chain = jr::fold_in(jr::split(chain)[1], i);
    return as_doubles(jr::key_data(chain));
  }
  if (n == "key_data_int64_seed") return as_doubles(jr::key_data(jr::key(c.seed)));
  if (n == "prngkey_data") return as_doubles(jr::PRNGKey(static_cast<std::int32_t>(c.seed)));
  FAIL("no draw for golden case " << n);
  return {};
}

// Ulps between two floats of the same sign class.
std::int64_t ulps(float a, float b) {
  auto const key = [](float f) {
    auto const i = std::bit_cast<std::int32_t>(f);
    return i < 0 ? std::int64_t{INT32_MIN} - i : std::int64_t{i};
  };
  return std::abs(key(a) - key(b));
}

TEST_CASE("random: every sampler gives JAX's numbers for the same key and shape", "[random][golden]") {
  REQUIRE(golden().size() > 150);
  for (auto const& c : golden()) {
    INFO(c.name << " seed " << c.seed << " shape " << Shape(c.shape.begin(), c.shape.end()));
    auto const got = draw(c);
    REQUIRE(static_cast<std::int64_t>(got.size()) == Shape(c.shape.begin(), c.shape.end()).numel());
    for (std::size_t i = 0; i < c.positions.size(); ++i) {
      INFO("flat index " << c.positions[i]);
      auto const actual = got[static_cast<std::size_t>(c.positions[i])];
      auto const expected = c.values[i];
      if (c.name == "normal") {
        // XLA's erf_inv around its log1p; ours around xsimd's or the C library's.
        CHECK(ulps(static_cast<float>(actual), static_cast<float>(expected)) <= 4);
      } else if (c.name == "truncated_normal" || c.name == "gumbel" || c.name == "exponential") {
        CHECK(std::abs(actual - expected) <= 4e-7 * std::max(1.0, std::abs(expected)));
      } else {
        CHECK(actual == expected);  // bit for bit
      }
    }
  }
}

TEST_CASE("random: keys print as JAX prints them", "[random][print]") {
  auto const k = jr::key(42);
  CHECK(streamed(k) == "Array((), dtype=key<fry>) overlaying:\n[ 0 42]");
  // From JAX 0.10.2: repr(jax.random.split(jax.random.key(42), 3)).
  CHECK(streamed(jr::split(k, 3)) ==
        "Array((3,), dtype=key<fry>) overlaying:\n"
        "[[1832780943  270669613]\n"
        " [  64467757 2916123636]\n"
        " [2465931498  255383827]]");
  CHECK(streamed(jr::split(k, 3)[1]) == "Array((), dtype=key<fry>) overlaying:\n[  64467757 2916123636]");
  CHECK(streamed(jr::split(k, 3)[-1]) == "Array((), dtype=key<fry>) overlaying:\n[2465931498  255383827]");
  CHECK(streamed(jr::PRNGKey(42)) == "Array([ 0, 42], dtype=uint32)");
  CHECK(jr::split(k, Shape{2, 3}).shape() == Shape{2, 3});
}

TEST_CASE("random: raw keys work wherever typed keys do, and give the same numbers", "[random][keys]") {
  auto const typed = jr::key(7);
  auto const raw = jr::PRNGKey(7);
  CHECK(jaxcc::testing::allclose(jr::uniform(raw, {5}), jr::uniform(typed, {5}), 0, 0));
  auto const raw_split = jr::split(raw, 3);
  static_assert(std::same_as<decltype(raw_split), Array<std::uint32_t> const>);
  CHECK(raw_split.shape() == Shape{3, 2});
  CHECK(raw_split.to_vector() == jr::key_data(jr::split(typed, 3)).to_vector());
  CHECK(jr::wrap_key_data(raw_split).shape() == Shape{3});
}

TEST_CASE("random: JAX's errors for batched keys, bad key data and bad arguments", "[random][errors]") {
  auto const keys = jr::split(jr::key(0), 3);
  CHECK(message_of([&] { (void)jr::uniform(keys, {2}); }) ==
        "uniform accepts a single key, but was given a key array of shape (3,) != (). Use jax.vmap for batching.");
  CHECK(message_of([&] { (void)jr::split(keys); }) ==
        "split accepts a single key, but was given a key array of shape (3,) != (). Use jax.vmap for batching.");
  CHECK(message_of([&] { (void)jr::wrap_key_data(jnp::zeros<std::uint32_t>({3})); }) ==
        "wrap_key_data: key data must have shape (..., 2) and dtype uint32 (threefry2x32 keys), got shape (3,)");
  CHECK(message_of([&] { (void)jr::key(0)[0]; }) == "Too many indices: a key array of shape () cannot be indexed");
  CHECK(message_of([&] { (void)keys[3]; }) == "index 3 is out of bounds for axis 0 with size 3");
  CHECK(message_of([&] { (void)jr::choice(jr::key(0), 3, {4}, false); }) ==
        "Cannot take a larger sample (size 4) than population (size 3) when 'replace=False'");
  CHECK(message_of([&] { (void)jr::categorical(jr::key(0), jnp::zeros<float>({3, 4}), 0, Shape{5}); }) ==
        "categorical parameter shapes must be broadcast-compatible with shape argument, and the result of "
        "broadcasting the shapes must equal the shape argument, but got result (4,) for shape argument (5,).");
  CHECK(message_of([&] { (void)jr::categorical(jr::key(0), jnp::zeros<float>({3}), 1); }) ==
        "categorical: axis 1 is out of bounds for logits of shape (3,)");
  CHECK(message_of([&] { (void)jr::bits(jr::key(0), {2, -1}); }) ==
        "random_bits: shape (2, -1) has a negative dimension");
  CHECK(message_of([&] { (void)jr::fold_in(jr::key(0), jnp::arange<std::int32_t>(2)); }) ==
        "fold_in accepts a scalar, but was given an array of shape (2,) != (). Use jax.vmap for batching.");
  CHECK(message_of([&] { (void)jr::permutation(jr::key(0), -1); }) == "permutation: n must be non-negative, got -1");
  CHECK(message_of([&] { (void)jr::permutation(jr::key(0), jnp::array<float>(1.f)); }) ==
        "x must be an integer or at least 1-dimensional");
  CHECK(message_of([&] { (void)jr::permutation(jr::key(0), jnp::zeros<float>({2, 3}), 2); }) ==
        "permutation: axis 2 is out of bounds for array of dimension 2");
  CHECK(message_of([&] { (void)jr::choice(jr::key(0), 0, {2}); }) ==
        "a must be greater than 0 unless no samples are taken");
  // A 0-d `a` is read as n, as JAX reads it (jax.random.choice(key, jnp.array(1.0), (2,)) is [0, 0]).
  CHECK(jr::choice(jr::key(0), jnp::array<float>(1.f), {2}).to_vector() == std::vector<float>{0.f, 0.f});
}

TEST_CASE("random: a shape that may be None takes a braced list, as every shape parameter does", "[random]") {
  auto const k = jr::key(3);
  auto const logits = jnp::array<float>({0.f, 1.f, 2.f, -1.f});
  auto const braced = jr::categorical(k, logits, -1, {8});
  CHECK(braced.shape() == Shape{8});
  CHECK(braced.to_vector() == jr::categorical(k, logits, -1, Shape{8}).to_vector());
  CHECK(jr::categorical(k, logits, -1, jaxcc::none).shape() == Shape{});
  auto const p = jnp::full<float>({3}, 0.5f);
  CHECK(jr::bernoulli(k, p, {2, 3}).to_vector() == jr::bernoulli(k, p, Shape{2, 3}).to_vector());
  CHECK(jr::bernoulli(k, p).shape() == Shape{3});
}

TEST_CASE("random: empty shapes and empty populations give JAX's shapes", "[random][errors]") {
  auto const k = jr::key(0);
  CHECK(jr::normal(k, {0, 3}).shape() == Shape{0, 3});
  CHECK(jr::randint(k, {0}, 0, 0).shape() == Shape{0});
  CHECK(jr::permutation(k, jnp::zeros<float>({3, 0})).shape() == Shape{3, 0});
  CHECK(jr::key_data(jr::split(k, 0)).shape() == Shape{0, 2});
  // No draws: JAX returns jnp.zeros(shape) before it looks at `a` (its
  // choice: `if n_draws == 0: return jnp.zeros(shape, dtype=arr.dtype)`),
  // so an empty population of rows gives (0,), not (0, 3).
  auto const none_drawn = jr::choice(k, jnp::zeros<float>({0, 3}), {0});
  CHECK(none_drawn.shape() == Shape{0});
  CHECK(jr::choice(k, jnp::ones<float>({4, 3}), {2, 0}).shape() == Shape{2, 0});
  CHECK(message_of([&] { (void)jr::choice(k, jnp::zeros<float>({0, 3}), {2}); }) ==
        "a must be greater than 0 unless no samples are taken");
}

TEST_CASE("random: array bounds and array probabilities give the scalar versions' numbers", "[random][arrays]") {
  auto const k = jr::key(9);
  // Array bounds take the fused fma path; scalar ones the draw's own pass.
  auto const lo = jnp::full<float>({6}, -2.f), hi = jnp::full<float>({6}, 3.5f);
  CHECK(jr::uniform(k, {6}, lo, hi).to_vector() == jr::uniform(k, {6}, -2.f, 3.5f).to_vector());
  CHECK(jr::bernoulli(k, jnp::full<float>({7}, 0.3f)).to_vector() == jr::bernoulli(k, 0.3, {7}).to_vector());
}

TEST_CASE("random: vmap over a batch of keys equals a loop over them", "[random][vmap]") {
  auto const keys = jr::split(jr::key(3), 5);
  auto const draws = jaxcc::vmap([](jr::KeyArray const& k) { return jr::normal(k, {4}); })(keys);
  REQUIRE(draws.shape() == Shape{5, 4});
  for (std::int64_t i = 0; i < 5; ++i)
    CHECK(jnp::take(draws, jnp::array<std::int32_t>(static_cast<std::int32_t>(i)), 0).to_vector() ==
          jr::normal(keys[i], {4}).to_vector());

  // Keys made inside vmap: a per-example split, and fold_in of the mapped index.
  auto const children = jaxcc::vmap([](jr::KeyArray const& k) { return jr::split(k, 2); })(keys);
  REQUIRE(children.shape() == Shape{5, 2});
  for (std::int64_t i = 0; i < 5; ++i)
    CHECK(jr::key_data(children[i]).to_vector() == jr::key_data(jr::split(keys[i], 2)).to_vector());
  auto const folded = jaxcc::vmap([](Array<std::int32_t> const& i) { return jr::key_data(jr::fold_in(jr::key(3), i)); })(
      jnp::arange<std::int32_t>(4));
  for (std::int32_t i = 0; i < 4; ++i)
    CHECK(jnp::take(folded, jnp::array<std::int32_t>(i), 0).to_vector() ==
          jr::key_data(jr::fold_in(jr::key(3), i)).to_vector());

  // Integer and index draws batch the same way.
  auto const perms = jaxcc::vmap([](jr::KeyArray const& k) { return jr::permutation(k, 6); })(keys);
  auto const ints = jaxcc::vmap([](jr::KeyArray const& k) { return jr::randint(k, {3}, -4, 9); })(keys);
  for (std::int64_t i = 0; i < 5; ++i) {
    auto const row = jnp::array<std::int32_t>(static_cast<std::int32_t>(i));
    CHECK(jnp::take(perms, row, 0).to_vector() == jr::permutation(keys[i], 6).to_vector());
    CHECK(jnp::take(ints, row, 0).to_vector() == jr::randint(keys[i], {3}, -4, 9).to_vector());
  }
}

TEST_CASE("random: jit of a function that takes a key gives the eager values", "[random][jit]") {
  auto const f = [](jr::KeyArray const& k, Array<float> const& logits) {
    auto const [a, b] = std::pair{jr::split(k)[0], jr::split(k)[1]};
    return std::tuple{jr::uniform(a, {3, 2}, -1.f, 2.f), jr::normal(b, {5}), jr::categorical(a, logits, -1, Shape{4}),
                      jr::permutation(b, 7), jr::bernoulli(jr::fold_in(a, 11), 0.5, {6})};
  };
  auto const logits = jnp::array<float>({0.5f, -1.f, 2.f});
  auto const k = jr::key(2024);
  auto const jitted = jaxcc::jit(f);
  auto const [u1, n1, c1, p1, b1] = jitted(k, logits);
  auto const [u2, n2, c2, p2, b2] = f(k, logits);
  CHECK(u1.to_vector() == u2.to_vector());
  CHECK(jaxcc::testing::allclose(n1, n2, 1e-6, 1e-6));  // fused and eager erf_inv may differ in the last bit
  CHECK(c1.to_vector() == c2.to_vector());
  CHECK(p1.to_vector() == p2.to_vector());
  CHECK(b1.to_vector() == b2.to_vector());
  auto const [u3, n3, c3, p3, b3] = jitted(jr::key(2025), logits);  // the cached plan, a new key
  CHECK(u3.to_vector() == jr::uniform(jr::split(jr::key(2025))[0], {3, 2}, -1.f, 2.f).to_vector());
  CHECK(jitted.cache_size() == 1);
}

TEST_CASE("random: grad treats the draws as constants", "[random][grad]") {
  auto const k = jr::key(5);
  // d/dx sum(x * u) = u, and dropout's gradient is its mask over keep.
  auto const g = jaxcc::grad([&](Array<float> const& x) { return jnp::sum(x * jr::uniform(k, {4})); })(jnp::ones<float>({4}));
  CHECK(g.to_vector() == jr::uniform(k, {4}).to_vector());
  auto const dropout = [&](Array<float> const& x) {
    auto const keep = jr::bernoulli(k, 0.75, {8});
    return jnp::sum(jnp::where(keep, x / 0.75f, 0.f));
  };
  auto const dg = jaxcc::grad(dropout)(jnp::ones<float>({8}));
  auto const keep = jr::bernoulli(k, 0.75, {8}).to_vector();
  for (std::size_t i = 0; i < keep.size(); ++i) CHECK(dg.to_vector()[i] == (keep[i] ? 1.f / 0.75f : 0.f));
  // A traced key (a jit argument): fold_in and split, whose uint32 outputs
  // take no cotangent, are recorded in the differentiated program.
  auto const folded = [](Array<float> const& x, jr::KeyArray const& key) {
    return jnp::sum(x * jr::uniform(jr::split(jr::fold_in(key, 3), 2)[1], {4}));
  };
  auto const gk = jaxcc::jit(jaxcc::grad(folded))(jnp::ones<float>({4}), k);
  CHECK(gk.to_vector() == jr::uniform(jr::split(jr::fold_in(k, 3), 2)[1], {4}).to_vector());
}

TEST_CASE("random: a sharded jit that draws gives the unsharded values", "[random][sharding]") {
  auto const mesh = jaxcc_test::mesh_of({4}, {"d"});
  auto const f = [](Array<float> const& x, jr::KeyArray const& k) -> Array<float> { return x + jr::uniform(k, x.shape()); };
  auto const x = jnp::arange<float>(64).reshape({16, 4});
  auto const k = jr::key(77);
  auto const placed_key = jr::wrap_key_data(jaxcc::device_put(jr::key_data(k), jaxcc::NamedSharding(mesh, jaxcc::P())));
  auto const sharded = jaxcc::jit(f)(jaxcc::device_put(x, jaxcc::NamedSharding(mesh, jaxcc::P("d"))), placed_key);
  CHECK(sharded.sharding() == jaxcc::NamedSharding(mesh, jaxcc::P("d")));
  CHECK(sharded.to_vector() == f(x, k).to_vector());
}

}  // namespace test_random
