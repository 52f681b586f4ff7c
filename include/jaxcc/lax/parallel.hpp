// jax.lax's parallel operators: the collectives over a named axis (psum,
// pmean, pmax, pmin, all_gather, psum_scatter, ppermute, all_to_all,
// axis_index: primitives/collectives.hpp holds their primitives), and what
// JAX composes of them: the size of a named axis, a shuffle by sources, the
// swap of a named axis with a positional one, and a broadcast from one
// index of the axis.
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
/// lax.psum: the sum of x over every element of the named axis.
template <ArrayLike A>
Array<value_type_t<A>> psum(A const& x, std::string const& axis_name) {
  return primitives::psum_p::bind({axis_name}, as_array(x));
}
/// lax.pmean: psum divided by the axis size.
template <ArrayLike A>
auto pmean(A const& x, std::string const& axis_name) {
  using T = value_type_t<A>;
  auto const n = graph::find_axis(axis_name).size;
  if constexpr (detail::is_float<T>) return Array<T>(psum(x, axis_name) / static_cast<detail::compute_t<T>>(n));
  else return Array<float>(fusion::cast<float>(psum(x, axis_name)) / static_cast<float>(n));
}
/// lax.pmax / lax.pmin: the elementwise maximum / minimum over the axis.
template <ArrayLike A>
Array<value_type_t<A>> pmax(A const& x, std::string const& axis_name) {
  return primitives::pmax_p::bind({axis_name}, as_array(x));
}
template <ArrayLike A>
Array<value_type_t<A>> pmin(A const& x, std::string const& axis_name) {
  return primitives::pmin_p::bind({axis_name}, as_array(x));
}
/// lax.all_gather: every element's x stacked along `axis` (tiled:
/// concatenated along it).
template <ArrayLike A>
Array<value_type_t<A>> all_gather(A const& x, std::string const& axis_name, std::int64_t axis = 0, bool tiled = false) {
  auto const a = as_array(x);
  auto const rank = a.ndim() + (tiled ? 0 : 1);
  return primitives::all_gather_p::bind({axis_name, detail::normalize_axis(axis, rank, "all_gather"), tiled}, a);
}
/// lax.psum_scatter: the psum, of which element i keeps part i along
/// `scatter_dimension` (tiled: a block of it; else that dimension, which
/// must have the axis size, is dropped).
template <ArrayLike A>
Array<value_type_t<A>> psum_scatter(A const& x, std::string const& axis_name, std::int64_t scatter_dimension = 0,
                                    bool tiled = false) {
  auto const a = as_array(x);
  return primitives::psum_scatter_p::bind(
      {axis_name, detail::normalize_axis(scatter_dimension, a.ndim(), "psum_scatter"), tiled}, a);
}
/// lax.ppermute: element dst gets element src's x for each (src, dst) in
/// `perm`; elements no pair sends to get zeros.
template <ArrayLike A>
Array<value_type_t<A>> ppermute(A const& x, std::string const& axis_name,
                                std::vector<std::pair<std::int64_t, std::int64_t>> perm) {
  return primitives::ppermute_p::bind({axis_name, std::move(perm)}, as_array(x));
}
/// The pairs as any integer types (std::vector<std::pair<int, int>>, ...).
template <ArrayLike A, std::ranges::input_range Pairs>
  requires requires(std::ranges::range_value_t<Pairs> const& p) {
    { std::get<0>(p) } -> std::convertible_to<std::int64_t>;
    { std::get<1>(p) } -> std::convertible_to<std::int64_t>;
  }
Array<value_type_t<A>> ppermute(A const& x, std::string const& axis_name, Pairs const& perm) {
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  for (auto const& p : perm) pairs.emplace_back(std::get<0>(p), std::get<1>(p));
  return ppermute(x, axis_name, std::move(pairs));
}
/// lax.all_to_all: split x along `split_axis` among the elements of the
/// axis and concatenate what each receives along `concat_axis`. Untiled,
/// the split axis (of the axis size) is dropped and the received parts are
/// stacked at `concat_axis`, as JAX's shapes say.
template <ArrayLike A>
Array<value_type_t<A>> all_to_all(A const& x, std::string const& axis_name, std::int64_t split_axis,
                                  std::int64_t concat_axis, bool tiled = false) {
  auto a = as_array(x);
  auto split = detail::normalize_axis(split_axis, a.ndim(), "all_to_all");
  auto concat = detail::normalize_axis(concat_axis, a.ndim(), "all_to_all");
  if (tiled) return primitives::all_to_all_p::bind({axis_name, split, concat}, a);
  auto const size = graph::find_axis(axis_name).size;
  if (a.shape()[static_cast<std::size_t>(split)] != size)
    throw Error("all_to_all requires the size of the mapped axis axis_name to equal x.shape[split_axis], but they "
                "are " + std::to_string(size) + " and " + std::to_string(a.shape()[static_cast<std::size_t>(split)]) +
                " respectively.");
  // As JAX: a new axis at concat_axis, a tiled exchange, the split axis dropped.
  if (split < concat) ++concat;
  else if (concat < split) ++split;
  if (split != concat) a = lax::expand_dims(a, {concat});
  auto out = primitives::all_to_all_p::bind({axis_name, split, concat}, a);
  return split == concat ? out : lax::squeeze(out, {split});
}
/// lax.axis_index: this element's index along the named axis (int32). (A
/// template, for the reason axis_index_p is one.)
template <std::convertible_to<std::string> Name>
Array<std::int32_t> axis_index(Name const& axis_name) {
  return primitives::axis_index_p::bind({std::string(axis_name)});
}


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
