// jax.lax's parallel operators that JAX composes of the collectives
// (primitives/collectives.hpp): the size of a named axis, a shuffle by
// sources, the swap of a named axis with a positional one, and a
// broadcast from one index of the axis.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/graph/axis_env.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/lax/shape_ops.hpp"
#include "jaxcc/primitives/collectives.hpp"

namespace jaxcc::lax {

/// The size of the named axis (a vmap's or a mesh's inside shard_map); of
/// several, the product. JAX computes it as psum(1, axis_name): it is a
/// plain integer here, known while tracing.
inline std::int64_t axis_size(std::string const& axis_name) { return graph::find_axis(axis_name).size; }
inline std::int64_t axis_size(std::initializer_list<std::string> axis_names) {
  std::int64_t size = 1;
  for (auto const& name : axis_names) size *= axis_size(name);
  return size;
}

/// ppermute with the permutation given by sources: the element at index i
/// of the axis receives x from index perm[i]. Every index of [0, N) appears
/// once.
template <ArrayLike A>
Array<value_type_t<A>> pshuffle(A const& x, std::string const& axis_name, std::vector<std::int64_t> const& perm) {
  std::set<std::int64_t> const seen(perm.begin(), perm.end());
  bool const permutation = seen.size() == perm.size() && (perm.empty() || (*seen.begin() == 0 &&
                                                                           *seen.rbegin() == std::int64_t(perm.size()) - 1));
  if (!permutation) {
    std::string list;
    for (std::size_t i = 0; i < perm.size(); ++i) list += (i ? ", " : "") + std::to_string(perm[i]);
    throw Error("`perm` does not represent a permutation: [" + list + "]");
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  for (std::size_t i = 0; i < perm.size(); ++i) pairs.emplace_back(perm[i], std::int64_t(i));
  return ppermute(x, axis_name, std::move(pairs));
}

/// Swap the named axis with positional axis `axis` of x, whose size must
/// be the named axis's: all_to_all splitting and concatenating along it.
template <ArrayLike A>
Array<value_type_t<A>> pswapaxes(A const& x, std::string const& axis_name, std::int64_t axis) {
  return all_to_all(x, axis_name, axis, axis);
}

/// Every element of the named axis gets x of index `source`: JAX's
/// definition, where(axis_index == source, x, 0) summed over the axis.
template <ArrayLike A>
  requires(!std::same_as<value_type_t<A>, bool>)
Array<value_type_t<A>> pbroadcast(A const& x, std::string const& axis_name, std::int64_t source) {
  using T = value_type_t<A>;
  auto const size = axis_size(axis_name);
  if (source < 0 || source >= size)
    throw Error("pbroadcast: source " + std::to_string(source) + " is not an index of axis '" + axis_name +
                "' of size " + std::to_string(size));
  Array<T> const value = x;
  auto const here = axis_index(axis_name) == static_cast<std::int32_t>(source);
  return psum(select(here, value, Array<T>(full_like(value, T(0)))), axis_name);
}

}  // namespace jaxcc::lax
