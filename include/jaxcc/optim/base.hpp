// The core of jaxcc::optim, optax's design: a gradient transformation is a
// value with `init(params) -> state` and
// `update(updates, state, params) -> std::tuple{updates, state}`, whose
// states are pytrees (JAXCC_PYTREE structs, std::tuple, std::optional), so
// they pass through tree::map, jit, vmap, device_put and checkpoints.
// Here: the concepts (Schedule, ScalarOrSchedule), `apply_updates`,
// `identity`, `scale`, `scale_by_schedule`, `scale_by_learning_rate` and
// `chain`, and the tree arithmetic the optimizers share (moments, bias
// correction, the saturating step count).
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#include "jaxcc/core/none.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/tree/map.hpp"

/// Registers a class template of states as a pytree node (JAXCC_PYTREE for
/// `template <class... T> struct Template`): the listed members, in order.
#define JAXCC_OPTIM_STATE(Template, ...)                                                                     \
  template <class... JaxccT>                                                                                 \
  [[maybe_unused]] constexpr auto jaxcc_pytree_fields(::jaxcc::detail::pytree_tag<Template<JaxccT...>>) noexcept { \
    return ::jaxcc::detail::make_pytree_fields<Template<JaxccT...>>(                                         \
        #Template, #__VA_ARGS__ JAXCC_PP_FOR_EACH(JAXCC_PYTREE_MEMBER_POINTER, Template<JaxccT...>, __VA_ARGS__)); \
  }

namespace jaxcc::optim {

/// A step count: a scalar int32 array (traced under jit, batched under vmap).
using Count = Array<std::int32_t>;

/// A schedule maps a step count to a scalar (optax.Schedule).
template <class S>
concept Schedule = std::invocable<S const&, Count const&>;

/// A learning rate (or weight decay): a number or a schedule (optax.ScalarOrSchedule).
template <class L>
concept ScalarOrSchedule = std::is_arithmetic_v<L> || Schedule<L>;

/// optax's EmptyState: a transformation without state keeps an empty tuple.
using EmptyState = std::tuple<>;

/// The state of scale_by_schedule: the number of updates so far.
struct ScaleByScheduleState {
  Count count;
};
JAXCC_PYTREE(ScaleByScheduleState, count)

namespace detail {

/// A leaf's array type (Array<float> for an Array<float> or a float expression).
template <class A>
using leaf_array_t = Array<value_type_t<std::remove_cvref_t<A>>>;

/// optax.tree.zeros_like / full_like.
template <class Tree>
auto tree_full_like(Tree const& tree, double value) {
  return tree::map([value](auto const& x) { return leaf_array_t<decltype(x)>(numpy::full_like(x, value)); }, tree);
}
template <class Tree>
auto tree_zeros_like(Tree const& tree) {
  return tree_full_like(tree, 0.0);
}

template <class P>
using zeros_tree_t = decltype(tree_zeros_like(std::declval<P const&>()));

/// A zero count, int32 as optax's (jnp.zeros([], jnp.int32)).
inline Count zero_count() { return numpy::zeros<std::int32_t>(Shape{}); }

/// numerics.safe_increment: count + 1, saturating at int32's maximum.
inline Count safe_increment(Count const& count) {
  constexpr std::int32_t max = std::numeric_limits<std::int32_t>::max();
  return Count(numpy::where(count < max, count + std::int32_t(1), max));
}

/// (1 - decay) * g**order + decay * t, over the moments' tree and the
/// updates (optax.tree.update_moment and, for real leaves,
/// update_moment_per_elem_norm; order 1 or 2).
template <class M, class U>
M update_moment(M const& moments, U const& updates, double decay, int order) {
  return tree::map(
      [decay, order](auto const& t, auto const& g) {
        using A = leaf_array_t<decltype(t)>;
        if (order == 1) return A((1.0 - decay) * g + decay * t);
        return A((1.0 - decay) * (g * g) + decay * t);
      },
      moments, updates);
}

/// moment / (1 - decay**count) (optax.tree.bias_correction): the power in
/// float32, as lax.pow converts the int32 count.
template <class M>
auto bias_correction(M const& moment, double decay, Count const& count) {
  Array<float> const correction = 1.0f - numpy::power(numpy::array<float>(static_cast<float>(decay)), count.astype<float>());
  return tree::map([&correction](auto const& t) { return leaf_array_t<decltype(t)>(t / correction.astype<value_type_t<leaf_array_t<decltype(t)>>>()); }, moment);
}

/// The update's params, checked: transformations that read params need them.
template <class P>
void require_params() {
  static_assert(!std::is_same_v<P, none_t>, "this transformation needs params: call update(updates, state, params)");
}

}  // namespace detail

/// params + updates, leaf by leaf, in each param's dtype (optax.apply_updates).
template <class Params, class Updates>
Params apply_updates(Params const& params, Updates const& updates) {
  return tree::map(
      [](auto const& p, auto const& u) {
        using T = value_type_t<detail::leaf_array_t<decltype(p)>>;
        return as_array(p + u).template astype<T>();
      },
      params, updates);
}

/// Leaves the updates as they are (optax.identity).
struct identity {
  template <class P>
  EmptyState init(P const&) const { return {}; }
  template <class U, class S, class P = none_t>
  std::tuple<U, S> update(U const& updates, S const& state, P const& = none) const {
    return {updates, state};
  }
};

/// Scales the updates by a fixed number (optax.scale).
struct scale {
  double step_size;
  explicit scale(double step_size) : step_size(step_size) {}
  template <class P>
  EmptyState init(P const&) const { return {}; }
  template <class U, class P = none_t>
  std::tuple<U, EmptyState> update(U const& updates, EmptyState const& state, P const& = none) const {
    double const s = step_size;
    return {tree::map([s](auto const& g) { return detail::leaf_array_t<decltype(g)>(s * g); }, updates), state};
  }
};

/// Scales the updates by a schedule of the update count (optax.scale_by_schedule).
template <Schedule F>
struct scale_by_schedule {
  F step_size_fn;
  explicit scale_by_schedule(F f) : step_size_fn(std::move(f)) {}
  template <class P>
  ScaleByScheduleState init(P const&) const { return {detail::zero_count()}; }
  template <class U, class P = none_t>
  std::tuple<U, ScaleByScheduleState> update(U const& updates, ScaleByScheduleState const& state,
                                             P const& = none) const {
    Array<float> const step_size = numpy::asarray(step_size_fn(state.count)).template astype<float>();
    U out = tree::map(
        [&step_size](auto const& g) {
          using A = detail::leaf_array_t<decltype(g)>;
          return A(step_size.astype<value_type_t<A>>() * g);
        },
        updates);
    return {std::move(out), ScaleByScheduleState{detail::safe_increment(state.count)}};
  }
};

/// Scales by -learning_rate (flip_sign) or learning_rate: a number gives
/// `scale`, a schedule `scale_by_schedule` (optax.scale_by_learning_rate).
template <ScalarOrSchedule L>
auto scale_by_learning_rate(L learning_rate, bool flip_sign = true) {
  double const m = flip_sign ? -1.0 : 1.0;
  if constexpr (Schedule<L>) {
    return scale_by_schedule([m, learning_rate](Count const& count) {
      return Array<float>(static_cast<float>(m) * numpy::asarray(learning_rate(count)).template astype<float>());
    });
  } else {
    return scale(m * static_cast<double>(learning_rate));
  }
}

/// Applies transformations one after another; the state is the tuple of
/// theirs (optax.chain).
template <class... Ts>
struct chain {
  std::tuple<Ts...> parts;
  explicit chain(Ts... ts) : parts(std::move(ts)...) {}

  template <class P>
  auto init(P const& params) const {
    return std::apply([&](auto const&... t) { return std::make_tuple(t.init(params)...); }, parts);
  }

  template <class U, class S, class P = none_t>
  auto update(U const& updates, S const& state, P const& params = none) const {
    return step<0>(updates, state, params, std::tuple<>{});
  }

 private:
  template <std::size_t I, class U, class S, class P, class Done>
  auto step(U const& updates, S const& state, P const& params, Done&& done) const {
    if constexpr (I == sizeof...(Ts)) {
      return std::make_tuple(updates, std::forward<Done>(done));
    } else {
      auto [next, s] = std::get<I>(parts).update(updates, std::get<I>(state), params);
      return step<I + 1>(next, state, params, std::tuple_cat(std::forward<Done>(done), std::make_tuple(std::move(s))));
    }
  }
};

}  // namespace jaxcc::optim
