// lax.reduce_window with lax.add, lax.max or lax.min as the computation:
// sum, max or min pooling, e.g. 2x2 max pooling of an NCHW batch:
//
//     lax::reduce_window(x, -inf, lax::max, {1, 1, 2, 2}, {1, 1, 2, 2}, "VALID")
//
// lax::add, lax::max and lax::min are also the elementwise functions they
// name. An init value other than the monoid's identity is combined with
// each window's result, as XLA's ReduceWindow combines it.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/lax/padding.hpp"
#include "jaxcc/primitives/reduce_window.hpp"

namespace jaxcc::detail {
/// A binary lax function that is also a reduce_window computation.
template <class Monoid>
struct WindowComputation {
  using monoid = Monoid;
  template <ArrayLike A, ArrayLike B>
    requires std::same_as<value_type_t<A>, value_type_t<B>>
  auto operator()(A const& a, B const& b) const {
    if constexpr (std::same_as<Monoid, primitives::WindowSum>) return binary<primitives::add_p>(a, b);
    else if constexpr (std::same_as<Monoid, primitives::WindowMax>) return binary<primitives::max_p>(a, b);
    else return binary<primitives::min_p>(a, b);
  }
};
}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.add, lax.max, lax.min: elementwise on operands of one dtype.
inline constexpr detail::WindowComputation<primitives::WindowSum> add{};
inline constexpr detail::WindowComputation<primitives::WindowMax> max{};
inline constexpr detail::WindowComputation<primitives::WindowMin> min{};

/// A computation reduce_window can run: lax::add, lax::max or lax::min.
template <class C>
concept WindowReducer = requires { typename std::remove_cvref_t<C>::monoid; };

/// lax.reduce_window(operand, init_value, computation, window_dimensions,
/// window_strides, padding, base_dilation, window_dilation). Empty strides
/// and dilations mean 1 in every dimension.
template <ArrayLike A, WindowReducer C>
Array<value_type_t<A>> reduce_window(A const& operand, value_type_t<A> init_value, C const&,
                                     Axes const& window_dimensions, Axes window_strides = {},
                                     Padding const& padding = "VALID", Axes base_dilation = {},
                                     Axes window_dilation = {}) {
  using T = value_type_t<A>;
  using Monoid = typename C::monoid;
  auto const x = as_array(operand);
  auto const n = window_dimensions.size();
  if (window_strides.empty()) window_strides = Axes(n, 1);
  if (base_dilation.empty()) base_dilation = Axes(n, 1);
  if (window_dilation.empty()) window_dilation = Axes(n, 1);
  primitives::WindowParams p{window_dimensions, window_strides, {}, base_dilation, window_dilation};
  if (padding.is_string()) {
    Shape window;
    for (std::size_t d = 0; d < n && d < window_dilation.size(); ++d)
      window.push_back(primitives::WindowParams::dilated(window_dimensions[d], window_dilation[d]));
    if (x.shape().size() != n || window.size() != n || window_strides.size() != n)
      p.padding.assign(n, {0, 0});  // the shape rule names the mismatch
    else
      p.padding = padtype_to_pads(x.shape(), window, window_strides, padding.kind());
  } else {
    p.padding = padding.pads();
  }
  auto const reduced = jaxcc::detail::bind<primitives::reduce_window_p<Monoid>>(p, x);
  if (init_value == Monoid::template identity<T>()) return reduced;
  if constexpr (std::same_as<Monoid, primitives::WindowSum>) return jaxcc::detail::binary<primitives::add_p>(reduced, init_value);
  else if constexpr (std::same_as<Monoid, primitives::WindowMax>) return jaxcc::detail::binary<primitives::max_p>(reduced, init_value);
  else return jaxcc::detail::binary<primitives::min_p>(reduced, init_value);
}

/// lax.reduce_window_shape_tuple: the shape reduce_window gives an operand
/// of `operand_shape` with explicit (lo, hi) `padding` (empty dilations: 1):
/// (dilated operand + padding - dilated window) / stride + 1 per dimension,
/// 0 where the window does not fit.
template <class = void>
Shape reduce_window_shape_tuple(Shape const& operand_shape, Axes const& window_dimensions,
                                       Axes const& window_strides,
                                       std::vector<std::pair<std::int64_t, std::int64_t>> const& padding,
                                       Axes const& base_dilation = {}, Axes const& window_dilation = {}) {
  auto const n = std::min({operand_shape.size(), window_dimensions.size(), window_strides.size(), padding.size()});
  Shape out;
  for (std::size_t d = 0; d < n; ++d) {
    auto const in = primitives::WindowParams::dilated(operand_shape[d], base_dilation.empty() ? 1 : base_dilation[d]) +
                    padding[d].first + padding[d].second;
    auto const window =
        primitives::WindowParams::dilated(window_dimensions[d], window_dilation.empty() ? 1 : window_dilation[d]);
    out.push_back(in >= window ? (in - window) / window_strides[d] + 1 : 0);
  }
  return out;
}

}  // namespace jaxcc::lax
