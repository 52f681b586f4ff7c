// Random draws under sharded jit: a draw whose users want it split (a
// sharding constraint, out_shardings) is drawn in blocks, each device
// hashing only the counters of its own block, and gives the unsharded
// values bit for bit. The per-device program shows it: its draws have the
// block's shape and it gathers nothing. Run with JAXCC_NUM_DEVICES=8
// (tests/CMakeLists.txt).
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>
#include <jaxcc/testing/catch.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_random_partition {

namespace jr = jaxcc::random;
namespace lax = jaxcc::lax;
using jaxcc::AnyArray;
using jaxcc::Array;
using jaxcc::axes;
using jaxcc::NamedSharding;
using jaxcc::none;
using jaxcc::P;
using jaxcc::Shape;

namespace {

// Calls check(name, f) for each draw of the test: f(key) draws `shape`.
template <class Check>
void for_each_draw(Shape const& shape, Check&& check) {
  check("normal", [shape](Array<std::uint32_t> const& k) { return jr::normal(k, shape); });
  check("uniform", [shape](Array<std::uint32_t> const& k) { return jr::uniform(k, shape, -2.0f, 3.0f); });
  check("bits", [shape](Array<std::uint32_t> const& k) { return jr::bits(k, shape); });
  check("randint", [shape](Array<std::uint32_t> const& k) { return jr::randint(k, shape, -5, 1000000); });
}

using DrawFn = std::function<AnyArray(Array<std::uint32_t> const&)>;

struct PerDevice {
  std::vector<std::string> draws;       // the shape of each draw in the per-device program
  std::vector<std::string> primitives;  // its primitives
};

// The program each device runs for f of a replicated key, its output laid
// out as `out` (none: as f's own constraints say), as sharded jit makes it.
PerDevice per_device(jaxcc::Mesh const& mesh, DrawFn const& f, std::optional<P> const& out) {
  jaxcc::detail::install_mesh_operations();
  jaxcc::graph::FlatFunction const flat = [&](std::vector<AnyArray> const& in) {
    return std::vector<AnyArray>{f(in[0].as<std::uint32_t>())};
  };
  std::vector<jaxcc::graph::Aval> const avals{{jaxcc::DType::uint32, Shape{2}}};
  std::vector<AnyArray> closure;
  auto const program = jaxcc::graph::trace_program(flat, avals, closure);
  REQUIRE(closure.empty());
  std::vector<std::optional<jaxcc::graph::Layout>> constraints(1);
  if (out) constraints[0] = jaxcc::detail::layout_of(*out, program.outputs[0].shape().size());
  auto partitioned = jaxcc::detail::partition_program(program, mesh, {jaxcc::graph::Layout::replicated(1)}, constraints);
  jaxcc::graph::optimize(partitioned.body);
  PerDevice r;
  for (auto const& eq : partitioned.body.trace->equations) {
    r.primitives.emplace_back(eq.primitive->name());
    if (r.primitives.back() == "random_bits" || r.primitives.back() == "random_uniform")
      r.draws.push_back(jaxcc::to_string(eq.outputs[0]->shape));
  }
  return r;
}

bool gathers(PerDevice const& p) {
  for (auto const& name : p.primitives)
    if (name == "all_gather" || name == "psum" || name == "all_to_all") return true;
  return false;
}

}  // namespace

TEST_CASE("random: a draw split by out_shardings is drawn in blocks, bit for bit the unsharded draw",
          "[random][partition]") {
  auto const mesh = jaxcc_test::mesh_of({8}, {"x"});
  auto const key = jr::PRNGKey(7);
  for_each_draw({8, 1024}, [&](std::string const& name, auto const& f) {
    INFO(name);
    auto const want = f(key);
    for (auto const& spec : {P("x"), P(none, "x")}) {
      INFO("out_shardings " << spec);
      auto const sharding = NamedSharding(mesh, spec);
      jaxcc::debug::GatherLog log;
      auto const got = jaxcc::jit(f, jaxcc::out_shardings(sharding))(key);
      CHECK(log.primitives() == std::vector<std::string>{});
      CHECK(got.sharding() == sharding);
      CHECK(got.to_vector() == want.to_vector());
      // Each device hashed only its block: the per-device program's draws
      // have the block's shape, and nothing is gathered.
      auto const program = per_device(mesh, [&](Array<std::uint32_t> const& k) { return AnyArray(f(k)); }, spec);
      Shape const block = spec == P("x") ? Shape{1, 1024} : Shape{8, 128};
      CHECK(program.draws == std::vector<std::string>(name == "randint" ? 2 : 1, jaxcc::to_string(block)));
      CHECK_FALSE(gathers(program));
    }
  });
}

TEST_CASE("random: a draw before with_sharding_constraint is drawn in blocks, on one- and two-axis meshes",
          "[random][partition]") {
  auto const key = jr::PRNGKey(11);
  auto const check = [&](jaxcc::Mesh const& mesh, P const& spec, Shape const& block) {
    INFO("constraint " << spec);
    auto const sharding = NamedSharding(mesh, spec);
    auto const placed = jaxcc::device_put(key, NamedSharding(mesh, P()));  // so that jit partitions
    for_each_draw({8, 1024}, [&](std::string const& name, auto const& draw) {
      INFO(name);
      auto const f = [&](Array<std::uint32_t> const& k) { return lax::with_sharding_constraint(draw(k), sharding); };
      jaxcc::debug::GatherLog log;
      auto const got = jaxcc::jit(f)(placed);
      CHECK(log.primitives() == std::vector<std::string>{});
      CHECK(got.sharding() == sharding);
      CHECK(got.to_vector() == draw(key).to_vector());
      auto const program = per_device(mesh, [&](Array<std::uint32_t> const& k) { return AnyArray(f(k)); }, std::nullopt);
      CHECK(program.draws == std::vector<std::string>(name == "randint" ? 2 : 1, jaxcc::to_string(block)));
      CHECK_FALSE(gathers(program));
    });
  };
  auto const line = jaxcc_test::mesh_of({8}, {"x"});
  check(line, P("x"), {1, 1024});
  auto const grid = jaxcc_test::mesh_of({2, 4}, {"x", "y"});
  check(grid, P("x", "y"), {4, 256});
  check(grid, P("y", "x"), {2, 512});
  check(grid, P(none, axes("y", "x")), {8, 128});
  check(grid, P("y"), {2, 1024});  // replicated over 'x': both devices of a row draw the same block
}

TEST_CASE("random: an unconstrained draw is whole on every device; split keys keep their split",
          "[random][partition]") {
  auto const mesh = jaxcc_test::mesh_of({8}, {"x"});
  // No user wants it split: every device draws it whole.
  auto const whole = per_device(mesh, [](Array<std::uint32_t> const& k) { return AnyArray(jr::normal(k, {8, 16})); },
                                std::nullopt);
  CHECK(whole.draws == std::vector<std::string>{"(8, 16)"});
  // A batch of keys split over the mesh (vmap of a draw): each device draws
  // for its own keys, and a constraint on the draw's columns adds nothing
  // to gather.
  auto const keys = jr::split(jr::PRNGKey(3), 8);
  auto const f = jaxcc::vmap([](Array<std::uint32_t> const& k) { return jr::normal(k, {64}); });
  auto const want = f(keys);
  jaxcc::debug::GatherLog log;
  auto const got = jaxcc::jit(f)(jaxcc::device_put(keys, NamedSharding(mesh, P("x"))));
  CHECK(log.primitives() == std::vector<std::string>{});
  CHECK(got.sharding() == NamedSharding(mesh, P("x")));
  CHECK(got.to_vector() == want.to_vector());
}

TEST_CASE("random: odd shapes and a float64 draw split in blocks", "[random][partition]") {
  auto const mesh = jaxcc_test::mesh_of({2, 4}, {"x", "y"});
  auto const key = jr::PRNGKey(5);
  // Rows of 3 (not a multiple of the SIMD width), a 3-d draw split in its
  // middle dimension, float64 words from both hash outputs.
  auto const f = [](Array<std::uint32_t> const& k) { return jr::uniform(k, {6, 3}); };
  CHECK(jaxcc::jit(f, jaxcc::out_shardings(NamedSharding(mesh, P("x"))))(key).to_vector() == f(key).to_vector());
  auto const g = [](Array<std::uint32_t> const& k) { return jr::uniform<double>(k, {3, 8, 5}, -1.0, 1.0); };
  auto const sharding = NamedSharding(mesh, P(none, axes("x", "y")));
  CHECK(jaxcc::jit(g, jaxcc::out_shardings(sharding))(key).to_vector() == g(key).to_vector());
  CHECK(per_device(mesh, [&](Array<std::uint32_t> const& k) { return AnyArray(g(k)); }, P(none, axes("x", "y"))).draws ==
        std::vector<std::string>{"(3, 1, 5)"});
  // 6 rows do not split over 'y' (4): JAX's error, before any draw.
  CHECK(jaxcc_test::message_of([&] { jaxcc::jit(f, jaxcc::out_shardings(NamedSharding(mesh, P("y"))))(key); }) !=
        "<no error>");
}

}  // namespace test_random_partition
