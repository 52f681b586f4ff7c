// The empty-axis and 0-d sweep: JAX's outcome of each call on each input
// (tests/golden/empty_axes_cases.py wrote them) and how
// test_empty_axes_numpy.cpp and test_empty_axes_lax.cpp compare jaxcc's.
// A call is named by its JAX spelling ("jnp.cumsum(x, 0)"); each test file
// maps those names to the same call in C++, on the same float32 input x,
// every element 0.7: 0-d, or with an axis empty (a few report cases: small).
#pragma once

#include "catch.hpp"

#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>

#include "support.hpp"

namespace jaxcc_test::empty_axes {

inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double inf = std::numeric_limits<double>::infinity();

/// One array of a call's results.
struct Result {
  jaxcc::Shape shape;
  std::string dtype;
  std::vector<double> values;
};

/// A call on one input, and JAX's outcome: its results, or its error.
struct Case {
  std::string call;
  jaxcc::Shape input;
  std::vector<Result> results;
  std::string error;  // empty: JAX returned
};

/// The results of a call as Results: an array or a fused expression, a
/// tuple or a vector of them.
template <jaxcc::ArrayLike A>
void append(std::vector<Result>& out, A const& e) {
  auto const a = jaxcc::as_array(e);
  out.push_back({a.shape(), std::string(jaxcc::name(jaxcc::dtype_of<jaxcc::value_type_t<A>>)), as_doubles(a)});
}
template <class T>
void append(std::vector<Result>& out, std::vector<jaxcc::Array<T>> const& parts) {
  for (auto const& a : parts) append(out, a);
}
template <class... A>
void append(std::vector<Result>& out, std::tuple<A...> const& parts) {
  std::apply([&](auto const&... a) { (append(out, a), ...); }, parts);
}
template <class... A>
std::vector<Result> results(A const&... a) {
  std::vector<Result> out;
  (append(out, a), ...);
  return out;
}

using X = jaxcc::Array<float>;
using Call = std::function<std::vector<Result>(X const&)>;
using Calls = std::map<std::string, Call>;

/// The input of a case, as the generator makes it (np.full(shape, 0.7)):
/// 0-d, empty along an axis, or (a few of the report's cases) small.
inline X input_of(jaxcc::Shape const& shape) { return jaxcc::numpy::full<float>(shape, 0.7f); }

/// Runs every case through `calls` and compares with JAX's outcome; every
/// call must have cases and every case a call. Returns how many cases ran.
inline std::size_t sweep(std::vector<Case> const& cases, Calls const& calls) {
  std::size_t ran = 0;
  std::set<std::string> used;
  for (auto const& c : cases) {
    INFO(c.call << " on an input of shape " << c.input);
    auto const call = calls.find(c.call);
    REQUIRE(call != calls.end());
    used.insert(c.call);
    std::vector<Result> got;
    std::string const error = message_of([&] { got = call->second(input_of(c.input)); });
    ++ran;
    if (!c.error.empty()) {
      INFO("JAX raised: " << c.error);
      CHECK(error != "<no error>");
      continue;
    }
    INFO("jaxcc raised: " << error);
    CHECK(error == "<no error>");
    CHECK(got.size() == c.results.size());
    if (got.size() != c.results.size()) continue;  // the rest of the sweep still runs
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("result " << i);
      CHECK(got[i].shape == c.results[i].shape);
      CHECK(got[i].dtype == c.results[i].dtype);
      CHECK(mismatches<float>(got[i].values, c.results[i].values, 2e-6) == "");
    }
  }
  for (auto const& [name, call] : calls) {
    INFO(name << " has no golden case: rerun tests/golden/empty_axes_cases.py");
    CHECK(used.count(name) == 1);
  }
  return ran;
}

}  // namespace jaxcc_test::empty_axes
