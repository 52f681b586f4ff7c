// What numpy indexing takes, spelled for C++: `x(1, jaxcc::all,
// jaxcc::slice(jaxcc::none, jaxcc::none, -1), jaxcc::newaxis, idx)` is
// numpy's `x[1, :, ::-1, None, idx]`. An index is an integer (negative
// counts from the end), `jaxcc::all` (`:`), a `jaxcc::slice`, `jaxcc::newaxis`
// or an integer array (numpy's advanced indexing). numpy/indexing.hpp gives
// them meaning.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "jaxcc/core/dtype.hpp"
#include "jaxcc/core/none.hpp"

namespace jaxcc {

template <Element T>
class Array;

/// `:`, the whole axis.
struct all_t {};
inline constexpr all_t all{};

/// `None` in an index: a new axis of size 1.
struct newaxis_t {};
inline constexpr newaxis_t newaxis{};

/// `start:stop:step`; an absent bound is open (numpy's defaults for the step's sign).
struct Slice {
  std::optional<std::int64_t> start, stop;
  std::int64_t step = 1;
};

namespace detail {
/// A slice bound: an integer, or jaxcc::none for an open end.
template <class B>
concept SliceBound = std::integral<B> || std::same_as<B, none_t>;

template <SliceBound B>
constexpr std::optional<std::int64_t> slice_bound(B b) {
  if constexpr (std::same_as<B, none_t>) return std::nullopt;
  else return static_cast<std::int64_t>(b);
}
}  // namespace detail

/// numpy's `start:stop` (`jaxcc::none` for an open end).
template <detail::SliceBound Start, detail::SliceBound Stop>
constexpr Slice slice(Start start, Stop stop) {
  return {detail::slice_bound(start), detail::slice_bound(stop), 1};
}
/// numpy's `start:stop:step` (step non-zero; negative walks backwards).
template <detail::SliceBound Start, detail::SliceBound Stop>
constexpr Slice slice(Start start, Stop stop, std::int64_t step) {
  return {detail::slice_bound(start), detail::slice_bound(stop), step};
}

namespace detail {
template <class I>
struct is_integer_array : std::false_type {};
template <Element T>
struct is_integer_array<Array<T>> : std::bool_constant<std::is_integral_v<T> && !std::same_as<T, bool>> {};
}  // namespace detail

/// What may stand in one position of an index.
template <class I>
concept IndexLike = std::integral<std::remove_cvref_t<I>> || std::same_as<std::remove_cvref_t<I>, all_t> ||
                    std::same_as<std::remove_cvref_t<I>, newaxis_t> || std::same_as<std::remove_cvref_t<I>, Slice> ||
                    detail::is_integer_array<std::remove_cvref_t<I>>::value;

}  // namespace jaxcc
