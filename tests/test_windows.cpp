// jnp's window functions (numpy/windows.hpp): bartlett, blackman, hamming,
// hanning against JAX's values (tests/golden/shape_cases.py), M <= 1
// included; the error for a negative M.
#include "catch.hpp"

#include <string>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "shape_golden.hpp"
#include "support.hpp"

namespace test_windows {

namespace jnp = jaxcc::numpy;
using jaxcc_test::message_of;
using jaxcc_test::shape_golden::parts;

TEST_CASE("window functions match JAX", "[windows]") {
  // Absolute 1e-6 where the windows touch zero (float32 cosines there are ~1e-8).
  jaxcc_test::shape_golden::check_cases("windows/",
                                        {
                                            {"bartlett", [] { return parts(jnp::bartlett(7)); }},
                                            {"blackman", [] { return parts(jnp::blackman(8)); }},
                                            {"hamming", [] { return parts(jnp::hamming(6)); }},
                                            {"hanning", [] { return parts(jnp::hanning(9)); }},
                                            {"hanning_1", [] { return parts(jnp::hanning(1)); }},
                                            {"hamming_0", [] { return parts(jnp::hamming(0)); }},
                                        },
                                        1e-6);
  CHECK(message_of([] { jnp::bartlett(-1); }) == "bartlett: negative dimensions are not allowed, got M=-1");
}

}  // namespace test_windows
