// random_gamma_p: JAX's primitive behind jax.random.gamma and loggamma.
// Operands: key data of shape (*B, 2) and the shape parameters `a` of shape
// (*B, *S) (B: a batch of keys, leading; S: the draw's shape per key). Each
// key is split into prod(S) keys and each element of `a` gets one; an
// element is JAX's `_gamma_one`: Marsaglia and Tsang's rejection loop, its
// keys split as JAX splits them, with the boost U^(1/a) for a < 1 (in log
// space for loggamma). The kernel runs that scalar loop per element, the
// draws made from the same threefry counters JAX's vmapped while loops read,
// so a key gives JAX's numbers.
//
// Its derivative in `a` is JAX's implicit reparameterization: the tangent
// times random_gamma_grad(a, sample) (for loggamma divided by the sample,
// exp(log sample) floored at the smallest normal). Batching moves the mapped
// axes of both operands to the front, as JAX's rule does.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/fusion/elementwise_special.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/primitives/random_bits.hpp"

namespace jaxcc::detail {

/// One threefry2x32 key as two words.
struct ScalarKey {
  std::uint32_t k0, k1;
};

/// split(key, n)[i]: the key's hash of the counter i.
inline ScalarKey split_key(ScalarKey key, std::uint32_t i) {
  auto const [a, b] = threefry2x32(key.k0, key.k1, 0u, i);
  return {a, b};
}

/// uniform(key, ()): the draw at counter 0, in [0, 1).
template <std::floating_point T>
T uniform_scalar(ScalarKey key) {
  auto const [y0, y1] = threefry2x32(key.k0, key.k1, 0u, 0u);
  return random_word<T>(y0, y1);
}

/// normal(key, ()): sqrt(2) erf_inv(u), u uniform in (-1, 1) as JAX draws it.
template <std::floating_point T>
T normal_scalar(ScalarKey key) {
  T const lo = std::nextafter(T(-1), T(0));
  T const span = T(1) - lo;
  T const u = std::max(lo, std::fma(uniform_scalar<T>(key), span, lo));
  return T(1.4142135623730951) * primitives::erf_inv_p::scalar(u);
}

/// JAX's _gamma_one(key, alpha, log_space) for one element.
template <std::floating_point T>
T gamma_one(ScalarKey key, T alpha, bool log_space) {
  T const one = 1, third = T(1. / 3.), squeeze = T(0.0331);
  bool const boost_mask = alpha >= one;
  T const alpha_orig = alpha;
  if (!boost_mask) alpha = alpha + one;
  T const d = alpha - third;
  T const c = third / std::sqrt(d);
  auto const subkey = split_key(key, 1);
  key = split_key(key, 0);
  T X = 0, V = 1, U = 2;  // chosen so that the condition holds first
  auto const again = [&] {
    bool const first = U >= one - squeeze * (X * X);
    bool const second = std::log(U) >= X * T(0.5) + d * ((one - V) + std::log(V));
    return first && second;
  };
  while (again()) {
    auto x_key = split_key(key, 1);
    auto const u_key = split_key(key, 2);
    key = split_key(key, 0);
    T x = 0, v = -1;
    while (v <= T(0)) {
      auto const sub = split_key(x_key, 1);
      x_key = split_key(x_key, 0);
      x = normal_scalar<T>(sub);
      v = one + x * c;
    }
    X = x * x;
    V = v * v * v;
    U = uniform_scalar<T>(u_key);
  }
  if (log_space) {
    T const log_samples = std::log1p(-uniform_scalar<T>(subkey));  // -exponential(subkey)
    T const log_boost = (boost_mask || log_samples == T(0)) ? T(0) : log_samples * (one / alpha_orig);
    return (std::log(d) + std::log(V)) + log_boost;
  }
  T const samples = one - uniform_scalar<T>(subkey);
  T const boost = boost_mask ? one : std::pow(samples, one / alpha_orig);
  return (d * V) * boost;
}

/// random_gamma's parameter: whether it samples log(Gamma(a)) (loggamma).
struct GammaParams {
  bool log_space = false;
  friend bool operator==(GammaParams const&, GammaParams const&) = default;
};

/// d sample / d a: random_gamma_grad(a, sample), or for a log-space sample
/// random_gamma_grad(a, s) / s with s = exp(sample) floored at tiny.
template <std::floating_point T>
Array<T> gamma_sample_grad(Array<T> const& sample, Array<T> const& a, bool log_space) {
  if (!log_space) return fusion::make_expr<primitives::random_gamma_grad_p>(a, sample);
  Array<T> const exp = fusion::make_expr<primitives::exp_p>(sample);
  Array<T> const s = fusion::make_expr<primitives::select_p>(exp == T(0), fusion::ScalarLeaf<T>{std::numeric_limits<T>::min()}, exp);
  return fusion::make_expr<primitives::random_gamma_grad_p>(a, s) / s;
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

/// Gamma(a) samples (or their logs) for each element of `a`, from the keys
/// in front of it.
template <std::floating_point T>
struct random_gamma_p {
  using Params = detail::GammaParams;
  static constexpr std::string_view name = "random_gamma";

  static Shape shape_rule(Params const&, Array<std::uint32_t> const& keys, Array<T> const& a) {
    auto const batch = detail::key_batch_shape(name, keys.shape());
    if (batch.size() > a.shape().size() || !std::equal(batch.begin(), batch.end(), a.shape().begin())) {
      std::ostringstream os;
      os << name << ": the keys' shape " << batch << " must lead the shape of a " << a.shape();
      throw Error(os.str());
    }
    return a.shape();
  }
  static std::string params_string(Params const& p) { return p.log_space ? "log_space=True" : "log_space=False"; }

  static Array<T> impl(Params const& p, Shape out_shape, Array<std::uint32_t> const& keys, Array<T> const& a) {
    auto const key_data = detail::contiguous(keys);
    auto const alphas = detail::contiguous(a);
    auto [out, out_data] = detail::allocate<T>(std::move(out_shape));
    auto const n_keys = keys.size() / 2;
    auto const per_key = n_keys == 0 ? 0 : a.size() / n_keys;
    std::uint32_t const* k = key_data.data();
    T const* alpha = alphas.data();
    T* const dst = out_data;
    detail::parallel_chunks(a.size(), 64, [&](std::int64_t begin, std::int64_t end) {
      for (auto i = begin; i < end; ++i) {
        auto const b = i / per_key;
        detail::ScalarKey const key{k[2 * b], k[2 * b + 1]};
        auto const own = detail::split_key(key, static_cast<std::uint32_t>(i - b * per_key));
        dst[i] = detail::gamma_one<T>(own, alpha[i], p.log_space);
      }
    });
    return out;
  }

  static Array<T> jvp(Params const& p, Array<T> const& out, Array<std::uint32_t> const&, Array<T> const& a,
                      Array<std::uint32_t> const&, Array<T> const& da) {
    return da * detail::gamma_sample_grad(out, a, p.log_space);
  }
  static std::tuple<graph::NoCotangent, Array<T>> vjp(Params const& p, Array<T> const& ct, Array<T> const& out,
                                                      Array<std::uint32_t> const&, Array<T> const& a) {
    return {graph::NoCotangent{}, ct * detail::gamma_sample_grad(out, a, p.log_space)};
  }

  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims,
                                                    Array<std::uint32_t> const& keys, Array<T> const& a) {
    return {detail::bind<random_gamma_p>(p, detail::bdim_at_front(keys, dims[0], axis.size),
                                         detail::bdim_at_front(a, dims[1], axis.size)),
            0};
  }
};

}  // namespace jaxcc::primitives
