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

// The draws of the test, by name, from a key, of shape (8, 1024) or `shape`.
AnyArray draw(std::string const& name, Array<std::uint32_t> const& key, Shape const& shape) {
  if (name == "normal") return jr::normal(key, shape);
  if (name == "uniform") return jr::uniform(key, shape, -2.0f, 3.0f);
  if (name == "bits") return jr::bits(key, shape);
  return jr::randint(key, shape, -5, 1000000);
}

template <class T>
bool same_values(AnyArray const& got, AnyArray const& want) {
  return got.shape() == want.shape() && got.as<T>().to_vector() == want.as<T>().to_vector();
}
bool same_values(AnyArray const& got, AnyArray const& want) {
  if (got.dtype() != want.dtype()) return false;
  switch (want.dtype()) {
    case jaxcc::DType::float32: return same_values<float>(got, want);
    case jaxcc::DType::uint32: return same_values<std::uint32_t>(got, want);
    default: return same_values<std::int32_t>(got, want);
  }
}

using DrawFn = std::function<AnyArray(Array<std::uint32_t> const&)>;

struct PerDevice {
  std::vector<Shape> draws;             // the shape of each draw in the per-device program
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
  if (out) constraints[0] = jaxcc::detail::layout_of(*out, 2);
  auto partitioned = jaxcc::detail::partition_program(program, mesh, {jaxcc::graph::Layout::replicated(1)}, constraints);
  jaxcc::graph::optimize(partitioned.body);
  PerDevice r;
  for (auto const& eq : partitioned.body.trace->equations) {
    r.primitives.emplace_back(eq.primitive->name());
    if (r.primitives.back() == "random_bits" || r.primitives.back() == "random_uniform")
      r.draws.push_back(eq.outputs[0]->shape);
  }
  return r;
}

bool gathers(PerDevice const& p) {
  for (auto const& name : p.primitives)
    if (name == "all_gather" || name == "psum" || name == "all_to_all") return true;
  return false;
}

std::vector<std::string> const draws{"normal", "uniform", "bits", "randint"};

}  // namespace

TEST_CASE("random: a draw split by out_shardings is drawn in blocks, bit for bit the unsharded draw",
          "[random][partition]") {
  auto const mesh = jaxcc_test::mesh_of({8}, {"x"});
  auto const key = jr::PRNGKey(7);
  Shape const shape{8, 1024};
  for (auto const& name : draws) {
    INFO(name);
    auto const f = [name, shape](Array<std::uint32_t> const& k) { return draw(name, k, shape); };
    auto const want = f(key);
    for (auto const& spec : {P("x"), P(none, "x")}) {
      INFO("out_shardings " << spec);
      auto const sharding = NamedSharding(mesh, spec);
      jaxcc::debug::GatherLog log;
      auto const got = jaxcc::jit(f, jaxcc::out_shardings(sharding))(key);
      CHECK(log.primitives() == std::vector<std::string>{});
      auto const& laid_out = jaxcc::detail::impl_of(got).sharding;
      CHECK((laid_out && *laid_out == sharding));
      CHECK(same_values(got, want));
      // Each device hashed only its block: the per-device program's draws
      // have the block's shape, and nothing is gathered.
      auto const program = per_device(mesh, f, spec);
      Shape const block = spec == P("x") ? Shape{1, 1024} : Shape{8, 128};
      CHECK(program.draws == std::vector<Shape>(name == "randint" ? 2 : 1, block));
      CHECK_FALSE(gathers(program));
    }
  }
}

TEST_CASE("random: a draw before with_sharding_constraint is drawn in blocks, on one- and two-axis meshes",
          "[random][partition]") {
  auto const key = jr::PRNGKey(11);
  Shape const shape{8, 1024};
  auto const check = [&](jaxcc::Mesh const& mesh, P const& spec, Shape const& block) {
    INFO("constraint " << spec);
    auto const sharding = NamedSharding(mesh, spec);
    for (auto const& name : draws) {
      INFO(name);
      auto const f = [name, shape, sharding](Array<std::uint32_t> const& k) -> AnyArray {
        auto const x = draw(name, k, shape);
        if (x.dtype() == jaxcc::DType::float32) return lax::with_sharding_constraint(x.as<float>(), sharding);
        if (x.dtype() == jaxcc::DType::uint32) return lax::with_sharding_constraint(x.as<std::uint32_t>(), sharding);
        return lax::with_sharding_constraint(x.as<std::int32_t>(), sharding);
      };
      auto const placed = jaxcc::device_put(key, NamedSharding(mesh, P()));  // so that jit partitions
      jaxcc::debug::GatherLog log;
      auto const got = jaxcc::jit(f)(placed);
      CHECK(log.primitives() == std::vector<std::string>{});
      CHECK(same_values(got, f(key)));
      auto const program = per_device(mesh, f, std::nullopt);
      CHECK(program.draws == std::vector<Shape>(name == "randint" ? 2 : 1, block));
      CHECK_FALSE(gathers(program));
    }
  };
  auto const line = jaxcc_test::mesh_of({8}, {"x"});
  check(line, P("x"), {1, 1024});
  auto const grid = jaxcc_test::mesh_of({2, 4}, {"x", "y"});
  check(grid, P("x", "y"), {4, 256});
  check(grid, P("y", "x"), {2, 512});
  check(grid, P(none, axes("y", "x")), {8, 128});
}

TEST_CASE("random: an unconstrained draw is whole on every device; split keys keep their split",
          "[random][partition]") {
  auto const mesh = jaxcc_test::mesh_of({8}, {"x"});
  // No user wants it split: every device draws it whole.
  auto const whole = per_device(mesh, [](Array<std::uint32_t> const& k) { return AnyArray(jr::normal(k, {8, 16})); },
                                std::nullopt);
  CHECK(whole.draws == std::vector<Shape>{Shape{8, 16}});
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

TEST_CASE("random: a draw that does not divide into the wanted blocks is drawn whole and split after",
          "[random][partition]") {
  auto const mesh = jaxcc_test::mesh_of({2, 4}, {"x", "y"});
  auto const key = jr::PRNGKey(5);
  // 6 rows on 4 devices along 'y' would not split: out_shardings refuses
  // it, as JAX's; 6 over 'x' (2) splits, 3 columns over 'y' would not.
  auto const f = [](Array<std::uint32_t> const& k) { return jr::uniform(k, {6, 3}); };
  auto const got = jaxcc::jit(f, jaxcc::out_shardings(NamedSharding(mesh, P("x"))))(key);
  CHECK(got.to_vector() == f(key).to_vector());
  CHECK(jaxcc_test::message_of([&] { jaxcc::jit(f, jaxcc::out_shardings(NamedSharding(mesh, P("y"))))(key); }) !=
        "<no error>");
}

}  // namespace test_random_partition
