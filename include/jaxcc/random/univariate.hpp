// jax.random's one-dimensional samplers beyond the basic ones: laplace,
// cauchy, logistic, lognormal, pareto, rayleigh, wald, weibull_min, maxwell,
// double_sided_maxwell, rademacher, geometric and triangular, each written as JAX writes
// it on top of uniform and normal, so a key gives JAX's numbers (to the
// float32 rounding of the functions they apply; rademacher and geometric
// bit for bit). A parameter is a C++ number or an array; arrays broadcast
// against `shape` by JAX's rules and, being compositions of differentiable
// operations, carry gradients: the samplers are reparameterized in their
// location and scale parameters.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string_view>
#include <type_traits>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/lax/shape_ops.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/norm.hpp"
#include "jaxcc/random/distributions.hpp"
#include "jaxcc/random/key.hpp"

namespace jaxcc::random {

namespace detail {

/// JAX's promote_dtypes_inexact of a parameter: float32 for a C++ number,
/// else the array's float type.
template <class P>
struct param_float {
  using type = float;
};
template <ArrayLike P>
struct param_float<P> {
  using type = float_t<value_type_t<P>>;
};

}  // namespace detail

/// jax.random.laplace: sign(u) * log1p(-|u|) for u uniform in (-1, 1).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> laplace(K const& key, Shape const& shape = {}) {
  auto const& k = detail::single_key("laplace", key);
  Array<T> const u = uniform<T>(k, shape, T(-1) + std::numeric_limits<T>::epsilon() / 2, T(1));
  return numpy::sign(u) * numpy::log1p(-numpy::abs(u));
}

/// jax.random.cauchy: tan(pi (u - 1/2)) for u uniform in [eps, 1).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> cauchy(K const& key, Shape const& shape = {}) {
  auto const& k = detail::single_key("cauchy", key);
  Array<T> const u = uniform<T>(k, shape, std::numeric_limits<T>::epsilon(), T(1));
  return numpy::tan(T(3.141592653589793) * (u - T(0.5)));
}

/// jax.random.logistic: log(u) - log1p(-u) for u uniform in [tiny, 1).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> logistic(K const& key, Shape const& shape = {}) {
  auto const& k = detail::single_key("logistic", key);
  Array<T> const u = uniform<T>(k, shape, std::numeric_limits<T>::min(), T(1));
  return numpy::log(u) - numpy::log1p(-u);
}

/// jax.random.lognormal: exp(sigma * normal); `shape` defaults to sigma's.
template <Element T = float, Key K, detail::Bound S = T>
  requires std::floating_point<T>
Array<T> lognormal(K const& key, S const& sigma = S(1), OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("lognormal", key);
  auto const out_shape = detail::sample_shape("lognormal", shape, {detail::param_shape(sigma)});
  return numpy::exp(normal<T>(k, out_shape) * detail::bound_as<T>(sigma));
}

/// jax.random.pareto: exp(e / b) for e standard exponential; `shape`
/// defaults to b's.
template <Element T = float, Key K, detail::Bound B>
  requires std::floating_point<T>
Array<T> pareto(K const& key, B const& b, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("pareto", key);
  auto const out_shape = detail::sample_shape("pareto", shape, {detail::param_shape(b)});
  return numpy::exp(exponential<T>(k, out_shape) / detail::bound_as<T>(b));
}

/// jax.random.rayleigh: scale * sqrt(-2 log(u)); `shape` defaults to scale's.
template <Element T = float, Key K, detail::Bound S>
  requires std::floating_point<T>
Array<T> rayleigh(K const& key, S const& scale, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("rayleigh", key);
  auto const out_shape = detail::sample_shape("rayleigh", shape, {detail::param_shape(scale)});
  Array<T> const u = uniform<T>(k, out_shape);
  return detail::bound_as<T>(scale) * numpy::sqrt(numpy::log(u) * T(-2));
}

/// jax.random.wald (the inverse Gaussian with unit shape): Michael, Schucany
/// and Haas's transformation of a normal and a uniform draw; `shape`
/// defaults to mean's.
template <Element T = float, Key K, detail::Bound M>
  requires std::floating_point<T>
Array<T> wald(K const& key, M const& mean_in, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("wald", key);
  auto const out_shape = detail::sample_shape("wald", shape, {detail::param_shape(mean_in)});
  auto const [k1, k2] = detail::split_in_two(k);
  auto const mean = detail::bound_as<T>(mean_in);
  Array<T> const v = normal<T>(k1, out_shape);
  Array<T> const z = uniform<T>(k2, out_shape);
  Array<T> const y = v * v;
  Array<T> const y_sq = y * y;
  auto const mean_sq = mean * mean;
  Array<T> const sqrt_term = numpy::sqrt(T(4) * mean * y + mean_sq * y_sq);
  Array<T> const x = mean + mean_sq * y / T(2) - mean / T(2) * sqrt_term;
  return numpy::where(z <= mean / (mean + x), x, Array<T>(mean_sq / x));
}

/// jax.random.weibull_min: scale * (-log1p(-u))^(1 / concentration); the
/// result's shape is `shape` broadcast with the parameters'.
template <Element T = float, Key K, detail::Bound S, detail::Bound C>
  requires std::floating_point<T>
Array<T> weibull_min(K const& key, S const& scale, C const& concentration, Shape const& shape = {}) {
  auto const& k = detail::single_key("weibull_min", key);
  Array<T> const u = uniform<T>(k, shape, T(0), T(1));
  auto const exponent = [&] {
    if constexpr (Scalar<C>) return static_cast<T>(1.0 / static_cast<double>(concentration));
    else return Array<T>(T(1) / detail::bound_as<T>(concentration));
  }();
  return numpy::power(Array<T>(-numpy::log1p(-u)), exponent) * detail::bound_as<T>(scale);
}

/// jax.random.maxwell: the norm of three standard normals.
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> maxwell(K const& key, Shape const& shape = {}) {
  auto const& k = detail::single_key("maxwell", key);
  Shape with_three = shape;
  with_three.push_back(3);
  return numpy::linalg::norm(normal<T>(k, with_three), none, -1);
}

/// jax.random.rademacher: -1 or 1 with equal probability (int32 unless T
/// says otherwise), from bernoulli(key, 0.5).
template <Element T = std::int32_t, Key K>
  requires(std::integral<T> || std::floating_point<T>) && (!std::same_as<T, bool>)
Array<T> rademacher(K const& key, Shape const& shape = {}) {
  auto const& k = detail::single_key("rademacher", key);
  Array<T> const b = lax::convert_element_type<T>(bernoulli(k, 0.5, shape));
  return T(2) * b - T(1);
}

/// jax.random.double_sided_maxwell: a maxwell draw with a random sign,
/// scaled and shifted. As JAX, the result's shape is `shape` (or, when it
/// is (), the parameters' broadcast shape) followed by the parameters'
/// broadcast shape.
template <Element T = float, Key K, detail::Bound L, detail::Bound S>
  requires std::floating_point<T>
Array<T> double_sided_maxwell(K const& key, L const& loc, S const& scale, Shape const& shape = {}) {
  auto const& k = detail::single_key("double_sided_maxwell", key);
  auto const params = lax::broadcast_shapes(detail::param_shape(loc), detail::param_shape(scale));
  Shape out_shape = shape.empty() ? params : shape;
  out_shape.insert(out_shape.end(), params.begin(), params.end());
  auto const [maxwell_key, rademacher_key] = detail::split_in_two(k);
  Array<T> const magnitude = maxwell<T>(maxwell_key, out_shape);
  Array<T> const sign = rademacher<T>(rademacher_key, out_shape);
  return sign * magnitude * detail::bound_as<T>(scale) + detail::bound_as<T>(loc);
}

/// jax.random.geometric: the number of Bernoulli(p) trials up to the first
/// success, floor(log(u) / log1p(-p)) + 1 (int32 unless T says otherwise);
/// `shape` defaults to p's.
template <Element T = std::int32_t, Key K, detail::Bound P>
  requires std::integral<T> && (!std::same_as<T, bool>)
Array<T> geometric(K const& key, P const& p, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("geometric", key);
  auto const out_shape = detail::sample_shape("geometric", shape, {detail::param_shape(p)});
  using F = typename detail::param_float<P>::type;
  Array<F> const u0 = uniform<F>(k, out_shape);
  Array<F> const u = numpy::where(u0 == F(0), F(1), u0);
  auto const log_one_minus_p = [&] {
    if constexpr (Scalar<P>) return static_cast<F>(std::log1p(-static_cast<F>(p)));
    else return Array<F>(numpy::log1p(-detail::bound_as<F>(p)));
  }();
  Array<F> const g = numpy::floor(numpy::log(u) / log_one_minus_p) + F(1);
  return lax::convert_element_type<T>(g);
}

/// jax.random.triangular: draws from the triangular distribution on
/// [left, right] with its peak at mode, by inverting its distribution
/// function at u uniform in [0, 1): left + sqrt(u (right - left) (mode -
/// left)) where u < (mode - left) / (right - left), else right - sqrt((1 -
/// u) (right - left) (right - mode)). `shape` defaults to the parameters'
/// broadcast shape; differentiable in all three parameters.
template <Element T = float, Key K, detail::Bound L, detail::Bound M, detail::Bound R>
  requires std::floating_point<T>
Array<T> triangular(K const& key, L const& left, M const& mode, R const& right, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("triangular", key);
  auto const out_shape = detail::sample_shape(
      "triangular", shape, {detail::param_shape(left), detail::param_shape(mode), detail::param_shape(right)});
  auto const a = detail::bound_as<T>(left);
  auto const c = detail::bound_as<T>(mode);
  auto const b = detail::bound_as<T>(right);
  auto const width = b - a;
  auto const rise = c - a;
  auto const fall = b - c;
  auto const fc = rise / width;
  Array<T> const u = uniform<T>(k, out_shape);
  Array<T> const out1 = a + numpy::sqrt(u * width * rise);
  Array<T> const out2 = b - numpy::sqrt((T(1) - u) * width * fall);
  return numpy::where(u < fc, out1, out2);
}

}  // namespace jaxcc::random
