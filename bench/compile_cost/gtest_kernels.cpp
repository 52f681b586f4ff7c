// Compile cost of a user's test file: four small kernels, each checked with
// jaxcc::testing's check_grads (to second order), check_vmap, check_jit and
// check_batching_rule under GoogleTest (gtest_eigen.cpp is the same four
// kernels on Eigen, with their gradients written and checked by hand).
#include <gtest/gtest.h>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/check.hpp>
#include <jaxcc/testing/gtest.hpp>
#include <jaxcc/testing/random_inputs.hpp>

#include <tuple>

namespace {

namespace jnp = jaxcc::numpy;
namespace jt = jaxcc::testing;
using jaxcc::Array;

// softplus(x) = log(1 + exp(x)), elementwise.
auto const softplus = [](Array<double> const& x) { return Array<double>(jnp::log1p(jnp::exp(x))); };
// The Euclidean norm of each row.
auto const row_norm = [](Array<double> const& x) { return Array<double>(jnp::sqrt(jnp::sum(x * x, -1))); };
// A dense layer: tanh(x w + b).
auto const dense = [](Array<double> const& x, Array<double> const& w, Array<double> const& b) {
  return Array<double>(jnp::tanh(jnp::matmul(x, w) + b));
};
// logsumexp of each row, shifted by the row's maximum.
auto const row_logsumexp = [](Array<double> const& x) {
  Array<double> const m = jaxcc::stop_gradient(jnp::max(x, -1, true));
  return Array<double>(jnp::log(jnp::sum(jnp::exp(x - m), -1)) + jnp::squeeze(m, -1));
};

TEST(Kernels, Softplus) {
  auto const x = jt::rand_normal<double>({4, 3}, 0);
  jt::check_grads(softplus, std::tuple{x}, 2);
  jt::check_vmap(softplus, jaxcc::in_axes(0), x);
  jt::check_jit(softplus, x);
  jt::check_batching_rule(softplus, jaxcc::in_axes(0), x);
}

TEST(Kernels, RowNorm) {
  auto const x = jt::rand_normal<double>({4, 3}, 1);
  jt::check_grads(row_norm, std::tuple{x}, 2);
  jt::check_vmap(row_norm, jaxcc::in_axes(1), x);
  jt::check_jit(row_norm, x);
  jt::check_batching_rule(row_norm, jaxcc::in_axes(0), x);
}

TEST(Kernels, Dense) {
  auto const x = jt::rand_normal<double>({4, 3}, 2);
  auto const w = jt::rand_normal<double>({3, 2}, 3);
  auto const b = jt::rand_normal<double>({2}, 4);
  jt::check_grads(dense, std::tuple{x, w, b}, 2);
  jt::check_vmap(dense, jaxcc::in_axes(0, jaxcc::none, jaxcc::none), x, w, b);
  jt::check_jit(dense, x, w, b);
  jt::check_batching_rule(dense, jaxcc::in_axes(0, jaxcc::none, jaxcc::none), x, w, b);
}

TEST(Kernels, RowLogsumexp) {
  auto const x = jt::rand_normal<double>({4, 3}, 5);
  jt::check_grads(row_logsumexp, std::tuple{x}, 2);
  jt::check_vmap(row_logsumexp, jaxcc::in_axes(0), x);
  jt::check_jit(row_logsumexp, x);
  jt::check_batching_rule(row_logsumexp, jaxcc::in_axes(0), x);
}

}  // namespace
