// squeeze: drop size-1 dimensions. Always a view (the dropped dimensions'
// strides are simply forgotten). Its JVP squeezes the tangent; its VJP puts
// the dimensions back (expand_dims, a broadcast_in_dim), as JAX's; its
// batching rule squeezes around the mapped axis. Dtype-generic
// (graph/primitive_of.hpp): compiled once for every dtype.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"

namespace jaxcc::primitives {

// The VJP's broadcast, bound by name: broadcast_in_dim.hpp (included at the
// end) reaches this header through slice.hpp's batching rules.
struct broadcast_in_dim_p;

struct squeeze_p {
  static constexpr std::string_view name = "squeeze";
  static constexpr bool dtype_generic = true;
  struct Params {
    Axes dimensions;  // non-negative, sorted
    friend bool operator==(Params const&, Params const&) = default;
  };

  static bool is_identity(Params const& p, Shape const&) { return p.dimensions.empty(); }

  /// Sharded jit: the dropped dimensions have size 1, so are not split.
  template <graph::ErasedArray A>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const&, A const& x) {
    graph::Layout out;
    for (std::size_t d = 0; d < layouts[0].dims.size(); ++d)
      if (std::find(p.dimensions.begin(), p.dimensions.end(), static_cast<std::int64_t>(d)) == p.dimensions.end())
        out.dims.push_back(layouts[0].dims[d]);
    return graph::Partitioned{detail::bind<squeeze_p>(p, x), out};
  }

  template <graph::ErasedArray A>
  static Shape shape_rule(Params const& p, A const& x) {
    auto const& dims = p.dimensions;
    Shape const dims_tuple(dims.begin(), dims.end());
    for (std::size_t i = 0; i < dims.size(); ++i)
      for (std::size_t j = i + 1; j < dims.size(); ++j)
        if (dims[i] == dims[j]) throw Error("dimensions are not unique: " + to_string(dims_tuple));
    for (auto d : dims)
      if (d < 0 || d >= x.ndim()) throw Error("dimensions outside range [0, ndim): " + to_string(dims_tuple));
    for (auto d : dims)
      if (x.shape()[static_cast<std::size_t>(d)] != 1) {
        std::ostringstream os;
        os << "cannot select an axis to squeeze out which has size not equal to one, got shape=" << x.shape()
           << " and dimensions=" << dims_tuple;
        throw Error(os.str());
      }
    return kept(x.shape(), dims);
  }

  static std::string params_string(Params const& p) {
    return "dimensions=" + to_string(Shape(p.dimensions.begin(), p.dimensions.end()));
  }

  template <graph::ErasedArray A>
  static A jvp(Params const& p, A const&, A const&, A const& t) {
    return detail::bind<squeeze_p>(p, t);
  }
  template <graph::ErasedArray A>
  static A vjp(Params const& p, A const& ct, A const&, A const& x) {
    Axes remaining;
    for (std::int64_t d = 0; d < x.ndim(); ++d)
      if (std::find(p.dimensions.begin(), p.dimensions.end(), d) == p.dimensions.end()) remaining.push_back(d);
    return detail::bind<broadcast_in_dim_p>({x.shape(), remaining}, ct);
  }

  /// The mapped axis stays where it is; the squeezed dimensions step over it.
  template <graph::ErasedArray A>
  static std::pair<A, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, A const& x) {
    auto const b = *dims[0];
    Params q;
    std::int64_t before = 0;  // squeezed dimensions in front of the mapped axis
    for (auto d : p.dimensions) {
      q.dimensions.push_back(d >= b ? d + 1 : d);
      before += d < b ? 1 : 0;
    }
    return {detail::bind<squeeze_p>(q, x), b - before};
  }

  template <graph::ErasedArray A>
  static A impl(Params const& p, Shape out_shape, A const& x) {
    auto const& in = detail::impl_of(x);
    return detail::view(x, std::move(out_shape), kept(in.strides, p.dimensions), in.offset);
  }

 private:
  template <class V>
  static V kept(V const& per_dim, Axes const& dropped) {
    V out;
    for (std::size_t i = 0; i < per_dim.size(); ++i)
      if (std::find(dropped.begin(), dropped.end(), static_cast<std::int64_t>(i)) == dropped.end())
        out.push_back(per_dim[i]);
    return out;
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// lax.squeeze: remove the listed size-1 dimensions (negative counts from the end).
template <Element T>
Array<T> squeeze(Array<T> const& x, Axes const& dimensions) {
  Axes dims;
  for (auto d : dimensions) dims.push_back(detail::normalize_axis(d, x.ndim(), "squeeze"));
  std::sort(dims.begin(), dims.end());
  if (dims.empty()) return x;
  return detail::bind<primitives::squeeze_p>({dims}, x);
}

}  // namespace jaxcc::lax
