// Empty axes and 0-d arrays through jax.lax and jax.nn, and the cases of
// the report that asked for the sweep (a cumulative op over an empty axis
// wrote past its buffer; pad, repeat, indexing and updates differed from
// JAX): each call on 0-d and 0-size inputs against JAX's outcome
// (tests/golden/empty_axes_cases.py, empty_axes_lax.py). Run under
// AddressSanitizer in CI, so a kernel that touches an empty buffer fails.
#include "catch.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "empty_axes_sweep.hpp"
#include "support.hpp"

namespace test_empty_axes_lax {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
namespace nn = jaxcc::nn;
namespace linalg = jaxcc::lax::linalg;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::NamedSharding;
using jaxcc::P;
using jaxcc::Shape;
using jaxcc_test::empty_axes::Calls;
using jaxcc_test::empty_axes::Case;
using jaxcc_test::empty_axes::results;
using jaxcc_test::empty_axes::X;
using jaxcc_test::empty_axes::inf;
using jaxcc_test::empty_axes::nan;

std::vector<Case> const& golden() {
  static std::vector<Case> const all = {
#include "golden/empty_axes_lax.inc"
  };
  return all;
}

Array<std::int32_t> int_zeros(std::int64_t n) { return jnp::zeros<std::int32_t>({n}); }

/// The report's cases, as its words name them.
Calls const& report_calls() {
  static Calls const calls = {
      {"jnp.cumsum(x, 0)", [](X const& x) { return results(jnp::cumsum(x, 0)); }},
      {"lax.cumprod(x, 0, reverse=True)", [](X const& x) { return results(lax::cumprod(x, 0, true)); }},
      {"lax.cummax(x, 1)", [](X const& x) { return results(lax::cummax(x, 1)); }},
      {"jnp.pad(x, ((0, 0), (0, 0)), 'edge')", [](X const& x) { return results(jnp::pad(x, {{0, 0}, {0, 0}}, "edge")); }},
      {"jnp.pad(x, ((4, 4), (0, 0)), 'reflect')",
       [](X const& x) { return results(jnp::pad(x, {{4, 4}, {0, 0}}, "reflect")); }},
      {"jnp.cumsum(x, 1)", [](X const& x) { return results(jnp::cumsum(x, 1)); }},
      {"jnp.repeat(x, 3, -1)", [](X const& x) { return results(jnp::repeat(x, 3, -1)); }},
      {"x[2, jnp.zeros(0, int32)]", [](X const& x) { return results(x(2, int_zeros(0))); }},
      {"x.at[jnp.zeros(3, int32)].add(1.0)", [](X const& x) { return results(x.at(int_zeros(3)).add(1.0f)); }},
      {"x.at[0, jnp.zeros(3, int32)].add(1.0)", [](X const& x) { return results(x.at(0, int_zeros(3)).add(1.0f)); }},
      {"x.at[4:-3:2].add(jnp.ones((1, 5)))",
       [](X const& x) { return results(x.at(jaxcc::slice(4, -3, 2)).add(jnp::ones<float>({1, 5}))); }},
      {"jnp.pad(x, 2, 'mean')", [](X const& x) { return results(jnp::pad(x, 2, "mean")); }},
      {"jnp.pad(x, 2, 'linear_ramp')", [](X const& x) { return results(jnp::pad(x, 2, "linear_ramp")); }},
  };
  return calls;
}

/// [value] * x.ndim.
Axes filled(X const& x, std::int64_t value) { return Axes(static_cast<std::size_t>(x.ndim()), value); }
/// [0] * x.ndim, as a shape.
Shape empty_shape(X const& x) { return Shape(static_cast<std::size_t>(x.ndim()), 0); }
/// [(lo, hi, interior)] * x.ndim.
jaxcc::primitives::pad_p::PaddingConfig padding(X const& x, std::int64_t lo, std::int64_t hi, std::int64_t interior) {
  return {static_cast<std::size_t>(x.ndim()), {lo, hi, interior}};
}
float const inf_f = std::numeric_limits<float>::infinity();

/// A mesh of one device, named "x".
jaxcc::Mesh const& mesh() {
  static jaxcc::Mesh const one({jaxcc::Device{0}}, {1}, {"x"});
  return one;
}

/// A function of the mapped slices of x under vmap over axis 0, named "i".
template <class F>
auto named(F const& f) {
  return [f](X const& x) { return results(jaxcc::vmap(f, jaxcc::axis_name("i"))(x)); };
}

/// jax.lax and jax.nn on empty and 0-d inputs.
Calls const& sweep_calls() {
  using I = Array<std::int32_t>;
  auto const twice = [](X const& v) { return X(v * 2.0f); };
  auto const twice_at = [twice](I const&, X const& v) { return twice(v); };
  auto const sum_and_double = [](X const& c, X const& v) { return std::pair{X(c + jnp::sum(v)), X(v * 2.0f)}; };
  static Calls const calls = {
      // Cumulative reductions and associative_scan.
      {"lax.cumsum(x, 0)", [](X const& x) { return results(lax::cumsum(x, 0)); }},
      {"lax.cumsum(x, 1, reverse=True)", [](X const& x) { return results(lax::cumsum(x, 1, true)); }},
      {"lax.cumsum(x, -1)", [](X const& x) { return results(lax::cumsum(x, -1)); }},
      {"lax.cumprod(x, 1)", [](X const& x) { return results(lax::cumprod(x, 1)); }},
      {"lax.cummax(x, 0)", [](X const& x) { return results(lax::cummax(x, 0)); }},
      {"lax.cummin(x, 1, reverse=True)", [](X const& x) { return results(lax::cummin(x, 1, true)); }},
      {"lax.associative_scan(lax.add, x)", [](X const& x) { return results(lax::associative_scan(lax::add, x)); }},
      {"lax.associative_scan(lax.add, x, axis=-1)",
       [](X const& x) { return results(lax::associative_scan(lax::add, x, false, -1)); }},
      {"lax.associative_scan(lambda a, b: a * b, x, reverse=True, axis=1)",
       [](X const& x) {
         return results(lax::associative_scan([](X const& a, X const& b) { return a * b; }, x, true, 1));
       }},
      // Elementwise.
      {"lax.erf(x)", [](X const& x) { return results(lax::erf(x)); }},
      {"lax.erfc(x)", [](X const& x) { return results(lax::erfc(x)); }},
      {"lax.erf_inv(x)", [](X const& x) { return results(lax::erf_inv(x)); }},
      {"lax.lgamma(x)", [](X const& x) { return results(lax::lgamma(x)); }},
      {"lax.digamma(x)", [](X const& x) { return results(lax::digamma(x)); }},
      {"lax.polygamma(1, x)", [](X const& x) { return results(lax::polygamma(1, x)); }},
      {"lax.is_finite(x)", [](X const& x) { return results(lax::is_finite(x)); }},
      {"lax.rem(x, x)", [](X const& x) { return results(lax::rem(x, x)); }},
      {"lax.atan2(x, x)", [](X const& x) { return results(lax::atan2(x, x)); }},
      {"lax.shift_left((x * 10).astype(int32), 2)",
       [](X const& x) { return results(lax::shift_left(X(x * 10.0f).astype<std::int32_t>(), 2)); }},
      {"lax.shift_right_arithmetic((x * -10).astype(int32), 1)",
       [](X const& x) { return results(lax::shift_right_arithmetic(X(x * -10.0f).astype<std::int32_t>(), 1)); }},
      {"lax.shift_right_logical((x * -10).astype(int32), 1)",
       [](X const& x) { return results(lax::shift_right_logical(X(x * -10.0f).astype<std::int32_t>(), 1)); }},
      {"lax.convert_element_type(x, int32)",
       [](X const& x) { return results(lax::convert_element_type<std::int32_t>(x)); }},
      {"lax.convert_element_type(x, bool)", [](X const& x) { return results(lax::convert_element_type<bool>(x)); }},
      {"lax.select(x > 0.5, x, -x)", [](X const& x) { return results(lax::select(x > 0.5f, x, -x)); }},
      // Shapes and layout.
      {"lax.reshape(x, (0, 5))", [](X const& x) { return results(lax::reshape(x, {0, 5})); }},
      {"lax.reshape(x, (x.size,))", [](X const& x) { return results(lax::reshape(x, {x.size()})); }},
      {"lax.squeeze(x, [])", [](X const& x) { return results(lax::squeeze(x, {})); }},
      {"lax.squeeze(x, [0])", [](X const& x) { return results(lax::squeeze(x, {0})); }},
      {"lax.squeeze(x, [-1])", [](X const& x) { return results(lax::squeeze(x, {-1})); }},
      {"lax.expand_dims(x, [0])", [](X const& x) { return results(lax::expand_dims(x, {0})); }},
      {"lax.expand_dims(x, [-1])", [](X const& x) { return results(lax::expand_dims(x, {-1})); }},
      {"lax.expand_dims(x, [0, 2])", [](X const& x) { return results(lax::expand_dims(x, {0, 2})); }},
      {"lax.transpose(x, (1, 0))", [](X const& x) { return results(lax::transpose(x, {1, 0})); }},
      {"lax.transpose(x, tuple(reversed(range(x.ndim))))",
       [](X const& x) {
         Axes reversed;
         for (auto d = x.ndim() - 1; d >= 0; --d) reversed.push_back(d);
         return results(lax::transpose(x, reversed));
       }},
      {"lax.broadcast_in_dim(x, (4,) + x.shape, range(1, x.ndim + 1))",
       [](X const& x) {
         Shape shape{4};
         Axes dims;
         for (std::int64_t d = 0; d < x.ndim(); ++d) {
           shape.push_back(x.shape()[static_cast<std::size_t>(d)]);
           dims.push_back(d + 1);
         }
         return results(lax::broadcast_in_dim(x, shape, dims));
       }},
      {"lax.broadcast_in_dim(x, (0, 3), (1,))",
       [](X const& x) { return results(lax::broadcast_in_dim(x, {0, 3}, {1})); }},
      {"lax.broadcast_in_dim(x, (2, 0, 3), ())",
       [](X const& x) { return results(lax::broadcast_in_dim(x, {2, 0, 3}, {})); }},
      {"lax.concatenate([x, x], 0)", [](X const& x) { return results(lax::concatenate(std::vector{x, x}, 0)); }},
      {"lax.concatenate([x, x, x], 1)", [](X const& x) { return results(lax::concatenate(std::vector{x, x, x}, 1)); }},
      {"lax.concatenate([x], 0)", [](X const& x) { return results(lax::concatenate(std::vector{x}, 0)); }},
      // Slicing and padding.
      {"lax.slice(x, [0] * x.ndim, x.shape)",
       [](X const& x) { return results(lax::slice(x, filled(x, 0), x.shape())); }},
      {"lax.slice(x, [0] * x.ndim, x.shape, [2] * x.ndim)",
       [](X const& x) { return results(lax::slice(x, filled(x, 0), x.shape(), filled(x, 2))); }},
      {"lax.slice(x, (0, 1), (0, 3))", [](X const& x) { return results(lax::slice(x, {0, 1}, {0, 3})); }},
      {"lax.dynamic_slice(x, [0] * x.ndim, x.shape)",
       [](X const& x) { return results(lax::dynamic_slice(x, filled(x, 0), x.shape())); }},
      {"lax.dynamic_slice(x, [1] * x.ndim, [0] * x.ndim)",
       [](X const& x) { return results(lax::dynamic_slice(x, filled(x, 1), empty_shape(x))); }},
      {"lax.dynamic_slice(x, (0, 0), (1, 3))",
       [](X const& x) { return results(lax::dynamic_slice(x, {0, 0}, {1, 3})); }},
      {"lax.dynamic_update_slice(x, x, [0] * x.ndim)",
       [](X const& x) { return results(lax::dynamic_update_slice(x, x, filled(x, 0))); }},
      {"lax.dynamic_update_slice(x, jnp.ones([0] * x.ndim), [1] * x.ndim)",
       [](X const& x) {
         return results(lax::dynamic_update_slice(x, jnp::ones<float>(empty_shape(x)), filled(x, 1)));
       }},
      {"lax.dynamic_update_slice(x, jnp.ones((1, 1)), (0, 0))",
       [](X const& x) { return results(lax::dynamic_update_slice(x, jnp::ones<float>({1, 1}), {0, 0})); }},
      {"lax.pad(x, 0.0, [(1, 2, 1)] * x.ndim)",
       [](X const& x) { return results(lax::pad(x, 0.0f, padding(x, 1, 2, 1))); }},
      {"lax.pad(x, 5.0, [(-1, 1, 2)] * x.ndim)",
       [](X const& x) { return results(lax::pad(x, 5.0f, padding(x, -1, 1, 2))); }},
      {"lax.pad(x, 0.0, [(-1, 0, 0)] * x.ndim)",
       [](X const& x) { return results(lax::pad(x, 0.0f, padding(x, -1, 0, 0))); }},
      // Contractions, convolutions and windowed reductions.
      {"lax.dot_general(x, x, (((0,), (0,)), ((), ())))",
       [](X const& x) { return results(lax::dot_general(x, x, {{0}, {0}, {}, {}})); }},
      {"lax.dot_general(x, x, (((1,), (1,)), ((), ())))",
       [](X const& x) { return results(lax::dot_general(x, x, {{1}, {1}, {}, {}})); }},
      {"lax.dot_general(x, x, (((2,), (2,)), ((0,), (0,))))",
       [](X const& x) { return results(lax::dot_general(x, x, {{2}, {2}, {0}, {0}})); }},
      {"lax.conv(x, jnp.ones((2, 3, 3, 3)), (1, 1), 'VALID')",
       [](X const& x) { return results(lax::conv(x, jnp::ones<float>({2, 3, 3, 3}), {1, 1}, "VALID")); }},
      {"lax.conv(x, jnp.ones((2, 3, 3, 3)), (2, 2), 'SAME')",
       [](X const& x) { return results(lax::conv(x, jnp::ones<float>({2, 3, 3, 3}), {2, 2}, "SAME")); }},
      {"lax.conv(x, jnp.ones((2, 0, 3, 3)), (1, 1), 'SAME')",
       [](X const& x) { return results(lax::conv(x, jnp::ones<float>({2, 0, 3, 3}), {1, 1}, "SAME")); }},
      {"lax.conv(x, jnp.ones((0, 3, 3, 3)), (1, 1), 'VALID')",
       [](X const& x) { return results(lax::conv(x, jnp::ones<float>({0, 3, 3, 3}), {1, 1}, "VALID")); }},
      {"lax.conv_general_dilated(x, jnp.ones((3, 3, 3, 2)), (1, 1), 'SAME', "
       "dimension_numbers=('NHWC', 'HWIO', 'NHWC'))",
       [](X const& x) {
         auto const kernel = jnp::ones<float>({3, 3, 3, 2});
         return results(lax::conv_general_dilated(x, kernel, {1, 1}, "SAME", {}, {}, {"NHWC", "HWIO", "NHWC"}));
       }},
      {"lax.conv_general_dilated(x, jnp.ones((2, 3, 2, 2)), (2, 1), ((1, 1), (0, 2)), (2, 1), (1, 2))",
       [](X const& x) {
         auto const kernel = jnp::ones<float>({2, 3, 2, 2});
         return results(lax::conv_general_dilated(x, kernel, {2, 1}, {{1, 1}, {0, 2}}, {2, 1}, {1, 2}));
       }},
      {"lax.conv_general_dilated(x, jnp.ones((6, 1, 3, 3)), (1, 1), 'SAME', feature_group_count=3)",
       [](X const& x) {
         return results(lax::conv_general_dilated(x, jnp::ones<float>({6, 1, 3, 3}), {1, 1}, "SAME", {}, {}, {}, 3));
       }},
      {"lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), 'VALID')",
       [](X const& x) { return results(lax::reduce_window(x, 0.0f, lax::add, {2, 2}, {1, 1}, "VALID")); }},
      {"lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), ((1, 1), (1, 1)))",
       [](X const& x) { return results(lax::reduce_window(x, 0.0f, lax::add, {2, 2}, {1, 1}, {{1, 1}, {1, 1}})); }},
      {"lax.reduce_window(x, 1.0, lax.add, (2, 2), (1, 1), ((1, 1), (1, 1)))",
       [](X const& x) { return results(lax::reduce_window(x, 1.0f, lax::add, {2, 2}, {1, 1}, {{1, 1}, {1, 1}})); }},
      {"lax.reduce_window(x, 0.0, lax.add, (1, 2), (1, 1), 'VALID', (2, 2))",
       [](X const& x) { return results(lax::reduce_window(x, 0.0f, lax::add, {1, 2}, {1, 1}, "VALID", {2, 2})); }},
      {"lax.reduce_window(x, -inf, lax.max, (2, 2), (2, 2), 'SAME')",
       [](X const& x) { return results(lax::reduce_window(x, -inf_f, lax::max, {2, 2}, {2, 2}, "SAME")); }},
      {"lax.reduce_window(x, inf, lax.min, (1, 1, 2, 2), (1, 1, 2, 2), 'VALID')",
       [](X const& x) { return results(lax::reduce_window(x, inf_f, lax::min, {1, 1, 2, 2}, {1, 1, 2, 2}, "VALID")); }},
      {"lax.reduce_window(x, -inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (1, 1), (0, 0)), None, "
       "(1, 2, 2, 1))",
       [](X const& x) {
         return results(lax::reduce_window(x, -inf_f, lax::max, {1, 2, 2, 1}, {1, 1, 1, 1},
                                           {{0, 0}, {1, 1}, {1, 1}, {0, 0}}, {}, {1, 2, 2, 1}));
       }},
      // Sorting.
      {"lax.top_k(x, 0)", [](X const& x) { return results(lax::top_k(x, 0)); }},
      {"lax.top_k(x, 2)", [](X const& x) { return results(lax::top_k(x, 2)); }},
      {"lax.top_k(x, 0, axis=0)", [](X const& x) { return results(lax::top_k(x, 0, 0)); }},
      // Control flow.
      {"lax.cond(True, lambda v: v + 1, lambda v: v - 1, x)",
       [](X const& x) {
         auto const plus_one = [](X const& v) { return X(v + 1.0f); };
         return results(lax::cond(true, plus_one, [](X const& v) { return X(v - 1.0f); }, x));
       }},
      {"lax.cond(x.size > 0, lambda v: v * 2, lambda v: -v, x)",
       [twice](X const& x) { return results(lax::cond(x.size() > 0, twice, [](X const& v) { return X(-v); }, x)); }},
      {"lax.fori_loop(0, 3, lambda i, v: v * 2, x)",
       [twice_at](X const& x) { return results(lax::fori_loop(0, 3, twice_at, x)); }},
      {"lax.fori_loop(2, 0, lambda i, v: v * 2, x)",
       [twice_at](X const& x) { return results(lax::fori_loop(2, 0, twice_at, x)); }},
      {"lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, x))",
       [](X const& x) {
         using C = std::pair<I, X>;
         auto const [i, v] = lax::while_loop([](C const& c) { return c.first < 3; },
                                             [](C const& c) { return C{I(c.first + 1), X(c.second * 2.0f)}; },
                                             C{jnp::array(0), x});
         return results(i, v);
       }},
      {"lax.scan(lambda c, v: (c + v.sum(), v * 2), jnp.float32(1), x)",
       [sum_and_double](X const& x) {
         auto const [c, ys] = lax::scan(sum_and_double, jnp::array(1.0f), x);
         return results(c, ys);
       }},
      {"lax.scan(lambda c, v: (c + v.sum(), v * 2), jnp.float32(1), x, reverse=True)",
       [sum_and_double](X const& x) {
         auto const [c, ys] = lax::scan(sum_and_double, jnp::array(1.0f), x, std::nullopt, true);
         return results(c, ys);
       }},
      {"lax.scan(lambda c, _: (c * 2, c), x, None, length=3)",
       [](X const& x) {
         auto const [c, ys] =
             lax::scan([](X const& c, jaxcc::none_t) { return std::pair{X(c * 2.0f), c}; }, x, jaxcc::none, 3);
         return results(c, ys);
       }},
      // Collectives over the named axis of a vmap.
      {"jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i')(x)", named([](X const& v) { return lax::psum(v, "i"); })},
      {"jax.vmap(lambda v: lax.pmean(v, 'i'), axis_name='i')(x)", named([](X const& v) { return lax::pmean(v, "i"); })},
      {"jax.vmap(lambda v: lax.pmax(v, 'i'), axis_name='i')(x)", named([](X const& v) { return lax::pmax(v, "i"); })},
      {"jax.vmap(lambda v: lax.pmin(v, 'i'), axis_name='i')(x)", named([](X const& v) { return lax::pmin(v, "i"); })},
      {"jax.vmap(lambda v: lax.all_gather(v, 'i'), axis_name='i')(x)",
       named([](X const& v) { return lax::all_gather(v, "i"); })},
      {"jax.vmap(lambda v: lax.all_gather(v, 'i', axis=-1, tiled=True), axis_name='i')(x)",
       named([](X const& v) { return lax::all_gather(v, "i", -1, true); })},
      {"jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 0), axis_name='i')(x)",
       named([](X const& v) { return lax::all_to_all(v, "i", 0, 0); })},
      {"jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 1, tiled=True), axis_name='i')(x)",
       named([](X const& v) { return lax::all_to_all(v, "i", 0, 1, true); })},
      {"jax.vmap(lambda v: lax.ppermute(v, 'i', [(0, 1), (1, 0)]), axis_name='i')(x)",
       named([](X const& v) { return lax::ppermute(v, "i", {{0, 1}, {1, 0}}); })},
      {"jax.vmap(lambda v: lax.psum_scatter(v, 'i'), axis_name='i')(x)",
       named([](X const& v) { return lax::psum_scatter(v, "i"); })},
      {"jax.vmap(lambda v: lax.psum_scatter(v, 'i', tiled=True), axis_name='i')(x)",
       named([](X const& v) { return lax::psum_scatter(v, "i", 0, true); })},
      {"jax.vmap(lambda v: lax.axis_index('i'), axis_name='i')(x)",
       named([](X const&) { return lax::axis_index("i"); })},
      // Sharding, on a mesh of one device.
      {"lax.with_sharding_constraint(x, NamedSharding(MESH, P()))",
       [](X const& x) { return results(lax::with_sharding_constraint(x, NamedSharding(mesh(), P()))); }},
      {"lax.with_sharding_constraint(x, NamedSharding(MESH, P('x')))",
       [](X const& x) { return results(lax::with_sharding_constraint(x, NamedSharding(mesh(), P("x")))); }},
      // lax.linalg.
      {"lax.linalg.cholesky(x)", [](X const& x) { return results(linalg::cholesky(x)); }},
      {"lax.linalg.eigh(x)", [](X const& x) { return results(linalg::eigh(x)); }},
      {"lax.linalg.lu(x)", [](X const& x) { return results(linalg::lu(x)); }},
      {"lax.linalg.qr(x)", [](X const& x) { return results(linalg::qr(x)); }},
      {"lax.linalg.qr(x, full_matrices=False)", [](X const& x) { return results(linalg::qr(x, false)); }},
      {"lax.linalg.svd(x)", [](X const& x) { return results(linalg::svd(x)); }},
      {"lax.linalg.svd(x, full_matrices=False)", [](X const& x) { return results(linalg::svd(x, false)); }},
      {"lax.linalg.svd(x, compute_uv=False)", [](X const& x) { return results(linalg::singular_values(x)); }},
      {"lax.linalg.triangular_solve(x, x, left_side=True, lower=True)",
       [](X const& x) { return results(linalg::triangular_solve(x, x, true, true)); }},
      {"lax.linalg.triangular_solve(x, x, transpose_a=True, unit_diagonal=True)",
       [](X const& x) { return results(linalg::triangular_solve(x, x, false, false, true, false, true)); }},
      {"lax.linalg.triangular_solve(jnp.eye(3), x, left_side=True)",
       [](X const& x) { return results(linalg::triangular_solve(jnp::eye<float>(3), x, true)); }},
      // jax.nn.
      {"nn.relu(x)", [](X const& x) { return results(nn::relu(x)); }},
      {"nn.sigmoid(x)", [](X const& x) { return results(nn::sigmoid(x)); }},
      {"nn.silu(x)", [](X const& x) { return results(nn::silu(x)); }},
      {"nn.swish(x)", [](X const& x) { return results(nn::swish(x)); }},
      {"nn.softplus(x)", [](X const& x) { return results(nn::softplus(x)); }},
      {"nn.log_sigmoid(x)", [](X const& x) { return results(nn::log_sigmoid(x)); }},
      {"nn.gelu(x)", [](X const& x) { return results(nn::gelu(x)); }},
      {"nn.gelu(x, approximate=False)", [](X const& x) { return results(nn::gelu(x, false)); }},
      {"nn.softmax(x, 0)", [](X const& x) { return results(nn::softmax(x, 0)); }},
      {"nn.softmax(x, -1)", [](X const& x) { return results(nn::softmax(x, -1)); }},
      {"nn.softmax(x, None)", [](X const& x) { return results(nn::softmax(x, jaxcc::none)); }},
      {"nn.log_softmax(x, 0)", [](X const& x) { return results(nn::log_softmax(x, 0)); }},
      {"nn.log_softmax(x, -1)", [](X const& x) { return results(nn::log_softmax(x, -1)); }},
      {"nn.logsumexp(x)", [](X const& x) { return results(nn::logsumexp(x)); }},
      {"nn.logsumexp(x, 0)", [](X const& x) { return results(nn::logsumexp(x, 0)); }},
      {"nn.logsumexp(x, -1, keepdims=True)", [](X const& x) { return results(nn::logsumexp(x, -1, true)); }},
      {"nn.one_hot(x.astype(int32), 3)", [](X const& x) { return results(nn::one_hot(x.astype<std::int32_t>(), 3)); }},
      {"nn.one_hot(x.astype(int32), 3, axis=0)",
       [](X const& x) { return results(nn::one_hot(x.astype<std::int32_t>(), 3, 0)); }},
  };
  return calls;
}

TEST_CASE("the report's cases: cumulative ops, pad, repeat, indexing and updates at empty axes match JAX") {
  std::vector<Case> report;
  for (auto const& c : golden())
    if (report_calls().count(c.call)) report.push_back(c);
  CHECK(report.size() == 15);
  CHECK(jaxcc_test::empty_axes::sweep(report, report_calls()) == report.size());
}

TEST_CASE("the errors at empty axes and 0-d arrays name the operation, the axis and the shape") {
  using jaxcc_test::message_of;
  auto const scalar = jnp::full<float>(Shape{}, 0.7f);
  CHECK(message_of([&] { (void)jnp::cumsum(scalar, 0); }) == "cumsum: axis 0 is out of bounds for array of dimension 0");
  CHECK(message_of([&] { (void)lax::cumsum(scalar, 0); }) == "axis 0 is out of bounds for array of shape ()");
  CHECK(message_of([&] { (void)jnp::repeat(scalar, Axes{1, 2}, 0); }) ==
        "`repeat` with a scalar parameter `a` is only implemented for scalar values of the parameter `repeats`.");
  CHECK(message_of([&] { (void)jnp::pad(jnp::zeros<float>({4, 0}), {{0, 0}, {1, 0}}, "edge"); }) ==
        "Cannot apply 'edge' padding to empty axis");
  CHECK(message_of([&] { (void)jnp::zeros<float>({3, 0, 4})(2, int_zeros(2)); }) ==
        "index is out of bounds for axis 1 with size 0");
  CHECK(message_of([&] { (void)jnp::zeros<float>({0, 4}).at(0).add(1.0f); }) ==
        "index is out of bounds for axis 0 with size 0");
  auto const exchange = jaxcc::vmap([](X const& v) { return lax::all_to_all(v, "i", 0, 0); }, jaxcc::axis_name("i"));
  CHECK(message_of([&] { (void)exchange(jnp::zeros<float>({0, 0})); }) ==
        "all_to_all: the named axis i has size 0, so there are no shards to split into");
  auto const scatter = jaxcc::vmap([](X const& v) { return lax::psum_scatter(v, "i", 0, true); }, jaxcc::axis_name("i"));
  CHECK(message_of([&] { (void)scatter(jnp::zeros<float>({0, 0})); }) ==
        "reduce_scatter: the named axis i has size 0, so there are no shards to split into");
}

TEST_CASE("jax.lax and jax.nn on 0-d and 0-size inputs match JAX") {
  std::vector<Case> swept;
  for (auto const& c : golden())
    if (!report_calls().count(c.call)) swept.push_back(c);
  CHECK(jaxcc_test::empty_axes::sweep(swept, sweep_calls()) == swept.size());
}

}  // namespace test_empty_axes_lax
