// JAX's results for jnp's stacking, splitting, editing, layout, rearranging,
// index-helper, window and selection functions (tests/golden/shape_cases.py
// wrote them), the inputs those calls take, and how the test files that
// mirror those headers check their cases against them by name.
#pragma once

#include "catch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>

#include "support.hpp"

namespace jaxcc_test::shape_golden {

inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double inf = std::numeric_limits<double>::infinity();

/// One array of one case: `part` is its place in a list result (-2: the
/// case returns one array; -1: it returns an empty list).
struct Row {
  std::string name;
  int part;
  std::string dtype;
  jaxcc::Shape shape;
  std::vector<double> values;
};

inline std::vector<Row> const& rows() {
  static std::vector<Row> const all = {
#include "golden/shape_cases.inc"
  };
  return all;
}

/// n values start, start + 1, ... of `shape`, as shape_cases.py's arange.
template <class T = float>
jaxcc::Array<T> counting(std::int64_t n, jaxcc::Shape const& shape, double start = 1) {
  std::vector<T> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(static_cast<T>(static_cast<double>(i) + start));
  return jaxcc::numpy::array(v, shape);
}

/// shape_cases.py's inputs.
struct Inputs {
  jaxcc::Array<float> s = jaxcc::numpy::array(5.0f);
  jaxcc::Array<float> v2 = counting(2, {2});
  jaxcc::Array<float> v3 = counting(3, {3});
  jaxcc::Array<float> m23 = counting(6, {2, 3});
  jaxcc::Array<float> m22 = counting(4, {2, 2}, 7);
  jaxcc::Array<float> t234 = counting(24, {2, 3, 4});
  jaxcc::Array<std::int32_t> i6 = counting<std::int32_t>(6, {6}, 0);
  jaxcc::Array<float> z = jaxcc::numpy::array({0.f, 0.f, 1.f, 2.f, 0.f, 3.f, 0.f, 0.f});
  jaxcc::Array<float> z2 = jaxcc::numpy::array({{0.f, 0.f, 0.f, 0.f}, {0.f, 1.f, 0.f, 2.f}, {0.f, 0.f, 0.f, 0.f}});
};

/// A case's result as a list of arrays.
using Parts = std::vector<jaxcc::AnyArray>;
template <class T>
Parts parts(jaxcc::Array<T> const& x) {
  return {jaxcc::AnyArray(x)};
}
template <class T>
Parts parts(std::vector<jaxcc::Array<T>> const& xs) {
  Parts out;
  for (auto const& x : xs) out.emplace_back(x);
  return out;
}
using Cases = std::map<std::string, std::function<Parts()>>;

/// Every golden case whose name starts with `prefix` has a function in
/// `cases` and each of its arrays matches JAX's dtype, shape and values
/// (to float32's rounding, or within `atol`); every function has a golden case.
inline void check_cases(std::string const& prefix, Cases const& cases, double atol = 0) {
  std::map<std::string, std::vector<Row const*>> wanted;
  for (auto const& row : rows())
    if (row.name.rfind(prefix, 0) == 0) wanted[row.name].push_back(&row);
  for (auto const& [name, f] : cases) CHECK(wanted.count(prefix + name) == 1);
  for (auto const& [name, want] : wanted) {
    INFO(name);
    auto const it = cases.find(name.substr(prefix.size()));
    REQUIRE(it != cases.end());
    auto const got = it->second();
    bool const single = want[0]->part == -2;
    CHECK(got.size() == (want[0]->part == -1 ? 0 : want.size()));
    if (want[0]->part == -1) continue;
    if (single) CHECK(got.size() == 1);
    for (std::size_t k = 0; k < std::min(got.size(), want.size()); ++k) {
      INFO("part " << k);
      CHECK(std::string(jaxcc::name(got[k].dtype())) == want[k]->dtype);
      CHECK(got[k].shape() == want[k]->shape);
      auto values = got[k].visit([](auto const& x) { return as_doubles(x); });
      for (std::size_t i = 0; i < std::min(values.size(), want[k]->values.size()); ++i)
        if (std::abs(values[i] - want[k]->values[i]) <= atol) values[i] = want[k]->values[i];
      CHECK(mismatches<float>(values, want[k]->values, 1e-6) == "");
    }
  }
}

}  // namespace jaxcc_test::shape_golden
