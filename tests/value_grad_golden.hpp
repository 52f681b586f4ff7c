// A table of JAX's values and gradients, one row per case (a generator's
// `{name, shape, values, grad}` rows, each case named by its Python
// spelling), and the check of C++ cases against it: each case's value, and
// the gradient of the sum of its value, within a relative and an absolute
// tolerance. The test files of calculus and of jnp.linalg's array-API
// functions share it.
#pragma once

#include "catch.hpp"

#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>

#include "support.hpp"

namespace value_grad_golden {

struct Row {
  std::string name;
  jaxcc::Shape shape;
  std::vector<double> values, grad;
};

/// A case: its Python spelling, its input, and the function of it.
using Fn = std::function<jaxcc::Array<float>(jaxcc::Array<float> const&)>;
using Case = std::tuple<std::string, jaxcc::Array<float>, Fn>;

/// Each element within rtol * |expected| + atol ("" when all are).
inline std::string mismatches(std::vector<double> const& got, std::vector<double> const& expected, double rtol,
                              double atol) {
  if (got.size() != expected.size()) return "size " + std::to_string(got.size()) + " vs " + std::to_string(expected.size());
  std::string out;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - expected[i]) <= rtol * std::abs(expected[i]) + atol))
      out += "element " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs " + std::to_string(expected[i]) + "; ";
  return out;
}

/// The cases against the table, row by row in order (every row has its
/// case): values within `tolerance`, gradients within `grad_tolerance`
/// (each {rtol, atol}).
inline void check(std::vector<Case> const& cases, std::vector<Row> const& table, std::pair<double, double> tolerance,
                  std::pair<double, double> grad_tolerance) {
  REQUIRE(cases.size() == table.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto const& [name, x, f] = cases[i];
    auto const& row = table[i];
    INFO(name);
    REQUIRE(row.name == name);
    auto const y = f(x);
    CHECK(y.shape() == row.shape);
    CHECK(mismatches(jaxcc_test::as_doubles(y), row.values, tolerance.first, tolerance.second) == "");
    auto const fn = f;  // not a structured binding: clang 14 cannot capture one
    auto const dx = jaxcc::grad([&](jaxcc::Array<float> const& a) { return jaxcc::numpy::sum(fn(a)); })(x);
    CHECK(mismatches(jaxcc_test::as_doubles(dx), row.grad, grad_tolerance.first, grad_tolerance.second) == "");
  }
}

}  // namespace value_grad_golden
