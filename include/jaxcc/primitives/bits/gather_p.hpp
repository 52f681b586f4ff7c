// gather along one axis: out[o..., j..., q...] = x[o..., indices[j...], q...],
// the gather behind jnp.take. Out-of-range indices are filled ("fill"),
// clamped ("clip") or taken modulo the axis size ("wrap"). The first
// `batch_dims` axes may be shared by x and the indices (JAX's
// operand_batching_dims): out[b..., o..., j..., q...] =
// x[b..., o..., indices[b..., j...], q...], one gather per batch position,
// which is how vmap batches a gather whose operand and indices are both mapped.
//
// Derivatives as JAX's: the JVP gathers the tangent (filling with 0); the
// VJP scatter-adds the cotangent into zeros at the same indices
// (scatter_add_p in bits/scatter_p.hpp, whose VJP is this gather), so a
// repeated index collects the cotangent of every position that read it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/graph/jaxpr.hpp"  // python_float_repr, for fill values
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/slice.hpp"

namespace jaxcc::detail {

/// lax.gather's default fill for out-of-range indices: NaN for floats, the
/// most negative value for signed integers, true for bool. A given value must
/// be representable in T.
template <Element T>
T gather_fill_value(std::optional<double> const& given) {
  if (!given) {
    if constexpr (FloatElement<T>) return std::numeric_limits<T>::quiet_NaN();
    else if constexpr (std::same_as<T, bool>) return true;
    else return std::numeric_limits<T>::min();
  }
  auto const v = *given;
  if constexpr (std::is_integral_v<T> && !std::same_as<T, bool>) {
    if (!(v >= static_cast<double>(std::numeric_limits<T>::min()) &&
          v <= static_cast<double>(std::numeric_limits<T>::max()))) {
      std::ostringstream os;
      os << "take: fill_value " << v << " is not representable in " << dtype_of<T>;
      throw Error(os.str());
    }
  }
  return static_cast<T>(v);
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct scatter_add_p;  // gather's transpose, bound by name (bits/scatter_p.hpp; primitives/gather.hpp brings it)

struct gather_p {
  static constexpr std::string_view name = "gather";
  enum class Mode { fill, clip, wrap };
  struct Params {
    std::int64_t axis;                 // non-negative
    Mode mode;
    std::optional<double> fill_value;  // for Mode::fill; none: the dtype's default
    std::int64_t batch_dims = 0;       // leading axes x and indices share; axis >= batch_dims
    friend bool operator==(Params const&, Params const&) = default;
  };

  /// Where index `i` reads along an axis of size n: clamped, wrapped, or
  /// -1 when it is out of range (filled by gather, dropped by scatter-add).
  static std::int64_t position(std::int64_t i, std::int64_t n, Mode mode) {
    if (mode == Mode::clip) i = std::clamp<std::int64_t>(i, 0, n - 1);
    else if (mode == Mode::wrap) i = (i % n + n) % n;
    return i >= 0 && i < n ? i : -1;
  }
  /// JAX's GatherScatterMode, as printed. jnp.take(mode="wrap") wraps the
  /// indices before a PROMISE_IN_BOUNDS gather; this gather wraps itself.
  static std::string mode_string(Mode mode) {
    switch (mode) {
      case Mode::fill: return "GatherScatterMode.FILL_OR_DROP";
      case Mode::clip: return "GatherScatterMode.CLIP";
      case Mode::wrap: return "GatherScatterMode.WRAP";
    }
    return {};
  }

  template <Element T, IndexElement I>
  static Shape shape_rule(Params const& p, Array<T> const& x, Array<I> const& indices) {
    auto const axis = detail::normalize_axis(p.axis, x.ndim(), "take");
    check_batch_dims(p.batch_dims, axis, x.shape(), indices.shape());
    if (x.shape()[static_cast<std::size_t>(axis)] == 0 && indices.size() != 0)
      throw Error("Cannot do a non-empty jnp.take() from an empty axis.");
    Shape out(x.shape().begin(), x.shape().begin() + axis);
    for (auto d = static_cast<std::size_t>(p.batch_dims); d < indices.shape().size(); ++d)
      out.push_back(indices.shape()[d]);
    for (auto d = axis + 1; d < x.ndim(); ++d) out.push_back(x.shape()[static_cast<std::size_t>(d)]);
    return out;
  }
  /// The leading axes x and indices share must exist before `axis` and agree (JAX's words).
  static void check_batch_dims(std::int64_t batch_dims, std::int64_t axis, Shape const& x, Shape const& indices) {
    if (batch_dims < 0 || batch_dims > axis || batch_dims > indices.rank())
      detail::throw_error("gather: batch_dims=", batch_dims, " must lie in [0, ", std::min(axis, indices.rank()),
                          "] for axis ", axis, " and indices of shape ", indices);
    Shape const x_batch(x.begin(), x.begin() + batch_dims), indices_batch(indices.begin(), indices.begin() + batch_dims);
    if (!(x_batch == indices_batch))
      detail::throw_error("Gather op requires operand batching dimensions and indices batching dimensions to have the "
                          "same shape, got ", x_batch, " and ", indices_batch, ".");
  }

  /// JAX's gather params that do not depend on the operands' shapes; the
  /// axis stands in for its dimension_numbers and slice_sizes.
  static std::string params_string(Params const& p) {
    std::string fill = "None";
    if (p.fill_value) {
      auto const v = *p.fill_value;
      // An integral value prints as the Python int JAX's rules pass (the JVP's 0).
      bool const integral = std::isfinite(v) && std::trunc(v) == v && std::abs(v) < 1e15;
      fill = integral ? std::to_string(static_cast<long long>(v)) : graph::python_float_repr(v);
    }
    auto const batch = p.batch_dims ? " batch_dims=" + std::to_string(p.batch_dims) : std::string();
    return "axis=" + std::to_string(p.axis) + batch + " fill_value=" + fill + " indices_are_sorted=False mode=" +
           mode_string(p.mode) + " unique_indices=False";
  }

  template <Element T, IndexElement I>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<I> const& indices, Array<T> const& t,
                      Array<I> const&) {
    return detail::bind<gather_p>({p.axis, p.mode, 0.0, p.batch_dims}, t, indices);
  }
  template <Element T, IndexElement I>
  static std::tuple<Array<T>, graph::NoCotangent> vjp(Params const& p, Array<T> const& ct, Array<T> const&,
                                                      Array<T> const& x, Array<I> const& indices) {
    return {detail::bind<scatter_add_p>({p.axis, p.mode, p.batch_dims}, detail::zeros_view<T>(x.shape()), indices, ct),
            {}};
  }

  /// JAX's _gather_batching_rule. A mapped x alone: its mapped axis becomes
  /// the first axis past the shared ones, read whole. Mapped indices alone:
  /// their mapped axis leads the index axes, which sit at `axis` in the
  /// output. Both: it becomes one more shared axis, in front.
  template <Element T, IndexElement I>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x,
                                                    Array<I> const& indices) {
    auto const b = p.batch_dims;
    if (!dims[1])
      return {detail::bind<gather_p>({p.axis + 1, p.mode, p.fill_value, b}, detail::move_axis(x, *dims[0], b), indices),
              b};
    if (!dims[0]) return {detail::bind<gather_p>(p, x, detail::move_axis(indices, *dims[1], b)), p.axis};
    return {detail::bind<gather_p>({p.axis + 1, p.mode, p.fill_value, b + 1}, detail::move_axis(x, *dims[0], 0),
                                   detail::move_axis(indices, *dims[1], 0)),
            0};
  }

  template <Element T, IndexElement I>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x, Array<I> const& indices) {
    auto allocation = detail::allocate<T>(std::move(out_shape));
    auto const& out = allocation.first;
    T* const data = allocation.second;  // a plain variable: the lambda below captures it
    if (out.size() == 0) return out;
    auto const batch = static_cast<std::size_t>(p.batch_dims);
    auto const axis = static_cast<std::size_t>(p.axis);
    auto const n = x.shape()[axis];
    auto const axis_stride = x.strides()[axis];
    T const fill = p.mode == Mode::fill ? detail::gather_fill_value<T>(p.fill_value) : T{};

    // Where each index reads along the axis, or `missing` to fill.
    constexpr auto missing = std::numeric_limits<std::int64_t>::min();
    auto const idx = indices.to_vector();
    std::vector<std::int64_t> along(idx.size());
    for (std::size_t j = 0; j < idx.size(); ++j) {
      auto const i = position(idx[j], n, p.mode);
      along[j] = i >= 0 ? i * axis_stride : missing;
    }

    auto dims_range = [&](std::size_t first, std::size_t last) {
      Shape shape(x.shape().begin() + first, x.shape().begin() + last);
      Strides strides(x.strides().begin() + first, x.strides().begin() + last);
      return std::pair{shape, strides};
    };
    auto const [batch_shape, batch_strides] = dims_range(0, batch);
    auto const [outer_shape, outer_strides] = dims_range(batch, axis);
    auto const [inner_shape, inner_strides] = dims_range(axis + 1, x.shape().size());
    auto const batches = detail::element_offsets(batch_shape, batch_strides);
    auto const outer = detail::element_offsets(outer_shape, outer_strides);
    // The inner block is read with one stride when its dimensions merge,
    // else through a table of offsets.
    auto const inner_layout = detail::merge_dimensions<1>(inner_shape, {inner_strides});
    bool const inner_uniform = inner_layout.shape.size() == 1;
    auto const inner_step = inner_layout.strides[0][0];
    auto const inner =
        inner_uniform ? std::vector<std::int64_t>{} : detail::element_offsets(inner_shape, inner_strides);
    auto const inner_size = inner_shape.numel();
    // Indices per batch position (the output is non-empty, so are the batches).
    auto const m = static_cast<std::int64_t>(along.size() / batches.size());
    auto const n_outer = static_cast<std::int64_t>(outer.size());
    T const* in = x.data();

    // One row per (batch position, outer position, index): inner_size
    // contiguous outputs.
    auto const rows = static_cast<std::int64_t>(batches.size()) * n_outer * m;
    detail::parallel_chunks(rows, 1, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t r = lo; r < hi; ++r) {
        T* dst = data + r * inner_size;
        auto const b = r / (n_outer * m), j = r % m;
        auto const source = along[static_cast<std::size_t>(b * m + j)];
        if (source == missing) {
          std::fill(dst, dst + inner_size, fill);
          continue;
        }
        T const* src = in + batches[static_cast<std::size_t>(b)] + outer[static_cast<std::size_t>(r / m % n_outer)] + source;
        if (inner_uniform)
          for (std::int64_t q = 0; q < inner_size; ++q) dst[q] = src[q * inner_step];
        else
          for (std::int64_t q = 0; q < inner_size; ++q) dst[q] = src[inner[static_cast<std::size_t>(q)]];
      }
    });
    return out;
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::detail {

/// `x` reversed along `axis` (lax.rev), as a gather of positions n-1, ..., 0,
/// so that its derivatives are the gather's.
template <Element T>
Array<T> reversed_along(Array<T> const& x, std::int64_t axis) {
  auto const n = x.shape()[static_cast<std::size_t>(axis)];
  if (n < 2) return x;
  auto [positions, data] = allocate<std::int32_t>(Shape{n});
  for (std::int64_t i = 0; i < n; ++i) data[i] = static_cast<std::int32_t>(n - 1 - i);
  return jaxcc::detail::bind<primitives::gather_p>({axis, primitives::gather_p::Mode::clip, {}, 0}, x, positions);
}

}  // namespace jaxcc::detail
