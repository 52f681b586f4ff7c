// transpose: permute the axes. Always a view (strides permuted), no copy;
// dtype-generic (graph/primitive_of.hpp): compiled once for every dtype.
#pragma once

#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"

namespace jaxcc::primitives {

struct transpose_p {
  static constexpr std::string_view name = "transpose";
  static constexpr bool dtype_generic = true;
  struct Params {
    Axes permutation;
    friend bool operator==(Params const&, Params const&) = default;
  };

  /// Sharded jit: the splits move with their dimensions.
  template <graph::ErasedArray A>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const&, A const& x) {
    graph::Layout out;
    for (auto d : p.permutation) out.dims.push_back(layouts[0].dims[static_cast<std::size_t>(d)]);
    return graph::Partitioned{detail::bind<transpose_p>(p, x), out};
  }

  static bool is_identity(Params const& p, Shape const&) {
    for (std::size_t i = 0; i < p.permutation.size(); ++i)
      if (p.permutation[i] != static_cast<std::int64_t>(i)) return false;
    return true;
  }

  template <graph::ErasedArray A>
  static Shape shape_rule(Params const& p, A const& x) {
    auto const rank = x.ndim();
    bool ok = static_cast<std::int64_t>(p.permutation.size()) == rank;
    detail::SmallVector<bool, 6> seen(static_cast<std::size_t>(rank), false);
    for (auto a : p.permutation) {
      if (!ok) break;
      ok = a >= 0 && a < rank && !seen[static_cast<std::size_t>(a)];
      if (ok) seen[static_cast<std::size_t>(a)] = true;
    }
    if (!ok) {
      std::ostringstream os;
      os << "transpose permutation isn't a permutation of operand dimensions, got permutation "
         << Shape(p.permutation.begin(), p.permutation.end()) << " for operand shape " << x.shape() << ".";
      throw Error(os.str());
    }
    Shape out;
    for (auto a : p.permutation) out.push_back(x.shape()[static_cast<std::size_t>(a)]);
    return out;
  }

  static std::string params_string(Params const& p) {
    return "permutation=" + to_string(Shape(p.permutation.begin(), p.permutation.end()));
  }

  template <graph::ErasedArray A>
  static A jvp(Params const& p, A const&, A const&, A const& t) {
    return detail::bind<transpose_p>(p, t);
  }
  /// The cotangent goes back through the inverse permutation.
  template <graph::ErasedArray A>
  static A vjp(Params const& p, A const& ct, A const&, A const&) {
    Axes inverse(p.permutation.size(), 0);
    for (std::size_t i = 0; i < p.permutation.size(); ++i) inverse[static_cast<std::size_t>(p.permutation[i])] = static_cast<std::int64_t>(i);
    return detail::bind<transpose_p>({inverse}, ct);
  }

  /// The mapped axis goes first; the permutation steps over it.
  template <graph::ErasedArray A>
  static std::pair<A, graph::BatchDim> batch(Params const& p, graph::AxisData const&, std::span<graph::BatchDim const> dims,
                                             A const& x) {
    auto const b = *dims[0];
    Params q{Axes{b}};
    for (auto a : p.permutation) q.permutation.push_back(a >= b ? a + 1 : a);
    return {detail::bind<transpose_p>(q, x), 0};
  }

  template <graph::ErasedArray A>
  static A impl(Params const& p, Shape out_shape, A const& x) {
    auto const& in = detail::impl_of(x);
    Strides strides;
    for (auto a : p.permutation) strides.push_back(in.strides[static_cast<std::size_t>(a)]);
    return detail::view(x, std::move(out_shape), std::move(strides), in.offset);
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// lax.transpose: output axis i is input axis permutation[i].
template <Element T>
Array<T> transpose(Array<T> const& x, Axes const& permutation) {
  return detail::bind<primitives::transpose_p>({permutation}, x);
}

}  // namespace jaxcc::lax
