// jax.scipy.special's zeta (the Hurwitz zeta function, lax.zeta) and
// bernoulli (the first Bernoulli numbers, by Chowla and Hartung's series
// as JAX computes them).
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/lax/special.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/scipy/special/promote.hpp"

namespace jaxcc::scipy::special {

/// sum_k (k + q)^-x. JAX has no Riemann zeta (q = None); q is required here.
/// Differentiable in q; the derivative in x raises.
template <class X, class Q>
  requires(ArrayLike<X> || ArrayLike<Q>) && detail::ArrayOrScalar<X> && detail::ArrayOrScalar<Q>
auto zeta(X const& x, Q const& q) {
  using T = detail::inexact_t<X, Q>;
  return lax::zeta(detail::inexact_operand<T>(x), detail::inexact_operand<T>(q));
}

/// The Bernoulli numbers B_0 ... B_n (B_1 = -1/2), as dtype T.
template <FloatElement T = float>
Array<T> bernoulli(std::int64_t n) {
  if (n < 0) throw Error("bernoulli: n must be a non-negative integer, got " + std::to_string(n));
  std::vector<T> b{T(1), T(-0.5), static_cast<T>(1.0 / 6.0)};
  b.resize(static_cast<std::size_t>(n + 1), T(0));
  // B_m = (-1)^(m/2 + 1) 2 m! / (2 pi)^m zeta(m) for even m >= 4, the factor
  // as a running product and zeta(m) - 1 as the sum of k^-m for k < 50.
  T const pi2 = static_cast<T>(std::numbers::pi * std::numbers::pi);
  T product = 1;
  for (std::int64_t m = 4; m <= n; m += 2) {
    T const mm = static_cast<T>(m);
    product *= -(mm - 1) * mm / 4 / pi2;
    T tail = 0;
    for (int k = 2; k < 50; ++k) tail += std::pow(static_cast<T>(k), -mm);
    b[static_cast<std::size_t>(m)] = T(1) / pi2 * product * (1 + tail);
  }
  auto const size = static_cast<std::int64_t>(b.size());
  return numpy::array(b, Shape{size});
}

}  // namespace jaxcc::scipy::special
