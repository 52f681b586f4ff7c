// jax.lax's sorts beyond top_k (primitives/sort.hpp): sort of one operand
// or of several (the first num_keys of them the keys, compared
// lexicographically, the first key primary; the others carried along),
// sort_key_val, and approx_max_k / approx_min_k, which are exact here as
// JAX's CPU fallback is. Several operands are sorted by one permutation:
// stable argsorts of the keys from the last key to the first, then a gather
// of every operand, so the gather's rules differentiate and batch it.
// Sorts are always stable (is_stable=False allows any order of equal keys).
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/lax/shape_ops.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/sort.hpp"

namespace jaxcc::detail {

/// x[..., order[..., j]] along the last axis.
template <Element T>
Array<T> along_last(Array<T> const& x, Array<std::int32_t> const& order) {
  auto const last = x.ndim() - 1;
  return jaxcc::detail::bind<primitives::gather_p>({last, primitives::gather_p::Mode::clip, {}, last}, x, order);
}

/// The order that sorts `key` stably within the order already found (none:
/// the identity), so earlier keys come to dominate later ones.
template <Element T>
Array<std::int32_t> refine_order(Array<T> const& key, std::optional<Array<std::int32_t>> const& order) {
  auto const last = key.ndim() - 1;
  if (!order) return jaxcc::detail::bind<primitives::argsort_p>({last}, key);
  return along_last(*order, jaxcc::detail::bind<primitives::argsort_p>({last}, along_last(key, *order)));
}

/// lax.sort of a tuple of operands along `dimension`, the first `num_keys` the keys.
template <class... Ts>
std::tuple<Array<Ts>...> sort_operands(std::tuple<Array<Ts>...> const& operands, std::int64_t dimension,
                                       std::int64_t num_keys) {
  constexpr auto count = static_cast<std::int64_t>(sizeof...(Ts));
  if constexpr (count == 0) {
    throw Error("Sort requires at least one operand");
  } else {
    if (num_keys < 1 || num_keys > count)
      throw_error("num_keys=", num_keys, " must be between 1 and len(operand)=", count);
    auto const& first = std::get<0>(operands);
    bool same = true;
    std::ostringstream shapes;
    std::apply([&](auto const&... op) { ((same = same && op.shape() == first.shape(), shapes << op.shape() << ' '), ...); },
               operands);
    auto const axis = normalize_axis(dimension, first.ndim(), "sort");
    if (!same) {
      auto listed = shapes.str();
      listed.pop_back();
      throw_error("Arguments to sort must have equal shapes, got: ", listed);
    }
    auto const last = first.ndim() - 1;
    auto const moved = std::apply([&](auto const&... op) { return std::tuple{move_axis(op, axis, last)...}; }, operands);
    std::optional<Array<std::int32_t>> order;
    for (auto key = num_keys - 1; key >= 0; --key)
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        ((static_cast<std::int64_t>(K) == key ? (order = refine_order(std::get<K>(moved), order), 0) : 0), ...);
      }(std::index_sequence_for<Ts...>{});
    return std::apply([&](auto const&... op) { return std::tuple{move_axis(along_last(op, *order), last, axis)...}; },
                      moved);
  }
}

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.sort of one operand along `dimension` (negative counts from the end).
template <ArrayLike A>
Array<value_type_t<A>> sort(A const& operand, std::int64_t dimension = -1, bool is_stable = true,
                            std::int64_t num_keys = 1) {
  (void)is_stable;
  auto const x = as_array(operand);
  if (num_keys != 1) detail::throw_error("num_keys=", num_keys, " must equal 1 for a single operand.");
  auto const axis = detail::normalize_axis(dimension, x.ndim(), "sort");
  return detail::bind<primitives::sort_p>({axis}, x);
}

/// lax.sort of several operands of any dtypes: returns them sorted by their
/// first `num_keys`, in a tuple.
template <Element... Ts>
std::tuple<Array<Ts>...> sort(std::tuple<Array<Ts>...> const& operands, std::int64_t dimension = -1,
                              bool is_stable = true, std::int64_t num_keys = 1) {
  (void)is_stable;
  return detail::sort_operands(operands, dimension, num_keys);
}

/// lax.sort of several operands of one dtype, in a vector.
template <Element T>
std::vector<Array<T>> sort(std::vector<Array<T>> const& operands, std::int64_t dimension = -1, bool is_stable = true,
                           std::int64_t num_keys = 1) {
  (void)is_stable;
  if (operands.empty()) throw Error("Sort requires at least one operand");
  auto const n = static_cast<std::int64_t>(operands.size());
  if (num_keys < 1 || num_keys > n) detail::throw_error("num_keys=", num_keys, " must be between 1 and len(operand)=", n);
  auto const axis = detail::normalize_axis(dimension, operands[0].ndim(), "sort");
  for (auto const& op : operands)
    if (!(op.shape() == operands[0].shape())) {
      std::ostringstream shapes;
      for (std::size_t k = 0; k < operands.size(); ++k) shapes << (k ? " " : "") << operands[k].shape();
      detail::throw_error("Arguments to sort must have equal shapes, got: ", shapes.str());
    }
  auto const last = operands[0].ndim() - 1;
  std::optional<Array<std::int32_t>> order;
  for (auto key = num_keys - 1; key >= 0; --key)
    order = detail::refine_order(detail::move_axis(operands[static_cast<std::size_t>(key)], axis, last), order);
  std::vector<Array<T>> out;
  for (auto const& op : operands)
    out.push_back(detail::move_axis(detail::along_last(detail::move_axis(op, axis, last), *order), last, axis));
  return out;
}

/// lax.sort_key_val: `keys` sorted along `dimension`, `values` carried
/// along. Returns (sorted keys, values).
template <ArrayLike K, ArrayLike V>
std::tuple<Array<value_type_t<K>>, Array<value_type_t<V>>> sort_key_val(K const& keys, V const& values,
                                                                         std::int64_t dimension = -1,
                                                                         bool is_stable = true) {
  return sort(std::tuple{as_array(keys), as_array(values)}, dimension, is_stable, 1);
}

}  // namespace jaxcc::lax

namespace jaxcc::detail {
/// approx_max_k / approx_min_k's checks, then the exact answer of JAX's CPU fallback.
template <Element T>
std::tuple<Array<T>, Array<std::int32_t>> approx_k(Array<T> const& x, std::int64_t k, std::int64_t reduction_dimension,
                                                   bool aggregate_to_topk, bool is_max_k) {
  if (k <= 0) throw_error("k must be positive, got ", k);
  if (x.ndim() == 0) throw_error("approx_top_k operand must have >= 1 dimension, got ", x.shape());
  auto const axis = normalize_axis(reduction_dimension, x.ndim(), "approx_top_k");
  auto const n = x.shape()[static_cast<std::size_t>(axis)];
  if (n < k) throw_error("k must be smaller than the size of reduction_dim ", n, ", got ", k);
  static_assert(FloatElement<T>, "approx_max_k / approx_min_k: operand must be a floating type");
  if (!aggregate_to_topk)
    throw Error("approx_max_k / approx_min_k: aggregate_to_topk=False is not supported; its output size is "
                "XLA's approximate reduction size");
  if (is_max_k) return lax::top_k(x, k, axis);
  auto const [values, indices] = lax::sort(std::tuple{x, lax::broadcasted_iota<std::int32_t>(x.shape(), axis)}, axis);
  return {lax::slice_in_dim(values, 0, k, 1, axis), lax::slice_in_dim(indices, 0, k, 1, axis)};
}
}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.approx_max_k: the k largest values along `reduction_dimension` and
/// their int32 indices, largest first (exact, as JAX's CPU fallback).
/// recall_target and reduction_input_size_override only tune the TPU algorithm.
template <ArrayLike A>
std::tuple<Array<value_type_t<A>>, Array<std::int32_t>> approx_max_k(A const& operand, std::int64_t k,
                                                                     std::int64_t reduction_dimension = -1,
                                                                     double recall_target = 0.95,
                                                                     std::int64_t reduction_input_size_override = -1,
                                                                     bool aggregate_to_topk = true) {
  (void)recall_target, (void)reduction_input_size_override;
  return detail::approx_k(as_array(operand), k, reduction_dimension, aggregate_to_topk, true);
}
/// lax.approx_min_k: the k smallest, smallest first.
template <ArrayLike A>
std::tuple<Array<value_type_t<A>>, Array<std::int32_t>> approx_min_k(A const& operand, std::int64_t k,
                                                                     std::int64_t reduction_dimension = -1,
                                                                     double recall_target = 0.95,
                                                                     std::int64_t reduction_input_size_override = -1,
                                                                     bool aggregate_to_topk = true) {
  (void)recall_target, (void)reduction_input_size_override;
  return detail::approx_k(as_array(operand), k, reduction_dimension, aggregate_to_topk, false);
}

}  // namespace jaxcc::lax
