// Empty axes and 0-d arrays through jax.numpy and jax.numpy.linalg: each
// call on 0-d and 0-size inputs (each axis empty in turn) against JAX's
// outcome (tests/golden/empty_axes_cases.py, empty_axes_numpy.py). Run
// under AddressSanitizer in CI, so a kernel that touches an empty buffer
// fails.
#include "catch.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "empty_axes_sweep.hpp"
#include "support.hpp"

namespace test_empty_axes_numpy {

namespace jnp = jaxcc::numpy;
namespace linalg = jaxcc::numpy::linalg;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc_test::empty_axes::Calls;
using jaxcc_test::empty_axes::Case;
using jaxcc_test::empty_axes::results;
using jaxcc_test::empty_axes::X;
using jaxcc_test::empty_axes::inf;
using jaxcc_test::empty_axes::nan;

std::vector<Case> const& golden() {
  static std::vector<Case> const all = {
#include "golden/empty_axes_numpy.inc"
  };
  return all;
}

/// jnp.zeros(n, i32): indices.
Array<std::int32_t> zeros_i32(std::int64_t n) { return jnp::zeros<std::int32_t>(n); }

/// Zero int32 indices of x's shape, but 2 long along the last axis.
Array<std::int32_t> last_axis_2(X const& x) {
  Shape shape = x.shape();
  shape.back() = 2;
  return jnp::zeros<std::int32_t>(shape);
}

Calls const& calls() {
  static Calls const calls = {
      // creation.hpp (jnp::array takes no array: the closest is its values and shape)
      {"jnp.array(x)", [](X const& x) { return results(jnp::array(x.to_vector(), x.shape())); }},
      {"jnp.asarray(x)", [](X const& x) { return results(jnp::asarray(x)); }},
      {"jnp.zeros(x.shape)", [](X const& x) { return results(jnp::zeros<float>(x.shape())); }},
      {"jnp.zeros(0)", [](X const&) { return results(jnp::zeros<float>(0)); }},
      {"jnp.ones(x.shape)", [](X const& x) { return results(jnp::ones<float>(x.shape())); }},
      {"jnp.ones(0)", [](X const&) { return results(jnp::ones<float>(0)); }},
      {"jnp.full(x.shape, 2.0)", [](X const& x) { return results(jnp::full<float>(x.shape(), 2.0)); }},
      {"jnp.full(0, 2.0)", [](X const&) { return results(jnp::full<float>(0, 2.0)); }},
      {"jnp.zeros_like(x)", [](X const& x) { return results(jnp::zeros_like(x)); }},
      {"jnp.ones_like(x)", [](X const& x) { return results(jnp::ones_like(x)); }},
      {"jnp.full_like(x, 2.0)", [](X const& x) { return results(jnp::full_like(x, 2.0)); }},
      {"jnp.arange(0)", [](X const&) { return results(jnp::arange<std::int32_t>(0)); }},
      {"jnp.arange(x.size)", [](X const& x) { return results(jnp::arange<std::int32_t>(x.size())); }},
      {"jnp.arange(3, 0)", [](X const&) { return results(jnp::arange<std::int32_t>(3, 0)); }},
      {"jnp.arange(0.0, 1.0, -0.5)", [](X const&) { return results(jnp::arange<float>(0.0, 1.0, -0.5)); }},
      {"jnp.linspace(0, 1, 0)", [](X const&) { return results(jnp::linspace<float>(0, 1, 0)); }},
      {"jnp.linspace(0, 1, x.size)", [](X const& x) { return results(jnp::linspace<float>(0, 1, x.size())); }},
      {"jnp.linspace(0, 1, x.size, endpoint=False)",
       [](X const& x) { return results(jnp::linspace<float>(0, 1, x.size(), false)); }},
      {"jnp.eye(0)", [](X const&) { return results(jnp::eye<float>(0)); }},
      {"jnp.eye(x.size)", [](X const& x) { return results(jnp::eye<float>(x.size())); }},
      {"jnp.eye(0, 3)", [](X const&) { return results(jnp::eye<float>(0, 3)); }},
      {"jnp.eye(3, 0, 1)", [](X const&) { return results(jnp::eye<float>(3, 0, 1)); }},
      {"jnp.meshgrid(x, x)", [](X const& x) { return results(jnp::meshgrid(x, x)); }},
      {"jnp.meshgrid(x, x, indexing='ij')", [](X const& x) { return results(jnp::meshgrid({x, x}, "ij")); }},
      // elementwise.hpp: unary
      {"jnp.abs(x)", [](X const& x) { return results(jnp::abs(x)); }},
      {"jnp.absolute(x)", [](X const& x) { return results(jnp::absolute(x)); }},
      {"jnp.negative(x)", [](X const& x) { return results(jnp::negative(x)); }},
      {"jnp.sign(x)", [](X const& x) { return results(jnp::sign(x)); }},
      {"jnp.square(x)", [](X const& x) { return results(jnp::square(x)); }},
      {"jnp.sqrt(x)", [](X const& x) { return results(jnp::sqrt(x)); }},
      {"jnp.exp(x)", [](X const& x) { return results(jnp::exp(x)); }},
      {"jnp.log(x)", [](X const& x) { return results(jnp::log(x)); }},
      {"jnp.log1p(x)", [](X const& x) { return results(jnp::log1p(x)); }},
      {"jnp.expm1(x)", [](X const& x) { return results(jnp::expm1(x)); }},
      {"jnp.sin(x)", [](X const& x) { return results(jnp::sin(x)); }},
      {"jnp.cos(x)", [](X const& x) { return results(jnp::cos(x)); }},
      {"jnp.tan(x)", [](X const& x) { return results(jnp::tan(x)); }},
      {"jnp.tanh(x)", [](X const& x) { return results(jnp::tanh(x)); }},
      {"jnp.arctan(x)", [](X const& x) { return results(jnp::arctan(x)); }},
      {"jnp.cbrt(x)", [](X const& x) { return results(jnp::cbrt(x)); }},
      {"jnp.floor(x)", [](X const& x) { return results(jnp::floor(x)); }},
      {"jnp.ceil(x)", [](X const& x) { return results(jnp::ceil(x)); }},
      {"jnp.round(x)", [](X const& x) { return results(jnp::round(x)); }},
      {"jnp.isnan(x)", [](X const& x) { return results(jnp::isnan(x)); }},
      {"jnp.isinf(x)", [](X const& x) { return results(jnp::isinf(x)); }},
      {"jnp.isfinite(x)", [](X const& x) { return results(jnp::isfinite(x)); }},
      {"jnp.nan_to_num(x)", [](X const& x) { return results(jnp::nan_to_num(x)); }},
      {"jnp.logical_not(x)", [](X const& x) { return results(jnp::logical_not(x)); }},
      {"jnp.logical_not(x > 0.5)", [](X const& x) { return results(jnp::logical_not(x > 0.5f)); }},
      // elementwise.hpp: binary and ternary
      {"jnp.add(x, x)", [](X const& x) { return results(jnp::add(x, x)); }},
      {"jnp.subtract(x, x)", [](X const& x) { return results(jnp::subtract(x, x)); }},
      {"jnp.multiply(x, x)", [](X const& x) { return results(jnp::multiply(x, x)); }},
      {"jnp.divide(x, x)", [](X const& x) { return results(jnp::divide(x, x)); }},
      {"jnp.true_divide(x, x)", [](X const& x) { return results(jnp::true_divide(x, x)); }},
      {"jnp.power(x, x)", [](X const& x) { return results(jnp::power(x, x)); }},
      {"jnp.maximum(x, x)", [](X const& x) { return results(jnp::maximum(x, x)); }},
      {"jnp.minimum(x, x)", [](X const& x) { return results(jnp::minimum(x, x)); }},
      {"jnp.equal(x, x)", [](X const& x) { return results(jnp::equal(x, x)); }},
      {"jnp.not_equal(x, x)", [](X const& x) { return results(jnp::not_equal(x, x)); }},
      {"jnp.less(x, x)", [](X const& x) { return results(jnp::less(x, x)); }},
      {"jnp.less_equal(x, x)", [](X const& x) { return results(jnp::less_equal(x, x)); }},
      {"jnp.greater(x, x)", [](X const& x) { return results(jnp::greater(x, x)); }},
      {"jnp.greater_equal(x, x)", [](X const& x) { return results(jnp::greater_equal(x, x)); }},
      {"jnp.logical_and(x, x)", [](X const& x) { return results(jnp::logical_and(x, x)); }},
      {"jnp.logical_or(x, x)", [](X const& x) { return results(jnp::logical_or(x, x)); }},
      {"jnp.arctan2(x, x)", [](X const& x) { return results(jnp::arctan2(x, x)); }},
      {"jnp.logaddexp(x, x)", [](X const& x) { return results(jnp::logaddexp(x, x)); }},
      {"jnp.hypot(x, x)", [](X const& x) { return results(jnp::hypot(x, x)); }},
      {"jnp.fmod(x, x)", [](X const& x) { return results(jnp::fmod(x, x)); }},
      {"jnp.add(x, jnp.expand_dims(x, -1))",
       [](X const& x) { return results(jnp::add(x, jnp::expand_dims(x, -1))); }},
      {"jnp.where(x > 0.5, x, 0.0)", [](X const& x) { return results(jnp::where(x > 0.5f, x, 0.0f)); }},
      {"jnp.clip(x, 0.0, 0.5)", [](X const& x) { return results(jnp::clip(x, 0.0f, 0.5f)); }},
      // elementwise.hpp: bitwise, on int32 (and bool)
      {"jnp.bitwise_and(x.astype(i32), x.astype(i32))",
       [](X const& x) { return results(jnp::bitwise_and(x.astype<std::int32_t>(), x.astype<std::int32_t>())); }},
      {"jnp.bitwise_or(x.astype(i32), x.astype(i32))",
       [](X const& x) { return results(jnp::bitwise_or(x.astype<std::int32_t>(), x.astype<std::int32_t>())); }},
      {"jnp.bitwise_xor(x.astype(i32), x.astype(i32))",
       [](X const& x) { return results(jnp::bitwise_xor(x.astype<std::int32_t>(), x.astype<std::int32_t>())); }},
      {"jnp.bitwise_and(x > 0.5, x > 0.5)", [](X const& x) { return results(jnp::bitwise_and(x > 0.5f, x > 0.5f)); }},
      {"jnp.bitwise_not(x.astype(i32))",
       [](X const& x) { return results(jnp::bitwise_not(x.astype<std::int32_t>())); }},
      {"jnp.invert(x.astype(i32))", [](X const& x) { return results(jnp::invert(x.astype<std::int32_t>())); }},
      {"jnp.left_shift(x.astype(i32), x.astype(i32))",
       [](X const& x) { return results(jnp::left_shift(x.astype<std::int32_t>(), x.astype<std::int32_t>())); }},
      {"jnp.right_shift(x.astype(i32), x.astype(i32))",
       [](X const& x) { return results(jnp::right_shift(x.astype<std::int32_t>(), x.astype<std::int32_t>())); }},
      // reductions.hpp
      {"jnp.sum(x)", [](X const& x) { return results(jnp::sum(x)); }},
      {"jnp.sum(x, 0)", [](X const& x) { return results(jnp::sum(x, 0)); }},
      {"jnp.sum(x, -1)", [](X const& x) { return results(jnp::sum(x, -1)); }},
      {"jnp.sum(x, (0, -1), keepdims=True)", [](X const& x) { return results(jnp::sum(x, {0, -1}, true)); }},
      {"jnp.prod(x)", [](X const& x) { return results(jnp::prod(x)); }},
      {"jnp.prod(x, 0)", [](X const& x) { return results(jnp::prod(x, 0)); }},
      {"jnp.prod(x, -1)", [](X const& x) { return results(jnp::prod(x, -1)); }},
      {"jnp.max(x)", [](X const& x) { return results(jnp::max(x)); }},
      {"jnp.max(x, 0)", [](X const& x) { return results(jnp::max(x, 0)); }},
      {"jnp.max(x, -1)", [](X const& x) { return results(jnp::max(x, -1)); }},
      {"jnp.min(x)", [](X const& x) { return results(jnp::min(x)); }},
      {"jnp.min(x, 0)", [](X const& x) { return results(jnp::min(x, 0)); }},
      {"jnp.min(x, -1)", [](X const& x) { return results(jnp::min(x, -1)); }},
      {"jnp.any(x)", [](X const& x) { return results(jnp::any(x)); }},
      {"jnp.any(x, 0)", [](X const& x) { return results(jnp::any(x, 0)); }},
      {"jnp.any(x, -1)", [](X const& x) { return results(jnp::any(x, -1)); }},
      {"jnp.all(x)", [](X const& x) { return results(jnp::all(x)); }},
      {"jnp.all(x, 0)", [](X const& x) { return results(jnp::all(x, 0)); }},
      {"jnp.all(x, -1)", [](X const& x) { return results(jnp::all(x, -1)); }},
      {"jnp.mean(x)", [](X const& x) { return results(jnp::mean(x)); }},
      {"jnp.mean(x, 0)", [](X const& x) { return results(jnp::mean(x, 0)); }},
      {"jnp.mean(x, -1)", [](X const& x) { return results(jnp::mean(x, -1)); }},
      {"jnp.var(x)", [](X const& x) { return results(jnp::var(x)); }},
      {"jnp.var(x, 0)", [](X const& x) { return results(jnp::var(x, 0)); }},
      {"jnp.var(x, -1)", [](X const& x) { return results(jnp::var(x, -1)); }},
      {"jnp.var(x, ddof=1)", [](X const& x) { return results(jnp::var(x, {}, 1)); }},
      {"jnp.std(x)", [](X const& x) { return results(jnp::std(x)); }},
      {"jnp.std(x, 0)", [](X const& x) { return results(jnp::std(x, 0)); }},
      {"jnp.std(x, -1)", [](X const& x) { return results(jnp::std(x, -1)); }},
      {"jnp.argmax(x)", [](X const& x) { return results(jnp::argmax(x)); }},
      {"jnp.argmax(x, 0)", [](X const& x) { return results(jnp::argmax(x, 0)); }},
      {"jnp.argmax(x, -1)", [](X const& x) { return results(jnp::argmax(x, -1)); }},
      {"jnp.argmin(x)", [](X const& x) { return results(jnp::argmin(x)); }},
      {"jnp.argmin(x, 0)", [](X const& x) { return results(jnp::argmin(x, 0)); }},
      {"jnp.argmin(x, -1)", [](X const& x) { return results(jnp::argmin(x, -1)); }},
      // cumulative.hpp (cummax and cummin: JAX's are lax.cummax and lax.cummin)
      {"jnp.cumsum(x)", [](X const& x) { return results(jnp::cumsum(x)); }},
      {"jnp.cumsum(x, 0)", [](X const& x) { return results(jnp::cumsum(x, 0)); }},
      {"jnp.cumsum(x, -1)", [](X const& x) { return results(jnp::cumsum(x, -1)); }},
      {"jnp.cumprod(x)", [](X const& x) { return results(jnp::cumprod(x)); }},
      {"jnp.cumprod(x, 0)", [](X const& x) { return results(jnp::cumprod(x, 0)); }},
      {"jnp.cumprod(x, -1)", [](X const& x) { return results(jnp::cumprod(x, -1)); }},
      {"jnp.cummax(x)", [](X const& x) { return results(jnp::cummax(x)); }},
      {"jnp.cummax(x, 0)", [](X const& x) { return results(jnp::cummax(x, 0)); }},
      {"jnp.cummax(x, -1)", [](X const& x) { return results(jnp::cummax(x, -1)); }},
      {"jnp.cummin(x)", [](X const& x) { return results(jnp::cummin(x)); }},
      {"jnp.cummin(x, 0)", [](X const& x) { return results(jnp::cummin(x, 0)); }},
      {"jnp.cummin(x, -1)", [](X const& x) { return results(jnp::cummin(x, -1)); }},
      // diagonals.hpp
      {"jnp.tril(x)", [](X const& x) { return results(jnp::tril(x)); }},
      {"jnp.tril(x, -1)", [](X const& x) { return results(jnp::tril(x, -1)); }},
      {"jnp.triu(x)", [](X const& x) { return results(jnp::triu(x)); }},
      {"jnp.triu(x, 1)", [](X const& x) { return results(jnp::triu(x, 1)); }},
      {"jnp.diagonal(x)", [](X const& x) { return results(jnp::diagonal(x)); }},
      {"jnp.diagonal(x, 1)", [](X const& x) { return results(jnp::diagonal(x, 1)); }},
      {"jnp.diagonal(x, 0, -2, -1)", [](X const& x) { return results(jnp::diagonal(x, 0, -2, -1)); }},
      {"jnp.trace(x)", [](X const& x) { return results(jnp::trace(x)); }},
      {"jnp.trace(x, -1)", [](X const& x) { return results(jnp::trace(x, -1)); }},
      {"jnp.diag(x)", [](X const& x) { return results(jnp::diag(x)); }},
      {"jnp.diag(x, 1)", [](X const& x) { return results(jnp::diag(x, 1)); }},
      // einsum.hpp (the last through the overload that takes a list of operands)
      {"jnp.einsum('...->', x)", [](X const& x) { return results(jnp::einsum("...->", x)); }},
      {"jnp.einsum('ij->j', x)", [](X const& x) { return results(jnp::einsum("ij->j", x)); }},
      {"jnp.einsum('ij->ji', x)", [](X const& x) { return results(jnp::einsum("ij->ji", x)); }},
      {"jnp.einsum('ij,ij->i', x, x)", [](X const& x) { return results(jnp::einsum("ij,ij->i", x, x)); }},
      {"jnp.einsum('ij,kj->ik', x, x)", [](X const& x) { return results(jnp::einsum("ij,kj->ik", x, x)); }},
      {"jnp.einsum('ii->i', x)", [](X const& x) { return results(jnp::einsum("ii->i", x)); }},
      {"jnp.einsum('...ij,...jk->...ik', x, x)",
       [](X const& x) { return results(jnp::einsum("...ij,...jk->...ik", std::vector<X>{x, x})); }},
      // indexing.hpp
      {"jnp.take(x, jnp.zeros(2, i32))", [](X const& x) { return results(jnp::take(x, zeros_i32(2))); }},
      {"jnp.take(x, jnp.zeros(2, i32), axis=0)", [](X const& x) { return results(jnp::take(x, zeros_i32(2), 0)); }},
      {"jnp.take(x, jnp.zeros(2, i32), axis=-1)", [](X const& x) { return results(jnp::take(x, zeros_i32(2), -1)); }},
      {"jnp.take(x, jnp.zeros(2, i32), axis=-1, mode='clip')",
       [](X const& x) { return results(jnp::take(x, zeros_i32(2), -1, "clip")); }},
      {"jnp.take(x, jnp.zeros(0, i32), axis=-1)", [](X const& x) { return results(jnp::take(x, zeros_i32(0), -1)); }},
      {"jnp.take(x, x.astype(i32))", [](X const& x) { return results(jnp::take(x, x.astype<std::int32_t>())); }},
      {"jnp.take_along_axis(x, x.astype(i32), axis=0)",
       [](X const& x) { return results(jnp::take_along_axis(x, x.astype<std::int32_t>(), 0)); }},
      {"jnp.take_along_axis(x, x.astype(i32), axis=-1)",
       [](X const& x) { return results(jnp::take_along_axis(x, x.astype<std::int32_t>(), -1)); }},
      {"jnp.take_along_axis(x, last_axis_2(x), axis=-1)",
       [](X const& x) { return results(jnp::take_along_axis(x, last_axis_2(x), -1)); }},
      {"jnp.take_along_axis(x, last_axis_2(x), axis=-1, mode='clip')",
       [](X const& x) { return results(jnp::take_along_axis(x, last_axis_2(x), -1, "clip")); }},
      {"jnp.take_along_axis(x, jnp.zeros(x.size, i32), axis=None)",
       [](X const& x) { return results(jnp::take_along_axis(x, zeros_i32(x.size()), jaxcc::none)); }},
      // layout.hpp
      {"jnp.reshape(x, (-1,))", [](X const& x) { return results(jnp::reshape(x, Shape{-1})); }},
      {"jnp.reshape(x, (0, -1))", [](X const& x) { return results(jnp::reshape(x, Shape{0, -1})); }},
      {"jnp.reshape(x, x.size)", [](X const& x) { return results(jnp::reshape(x, x.size())); }},
      {"jnp.ravel(x)", [](X const& x) { return results(jnp::ravel(x)); }},
      {"jnp.transpose(x)", [](X const& x) { return results(jnp::transpose(x)); }},
      {"jnp.transpose(x, (1, 0))", [](X const& x) { return results(jnp::transpose(x, Axes{1, 0})); }},
      {"jnp.swapaxes(x, 0, -1)", [](X const& x) { return results(jnp::swapaxes(x, 0, -1)); }},
      {"jnp.moveaxis(x, 0, -1)", [](X const& x) { return results(jnp::moveaxis(x, 0, -1)); }},
      {"jnp.moveaxis(x, (0, 1), (1, 0))", [](X const& x) { return results(jnp::moveaxis(x, Axes{0, 1}, Axes{1, 0})); }},
      {"jnp.expand_dims(x, 0)", [](X const& x) { return results(jnp::expand_dims(x, 0)); }},
      {"jnp.expand_dims(x, -1)", [](X const& x) { return results(jnp::expand_dims(x, -1)); }},
      {"jnp.expand_dims(x, (0, 2))", [](X const& x) { return results(jnp::expand_dims(x, Axes{0, 2})); }},
      {"jnp.squeeze(x)", [](X const& x) { return results(jnp::squeeze(x)); }},
      {"jnp.squeeze(x, 0)", [](X const& x) { return results(jnp::squeeze(x, 0)); }},
      {"jnp.squeeze(x[None], 0)", [](X const& x) { return results(jnp::squeeze(x(jaxcc::newaxis), 0)); }},
      {"jnp.broadcast_to(x, (2,) + x.shape)",
       [](X const& x) {
         Shape shape{2};
         for (auto d : x.shape()) shape.push_back(d);
         return results(jnp::broadcast_to(x, shape));
       }},
      {"jnp.broadcast_to(x, (2, 0, 3))", [](X const& x) { return results(jnp::broadcast_to(x, Shape{2, 0, 3})); }},
      {"jnp.broadcast_to(x, 0)", [](X const& x) { return results(jnp::broadcast_to(x, 0)); }},
      {"jnp.concatenate([x, x])", [](X const& x) { return results(jnp::concatenate({x, x})); }},
      {"jnp.concatenate([x, x], axis=-1)", [](X const& x) { return results(jnp::concatenate({x, x}, -1)); }},
      {"jnp.concatenate([x, x], axis=None)", [](X const& x) { return results(jnp::concatenate({x, x}, jaxcc::none)); }},
      {"jnp.stack([x, x])", [](X const& x) { return results(jnp::stack({x, x})); }},
      {"jnp.stack([x, x], axis=-1)", [](X const& x) { return results(jnp::stack({x, x}, -1)); }},
      {"jnp.split(x, 2)", [](X const& x) { return results(jnp::split(x, 2)); }},
      {"jnp.split(x, 2, axis=-1)", [](X const& x) { return results(jnp::split(x, 2, -1)); }},
      {"jnp.split(x, [1])", [](X const& x) { return results(jnp::split(x, Axes{1})); }},
      {"jnp.split(x, [0, 0], axis=-1)", [](X const& x) { return results(jnp::split(x, Axes{0, 0}, -1)); }},
      // linalg.hpp
      {"jnp.dot(x, x)", [](X const& x) { return results(jnp::dot(x, x)); }},
      {"jnp.dot(x, x.T)", [](X const& x) { return results(jnp::dot(x, x.T())); }},
      {"jnp.matmul(x, x)", [](X const& x) { return results(jnp::matmul(x, x)); }},
      {"jnp.matmul(x, x.T)", [](X const& x) { return results(jnp::matmul(x, x.T())); }},
      {"jnp.matmul(x, jnp.swapaxes(x, -1, -2))",
       [](X const& x) { return results(jnp::matmul(x, jnp::swapaxes(x, -1, -2))); }},
      {"jnp.vdot(x, x)", [](X const& x) { return results(jnp::vdot(x, x)); }},
      {"jnp.outer(x, x)", [](X const& x) { return results(jnp::outer(x, x)); }},
      {"jnp.inner(x, x)", [](X const& x) { return results(jnp::inner(x, x)); }},
      {"jnp.tensordot(x, x)", [](X const& x) { return results(jnp::tensordot(x, x)); }},
      {"jnp.tensordot(x, x, 0)", [](X const& x) { return results(jnp::tensordot(x, x, 0)); }},
      {"jnp.tensordot(x, x, 1)", [](X const& x) { return results(jnp::tensordot(x, x, 1)); }},
      {"jnp.tensordot(x, x, ((0,), (0,)))",
       [](X const& x) { return results(jnp::tensordot(x, x, std::pair<Axes, Axes>{{0}, {0}})); }},
      // pad.hpp, every mode
      {"jnp.pad(x, 1)", [](X const& x) { return results(jnp::pad(x, 1)); }},
      {"jnp.pad(x, (1, 2))", [](X const& x) { return results(jnp::pad(x, std::array<std::int64_t, 2>{1, 2})); }},
      {"jnp.pad(x, np.ones((x.ndim, 2), int))",
       [](X const& x) {
         auto const widths = std::vector<std::array<std::int64_t, 2>>(static_cast<std::size_t>(x.ndim()), {1, 1});
         return results(jnp::pad(x, widths));
       }},
      {"jnp.pad(x, 1, constant_values=2.0)",
       [](X const& x) { return results(jnp::pad(x, 1, "constant", jnp::constant_values(2.0))); }},
      {"jnp.pad(x, 1, 'edge')", [](X const& x) { return results(jnp::pad(x, 1, "edge")); }},
      {"jnp.pad(x, 1, 'wrap')", [](X const& x) { return results(jnp::pad(x, 1, "wrap")); }},
      {"jnp.pad(x, 1, 'reflect')", [](X const& x) { return results(jnp::pad(x, 1, "reflect")); }},
      {"jnp.pad(x, 1, 'reflect', reflect_type='odd')",
       [](X const& x) { return results(jnp::pad(x, 1, "reflect", jnp::reflect_type("odd"))); }},
      {"jnp.pad(x, 1, 'symmetric')", [](X const& x) { return results(jnp::pad(x, 1, "symmetric")); }},
      {"jnp.pad(x, 1, 'linear_ramp')", [](X const& x) { return results(jnp::pad(x, 1, "linear_ramp")); }},
      {"jnp.pad(x, 1, 'linear_ramp', end_values=2.0)",
       [](X const& x) { return results(jnp::pad(x, 1, "linear_ramp", jnp::end_values(2.0))); }},
      {"jnp.pad(x, 1, 'maximum')", [](X const& x) { return results(jnp::pad(x, 1, "maximum")); }},
      {"jnp.pad(x, 1, 'maximum', stat_length=1)",
       [](X const& x) { return results(jnp::pad(x, 1, "maximum", jnp::stat_length(1))); }},
      {"jnp.pad(x, 1, 'minimum')", [](X const& x) { return results(jnp::pad(x, 1, "minimum")); }},
      {"jnp.pad(x, 1, 'mean')", [](X const& x) { return results(jnp::pad(x, 1, "mean")); }},
      {"jnp.pad(x, 1, 'median')", [](X const& x) { return results(jnp::pad(x, 1, "median")); }},
      {"jnp.pad(x, 1, 'empty')", [](X const& x) { return results(jnp::pad(x, 1, "empty")); }},
      {"jnp.pad(x, 0, 'reflect')", [](X const& x) { return results(jnp::pad(x, 0, "reflect")); }},
      // quantile.hpp
      {"jnp.quantile(x, 0.5)", [](X const& x) { return results(jnp::quantile(x, 0.5)); }},
      {"jnp.quantile(x, 0.5, axis=0)", [](X const& x) { return results(jnp::quantile(x, 0.5, 0)); }},
      {"jnp.quantile(x, 0.5, axis=-1)", [](X const& x) { return results(jnp::quantile(x, 0.5, -1)); }},
      {"jnp.quantile(x, jnp.array([0.25, 0.75]), axis=-1)",
       [](X const& x) { return results(jnp::quantile(x, jnp::array<float>({0.25f, 0.75f}), -1)); }},
      {"jnp.quantile(x, 0.5, method='nearest')",
       [](X const& x) { return results(jnp::quantile(x, 0.5, jaxcc::none, "nearest")); }},
      {"jnp.quantile(x, 0.5, axis=0, keepdims=True)",
       [](X const& x) { return results(jnp::quantile(x, 0.5, 0, "linear", true)); }},
      {"jnp.median(x)", [](X const& x) { return results(jnp::median(x)); }},
      {"jnp.median(x, 0)", [](X const& x) { return results(jnp::median(x, 0)); }},
      {"jnp.median(x, -1)", [](X const& x) { return results(jnp::median(x, -1)); }},
      // rearrange.hpp
      {"jnp.flip(x)", [](X const& x) { return results(jnp::flip(x)); }},
      {"jnp.flip(x, 0)", [](X const& x) { return results(jnp::flip(x, 0)); }},
      {"jnp.flip(x, -1)", [](X const& x) { return results(jnp::flip(x, -1)); }},
      {"jnp.flip(x, (0, -1))", [](X const& x) { return results(jnp::flip(x, Axes{0, -1})); }},
      {"jnp.fliplr(x)", [](X const& x) { return results(jnp::fliplr(x)); }},
      {"jnp.flipud(x)", [](X const& x) { return results(jnp::flipud(x)); }},
      {"jnp.roll(x, 1)", [](X const& x) { return results(jnp::roll(x, 1)); }},
      {"jnp.roll(x, 1, 0)", [](X const& x) { return results(jnp::roll(x, 1, 0)); }},
      {"jnp.roll(x, 1, -1)", [](X const& x) { return results(jnp::roll(x, 1, -1)); }},
      {"jnp.roll(x, (1, 2), (0, -1))", [](X const& x) { return results(jnp::roll(x, Axes{1, 2}, Axes{0, -1})); }},
      {"jnp.tile(x, 2)", [](X const& x) { return results(jnp::tile(x, 2)); }},
      {"jnp.tile(x, (2, 1))", [](X const& x) { return results(jnp::tile(x, Axes{2, 1})); }},
      {"jnp.tile(x, 0)", [](X const& x) { return results(jnp::tile(x, 0)); }},
      {"jnp.repeat(x, 2)", [](X const& x) { return results(jnp::repeat(x, 2)); }},
      {"jnp.repeat(x, 2, 0)", [](X const& x) { return results(jnp::repeat(x, 2, 0)); }},
      {"jnp.repeat(x, 2, -1)", [](X const& x) { return results(jnp::repeat(x, 2, -1)); }},
      {"jnp.repeat(x, jnp.array([2]), 0)", [](X const& x) { return results(jnp::repeat(x, Axes{2}, 0)); }},
      // sorting.hpp
      {"jnp.sort(x)", [](X const& x) { return results(jnp::sort(x)); }},
      {"jnp.sort(x, 0)", [](X const& x) { return results(jnp::sort(x, 0)); }},
      {"jnp.sort(x, None)", [](X const& x) { return results(jnp::sort(x, jaxcc::none)); }},
      {"jnp.sort(x, descending=True)", [](X const& x) { return results(jnp::sort(x, -1, true)); }},
      {"jnp.argsort(x)", [](X const& x) { return results(jnp::argsort(x)); }},
      {"jnp.argsort(x, 0)", [](X const& x) { return results(jnp::argsort(x, 0)); }},
      {"jnp.argsort(x, None)", [](X const& x) { return results(jnp::argsort(x, jaxcc::none)); }},
      {"jnp.searchsorted(x, x)", [](X const& x) { return results(jnp::searchsorted(x, x)); }},
      {"jnp.searchsorted(x, 0.5)", [](X const& x) { return results(jnp::searchsorted(x, 0.5f)); }},
      {"jnp.searchsorted(jnp.ravel(x), x, side='right')",
       [](X const& x) { return results(jnp::searchsorted(jnp::ravel(x), x, "right")); }},
      // linalg_decompositions.hpp
      {"jnp.linalg.cholesky(x)", [](X const& x) { return results(linalg::cholesky(x)); }},
      {"jnp.linalg.cholesky(x, upper=True)", [](X const& x) { return results(linalg::cholesky(x, true)); }},
      {"jnp.linalg.eigh(x)", [](X const& x) { return results(linalg::eigh(x)); }},
      {"jnp.linalg.eigh(x, UPLO='U')", [](X const& x) { return results(linalg::eigh(x, "U")); }},
      {"jnp.linalg.qr(x)", [](X const& x) { return results(linalg::qr(x)); }},
      {"jnp.linalg.qr(x, mode='complete')", [](X const& x) { return results(linalg::qr(x, "complete")); }},
      {"jnp.linalg.svd(x)", [](X const& x) { return results(linalg::svd(x)); }},
      {"jnp.linalg.svd(x, full_matrices=False)", [](X const& x) { return results(linalg::svd(x, false)); }},
      {"jnp.linalg.svdvals(x)", [](X const& x) { return results(linalg::svdvals(x)); }},
      {"jnp.linalg.pinv(x)", [](X const& x) { return results(linalg::pinv(x)); }},
      {"jnp.linalg.matrix_rank(x)", [](X const& x) { return results(linalg::matrix_rank(x)); }},
      {"jnp.linalg.lstsq(x, x)", [](X const& x) { return results(linalg::lstsq(x, x)); }},
      {"jnp.linalg.lstsq(x, jnp.sum(x, -1))", [](X const& x) { return results(linalg::lstsq(x, jnp::sum(x, -1))); }},
      // linalg_solve.hpp
      {"jnp.linalg.solve(x, x)", [](X const& x) { return results(linalg::solve(x, x)); }},
      {"jnp.linalg.solve(x, jnp.sum(x, -1))", [](X const& x) { return results(linalg::solve(x, jnp::sum(x, -1))); }},
      {"jnp.linalg.inv(x)", [](X const& x) { return results(linalg::inv(x)); }},
      {"jnp.linalg.slogdet(x)", [](X const& x) { return results(linalg::slogdet(x)); }},
      {"jnp.linalg.det(x)", [](X const& x) { return results(linalg::det(x)); }},
      {"jnp.linalg.matrix_power(x, 0)", [](X const& x) { return results(linalg::matrix_power(x, 0)); }},
      {"jnp.linalg.matrix_power(x, 3)", [](X const& x) { return results(linalg::matrix_power(x, 3)); }},
      {"jnp.linalg.matrix_power(x, -1)", [](X const& x) { return results(linalg::matrix_power(x, -1)); }},
      // norm.hpp
      {"jnp.linalg.norm(x)", [](X const& x) { return results(linalg::norm(x)); }},
      {"jnp.linalg.norm(x, axis=0)", [](X const& x) { return results(linalg::norm(x, jaxcc::none, 0)); }},
      {"jnp.linalg.norm(x, axis=-1)", [](X const& x) { return results(linalg::norm(x, jaxcc::none, -1)); }},
      {"jnp.linalg.norm(x, 1, axis=-1)", [](X const& x) { return results(linalg::norm(x, 1, -1)); }},
      {"jnp.linalg.norm(x, jnp.inf, axis=-1)", [](X const& x) { return results(linalg::norm(x, inf, -1)); }},
      {"jnp.linalg.norm(x, 0, axis=-1)", [](X const& x) { return results(linalg::norm(x, 0, -1)); }},
      {"jnp.linalg.norm(x, axis=(-2, -1))", [](X const& x) { return results(linalg::norm(x, jaxcc::none, {-2, -1})); }},
      {"jnp.linalg.norm(x, 2, axis=(-2, -1))", [](X const& x) { return results(linalg::norm(x, 2, {-2, -1})); }},
      {"jnp.linalg.norm(x, 1, axis=(-2, -1))", [](X const& x) { return results(linalg::norm(x, 1, {-2, -1})); }},
      {"jnp.linalg.norm(x, -jnp.inf, axis=(-2, -1))",
       [](X const& x) { return results(linalg::norm(x, -inf, {-2, -1})); }},
      {"jnp.linalg.norm(x, 'fro', axis=(-2, -1))",
       [](X const& x) { return results(linalg::norm(x, "fro", {-2, -1})); }},
      {"jnp.linalg.norm(x, 'nuc', axis=(-2, -1))",
       [](X const& x) { return results(linalg::norm(x, "nuc", {-2, -1})); }},
  };
  return calls;
}

TEST_CASE("jax.numpy and jax.numpy.linalg on 0-d and 0-size inputs match JAX") {
  CHECK(jaxcc_test::empty_axes::sweep(golden(), calls()) == golden().size());
}

}  // namespace test_empty_axes_numpy
