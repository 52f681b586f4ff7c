// conv_general_dilated: XLA's convolution, as lax.conv_general_dilated
// binds it. Dimension numbers say where the batch, feature and spatial
// dims of each operand are; strides, explicit (lo, hi) padding, lhs
// (input) and rhs (kernel) dilation, and feature or batch groups follow
// XLA's semantics. The kernel reads the operands through their strides in
// any layout and runs one GEMM per block of input features: an im2col
// block of the input times the matching block of kernels (its parts are
// primitives/bits/conv_*.hpp). The derivatives are convolutions, as JAX's
// bilinear rules make them, and vmap folds the mapped axis into the batch
// or feature dims as JAX's batching rule does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/conv_by_shifts.hpp"
#include "jaxcc/primitives/bits/conv_gemm.hpp"
#include "jaxcc/primitives/bits/conv_geometry.hpp"
#include "jaxcc/primitives/bits/conv_im2col.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/dot_general.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/slice.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::primitives {

/// lax.ConvDimensionNumbers: for each operand, the position of its batch
/// (or rhs output-feature) dim, its feature (rhs input-feature) dim, then
/// its spatial dims in the order the rhs lists them.
struct ConvDimensionNumbers {
  Axes lhs_spec, rhs_spec, out_spec;
  friend bool operator==(ConvDimensionNumbers const&, ConvDimensionNumbers const&) = default;
};

struct conv_general_dilated_p {
  static constexpr std::string_view name = "conv_general_dilated";
  struct Params {
    Axes window_strides;
    std::vector<std::pair<std::int64_t, std::int64_t>> padding;
    Axes lhs_dilation, rhs_dilation;
    ConvDimensionNumbers dimension_numbers;
    std::int64_t feature_group_count = 1, batch_group_count = 1;
    friend bool operator==(Params const&, Params const&) = default;
  };

  /// As a jaxpr prints it (parameters in alphabetical order).
  static std::string params_string(Params const& p) {
    auto const tuple = detail::axes_string;
    auto const pads = detail::pairs_string(p.padding);
    auto const& d = p.dimension_numbers;
    return "batch_group_count=" + std::to_string(p.batch_group_count) +
           " dimension_numbers=ConvDimensionNumbers(lhs_spec=" + tuple(d.lhs_spec) + ", rhs_spec=" + tuple(d.rhs_spec) +
           ", out_spec=" + tuple(d.out_spec) + ") feature_group_count=" + std::to_string(p.feature_group_count) +
           " lhs_dilation=" + tuple(p.lhs_dilation) + " out_sharding=None padding=" + pads + " precision=None" +
           " preferred_element_type=None rhs_dilation=" + tuple(p.rhs_dilation) +
           " window_strides=" + tuple(p.window_strides);
  }

  /// JAX's _conv_general_dilated_shape_rule, with its messages.
  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& lhs, Array<T> const& rhs) {
    auto const& dn = p.dimension_numbers;
    if (lhs.ndim() != rhs.ndim())
      detail::throw_error("conv_general_dilated lhs and rhs must have the same number of dimensions, but got ",
                          lhs.shape(), " and ", rhs.shape(), ".");
    auto const fgc = p.feature_group_count, bgc = p.batch_group_count;
    if (fgc <= 0)
      detail::throw_error("conv_general_dilated feature_group_count must be a positive integer, got ", fgc, ".");
    auto const lhs_features = dim(lhs, dn.lhs_spec[1]);
    if (lhs_features % fgc)
      detail::throw_error("conv_general_dilated feature_group_count must divide lhs feature dimension size, but ",
                          fgc, " does not divide ", lhs_features, ".");
    if (lhs_features / fgc != dim(rhs, dn.rhs_spec[1]))
      detail::throw_error("conv_general_dilated lhs feature dimension size divided by feature_group_count must "
                          "equal the rhs input feature dimension size, but ",
                          lhs_features, " // ", fgc, " != ", dim(rhs, dn.rhs_spec[1]), ".");
    if (dim(rhs, dn.rhs_spec[0]) % fgc)
      detail::throw_error("conv_general_dilated rhs output feature dimension size must be a multiple of "
                          "feature_group_count, but ",
                          dim(rhs, dn.rhs_spec[0]), " is not a multiple of ", fgc, ".");
    if (bgc <= 0)
      detail::throw_error("conv_general_dilated batch_group_count must be a positive integer, got ", bgc, ".");
    auto const lhs_batch = dim(lhs, dn.lhs_spec[0]);
    if (bgc > 1 && lhs_batch % bgc)
      detail::throw_error("conv_general_dilated batch_group_count must divide lhs batch dimension size, but ", bgc,
                          " does not divide ", lhs_batch, ".");
    if (dim(rhs, dn.rhs_spec[0]) % bgc)
      detail::throw_error("conv_general_dilated rhs output feature dimension size must be a multiple of "
                          "batch_group_count, but ",
                          dim(rhs, dn.rhs_spec[0]), " is not a multiple of ", bgc, ".");
    if (bgc > 1 && fgc > 1)
      detail::throw_error("At most one of batch_group_count and feature_group_count may be > 1, got "
                          "batch_group_count=",
                          bgc, " and feature_group_count=", fgc);
    auto const spatial = static_cast<std::size_t>(rhs.ndim() - 2);
    if (spatial != p.window_strides.size())
      detail::throw_error("conv_general_dilated window and window_strides must have the same number of "
                          "dimensions, but got ",
                          spatial, " and ", p.window_strides.size());
    if (p.padding.size() != spatial)
      detail::throw_error("Wrong number of explicit pads for convolution: expected ", spatial, ", got ",
                          p.padding.size(), ".");
    Shape out(static_cast<std::size_t>(lhs.ndim()));
    out[static_cast<std::size_t>(dn.out_spec[0])] = bgc > 1 ? lhs_batch / bgc : lhs_batch;
    out[static_cast<std::size_t>(dn.out_spec[1])] = dim(rhs, dn.rhs_spec[0]);
    for (std::size_t d = 0; d < spatial; ++d) {
      auto const in = dilated(dim(lhs, dn.lhs_spec[2 + d]), p.lhs_dilation[d]) + p.padding[d].first + p.padding[d].second;
      if (in < 0)
        detail::throw_error("Negative padding is larger than the size of the corresponding dimension: got padding=",
                            detail::pairs_string(p.padding), " for lhs_shape[2:]=", spatial_shape(lhs, dn.lhs_spec));
      auto const window = dilated(dim(rhs, dn.rhs_spec[2 + d]), p.rhs_dilation[d]);
      out[static_cast<std::size_t>(dn.out_spec[2 + d])] = in >= window ? (in - window) / p.window_strides[d] + 1 : 0;
    }
    return out;
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& lhs, Array<T> const& rhs);

  /// Sharded jit: a split batch (without batch groups) and split output
  /// features (without groups) stay split in the output; input features
  /// split the same way on both sides (a data-parallel kernel gradient,
  /// whose "features" are the batch) give partial sums that the
  /// partitioner adds with psum. Any other split, or a mesh axis the output
  /// would use twice, is gathered first.
  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& lhs,
                                                     Array<T> const& rhs) {
    auto const& dn = p.dimension_numbers;
    auto const at = [](graph::Layout const& l, std::int64_t d) -> std::vector<std::string> const& {
      return l.dims[static_cast<std::size_t>(d)];
    };
    bool const grouped = p.feature_group_count > 1 || p.batch_group_count > 1;
    std::vector<std::string> used;
    auto const take = [&](std::vector<std::string> const& axes) {
      for (auto const& a : axes)
        if (std::find(used.begin(), used.end(), a) != used.end()) return std::vector<std::string>{};
      used.insert(used.end(), axes.begin(), axes.end());
      return axes;
    };
    auto want_l = graph::Layout::replicated(static_cast<std::size_t>(lhs.ndim()));
    auto want_r = graph::Layout::replicated(static_cast<std::size_t>(rhs.ndim()));
    auto const batch = p.batch_group_count == 1 ? take(at(layouts[0], dn.lhs_spec[0])) : std::vector<std::string>{};
    auto const features = grouped ? std::vector<std::string>{} : take(at(layouts[1], dn.rhs_spec[0]));
    std::vector<std::string> partial;
    if (!grouped && at(layouts[0], dn.lhs_spec[1]) == at(layouts[1], dn.rhs_spec[1]))
      partial = take(at(layouts[0], dn.lhs_spec[1]));
    want_l.dims[static_cast<std::size_t>(dn.lhs_spec[0])] = batch;
    want_l.dims[static_cast<std::size_t>(dn.lhs_spec[1])] = partial;
    want_r.dims[static_cast<std::size_t>(dn.rhs_spec[0])] = features;
    want_r.dims[static_cast<std::size_t>(dn.rhs_spec[1])] = partial;
    auto out = graph::Layout::replicated(static_cast<std::size_t>(lhs.ndim()));
    out.dims[static_cast<std::size_t>(dn.out_spec[0])] = batch;
    out.dims[static_cast<std::size_t>(dn.out_spec[1])] = features;
    auto const l = reshard(AnyArray(lhs), layouts[0], want_l).template as<T>();
    auto const r = reshard(AnyArray(rhs), layouts[1], want_r).template as<T>();
    return graph::Partitioned{detail::bind<conv_general_dilated_p>(p, l, r), out, partial, graph::PartialCombine::sum};
  }

  /// Bilinear (JAX's defbilinear): conv(t_lhs, rhs) + conv(lhs, t_rhs), a
  /// term skipped when its tangent is a known zero.
  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const& out, Array<T> const& lhs, Array<T> const& rhs,
                      Array<T> const& lhs_tangent, Array<T> const& rhs_tangent) {
    bool const lhs_zero = detail::is_zero_broadcast(lhs_tangent), rhs_zero = detail::is_zero_broadcast(rhs_tangent);
    if (lhs_zero && rhs_zero) return detail::zeros_view<T>(out.shape());
    if (lhs_zero) return detail::bind<conv_general_dilated_p>(p, lhs, rhs_tangent);
    if (rhs_zero) return detail::bind<conv_general_dilated_p>(p, lhs_tangent, rhs);
    return Array<T>(detail::bind<conv_general_dilated_p>(p, lhs_tangent, rhs) +
                    detail::bind<conv_general_dilated_p>(p, lhs, rhs_tangent));
  }

  /// JAX's _conv_general_dilated_transpose_lhs / _rhs: each cotangent is a
  /// convolution of the output's cotangent, computed only where wanted.
  template <Element T>
  static auto vjp(Params const& p, graph::Wanted wanted, Array<T> const& ct, Array<T> const&, Array<T> const& lhs,
                  Array<T> const& rhs) {
    std::tuple<std::optional<Array<T>>, std::optional<Array<T>>> cts;
    if (wanted[0]) std::get<0>(cts) = transpose_lhs(p, ct, lhs.shape(), rhs);
    if (wanted[1]) std::get<1>(cts) = transpose_rhs(p, ct, lhs, rhs.shape());
    return cts;
  }

  /// JAX's _conv_general_dilated_batch_rule: a mapped axis is folded into
  /// the lhs batch (or, under batch groups, its groups), the rhs output
  /// features, or — both mapped — the feature groups.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& lhs,
                                                    Array<T> const& rhs) {
    auto const& dn = p.dimension_numbers;
    Params q = p;
    if (dims[0] && dims[1]) {
      auto const size = dim(lhs, *dims[0]);
      Array<T> new_lhs;
      if (p.batch_group_count > 1) {
        new_lhs = axis_into(*dims[0], dn.lhs_spec[0], lhs);
        q.batch_group_count *= size;
      } else {
        new_lhs = axis_into(*dims[0], dn.lhs_spec[1], lhs);
        q.feature_group_count *= size;
      }
      auto const out = detail::bind<conv_general_dilated_p>(q, new_lhs, axis_into(*dims[1], dn.rhs_spec[0], rhs));
      return {axis_out_of(dn.out_spec[1], size, out), dn.out_spec[1]};
    }
    if (dims[0]) {
      auto const b = *dims[0], size = dim(lhs, b);
      Array<T> new_lhs;
      if (p.batch_group_count == 1) {
        new_lhs = axis_into(b, dn.lhs_spec[0], lhs);
      } else {
        // The groups stay outermost in the batch: split them out, fold the
        // mapped axis in below them, merge back.
        auto const bs = dn.lhs_spec[0];
        new_lhs = axis_out_of(bs + (b <= bs ? 1 : 0), p.batch_group_count, lhs);
        new_lhs = axis_into(b + (bs < b ? 1 : 0), bs + 1, new_lhs);
        new_lhs = axis_into(bs, bs, new_lhs);
      }
      auto const out = detail::bind<conv_general_dilated_p>(q, new_lhs, rhs);
      return {axis_out_of(dn.out_spec[0], size, out), dn.out_spec[0]};
    }
    auto const b = *dims[1], size = dim(rhs, b);
    auto const os = dn.rhs_spec[0];
    if (p.feature_group_count == 1 && p.batch_group_count == 1) {
      auto const out = detail::bind<conv_general_dilated_p>(q, lhs, axis_into(b, os, rhs));
      return {axis_out_of(dn.out_spec[1], size, out), dn.out_spec[1]};
    }
    auto const groups = std::max(p.feature_group_count, p.batch_group_count);
    auto new_rhs = axis_out_of(os + (b <= os ? 1 : 0), groups, rhs);
    new_rhs = axis_into(b + (os < b ? 1 : 0), os + 1, new_rhs);
    new_rhs = axis_into(os, os, new_rhs);
    auto out = detail::bind<conv_general_dilated_p>(q, lhs, new_rhs);
    auto const of = dn.out_spec[1];
    out = axis_out_of(of, groups, out);
    out = axis_out_of(of + 1, size, out);
    return {axis_into(of, of + 1, out), of};
  }

  static std::int64_t dilated(std::int64_t d, std::int64_t dilation) {
    return d == 0 ? 0 : 1 + dilation * (d - 1);
  }

 private:
  template <Element T>
  static std::int64_t dim(Array<T> const& x, std::int64_t axis) {
    return x.shape()[static_cast<std::size_t>(axis)];
  }
  template <Element T>
  static Shape spatial_shape(Array<T> const& x, Axes const& spec) {
    Shape s;
    for (std::size_t d = 2; d < spec.size(); ++d) s.push_back(dim(x, spec[d]));
    return s;
  }

  /// JAX's _reshape_axis_into: axis `src` moved next to (before) the axis
  /// that is `dst` once src is removed, and merged with it.
  template <Element T>
  static Array<T> axis_into(std::int64_t src, std::int64_t dst, Array<T> const& x) {
    auto const moved = detail::move_axis(x, src, dst);
    Shape shape;
    for (std::int64_t i = 0; i < moved.ndim(); ++i) {
      if (i == dst + 1) shape.back() *= dim(moved, i);
      else shape.push_back(dim(moved, i));
    }
    return lax::reshape(moved, shape);
  }
  /// JAX's _reshape_axis_out_of: axis `src` split into (size1, rest).
  template <Element T>
  static Array<T> axis_out_of(std::int64_t src, std::int64_t size1, Array<T> const& x) {
    Shape shape = x.shape();
    auto const at = static_cast<std::size_t>(src);
    auto const size2 = shape[at] / size1;
    shape[at] = size2;
    shape.insert(shape.begin() + src, size1);
    return lax::reshape(x, shape);
  }

  /// For each spatial dim: (lo, hi) padding of the cotangent convolution
  /// that gives the lhs back (JAX's _conv_general_vjp_lhs_padding).
  static std::vector<std::pair<std::int64_t, std::int64_t>> lhs_vjp_padding(Params const& p, Shape const& in,
                                                                             Shape const& window, Shape const& out) {
    std::vector<std::pair<std::int64_t, std::int64_t>> pads;
    for (std::size_t d = 0; d < in.size(); ++d) {
      auto const lhs_d = dilated(in[d], p.lhs_dilation[d]), rhs_d = dilated(window[d], p.rhs_dilation[d]);
      auto const out_d = dilated(out[d], p.window_strides[d]);
      auto const before = rhs_d - p.padding[d].first - 1;
      pads.emplace_back(before, lhs_d + rhs_d - 1 - out_d - before);
    }
    return pads;
  }
  /// The same for the rhs (JAX's _conv_general_vjp_rhs_padding).
  static std::vector<std::pair<std::int64_t, std::int64_t>> rhs_vjp_padding(Params const& p, Shape const& in,
                                                                             Shape const& window, Shape const& out) {
    std::vector<std::pair<std::int64_t, std::int64_t>> pads;
    for (std::size_t d = 0; d < in.size(); ++d) {
      auto const lhs_d = dilated(in[d], p.lhs_dilation[d]), rhs_d = dilated(window[d], p.rhs_dilation[d]);
      auto const out_d = dilated(out[d], p.window_strides[d]);
      auto const lo = p.padding[d].first;
      pads.emplace_back(lo, (out_d - lhs_d) + (rhs_d - lo - 1));
    }
    return pads;
  }
  static Shape spatial_of(Shape const& shape, Axes const& spec) {
    Shape s;
    for (std::size_t d = 2; d < spec.size(); ++d) s.push_back(shape[static_cast<std::size_t>(spec[d])]);
    return s;
  }
  static Axes swapped_first_two(Axes spec) {
    std::swap(spec[0], spec[1]);
    return spec;
  }

  template <Element T>
  static Array<T> transpose_lhs(Params const& p, Array<T> const& g, Shape const& lhs_shape, Array<T> rhs) {
    auto const& dn = p.dimension_numbers;
    Params q;
    q.feature_group_count = p.feature_group_count;
    if (p.feature_group_count > 1 || p.batch_group_count > 1) {
      // The groups move from the kernel's output features to its input features.
      auto const groups = std::max(p.feature_group_count, p.batch_group_count);
      rhs = axis_into(dn.rhs_spec[0], dn.rhs_spec[1], axis_out_of(dn.rhs_spec[0], groups, rhs));
      q.feature_group_count = groups;
    }
    q.dimension_numbers = {dn.out_spec, swapped_first_two(dn.rhs_spec), dn.lhs_spec};
    q.padding = lhs_vjp_padding(p, spatial_of(lhs_shape, dn.lhs_spec), spatial_of(rhs.shape(), dn.rhs_spec),
                                spatial_of(g.shape(), dn.out_spec));
    q.window_strides = p.lhs_dilation;
    q.lhs_dilation = p.window_strides;
    q.rhs_dilation = p.rhs_dilation;
    for (std::size_t d = 2; d < dn.rhs_spec.size(); ++d) rhs = detail::reversed_along(rhs, dn.rhs_spec[d]);
    auto out = detail::bind<conv_general_dilated_p>(q, g, rhs);
    if (p.batch_group_count > 1)
      out = axis_into(dn.lhs_spec[1], dn.lhs_spec[0], axis_out_of(dn.lhs_spec[1], p.batch_group_count, out));
    return out;
  }

  template <Element T>
  static Array<T> transpose_rhs(Params const& p, Array<T> const& g, Array<T> const& lhs, Shape const& rhs_shape) {
    auto const& dn = p.dimension_numbers;
    if (g.size() == 0) return detail::zeros_view<T>(rhs_shape);
    Params q;
    // Feature groups become batch groups, and batch groups feature groups.
    q.feature_group_count = p.batch_group_count;
    q.batch_group_count = p.feature_group_count;
    q.dimension_numbers = {swapped_first_two(dn.lhs_spec), swapped_first_two(dn.out_spec),
                           swapped_first_two(dn.rhs_spec)};
    q.padding = rhs_vjp_padding(p, spatial_of(lhs.shape(), dn.lhs_spec), spatial_of(rhs_shape, dn.rhs_spec),
                                spatial_of(g.shape(), dn.out_spec));
    q.window_strides = p.rhs_dilation;
    q.lhs_dilation = p.lhs_dilation;
    q.rhs_dilation = p.window_strides;
    return detail::bind<conv_general_dilated_p>(q, lhs, g);
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::detail {

/// The kernels' view of a convolution: its parameters' dimension numbers
/// read off the operands and the output (of `out_shape`, `out_strides`).
template <Element T>
ConvGeometry conv_geometry(primitives::conv_general_dilated_p::Params const& p, Array<T> const& lhs,
                           Array<T> const& rhs, Shape const& out_shape, Strides const& out_strides) {
  auto const& dn = p.dimension_numbers;
  auto const at = [](auto const& v, std::int64_t i) { return v[static_cast<std::size_t>(i)]; };
  ConvGeometry g;
  g.groups = p.feature_group_count * p.batch_group_count;
  g.batch_groups = p.batch_group_count;
  g.out_batch = at(out_shape, dn.out_spec[0]);
  g.in_features = at(rhs.shape(), dn.rhs_spec[1]);
  g.out_features = at(rhs.shape(), dn.rhs_spec[0]) / g.groups;
  g.lhs_batch_stride = at(lhs.strides(), dn.lhs_spec[0]);
  g.lhs_feature_stride = at(lhs.strides(), dn.lhs_spec[1]);
  g.rhs_out_stride = at(rhs.strides(), dn.rhs_spec[0]);
  g.rhs_in_stride = at(rhs.strides(), dn.rhs_spec[1]);
  g.out_batch_stride = at(out_strides, dn.out_spec[0]);
  g.out_feature_stride = at(out_strides, dn.out_spec[1]);
  for (std::size_t d = 0; d + 2 < dn.lhs_spec.size(); ++d) {
    g.in.push_back(at(lhs.shape(), dn.lhs_spec[2 + d]));
    g.window.push_back(at(rhs.shape(), dn.rhs_spec[2 + d]));
    g.out.push_back(at(out_shape, dn.out_spec[2 + d]));
    g.strides.push_back(p.window_strides[d]);
    g.pad_lo.push_back(p.padding[d].first);
    g.lhs_dilation.push_back(p.lhs_dilation[d]);
    g.rhs_dilation.push_back(p.rhs_dilation[d]);
    g.lhs_spatial.push_back(at(lhs.strides(), dn.lhs_spec[2 + d]));
    g.rhs_spatial.push_back(at(rhs.strides(), dn.rhs_spec[2 + d]));
    g.out_spatial.push_back(at(out_strides, dn.out_spec[2 + d]));
  }
  if (g.in.empty()) {
    g.in = g.window = g.out = Shape{1};
    g.strides = g.lhs_dilation = g.rhs_dilation = Axes{1};
    g.pad_lo = Axes{0};
    g.lhs_spatial = g.rhs_spatial = g.out_spatial = Strides{0};
  }
  return g;
}

/// The input as the kernels read it: as it is where its positions are one
/// unit-stride run, else (NHWC) a dense copy in (batch, feature, positions)
/// order, with `g`'s input strides set to it: one pass over the input,
/// where patches and shifted products would gather each element with a
/// stride.
template <Element T>
Array<T> conv_input_in_runs(ConvGeometry& g, Array<T> const& lhs, Axes const& lhs_spec) {
  if (flat_stride(g.in, g.lhs_spatial) == 1) return lhs;
  auto const dense = contiguous(lax::transpose(lhs, lhs_spec));
  std::int64_t step = 1;
  for (auto d = g.in.size(); d-- > 0;) {
    g.lhs_spatial[d] = step;
    step *= g.in[d];
  }
  g.lhs_feature_stride = step;
  g.lhs_batch_stride = step * lhs.shape()[static_cast<std::size_t>(lhs_spec[1])];
  return dense;
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

template <Element T>
Array<T> conv_general_dilated_p::impl(Params const& p, Shape out_shape, Array<T> const& lhs, Array<T> const& rhs) {
  auto allocated = detail::allocate<T>(std::move(out_shape));
  auto const& out = allocated.first;
  T* const dst = allocated.second;
  if (out.size() == 0) return out;
  auto g = detail::conv_geometry(p, lhs, rhs, out.shape(), out.strides());
  if (g.in_features == 0 || g.window_size() == 0) {
    std::fill(dst, dst + out.size(), T{0});
    return out;
  }
  auto const input = detail::conv_input_in_runs(g, lhs, p.dimension_numbers.lhs_spec);
  detail::ConvKernels<T> const kernels(g, rhs, p.dimension_numbers.rhs_spec, detail::conv_feature_block<T>(g));
  detail::ConvTarget<T> const target(g, dst);
  if (auto const shifts = detail::ConvByShifts<T>::planned(g, kernels)) shifts->convolve(g, input.data(), target);
  else detail::conv_by_im2col(g, kernels, input.data(), target);
  return out;
}

}  // namespace jaxcc::primitives
