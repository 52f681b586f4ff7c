// What the tests of lax's shape functions, reductions, sorts, gather and
// scatters share: JAX's values for them (tests/golden/lax_more_cases.py,
// each case named by its Python spelling), the generator's inputs, and a
// check of a result against a case.
#pragma once

#include "catch.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>

#include "support.hpp"

namespace lax_more_golden {

struct Case {
  std::string name;
  jaxcc::Shape shape;
  std::vector<double> values;
};

inline std::vector<Case> const& cases() {
  [[maybe_unused]] constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  [[maybe_unused]] constexpr double inf = std::numeric_limits<double>::infinity();
  static std::vector<Case> const all = {
#include "golden/lax_more_cases.inc"
  };
  return all;
}

inline Case const& find(std::string const& name) {
  for (auto const& c : cases())
    if (c.name == name) return c;
  throw std::runtime_error("no golden case " + name);
}

/// `y` has the case's shape and values (float32 tolerance; a zero's sign,
/// the order of XLA's sums, is not compared).
template <class A>
void check(std::string const& name, A const& y, double rtol = 2e-6) {
  auto const& c = find(name);
  INFO(name);
  auto const a = jaxcc::as_array(y);
  CHECK(a.shape() == c.shape);
  auto got = jaxcc_test::as_doubles(a);
  auto expected = c.values;
  for (auto& e : got) e += 0.0;
  for (auto& e : expected) e += 0.0;
  CHECK(jaxcc_test::mismatches<float>(got, expected, rtol) == "");
}

// The generator's inputs.
namespace jnp = jaxcc::numpy;
using jaxcc::Array;
inline Array<float> m() {
  return jnp::arange<float>(0, 12).reshape({3, 4}) * jnp::array({1.0f, -0.5f, 0.75f, -1.25f}) + 0.25f;
}
inline Array<float> t() { return jnp::arange<float>(0, 24).reshape({2, 3, 4}) * 0.5f - 3.0f; }
inline Array<float> v() { return jnp::array({0.5f, -1.5f, 2.0f, 3.25f}); }
inline Array<bool> b() { return jnp::array({{true, false, true}, {true, true, true}}); }
inline Array<std::int32_t> iv() { return jnp::array<std::int32_t>({{3, 5, 6}, {12, 10, 7}}); }
inline Array<std::int32_t> keys() { return jnp::array<std::int32_t>({2, 1, 2, 1, 0, 2}); }
inline Array<float> keys2() { return jnp::array({0.5f, 3.0f, -1.0f, 3.0f, 2.0f, -1.0f}); }
inline Array<float> vals() { return jnp::arange<float>(0, 6) * 1.5f; }
inline Array<std::int32_t> rows() { return jnp::array<std::int32_t>({{2}, {0}, {5}}); }
inline Array<std::int32_t> corners() { return jnp::array<std::int32_t>({{0, 1}, {1, 2}, {2, 3}, {-1, 0}}); }
inline Array<std::int32_t> bidx() { return jnp::array<std::int32_t>({{1}, {3}}); }
inline Array<std::int32_t> sidx() { return jnp::array<std::int32_t>({{1}, {1}, {0}, {7}}); }
inline Array<float> ups() { return jnp::array({10.0f, 20.0f, -30.0f, 40.0f}); }
inline Array<float> z3() { return jnp::array({1.0f, 25.0f, -2.0f}); }
inline Array<float> row_ups() { return jnp::array({{1.0f, 2.0f, 3.0f, 4.0f}, {5.0f, 6.0f, 7.0f, 8.0f}}); }
inline Array<std::int32_t> ridx() { return jnp::array<std::int32_t>({{2}, {0}}); }

/// The gradient of sum(sin(f(x))), as the generator's "grad ..." cases take it.
template <class F>
Array<float> sin_grad(F const& f, Array<float> const& x) {
  return jaxcc::grad([&](Array<float> const& a) { return Array<float>(jnp::sum(jnp::sin(Array<float>(f(a))))); })(x);
}

}  // namespace lax_more_golden
