// jax.numpy's window functions: bartlett, blackman, hamming, hanning. Each
// is float32 arithmetic on 0, 1, ..., M - 1 in the order JAX writes it,
// made on the host (M is static). kaiser needs i0, a special function this
// header leaves to scipy.special's. The windows' arithmetic is on arrays of
// a type that depends on the template parameter, so that a file that does
// not call them compiles none of it.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string_view>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"

namespace jaxcc::detail {

/// A window of M points: ones for M <= 1 (JAX's), else f(n, M - 1) on the
/// float32 array n = 0, 1, ..., M - 1; `op` names the caller in errors.
template <class F>
Array<float> window(std::int64_t M, std::string_view op, F const& f) {
  if (M < 0) throw_error(op, ": negative dimensions are not allowed, got M=", M);
  if (M <= 1) return numpy::ones<float>(Shape{M});
  return f(numpy::arange<float>(M), static_cast<float>(M - 1));
}

/// 2π as the float32 that JAX's `2 * np.pi * n` multiplies by.
inline constexpr float two_pi = static_cast<float>(2 * std::numbers::pi);
inline constexpr float four_pi = static_cast<float>(4 * std::numbers::pi);

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// The Bartlett (triangular) window: 1 - |2n + 1 - M| / (M - 1).
template <class D = void>
Array<float> bartlett(std::int64_t M) {
  return detail::window(M, "bartlett", [&](Array<detail::dependent_t<D, float>> const& n, float m1) -> Array<float> {
    return 1.0f - abs(2.0f * n + 1.0f - static_cast<float>(M)) / m1;
  });
}
/// The Blackman window: 0.42 - 0.5 cos(2πn / (M - 1)) + 0.08 cos(4πn / (M - 1)).
template <class D = void>
Array<float> blackman(std::int64_t M) {
  return detail::window(M, "blackman", [](Array<detail::dependent_t<D, float>> const& n, float m1) -> Array<float> {
    return 0.42f - 0.5f * cos(detail::two_pi * n / m1) + 0.08f * cos(detail::four_pi * n / m1);
  });
}
/// The Hamming window: 0.54 - 0.46 cos(2πn / (M - 1)).
template <class D = void>
Array<float> hamming(std::int64_t M) {
  return detail::window(M, "hamming", [](Array<detail::dependent_t<D, float>> const& n, float m1) -> Array<float> {
    return 0.54f - 0.46f * cos(detail::two_pi * n / m1);
  });
}
/// The Hann window: 0.5 (1 - cos(2πn / (M - 1))).
template <class D = void>
Array<float> hanning(std::int64_t M) {
  return detail::window(M, "hanning", [](Array<detail::dependent_t<D, float>> const& n, float m1) -> Array<float> {
    return 0.5f * (1.0f - cos(detail::two_pi * n / m1));
  });
}

}  // namespace jaxcc::numpy
