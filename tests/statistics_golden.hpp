// JAX's results for the calls of tests/golden/statistics_cases.py, and the
// same inputs built in C++: test_predicates.cpp, test_counting.cpp,
// test_statistics.cpp, test_nan_reductions.cpp, test_setops.cpp and
// test_cumulative.cpp map each call's Python spelling to its C++ form and
// compare.
#pragma once

#include "catch.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <jaxcc/jaxcc.hpp>

#include "empty_axes_sweep.hpp"
#include "support.hpp"

namespace jaxcc_test::statistics_golden {

using empty_axes::Result;
using empty_axes::results;

struct Golden {
  std::string call;
  std::vector<Result> results;
};

inline std::vector<Golden> const& golden() {
  [[maybe_unused]] constexpr double inf = empty_axes::inf;  // the .inc's spelling of infinities
  [[maybe_unused]] constexpr double nan = empty_axes::nan;
  static std::vector<Golden> const all = {
#include "golden/statistics_cases.inc"
  };
  return all;
}

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

// The generator's inputs.
inline constexpr float fnan = std::numeric_limits<float>::quiet_NaN();
inline constexpr float finf = std::numeric_limits<float>::infinity();
inline Array<float> a() {
  return jnp::array({{0.5f, -1.0f, 2.0f, 2.5f}, {3.0f, 0.25f, -4.0f, 1.5f}, {1.0f, 1.75f, 9.0f, -3.0f}});
}
inline Array<float> n() {
  return jnp::array({{0.5f, fnan, 2.0f, 2.5f}, {3.0f, 0.25f, fnan, 1.5f}, {fnan, fnan, fnan, fnan}});
}
inline Array<float> v() { return jnp::array({3.0f, 1.0f, 2.0f, fnan, 1.0f, -0.5f, 0.0f, -2.5f}); }
inline Array<float> p() { return jnp::array({1.0f, 1.00001f, fnan, finf, -finf, 0.0f, 2.0f}); }
inline Array<float> q() { return jnp::array({1.0f, 1.0f, fnan, finf, finf, 1e-9f, 2.1f}); }
inline Array<std::int32_t> i() { return jnp::array<std::int32_t>({{3, 0, 4, 1}, {0, 2, 0, 5}}); }
inline Array<std::int32_t> c() { return jnp::array<std::int32_t>({0, 3, 1, 3, 3, 6}); }
inline Array<float> w() { return jnp::array({0.5f, 1.0f, 2.0f, 0.25f, 1.5f, 3.0f}); }
inline Array<float> wa() { return jnp::array({1.0f, 2.0f, 0.5f, 3.0f}); }
inline Array<std::int32_t> f() { return jnp::array<std::int32_t>({1, 2, 1, 3}); }
inline Array<float> u() { return jnp::array({{3.0f, 1.0f, fnan, 2.0f}, {1.0f, fnan, 3.0f, 3.0f}}); }
inline Array<std::int32_t> s1() { return jnp::array<std::int32_t>({5, 1, 3, 1, 7, 3}); }
inline Array<std::int32_t> s2() { return jnp::array<std::int32_t>({3, 8, 5, 9}); }

using Call = std::function<std::vector<Result>()>;

/// Runs every golden call whose spelling `calls` holds and compares with
/// JAX's results; every entry of `calls` must have a golden case. Returns
/// how many ran.
inline std::size_t check(std::map<std::string, Call> const& calls, double rtol = 2e-6) {
  std::size_t ran = 0;
  for (auto const& g : golden()) {
    auto const call = calls.find(g.call);
    if (call == calls.end()) continue;
    INFO(g.call);
    std::vector<Result> got;
    std::string const error = message_of([&] { got = call->second(); });
    INFO("jaxcc raised: " << error);
    REQUIRE(error == "<no error>");
    REQUIRE(got.size() == g.results.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      INFO("result " << k);
      CHECK(got[k].shape == g.results[k].shape);
      CHECK(got[k].dtype == g.results[k].dtype);
      CHECK(mismatches<float>(got[k].values, g.results[k].values, rtol) == "");
    }
    ++ran;
  }
  CHECK(ran == calls.size());
  return ran;
}

/// The gradient the generator takes: of sum(f(x) * (1 + 0.5 * arange)).
template <class F>
Array<float> weighted_grad(F const& f, Array<float> const& x) {
  return jaxcc::grad([&](Array<float> const& y) {
    Array<float> const r = f(y);
    auto const weights = jnp::arange<float>(static_cast<float>(r.size())).reshape(r.shape()) * 0.5f + 1.0f;
    return jnp::sum(r * weights);
  })(x);
}

}  // namespace jaxcc_test::statistics_golden
