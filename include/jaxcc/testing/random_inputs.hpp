// Reproducible random test inputs: rand_normal, rand_uniform and rand_like,
// and the edge shapes every op should meet (edge_shapes, edge_inputs). Each
// is one draw of jaxcc::random from the key jaxcc::random::key(seed),
// so a seed gives the same values on every run and machine, and the values
// jax.random gives for jax.random.key(seed) (docs/random.md: uniform bit for
// bit, normal to a few ulp; float64 draws are JAX's with jax_enable_x64).
// A test can thus draw its inputs here and compare with JAX's outputs for
// the same key.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/random.hpp"

namespace jaxcc::testing {

/// Standard normal values: jax.random.normal(jax.random.key(seed), shape, T).
template <std::floating_point T = float>
Array<T> rand_normal(Shape const& shape, std::uint32_t seed = 0) {
  return random::normal<T>(random::key(seed), shape);
}

/// Values uniform in [lo, hi): jax.random.uniform(jax.random.key(seed),
/// shape, T, lo, hi).
template <std::floating_point T = float>
Array<T> rand_uniform(Shape const& shape, std::uint32_t seed = 0, double lo = 0, double hi = 1) {
  return random::uniform<T>(random::key(seed), shape, static_cast<T>(lo), static_cast<T>(hi));
}

namespace detail {
/// rand_like's draw of dtype T at `shape`.
template <Element T>
Array<T> rand_of(Shape const& shape, std::uint32_t seed) {
  auto const key = random::key(seed);
  if constexpr (std::floating_point<T>) return random::normal<T>(key, shape);
  else if constexpr (FloatElement<T>) return random::normal<float>(key, shape).template astype<T>();
  else if constexpr (std::same_as<T, bool>) return random::bernoulli(key, 0.5, shape);
  else if constexpr (std::is_unsigned_v<T>) return random::randint<std::uint32_t>(key, shape, 0, 16).template astype<T>();
  else return random::randint<std::int32_t>(key, shape, -8, 8).template astype<T>();
}
}  // namespace detail

/// Random values of `like`'s shape and dtype: floats standard normal (as
/// rand_normal); integers uniform in [-8, 8), or [0, 16) when unsigned
/// (jax.random.randint); bools true with probability 1/2 (jax.random.bernoulli).
template <ArrayLike A>
Array<value_type_t<A>> rand_like(A const& like, std::uint32_t seed = 0) {
  return detail::rand_of<value_type_t<A>>(like.shape(), seed);
}

/// The edge shapes of `shape`: the 0-d shape, then `shape` with each axis
/// made empty in turn ((3, 4) gives (), (0, 4) and (3, 0)). Kernels that
/// walk lanes or rows, and shape rules that take an axis, go wrong there.
inline std::vector<Shape> edge_shapes(Shape const& shape) {
  std::vector<Shape> out{Shape{}};
  for (std::size_t d = 0; d < shape.size(); ++d) {
    out.push_back(shape);
    out.back()[d] = 0;
  }
  return out;
}

/// rand_like at each of edge_shapes(like's shape): a 0-d and each 0-size
/// variant of `like`, of its dtype.
template <ArrayLike A>
std::vector<Array<value_type_t<A>>> edge_inputs(A const& like, std::uint32_t seed = 0) {
  std::vector<Array<value_type_t<A>>> out;
  for (auto const& shape : edge_shapes(like.shape())) out.push_back(detail::rand_of<value_type_t<A>>(shape, seed));
  return out;
}

}  // namespace jaxcc::testing
