// jax.random's matrix samplers: multivariate_normal (the mean plus a factor
// of the covariance times standard normals, the factor from cholesky, eigh
// or svd as JAX computes it) and orthogonal (the Q of a QR decomposition of
// normals, its columns' signs fixed by R's diagonal). Both are compositions
// of jnp.linalg functions, so multivariate_normal is differentiable in its
// mean and covariance, and both batch under vmap.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string_view>

#include "jaxcc/core/array.hpp"
#include "jaxcc/lax/shape_ops.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/linalg.hpp"
#include "jaxcc/numpy/linalg_array_api.hpp"
#include "jaxcc/numpy/linalg_decompositions.hpp"
#include "jaxcc/primitives/dot_general.hpp"
#include "jaxcc/random/distributions.hpp"
#include "jaxcc/random/key.hpp"
#include "jaxcc/random/univariate.hpp"

namespace jaxcc::random {

namespace detail {

/// The factor A of cov = A·Aᵀ that multivariate_normal's `method` names.
template <Element T>
Array<T> covariance_factor(Array<T> const& cov, std::string_view method) {
  if (method == "svd") {
    auto const [u, s, vh] = numpy::linalg::svd(cov);
    return u * numpy::expand_dims(numpy::sqrt(s), -2);
  }
  if (method == "eigh") {
    auto const [w, v] = numpy::linalg::eigh(cov);
    return v * numpy::expand_dims(numpy::sqrt(w), -2);
  }
  return numpy::linalg::cholesky(cov);
}

/// JAX's checks of multivariate_normal's mean and cov.
inline void check_mean_and_cov(Shape const& mean, Shape const& cov) {
  std::ostringstream os;
  if (mean.empty()) {
    os << "multivariate_normal requires mean.ndim >= 1, got mean.ndim == 0";
  } else if (cov.size() < 2) {
    os << "multivariate_normal requires cov.ndim >= 2, got cov.ndim == " << cov.size();
  } else if (auto const n = mean.back(); cov[cov.size() - 2] != n || cov.back() != n) {
    os << "multivariate_normal requires cov.shape == (..., n, n) for n=" << n << ", but got cov.shape == " << cov
       << ".";
  } else {
    return;
  }
  throw Error(os.str());
}

}  // namespace detail

/// jax.random.multivariate_normal: draws of mean + A·z for z standard
/// normal and A the factor of cov from `method` ("cholesky", the default;
/// "eigh" or "svd" for singular covariances). mean (..., n) and cov (..., n,
/// n) broadcast their batch shapes; `shape` (default: that broadcast) is the
/// result's without its last axis n. Float32 unless mean or cov is float64.
template <Key K, ArrayLike M, ArrayLike C>
Array<float_t<promote_t<value_type_t<M>, value_type_t<C>>>> multivariate_normal(K const& key, M const& mean_in,
                                                                                 C const& cov_in,
                                                                                 OptionalShape const& shape = {},
                                                                                 std::string_view method = "cholesky") {
  using T = float_t<promote_t<value_type_t<M>, value_type_t<C>>>;
  auto const& k = detail::single_key("multivariate_normal", key);
  if (method != "svd" && method != "eigh" && method != "cholesky")
    throw Error("method must be one of {'svd', 'eigh', 'cholesky'}");
  Array<T> const mean = jaxcc::detail::array_as<T>(mean_in);
  Array<T> const cov = jaxcc::detail::array_as<T>(cov_in);
  detail::check_mean_and_cov(mean.shape(), cov.shape());
  auto const n = mean.shape().back();
  Shape const mean_batch(mean.shape().begin(), mean.shape().end() - 1);
  Shape const cov_batch(cov.shape().begin(), cov.shape().end() - 2);
  Shape out_shape;
  if (shape) {
    detail::check_shape("normal", *shape, {mean_batch, cov_batch});  // JAX's name for this check
    out_shape = *shape;
  } else {
    out_shape = lax::broadcast_shapes(mean_batch, cov_batch);
  }
  auto const factor = detail::covariance_factor(cov, method);
  auto z_shape = out_shape;
  z_shape.push_back(n);
  Array<T> const z = normal<T>(k, z_shape);
  // einsum('...ij,...j->...i', factor, z): one matrix product when the
  // factor is a single matrix, else a batched one over the broadcast batch.
  if (factor.ndim() == 2) return mean + lax::dot_general(z, factor, {{z.ndim() - 1}, {1}});
  return mean + numpy::squeeze(numpy::matmul(factor, numpy::expand_dims(z, -1)), -1);
}

/// jax.random.orthogonal: a matrix drawn uniformly from the orthogonal
/// group O(n), or with `m` columns (default n) a semi-orthogonal n × m
/// matrix (orthonormal rows if n <= m, columns if m <= n); `shape` adds
/// batch dimensions: the result is (*shape, n, m).
template <Element T = float, Key K>
  requires std::floating_point<T>
Array<T> orthogonal(K const& key, std::int64_t n, Shape const& shape = {}, std::optional<std::int64_t> m = std::nullopt) {
  auto const& k = detail::single_key("orthogonal", key);
  auto const cols = m.value_or(n);
  Shape z_shape = shape;
  z_shape.push_back(std::max(n, cols));
  z_shape.push_back(std::min(n, cols));
  auto const [q, r] = numpy::linalg::qr(normal<T>(k, z_shape));
  Array<T> const x = q * numpy::expand_dims(numpy::sign(numpy::linalg::diagonal(r)), -2);
  return n < cols ? numpy::matrix_transpose(x) : x;
}

}  // namespace jaxcc::random
