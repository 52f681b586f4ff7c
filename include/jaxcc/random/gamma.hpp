// jax.random's gamma family: gamma and loggamma (the primitive
// random_gamma_p), and what JAX builds on them: beta, dirichlet, chisquare,
// f, t, generalized_normal and ball. Each is written as JAX writes it, with
// the same key splits, so a key gives JAX's numbers (to the last bits of the
// float math). Shape parameters may be C++ scalars or arrays; `shape`
// defaults to their broadcast shape. Gradients flow to the shape parameters
// through gamma's implicit reparameterization (random_gamma_grad).
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/nn/activations.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/random_gamma.hpp"
#include "jaxcc/random/distributions.hpp"
#include "jaxcc/random/key.hpp"

namespace jaxcc::random {

namespace detail {

/// A distribution's parameter as an array of T (a C++ scalar: 0-d).
template <Element T, class P>
Array<T> param_as(P const& p) {
  if constexpr (Scalar<P>) return numpy::array<T>(static_cast<T>(p));
  else return fusion::cast<T>(p);
}

/// JAX's _check_broadcast_shapes: the parameters' broadcast shape when
/// `shape` is None, else `shape`, checked.
inline Shape sampler_shape(std::string_view name, OptionalShape const& shape, std::vector<Shape> const& params) {
  if (!shape) return numpy::broadcast_shapes(params);
  check_shape(name, *shape, params);
  return *shape;
}

/// JAX's _gamma: `a` broadcast to `shape`, one draw of random_gamma_p.
template <std::floating_point T>
Array<T> gamma_draw(Array<std::uint32_t> const& key, Array<T> a, Shape const& shape, bool log_space) {
  if (a.shape() != shape) a = numpy::broadcast_to(a, shape);
  return jaxcc::detail::bind<primitives::random_gamma_p<T>>({log_space}, key, a);
}

/// gamma and loggamma's shape: a's unless given (then checked against a's).
inline Shape gamma_shape(OptionalShape const& shape, Shape const& a_shape) {
  if (!shape) return a_shape;
  check_shape("gamma", *shape, {a_shape});
  return *shape;
}

}  // namespace detail

/// jax.random.gamma: Gamma(a, 1) samples (Marsaglia and Tsang), float32
/// unless T says otherwise; differentiable in a.
template <Element T = float, Key K, detail::Bound A>
  requires std::floating_point<T>
Array<T> gamma(K const& key, A const& a, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("gamma", key);
  auto const alpha = detail::param_as<T>(a);
  return detail::gamma_draw<T>(k, alpha, detail::gamma_shape(shape, alpha.shape()), false);
}

/// jax.random.loggamma: log of Gamma(a, 1) samples, computed in log space
/// (accurate for small a).
template <Element T = float, Key K, detail::Bound A>
  requires std::floating_point<T>
Array<T> loggamma(K const& key, A const& a, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("loggamma", key);
  auto const alpha = detail::param_as<T>(a);
  return detail::gamma_draw<T>(k, alpha, detail::gamma_shape(shape, alpha.shape()), true);
}

/// jax.random.beta: Beta(a, b) from two log-gamma draws.
template <Element T = float, Key K, detail::Bound A, detail::Bound B>
  requires std::floating_point<T>
Array<T> beta(K const& key, A const& a, B const& b, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("beta", key);
  auto const pa = detail::param_as<T>(a), pb = detail::param_as<T>(b);
  auto const out_shape = detail::sampler_shape("beta", shape, {pa.shape(), pb.shape()});
  auto const [key_a, key_b] = detail::split_in_two(k);
  auto const log_gamma_a = loggamma<T>(key_a, numpy::broadcast_to(pa, out_shape), out_shape);
  auto const log_gamma_b = loggamma<T>(key_b, numpy::broadcast_to(pb, out_shape), out_shape);
  Array<T> const log_max = numpy::maximum(log_gamma_a, log_gamma_b);
  Array<T> const gamma_a_scaled = numpy::exp(log_gamma_a - log_max);
  Array<T> const gamma_b_scaled = numpy::exp(log_gamma_b - log_max);
  return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled);
}

/// jax.random.dirichlet: softmax of log-gamma draws along alpha's last
/// axis; `shape` is the batch shape (the result's without that axis).
template <Element T = float, Key K, ArrayLike A>
  requires std::floating_point<T>
Array<T> dirichlet(K const& key, A const& alpha_in, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("dirichlet", key);
  auto const alpha = detail::param_as<T>(alpha_in);
  if (alpha.ndim() < 1)
    throw Error("dirichlet requires alpha.ndim >= 1, got alpha.ndim == " + std::to_string(alpha.ndim()));
  Shape const batch(alpha.shape().begin(), alpha.shape().end() - 1);
  Shape out_shape = shape.value_or(batch);
  if (shape) detail::check_shape("dirichlet", out_shape, {batch});
  out_shape.push_back(alpha.shape().back());
  return nn::softmax(loggamma<T>(k, alpha, out_shape), -1);
}

/// jax.random.chisquare: 2 exp(loggamma(df / 2)).
template <Element T = float, Key K, detail::Bound D>
  requires std::floating_point<T>
Array<T> chisquare(K const& key, D const& df, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("chisquare", key);
  auto const d = detail::param_as<T>(df);
  auto const out_shape = detail::sampler_shape("chisquare", shape, {d.shape()});
  Array<T> const half_df = d / T(2);
  return numpy::exp(loggamma<T>(k, half_df, out_shape)) * T(2);
}

/// jax.random.f: (chisquare(dfnum) / dfnum) / (chisquare(dfden) / dfden).
template <Element T = float, Key K, detail::Bound N, detail::Bound D>
  requires std::floating_point<T>
Array<T> f(K const& key, N const& dfnum, D const& dfden, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("f", key);
  auto const num_df = detail::param_as<T>(dfnum), den_df = detail::param_as<T>(dfden);
  auto const out_shape = detail::sampler_shape("f", shape, {num_df.shape(), den_df.shape()});
  auto const [key_dfd, key_dfn] = detail::split_in_two(k);
  auto const chi2_dfn = chisquare<T>(key_dfn, num_df, out_shape);
  auto const chi2_dfd = chisquare<T>(key_dfd, den_df, out_shape);
  return Array<T>(chi2_dfn / num_df) / Array<T>(chi2_dfd / den_df);
}

/// jax.random.t: Student's t, normal * sqrt((df / 2) / gamma(df / 2)).
template <Element T = float, Key K, detail::Bound D>
  requires std::floating_point<T>
Array<T> t(K const& key, D const& df, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("t", key);
  auto const d = detail::param_as<T>(df);
  auto const out_shape = detail::sampler_shape("t", shape, {d.shape()});
  auto const [key_n, key_g] = detail::split_in_two(k);
  auto const n = normal<T>(key_n, out_shape);
  Array<T> const half_df = d / T(2);
  auto const g = gamma<T>(key_g, half_df, out_shape);
  return n * numpy::sqrt(half_df / g);
}

/// jax.random.generalized_normal: density proportional to exp(-|x|^p),
/// as sign * gamma(1 / p)^(1 / p).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> generalized_normal(K const& key, double p, Shape const& shape = {}) {
  auto const& k = detail::single_key("generalized_normal", key);
  auto const [k0, k1] = detail::split_in_two(k);
  auto const inv_p = static_cast<T>(1.0 / p);
  auto const g = gamma<T>(k0, inv_p, shape);
  // jax.random.rademacher: 2 * bernoulli(0.5) - 1.
  auto const r = lax::convert_element_type<T>(bernoulli(k1, 0.5, shape));
  return Array<T>(T(2) * r - T(1)) * numpy::power(g, inv_p);
}

/// jax.random.ball: uniform in the unit Lp ball of dimension d, shape
/// (*shape, d).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> ball(K const& key, std::int64_t d, double p = 2, Shape const& shape = {}) {
  auto const& k = detail::single_key("ball", key);
  auto const [k1, k2] = detail::split_in_two(k);
  Shape g_shape = shape;
  g_shape.push_back(d);
  auto const g = generalized_normal<T>(k1, p, g_shape);
  auto const e = exponential<T>(k2, shape);
  auto const p_t = static_cast<T>(p);
  auto const inv_p = static_cast<T>(1.0 / p);
  Array<T> const norm = numpy::power(numpy::sum(numpy::power(numpy::abs(g), p_t), -1) + e, inv_p);
  return g / numpy::expand_dims(norm, -1);
}

}  // namespace jaxcc::random
