// jnp's index helpers (numpy/index_helpers.hpp): tri, tril_indices,
// triu_indices (and *_from), diag_indices (and _from), mask_indices,
// indices, ix_, unravel_index, ravel_multi_index against JAX's values
// (tests/golden/shape_cases.py); traced indices under jit and vmap; the
// errors, with JAX's concretization error for ravel_multi_index's "raise".
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "shape_golden.hpp"
#include "support.hpp"

namespace test_index_helpers {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc_test::message_of;
using jaxcc_test::shape_golden::Parts;
using jaxcc_test::shape_golden::parts;

namespace {

using Index = Array<std::int32_t>;
Parts pair(std::tuple<Index, Index> const& ij) { return parts(std::vector{std::get<0>(ij), std::get<1>(ij)}); }

}  // namespace

TEST_CASE("index helpers match JAX", "[index_helpers]") {
  jaxcc_test::shape_golden::Inputs const in;
  auto const triu = [](Array<float> const& m, std::int64_t k) { return jnp::triu(m, k); };
  auto const tril = [](Array<float> const& m, std::int64_t k) { return jnp::tril(m, k); };
  jaxcc_test::shape_golden::check_cases(
      "index_helpers/",
      {
          {"tri", [&] { return parts(jnp::tri(3)); }},
          {"tri_int", [&] { return parts(jnp::tri<std::int32_t>(3, 4, -1)); }},
          {"tril_indices", [&] { return pair(jnp::tril_indices(3)); }},
          {"tril_indices_km", [&] { return pair(jnp::tril_indices(3, 1, 5)); }},
          {"triu_indices", [&] { return pair(jnp::triu_indices(4, -1)); }},
          {"triu_indices_km", [&] { return pair(jnp::triu_indices(4, 2, 3)); }},
          {"tril_indices_from", [&] { return pair(jnp::tril_indices_from(in.m23, -1)); }},
          {"triu_indices_from", [&] { return pair(jnp::triu_indices_from(in.m23, 1)); }},
          {"diag_indices", [&] { return parts(jnp::diag_indices(3, 3)); }},
          {"diag_indices_from", [&] { return parts(jnp::diag_indices_from(in.m22)); }},
          {"mask_indices", [&] { return pair(jnp::mask_indices(3, triu, 1)); }},
          {"mask_indices_size", [&] { return pair(jnp::mask_indices(3, tril, 0, 8)); }},
          {"indices", [&] { return parts(jnp::indices({2, 3})); }},
          {"indices_0", [&] { return parts(jnp::indices({})); }},
          {"ix_", [&] { return parts(jnp::ix_(in.i6(jaxcc::slice(0, 2)), in.i6(jaxcc::slice(3, jaxcc::none)))); }},
          {"unravel_index", [&] { return parts(jnp::unravel_index(jnp::array({0, 5, 7, -1, -7, 23, 30}), {2, 3, 4})); }},
          {"ravel_multi_index",
           [&] { return parts(jnp::ravel_multi_index({jnp::array({1, 0, 1}), jnp::array({2, 0, 1})}, {2, 3})); }},
          {"ravel_multi_index_f",
           [&] { return parts(jnp::ravel_multi_index({jnp::array({1, 0}), jnp::array({2, 1})}, {2, 3}, "raise", "F")); }},
          {"ravel_multi_index_clip",
           [&] { return parts(jnp::ravel_multi_index({jnp::array({5, -1}), jnp::array({2, 9})}, {2, 3}, "clip")); }},
          {"ravel_multi_index_wrap",
           [&] { return parts(jnp::ravel_multi_index({jnp::array({5, -1}), jnp::array({-2, 9})}, {2, 3}, "wrap")); }},
      });
}

TEST_CASE("unravel_index and ravel_multi_index take traced indices", "[index_helpers][jit][vmap]") {
  auto const f = [](Index const& flat) {
    auto const ij = jnp::unravel_index(flat, {3, 4});
    return jnp::ravel_multi_index(ij, {3, 4}, "wrap") + jnp::ravel_multi_index(ij, {4, 3}, "clip", "F");
  };
  auto const flat = jnp::array({0, 7, 11, 13, -2});
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(f, flat));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(f, jaxcc::in_axes(0), jnp::array({{0, 7}, {11, 3}, {5, -1}})));
  // Round trip in bounds: ravel(unravel(i)) == i.
  auto const all = jnp::arange<std::int32_t>(12);
  CHECK(jnp::ravel_multi_index(jnp::unravel_index(all, {3, 4}), {3, 4}).to_vector() == all.to_vector());
  // A zero-size axis divides by nothing: JAX's values, (1, 0) and (0, 0).
  auto const zero = jnp::unravel_index(jnp::array({0, 3}), {2, 0});
  CHECK(zero[0].to_vector() == std::vector<std::int32_t>{1, 0});
  CHECK(zero[1].to_vector() == std::vector<std::int32_t>{0, 0});
}

TEST_CASE("index helpers: errors", "[index_helpers][errors]") {
  CHECK(message_of([] { jnp::tril_indices_from(jnp::ones<float>(3)); }) == "Only 2-D inputs are accepted");
  CHECK(message_of([] { jnp::diag_indices(-1); }) == "n argument to diag_indices must be nonnegative, got -1");
  CHECK(message_of([] { jnp::diag_indices(2, -1); }) == "ndim argument to diag_indices must be nonnegative, got -1");
  CHECK(message_of([] { jnp::diag_indices_from(jnp::ones<float>(3)); }) == "input array must be at least 2-d");
  CHECK(message_of([] { jnp::diag_indices_from(jnp::ones<float>({2, 3})); }) ==
        "All dimensions of input must be of equal length");
  CHECK(message_of([] { jnp::ix_(jnp::ones<float>({2, 2})); }) ==
        "Arguments to jax.numpy.ix_ must be 1-dimensional, got shape (2, 2)");
  CHECK(message_of([] { jnp::ix_(jnp::array({true})); }) == "Boolean arguments to jax.numpy.ix_ are not implemented");
  auto const i = jnp::array({1, 2});
  CHECK(message_of([&] { jnp::ravel_multi_index({i}, {2, 3}); }) == "len(multi_index)=1 != len(dims)=2");
  CHECK(message_of([&] { jnp::ravel_multi_index({i, i}, {2, 3}); }) == "invalid entry in coordinates array");
  CHECK(message_of([&] { jnp::ravel_multi_index({i, i}, {2, 3}, "nope"); }) ==
        "invalid mode='nope'. Expected 'raise', 'wrap', 'clip', or 'ignore'.");
  CHECK(message_of([&] { jnp::ravel_multi_index({i, i}, {2, 3}, "clip", "K"); }) ==
        "invalid order='K'. Expected 'C' or 'F'");
  auto const raised = message_of([] {
    jaxcc::jit([](Index const& j) { return jnp::ravel_multi_index({j, j}, {3, 3}); })(jnp::array({1}));
  });
  INFO(raised);
  CHECK(raised.find("Abstract tracer value encountered where concrete value is expected: traced array with shape "
                    "i32[1]") != std::string::npos);
  CHECK(raised.find("under jit use mode='wrap' or mode='clip' instead") != std::string::npos);
}

}  // namespace test_index_helpers
