// reshape: the same elements in row-major order under a new shape. A view
// of the buffer when the input is contiguous, else one copy. Dtype-generic
// (graph/primitive_of.hpp): compiled once for every dtype.
#pragma once

#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"

namespace jaxcc::primitives {

struct reshape_p {
  static constexpr std::string_view name = "reshape";
  static constexpr bool dtype_generic = true;
  struct Params {
    Shape new_sizes;  // may hold one -1, inferred as numpy does
    friend bool operator==(Params const&, Params const&) = default;
  };

  static bool is_identity(Params const& p, Shape const& operand) { return p.new_sizes == operand; }

  // Messages as jnp.reshape's (jax/_src/numpy/array_methods.py).
  template <graph::ErasedArray A>
  static Shape shape_rule(Params const& p, A const& x) {
    Shape out = p.new_sizes;
    std::size_t unknown = out.size();
    std::int64_t known = 1;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (out[i] == -1) {
        if (unknown != out.size())
          throw Error("can only specify one unknown axis size with a `-1` value, got " + to_string(p.new_sizes));
        unknown = i;
      } else if (out[i] < 0) {
        throw Error("reshape: new shape " + to_string(p.new_sizes) + " has a negative dimension");
      } else {
        known *= out[i];
      }
    }
    std::ostringstream os;
    os << "cannot reshape array of shape " << x.shape() << " (size " << x.size() << ") into shape " << p.new_sizes;
    if (unknown != out.size()) {
      if (known == 0 || x.size() % known != 0) {
        os << " because the product of specified axis sizes (" << known << ") does not evenly divide " << x.size();
        throw Error(os.str());
      }
      out[unknown] = x.size() / known;
    } else if (out.numel() != x.size()) {
      os << " (size " << out.numel() << ")";
      throw Error(os.str());
    }
    return out;
  }

  static std::string params_string(Params const& p) { return "dimensions=None new_sizes=" + to_string(p.new_sizes); }

  /// Sharded jit: when every split dimension lies in the leading
  /// dimensions that the reshape keeps as they are, each device reshapes
  /// its part; otherwise no rule (the partitioner gathers the operand).
  template <graph::ErasedArray A>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const&, A const& x) {
    auto const& in = layouts[0];
    auto const whole = detail::global_shape(x.shape(), in);
    Shape out = p.new_sizes;
    std::int64_t known = 1;
    for (auto d : out) known *= d >= 0 ? d : 1;
    for (auto& d : out)
      if (d < 0) d = whole.numel() / known;
    std::size_t kept = 0;
    while (kept < whole.size() && kept < out.size() && whole[kept] == out[kept]) ++kept;
    for (std::size_t d = kept; d < in.dims.size(); ++d)
      if (!in.dims[d].empty()) return std::nullopt;
    auto layout = graph::Layout::replicated(out.size());
    for (std::size_t d = 0; d < kept; ++d) layout.dims[d] = in.dims[d];
    return graph::Partitioned{detail::bind<reshape_p>({detail::part_shape(out, layout)}, x), layout};
  }

  template <graph::ErasedArray A>
  static A jvp(Params const&, A const& out, A const&, A const& t) {
    return detail::bind<reshape_p>({out.shape()}, t);
  }
  template <graph::ErasedArray A>
  static A vjp(Params const&, A const& ct, A const&, A const& x) {
    return detail::bind<reshape_p>({x.shape()}, ct);
  }

  /// The mapped axis goes first and is kept as the leading dimension.
  template <graph::ErasedArray A>
  static std::pair<A, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, A const& x) {
    Params q{Shape{axis.size}};
    for (auto d : p.new_sizes) q.new_sizes.push_back(d);
    return {detail::bind<reshape_p>(q, detail::move_axis(x, *dims[0], 0)), 0};
  }

  template <graph::ErasedArray A>
  static A impl(Params const&, Shape out_shape, A const& x) {
    auto const dense = detail::as_contiguous(x);
    auto strides = detail::contiguous_strides(out_shape);
    return detail::view(dense, std::move(out_shape), std::move(strides), detail::impl_of(dense).offset);
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// lax.reshape (row-major); one -1 entry is inferred as in jnp.reshape.
template <Element T>
Array<T> reshape(Array<T> const& x, Shape const& new_sizes) {
  return detail::bind<primitives::reshape_p>({new_sizes}, x);
}

}  // namespace jaxcc::lax
