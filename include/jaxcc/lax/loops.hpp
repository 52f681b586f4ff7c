// lax::map: f over the leading axis of a pytree, a scan (with batch_size,
// a scan of scans over batches of that many elements, the rest mapped after).
// lax::fori_loop, as JAX builds it: with bounds known when it is called
// (C++ integers or concrete arrays) it is a scan over the trip count, so
// reverse mode works; with traced bounds it is a while loop (forward mode
// only).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "jaxcc/core/none.hpp"
#include "jaxcc/lax/scan.hpp"
#include "jaxcc/lax/shape_ops.hpp"
#include "jaxcc/tree/map.hpp"
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

/// lax.map: f applied to each slice of `xs` (a pytree of Arrays) along
/// their leading axis, the results stacked. With `batch_size`, the elements
/// run in batches of that many per scan step (JAX vmaps f over a batch; the
/// values are the same), the remainder after them.
template <class F, class Xs>
auto map(F const& f, Xs const& xs, std::optional<std::int64_t> batch_size = std::nullopt) {
  auto const step = [&f](none_t, auto const& x) { return std::pair{none, detail::as_loop_value(f(x))}; };
  if (!batch_size) return scan(step, none, xs).second;
  auto const leaves = detail::array_leaves(detail::as_loop_value(xs));
  auto const b = *batch_size;
  if (b <= 0) detail::throw_error("lax.map: batch_size must be positive, got ", b);
  auto const n = detail::scan_length(leaves, std::nullopt);
  auto const batches = n / b, total = batches * b;
  auto const batched = tree::map(
      [&](auto const& x) {
        Shape shape = x.shape();
        shape[0] = b;
        shape.insert(shape.begin(), batches);
        return reshape(detail::slice_in_dim(as_array(x), 0, total, 1, 0), shape);
      },
      xs);
  auto const inner = [&f](auto const& batch) { return lax::map(f, batch); };
  auto ys = tree::map([](auto const& y) { return collapse(y, 0, 2); }, scan(
      [&inner](none_t, auto const& x) { return std::pair{none, detail::as_loop_value(inner(x))}; }, none, batched).second);
  if (total == n) return ys;
  auto const rest = tree::map([&](auto const& x) { return detail::slice_in_dim(as_array(x), total, n, 1, 0); }, xs);
  return tree::map([](auto const& a, auto const& r) { return concatenate(std::vector{a, r}, 0); }, ys,
                   scan(step, none, rest).second);
}

}  // namespace jaxcc::lax
