// Clipping transformations (optax.transforms' _clipping.py): clip each
// element, clip by the global norm of all updates, clip each leaf by its
// root mean square; and optax.global_norm.
#pragma once

#include <tuple>
#include <utility>

#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/optim/base.hpp"
#include "jaxcc/tree/reduce.hpp"

namespace jaxcc::optim {

/// sqrt of the sum of squares of every element of a tree of float32 leaves
/// (optax.global_norm, optax.tree.norm).
template <class Tree>
Array<float> global_norm(Tree const& updates) {
  Array<float> sum = numpy::zeros<float>(Shape{});
  tree::for_each_leaf([&](auto const& g) { sum = sum + numpy::sum(g * g).template astype<float>(); }, updates);
  return numpy::sqrt(sum);
}

/// Clips each element to [-max_delta, max_delta] (optax.clip).
struct clip {
  double max_delta;
  explicit clip(double max_delta) : max_delta(max_delta) {}
  template <class P>
  EmptyState init(P const&) const { return {}; }
  template <class U, class P = none_t>
  std::tuple<U, EmptyState> update(U const& updates, EmptyState const& state, P const& = none) const {
    double const m = max_delta;
    U out = tree::map([m](auto const& g) { return detail::leaf_array_t<decltype(g)>(numpy::clip(g, -m, m)); }, updates);
    return {std::move(out), state};
  }
};

/// Scales the updates by max_norm / global_norm when the global norm is
/// max_norm or more (optax.clip_by_global_norm).
struct clip_by_global_norm {
  double max_norm;
  explicit clip_by_global_norm(double max_norm) : max_norm(max_norm) {}
  template <class P>
  EmptyState init(P const&) const { return {}; }
  template <class U, class P = none_t>
  std::tuple<U, EmptyState> update(U const& updates, EmptyState const& state, P const& = none) const {
    Array<float> const g_norm = global_norm(updates);
    Array<bool> const trigger = g_norm < max_norm;
    double const m = max_norm;
    U out = tree::map(
        [&](auto const& t) {
          using A = detail::leaf_array_t<decltype(t)>;
          A const clipped = t / g_norm.astype<value_type_t<A>>() * m;
          return A(lax::select(trigger, A(t), clipped));
        },
        updates);
    return {std::move(out), state};
  }
};

/// Divides each leaf by max(1, rms(leaf) / threshold) (optax.clip_by_block_rms).
struct clip_by_block_rms {
  double threshold;
  explicit clip_by_block_rms(double threshold) : threshold(threshold) {}
  template <class P>
  EmptyState init(P const&) const { return {}; }
  template <class U, class P = none_t>
  std::tuple<U, EmptyState> update(U const& updates, EmptyState const& state, P const& = none) const {
    double const th = threshold;
    U out = tree::map(
        [th](auto const& u) {
          using A = detail::leaf_array_t<decltype(u)>;
          A const denom = numpy::maximum(1.0, numpy::sqrt(numpy::mean(u * u)) / th);
          return A(u / denom);
        },
        updates);
    return {std::move(out), state};
  }
};

}  // namespace jaxcc::optim
