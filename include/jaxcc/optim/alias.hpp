// The optimizers (optax's alias.py): each a chain of the transformations in
// transforms.hpp, factorized.hpp and clipping.hpp, with optax's defaults,
// so its state has optax's layout. A learning rate (and a weight decay) is
// a number or a schedule; a mask is a tree of bools, or a function of the
// params returning one (see masked), or jaxcc::none for no mask.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>

#include "jaxcc/core/none.hpp"
#include "jaxcc/optim/base.hpp"
#include "jaxcc/optim/clipping.hpp"
#include "jaxcc/optim/factorized.hpp"
#include "jaxcc/optim/transforms.hpp"
#include "jaxcc/optim/wrappers.hpp"

namespace jaxcc::optim {

namespace detail {
/// add_decayed_weights, under masked where a mask is given.
template <ScalarOrSchedule W, class Mask>
auto decayed_weights(W weight_decay, Mask const& mask) {
  if constexpr (std::is_same_v<Mask, none_t>) return add_decayed_weights<W>(std::move(weight_decay));
  else return masked(add_decayed_weights<W>(std::move(weight_decay)), mask);
}

/// `t`, or the identity where `on` is false, with t's empty state either way
/// (Adafactor's optional stateless steps).
template <class T>
struct stateless_switch {
  T t;
  bool on;
  template <class P>
  EmptyState init(P const&) const { return {}; }
  template <class U, class P = none_t>
  std::tuple<U, EmptyState> update(U const& updates, EmptyState const& state, P const& params = none) const {
    if (!on) return {updates, state};
    if constexpr (std::is_same_v<P, none_t>) return t.update(updates, state);
    else return t.update(updates, state, params);
  }
};
}  // namespace detail

/// Stochastic gradient descent, without momentum (optax.sgd).
template <ScalarOrSchedule L>
auto sgd(L learning_rate) {
  return chain(identity{}, scale_by_learning_rate(std::move(learning_rate)));
}
/// SGD with momentum, Nesterov's with nesterov (optax.sgd(lr, momentum, nesterov)).
template <ScalarOrSchedule L>
auto sgd(L learning_rate, double momentum, bool nesterov = false) {
  return chain(trace{momentum, nesterov}, scale_by_learning_rate(std::move(learning_rate)));
}

/// Adam (optax.adam).
template <ScalarOrSchedule L>
auto adam(L learning_rate, double b1 = 0.9, double b2 = 0.999, double eps = 1e-8, double eps_root = 0.0,
          bool nesterov = false) {
  return chain(scale_by_adam{b1, b2, eps, eps_root, nesterov}, scale_by_learning_rate(std::move(learning_rate)));
}

/// Adam with Nesterov momentum (optax.nadam).
template <ScalarOrSchedule L>
auto nadam(L learning_rate, double b1 = 0.9, double b2 = 0.999, double eps = 1e-8, double eps_root = 0.0) {
  return adam(std::move(learning_rate), b1, b2, eps, eps_root, true);
}

/// Adam with decoupled weight decay (optax.adamw).
template <ScalarOrSchedule L, ScalarOrSchedule W = double, class Mask = none_t>
auto adamw(L learning_rate, double b1 = 0.9, double b2 = 0.999, double eps = 1e-8, double eps_root = 0.0,
           W weight_decay = 1e-4, Mask const& mask = none, bool nesterov = false) {
  return chain(scale_by_adam{b1, b2, eps, eps_root, nesterov}, detail::decayed_weights(std::move(weight_decay), mask),
               scale_by_learning_rate(std::move(learning_rate)));
}

/// RMSProp, uncentered, without momentum (optax.rmsprop).
template <ScalarOrSchedule L>
auto rmsprop(L learning_rate, double decay = 0.9, double eps = 1e-8, double initial_scale = 0.0,
             bool eps_in_sqrt = true) {
  return chain(scale_by_rms{decay, eps, initial_scale, eps_in_sqrt}, scale_by_learning_rate(std::move(learning_rate)),
               identity{});
}

/// Adagrad (optax.adagrad).
template <ScalarOrSchedule L>
auto adagrad(L learning_rate, double initial_accumulator_value = 0.1, double eps = 1e-7) {
  return chain(scale_by_rss{initial_accumulator_value, eps}, scale_by_learning_rate(std::move(learning_rate)));
}

/// Lion (optax.lion).
template <ScalarOrSchedule L, ScalarOrSchedule W = double, class Mask = none_t>
auto lion(L learning_rate, double b1 = 0.9, double b2 = 0.99, W weight_decay = 1e-3, Mask const& mask = none) {
  return chain(scale_by_lion{b1, b2}, detail::decayed_weights(std::move(weight_decay), mask),
               scale_by_learning_rate(std::move(learning_rate)));
}

/// LAMB: Adam's update, weight decay, and a per-leaf trust ratio (optax.lamb).
template <ScalarOrSchedule L, ScalarOrSchedule W = double, class Mask = none_t>
auto lamb(L learning_rate, double b1 = 0.9, double b2 = 0.999, double eps = 1e-6, double eps_root = 0.0,
          W weight_decay = 0.0, Mask const& mask = none) {
  return chain(scale_by_adam{b1, b2, eps, eps_root, false}, detail::decayed_weights(std::move(weight_decay), mask),
               scale_by_trust_ratio{}, scale_by_learning_rate(std::move(learning_rate)));
}

/// Adafactor (optax.adafactor) with a learning rate, without momentum or
/// weight decay: the factored second moment, clipping by block RMS at
/// clipping_threshold (none at infinity), the learning rate, the params'
/// block RMS (multiply_by_parameter_scale), and -1.
template <ScalarOrSchedule L>
auto adafactor(L learning_rate, std::int64_t min_dim_size_to_factor = 128, double decay_rate = 0.8,
               std::int32_t decay_offset = 0, bool multiply_by_parameter_scale = true,
               double clipping_threshold = 1.0, double eps = 1e-30, bool factored = true) {
  bool const clips = clipping_threshold != std::numeric_limits<double>::infinity();
  return chain(scale_by_factored_rms{factored, decay_rate, decay_offset, min_dim_size_to_factor, eps},
               detail::stateless_switch<clip_by_block_rms>{clip_by_block_rms(clipping_threshold), clips},
               scale_by_learning_rate(std::move(learning_rate), false),
               detail::stateless_switch<scale_by_param_block_rms>{scale_by_param_block_rms{}, multiply_by_parameter_scale},
               scale(-1.0));
}

}  // namespace jaxcc::optim
