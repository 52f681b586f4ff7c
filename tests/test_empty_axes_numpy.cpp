// Empty axes and 0-d arrays through jax.numpy and jax.numpy.linalg: each
// call on 0-d and 0-size inputs (each axis empty in turn) against JAX's
// outcome (tests/golden/empty_axes_cases.py, empty_axes_numpy.py). Run
// under AddressSanitizer in CI, so a kernel that touches an empty buffer
// fails.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "empty_axes_sweep.hpp"
#include "support.hpp"

namespace test_empty_axes_numpy {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc_test::empty_axes::Calls;
using jaxcc_test::empty_axes::Case;
using jaxcc_test::empty_axes::results;
using jaxcc_test::empty_axes::X;
using jaxcc_test::empty_axes::inf;
using jaxcc_test::empty_axes::nan;

std::vector<Case> const& golden() {
  static std::vector<Case> const all = {
#include "golden/empty_axes_numpy.inc"
  };
  return all;
}

Calls const& calls() {
  static Calls const calls = {
      {"jnp.sin(x)", [](X const& x) { return results(jnp::sin(x)); }},
      {"jnp.sum(x)", [](X const& x) { return results(jnp::sum(x)); }},
      {"jnp.max(x, 0)", [](X const& x) { return results(jnp::max(x, 0)); }},
  };
  return calls;
}

TEST_CASE("jax.numpy and jax.numpy.linalg on 0-d and 0-size inputs match JAX") {
  jaxcc_test::empty_axes::sweep(golden(), calls());
}

}  // namespace test_empty_axes_numpy
