// jnp's insert, delete_ (jnp.delete) and trim_zeros (numpy/editing.hpp)
// against JAX's values (tests/golden/shape_cases.py); derivatives, vmap and
// jit, traced positions; the errors, with JAX's concretization error for
// values that must be concrete.
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

namespace test_editing {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc_test::message_of;
using jaxcc_test::shape_golden::parts;

TEST_CASE("insert, delete_, trim_zeros match JAX", "[editing]") {
  jaxcc_test::shape_golden::Inputs const in;
  jaxcc_test::shape_golden::check_cases(
      "editing/",
      {
          {"delete_int", [&] { return parts(jnp::delete_(in.m23, -1, 1)); }},
          {"delete_flat", [&] { return parts(jnp::delete_(in.m23, 2)); }},
          {"delete_list", [&] { return parts(jnp::delete_(in.t234, {0, 2, 0, -1}, 2)); }},
          {"delete_array_unique", [&] { return parts(jnp::delete_(in.t234, jnp::array({3, 0}), 2, true)); }},
          {"delete_mask", [&] { return parts(jnp::delete_(in.m23, jnp::array({true, false, true}), 1)); }},
          {"insert_scalar", [&] { return parts(jnp::insert(in.m23, 1, 9.0f, 1)); }},
          {"insert_flat", [&] { return parts(jnp::insert(in.m23, 2, 9.0f)); }},
          {"insert_int_row", [&] { return parts(jnp::insert(in.m23, 1, in.v3 * 10.f, 0)); }},
          {"insert_int_col", [&] { return parts(jnp::insert(in.m23, -1, in.v2 * 10.f, 1)); }},
          {"insert_list", [&] { return parts(jnp::insert(in.m23, jnp::array({0, 3, 1}), in.v3 * 10.f, 1)); }},
          {"insert_list_same", [&] { return parts(jnp::insert(in.i6, {2, 2, 9}, jnp::array({7, 8, 9}))); }},
          {"insert_one_listed", [&] { return parts(jnp::insert(in.m23, {1}, jnp::array({{10.f}, {20.f}}), 1)); }},
          {"trim_zeros", [&] { return parts(jnp::trim_zeros(in.z)); }},
          {"trim_zeros_f", [&] { return parts(jnp::trim_zeros(in.z, "f")); }},
          {"trim_zeros_b", [&] { return parts(jnp::trim_zeros(in.z, "B")); }},
          {"trim_zeros_2d", [&] { return parts(jnp::trim_zeros(in.z2)); }},
          {"trim_zeros_2d_axis", [&] { return parts(jnp::trim_zeros(in.z2, "fb", 1)); }},
          {"trim_zeros_all", [&] { return parts(jnp::trim_zeros(jnp::zeros<float>(3))); }},
      });
}

TEST_CASE("insert and delete_ under grad, vmap and jit; traced positions", "[editing][grad][vmap][jit]") {
  auto const xs = jaxcc_test::smooth({3, 4, 5});
  auto const f = [](Array<double> const& x, Array<double> const& v) {
    // x: (4, 5), v: (4, 1); insert(x, 2, v, 1) puts v's row in as 4 columns.
    return jnp::sum(jnp::insert(x, {0, 3, 3}, v * v, 1) * jnp::insert(x * 2.0, {4, 1, 0}, v, 1)) +
           jnp::sum(jnp::insert(x, 2, v, 1) * jnp::insert(x, 2, v, 1)) + jnp::sum(jnp::delete_(x, {1, -1}, 1) * 2.0) +
           jnp::sum(jnp::delete_(x * x, jnp::array({4, 0}), -1, true));
  };
  auto const vs = jaxcc_test::smooth({3, 4, 1}, 0.5);
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(
      f, std::tuple{jaxcc_test::example(xs, 0, 1), jaxcc_test::example(vs, 0, 1)}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(f, jaxcc::in_axes(0, 0), xs, vs));
  // Traced positions: insert's, and delete_'s with assume_unique_indices.
  auto const g = [](Array<float> const& x, Array<std::int32_t> const& at) {
    return jnp::insert(x, at, -1.f) + jnp::delete_(jnp::insert(x, at, 7.f), at + 1, jaxcc::none, true)(jaxcc::slice(0, 1));
  };
  auto const x = jnp::array({1.f, 2.f, 3.f, 4.f});
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(g, x, jnp::array({3, 0})));
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(g, jaxcc::in_axes(jaxcc::none, 0), x, jnp::array({{3, 0}, {1, 1}, {-1, 9}})));
  // By hand: [1, 2, 3, 4] with -1 before positions 3 and 0 is [-1, 1, 2, 3, -1, 4].
  CHECK(jnp::insert(x, jnp::array({3, 0}), -1.f).to_vector() == std::vector<float>{-1, 1, 2, 3, -1, 4});
  CHECK(jaxcc_test::shares_buffer(jnp::trim_zeros(jnp::array({0.f, 1.f, 0.f})), jnp::array({0.f, 1.f, 0.f})) == false);
}

TEST_CASE("insert, delete_, trim_zeros: errors", "[editing][errors]") {
  auto const m = jnp::ones<float>({2, 3});
  CHECK(message_of([&] { jnp::delete_(m, 5, 1); }) == "delete: axis 5 is out of bounds for array of dimension 3");
  CHECK(message_of([&] { jnp::delete_(m, {0, 7}, 1); }) == "index 7 is out of bounds for axis 1 with size 3");
  CHECK(message_of([&] { jnp::delete_(m, jnp::array({true, false}), 1); }) ==
        "np.delete(arr, obj): for boolean indices, obj must be one-dimensional with length matching specified axis.");
  CHECK(message_of([&] { jnp::delete_(m, jnp::array({0.5f}), 1); }) ==
        "np.delete(arr, obj): got obj.dtype=float32; must be integer or bool.");
  CHECK(message_of([&] { jnp::insert(m, jnp::array({{0}}), 1.f, 1); }) ==
        "jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got an array of shape (1, 1)");
  CHECK(message_of([&] { jnp::insert(m, {0, 1}, jnp::ones<float>(3), 1); }) ==
        "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]");
  auto const concrete = [](std::string const& what) {
    return "Abstract tracer value encountered where concrete value is expected: traced array with shape " + what;
  };
  auto const trimmed = message_of([] { jaxcc::jit([](Array<float> const& x) { return jnp::trim_zeros(x); })(jnp::ones<float>(2)); });
  CHECK(trimmed.find(concrete("f32[2]")) != std::string::npos);
  CHECK(trimmed.find("`jnp::trim_zeros`") != std::string::npos);
  INFO(trimmed);
  auto const deleted = message_of([&] {
    jaxcc::jit([&](Array<std::int32_t> const& o) { return jnp::delete_(m, o, 1); })(jnp::array({0}));
  });
  CHECK(deleted.find(concrete("i32[1]")) != std::string::npos);
  INFO(deleted);
  CHECK(deleted.find("`jnp::delete_ (its obj array)`") != std::string::npos);
}

}  // namespace test_editing
