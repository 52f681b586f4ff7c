// JAX's results for jnp's sorting, cumulative and quantile functions and
// their gradients (tests/golden/sorting_cases.py wrote them), and how
// test_sorting.cpp, test_cumulative.cpp and test_quantile.cpp read them.
#pragma once

#include "catch.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <jaxcc/jaxcc.hpp>

#include "support.hpp"

namespace jaxcc_test::sorting_golden {

inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct Input {
  std::string name;
  jaxcc::Shape shape;
  std::vector<double> values;
};

/// One call ("cumsum:0", "quantile:linear:-1:0.3": its fields, split at
/// ':') on one of the inputs, and JAX's result.
struct Case {
  std::string call, input;
  jaxcc::Shape shape;
  std::vector<double> values;

  std::vector<std::string> fields() const {
    std::vector<std::string> out(1);
    for (char ch : call) {
      if (ch == ':') out.emplace_back();
      else out.back() += ch;
    }
    return out;
  }
};

inline std::vector<Input> const& inputs() {
  static std::vector<Input> const all = {
#define JAXCC_GOLDEN_SORTING_INPUTS
#include "golden/sorting_cases.inc"
#undef JAXCC_GOLDEN_SORTING_INPUTS
  };
  return all;
}

/// The cases whose call starts with `prefix`.
inline std::vector<Case> cases(std::string_view prefix) {
  static std::vector<Case> const all = {
#define JAXCC_GOLDEN_SORTING_CASES
#include "golden/sorting_cases.inc"
#undef JAXCC_GOLDEN_SORTING_CASES
  };
  std::vector<Case> out;
  for (auto const& c : all)
    if (std::string_view(c.call).starts_with(prefix)) out.push_back(c);
  return out;
}

/// Input `name` as an array of T.
template <class T>
jaxcc::Array<T> input(std::string const& name) {
  for (auto const& in : inputs())
    if (in.name == name) return jaxcc::numpy::array(std::vector<T>(in.values.begin(), in.values.end()), in.shape);
  FAIL("no golden input " << name);
  return {};
}

/// `got` has the case's shape and values (NaN where NaN, the sign of zeros,
/// others within rtol).
template <class T>
void check(Case const& c, jaxcc::Array<T> const& got, double rtol = 1e-6) {
  INFO(c.call << " on input " << c.input);
  CHECK(got.shape() == c.shape);
  CHECK(mismatches<float>(as_doubles(got), c.values, rtol) == "");
}

/// An axis field: "none" or an integer.
inline bool is_none(std::string const& field) { return field == "none"; }

/// w[i] = 0.5 + 0.25 * (i % 4) over the flat index: the weights of the
/// gradient cases' sum(op(x) * w).
inline jaxcc::Array<float> weights(jaxcc::Shape const& shape) {
  std::vector<float> w(static_cast<std::size_t>(shape.numel()));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.5f + 0.25f * static_cast<float>(i % 4);
  return jaxcc::numpy::array(w, shape);
}

}  // namespace jaxcc_test::sorting_golden
