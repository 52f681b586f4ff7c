// Empty axes and 0-d arrays through jax.lax and jax.nn, and the cases of
// the report that asked for the sweep (a cumulative op over an empty axis
// wrote past its buffer; pad, repeat, indexing and updates differed from
// JAX): each call on 0-d and 0-size inputs against JAX's outcome
// (tests/golden/empty_axes_cases.py, empty_axes_lax.py). Run under
// AddressSanitizer in CI, so a kernel that touches an empty buffer fails.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "empty_axes_sweep.hpp"
#include "support.hpp"

namespace test_empty_axes_lax {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
namespace nn = jaxcc::nn;
using jaxcc::Array;
using jaxcc_test::empty_axes::Calls;
using jaxcc_test::empty_axes::Case;
using jaxcc_test::empty_axes::results;
using jaxcc_test::empty_axes::X;
using jaxcc_test::empty_axes::inf;
using jaxcc_test::empty_axes::nan;

std::vector<Case> const& golden() {
  static std::vector<Case> const all = {
#include "golden/empty_axes_lax.inc"
  };
  return all;
}

Array<std::int32_t> int_zeros(std::int64_t n) { return jnp::zeros<std::int32_t>({n}); }

/// The report's cases, as its words name them.
Calls const& report_calls() {
  static Calls const calls = {
      {"jnp.cumsum(x, 0)", [](X const& x) { return results(jnp::cumsum(x, 0)); }},
      {"lax.cumprod(x, 0, reverse=True)", [](X const& x) { return results(lax::cumprod(x, 0, true)); }},
      {"lax.cummax(x, 1)", [](X const& x) { return results(lax::cummax(x, 1)); }},
      {"jnp.pad(x, ((0, 0), (0, 0)), 'edge')", [](X const& x) { return results(jnp::pad(x, {{0, 0}, {0, 0}}, "edge")); }},
      {"jnp.pad(x, ((4, 4), (0, 0)), 'reflect')",
       [](X const& x) { return results(jnp::pad(x, {{4, 4}, {0, 0}}, "reflect")); }},
      {"jnp.cumsum(x, 1)", [](X const& x) { return results(jnp::cumsum(x, 1)); }},
      {"jnp.repeat(x, 3, -1)", [](X const& x) { return results(jnp::repeat(x, 3, -1)); }},
      {"x[2, jnp.zeros(0, int32)]", [](X const& x) { return results(x(2, int_zeros(0))); }},
      {"x.at[jnp.zeros(3, int32)].add(1.0)", [](X const& x) { return results(x.at(int_zeros(3)).add(1.0f)); }},
      {"x.at[0, jnp.zeros(3, int32)].add(1.0)", [](X const& x) { return results(x.at(0, int_zeros(3)).add(1.0f)); }},
      {"x.at[4:-3:2].add(jnp.ones((1, 5)))",
       [](X const& x) { return results(x.at(jaxcc::slice(4, -3, 2)).add(jnp::ones<float>({1, 5}))); }},
      {"jnp.pad(x, 2, 'mean')", [](X const& x) { return results(jnp::pad(x, 2, "mean")); }},
      {"jnp.pad(x, 2, 'linear_ramp')", [](X const& x) { return results(jnp::pad(x, 2, "linear_ramp")); }},
  };
  return calls;
}

/// jax.lax and jax.nn on empty and 0-d inputs.
Calls const& sweep_calls() {
  static Calls const calls = {};
  return calls;
}

TEST_CASE("the report's cases: cumulative ops, pad, repeat, indexing and updates at empty axes match JAX") {
  std::vector<Case> report, swept;
  for (auto const& c : golden()) (report_calls().count(c.call) ? report : swept).push_back(c);
  CHECK(report.size() == 15);
  jaxcc_test::empty_axes::sweep(report, report_calls());
}

TEST_CASE("jax.lax and jax.nn on 0-d and 0-size inputs match JAX") {
  std::vector<Case> swept;
  for (auto const& c : golden())
    if (!report_calls().count(c.call)) swept.push_back(c);
  jaxcc_test::empty_axes::sweep(swept, sweep_calls());
}

}  // namespace test_empty_axes_lax
