// softmax_cross_entropy(logits, labels): a user's numeric kernel with its
// own gradient, the one docs/testing.md tests three ways (test_catch2.cpp,
// test_catch2_v3.cpp, test_gtest.cpp).
//
// For logits and labels of shape (..., classes) it gives, per row, the
// cross-entropy of softmax(logits) against the labels (one-hot rows, or
// probabilities), shape (...):
//     loss = logsumexp(logits) - <labels, logits>,
// which is -<labels, log_softmax(logits)> when the labels sum to 1. Written
// so, its gradient is softmax(logits) - labels (and -logits for the
// labels) for any labels, so that finite differences, which move the
// labels off the simplex, agree with it.
//
// Numerically careful: with m the row's maximum, logsumexp is
// m + log Σ exp(logits - m), so no exp overflows (logits of 1000 are fine)
// and the sum is at least 1 (its log is finite); m is taken out of the
// loss before it is formed, so it cancels exactly rather than in rounding.
// The gradient is a custom_vjp: softmax(logits) - labels, times the
// incoming cotangent, rather than the derivative of those steps.
#pragma once

#include <concepts>
#include <tuple>
#include <utility>

#include <jaxcc/jaxcc.hpp>

namespace softmax_xent {

namespace detail {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

/// The loss per row, and softmax(logits), which the backward pass reuses.
template <std::floating_point T>
std::pair<Array<T>, Array<T>> loss_and_softmax(Array<T> const& logits, Array<T> const& labels) {
  // softmax(x - c) = softmax(x) and logsumexp(x) = c + logsumexp(x - c) for
  // any c: the choice of m changes no result, so derivatives hold it constant.
  Array<T> const m = jaxcc::stop_gradient(jnp::max(logits, -1));
  Array<T> const shifted = logits - jnp::expand_dims(m, -1);  // <= 0; the maximum is 0
  Array<T> const e = jnp::exp(shifted);                        // in (0, 1]
  Array<T> const total = jnp::sum(e, -1);                      // >= 1
  // logsumexp - <labels, logits> = log(total) - <labels, shifted> + m (1 - Σ labels);
  // the last term is 0 for labels that sum to 1.
  Array<T> loss = jnp::log(total) - jnp::sum(labels * shifted, -1) + m * (T(1) - jnp::sum(labels, -1));
  Array<T> softmax = e / jnp::expand_dims(total, -1);
  return {std::move(loss), std::move(softmax)};
}

/// The cotangents of logits and labels: g (softmax - labels) and -g logits,
/// g being a row's cotangent.
template <std::floating_point T>
std::tuple<Array<T>, Array<T>> loss_vjp(std::tuple<Array<T>, Array<T>, Array<T>> const& residuals, Array<T> const& g) {
  auto const& [softmax, labels, logits] = residuals;
  Array<T> const per_class = jnp::expand_dims(g, -1);
  return {Array<T>(per_class * (softmax - labels)), Array<T>(-per_class * logits)};
}

}  // namespace detail

/// The cross-entropy loss per row (float or double; logits and labels of
/// the same shape), with the gradient softmax(logits) - labels.
inline auto const softmax_cross_entropy = jaxcc::custom_vjp(
    [](auto const& logits, auto const& labels) { return detail::loss_and_softmax(logits, labels).first; },
    [](auto const& logits, auto const& labels) {
      auto [loss, softmax] = detail::loss_and_softmax(logits, labels);
      return std::pair{std::move(loss), std::tuple{std::move(softmax), labels, logits}};
    },
    [](auto const& residuals, auto const& g) { return detail::loss_vjp(residuals, g); });

}  // namespace softmax_xent
