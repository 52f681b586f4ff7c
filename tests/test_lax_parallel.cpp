// lax/parallel.hpp: axis_size, pshuffle, pswapaxes and pbroadcast, inside
// shard_map on a 4-device mesh and under vmap's named axis, against values
// worked out from their definitions. Run with JAXCC_NUM_DEVICES=8.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "support.hpp"

namespace test_lax_parallel {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::in_specs;
using jaxcc::out_specs;
using jaxcc::P;
using jaxcc::shard_map;
using jaxcc_test::mesh_of;
using jaxcc_test::message_of;

namespace {
// Rows 0..n-1, row r holding 10 r, 10 r + 1, ...
Array<float> rows(std::int64_t n, std::int64_t m) { return jnp::arange<float>(n * m).reshape({n, m}) * 10.0f / float(m); }
}  // namespace

TEST_CASE("lax::axis_size: a mesh axis's, a product of several, a vmap's, and an unbound name", "[lax_parallel]") {
  auto const mesh = mesh_of({4, 2}, {"x", "y"});
  std::vector<std::int64_t> sizes;
  shard_map(
      [&](Array<float> const& xl) {
        sizes = {lax::axis_size("x"), lax::axis_size("y"), lax::axis_size({"x", "y"})};
        return xl;
      },
      mesh, in_specs(P("x", "y")), out_specs(P("x", "y")))(rows(4, 2));
  CHECK(sizes == std::vector<std::int64_t>{4, 2, 8});
  std::int64_t vmapped = 0;
  jaxcc::vmap(
      [&](Array<float> const& v) {
        vmapped = lax::axis_size("i");
        return v;
      },
      jaxcc::axis_name("i"))(jnp::zeros<float>({5, 3}));
  CHECK(vmapped == 5);
  CHECK_THROWS_AS(lax::axis_size("nowhere"), jaxcc::Error);
}

TEST_CASE("lax::pshuffle: index i receives the rows of index perm[i]; not a permutation raises JAX's error",
          "[lax_parallel]") {
  auto const mesh = mesh_of({4}, {"x"});
  auto const x = rows(4, 3);
  std::vector<std::int64_t> const perm{2, 0, 3, 1};
  auto const y = shard_map([&](Array<float> const& xl) { return lax::pshuffle(xl, "x", perm); }, mesh,
                           in_specs(P("x")), out_specs(P("x")))(x);
  auto const xv = x.to_vector(), yv = y.to_vector();
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 3; ++j) CHECK(yv[i * 3 + j] == xv[std::size_t(perm[i]) * 3 + j]);
  CHECK(message_of([&] {
          shard_map([](Array<float> const& xl) { return lax::pshuffle(xl, "x", {0, 0, 1, 2}); }, mesh,
                    in_specs(P("x")), out_specs(P("x")))(x);
        }) == "`perm` does not represent a permutation: [0, 0, 1, 2]");
}

TEST_CASE("lax::pswapaxes: swapping the mesh axis with a local one transposes the blocks", "[lax_parallel]") {
  // Device d holds row d of a 4 x 4 matrix (local shape 1 x 4); swapping
  // axis 1 with "x" gives device d element j = device j's element d: the
  // transpose.
  auto const mesh = mesh_of({4}, {"x"});
  auto const x = rows(4, 4);
  auto const y = shard_map([](Array<float> const& xl) { return lax::pswapaxes(xl, "x", 1); }, mesh, in_specs(P("x")),
                           out_specs(P("x")))(x);
  CHECK(y.to_vector() == Array<float>(jnp::transpose(x)).to_vector());
  // Under vmap: the named axis of size 3 swapped with a local axis of size 3.
  auto const m = rows(3, 3);
  auto const t = jaxcc::vmap([](Array<float> const& v) { return lax::pswapaxes(v, "i", 0); }, jaxcc::axis_name("i"))(m);
  CHECK(t.to_vector() == Array<float>(jnp::transpose(m)).to_vector());
}

TEST_CASE("lax::pbroadcast: every index gets the source's value, with its derivative", "[lax_parallel]") {
  auto const mesh = mesh_of({4}, {"x"});
  auto const x = rows(4, 2);
  auto const y = shard_map([](Array<float> const& xl) { return lax::pbroadcast(xl, "x", 2); }, mesh, in_specs(P("x")),
                           out_specs(P("x")))(x);
  auto const xv = x.to_vector(), yv = y.to_vector();
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 2; ++j) CHECK(yv[i * 2 + j] == xv[2 * 2 + j]);
  // Non-finite values elsewhere do not leak into the broadcast (a select, not a product by zero).
  auto const with_inf = jnp::array<float>({{1.f, 2.f}, {std::numeric_limits<float>::infinity(), 0.f}, {5.f, 6.f}});
  auto const b = jaxcc::vmap([](Array<float> const& v) { return lax::pbroadcast(v, "i", 0); },
                             jaxcc::axis_name("i"))(with_inf);
  CHECK(b.to_vector() == std::vector<float>{1.f, 2.f, 1.f, 2.f, 1.f, 2.f});
  // d/dx of sum(pbroadcast(x)) over a vmap of 3: each example's output is
  // the source's, so the source row's gradient is 3 and the others' 0.
  auto const g = jaxcc::grad([](Array<double> const& v) {
    return jnp::sum(jaxcc::vmap([](Array<double> const& r) { return lax::pbroadcast(r, "i", 1); },
                                jaxcc::axis_name("i"))(v));
  })(jnp::ones<double>({3, 2}));
  CHECK(g.to_vector() == std::vector<double>{0, 0, 3, 3, 0, 0});
  CHECK(message_of([&] {
          jaxcc::vmap([](Array<float> const& v) { return lax::pbroadcast(v, "i", 3); }, jaxcc::axis_name("i"))(with_inf);
        }) == "pbroadcast: source 3 is not an index of axis 'i' of size 3");
}

}  // namespace test_lax_parallel
