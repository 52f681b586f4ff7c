// Arrays made from each process's data and gathered back
// (multihost/process_arrays.hpp), in one process: there they are device_put
// and its inverse, with JAX's single-process rules and errors. Across
// processes they are tests/test_distributed.cpp's. Run with
// JAXCC_NUM_DEVICES=8 (tests/CMakeLists.txt).
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_process_arrays {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::NamedSharding;
using jaxcc::none;
using jaxcc::P;
using jaxcc::testing::AllClose;
using jaxcc_test::mesh_of;
using jaxcc_test::message_of;

namespace {
Array<float> iota(jaxcc::Shape const& shape) { return jnp::arange<float>(shape.numel()).reshape(shape); }
}  // namespace

TEST_CASE("make_array_from_callback asks once for each distinct part", "[process_arrays]") {
  auto const mesh = mesh_of({4, 2}, {"data", "model"});
  jaxcc::Shape const shape{8, 6};
  std::vector<jaxcc::ShardIndex> asked;
  auto const x = jaxcc::make_array_from_callback(shape, NamedSharding(mesh, P("data")), [&](jaxcc::ShardIndex const& index) {
    asked.push_back(index);
    return iota(shape)(jaxcc::slice(index[0].first, index[0].second), jaxcc::slice(index[1].first, index[1].second));
  });
  // 'model' replicates each row block over 2 devices: 4 distinct parts.
  REQUIRE(asked.size() == 4);
  for (std::size_t k = 0; k < asked.size(); ++k)
    CHECK(asked[k] == jaxcc::ShardIndex{{2 * static_cast<std::int64_t>(k), 2 * static_cast<std::int64_t>(k) + 2}, {0, 6}});
  CHECK(x.sharding() == NamedSharding(mesh, P("data")));
  CHECK_THAT(x, AllClose(iota(shape), 0, 0));

  auto const wrong = message_of([&] {
    (void)jaxcc::make_array_from_callback(shape, NamedSharding(mesh, P("data")),
                                          [](jaxcc::ShardIndex const&) { return jnp::zeros<float>({3, 6}); });
  });
  CHECK(wrong ==
        "Expected shard shape (2, 6) doesn't match the single device array shape (3, 6). Shape of Array is "
        "f32[8,6] with sharding " + to_string(NamedSharding(mesh, P("data"))));
}

TEST_CASE("make_array_from_process_local_data in one process is device_put", "[process_arrays]") {
  auto const mesh = mesh_of({4}, {"data"});
  auto const local = iota({8, 3});
  auto const x = jaxcc::make_array_from_process_local_data(NamedSharding(mesh, P("data")), local);
  CHECK(x.sharding() == NamedSharding(mesh, P("data")));
  CHECK_THAT(x, AllClose(local, 0, 0));
  CHECK(jaxcc::make_array_from_process_local_data(NamedSharding(mesh, P("data")), local, jaxcc::Shape{8, 3}).shape() ==
        jaxcc::Shape{8, 3});
  CHECK(message_of([&] {
          (void)jaxcc::make_array_from_process_local_data(NamedSharding(mesh, P("data")), local, jaxcc::Shape{16, 3});
        }) == "When calling `make_array_from_process_local_data` on a single process, global_shape should be None or "
              "equal to local_data.shape.Got global_shape=(16, 3) and local_data.shape=(8, 3).");
}

TEST_CASE("process_allgather in one process stacks, or with tiled returns, the array", "[process_arrays]") {
  auto const x = iota({2, 3});
  // Not tiled: a new leading axis, one entry per process (numpy's expand_dims).
  auto const stacked = jaxcc::process_allgather(x);
  REQUIRE(stacked.shape() == jaxcc::Shape{1, 2, 3});
  CHECK_THAT(stacked(0), AllClose(x, 0, 0));
  CHECK_THAT(jaxcc::process_allgather(x, true), AllClose(x, 0, 0));
  // A scalar is stacked even when tiled.
  CHECK(jaxcc::process_allgather(jnp::array(2.5f), true).shape() == jaxcc::Shape{1});
  // A sharded array of this process's devices is fully addressable: the same.
  auto const sharded = jaxcc::device_put(x, NamedSharding(mesh_of({2}, {"data"}), P("data")));
  CHECK_THAT(jaxcc::process_allgather(sharded, true), AllClose(x, 0, 0));
  auto const gather_traced = jaxcc::jit([](Array<float> const& a) {
    (void)jaxcc::process_allgather(a);
    return a;
  });
  CHECK(message_of([&] { (void)gather_traced(jnp::ones<float>({2})); }) ==
        "process_allgather: cannot gather a traced array of shape (2,); call it on concrete arrays, outside the "
        "transform");
}

}  // namespace test_process_arrays
