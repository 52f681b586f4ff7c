// Meshes over several processes (jaxcc/distributed.hpp), run under mpirun
// with 2 and 4 processes of 2 devices each (tests/CMakeLists.txt). Every
// process builds the same global arrays, so the expected values are plain
// unsharded computations on them, done here in each process; the sharded
// results are brought back whole with process_allgather. The fault cases
// (hidden tags, each run by its own mpirun) check that a process that stops,
// a device that fails and mismatched programs end in errors, not hangs.
#include "catch.hpp"
#include "catch_session.hpp"

#include <jaxcc/distributed.hpp>
#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support.hpp"

namespace test_distributed {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::in_specs;
using jaxcc::Mesh;
using jaxcc::NamedSharding;
using jaxcc::none;
using jaxcc::out_specs;
using jaxcc::P;
using jaxcc::shard_map;
using jaxcc::testing::AllClose;
using jaxcc_test::message_of;

namespace {

int devices() { return jaxcc::device_count(); }
int processes() { return jaxcc::process_count(); }

/// Distinct integer values (exact in float32 sums), the same in every process.
Array<float> iota(jaxcc::Shape const& shape) {
  return jnp::arange<float>(shape.numel()).reshape(shape) * 3.0f - 7.0f;
}

/// The whole of a global array, on every process.
template <class T>
Array<T> whole(Array<T> const& x) {
  return jaxcc::process_allgather(x, true);
}

Mesh line() { return jaxcc::make_mesh({devices()}, {"x"}); }
/// processes × each process's devices: "procs" crosses processes, "local" does not.
Mesh grid() { return jaxcc::make_mesh({processes(), jaxcc::local_device_count()}, {"procs", "local"}); }

}  // namespace

TEST_CASE("every process's devices are global, process by process", "[distributed]") {
  REQUIRE(processes() >= 2);
  REQUIRE(jaxcc::local_device_count() == 2);
  REQUIRE(devices() == 2 * processes());
  for (int i = 0; i < devices(); ++i) {
    CHECK(jaxcc::devices()[static_cast<std::size_t>(i)].id == i);
    CHECK(jaxcc::devices()[static_cast<std::size_t>(i)].process_index == i / 2);
  }
  auto const& local = jaxcc::local_devices();
  REQUIRE(local.size() == 2);
  CHECK(local[0].id == 2 * jaxcc::process_index());
  CHECK(local[1].process_index == jaxcc::process_index());
}

TEST_CASE("reducing collectives across processes give the unsharded results", "[distributed]") {
  auto const d = devices();
  auto const x = iota({d * 2, 3});
  auto const xs = jaxcc::device_put(x, NamedSharding(line(), P("x")));
  auto const blocks = x.reshape({d, 2, 3});
  auto const reduced = [&](auto collective) {
    return shard_map([=](Array<float> const& b) { return Array<float>(collective(b)); }, line(), in_specs(P("x")),
                     out_specs(P()))(xs);
  };
  // Replicated results: every process holds them whole.
  CHECK_THAT(reduced([](auto const& b) { return lax::psum(b, "x"); }), AllClose(jnp::sum(blocks, 0), 0, 0));
  CHECK_THAT(reduced([](auto const& b) { return lax::pmean(b, "x"); }), AllClose(jnp::mean(blocks, 0), 1e-6, 1e-6));
  CHECK_THAT(reduced([](auto const& b) { return lax::pmax(b, "x"); }), AllClose(jnp::max(blocks, 0), 0, 0));
  CHECK_THAT(reduced([](auto const& b) { return lax::pmin(b, "x"); }), AllClose(jnp::min(blocks, 0), 0, 0));

  // An integer psum, and one over each axis of a processes × devices mesh.
  auto const xi = jnp::arange<std::int32_t>(d * 4).reshape({d * 2, 2});
  auto const psum_i = shard_map([](Array<std::int32_t> const& b) { return lax::psum(b, "x"); }, line(),
                                in_specs(P("x")), out_specs(P()))(jaxcc::device_put(xi, NamedSharding(line(), P("x"))));
  CHECK(psum_i.to_vector() == jnp::sum(xi.reshape({d, 2, 2}), 0).to_vector());

  auto const g = iota({processes() * 2, 2 * 4});
  auto const gs = jaxcc::device_put(g, NamedSharding(grid(), P("procs", "local")));
  auto const over_procs = shard_map([](Array<float> const& b) { return lax::psum(b, "procs"); }, grid(),
                                    in_specs(P("procs", "local")), out_specs(P(none, "local")))(gs);
  CHECK_THAT(whole(over_procs), AllClose(jnp::sum(g.reshape({processes(), 2, 8}), 0), 0, 0));
  auto const over_local = shard_map([](Array<float> const& b) { return lax::psum(b, "local"); }, grid(),
                                    in_specs(P("procs", "local")), out_specs(P("procs")))(gs);
  auto const want_local = jnp::sum(g.reshape({processes() * 2, 2, 4}), 1);
  CHECK_THAT(whole(over_local), AllClose(want_local, 0, 0));
}

TEST_CASE("gathering and moving collectives across processes give the unsharded results", "[distributed]") {
  auto const d = devices();
  auto const x = iota({d * 2, 4});
  auto const xs = jaxcc::device_put(x, NamedSharding(line(), P("x")));

  SECTION("all_gather") {
    auto const got = shard_map([](Array<float> const& b) { return lax::all_gather(b, "x", 0, true); }, line(),
                               in_specs(P("x")), out_specs(P()))(xs);
    CHECK_THAT(got, AllClose(x, 0, 0));
  }
  SECTION("psum_scatter: device k keeps block k of the sum") {
    auto const y = iota({d, d * 2});
    auto const got = shard_map([d](Array<float> const& b) { return lax::psum_scatter(b.reshape({d * 2}), "x", 0, true); },
                               line(), in_specs(P("x")), out_specs(P("x")))(
        jaxcc::device_put(y, NamedSharding(line(), P("x"))));
    CHECK_THAT(whole(got), AllClose(jnp::sum(y, 0), 0, 0));
  }
  SECTION("ppermute one step around the ring of devices") {
    std::vector<std::pair<int, int>> ring;
    for (int k = 0; k < d; ++k) ring.emplace_back(k, (k + 1) % d);
    auto const got = shard_map([&](Array<float> const& b) { return lax::ppermute(b, "x", ring); }, line(),
                               in_specs(P("x")), out_specs(P("x")))(xs);
    CHECK_THAT(whole(got), AllClose(jnp::roll(x, 2, 0), 0, 0));  // each device's 2 rows move to the next
  }
  SECTION("all_to_all: device k gets column block k of every device's rows") {
    // Device k holds rows 2k, 2k+1 and sends column j of them to device j,
    // which stacks what it gets by sender: column j of every row.
    auto const y = iota({d * 2, d});
    auto const got = shard_map([](Array<float> const& b) { return lax::all_to_all(b, "x", 1, 0, true); }, line(),
                               in_specs(P("x")), out_specs(P("x")))(jaxcc::device_put(y, NamedSharding(line(), P("x"))));
    CHECK_THAT(whole(got).reshape({d, 2 * d}), AllClose(y.T(), 0, 0));
  }
  SECTION("axis_index") {
    auto const got = shard_map([](Array<float> const& b) { return Array<std::int32_t>(lax::axis_index("x") + 0 * b.astype<std::int32_t>()); },
                               line(), in_specs(P("x")), out_specs(P("x")))(
        jaxcc::device_put(jnp::zeros<float>({d}), NamedSharding(line(), P("x"))));
    CHECK(whole(got).to_vector() == jnp::arange<std::int32_t>(d).to_vector());
  }
}

TEST_CASE("shard_map with ppermute around the ring of processes", "[distributed]") {
  // Each process's 2 devices send their blocks to the next process's
  // devices at the same local position.
  auto const n = processes();
  std::vector<std::pair<int, int>> ring;
  for (int p = 0; p < n; ++p) ring.emplace_back(p, (p + 1) % n);
  auto const x = iota({n, 2 * 3});
  auto const got = shard_map([&](Array<float> const& b) { return lax::ppermute(b, "procs", ring); }, grid(),
                             in_specs(P("procs", "local")), out_specs(P("procs", "local")))(
      jaxcc::device_put(x, NamedSharding(grid(), P("procs", "local"))));
  CHECK_THAT(whole(got), AllClose(jnp::roll(x, 1, 0), 0, 0));
}

TEST_CASE("a sharded jit matmul across processes", "[distributed]") {
  auto const d = devices();
  auto const a = iota({d * 3, 2 * d}) * 0.125f;
  auto const b = iota({2 * d, 5}) * 0.25f;
  auto const want = jnp::matmul(a, b);
  auto const matmul = jaxcc::jit([](Array<float> const& l, Array<float> const& r) { return jnp::matmul(l, r); });
  SECTION("rows split: the product's rows stay split") {
    auto const got = matmul(jaxcc::device_put(a, NamedSharding(line(), P("x"))), b);
    CHECK_THAT(whole(got), AllClose(want, 1e-6, 1e-6));
  }
  SECTION("the contraction split: partial products summed across processes") {
    auto const got = matmul(jaxcc::device_put(a, NamedSharding(line(), P(none, "x"))),
                            jaxcc::device_put(b, NamedSharding(line(), P("x"))));
    CHECK_THAT(got, AllClose(want, 1e-6, 1e-6));  // replicated: readable in every process
  }
}

TEST_CASE("eager operations on arrays held across processes run partitioned", "[distributed]") {
  auto const x = iota({devices() * 2, 3}) * 0.5f;
  auto const xs = jaxcc::device_put(x, NamedSharding(line(), P("x")));
  Array<float> const doubled = xs * 2.0f + 1.0f;  // split like xs
  CHECK_THAT(whole(doubled), AllClose(x * 2.0f + 1.0f, 0, 0));
  CHECK_THAT(jnp::sum(xs * xs), AllClose(jnp::sum(x * x), 1e-6, 0));  // replicated: readable here
}

struct Mlp {
  Array<float> w1, b1, w2, b2;
};
JAXCC_PYTREE(Mlp, w1, b1, w2, b2);

Array<float> mlp_loss(Mlp const& p, Array<float> const& x, Array<float> const& y) {
  Array<float> const h = jnp::tanh(jnp::matmul(x, p.w1) + p.b1);
  Array<float> const logits = jnp::matmul(h, p.w2) + p.b2;
  return -jnp::mean(jnp::sum(y * jaxcc::nn::log_softmax(logits, -1), 1));
}
Mlp mlp_step(Mlp const& p, Array<float> const& x, Array<float> const& y) {
  auto const g = jaxcc::grad(mlp_loss)(p, x, y);
  return jaxcc::tree::map([](Array<float> const& w, Array<float> const& gw) { return Array<float>(w - 0.1f * gw); }, p, g);
}

TEST_CASE("a data-parallel training step across processes gives the single-process step's parameters", "[distributed]") {
  auto const batch = 4 * devices();
  auto const x = jaxcc_test::smooth({batch, 12}, 0.3).astype<float>();
  std::vector<std::int32_t> labels;
  for (int i = 0; i < batch; ++i) labels.push_back(i % 3);
  auto const y = jaxcc::nn::one_hot<float>(jnp::array(labels, jaxcc::Shape{batch}), 3);
  Mlp const p{jaxcc_test::smooth({12, 8}, 0.17, 0.4).astype<float>() * 0.3f, jaxcc_test::smooth({8}, 0.5).astype<float>() * 0.1f,
              jaxcc_test::smooth({8, 3}, 0.23, 0.9).astype<float>() * 0.3f, jaxcc_test::smooth({3}, 0.7).astype<float>() * 0.1f};
  auto const want = mlp_step(p, x, y);  // this process alone, unsharded
  auto const replicated = NamedSharding(line(), P());
  auto const split = NamedSharding(line(), P("x"));
  auto const got = jaxcc::jit(mlp_step)(jaxcc::device_put(p, replicated), jaxcc::device_put(x, split),
                                        jaxcc::device_put(y, split));
  CHECK_THAT(got.w1, AllClose(want.w1, 1e-5, 1e-6));
  CHECK_THAT(got.b1, AllClose(want.b1, 1e-5, 1e-6));
  CHECK_THAT(got.w2, AllClose(want.w2, 1e-5, 1e-6));
  CHECK_THAT(got.b2, AllClose(want.b2, 1e-5, 1e-6));
}

TEST_CASE("arrays from each process's data, and gathered back", "[distributed]") {
  auto const n = processes(), me = jaxcc::process_index();
  Array<float> const rows_here = iota({4, 3}) + static_cast<float>(100 * me);  // this process's 4 rows
  SECTION("make_array_from_process_local_data infers the global shape") {
    auto const global = jaxcc::make_array_from_process_local_data(NamedSharding(line(), P("x")), rows_here);
    REQUIRE(global.shape() == jaxcc::Shape{4 * n, 3});
    std::vector<Array<float>> all;
    for (int p = 0; p < n; ++p) all.push_back(iota({4, 3}) + static_cast<float>(100 * p));
    CHECK_THAT(whole(global), AllClose(jnp::concatenate(all, 0), 0, 0));
    // The parts here are this process's rows.
    auto const shards = global.addressable_shards();
    REQUIRE(shards.size() == 2);
    CHECK(shards[0].index[0].first == 4 * me);
    CHECK_THAT(shards[1].data, AllClose(rows_here(jaxcc::slice(2, 4)), 0, 0));
  }
  SECTION("local data that is neither the global nor the process's extent is refused, as JAX refuses it") {
    CHECK(message_of([&] {
            (void)jaxcc::make_array_from_process_local_data(NamedSharding(line(), P("x")), iota({3, 3}),
                                                            jaxcc::Shape{4 * n, 3});
          }) == "Invalid host data, each dimension should match either global or process shape. In dimension 0, the "
                "process data has 3 elements. Process addresses 4 elements and global_shape=(" +
                    std::to_string(4 * n) + ", 3).");
    CHECK(message_of([&] {
            (void)jaxcc::make_array_from_process_local_data(NamedSharding(line(), P("x")), rows_here,
                                                            jaxcc::Shape{4 * n});
          }) == "make_array_from_process_local_data: global_shape (" + std::to_string(4 * n) +
                    ",) has another rank than local_data.shape (4, 3)");
  }
  SECTION("a dimension given whole is the same in every process") {
    auto const same = iota({2, 6});
    auto const global =
        jaxcc::make_array_from_process_local_data(NamedSharding(line(), P(none)), same, jaxcc::Shape{2, 6});
    CHECK_THAT(global, AllClose(same, 0, 0));
  }
  SECTION("make_array_from_callback asks only for this process's parts") {
    auto const shape = jaxcc::Shape{2 * devices(), 2};
    std::vector<std::int64_t> asked;
    auto const global = jaxcc::make_array_from_callback(shape, NamedSharding(line(), P("x")), [&](jaxcc::ShardIndex const& index) {
      asked.push_back(index[0].first);
      return iota(shape)(jaxcc::slice(index[0].first, index[0].second));
    });
    CHECK(asked == std::vector<std::int64_t>{4 * me, 4 * me + 2});
    CHECK_THAT(whole(global), AllClose(iota(shape), 0, 0));
  }
  SECTION("process_allgather of each process's own array stacks them") {
    auto const stacked = jaxcc::process_allgather(jnp::full<float>({2}, static_cast<float>(me)));
    REQUIRE(stacked.shape() == jaxcc::Shape{n, 2});
    for (int p = 0; p < n; ++p) CHECK(stacked(p).to_vector() == std::vector<float>{float(p), float(p)});
    CHECK(jaxcc::process_allgather(jnp::full<float>({2}, 1.0f), true).shape() == jaxcc::Shape{2 * n});
  }
}

TEST_CASE("reading an array held in part by other processes raises JAX's error", "[distributed]") {
  auto const xs = jaxcc::device_put(iota({devices(), 2}), NamedSharding(line(), P("x")));
  auto const text = message_of([&] { (void)jaxcc::to_string(xs); });
  CHECK(text.starts_with("Fetching value for `jaxcc::Array` that spans non-addressable (non process local) devices"));
  CHECK(message_of([&] { (void)xs.to_vector(); }) == text);
  CHECK(message_of([&] { (void)jaxcc::process_allgather(xs); }) ==
        "Gathering global non-fully-addressable arrays only supports tiled=True");
  int argc = 0;
  CHECK(message_of([&] { jaxcc::distributed::initialize(argc, nullptr); }) ==
        "jaxcc::distributed::initialize should only be called once.");
  // Resharding reaches the other processes' parts; fully replicated, it is readable.
  auto const replicated = jaxcc::device_put(xs, NamedSharding(line(), P()));
  CHECK_THAT(replicated, AllClose(iota({devices(), 2}), 0, 0));
}

// --- faults: each run by its own mpirun with 2 processes and a short timeout

TEST_CASE("a process that never reaches a collective: the others stop with an error", "[.fault-missing]") {
  auto const xs = jaxcc::device_put(iota({devices(), 2}), NamedSharding(line(), P("x")));
  auto const f = shard_map([](Array<float> const& b) { return lax::psum(b, "x"); }, line(), in_specs(P("x")), out_specs(P()));
  if (jaxcc::process_index() == 1) return;  // process 1 leaves without running f
  CHECK_THAT(message_of([&] { (void)f(xs); }), Catch::Matchers::Contains("a collective across processes waited more than"));
}

TEST_CASE("a device that fails in one process stops the collective in every process", "[.fault-failure]") {
  // A 1 GiB product on every device; process 1 may not have the memory.
  constexpr std::int64_t n = std::int64_t{1} << 14;
  auto const xs = jaxcc::device_put(jnp::ones<float>({devices() * n}), NamedSharding(line(), P("x")));
  auto const f = shard_map(
      [](Array<float> const& b) { return lax::psum(jnp::sum(jnp::matmul(b.reshape({n, 1}), b.reshape({1, n}))), "x"); },
      line(), in_specs(P("x")), out_specs(P()));
  if (jaxcc::process_index() == 1) {
    std::ifstream statm("/proc/self/statm");
    long pages = 0;
    statm >> pages;
    auto const limit = static_cast<rlim_t>(pages) * 4096 + (rlim_t{256} << 20);
    rlimit const cap{limit, limit};
    REQUIRE(setrlimit(RLIMIT_AS, &cap) == 0);
    CHECK_THROWS_AS(f(xs), std::bad_alloc);
  } else {
    CHECK_THAT(message_of([&] { (void)f(xs); }), Catch::Matchers::Contains("a device of process 1 failed"));
  }
}

TEST_CASE("processes that run different shapes are told so", "[.fault-mismatch]") {
  auto const cols = 3 + 2 * jaxcc::process_index();
  auto const xs = jaxcc::device_put(iota({devices(), cols}), NamedSharding(line(), P("x")));
  auto const f = shard_map([](Array<float> const& b) { return lax::psum(b, "x"); }, line(), in_specs(P("x")), out_specs(P()));
  auto const other = 1 - jaxcc::process_index();
  CHECK_THAT(message_of([&] { (void)f(xs); }),
             Catch::Matchers::Contains("process " + std::to_string(other) + " ran psum over axis 'x' of f32[1," +
                                       std::to_string(3 + 2 * other) + "]") &&
                 Catch::Matchers::Contains("every process must run the same program on arrays of the same shapes"));
}

}  // namespace test_distributed

// MPI starts before Catch, and every process runs the same test cases in
// the same order. JAXCC_TEST_COLLECTIVE_TIMEOUT_MS bounds how long a
// collective waits (the fault cases set a short one).
int main(int argc, char** argv) {
  int const timeout = std::getenv("JAXCC_TEST_COLLECTIVE_TIMEOUT_MS") ? std::atoi(std::getenv("JAXCC_TEST_COLLECTIVE_TIMEOUT_MS")) : 60000;
  jaxcc::distributed::initialize(argc, argv, std::chrono::milliseconds(timeout));
  int const failed = jaxcc_tests::run_catch_session(argc, argv);
  jaxcc::distributed::shutdown();
  return failed;
}
