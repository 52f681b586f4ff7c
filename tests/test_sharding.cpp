// Devices, Mesh, PartitionSpec, NamedSharding and the sharding diagram.
// Diagram goldens: JAX's own (tests/debugging_primitives_test.py), and
// cases the issue names, worked out by hand from JAX's visualize_sharding
// arithmetic as each comment shows.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>

#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_sharding {

using jaxcc::Device;
using jaxcc::Mesh;
using jaxcc::NamedSharding;
using jaxcc::none;
using jaxcc::P;
using jaxcc::debug::sharding_diagram;
using jaxcc_test::message_of;
using jaxcc_test::streamed;

namespace {

// A mesh of device ids 0 .. n-1, which need not exist: enough to lay out
// and draw shardings (the diagram tests use up to 32).
Mesh mesh_of(jaxcc::Shape const& shape, std::vector<std::string> names) {
  std::vector<Device> devices;
  for (int i = 0; i < shape.numel(); ++i) devices.push_back({i});
  return Mesh(devices, shape, std::move(names));
}

// (8, 8) over P('data', 'model') on the seed's (4, 2) mesh: base width
// int(10 * 8/8) = 10; a part is half the width, int(0.5 * 10 * 2.5) = 12
// columns, so "CPU 0" gets (12 - 5 - 2) // 2 = 2 spaces left and 3 right; a
// quarter of the height, int(0.25 * 10) = 2 rows, leaves no padding rows.
constexpr char const* data_model_8x8 =
    "┌──────────┬──────────┐\n"
    "│  CPU 0   │  CPU 1   │\n"
    "├──────────┼──────────┤\n"
    "│  CPU 2   │  CPU 3   │\n"
    "├──────────┼──────────┤\n"
    "│  CPU 4   │  CPU 5   │\n"
    "├──────────┼──────────┤\n"
    "│  CPU 6   │  CPU 7   │\n"
    "└──────────┴──────────┘\n";

}  // namespace

TEST_CASE("devices are numbered from 0", "[sharding][device]") {
  auto const& all = jaxcc::devices();
  REQUIRE(jaxcc::device_count() >= 1);
  REQUIRE(jaxcc::local_device_count() == jaxcc::device_count());
  for (std::size_t i = 0; i < all.size(); ++i) REQUIRE(all[i].id == static_cast<int>(i));
  REQUIRE(streamed(all[0]) == "CpuDevice(id=0)");
}

TEST_CASE("one process holds every device, and joins no job once they are enumerated", "[sharding][device]") {
  REQUIRE(jaxcc::process_index() == 0);
  REQUIRE(jaxcc::process_count() == 1);
  REQUIRE(jaxcc::local_device_count() == jaxcc::device_count());
  for (std::size_t i = 0; i < jaxcc::devices().size(); ++i) {
    REQUIRE(jaxcc::local_devices()[i] == jaxcc::devices()[i]);
    REQUIRE(jaxcc::devices()[i].process_index == 0);
  }
  // distributed::initialize installs its transport this way; after
  // devices() it is refused with JAX's message, and nothing changes.
  struct NoNetwork final : jaxcc::detail::ProcessNetwork {
    int process_index() const override { return 1; }
    int process_count() const override { return 2; }
    void exchange(jaxcc::detail::SpmdRunId, std::span<jaxcc::detail::ProcessMessage const>,
                  std::span<jaxcc::detail::ProcessMessage const>) override {}
    void report_failure(jaxcc::detail::SpmdRunId, std::span<int const>, std::string const&) noexcept override {}
  } network;
  REQUIRE(message_of([&] { jaxcc::detail::install_process_network(&network); }) ==
          "jaxcc::distributed::initialize() must be called before any jaxcc calls that might enumerate the devices. "
          "This includes any computation, but also calls to jaxcc::devices, jaxcc::device_put, and others.");
  REQUIRE(jaxcc::process_count() == 1);
}

TEST_CASE("JAXCC_NUM_DEVICES sets the device count", "[sharding][device]") {
  // devices() reads it once; the parser is asked directly here.
  char const* before = std::getenv("JAXCC_NUM_DEVICES");
  std::string const saved = before ? before : "";
  ::setenv("JAXCC_NUM_DEVICES", "12", 1);
  REQUIRE(jaxcc::detail::configured_device_count() == 12);
  ::setenv("JAXCC_NUM_DEVICES", "0", 1);
  REQUIRE(message_of([] { jaxcc::detail::configured_device_count(); }) ==
          "JAXCC_NUM_DEVICES must be a positive integer, got '0'");
  ::setenv("JAXCC_NUM_DEVICES", "8x", 1);
  REQUIRE(message_of([] { jaxcc::detail::configured_device_count(); }) ==
          "JAXCC_NUM_DEVICES must be a positive integer, got '8x'");
  if (before) ::setenv("JAXCC_NUM_DEVICES", saved.c_str(), 1);
  else ::unsetenv("JAXCC_NUM_DEVICES");
}

TEST_CASE("meshes, specs and shardings print as JAX prints them", "[sharding]") {
  auto const mesh = mesh_of({4, 2}, {"data", "model"});
  REQUIRE(streamed(mesh) == "Mesh('data': 4, 'model': 2)");
  REQUIRE(streamed(P("data", "model")) == "P('data', 'model')");
  REQUIRE(streamed(P("data", none)) == "P('data', None)");
  REQUIRE(streamed(P("data")) == "P('data',)");
  REQUIRE(streamed(P()) == "P()");
  REQUIRE(streamed(P(jaxcc::axes("data", "model"), none)) == "P(('data', 'model'), None)");
  REQUIRE(streamed(P(jaxcc::axes("data"))) == "P(('data',),)");
  REQUIRE(streamed(NamedSharding(mesh, P("data", "model"))) ==
          "NamedSharding(mesh=Mesh('data': 4, 'model': 2), spec=P('data', 'model'))");
}

TEST_CASE("a sharding's parts: shapes and device ranges", "[sharding]") {
  auto const mesh = mesh_of({4, 2}, {"data", "model"});
  NamedSharding const s(mesh, P("data", "model"));
  REQUIRE(s.shard_shape({64, 32}) == jaxcc::Shape{16, 16});
  auto const map = s.devices_indices_map({64, 32});
  REQUIRE(map.size() == 8);
  // Device 5 sits at mesh position (2, 1): rows 32..48, columns 16..32.
  REQUIRE(map[5].first.id == 5);
  REQUIRE(map[5].second[0] == std::pair<std::int64_t, std::int64_t>{32, 48});
  REQUIRE(map[5].second[1] == std::pair<std::int64_t, std::int64_t>{16, 32});
  // Two mesh axes on one dimension, major to minor: device 3 = (1, 1) is
  // chunk 1 * 2 + 1 = 3 of 8.
  NamedSharding const both(mesh, P(jaxcc::axes("data", "model")));
  REQUIRE(both.devices_indices_map({16})[3].second[0] == std::pair<std::int64_t, std::int64_t>{6, 8});
  // Replicated: every device holds everything.
  NamedSharding const replicated(mesh, P());
  REQUIRE(replicated.shard_shape({8, 8}) == jaxcc::Shape{8, 8});
}

TEST_CASE("sharding errors are JAX's", "[sharding][errors]") {
  auto const mesh = mesh_of({2}, {"x"});
  REQUIRE(message_of([&] { NamedSharding(mesh, P("x")).shard_shape({1}); }) ==
          "NamedSharding(mesh=Mesh('x': 2), spec=P('x',)) implies that array axis 0 is partitioned 2 times, but the "
          "dimension size is 1 (full shape: (1,), per-dimension tiling factors: (2,) should evenly divide the shape)");
  REQUIRE(message_of([&] { NamedSharding(mesh, P("y")); }) ==
          "Resource axis: y of P('y',) is not found in mesh: ('x',).");
  REQUIRE(message_of([&] { NamedSharding(mesh_of({2, 2}, {"x", "y"}), P("x", "x")); }) ==
          "A single NamedSharding spec specification can map every mesh axis to at most one positional dimension, "
          "but P('x', 'x') has duplicate entries for `x`");
  REQUIRE(message_of([&] { NamedSharding(mesh, P("x", none)).shard_shape({4}); }) ==
          "Sharding NamedSharding(mesh=Mesh('x': 2), spec=P('x', None)) is only valid for values of rank at least 2, "
          "but was applied to a value of rank 1.");
  REQUIRE(message_of([&] { Mesh({Device{0}, Device{1}}, {2}, {"x", "y"}); }) ==
          "Mesh requires the ndim of its first argument (`devices`) to equal the length of its second argument "
          "(`axis_names`), but got devices.ndim == 1 and len(axis_names) == 2.");
  REQUIRE(message_of([] { Mesh({Device{0}, Device{1}}, {3}, {"x"}); }) == "Mesh: 2 devices cannot be arranged in shape (3,)");
  REQUIRE(message_of([] { mesh_of({1, 1}, {"x", "x"}); }) == "Mesh axis names must be unique, got 'x' twice");
  REQUIRE(message_of([&] { mesh.axis_size("y"); }) == "Mesh has no axis named 'y'");
  REQUIRE(message_of([] { jaxcc::make_mesh({jaxcc::device_count() + 1}, {"x"}); }) ==
          "Number of devices " + std::to_string(jaxcc::device_count()) + " must be >= the product of mesh_shape (" +
              std::to_string(jaxcc::device_count() + 1) + ",)");
  REQUIRE(message_of([] { sharding_diagram({2, 2, 2}, NamedSharding(mesh_of({1}, {"x"}), P())); }) ==
          "`visualize_sharding` only works for shapes with 1 and 2 dimensions.");
}

TEST_CASE("the diagrams of JAX's own tests", "[sharding][visualize]") {
  auto const mesh84 = mesh_of({8, 4}, {"x", "y"});
  REQUIRE(sharding_diagram({8, 8}, NamedSharding(mesh84, P("x", "y"))) ==
          "┌───────┬───────┬───────┬───────┐\n"
          "│ CPU 0 │ CPU 1 │ CPU 2 │ CPU 3 │\n"
          "├───────┼───────┼───────┼───────┤\n"
          "│ CPU 4 │ CPU 5 │ CPU 6 │ CPU 7 │\n"
          "├───────┼───────┼───────┼───────┤\n"
          "│ CPU 8 │ CPU 9 │CPU 10 │CPU 11 │\n"
          "├───────┼───────┼───────┼───────┤\n"
          "│CPU 12 │CPU 13 │CPU 14 │CPU 15 │\n"
          "├───────┼───────┼───────┼───────┤\n"
          "│CPU 16 │CPU 17 │CPU 18 │CPU 19 │\n"
          "├───────┼───────┼───────┼───────┤\n"
          "│CPU 20 │CPU 21 │CPU 22 │CPU 23 │\n"
          "├───────┼───────┼───────┼───────┤\n"
          "│CPU 24 │CPU 25 │CPU 26 │CPU 27 │\n"
          "├───────┼───────┼───────┼───────┤\n"
          "│CPU 28 │CPU 29 │CPU 30 │CPU 31 │\n"
          "└───────┴───────┴───────┴───────┘\n");
  REQUIRE(sharding_diagram({8, 8}, NamedSharding(mesh84, P("x", none))) ==
          "┌───────────────────────┐\n"
          "│      CPU 0,1,2,3      │\n"
          "├───────────────────────┤\n"
          "│      CPU 4,5,6,7      │\n"
          "├───────────────────────┤\n"
          "│     CPU 8,9,10,11     │\n"
          "├───────────────────────┤\n"
          "│    CPU 12,13,14,15    │\n"
          "├───────────────────────┤\n"
          "│    CPU 16,17,18,19    │\n"
          "├───────────────────────┤\n"
          "│    CPU 20,21,22,23    │\n"
          "├───────────────────────┤\n"
          "│    CPU 24,25,26,27    │\n"
          "├───────────────────────┤\n"
          "│    CPU 28,29,30,31    │\n"
          "└───────────────────────┘\n");
  REQUIRE(sharding_diagram({8, 8}, NamedSharding(mesh_of({4, 2}, {"x", "y"}), P(none, "y"))) ==
          "┌───────────┬───────────┐\n"
          "│           │           │\n"
          "│           │           │\n"
          "│           │           │\n"
          "│           │           │\n"
          "│CPU 0,2,4,6│CPU 1,3,5,7│\n"
          "│           │           │\n"
          "│           │           │\n"
          "│           │           │\n"
          "│           │           │\n"
          "└───────────┴───────────┘\n");
  auto const wide = sharding_diagram({128, 10000}, NamedSharding(mesh84, P("x", none)));
  auto const rule = jaxcc::detail::repeat("─", 78);
  REQUIRE(wide.starts_with("┌" + rule + "┐\n│" + std::string(33, ' ') + "CPU 0,1,2,3" + std::string(34, ' ') + "│\n├"));
  REQUIRE(wide.ends_with("│" + std::string(31, ' ') + "CPU 28,29,30,31" + std::string(32, ' ') + "│\n└" + rule + "┘\n"));
  REQUIRE(jaxcc_test::count(wide, "\n") == 17);
}

TEST_CASE("the diagrams of the seed's mesh", "[sharding][visualize]") {
  auto const mesh = mesh_of({4, 2}, {"data", "model"});
  REQUIRE(sharding_diagram({8, 8}, NamedSharding(mesh, P("data", "model"))) == data_model_8x8);
  // Replicated: one part, int(1 * 10 * 2.5) = 25 wide, so 2 spaces each
  // side of the 19-character label; 10 high, so 4 blank rows each side.
  REQUIRE(sharding_diagram({8, 8}, NamedSharding(mesh, P())) ==
          "┌───────────────────────┐\n"
          "│                       │\n"
          "│                       │\n"
          "│                       │\n"
          "│                       │\n"
          "│  CPU 0,1,2,3,4,5,6,7  │\n"
          "│                       │\n"
          "│                       │\n"
          "│                       │\n"
          "│                       │\n"
          "└───────────────────────┘\n");
  // (8, 4): base width int(10 * 4/8) = 5; a half-width part is
  // int(0.5 * 5 * 2.5) = 6 columns, raised to the minimum 9: 1 space each side.
  REQUIRE(sharding_diagram({8, 4}, NamedSharding(mesh, P("data", "model"))) ==
          "┌───────┬───────┐\n"
          "│ CPU 0 │ CPU 1 │\n"
          "├───────┼───────┤\n"
          "│ CPU 2 │ CPU 3 │\n"
          "├───────┼───────┤\n"
          "│ CPU 4 │ CPU 5 │\n"
          "├───────┼───────┤\n"
          "│ CPU 6 │ CPU 7 │\n"
          "└───────┴───────┘\n");
  // 1-D (8,) replicated: one row; the label is wider than the 9-column
  // minimum, so no padding.
  REQUIRE(sharding_diagram({8}, NamedSharding(mesh, P())) ==
          "┌───────────────────┐\n"
          "│CPU 0,1,2,3,4,5,6,7│\n"
          "└───────────────────┘\n");
}

TEST_CASE("visualize_array_sharding draws an array's layout", "[sharding][visualize]") {
  // The same layout as above, now of an array put there (8 devices: the
  // test runs with JAXCC_NUM_DEVICES=8).
  auto const mesh = mesh_of({4, 2}, {"data", "model"});
  auto const x = jaxcc::device_put(jaxcc::numpy::arange<float>(64).reshape({8, 8}), NamedSharding(mesh, P("data", "model")));
  REQUIRE(jaxcc::debug::sharding_diagram(x) == data_model_8x8);
  // A fused expression is placed as the Array it evaluates to, alone or in a tree.
  auto const doubled = jaxcc::device_put(x * 2.0f, NamedSharding(mesh, P("data", "model")));
  REQUIRE(jaxcc::debug::sharding_diagram(doubled) == data_model_8x8);
  auto const [a, b] = jaxcc::device_put(std::tuple{x * 2.0f, x}, NamedSharding(mesh, P("data", "model")));
  REQUIRE(a.to_vector() == doubled.to_vector());
  REQUIRE(b.to_vector()[63] == 63.0f);
  REQUIRE(doubled.to_vector()[63] == 126.0f);
}

}  // namespace test_sharding
