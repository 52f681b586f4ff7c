// jax.random's samplers, each as JAX writes it on top of the same bits, so a
// key gives the numbers JAX gives: bits, uniform and randint bit for bit,
// normal to the ulp of its erf_inv. Every sampler takes a single key (shape
// ()); vmap over a batch of keys for more. The draws depend on the key alone,
// so under grad they are constants.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/lax/complex.hpp"
#include "jaxcc/lax/shape_ops.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/lax/sorting.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/sorting.hpp"
#include "jaxcc/numpy/ufuncs.hpp"
#include "jaxcc/primitives/cumulative.hpp"
#include "jaxcc/primitives/sort.hpp"
#include "jaxcc/primitives/stop_gradient.hpp"
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

/// A parameter's shape: () for a C++ number.
template <Bound P>
Shape param_shape(P const& p) {
  if constexpr (Scalar<P>) return Shape{};
  else return p.shape();
}

/// A parameter as an array of T (0-d for a C++ number).
template <Element T, Bound P>
Array<T> param_array(P const& p) {
  if constexpr (Scalar<P>) return numpy::full<T>(Shape{}, static_cast<T>(p));
  else return Array<T>(fusion::cast<T>(p));
}

/// JAX's _check_shape: the parameters' shapes broadcast with `shape` to
/// `shape` itself.
inline void check_shape(std::string_view name, Shape const& shape, std::vector<Shape> const& params) {
  if (params.empty()) return;
  std::vector<Shape> all{shape};
  all.insert(all.end(), params.begin(), params.end());
  auto const result = lax::broadcast_shapes(all);
  if (result != shape) {
    std::ostringstream os;
    os << name
       << " parameter shapes must be broadcast-compatible with shape argument, and the result of "
          "broadcasting the shapes must equal the shape argument, but got result "
       << result << " for shape argument " << shape << ".";
    throw Error(os.str());
  }
}

/// JAX's _check_broadcast_shapes: `shape` checked against the parameters',
/// or, when it is None, their broadcast.
inline Shape sample_shape(std::string_view name, OptionalShape const& shape, std::vector<Shape> const& params) {
  if (!shape) return lax::broadcast_shapes(params);
  check_shape(name, *shape, params);
  return *shape;
}

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
/// uniform in (-1, 1), made in the draw's own pass (no array of u).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> normal(K const& key, Shape const& shape = {}) {
  auto const& k = detail::single_key("normal", key);
  auto const lo = std::nextafter(T(-1), T(0));
  // uniform(key, shape, lo, 1), then sqrt(2) erf_inv in the draw's own pass.
  return jaxcc::detail::bind<primitives::random_bits_p<T>>({shape, lo, T(T(1) - lo), {}, true}, k);
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

/// truncated_normal with array bounds (either or both): `shape` defaults
/// to the bounds' broadcast shape. Differentiable in the bounds (through
/// the uniform draw's range; the clip to the open interval is not).
template <Element T = float, Key K, detail::Bound Lo, detail::Bound Hi>
  requires std::floating_point<T> && (!Scalar<Lo> || !Scalar<Hi>)
Array<T> truncated_normal(K const& key, Lo const& lower, Hi const& upper, OptionalShape const& shape = {}) {
  auto const& k = detail::single_key("truncated_normal", key);
  auto const out_shape =
      detail::sample_shape("truncated_normal", shape, {detail::param_shape(lower), detail::param_shape(upper)});
  T const sqrt2 = T(1.4142135623730951);
  auto const lo = detail::param_array<T>(lower), hi = detail::param_array<T>(upper);
  Array<T> const a = lax::erf(lo / sqrt2), b = lax::erf(hi / sqrt2);
  Array<T> const u = uniform<T>(k, out_shape, a, b);
  T const inf = std::numeric_limits<T>::infinity();
  return numpy::clip(Array<T>(sqrt2 * lax::erf_inv(u)), numpy::nextafter(lax::stop_gradient(lo), inf),
                     numpy::nextafter(lax::stop_gradient(hi), -inf));
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

namespace detail {

/// A randint bound as T, clipped to T's range and to its own type's (JAX's
/// _convert_and_clip_integer), and whether it lies above T's largest value.
template <Element T, Bound B>
std::pair<Array<T>, Array<bool>> randint_bound(B const& b) {
  if constexpr (Scalar<B>) {
    auto const v = static_cast<std::int64_t>(b);
    constexpr auto t_min = static_cast<std::int64_t>(std::numeric_limits<T>::min());
    constexpr auto t_max = static_cast<std::int64_t>(std::numeric_limits<T>::max());
    return {numpy::full<T>(Shape{}, static_cast<T>(std::clamp(v, t_min, t_max))), numpy::full<bool>(Shape{}, v > t_max)};
  } else {
    using V = value_type_t<B>;
    Array<V> const x = b;
    auto const lo = static_cast<V>(std::max<std::int64_t>(std::numeric_limits<T>::min(), std::numeric_limits<V>::min()));
    auto const hi = static_cast<V>(std::min<std::uint64_t>(std::numeric_limits<T>::max(), std::numeric_limits<V>::max()));
    return {lax::convert_element_type<T>(Array<V>(numpy::clip(x, lo, hi))), x > hi};
  }
}

/// lax.rem on uint32 as XLA computes it: x where the divisor is 0.
inline Array<std::uint32_t> rem_or_self(Array<std::uint32_t> const& x, Array<std::uint32_t> const& span) {
  Array<std::uint32_t> const safe = numpy::where(span == 0u, 1u, span);
  return numpy::where(span == 0u, x, Array<std::uint32_t>(lax::rem(x, safe)));
}

}  // namespace detail

/// randint with array bounds (either or both, integer arrays broadcasting
/// to `shape`): JAX's algorithm elementwise, bit for bit.
template <Element T = std::int32_t, Key K, detail::Bound Lo, detail::Bound Hi>
  requires(std::same_as<T, std::int32_t> || std::same_as<T, std::uint32_t>) && (!Scalar<Lo> || !Scalar<Hi>) &&
          (Scalar<Lo> || std::integral<value_type_t<Lo>>) && (Scalar<Hi> || std::integral<value_type_t<Hi>>)
Array<T> randint(K const& key, Shape const& shape, Lo const& minval, Hi const& maxval) {
  using U = std::uint32_t;
  auto const& k = detail::single_key("randint", key);
  detail::check_shape("randint", shape, {detail::param_shape(minval), detail::param_shape(maxval)});
  auto const [lo, lo_out_of_range] = detail::randint_bound<T>(minval);
  auto const [hi, maxval_out_of_range] = detail::randint_bound<T>(maxval);
  (void)lo_out_of_range;
  Array<U> const lo_u = lax::convert_element_type<U>(lo), hi_u = lax::convert_element_type<U>(hi);
  Array<U> span = hi_u - lo_u;  // wraps, as XLA's uint32
  span = numpy::where(hi <= lo, U{1}, span);
  span = numpy::where(numpy::logical_and(maxval_out_of_range, hi > lo), Array<U>(span + U{1}), span);
  Array<U> const m16 = detail::rem_or_self(numpy::full<U>(Shape{}, U{1} << 16), span);
  Array<U> const multiplier = detail::rem_or_self(Array<U>(m16 * m16), span);
  auto const [k1, k2] = detail::split_in_two(k);
  Array<U> const higher = detail::draw<U>(k1, shape), lower = detail::draw<U>(k2, shape);
  Array<U> const offset = detail::rem_or_self(
      Array<U>(detail::rem_or_self(higher, span) * multiplier + detail::rem_or_self(lower, span)), span);
  return lax::convert_element_type<T>(Array<U>(numpy::broadcast_to(lo_u, shape) + offset));
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

namespace detail {

/// categorical(replace=false): the Gumbel top-k trick, k the number of
/// draws per distribution (the product of `shape`'s leading dimensions).
template <Element T>
Array<std::int32_t> categorical_without_replacement(Array<std::uint32_t> const& key, Array<T> const& logits,
                                                    std::int64_t axis, Shape const& shape, std::int64_t n_prefix) {
  std::int64_t k = 1;
  for (std::int64_t i = 0; i < n_prefix; ++i) k *= shape[static_cast<std::size_t>(i)];
  auto const n = logits.shape()[static_cast<std::size_t>(axis)];
  if (k > n) {
    std::ostringstream os;
    os << "Number of samples without replacement (" << k << ") cannot exceed number of categories (" << n << ").";
    throw Error(os.str());
  }
  Array<T> const perturbed = logits + gumbel<T>(key, logits.shape());
  auto const indices = std::get<1>(lax::top_k(numpy::moveaxis(perturbed, axis, -1), k));  // (*batch, k)
  return lax::reshape(numpy::moveaxis(indices, -1, 0), shape);
}

}  // namespace detail

/// jax.random.categorical: indices drawn from softmax(logits) along `axis`,
/// by the Gumbel-max trick; `shape` (default: logits' shape without `axis`)
/// may add leading dimensions. With `replace` false, the draws along those
/// leading dimensions are distinct (the Gumbel top-k trick).
template <Key K, ArrayLike L>
  requires std::floating_point<value_type_t<L>>
Array<std::int32_t> categorical(K const& key, L const& logits_in, std::int64_t axis = -1,
                                OptionalShape const& shape = {}, bool replace = true) {
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
  if (!replace) return detail::categorical_without_replacement(detail::single_key("categorical", key), logits, axis,
                                                                out_shape, n_prefix);
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
namespace detail {

/// JAX's _shuffle: x sorted along `axis` by fresh random 32-bit keys, as
/// many rounds as make a collision of every key string unlikely for x's size.
template <Element T>
Array<T> shuffle(Array<std::uint32_t> key, Array<T> x, std::int64_t axis) {
  auto const rounds = primitives::random_permutation_p::rounds(x.shape().numel());
  for (int r = 0; r < rounds; ++r) {
    auto const [next, sub] = split_in_two(key);
    key = next;
    x = std::get<1>(lax::sort_key_val(draw<std::uint32_t>(sub, x.shape()), x, axis));
  }
  return x;
}

}  // namespace detail

/// permutation(key, x, axis, independent): x with its slices along `axis`
/// shuffled; with `independent`, each vector along `axis` shuffled on its own.
template <Key K, ArrayLike A>
Array<value_type_t<A>> permutation(K const& key, A const& x, std::int64_t axis = 0, bool independent = false) {
  Array<value_type_t<A>> const a = x;
  if (a.ndim() == 0) throw Error("x must be an integer or at least 1-dimensional");
  if (axis < -a.ndim() || axis >= a.ndim()) {
    std::ostringstream os;
    os << "permutation: axis " << axis << " is out of bounds for array of dimension " << a.ndim();
    throw Error(os.str());
  }
  if (axis < 0) axis += a.ndim();
  if (independent) return detail::shuffle(detail::single_key("permutation", key), a, axis);
  return numpy::take(a, permutation(key, a.shape()[static_cast<std::size_t>(axis)]), axis);
}

namespace detail {

/// choice's `p`: jaxcc::none (uniform) or an array of probabilities.
template <class P>
concept Probabilities = std::same_as<P, none_t> || ArrayLike<P>;

/// choice's indices drawn with probabilities p (n_inputs of them, any
/// positive scale): `shape` by inverting their cumulative sum (with
/// replacement), or shape.numel() distinct ones by the Gumbel top-k trick.
template <ArrayLike P>
Array<std::int32_t> weighted_indices(Array<std::uint32_t> const& key, P const& p_in, std::int64_t n_inputs,
                                     Shape const& shape, bool replace) {
  using F = float_t<value_type_t<P>>;
  Array<F> const p = jaxcc::detail::array_as<F>(p_in);
  if (p.shape() != Shape{n_inputs}) {
    std::ostringstream os;
    os << "p must be None or a 1D vector with the same size as a.shape[axis]. p has shape " << p.shape()
       << " and a.shape[axis] is " << n_inputs << ".";
    throw Error(os.str());
  }
  if (replace) {
    Array<F> const cumulative = lax::cumsum(p, 0);
    Array<F> const total = lax::reshape(lax::slice(cumulative, {n_inputs - 1}, {n_inputs}), Shape{});
    Array<F> const r = total * (F(1) - uniform<F>(key, shape));
    return numpy::searchsorted(cumulative, r);
  }
  Array<F> const g = gumbel<F>(key, Shape{n_inputs}) + numpy::log(p);
  return std::get<1>(lax::top_k(g, shape.numel()));
}

/// choice's checks of the number of draws against the population.
inline void check_choice(std::int64_t n_inputs, std::int64_t n_draws, bool replace) {
  if (n_inputs <= 0) throw Error("a must be greater than 0 unless no samples are taken");
  if (!replace && n_draws > n_inputs) {
    std::ostringstream os;
    os << "Cannot take a larger sample (size " << n_draws << ") than population (size " << n_inputs
       << ") when 'replace=False'";
    throw Error(os.str());
  }
}

}  // namespace detail

/// choice(key, n, shape, replace, p): draws from 0, ..., n - 1 (int32),
/// uniform or with probabilities p (an array of n; jaxcc::none for uniform).
/// `axis` is JAX's, and has no meaning for an integer population.
template <Key K, std::integral N, detail::Probabilities P = none_t>
Array<std::int32_t> choice(K const& key, N n, Shape const& shape = {}, bool replace = true, P const& p = none,
                           std::int64_t axis = 0) {
  (void)axis;
  auto const& k = detail::single_key("choice", key);
  auto const n_draws = shape.numel();
  if (n_draws == 0) return numpy::zeros<std::int32_t>(shape);
  detail::check_choice(static_cast<std::int64_t>(n), n_draws, replace);
  if constexpr (!std::same_as<P, none_t>) {
    return lax::reshape(detail::weighted_indices(k, p, static_cast<std::int64_t>(n), shape, replace), shape);
  } else {
    if (replace) return randint(k, shape, 0, static_cast<std::int64_t>(n));
    auto const shuffled = permutation(k, static_cast<std::int64_t>(n));
    return lax::reshape(lax::slice(shuffled, {0}, {n_draws}), shape);
  }
}

/// jax.random.choice: `shape` draws of the slices of `a` along `axis`, with
/// or without replacement, uniform or with probabilities p (one per slice).
/// A 0-d `a` is read as n, as JAX reads it (its value must be known, so
/// not a jit argument): the draws are then 0, ..., n - 1 in a's dtype.
template <Key K, ArrayLike A, detail::Probabilities P = none_t>
Array<value_type_t<A>> choice(K const& key, A const& a_in, Shape const& shape = {}, bool replace = true,
                              P const& p = none, std::int64_t axis = 0) {
  using V = value_type_t<A>;
  Array<V> const a = a_in;
  if (a.ndim() == 0) return lax::convert_element_type<V>(choice(key, static_cast<std::int64_t>(a.item()), shape, replace, p));
  if (axis < -a.ndim() || axis >= a.ndim()) {
    std::ostringstream os;
    os << "choice: axis " << axis << " is out of bounds for array of dimension " << a.ndim();
    throw Error(os.str());
  }
  if (axis < 0) axis += a.ndim();
  auto const n_inputs = a.shape()[static_cast<std::size_t>(axis)];
  auto const n_draws = shape.numel();
  if (n_draws == 0) return numpy::zeros<V>(shape);  // JAX's shape: `shape`, whatever `a`'s
  detail::check_choice(n_inputs, n_draws, replace);
  Shape out_shape(a.shape().begin(), a.shape().begin() + axis);
  out_shape.insert(out_shape.end(), shape.begin(), shape.end());
  out_shape.insert(out_shape.end(), a.shape().begin() + axis + 1, a.shape().end());
  auto const& k = detail::single_key("choice", key);
  Array<V> picked;
  if constexpr (!std::same_as<P, none_t>) {
    picked = numpy::take(a, numpy::ravel(detail::weighted_indices(k, p, n_inputs, shape, replace)), axis);
  } else if (replace) {
    picked = numpy::take(a, randint(k, Shape{n_draws}, 0, n_inputs), axis);
  } else {
    auto const shuffled = permutation(k, a, axis);
    Axes start(static_cast<std::size_t>(a.ndim()), 0), limit(a.shape().begin(), a.shape().end());
    limit[static_cast<std::size_t>(axis)] = n_draws;
    picked = lax::slice(shuffled, start, limit);
  }
  return lax::reshape(picked, out_shape);
}

}  // namespace jaxcc::random
