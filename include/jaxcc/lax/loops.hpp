// lax::fori_loop, as JAX builds it: with bounds known when it is called
// (C++ integers or concrete arrays) it is a scan over the trip count, so
// reverse mode works; with traced bounds it is a while loop (forward mode
// only).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "jaxcc/core/none.hpp"
#include "jaxcc/lax/scan.hpp"
#include "jaxcc/lax/while_loop.hpp"

namespace jaxcc::detail {

/// A fori_loop bound: a C++ integer (weakly typed, as a Python int is) or an
/// integer Array whose dtype the loop index takes.
template <class B>
struct fori_bound {
  static_assert(std::integral<B> && !std::same_as<B, bool>, "fori_loop bounds must be integers or integer Arrays");
  using type = std::int32_t;
  static constexpr bool weak = true;
};
template <Element T>
struct fori_bound<Array<T>> {
  static_assert(std::integral<T> && !std::same_as<T, bool>, "fori_loop bounds must be integers or integer Arrays");
  using type = T;
  static constexpr bool weak = false;
};

template <class Lower, class Upper>
struct fori_index {
  using L = fori_bound<Lower>;
  using U = fori_bound<Upper>;
  static_assert(L::weak || U::weak || std::same_as<typename L::type, typename U::type>,
                "lower and upper arguments to fori_loop must have equal types");
  using type = std::conditional_t<L::weak, typename U::type, typename L::type>;
};

template <class I, class B>
Array<I> bound_array(B const& b) {
  if constexpr (std::integral<B>) return detail::rank0_array(static_cast<I>(b));
  else return b;
}

template <class B>
bool bound_is_concrete(B const& b) {
  if constexpr (std::integral<B>) return true;
  else return !b.is_traced();
}

template <class B>
std::int64_t bound_value(B const& b) {
  if constexpr (std::integral<B>) return static_cast<std::int64_t>(b);
  else return static_cast<std::int64_t>(b.item());
}

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.fori_loop: `val = init_val; for (i = lower; i < upper; ++i) val =
/// body_fun(i, val);` with `i` a rank-0 integer Array (int32 for C++
/// integer bounds). Reverse-mode differentiable when both bounds are
/// concrete.
template <class Lower, class Upper, class BodyFun, class Init>
auto fori_loop(Lower const& lower, Upper const& upper, BodyFun const& body_fun, Init const& init_val) {
  using I = typename detail::fori_index<Lower, Upper>::type;
  auto const value = detail::as_loop_value(init_val);
  using Value = std::remove_cvref_t<decltype(value)>;
  if (detail::bound_is_concrete(lower) && detail::bound_is_concrete(upper)) {
    auto const length = std::max<std::int64_t>(detail::bound_value(upper) - detail::bound_value(lower), 0);
    auto const step = [&body_fun](std::pair<Array<I>, Value> const& carry, none_t) {
      auto const& [i, x] = carry;
      return std::pair{std::pair{Array<I>(i + I{1}), detail::as_loop_value(body_fun(i, x))}, none};
    };
    auto [carry, ys] = scan(step, std::pair{detail::bound_array<I>(lower), value}, none, length);
    return carry.second;
  }
  using Carry = std::tuple<Array<I>, Array<I>, Value>;
  auto const below_upper = [](Carry const& c) { return std::get<0>(c) < std::get<1>(c); };
  auto const step = [&body_fun](Carry const& c) {
    auto const& [i, stop, x] = c;
    return std::tuple{Array<I>(i + I{1}), stop, detail::as_loop_value(body_fun(i, x))};
  };
  auto const out = while_loop(below_upper, step, Carry{detail::bound_array<I>(lower), detail::bound_array<I>(upper), value});
  return std::get<2>(out);
}

}  // namespace jaxcc::lax
