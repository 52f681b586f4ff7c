// jnp.partition, argpartition, lexsort and astype (numpy/ordering.hpp):
// values against JAX (tests/golden/ordering_cases.py), partition's
// derivatives and batching, and JAX's errors.
#define CATCH_CONFIG_ENABLE_ALL_STRINGMAKERS
#include "catch.hpp"

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"

namespace test_ordering {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

struct Golden {
  std::string name;
  Shape shape;
  std::vector<double> values;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const all = {
#include "golden/ordering_cases.inc"
  };
  (void)inf;
  return all;
}

// The generator's inputs.
Array<float> v() {
  return jnp::array({3.0f, 1.0f, 2.0f, std::numeric_limits<float>::quiet_NaN(), 1.0f, -0.0f, 0.0f, -2.5f});
}
Array<float> m() {
  return jnp::array(
      {{0.5f, -1.0f, 2.0f, 2.0f, 7.0f}, {3.0f, 0.0f, -4.0f, 1.5f, 2.0f}, {1.0f, 1.0f, 9.0f, -3.0f, 0.25f}});
}
Array<float> t() {
  return jnp::array({1.5f, -2.0f, 0.0f, 3.0f, 2.0f, 2.0f, -1.0f, 0.5f, 4.0f, -3.0f, 1.0f, 1.0f,
                     0.0f, 5.0f, -2.0f, 2.5f, 1.0f, -1.0f, 3.0f, 0.0f, 2.0f, 0.5f, 0.5f, -6.0f})
      .reshape({2, 3, 4});
}
Array<std::int32_t> i() { return jnp::array({{3, -1, 4, 1, -5}, {9, 2, -6, 5, 3}}); }
Array<std::uint32_t> u() { return jnp::array({3u, 0u, 2u, 5u, 1u, 0u, 4u}); }

std::vector<Array<std::int32_t>> keys_i(std::string const& name) {
  if (name == "k1") return {jnp::array({2, 4, 2, 3, 1, 4}), jnp::array({1, 2, 1, 3, 2, 1})};
  return {jnp::array({{2, 4, 2, 3}, {3, 1, 2, 2}}), jnp::array({{1, 2, 1, 3}, {2, 1, 2, 1}})};
}
std::vector<Array<float>> keys_f() {
  return {jnp::array({0.5f, -1.0f, 2.0f, 0.5f, 3.0f}), jnp::array({1.0f, 0.0f, 1.0f, 1.0f, 0.0f}),
          jnp::array({2.0f, 2.0f, 1.0f, 2.0f, 1.0f})};
}

std::vector<std::string> split(std::string const& s) {
  std::vector<std::string> parts;
  std::istringstream in(s);
  for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
  return parts;
}

template <class F>
auto on_input(std::string const& src, F const& f) {
  if (src == "v") return jaxcc_test::as_doubles(f(v()));
  if (src == "m") return jaxcc_test::as_doubles(f(m()));
  if (src == "t") return jaxcc_test::as_doubles(f(t()));
  if (src == "i") return jaxcc_test::as_doubles(f(i()));
  return jaxcc_test::as_doubles(f(u()));
}

Array<float> weights(Shape const& shape) {
  auto const n = shape.numel();
  Array<float> const index = jnp::arange<float>(n);
  return Array<float>(index - 4.0f * jnp::floor(index / 4.0f)).reshape(shape) * 0.25f + 0.5f;
}

// One golden case's result from jaxcc.
std::vector<double> evaluate(std::string const& name) {
  auto const p = split(name);
  if (p[0] == "partition" || p[0] == "argpartition") {
    auto const kth = std::stoll(p[2]), axis = std::stoll(p[3]);
    bool const arg = p[0] == "argpartition";
    return on_input(p[1], [&](auto const& x) {
      if (arg) return jnp::argpartition(x, kth, axis).template astype<double>();
      return jnp::partition(x, kth, axis).template astype<double>();
    });
  }
  if (p[0] == "grad_partition") {
    auto const kth = std::stoll(p[2]), axis = std::stoll(p[3]);
    Array<float> const x = p[1] == "m" ? m() : t();
    auto const w = weights(x.shape());
    auto g = jaxcc_test::as_doubles(
        jaxcc::grad([&](Array<float> const& a) { return jnp::sum(jnp::partition(a, kth, axis) * w); })(x));
    for (auto& e : g) e += 0.0;  // a zero cotangent's sign is not compared
    return g;
  }
  if (p[0] == "lexsort") {
    auto const axis = std::stoll(p[2]);
    if (p[1] == "k3") return jaxcc_test::as_doubles(jnp::lexsort(keys_f(), axis));
    return jaxcc_test::as_doubles(jnp::lexsort(keys_i(p[1]), axis));
  }
  if (p[2] == "int32") return jaxcc_test::as_doubles(jnp::astype<std::int32_t>(m() * 1.5f));
  if (p[2] == "bool") return jaxcc_test::as_doubles(jnp::astype<bool>(i()));
  if (p[2] == "float32") return jaxcc_test::as_doubles(jnp::astype<float>(i()));
  return jaxcc_test::as_doubles(jnp::astype<std::uint8_t>(u() * 100u));
}

TEST_CASE("partition, argpartition, lexsort and astype match JAX", "[ordering]") {
  for (auto const& g : golden()) {
    INFO(g.name);
    auto got = evaluate(g.name);
    auto expected = g.values;
    if (g.name.starts_with("grad_"))
      for (auto& e : expected) e += 0.0;
    CHECK(jaxcc_test::mismatches<float>(got, expected, 1e-6) == "");
  }
}

TEST_CASE("partition's shapes, derivatives, vmap and jit", "[ordering][grad][vmap][jit]") {
  CHECK(jnp::partition(m(), 1, 0).shape() == Shape{3, 5});
  CHECK(jnp::argpartition(t(), 0, 1).shape() == Shape{2, 3, 4});
  CHECK(jnp::lexsort(std::vector{jnp::array(5)}).shape() == Shape{});
  Array<double> const xs = jaxcc_test::smooth({3, 4, 5});  // distinct values: no ties
  auto const part = [](Array<double> const& a) { return jnp::partition(a, 2, -1); };
  auto const part0 = [](Array<double> const& a) { return jnp::partition(a, -2, 0); };
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(part, std::tuple{xs}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(part0, std::tuple{xs}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(part, jaxcc::in_axes(1), xs));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(part0, xs));
  auto const argpart = [](Array<double> const& a) { return jnp::argpartition(a, 1, 1); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(argpart, jaxcc::in_axes(2), xs));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(argpart, xs));
  auto const lex = [](Array<double> const& a, Array<double> const& b) {
    return jnp::lexsort(std::vector<Array<double>>{jnp::round(a), b}, 0);
  };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(lex, jaxcc::in_axes(2, 2), xs, xs * 2.0));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(lex, xs, xs * 2.0));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges(part, xs));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges(argpart, xs));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges(lex, xs, xs));
}

TEST_CASE("partition, argpartition and lexsort raise JAX's errors", "[ordering][errors]") {
  using jaxcc_test::message_of;
  CHECK(message_of([] { (void)jnp::partition(m(), 5); }).find("kth 5 is out of bounds") != std::string::npos);
  CHECK(message_of([] { (void)jnp::argpartition(m(), -4, 0); }).find("kth -4 is out of bounds") != std::string::npos);
  CHECK(message_of([] { (void)jnp::partition(m(), 0, 2); }) ==
        "partition: axis 2 is out of bounds for array of dimension 2");
  CHECK(message_of([] { (void)jnp::argpartition(jnp::array(1.0f), 0); }) ==
        "argpartition: axis -1 is out of bounds for array of dimension 0");
  CHECK(message_of([] { (void)jnp::lexsort(std::vector<Array<float>>{}); }) ==
        "lexsort: need sequence of keys with len > 0");
  CHECK(message_of([] { (void)jnp::lexsort(std::vector{jnp::array({1, 2}), jnp::array({1, 2, 3})}); }) ==
        "lexsort: all keys need to be the same shape");
  CHECK(message_of([] { (void)jnp::lexsort(std::vector{jnp::array({1, 2})}, 1); }) ==
        "lexsort: axis 1 is out of bounds for array of dimension 1");
}

}  // namespace test_ordering
