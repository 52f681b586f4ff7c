// Options that transforms take, in any order: `argnums<0, 2>`, `has_aux`,
// `holomorphic`, `axis_name("i")`.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace jaxcc {

/// Which positional arguments a transform differentiates (default: the first).
template <std::size_t... I>
struct argnums_t {
  static_assert(sizeof...(I) > 0, "argnums needs at least one argument index");
  static constexpr std::array<std::size_t, sizeof...(I)> indices{I...};
  static constexpr std::size_t max = std::max({I...});
  static constexpr bool single = sizeof...(I) == 1;
};
template <std::size_t... I>
inline constexpr argnums_t<I...> argnums{};

/// The function returns `(output, aux)`; aux is passed through untouched.
struct has_aux_t {};
inline constexpr has_aux_t has_aux{};

/// grad's function is promised holomorphic: its inputs and output are
/// complex, and the gradient is f'(z), not the conjugate-convention one.
struct holomorphic_t {};
inline constexpr holomorphic_t holomorphic{};

/// The name collectives (lax::psum, ...) use for the axis that vmap or pmap
/// maps over.
struct axis_name_t {
  std::string value;
};
inline axis_name_t axis_name(std::string name) { return {std::move(name)}; }

namespace detail {

template <class T>
struct is_argnums : std::false_type {};
template <std::size_t... I>
struct is_argnums<argnums_t<I...>> : std::true_type {};

/// The first option among Options for which Is<Option> holds, or Default.
template <template <class> class Is, class Default, class... Options>
struct find_option {
  using type = Default;
};
template <template <class> class Is, class Default, class First, class... Rest>
struct find_option<Is, Default, First, Rest...> {
  using type = std::conditional_t<Is<First>::value, First, typename find_option<Is, Default, Rest...>::type>;
};

/// The argnums among Options, or argnums<0>.
template <class... Options>
using find_argnums = find_option<is_argnums, argnums_t<0>, Options...>;

template <class... Options>
inline constexpr bool has_aux_in = (std::is_same_v<Options, has_aux_t> || ...);

template <class... Options>
inline constexpr bool holomorphic_in = (std::is_same_v<Options, holomorphic_t> || ...);

template <class Option>
concept DiffOption =
    is_argnums<Option>::value || std::is_same_v<Option, has_aux_t> || std::is_same_v<Option, holomorphic_t>;

}  // namespace detail

/// An argnums set whose largest index names one of `NumArgs` arguments
/// (JAX: "differentiating with respect to argnums=... requires at least
/// max_argnum + 1 positional arguments").
template <class Argnums, std::size_t NumArgs>
concept ArgnumsWithinArguments = Argnums::max < NumArgs;

}  // namespace jaxcc
