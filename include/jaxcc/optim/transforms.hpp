// The gradient transformations the optimizers are chains of (optax's
// transform.py and factorized.py): trace (momentum), scale_by_adam,
// scale_by_rms, scale_by_rss, scale_by_lion, scale_by_trust_ratio,
// scale_by_param_block_rms, add_decayed_weights (Adafactor's
// scale_by_factored_rms is in factorized.hpp).
// States are class templates over the params' tree type, registered as
// pytrees under optax's names and members.
#pragma once

#include <tuple>
#include <utility>

#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/optim/base.hpp"

namespace jaxcc::optim {

template <class T>
struct TraceState {
  T trace;
};
JAXCC_OPTIM_STATE(TraceState, trace)

template <class T>
struct ScaleByAdamState {
  Count count;
  T mu, nu;
};
JAXCC_OPTIM_STATE(ScaleByAdamState, count, mu, nu)

template <class T>
struct ScaleByRmsState {
  T nu;
};
JAXCC_OPTIM_STATE(ScaleByRmsState, nu)

template <class T>
struct ScaleByRssState {
  T sum_of_squares;
};
JAXCC_OPTIM_STATE(ScaleByRssState, sum_of_squares)

template <class T>
struct ScaleByLionState {
  Count count;
  T mu;
};
JAXCC_OPTIM_STATE(ScaleByLionState, count, mu)

/// add_decayed_weights' state with a scheduled weight decay.
struct WeightDecaySchedule {
  Count count;
};
JAXCC_PYTREE(WeightDecaySchedule, count)

namespace detail {
/// sqrt(sum(x * x)) with optax's numerics.safe_norm guard at min_norm.
template <class A>
auto safe_norm(A const& x, double min_norm) {
  using T = value_type_t<A>;
  Array<T> const norm = numpy::sqrt(numpy::sum(x * x));
  Array<T> const guarded = numpy::where(norm <= min_norm, numpy::ones_like(x), x);
  return Array<T>(numpy::where(norm <= min_norm, static_cast<T>(min_norm), numpy::sqrt(numpy::sum(guarded * guarded))));
}
}  // namespace detail

/// Momentum: trace = g + decay * trace; the update is the trace, or
/// g + decay * trace with nesterov (optax.trace).
struct trace {
  double decay;
  bool nesterov = false;
  template <class P>
  TraceState<detail::zeros_tree_t<P>> init(P const& params) const { return {detail::tree_zeros_like(params)}; }
  template <class U, class T, class P = none_t>
  std::tuple<U, TraceState<T>> update(U const& updates, TraceState<T> const& state, P const& = none) const {
    double const d = decay;
    T next = tree::map([d](auto const& t, auto const& g) { return detail::leaf_array_t<decltype(t)>(g + d * t); },
                       state.trace, updates);
    U out = nesterov ? U(tree::map([d](auto const& g, auto const& t) { return detail::leaf_array_t<decltype(g)>(g + d * t); },
                                   updates, next))
                     : U(tree::map([](auto const& g, auto const& t) { return detail::leaf_array_t<decltype(g)>(t); },
                                   updates, next));
    return {std::move(out), TraceState<T>{std::move(next)}};
  }
};

/// Adam's rescaling: bias-corrected first and second moments,
/// m_hat / (sqrt(v_hat + eps_root) + eps) (optax.scale_by_adam).
struct scale_by_adam {
  double b1 = 0.9, b2 = 0.999, eps = 1e-8, eps_root = 0.0;
  bool nesterov = false;
  template <class P>
  ScaleByAdamState<detail::zeros_tree_t<P>> init(P const& params) const {
    return {detail::zero_count(), detail::tree_zeros_like(params), detail::tree_zeros_like(params)};
  }
  template <class U, class T, class P = none_t>
  std::tuple<U, ScaleByAdamState<T>> update(U const& updates, ScaleByAdamState<T> const& state, P const& = none) const {
    T mu = detail::update_moment(state.mu, updates, b1, 1);
    T nu = detail::update_moment(state.nu, updates, b2, 2);
    Count count = detail::safe_increment(state.count);
    T mu_hat = detail::bias_correction(mu, b1, nesterov ? detail::safe_increment(count) : count);
    if (nesterov) {
      double const b = b1;
      mu_hat = tree::map([b](auto const& m, auto const& g) { return detail::leaf_array_t<decltype(m)>(b * m + (1.0 - b) * g); },
                         mu_hat, detail::bias_correction(updates, b1, count));
    }
    T const nu_hat = detail::bias_correction(nu, b2, count);
    double const e = eps, er = eps_root;
    U out = tree::map(
        [e, er](auto const& g, auto const& m, auto const& v) {
          (void)g;
          return detail::leaf_array_t<decltype(g)>(m / (numpy::sqrt(v + er) + e));
        },
        updates, mu_hat, nu_hat);
    return {std::move(out), ScaleByAdamState<T>{std::move(count), std::move(mu), std::move(nu)}};
  }
};

/// Divides by the root of an exponential moving average of squares
/// (optax.scale_by_rms, without bias correction).
struct scale_by_rms {
  double decay = 0.9, eps = 1e-8, initial_scale = 0.0;
  bool eps_in_sqrt = true;
  template <class P>
  ScaleByRmsState<detail::zeros_tree_t<P>> init(P const& params) const {
    return {detail::tree_full_like(params, initial_scale)};
  }
  template <class U, class T, class P = none_t>
  std::tuple<U, ScaleByRmsState<T>> update(U const& updates, ScaleByRmsState<T> const& state, P const& = none) const {
    T nu = detail::update_moment(state.nu, updates, decay, 2);
    double const e = eps;
    bool const in_sqrt = eps_in_sqrt;
    U out = tree::map(
        [e, in_sqrt](auto const& g, auto const& n) {
          using A = detail::leaf_array_t<decltype(g)>;
          A const s = in_sqrt ? A(lax::rsqrt(A(n + e))) : A(1.0 / (numpy::sqrt(n) + e));
          return A(s * g);
        },
        updates, nu);
    return {std::move(out), ScaleByRmsState<T>{std::move(nu)}};
  }
};

/// Divides by the root of the sum of squares so far (optax.scale_by_rss, Adagrad).
struct scale_by_rss {
  double initial_accumulator_value = 0.1, eps = 1e-7;
  template <class P>
  ScaleByRssState<detail::zeros_tree_t<P>> init(P const& params) const {
    return {detail::tree_full_like(params, initial_accumulator_value)};
  }
  template <class U, class T, class P = none_t>
  std::tuple<U, ScaleByRssState<T>> update(U const& updates, ScaleByRssState<T> const& state, P const& = none) const {
    T sum = tree::map([](auto const& t, auto const& g) { return detail::leaf_array_t<decltype(t)>(g * g + t); },
                      state.sum_of_squares, updates);
    double const e = eps;
    U out = tree::map(
        [e](auto const& g, auto const& t) {
          using A = detail::leaf_array_t<decltype(g)>;
          A const inv = numpy::where(t > 0, A(lax::rsqrt(A(t + e))), 0.0);
          return A(inv * g);
        },
        updates, sum);
    return {std::move(out), ScaleByRssState<T>{std::move(sum)}};
  }
};

/// Lion: the sign of (1 - b1) g + b1 m, with m an average of rate b2
/// (optax.scale_by_lion, mode 'hard').
struct scale_by_lion {
  double b1 = 0.9, b2 = 0.99;
  template <class P>
  ScaleByLionState<detail::zeros_tree_t<P>> init(P const& params) const {
    return {detail::zero_count(), detail::tree_zeros_like(params)};
  }
  template <class U, class T, class P = none_t>
  std::tuple<U, ScaleByLionState<T>> update(U const& updates, ScaleByLionState<T> const& state, P const& = none) const {
    double const b = b1;
    U out = tree::map([b](auto const& g, auto const& m) { return detail::leaf_array_t<decltype(g)>(numpy::sign((1.0 - b) * g + b * m)); },
                      updates, state.mu);
    T mu = detail::update_moment(state.mu, updates, b2, 1);
    return {std::move(out), ScaleByLionState<T>{detail::safe_increment(state.count), std::move(mu)}};
  }
};

/// Scales each leaf by trust_coefficient * |param| / (|update| + eps), or 1
/// where either norm is 0 (optax.scale_by_trust_ratio).
struct scale_by_trust_ratio {
  double min_norm = 0.0, trust_coefficient = 1.0, eps = 0.0;
  template <class P>
  EmptyState init(P const&) const { return {}; }
  template <class U, class P>
  std::tuple<U, EmptyState> update(U const& updates, EmptyState const& state, P const& params) const {
    detail::require_params<P>();
    double const lo = min_norm, c = trust_coefficient, e = eps;
    U out = tree::map(
        [lo, c, e](auto const& u, auto const& p) {
          using A = detail::leaf_array_t<decltype(u)>;
          A const pn = detail::safe_norm(p, lo), un = detail::safe_norm(u, lo);
          A const ratio = c * pn / (un + e);
          A const safe = numpy::where(numpy::logical_or(pn == 0.0, un == 0.0), 1.0, ratio);
          return A(u * safe);
        },
        updates, params);
    return {std::move(out), state};
  }
};

/// Scales each leaf by its param's root mean square, at least min_scale
/// (optax.scale_by_param_block_rms).
struct scale_by_param_block_rms {
  double min_scale = 1e-3;
  template <class P>
  EmptyState init(P const&) const { return {}; }
  template <class U, class P>
  std::tuple<U, EmptyState> update(U const& updates, EmptyState const& state, P const& params) const {
    detail::require_params<P>();
    double const lo = min_scale;
    U out = tree::map(
        [lo](auto const& u, auto const& p) {
          using A = detail::leaf_array_t<decltype(u)>;
          A const rms = numpy::sqrt(numpy::mean(p * p));
          A const guarded = numpy::where(rms <= lo, numpy::ones_like(p), p);
          A const scale = numpy::where(rms <= lo, lo, numpy::sqrt(numpy::mean(guarded * guarded)));
          return A(u * scale);
        },
        updates, params);
    return {std::move(out), state};
  }
};

/// updates + weight_decay * params; weight_decay a number or a schedule of
/// the update count (optax.add_decayed_weights; masked() gives its mask).
template <ScalarOrSchedule W = double>
struct add_decayed_weights {
  W weight_decay{};
  add_decayed_weights() = default;
  explicit add_decayed_weights(W w) : weight_decay(std::move(w)) {}
  template <class P>
  auto init(P const&) const {
    if constexpr (Schedule<W>) return WeightDecaySchedule{detail::zero_count()};
    else return EmptyState{};
  }
  template <class U, class S, class P>
  std::tuple<U, S> update(U const& updates, S const& state, P const& params) const {
    detail::require_params<P>();
    if constexpr (Schedule<W>) {
      Array<float> const s = numpy::asarray(weight_decay(state.count)).template astype<float>();
      U out = tree::map([&s](auto const& g, auto const& p) { return detail::leaf_array_t<decltype(g)>(g + s * p); },
                        updates, params);
      return {std::move(out), S{detail::safe_increment(state.count)}};
    } else {
      if (weight_decay == 0) return {updates, state};
      double const s = static_cast<double>(weight_decay);
      U out = tree::map([s](auto const& g, auto const& p) { return detail::leaf_array_t<decltype(g)>(g + s * p); },
                        updates, params);
      return {std::move(out), state};
    }
  }
};
add_decayed_weights()->add_decayed_weights<double>;

}  // namespace jaxcc::optim
