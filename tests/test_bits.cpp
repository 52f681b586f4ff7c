// jnp.packbits and unpackbits (numpy/bits.hpp): values against JAX
// (tests/golden/bits_cases.py), vmap and jit, round trips and JAX's errors.
#define CATCH_CONFIG_ENABLE_ALL_STRINGMAKERS
#include "catch.hpp"

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"

namespace test_bits {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;

struct Golden {
  std::string name;
  Shape shape;
  std::vector<std::uint8_t> values;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const all = {
#include "golden/bits_cases.inc"
  };
  return all;
}

// The generator's inputs.
Array<std::int32_t> ints() { return jnp::array({{1, 0, 1, 1, 0, 0, 1, 0, 1, 1}, {0, 0, 0, 1, 1, -1, 0, 0, 5, 0}}); }
Array<bool> bools() {
  return jnp::array({true, false, true, true, false, true, true, false, false, true, true, true, false});
}
Array<std::uint8_t> bytes() {
  return jnp::array({{178, 192, 7}, {28, 128, 255}}).astype<std::uint8_t>();
}

std::vector<std::string> split(std::string const& s) {
  std::vector<std::string> parts;
  std::istringstream in(s);
  for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
  return parts;
}

jaxcc::detail::OptionalAxis optional(std::string const& s) {
  if (s == "none") return jaxcc::none;
  return std::stoll(s);
}

Array<std::uint8_t> evaluate(std::string const& name) {
  auto const p = split(name);
  if (p[0] == "packbits") {
    if (p[1] == "i") return jnp::packbits(ints(), optional(p[2]), p[3]);
    return jnp::packbits(bools(), optional(p[2]), p[3]);
  }
  return jnp::unpackbits(bytes(), optional(p[2]), optional(p[3]), p[4]);
}

TEST_CASE("packbits and unpackbits match JAX", "[bits]") {
  REQUIRE(golden().size() == 28);
  for (auto const& g : golden()) {
    INFO(g.name);
    auto const got = evaluate(g.name);
    CHECK(got.shape() == g.shape);
    CHECK(got.to_vector() == g.values);
  }
}

TEST_CASE("packbits and unpackbits: round trips, vmap and jit", "[bits][vmap][jit]") {
  auto const b = bytes();
  CHECK((jnp::packbits(jnp::unpackbits(b, 1), 1).to_vector() == b.to_vector()));
  CHECK((jnp::packbits(jnp::unpackbits(b, 0, jaxcc::none, "little"), 0, "little").to_vector() == b.to_vector()));
  auto const pack = [](Array<std::int32_t> const& x) { return jnp::packbits(x, -1); };
  auto const unpack = [](Array<std::uint8_t> const& x) { return jnp::unpackbits(x, 0, 11, "little"); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(pack, jaxcc::in_axes(0), ints()));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(unpack, jaxcc::in_axes(1), b));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(pack, ints()));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(unpack, b));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges(pack, ints()));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges(unpack, b));
  // 0-d inputs: flattened to one element.
  CHECK(jnp::packbits(jnp::array(3)).to_vector() == std::vector<std::uint8_t>{128});
  CHECK(jnp::unpackbits(jnp::array(5).astype<std::uint8_t>()).shape() == Shape{8});
}

TEST_CASE("packbits and unpackbits raise JAX's errors", "[bits][errors]") {
  using jaxcc_test::message_of;
  CHECK(message_of([] { (void)jnp::packbits(ints(), 2); }) ==
        "packbits: axis 2 is out of bounds for array of dimension 2");
  CHECK(message_of([] { (void)jnp::packbits(ints(), jaxcc::none, "middle"); }) ==
        "packbits: 'order' must be either 'little' or 'big', got 'middle'");
  CHECK(message_of([] { (void)jnp::unpackbits(bytes(), -3); }) ==
        "unpackbits: axis -3 is out of bounds for array of dimension 2");
  CHECK(message_of([] { (void)jnp::unpackbits(bytes(), 0, jaxcc::none, "Big"); }) ==
        "unpackbits: 'order' must be either 'little' or 'big', got 'Big'");
}

}  // namespace test_bits
