// Wrappers around a transformation (optax.masked, optax.MultiSteps): apply
// it to part of the tree only, or to gradients accumulated over several
// mini-steps.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/ufuncs.hpp"
#include "jaxcc/optim/base.hpp"

namespace jaxcc::optim {

template <class S>
struct MaskedState {
  S inner_state;
};
JAXCC_OPTIM_STATE(MaskedState, inner_state)

template <class S, class A>
struct MultiStepsState {
  Count mini_step, gradient_step;
  S inner_opt_state;
  A acc_grads;
  std::tuple<> skip_state;
};
JAXCC_OPTIM_STATE(MultiStepsState, mini_step, gradient_step, inner_opt_state, acc_grads, skip_state)

namespace detail {
/// The tree with each subtree the mask leaves out made an empty optional
/// (optax's MaskedNode; a None node has no leaves). The mask is a prefix of
/// the tree, of bools.
template <class Mask, class Tree>
auto mask_tree(Mask const& mask, Tree const& tree) {
  return tree::map([](bool m, auto const& p) { return m ? std::optional(p) : std::nullopt; }, mask, tree);
}
}  // namespace detail

/// Applies `inner` to the leaves (subtrees) where the mask is true and
/// passes the others through; mask is a tree of bools, a prefix of the
/// params, or a function of the params that returns one (optax.masked). The
/// inner state sees the left-out subtrees as None. The masked trees hold
/// std::optional in place of each masked subtree, so the params' containers
/// must be std::map, std::vector, std::tuple (not JAXCC_PYTREE structs,
/// whose members keep their types).
template <class Inner, class Mask>
struct masked {
  Inner inner;
  Mask mask;
  masked(Inner inner, Mask mask) : inner(std::move(inner)), mask(std::move(mask)) {}

  template <class P>
  auto mask_of(P const& tree) const {
    if constexpr (std::invocable<Mask const&, P const&>) return mask(tree);
    else return mask;
  }
  template <class P>
  auto init(P const& params) const {
    return MaskedState<decltype(inner.init(detail::mask_tree(mask_of(params), params)))>{
        inner.init(detail::mask_tree(mask_of(params), params))};
  }
  template <class U, class S, class P = none_t>
  std::tuple<U, MaskedState<S>> update(U const& updates, MaskedState<S> const& state, P const& params = none) const {
    auto const m = mask_of(updates);
    auto const masked_updates = detail::mask_tree(m, updates);
    auto [new_updates, new_state] = [&] {
      if constexpr (std::is_same_v<P, none_t>) return inner.update(masked_updates, state.inner_state);
      else return inner.update(masked_updates, state.inner_state, detail::mask_tree(m, params));
    }();
    U out = tree::map([](bool keep, auto const& n, auto const& old) { return keep ? *n : old; }, m, new_updates, updates);
    return {std::move(out), MaskedState<S>{std::move(new_state)}};
  }
};

/// Accumulates gradients over every_k_schedule mini-steps (their mean, or
/// their sum without use_grad_mean), and applies `opt` to them on the last;
/// the other mini-steps give zero updates (optax.MultiSteps).
template <class Opt>
struct MultiSteps {
  Opt opt;
  std::int32_t every_k_schedule;
  bool use_grad_mean = true;
  MultiSteps(Opt opt, std::int32_t every_k, bool use_grad_mean = true)
      : opt(std::move(opt)), every_k_schedule(every_k), use_grad_mean(use_grad_mean) {}

  template <class P>
  auto init(P const& params) const {
    using S = decltype(opt.init(params));
    using A = detail::zeros_tree_t<P>;
    return MultiStepsState<S, A>{detail::zero_count(), detail::zero_count(), opt.init(params),
                                 detail::tree_zeros_like(params), {}};
  }

  template <class U, class S, class A, class P = none_t>
  std::tuple<U, MultiStepsState<S, A>> update(U const& updates, MultiStepsState<S, A> const& state,
                                              P const& params = none) const {
    std::int32_t const k = every_k_schedule;
    Count const n = state.mini_step;
    bool const mean = use_grad_mean;
    A acc = tree::map(
        [&](auto const& a, auto const& g) {
          using L = detail::leaf_array_t<decltype(a)>;
          if (mean) return L(a + (g - a) / Count(n + std::int32_t(1)).astype<value_type_t<L>>());
          return L(g + a);
        },
        state.acc_grads, updates);
    U const acc_as_updates = tree::map([](auto const& g, auto const& a) { return detail::leaf_array_t<decltype(g)>(a); }, updates, acc);
    auto [final_updates, new_inner] = [&] {
      if constexpr (std::is_same_v<P, none_t>) return opt.update(acc_as_updates, state.inner_opt_state);
      else return opt.update(acc_as_updates, state.inner_opt_state, params);
    }();
    Array<bool> const emit = n == (k - 1);
    MultiStepsState<S, A> next{
        Count(numpy::remainder(detail::safe_increment(n), k)),
        Count(numpy::where(emit, detail::safe_increment(state.gradient_step), state.gradient_step)),
        tree::map([&](auto const& st, auto const& nst) { return detail::leaf_array_t<decltype(st)>(numpy::where(emit, nst, st)); },
                  state.inner_opt_state, new_inner),
        tree::map([&](auto const& a) { return detail::leaf_array_t<decltype(a)>(numpy::where(emit, 0.0, a)); }, acc),
        {}};
    U out = tree::map([&](auto const& g) { return detail::leaf_array_t<decltype(g)>(numpy::where(emit, g, 0.0)); },
                      final_updates);
    return {std::move(out), std::move(next)};
  }

  /// Whether the last update applied the inner optimizer (optax's has_updated).
  template <class S, class A>
  Array<bool> has_updated(MultiStepsState<S, A> const& state) const {
    return numpy::logical_and(state.mini_step == 0, state.gradient_step > 0);
  }
};

}  // namespace jaxcc::optim
