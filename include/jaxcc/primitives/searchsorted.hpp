// searchsorted: where each value of v would go in a sorted lane of a, as
// int32, by binary search in lax.sort's order (NaN last). `side` "left"
// gives the first position whose element is not less than the value,
// "right" the first whose element is greater. The first `batch_dims` axes
// are shared: a has shape (*batch, n), v (*batch, *rest), the result v's
// shape — which is how vmap batches a search whose sorted array is mapped.
// The integer result carries no tangent (graph/primitive_of.hpp gives an
// integer output none, so this primitive declares no derivative rules).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/sort.hpp"

namespace jaxcc::primitives {

struct searchsorted_p {
  static constexpr std::string_view name = "searchsorted";
  struct Params {
    bool right = false;  // side="right"
    std::int64_t batch_dims = 0;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& a, Array<T> const& v) {
    auto const b = static_cast<std::size_t>(p.batch_dims);
    if (a.ndim() != p.batch_dims + 1) detail::throw_error("a should be 1-dimensional");
    if (v.shape().size() < b || !std::equal(a.shape().begin(), a.shape().begin() + static_cast<std::ptrdiff_t>(b),
                                            v.shape().begin()))
      detail::throw_error("searchsorted: batch dimensions of a ", a.shape(), " and v ", v.shape(), " differ");
    return v.shape();
  }
  static std::string params_string(Params const& p) {
    return std::string("side=") + (p.right ? "right" : "left") +
           (p.batch_dims ? " batch_dims=" + std::to_string(p.batch_dims) : "");
  }

  /// Both mapped axes go first (an unmapped operand is broadcast): one more batch axis.
  template <Element T>
  static std::pair<Array<std::int32_t>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                               std::span<graph::BatchDim const> dims,
                                                               Array<T> const& a, Array<T> const& v) {
    return {detail::bind<searchsorted_p>({p.right, p.batch_dims + 1}, detail::bdim_at_front(a, dims[0], axis.size),
                                         detail::bdim_at_front(v, dims[1], axis.size)),
            0};
  }

  /// Sharded jit: a batch dimension split alike in both operands and v's
  /// other splits stay (the result is laid out as v); the rest of `a` —
  /// each searched lane — is gathered whole.
  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& a,
                                                     Array<T> const& v) {
    auto want_a = graph::Layout::replicated(static_cast<std::size_t>(a.ndim()));
    auto want_v = layouts[1];
    for (std::size_t d = 0; d < static_cast<std::size_t>(p.batch_dims); ++d) {
      if (layouts[0].dims[d] == layouts[1].dims[d]) want_a.dims[d] = layouts[0].dims[d];
      else want_v.dims[d].clear();
    }
    auto const a_part = reshard(AnyArray(a), layouts[0], want_a).template as<T>();
    auto const v_part = reshard(AnyArray(v), layouts[1], want_v).template as<T>();
    return graph::Partitioned{AnyArray(detail::bind<searchsorted_p>(p, a_part, v_part)), want_v};
  }

  template <Element T>
  static Array<std::int32_t> impl(Params const& p, Shape out_shape, Array<T> const& a, Array<T> const& v) {
    auto [out, out_data] = detail::allocate<std::int32_t>(out_shape);
    std::int32_t* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    if (out.size() == 0) return out;
    auto const b = static_cast<std::size_t>(p.batch_dims);
    auto const n = a.shape()[b];
    auto const step = a.strides()[b];
    Shape const batch_shape(a.shape().begin(), a.shape().begin() + static_cast<std::ptrdiff_t>(b));
    auto const lanes = detail::element_offsets(batch_shape, Strides(a.strides().begin(), a.strides().begin() + static_cast<std::ptrdiff_t>(b)));
    auto const values = detail::element_offsets(v.shape(), v.strides());
    auto const per_lane = static_cast<std::int64_t>(values.size() / lanes.size());
    T const* sorted = a.data();
    T const* queries = v.data();
    detail::parallel_chunks(out.size(), 1, [&](std::int64_t lo, std::int64_t hi) {
      for (auto i = lo; i < hi; ++i) {
        T const* lane = sorted + lanes[static_cast<std::size_t>(i / per_lane)];
        T const x = queries[values[static_cast<std::size_t>(i)]];
        // Binary search for the first position where `goes_after` is false.
        std::int64_t first = 0, count = n;
        while (count > 0) {
          auto const half = count / 2;
          T const e = lane[(first + half) * step];
          bool const goes_after = p.right ? !detail::sort_less(x, e) : detail::sort_less(e, x);
          if (goes_after) {
            first += half + 1;
            count -= half + 1;
          } else {
            count = half;
          }
        }
        dst[i] = static_cast<std::int32_t>(first);
      }
    });
    return out;
  }
};

}  // namespace jaxcc::primitives
