// jax.random's samplers, each as JAX writes it on top of the same bits, so a
// key gives the numbers JAX gives: bits, uniform and randint bit for bit,
// normal to the ulp of its erf_inv. Every sampler takes a single key (shape
// ()); vmap over a batch of keys for more. The draws depend on the key alone,
// so under grad they are constants.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/lax/complex.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/random_bits.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/random/key.hpp"

namespace jaxcc::random {

namespace detail {

/// A draw of `shape`: uint32 bits, or uniform floats in [0, 1) (JAX's `floats` inside `uniform`).
template <Element T>
Array<T> draw(Array<std::uint32_t> const& key, Shape const& shape) {
  return jaxcc::detail::bind<primitives::random_bits_p<T>>({shape}, key);
}

/// A scalar bound as T, or an array bound converted to T.
template <Element T, class B>
auto bound_as(B const& b) {
  if constexpr (Scalar<B>) return static_cast<T>(b);
  else return Array<T>(fusion::cast<T>(b));
}

/// The two keys of split(key) (counters 0 and 1), as key data. (A template,
/// so that the primitives it binds are compiled only where it is called.)
template <class = void>
std::pair<Array<std::uint32_t>, Array<std::uint32_t>> split_in_two(Array<std::uint32_t> const& key) {
  auto const keys = jaxcc::detail::bind<primitives::random_split_p>({Shape{2}}, key);
  auto row = [&](std::int64_t i) { return lax::reshape(lax::slice(keys, {i, 0}, {i + 1, 2}), Shape{2}); };
  return {row(0), row(1)};
}

template <class T>
concept Bound = Scalar<T> || ArrayLike<T>;

}  // namespace detail

/// jax.random.bits: uniform uint32 words.
template <Key K>
Array<std::uint32_t> bits(K const& key, Shape const& shape = {}) {
  return jaxcc::detail::bind<primitives::random_bits_p<std::uint32_t>>({shape},
                                                                       detail::single_key("bits", key));
}

/// jax.random.uniform: floats in [minval, maxval); float32 unless T says
/// otherwise. Scalar bounds are applied inside the draw's own pass.
template <Element T = float, Key K, detail::Bound Lo = T, detail::Bound Hi = T>
  requires std::floating_point<T>
Array<T> uniform(K const& key, Shape const& shape = {}, Lo const& minval = Lo(0), Hi const& maxval = Hi(1)) {
  auto const& k = detail::single_key("uniform", key);
  auto const lo = detail::bound_as<T>(minval);
  auto const hi = detail::bound_as<T>(maxval);
  if constexpr (Scalar<Lo> && Scalar<Hi>) {
    return jaxcc::detail::bind<primitives::random_bits_p<T>>({shape, lo, T(hi - lo)}, k);
  } else {
    auto const span = hi - lo;
    auto const scaled = fusion::make_expr<primitives::fma_p>(detail::draw<T>(k, shape),
                                                             jaxcc::detail::operand_as<T>(span),
                                                             jaxcc::detail::operand_as<T>(lo));
    return numpy::maximum(lo, scaled);
  }
}

/// jax.random.normal: standard normal floats, sqrt(2) erf_inv(u) for u
/// uniform in (-1, 1).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> normal(K const& key, Shape const& shape = {}) {
  auto const& k = detail::single_key("normal", key);
  auto const lo = std::nextafter(T(-1), T(0));
  auto const u = uniform<T>(k, shape, lo, T(1));
  return T(1.4142135623730951) * lax::erf_inv(u);
}

/// jax.random.normal for complex dtypes, as JAX's: (re + i im) / sqrt(2),
/// re and im real normals (of the real dtype) from the two keys of split(key).
template <Element T, Key K>
  requires ComplexElement<T>
Array<T> normal(K const& key, Shape const& shape = {}) {
  using R = real_t<T>;
  auto const& k = detail::single_key("normal", key);
  auto const [key_re, key_im] = detail::split_in_two(k);
  auto const re = normal<R>(key_re, shape), im = normal<R>(key_im, shape);
  return Array<T>(lax::complex(re, im) / T(R(1.4142135623730951)));
}

/// jax.random.truncated_normal: normal floats in (lower, upper).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> truncated_normal(K const& key, double lower, double upper, Shape const& shape = {}) {
  auto const& k = detail::single_key("truncated_normal", key);
  T const sqrt2 = T(1.4142135623730951);
  T const lo = static_cast<T>(lower), hi = static_cast<T>(upper);
  auto const u = uniform<T>(k, shape, std::erf(lo / sqrt2), std::erf(hi / sqrt2));
  return numpy::clip(sqrt2 * lax::erf_inv(u), std::nextafter(lo, std::numeric_limits<T>::infinity()),
                     std::nextafter(hi, -std::numeric_limits<T>::infinity()));
}

/// jax.random.randint: integers in [minval, maxval), int32 unless T is
/// uint32; from two 32-bit draws per element reduced modulo the span, as JAX.
template <Element T = std::int32_t, Key K>
  requires std::same_as<T, std::int32_t> || std::same_as<T, std::uint32_t>
Array<T> randint(K const& key, Shape const& shape, std::int64_t minval, std::int64_t maxval) {
  auto const& k = detail::single_key("randint", key);
  constexpr auto t_min = static_cast<std::int64_t>(std::numeric_limits<T>::min());
  constexpr auto t_max = static_cast<std::int64_t>(std::numeric_limits<T>::max());
  bool const maxval_out_of_range = maxval > t_max;
  auto const lo = std::clamp(minval, t_min, t_max), hi = std::clamp(maxval, t_min, t_max);
  // All in uint32, wrapping as XLA's integers do.
  auto span = static_cast<std::uint32_t>(static_cast<std::uint32_t>(hi) - static_cast<std::uint32_t>(lo));
  if (hi <= lo) span = 1;
  if (maxval_out_of_range && hi > lo) span += 1;
  auto const rem = [span](std::uint32_t a) { return span == 0 ? a : a % span; };
  auto const multiplier = rem(static_cast<std::uint32_t>(rem(1u << 16) * rem(1u << 16)));
  auto const [k1, k2] = detail::split_in_two(k);
  auto const higher = detail::draw<std::uint32_t>(k1, shape);
  auto const lower = detail::draw<std::uint32_t>(k2, shape);
  auto const offset = numpy::fmod(numpy::fmod(higher, span) * multiplier + numpy::fmod(lower, span), span);
  return lax::convert_element_type<T>(Array<std::uint32_t>(offset + static_cast<std::uint32_t>(lo)));
}

/// jax.random.bernoulli: true with probability p (a scalar, float32, or an
/// array of p's broadcasting to `shape`).
template <Key K>
Array<bool> bernoulli(K const& key, double p = 0.5, Shape const& shape = {}) {
  return uniform<float>(detail::single_key("bernoulli", key), shape) < static_cast<float>(p);
}
template <Key K, ArrayLike P>
  requires std::floating_point<value_type_t<P>>
Array<bool> bernoulli(K const& key, P const& p, OptionalShape const& shape = {}) {
  using T = value_type_t<P>;
  Array<T> const probs = p;
  return uniform<T>(detail::single_key("bernoulli", key), shape.value_or(probs.shape())) < probs;
}

/// jax.random.exponential: -log1p(-u).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> exponential(K const& key, Shape const& shape = {}) {
  auto const u = uniform<T>(detail::single_key("exponential", key), shape);
  return -numpy::log1p(-u);
}

/// jax.random.gumbel (mode "low", JAX's default): -log(-log(u)), u in [tiny, 1).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> gumbel(K const& key, Shape const& shape = {}) {
  auto const u = uniform<T>(detail::single_key("gumbel", key), shape, std::numeric_limits<T>::min(), T(1));
  return -numpy::log(-numpy::log(u));
}

/// jax.random.categorical: indices drawn from softmax(logits) along `axis`,
/// by the Gumbel-max trick; `shape` (default: logits' shape without `axis`)
/// may add leading dimensions.
template <Key K, ArrayLike L>
  requires std::floating_point<value_type_t<L>>
Array<std::int32_t> categorical(K const& key, L const& logits_in, std::int64_t axis = -1,
                                OptionalShape const& shape = {}) {
  using T = value_type_t<L>;
  Array<T> const logits = logits_in;
  auto const rank = logits.ndim();
  if (axis < -rank || axis >= rank) {
    std::ostringstream os;
    os << "categorical: axis " << axis << " is out of bounds for logits of shape " << logits.shape();
    throw Error(os.str());
  }
  if (axis < 0) axis += rank;
  Shape batch_shape = logits.shape();
  batch_shape.erase(batch_shape.begin() + axis);
  auto const out_shape = shape.value_or(batch_shape);
  auto const n_batch = static_cast<std::int64_t>(batch_shape.size());
  auto const n_prefix = static_cast<std::int64_t>(out_shape.size()) - n_batch;
  if (n_prefix < 0 || !std::equal(batch_shape.begin(), batch_shape.end(), out_shape.end() - n_batch)) {
    std::ostringstream os;
    os << "categorical parameter shapes must be broadcast-compatible with shape argument, and the result of "
          "broadcasting the shapes must equal the shape argument, but got result "
       << batch_shape << " for shape argument " << out_shape << ".";
    throw Error(os.str());
  }
  Shape noise_shape(out_shape.begin(), out_shape.begin() + n_prefix);
  noise_shape.insert(noise_shape.end(), logits.shape().begin(), logits.shape().end());
  Shape expanded(static_cast<std::size_t>(n_prefix), 1);
  expanded.insert(expanded.end(), logits.shape().begin(), logits.shape().end());
  auto const noise = gumbel<T>(detail::single_key("categorical", key), noise_shape);
  return numpy::argmax(noise + lax::reshape(logits, expanded), n_prefix + axis);
}

/// jax.random.permutation(key, n): 0, 1, ..., n - 1 shuffled (int32).
template <Key K, std::integral N>
Array<std::int32_t> permutation(K const& key, N n) {
  return jaxcc::detail::bind<primitives::random_permutation_p>({static_cast<std::int64_t>(n)},
                                                               detail::single_key("permutation", key));
}
/// permutation(key, x, axis): x with its slices along `axis` shuffled.
template <Key K, ArrayLike A>
Array<value_type_t<A>> permutation(K const& key, A const& x, std::int64_t axis = 0) {
  Array<value_type_t<A>> const a = x;
  if (a.ndim() == 0) throw Error("x must be an integer or at least 1-dimensional");
  if (axis < -a.ndim() || axis >= a.ndim()) {
    std::ostringstream os;
    os << "permutation: axis " << axis << " is out of bounds for array of dimension " << a.ndim();
    throw Error(os.str());
  }
  if (axis < 0) axis += a.ndim();
  return numpy::take(a, permutation(key, a.shape()[static_cast<std::size_t>(axis)]), axis);
}

/// jax.random.choice without weights: `shape` draws from 0, ..., n - 1 (or
/// from the slices of `a` along `axis`), with or without replacement.
template <Key K, ArrayLike A>
Array<value_type_t<A>> choice(K const& key, A const& a_in, Shape const& shape = {}, bool replace = true,
                              std::int64_t axis = 0) {
  Array<value_type_t<A>> const a = a_in;
  if (a.ndim() == 0) throw Error("choice: a must be an integer or at least 1-dimensional");
  if (axis < 0) axis += a.ndim();
  auto const n_inputs = a.shape()[static_cast<std::size_t>(axis)];
  auto const n_draws = shape.numel();
  if (n_draws == 0) return numpy::zeros<value_type_t<A>>(shape);  // JAX's shape: `shape`, whatever `a`'s
  if (n_inputs <= 0) throw Error("a must be greater than 0 unless no samples are taken");
  if (!replace && n_draws > n_inputs) {
    std::ostringstream os;
    os << "Cannot take a larger sample (size " << n_draws << ") than population (size " << n_inputs
       << ") when 'replace=False'";
    throw Error(os.str());
  }
  Shape out_shape(a.shape().begin(), a.shape().begin() + axis);
  out_shape.insert(out_shape.end(), shape.begin(), shape.end());
  out_shape.insert(out_shape.end(), a.shape().begin() + axis + 1, a.shape().end());
  auto const& k = detail::single_key("choice", key);
  Array<value_type_t<A>> picked;
  if (replace) {
    picked = numpy::take(a, randint(k, Shape{n_draws}, 0, n_inputs), axis);
  } else {
    auto const shuffled = permutation(k, a, axis);
    Axes start(static_cast<std::size_t>(a.ndim()), 0), limit(a.shape().begin(), a.shape().end());
    limit[static_cast<std::size_t>(axis)] = n_draws;
    picked = lax::slice(shuffled, start, limit);
  }
  return lax::reshape(picked, out_shape);
}
/// choice(key, n, shape, replace): draws from 0, ..., n - 1 (int32).
template <Key K, std::integral N>
Array<std::int32_t> choice(K const& key, N n, Shape const& shape = {}, bool replace = true) {
  auto const& k = detail::single_key("choice", key);
  if (n <= 0 && shape.numel() > 0) throw Error("a must be greater than 0 unless no samples are taken");
  if (replace) return randint(k, shape, 0, static_cast<std::int64_t>(n));
  return choice(k, numpy::arange<std::int32_t>(static_cast<std::int64_t>(n)), shape, false);
}

}  // namespace jaxcc::random
