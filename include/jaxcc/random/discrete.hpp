// jax.random's counting samplers: poisson (Knuth's product of uniforms for
// lam < 10, Hormann's transformed rejection above), binomial (inversion by
// geometric gaps for n min(p, 1 - p) <= 10, BTRS above) and multinomial (a
// scan of binomials over the categories). Each is written as JAX writes it:
// whole-array while loops (lax::while_loop) that draw the full shape each
// step, with JAX's key splits, so a key gives JAX's counts. A select keeps
// one branch's count per element, as in JAX; a branch that no element takes
// is skipped (lax::cond), which JAX does not do, and changes no count.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/lax/dtype.hpp"
#include "jaxcc/lax/cond.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/lax/scan.hpp"
#include "jaxcc/lax/while_loop.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/cumulative.hpp"
#include "jaxcc/random/distributions.hpp"
#include "jaxcc/random/gamma.hpp"
#include "jaxcc/random/key.hpp"

namespace jaxcc::random {

namespace detail {

/// split(key, 3): the keys at counters 0, 1 and 2, as key data.
template <class = void>
std::tuple<Array<std::uint32_t>, Array<std::uint32_t>, Array<std::uint32_t>> split_in_three(
    Array<std::uint32_t> const& key) {
  auto const keys = jaxcc::detail::bind<primitives::random_split_p>({Shape{3}}, key);
  auto row = [&](std::int64_t i) { return lax::reshape(lax::slice(keys, {i, 0}, {i + 1, 2}), Shape{2}); };
  return {row(0), row(1), row(2)};
}

/// JAX's _poisson_knuth: count uniforms until their product falls below
/// exp(-lam).
template <std::integral I>
Array<I> poisson_knuth(Array<std::uint32_t> const& key, Array<float> const& lam) {
  using Carry = std::tuple<Array<I>, Array<std::uint32_t>, Array<float>>;
  auto const shape = lam.shape();
  Array<float> const neg_lam = -lam;
  auto const body = [&](Carry const& c) {
    auto const& [k, rng, log_prod] = c;
    auto const [next, subkey] = split_in_two(rng);
    Array<I> const k_next = numpy::where(log_prod > neg_lam, Array<I>(k + I(1)), k);
    auto const u = draw<float>(subkey, shape);
    return Carry{k_next, next, Array<float>(log_prod + numpy::log(u))};
  };
  auto const cond = [&](Carry const& c) { return numpy::any(std::get<2>(c) > neg_lam); };
  auto const out = lax::while_loop(cond, body, Carry{numpy::zeros<I>(shape), key, numpy::zeros<float>(shape)});
  return std::get<0>(out) - I(1);
}

/// JAX's _poisson_rejection: Hormann's transformed rejection (PTRS).
template <std::integral I>
Array<I> poisson_rejection(Array<std::uint32_t> const& key, Array<float> const& lam) {
  using Carry = std::tuple<Array<float>, Array<bool>, Array<std::uint32_t>>;
  auto const shape = lam.shape();
  Array<float> const log_lam = numpy::log(lam);
  Array<float> const b = 0.931f + 2.53f * numpy::sqrt(lam);
  Array<float> const a = -0.059f + 0.02483f * b;
  Array<float> const inv_alpha = 1.1239f + 1.1328f / (b - 3.4f);
  Array<float> const v_r = 0.9277f - 3.6224f / (b - 2.f);
  auto const body = [&](Carry const& c) {
    auto const& [k_out, accepted, rng] = c;
    auto const [next, subkey_0, subkey_1] = split_in_three(rng);
    Array<float> const u = draw<float>(subkey_0, shape) - 0.5f;
    auto const v = draw<float>(subkey_1, shape);
    Array<float> const u_shifted = 0.5f - numpy::abs(u);
    Array<float> const k = numpy::floor((2.f * a / u_shifted + b) * u + lam + 0.43f);
    Array<float> const s = numpy::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    Array<float> const t = -lam + k * log_lam - lax::lgamma(k + 1.f);
    Array<bool> const accept1 = (u_shifted >= 0.07f) & (v <= v_r);
    Array<bool> const reject = (k < 0.f) | ((u_shifted < 0.013f) & (v > u_shifted));
    Array<bool> const accept = accept1 | (numpy::logical_not(reject) & (s <= t));
    return Carry{numpy::where(accept, k, k_out), Array<bool>(accepted | accept), next};
  };
  auto const cond = [](Carry const& c) { return numpy::any(numpy::logical_not(std::get<1>(c))); };
  auto const out = lax::while_loop(cond, body, Carry{numpy::full<float>(shape, -1.f), numpy::zeros<bool>(shape), key});
  return lax::convert_element_type<I>(std::get<0>(out));
}


/// JAX's _stirling_approx_tail: log k! minus Stirling's approximation, from
/// a table for k <= 9, else the series at k clamped to 9 (as JAX computes it).
template <std::floating_point T>
Array<T> stirling_approx_tail(Array<T> const& k_in) {
  auto const table = numpy::array<T>({T(0.0810614667953272), T(0.0413406959554092), T(0.0276779256849983),
                                      T(0.02079067210376509), T(0.0166446911898211), T(0.0138761288230707),
                                      T(0.0118967099458917), T(0.0104112652619720), T(0.00925546218271273),
                                      T(0.00833056343336287)});
  Array<bool> const use_tail_values = k_in <= T(9);
  Array<T> const k = numpy::clip(k_in, T(0), T(9));
  Array<T> const kp1sq = (k + T(1)) * (k + T(1));
  Array<T> const approx = (T(1.0 / 12) - (T(1.0 / 360) - T(1.0 / 1260) / kp1sq) / kp1sq) / (k + T(1));
  auto const index = lax::convert_element_type<std::int32_t>(Array<T>(numpy::floor(k)));
  return numpy::where(use_tail_values, numpy::take(table, index), approx);
}

/// JAX's _binomial_inversion: count geometric gaps until they pass n.
template <std::floating_point T>
Array<T> binomial_inversion(Array<std::uint32_t> const& key, Array<T> const& count, Array<T> const& prob) {
  using Carry = std::tuple<Array<T>, Array<T>, Array<std::uint32_t>>;
  auto const shape = prob.shape();
  Array<T> const log1minusprob = numpy::log1p(-prob);
  auto const body = [&](Carry const& c) {
    auto const& [num_geom, geom_sum, rng] = c;
    auto const [subkey, next] = split_in_two(rng);
    Array<T> const num_geom_out = numpy::where(geom_sum <= count, Array<T>(num_geom + T(1)), num_geom);
    auto const u = draw<T>(subkey, shape);
    Array<T> const geom = numpy::ceil(numpy::log(u) / log1minusprob);
    return Carry{num_geom_out, Array<T>(geom_sum + geom), next};
  };
  auto const cond = [&](Carry const& c) { return numpy::any(std::get<1>(c) <= count); };
  auto const out = lax::while_loop(cond, body, Carry{numpy::zeros<T>(shape), numpy::zeros<T>(shape), key});
  return std::get<0>(out) - T(1);
}

/// The log of BTRS's acceptance bound at k (JAX's `ub`).
template <std::floating_point T>
Array<T> btrs_bound(Array<T> const& k, Array<T> const& count, Array<T> const& m, Array<T> const& r) {
  return Array<T>((m + T(0.5)) * numpy::log((m + T(1)) / (r * (count - m + T(1)))) +
                  (count + T(1)) * numpy::log((count - m + T(1)) / (count - k + T(1))) +
                  (k + T(0.5)) * numpy::log(r * (count - k + T(1)) / (k + T(1)))) +
         stirling_approx_tail(m) + stirling_approx_tail(Array<T>(count - m)) - stirling_approx_tail(k) -
         stirling_approx_tail(Array<T>(count - k));
}

/// JAX's _btrs: Hormann's transformed rejection with squeeze.
template <std::floating_point T>
Array<T> binomial_btrs(Array<std::uint32_t> const& key, Array<T> const& count, Array<T> const& prob) {
  using Carry = std::tuple<Array<T>, Array<bool>, Array<std::uint32_t>>;
  auto const shape = prob.shape();
  Array<T> const stddev = numpy::sqrt(count * prob * (T(1) - prob));
  Array<T> const b = T(1.15) + T(2.53) * stddev;
  Array<T> const a = T(-0.0873) + T(0.0248) * b + T(0.01) * prob;
  Array<T> const c = count * prob + T(0.5);
  Array<T> const v_r = T(0.92) - T(4.2) / b;
  Array<T> const r = prob / (T(1) - prob);
  Array<T> const alpha = (T(2.83) + T(5.1) / b) * stddev;
  Array<T> const m = numpy::floor((count + T(1)) * prob);
  auto const body = [&](Carry const& carry) {
    auto const& [k_out, accepted, rng] = carry;
    auto const [next, subkey_0, subkey_1] = split_in_three(rng);
    Array<T> const u = draw<T>(subkey_0, shape) - T(0.5);
    auto const v = draw<T>(subkey_1, shape);
    Array<T> const us = T(0.5) - numpy::abs(u);
    Array<bool> const accept1 = (us >= T(0.07)) & (v <= v_r);
    Array<T> const k = numpy::floor((T(2) * a / us + b) * u + c);
    Array<bool> const reject = (k < T(0)) | (k > count);
    Array<T> const log_v = numpy::log(v * alpha / (a / (us * us) + b));
    Array<bool> const accept = accept1 | (numpy::logical_not(reject) & (log_v <= btrs_bound(k, count, m, r)));
    return Carry{numpy::where(accept, k, k_out), Array<bool>(accepted | accept), next};
  };
  auto const cond = [](Carry const& carry) { return numpy::any(numpy::logical_not(std::get<1>(carry))); };
  auto const out = lax::while_loop(cond, body, Carry{numpy::full<T>(shape, T(-1)), numpy::zeros<bool>(shape), key});
  return std::get<0>(out);
}

/// sampler(key, param, param2) where some element takes that branch, else
/// zeros: the elements that do not take it get the other branch's values
/// from the select after it, so skipping a branch that no element takes
/// (JAX runs both) leaves every count as JAX's. Under vmap the predicate is
/// batched and both branches run.
template <class Sampler, class P, class... Q>
auto if_taken(Array<bool> const& taken, Sampler const& sampler, Array<std::uint32_t> const& key, P const& param,
              Q const&... more) {
  using R = decltype(sampler(key, param, more...));
  return lax::cond(
      numpy::any(taken), [&](Array<std::uint32_t> const& k, P const& p, Q const&... q) { return sampler(k, p, q...); },
      [](Array<std::uint32_t> const&, P const& p, Q const&...) { return numpy::zeros<value_type_t<R>>(p.shape()); },
      key, param, more...);
}

}  // namespace detail

/// jax.random.poisson: Poisson(lam) counts, int32 unless I says otherwise;
/// lam (a scalar or an array) broadcasts to `shape` (default: lam's shape).
template <std::signed_integral I = std::int32_t, Key K, detail::Bound L>
  requires Element<I>
Array<I> poisson(K const& key, L const& lam_in, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("poisson", key);
  auto lam = detail::param_as<float>(lam_in);
  auto const out_shape = shape.value_or(lam.shape());
  lam = numpy::broadcast_to(lam, out_shape);
  Array<bool> const use_knuth = numpy::isnan(lam) | (lam < 10.f);
  Array<float> const lam_knuth = numpy::where(use_knuth, lam, 0.f);
  Array<float> const lam_rejection = numpy::where(use_knuth, 1e5f, lam);
  auto const knuth = [](Array<std::uint32_t> const& kk, Array<float> const& l) { return detail::poisson_knuth<I>(kk, l); };
  auto const rejection = [](Array<std::uint32_t> const& kk, Array<float> const& l) {
    return detail::poisson_rejection<I>(kk, l);
  };
  Array<I> const result = numpy::where(use_knuth, detail::if_taken(use_knuth, knuth, k, lam_knuth),
                                       detail::if_taken(numpy::logical_not(use_knuth), rejection, k, lam_rejection));
  return numpy::where(lam == 0.f, I(0), result);
}

/// jax.random.binomial: Binomial(n, p) counts as floats (float32 unless T
/// says otherwise); nan where n is nan or negative or p is nan or outside
/// [0, 1], inf where n is inf.
template <Element T = float, Key K, detail::Bound N, detail::Bound P>
  requires std::floating_point<T>
Array<T> binomial(K const& key, N const& n, P const& p, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("binomial", key);
  auto count = detail::param_as<T>(n);
  auto prob = detail::param_as<T>(p);
  auto const out_shape = detail::sampler_shape("binomial", shape, {count.shape(), prob.shape()});
  count = numpy::broadcast_to(count, out_shape);
  prob = numpy::broadcast_to(prob, out_shape);
  Array<bool> const p_lt_half = prob < T(0.5);
  Array<T> q = numpy::where(p_lt_half, prob, Array<T>(T(1) - prob));
  Array<bool> const count_nan_or_neg = numpy::isnan(count) | (count < T(0));
  Array<bool> const count_inf = numpy::isinf(count);
  Array<bool> const q_is_nan = numpy::isnan(q);
  Array<bool> const q_l_0 = q < T(0);
  q = numpy::where(q_is_nan | q_l_0, T(0.01), q);
  Array<bool> const use_inversion = count_nan_or_neg | (count * q <= T(10));
  count = numpy::floor(count);
  Array<T> const count_inv = numpy::where(use_inversion, count, T(0));
  Array<T> const count_btrs = numpy::where(use_inversion, T(1e4), count);
  Array<T> const q_btrs = numpy::where(use_inversion, T(0.5), q);
  auto const inversion = [](Array<std::uint32_t> const& kk, Array<T> const& c, Array<T> const& pr) {
    return detail::binomial_inversion(kk, c, pr);
  };
  auto const btrs = [](Array<std::uint32_t> const& kk, Array<T> const& c, Array<T> const& pr) {
    return detail::binomial_btrs(kk, c, pr);
  };
  Array<T> samples = numpy::where(use_inversion, detail::if_taken(use_inversion, inversion, k, count_inv, q),
                                  detail::if_taken(numpy::logical_not(use_inversion), btrs, k, count_btrs, q_btrs));
  Array<bool> const invalid = q_l_0 | q_is_nan | count_nan_or_neg;
  samples = numpy::where(invalid, std::numeric_limits<T>::quiet_NaN(), samples);
  samples = numpy::where(count_inf & numpy::logical_not(invalid), std::numeric_limits<T>::infinity(), samples);
  return numpy::where(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples, Array<T>(count - samples));
}

/// jax.random.multinomial: counts per category (the last axis of p) of n
/// trials, as floats; a binomial per category on what the ones before left.
/// `shape` is the result's whole shape (p's by default), as JAX reads it.
template <Element T = float, Key K, detail::Bound N, ArrayLike P>
  requires std::floating_point<T>
Array<T> multinomial(K const& key, N const& n_in, P const& p_in, OptionalShape const& shape = {}) {
  using F = float_t<value_type_t<P>>;
  auto const& k = detail::single_key("multinomial", key);
  auto p = detail::param_as<F>(p_in);
  auto const out_shape = shape.value_or(p.shape());
  if (out_shape.empty()) throw Error("axis -1 is out of bounds for array of dimension 0");
  auto const n = numpy::broadcast_to(detail::param_as<F>(n_in), Shape(out_shape.begin(), out_shape.end() - 1));
  p = numpy::moveaxis(numpy::broadcast_to(p, out_shape), -1, 0);
  Array<F> const remaining_probs = lax::cumsum(p, 0, true);
  Array<F> const ratios = p / numpy::where(remaining_probs == F(0), F(1), remaining_probs);
  auto const keys = jaxcc::detail::bind<primitives::random_split_p>({Shape{ratios.shape()[0]}}, k);
  auto const step = [](Array<F> const& remainder, std::tuple<Array<F>, Array<std::uint32_t>> const& ratio_key) {
    auto const& [ratio, step_key] = ratio_key;
    auto const count = binomial<F>(step_key, remainder, numpy::clip(ratio, F(0), F(1)));
    return std::pair{Array<F>(remainder - count), count};
  };
  auto const [remainder, counts] = lax::scan(step, n, std::tuple{ratios, keys});
  return lax::convert_element_type<T>(numpy::moveaxis(counts, 0, -1));
}

}  // namespace jaxcc::random
