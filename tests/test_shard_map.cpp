// Sharded arrays (device_put, addressable_shards),
// shard_map with its collectives, its replication check and derivatives,
// and pmap. Run with JAXCC_NUM_DEVICES=8 (tests/CMakeLists.txt). Expected
// values are computed here by plain loops over the global arrays, or are
// JAX's test cases (tests/shard_map_test.py) with their arithmetic shown.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <array>
#include <cstdint>
#include <set>
#include <span>
#include <thread>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_shard_map {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::axes;
using jaxcc::in_specs;
using jaxcc::Mesh;
using jaxcc_test::mesh_of;
using jaxcc::NamedSharding;
using jaxcc::none;
using jaxcc::out_specs;
using jaxcc::P;
using jaxcc::shard_map;
using jaxcc_test::message_of;

namespace {


Array<float> iota(jaxcc::Shape const& shape) { return jnp::arange<float>(shape.numel()).reshape(shape); }

// Row-major matrix product by loops.
std::vector<float> matmul(std::vector<float> const& a, std::vector<float> const& b, int n, int k, int m) {
  std::vector<float> c(static_cast<std::size_t>(n * m), 0.f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      for (int l = 0; l < k; ++l) c[static_cast<std::size_t>(i * m + j)] += a[static_cast<std::size_t>(i * k + l)] * b[static_cast<std::size_t>(l * m + j)];
  return c;
}

}  // namespace

TEST_CASE("tests run on 8 virtual devices", "[sharding]") { REQUIRE(jaxcc::device_count() == 8); }

TEST_CASE("each device is a thread of its own, the same one every run", "[sharding][device]") {
  REQUIRE(jaxcc::device_count() >= 8);
  auto const devices = std::span(jaxcc::devices()).first(8);
  std::vector<std::thread::id> first(8), second(8);
  jaxcc::detail::run_on_devices(devices, [&](std::size_t i) { first[i] = std::this_thread::get_id(); });
  jaxcc::detail::run_on_devices(devices, [&](std::size_t i) { second[i] = std::this_thread::get_id(); });
  REQUIRE(first == second);
  std::set<std::thread::id> distinct(first.begin(), first.end());
  distinct.insert(std::this_thread::get_id());
  REQUIRE(distinct.size() == 9);
}

TEST_CASE("device_put lays an array out over the mesh", "[sharding][device_put]") {
  auto const mesh = mesh_of({4, 2}, {"data", "model"});
  NamedSharding const sharding(mesh, P("data", "model"));
  auto const x = iota({64, 32});
  auto const xs = jaxcc::device_put(x, sharding);
  REQUIRE(xs.sharding() == sharding);
  REQUIRE(xs.to_vector() == x.to_vector());
  REQUIRE(jaxcc_test::streamed(xs.sharding()) ==
          "NamedSharding(mesh=Mesh('data': 4, 'model': 2), spec=P('data', 'model'))");

  // Device 2*r + c holds rows 16r.. and columns 16c.. (a 16 x 16 block).
  auto const shards = xs.addressable_shards();
  REQUIRE(shards.size() == 8);
  for (std::size_t d = 0; d < 8; ++d) {
    auto const r = static_cast<std::int64_t>(d / 2), c = static_cast<std::int64_t>(d % 2);
    REQUIRE(shards[d].device.id == static_cast<int>(d));
    REQUIRE(shards[d].index == std::vector<std::pair<std::int64_t, std::int64_t>>{{16 * r, 16 * r + 16}, {16 * c, 16 * c + 16}});
    REQUIRE(shards[d].data.shape() == jaxcc::Shape{16, 16});
    auto const v = shards[d].data.to_vector();
    for (std::int64_t i = 0; i < 16; ++i)
      for (std::int64_t j = 0; j < 16; ++j)
        REQUIRE(v[static_cast<std::size_t>(i * 16 + j)] == static_cast<float>((16 * r + i) * 32 + 16 * c + j));
  }

  // Resharding keeps the values; the same layout again is the same array.
  auto const rows = jaxcc::device_put(xs, NamedSharding(mesh, P("data")));
  REQUIRE(rows.sharding().spec() == P("data"));
  REQUIRE(rows.to_vector() == x.to_vector());
  REQUIRE(jaxcc::device_put(rows, NamedSharding(mesh, P("data"))).data() == rows.data());

  // An array never put on a mesh is on one device.
  REQUIRE(x.addressable_shards().size() == 1);
  REQUIRE(x.addressable_shards()[0].device.id == 0);
}

TEST_CASE("device_put errors and pytrees", "[sharding][device_put]") {
  auto const mesh = mesh_of({2}, {"x"});
  REQUIRE(message_of([&] { jaxcc::device_put(iota({1, 4}), NamedSharding(mesh, P("x"))); }) ==
          "NamedSharding(mesh=Mesh('x': 2), spec=P('x',)) implies that array axis 0 is partitioned 2 times, but the "
          "dimension size is 1 (full shape: (1, 4), per-dimension tiling factors: (2, 1) should evenly divide the "
          "shape)");
  std::map<std::string, Array<float>> params{{"w", iota({4, 2})}, {"b", iota({2})}};
  auto const placed = jaxcc::device_put(params, NamedSharding(mesh, P()));
  REQUIRE(placed.at("w").sharding().spec() == P());
  REQUIRE(placed.at("b").to_vector() == params.at("b").to_vector());
  jaxcc::MeshScope scope(mesh);
  REQUIRE(jaxcc::device_put(iota({4, 2}), P("x")).sharding() == NamedSharding(mesh, P("x")));
}

TEST_CASE("shard_map matmul_basic: local dot and psum over the contraction", "[shard_map]") {
  // JAX's matmul_basic: a (8, 16) split ('x', 'y'), b (16, 4) split ('y',
  // None); each device multiplies its blocks, psum over 'y' adds the
  // partial products, and the result is split over 'x' only.
  auto const mesh = mesh_of({4, 2}, {"x", "y"});
  auto const a = iota({8, 16});
  auto const b = iota({16, 4});
  auto const f = shard_map([](Array<float> const& al, Array<float> const& bl) { return lax::psum(jnp::dot(al, bl), "y"); },
                           mesh, in_specs(P("x", "y"), P("y", none)), out_specs(P("x", none)));
  auto const c = f(a, b);
  REQUIRE(c.shape() == jaxcc::Shape{8, 4});
  REQUIRE(c.to_vector() == matmul(a.to_vector(), b.to_vector(), 8, 16, 4));
  REQUIRE(c.sharding() == NamedSharding(mesh, P("x", none)));
}

TEST_CASE("shard_map axis_index on 4 devices", "[shard_map]") {
  auto const mesh = mesh_of({4}, {"x"});
  auto const f = shard_map([] { return jnp::reshape(lax::axis_index("x"), jaxcc::Shape{1}); }, mesh, in_specs(),
                           out_specs(P("x")));
  REQUIRE(f().to_vector() == std::vector<std::int32_t>{0, 1, 2, 3});
}

TEST_CASE("shard_map ppermute shifts rows around 8 devices", "[shard_map]") {
  auto const mesh = mesh_of({8}, {"x"});
  std::vector<std::pair<std::int64_t, std::int64_t>> perm;
  for (std::int64_t i = 0; i < 8; ++i) perm.emplace_back(i, (i + 1) % 8);
  auto const x = iota({8, 2});
  auto const y = shard_map([&](Array<float> const& xl) { return lax::ppermute(xl, "x", perm); }, mesh, in_specs(P("x")),
                           out_specs(P("x")))(x);
  auto const xv = x.to_vector(), yv = y.to_vector();
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 2; ++j) REQUIRE(yv[i * 2 + j] == xv[((i + 7) % 8) * 2 + j]);
  // A device nobody sends to gets zeros.
  auto const z = shard_map([](Array<float> const& xl) { return lax::ppermute(xl, "x", {{0, 1}}); }, mesh,
                           in_specs(P("x")), out_specs(P("x")))(x);
  auto const zv = z.to_vector();
  REQUIRE(zv[2] == xv[0]);
  REQUIRE(zv[3] == xv[1]);
  REQUIRE(zv[0] == 0.f);
  REQUIRE(zv[15] == 0.f);
  // The pairs may be of any integer type: the same shift as `perm`, from ints and from unsigned.
  std::vector<std::pair<int, int>> int_perm;
  std::vector<std::array<std::size_t, 2>> unsigned_perm;
  for (int i = 0; i < 8; ++i) {
    int_perm.emplace_back(i, (i + 1) % 8);
    unsigned_perm.push_back({std::size_t(i), std::size_t((i + 1) % 8)});
  }
  auto const shift = [&](auto const& pairs) {
    return shard_map([&](Array<float> const& xl) { return lax::ppermute(xl, "x", pairs); }, mesh, in_specs(P("x")),
                     out_specs(P("x")))(x)
        .to_vector();
  };
  REQUIRE(shift(int_perm) == yv);
  REQUIRE(shift(unsigned_perm) == yv);
  REQUIRE(message_of([&] {
            shard_map([](Array<float> const& xl) { return lax::ppermute(xl, "x", {{0, 1}, {2, 1}}); }, mesh,
                      in_specs(P("x")), out_specs(P("x")))(x);
          }) == "ppermute sources and destinations must be unique, got ((0, 1), (2, 1)).");
}

TEST_CASE("shard_map all_to_all tiled", "[shard_map]") {
  // Device j holds rows 4j..4j+3 of X (16, 8). all_to_all(split 1, concat
  // 0) sends columns 2i..2i+1 of its block to device i, which stacks what
  // it receives by sender: device i ends with X[:, 2i:2i+2], all rows.
  auto const mesh = mesh_of({4}, {"x"});
  auto const x = iota({16, 8});
  auto const y = shard_map([](Array<float> const& xl) { return lax::all_to_all(xl, "x", 1, 0, true); }, mesh,
                           in_specs(P("x")), out_specs(P("x")))(x);
  REQUIRE(y.shape() == jaxcc::Shape{64, 2});
  auto const xv = x.to_vector(), yv = y.to_vector();
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t r = 0; r < 16; ++r)
      for (std::size_t c = 0; c < 2; ++c) REQUIRE(yv[(i * 16 + r) * 2 + c] == xv[r * 8 + 2 * i + c]);
  // Untiled: each device's (4, ...) split axis is the axis size, dropped,
  // and the received parts are stacked at concat_axis: device i gets
  // X[4j + i, :] from each j, i.e. a (4, 8) block of rows i, 4 + i, 8 + i, 12 + i.
  auto const u = shard_map([](Array<float> const& xl) { return lax::all_to_all(xl, "x", 0, 0); }, mesh,
                           in_specs(P("x")), out_specs(P("x")))(x);
  REQUIRE(u.shape() == jaxcc::Shape{16, 8});
  auto const uv = u.to_vector();
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      for (std::size_t c = 0; c < 8; ++c) REQUIRE(uv[(i * 4 + j) * 8 + c] == xv[(4 * j + i) * 8 + c]);
}

TEST_CASE("shard_map psum_scatter on a (2, 2, 2) mesh", "[shard_map]") {
  // x (2, 8) split over 'x': device (a, b, c) holds row a. The psum over
  // 'y' adds two equal rows (x is not split over 'y'), and psum_scatter
  // keeps block b of 4: device (a, b, .) ends with 2 * x[a, 4b:4b+4]; the
  // result varies over 'x' and 'y', not 'z', so P(('x', 'y')) is provable.
  auto const mesh = mesh_of({2, 2, 2}, {"x", "y", "z"});
  auto const x = iota({2, 8});
  auto const y = shard_map(
      [](Array<float> const& xl) { return lax::psum_scatter(jnp::reshape(xl, jaxcc::Shape{8}), "y", 0, true); }, mesh,
      in_specs(P("x")), out_specs(P(axes("x", "y"))))(x);
  REQUIRE(y.shape() == jaxcc::Shape{16});
  auto const xv = x.to_vector(), yv = y.to_vector();
  for (std::size_t a = 0; a < 2; ++a)
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t k = 0; k < 4; ++k) REQUIRE(yv[(a * 2 + b) * 4 + k] == 2 * xv[a * 8 + 4 * b + k]);
}

TEST_CASE("JAX's test_all_to_all and test_matmul_reduce_scatter", "[shard_map]") {
  {
    // a = arange(64).reshape(8, 8) split by rows over x=8; all_to_all
    // (split 1, concat 1, tiled) hands device i column i of a, so with
    // out_specs P(None, 'x') the result is a.T as one row.
    auto const mesh = mesh_of({8}, {"x"});
    auto const a = jaxcc::device_put(iota({8, 8}), NamedSharding(mesh, P("x", none)));
    auto const c = jaxcc::jit(shard_map([](Array<float> const& al) { return lax::all_to_all(al, "x", 1, 1, true); },
                                        mesh, in_specs(P("x", none)), out_specs(P(none, "x"))))(a);
    REQUIRE(c.shape() == jaxcc::Shape{1, 64});
    REQUIRE(c.to_vector() == jnp::reshape(iota({8, 8}).T(), jaxcc::Shape{1, 64}).to_vector());
  }
  {
    // create_inputs on the (2, 2, 2) mesh: a (8, 8) split ('z', 'y'), b
    // (8, 8) split ('y', None); each device's partial product, summed
    // over 'y' and scattered over it by rows, is a @ b laid out (('z', 'y'), None).
    auto const mesh = mesh_of({2, 2, 2}, {"x", "y", "z"});
    auto const a = iota({8, 8}), b = iota({8, 8});
    auto const c = shard_map(
        [](Array<float> const& al, Array<float> const& bl) { return lax::psum_scatter(jnp::matmul(al, bl), "y", 0, true); },
        mesh, in_specs(P("z", "y"), P("y", none)), out_specs(P(axes("z", "y"), none)))(a, b);
    REQUIRE(c.addressable_shards()[0].data.shape() == jaxcc::Shape{2, 8});
    REQUIRE(c.to_vector() == matmul(a.to_vector(), b.to_vector(), 8, 8, 8));
  }
}

TEST_CASE("shard_map all_gather, pmax and pmean", "[shard_map]") {
  auto const mesh = mesh_of({4}, {"i"});
  auto const x = iota({8});
  auto const gathered = shard_map([](Array<float> const& xl) { return lax::all_gather(xl, "i", 0, true); }, mesh,
                                  in_specs(P("i")), out_specs(P()))(x);
  REQUIRE(gathered.to_vector() == x.to_vector());
  auto const stats = shard_map(
      [](Array<float> const& xl) { return std::tuple{lax::pmax(xl, "i"), lax::pmean(xl, "i")}; }, mesh,
      in_specs(P("i")), out_specs(P(), P()))(x);
  // Devices hold (0, 1), (2, 3), (4, 5), (6, 7): max (6, 7), mean (3, 4).
  REQUIRE(std::get<0>(stats).to_vector() == std::vector<float>{6, 7});
  REQUIRE(std::get<1>(stats).to_vector() == std::vector<float>{3, 4});
}

TEST_CASE("shard_map's replication check", "[shard_map][errors]") {
  auto const mesh = mesh_of({4}, {"i"});
  auto const x = iota({8});
  auto identity = [](Array<float> const& xl) { return xl; };
  REQUIRE(message_of([&] { shard_map(identity, mesh, in_specs(P("i")), out_specs(P()))(x); }) ==
          "shard_map applied to the function '<lambda>' was given out_specs which require replication which can't "
          "be statically inferred given the mesh:\n\nThe mesh given has shape (4,) with corresponding axis names "
          "('i',).\n\nout_specs is P() which implies that the corresponding output value is replicated across mesh "
          "axis 'i', but could not infer replication over any axes\n\nCheck if these output values are meant to be "
          "replicated over those mesh axes. If not, consider revising the corresponding out_specs entries. If so, "
          "consider disabling the check by passing jaxcc::check_vma(false) to `jaxcc::shard_map`.");
  // Unchecked, device 0's part is returned.
  auto const first = shard_map(identity, mesh, in_specs(P("i")), out_specs(P()), jaxcc::check_vma(false))(x);
  REQUIRE(first.to_vector() == std::vector<float>{0, 1});
  // A psum makes it provably replicated; an axis_index makes it vary again.
  REQUIRE_NOTHROW(shard_map([](Array<float> const& xl) { return lax::psum(xl, "i"); }, mesh, in_specs(P("i")),
                            out_specs(P()))(x));
  REQUIRE_THROWS_AS(shard_map([](Array<float> const& xl) { return lax::psum(xl, "i") + lax::axis_index("i"); }, mesh,
                              in_specs(P("i")), out_specs(P()))(x),
                    jaxcc::Error);
}

TEST_CASE("shard_map spec errors", "[shard_map][errors]") {
  auto const mesh = mesh_of({4}, {"i"});
  auto identity = [](Array<float> const& xl) { return xl; };
  REQUIRE(message_of([&] { shard_map(identity, mesh, in_specs(P("i")), out_specs(P("i")))(iota({6})); }) ==
          "shard_map applied to the function '<lambda>' was given argument arrays with axis sizes that are not "
          "evenly divisible by the corresponding mesh axis sizes:\n\nThe mesh given has shape (4,) with "
          "corresponding axis names ('i',).\n\nthe passed args[0] of shape float32[6] corresponds to in_specs[0] of "
          "value P('i',), which maps array axis 0 (of size 6) to mesh axis 'i' (of size 4), but 4 does not evenly "
          "divide 6\n\nArray arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated by the "
          "corresponding elements of the argument's in_specs entry. Consider checking that in_specs are correct, and "
          "if so consider changing the mesh axis sizes or else padding the input and adapting '<lambda>' "
          "appropriately.");
  REQUIRE(message_of([&] { shard_map(identity, mesh, in_specs(P("i", none)), out_specs(P("i")))(iota({8})); })
              .starts_with("shard_map applied to the function '<lambda>' was given an in_specs entry which is too "
                           "long to be compatible with the corresponding input value from the function:\n\nin_specs[0] "
                           "is P('i', None) which has length 2, but the passed args[0] has shape float32[8], which has "
                           "rank 1 (and 1 < 2)"));
  REQUIRE(message_of([&] { lax::psum(iota({2}), "i"); }).starts_with("unbound axis name: i."));
}

TEST_CASE("shard_map of the seed: pmean of gradients over 'data'", "[shard_map][seed]") {
  // The seed's migration example: params and grads put on the mesh split
  // over 'data', the step written for one device's row, no in_specs.
  auto const n = jaxcc::local_device_count();
  jaxcc::MeshScope scope(jaxcc::make_mesh({n}, {"data"}));
  auto const grads = jaxcc::device_put(jnp::ones<float>({n, 4}), P("data"));
  auto const params = jaxcc::device_put(jnp::zeros<float>({n, 4}), P("data"));
  auto const parallel_step = shard_map(
      [](Array<float> const& p, Array<float> const& g) {
        auto const g_mean = lax::pmean(g, "data");
        return Array<float>(p - 0.1f * g_mean);
      },
      out_specs(P("data")));
  auto const new_params = parallel_step(params, grads);
  REQUIRE(new_params.shape() == jaxcc::Shape{n, 4});
  for (float v : new_params.to_vector()) REQUIRE(v == -0.1f);
}

TEST_CASE("pmap is jit of a shard_map over the leading axis", "[pmap]") {
  // The seed's pmap step; grads row i is i, so their mean over devices is 3.5.
  auto const parallel_step = jaxcc::pmap(
      [](Array<float> const& params, Array<float> const& grads) {
        return Array<float>(params - 0.1f * lax::pmean(grads, "devices"));
      },
      jaxcc::axis_name("devices"));
  auto const grads = jnp::broadcast_to(jnp::reshape(jnp::arange<float>(8), jaxcc::Shape{8, 1}), jaxcc::Shape{8, 4});
  auto const out = parallel_step(jnp::ones<float>({8, 4}), Array<float>(grads));
  REQUIRE(out.shape() == jaxcc::Shape{8, 4});
  for (float v : out.to_vector()) REQUIRE_THAT(v, Catch::Matchers::WithinAbs(1.f - 0.35f, 1e-6));
  REQUIRE(parallel_step.cache_size() == 1);
  REQUIRE(message_of([&] { parallel_step(jnp::ones<float>({9, 4}), jnp::ones<float>({9, 4})); }) ==
          "compiling computation that requires 9 logical devices, but only 8 XLA devices are available "
          "(num_replicas=9)");
}

TEST_CASE("vmap with an axis name agrees with pmap on every collective", "[shard_map][vmap]") {
  auto const x = jaxcc_test::smooth({8, 4}).astype<float>();
  auto check = [&](auto body) {
    auto const mapped = jaxcc::vmap(body, jaxcc::axis_name("i"))(x);
    auto const sharded = jaxcc::pmap(body, jaxcc::axis_name("i"))(x);
    REQUIRE_THAT(sharded, jaxcc::testing::AllClose(mapped, 1e-6, 1e-6));
  };
  check([](Array<float> const& v) { return lax::ppermute(v, "i", {{0, 3}, {3, 5}, {5, 0}, {7, 1}}); });
  // Rows that differ within an element and between elements.
  auto const rows = [](Array<float> const& v) {
    return Array<float>(jnp::broadcast_to(v, jaxcc::Shape{8, 4}) * jnp::reshape(jnp::arange<float>(8), jaxcc::Shape{8, 1}));
  };
  check([&](Array<float> const& v) { return lax::psum_scatter(rows(v), "i", 0, true); });
  check([&](Array<float> const& v) { return lax::psum_scatter(rows(v), "i", 0); });
  check([&](Array<float> const& v) { return lax::all_to_all(rows(v), "i", 0, 1); });
  check([&](Array<float> const& v) { return lax::all_to_all(rows(v), "i", 0, 1, true); });
  check([&](Array<float> const& v) { return lax::all_to_all(rows(v), "i", 0, 0, true); });
}

TEST_CASE("grad, jvp and jit of a shard_map match the unsharded function", "[shard_map][autodiff]") {
  // loss(w, x) = sum(sin(w * x)): x split over 'i', w replicated; each
  // device sums its part and psum adds the parts.
  auto const mesh = mesh_of({4}, {"i"});
  auto const sharded = shard_map(
      [](Array<double> const& w, Array<double> const& xl) { return lax::psum(jnp::sum(jnp::sin(w * xl)), "i"); }, mesh,
      in_specs(P(), P("i")), out_specs(P()));
  auto const plain = [](Array<double> const& w, Array<double> const& x) { return jnp::sum(jnp::sin(w * x)); };
  auto const w = jnp::array<double>({0.7, -1.3});
  auto const x = jaxcc_test::smooth({8, 2});
  REQUIRE_THAT(sharded(w, x), jaxcc::testing::AllClose(plain(w, x), 1e-12, 1e-12));
  auto const [gw, gx] = jaxcc::grad(sharded, jaxcc::argnums<0, 1>)(w, x);
  auto const [pw, px] = jaxcc::grad(plain, jaxcc::argnums<0, 1>)(w, x);
  REQUIRE_THAT(gw, jaxcc::testing::AllClose(pw, 1e-12, 1e-12));
  REQUIRE_THAT(gx, jaxcc::testing::AllClose(px, 1e-12, 1e-12));
  auto const [out, tangent] = jaxcc::jvp(sharded, std::tuple{w, x}, std::tuple{jnp::ones<double>({2}), jnp::zeros<double>({8, 2})});
  auto const [pout, ptangent] = jaxcc::jvp(plain, std::tuple{w, x}, std::tuple{jnp::ones<double>({2}), jnp::zeros<double>({8, 2})});
  REQUIRE_THAT(tangent, jaxcc::testing::AllClose(ptangent, 1e-12, 1e-12));
  auto const jitted = jaxcc::jit(jaxcc::grad(sharded));
  REQUIRE_THAT(jitted(w, x), jaxcc::testing::AllClose(pw, 1e-12, 1e-12));
}

TEST_CASE("vmap of a shard_map batches the per-device program", "[shard_map][vmap]") {
  // Per example: x (8,) split over 'i', each device's sum of squares, psum.
  auto const mesh = mesh_of({4}, {"i"});
  auto const per_example = shard_map([](Array<float> const& xl) { return lax::psum(jnp::sum(xl * xl), "i"); }, mesh,
                                     in_specs(P("i")), out_specs(P()));
  auto const xs = jaxcc_test::smooth({3, 8}).astype<float>();
  auto const batched = jaxcc::vmap(per_example)(xs);
  REQUIRE_THAT(batched, jaxcc::testing::AllClose(Array<float>(jnp::sum(xs * xs, 1)), 1e-5, 1e-6));
  // Mapped along the split dimension's neighbour, and with a broadcast argument.
  auto const scaled = shard_map([](Array<float> const& xl, Array<float> const& s) { return Array<float>(xl * s); }, mesh,
                                in_specs(P("i"), P()), out_specs(P("i")));
  auto const ys = jaxcc::vmap(scaled, jaxcc::in_axes(1, none))(xs.T(), jnp::array(2.f));
  REQUIRE_THAT(ys, jaxcc::testing::AllClose(Array<float>(xs * 2.f), 0, 0));
}

TEST_CASE("errors of device_put, shard_map, pmap and the collectives", "[shard_map][errors]") {
  auto const mesh = mesh_of({4}, {"i"});
  auto const x = iota({8});
  auto identity = [](Array<float> const& xl) { return xl; };
  REQUIRE(message_of([&] { jaxcc::device_put(x, P("i")); }) ==
          "device_put was given a PartitionSpec but no mesh is set: pass a NamedSharding (or a mesh), or call "
          "jaxcc::set_mesh(mesh) first");
  REQUIRE(message_of([&] {
            jaxcc::grad([&](Array<float> const& v) { return jnp::sum(jaxcc::device_put(v, NamedSharding(mesh, P("i")))); })(x);
          }).starts_with("device_put: cannot place a traced array of shape (8,) on devices"));
  REQUIRE(message_of([&] { shard_map(identity, mesh, in_specs(P("i"), P()), out_specs(P("i")))(x); }) ==
          "shard_map in_specs has 2 entries for 1 positional arguments: give one per argument");
  REQUIRE(message_of([&] { shard_map(identity, mesh, in_specs(P("i")), out_specs(P("i"), P("i")))(x); }) ==
          "shard_map out_specs has 2 entries but the function does not return a tuple of that many elements");
  REQUIRE(message_of([&] {
            shard_map([](Array<float> const& xl) { return jnp::sum(xl); }, mesh, in_specs(P("i")), out_specs(P("i")))(x);
          }).starts_with("shard_map applied to the function '<lambda>' was given an out_specs entry which is too long"));
  auto const other = mesh_of({2}, {"j"});
  REQUIRE(message_of([&] { shard_map(identity, mesh, out_specs(P("i")))(jaxcc::device_put(x, NamedSharding(other, P("j")))); }) ==
          "shard_map was given no in_specs and an argument laid out on Mesh('j': 2), not on its mesh Mesh('i': 4): "
          "pass in_specs, or device_put the argument on the mesh");
  auto const run = [&](auto body) { shard_map(body, mesh, in_specs(P("i")), out_specs(P("i")))(iota({8, 4})); };
  REQUIRE(message_of([&] { run([](Array<float> const& v) { return lax::ppermute(v, "i", {{0, 4}}); }); }) ==
          "ppermute: perm ((0, 4),) names an index outside axis 'i' of size 4");
  REQUIRE(message_of([&] { run([](Array<float> const& v) { return lax::psum_scatter(v, "i", 0, true); }); }) ==
          "tiled reduce_scatter operand scatter dimension size 2 must be divisible by shard_count 4");
  REQUIRE(message_of([&] { run([](Array<float> const& v) { return lax::psum_scatter(v, "i", 0); }); }) ==
          "reduce_scatter operand scatter dimension size 2 must match shard count 4");
  REQUIRE(message_of([&] { run([](Array<float> const& v) { return lax::all_to_all(v, "i", 0, 1); }); }) ==
          "all_to_all requires the size of the mapped axis axis_name to equal x.shape[split_axis], but they are 4 and "
          "2 respectively.");
  REQUIRE(message_of([&] { run([](Array<float> const& v) { return lax::all_to_all(v, "i", 0, 1, true); }); }) ==
          "The size of all_to_all split_axis (2) has to be divisible by the size of the named axis i (4)");
  auto const step = jaxcc::pmap([](Array<float> const& a, Array<float> const& b) { return Array<float>(a + b); });
  REQUIRE(message_of([&] { step(jnp::ones<float>({4, 2}), jnp::ones<float>({2, 2})); }) ==
          "pmap got inconsistent sizes for array axes to be mapped: the arguments' leading dimensions are 4 and 2");
  REQUIRE(message_of([&] { jaxcc::pmap(identity)(jnp::array(1.f)); }).starts_with(
              "pmap was requested to map its argument along axis 0, which implies that its rank should be at least 1"));
  REQUIRE(message_of([&] {
            jaxcc::detail::run_spmd(mesh, [&](std::size_t) { jaxcc::detail::run_spmd(mesh, [](std::size_t) {}); });
          }) == "a sharded computation cannot start another one from inside a device's part of it (nested shard_map or "
                "sharded jit)");
}

TEST_CASE("a device that fails releases the others", "[shard_map][errors]") {
  auto const mesh = mesh_of({8}, {"i"});
  REQUIRE(message_of([&] {
            jaxcc::detail::run_spmd(mesh, [](std::size_t position) {
              if (position == 3) throw jaxcc::Error("device 3 failed");
              jaxcc::detail::current_spmd()->exchange->barrier();
            });
          }) == "device 3 failed");
}

}  // namespace test_shard_map
