// conv_general_dilated: XLA's convolution, as lax.conv_general_dilated
// binds it. Dimension numbers say where the batch, feature and spatial
// dims of each operand are; strides, explicit (lo, hi) padding, lhs
// (input) and rhs (kernel) dilation, and feature or batch groups follow
// XLA's semantics. The kernel reads the operands through their strides in
// any layout and runs one GEMM per block of input features: an im2col
// block of the input times the matching block of kernels. The derivatives
// are convolutions, as JAX's bilinear rules make them, and vmap folds the
// mapped axis into the batch or feature dims as JAX's batching rule does.
#pragma once

#include <Eigen/Core>
#include <omp.h>

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

/// A convolution's geometry in canonical order (batch, feature, then the
/// spatial dims in the rhs's order), with each operand's element strides.
/// A convolution without spatial dims gets one of size 1.
struct ConvGeometry {
  std::int64_t out_batch = 0, groups = 1, batch_groups = 1;
  std::int64_t in_features = 0;   // per group: the rhs's input features
  std::int64_t out_features = 0;  // per group
  Shape in, window, out;
  Axes strides, pad_lo, lhs_dilation, rhs_dilation;
  std::int64_t lhs_batch_stride = 0, lhs_feature_stride = 0, rhs_out_stride = 0, rhs_in_stride = 0,
               out_batch_stride = 0, out_feature_stride = 0;
  Strides lhs_spatial, rhs_spatial, out_spatial;

  std::int64_t window_size() const { return window.numel(); }
  std::int64_t out_size() const { return out.numel(); }
};

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

/// The stride with which `sizes`/`strides` can be walked as one flat run
/// (row-major order), if they can.
inline std::optional<std::int64_t> flat_stride(Shape const& sizes, Strides const& strides) {
  std::optional<std::int64_t> step;
  std::int64_t expected = 0;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (!step) {
      step = strides[d];
    } else if (strides[d] != expected) {
      return std::nullopt;
    }
    expected = strides[d] * sizes[d];
  }
  return step.value_or(1);
}

/// Advance a row-major multi-index over `sizes`; false after the last.
inline bool next_index(std::vector<std::int64_t>& index, Shape const& sizes) {
  for (auto d = static_cast<std::ptrdiff_t>(index.size()) - 1; d >= 0; --d) {
    auto const u = static_cast<std::size_t>(d);
    if (++index[u] < sizes[u]) return true;
    index[u] = 0;
  }
  return false;
}

/// The offset, through `in_strides`, of the input row that output position
/// s reads at window position k along the first `dims` spatial dims; none
/// when that row is padding or between dilated elements.
inline std::optional<std::int64_t> row_source(ConvGeometry const& g, std::vector<std::int64_t> const& s,
                                              std::vector<std::int64_t> const& k, Strides const& in_strides,
                                              std::size_t dims) {
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < dims; ++d) {
    auto const pos = s[d] * g.strides[d] + k[d] * g.rhs_dilation[d] - g.pad_lo[d];
    auto const dil = g.lhs_dilation[d];
    if (pos < 0 || pos % dil != 0 || pos / dil >= g.in[d]) return std::nullopt;
    offset += (pos / dil) * in_strides[d];
  }
  return offset;
}

/// Output rows (runs along the last spatial dim) that read input rows at
/// one window position: `rows` rows, the first at flat output position
/// `column`, each the next along the dim before the last (`row` positions
/// on), reading input rows `source_step` apart (through the walk's
/// strides) from `source`, or all padding or between dilated elements (no
/// source). `first` is the dilated position along the last dim that
/// column 0 reads.
struct WindowRun {
  std::int64_t k, column, rows, first, source_step;
  std::optional<std::int64_t> source;
};

/// Where the window's position k (flat) reads for every row of output
/// positions: `visit(WindowRun)` for each run of rows that read consecutive
/// input rows or none, a few per window position: the work per row is then
/// the caller's inner loop, not a walk over every dim.
template <class Visit>
void for_each_window_run(ConvGeometry const& g, Strides const& in_strides, Visit&& visit) {
  auto const nd = g.in.size(), last = nd - 1;
  auto const row = g.out[last];
  std::vector<std::int64_t> k(nd, 0);
  std::int64_t kk = 0;
  do {
    auto const first = k[last] * g.rhs_dilation[last] - g.pad_lo[last];
    if (nd == 1) {
      visit(WindowRun{kk++, 0, 1, first, 0, 0});
      continue;
    }
    // Runs go along dim `along`; the dims before it are walked one by one.
    auto const along = nd - 2;
    Shape const outer(g.out.begin(), g.out.begin() + static_cast<std::ptrdiff_t>(along));
    std::vector<std::int64_t> s(along, 0);
    std::int64_t column = 0;
    auto const stride = g.strides[along], dil = g.lhs_dilation[along], in = g.in[along], count = g.out[along];
    auto const offset = k[along] * g.rhs_dilation[along] - g.pad_lo[along];
    auto const reads = [&](std::int64_t r) {
      auto const pos = r * stride + offset;
      return pos >= 0 && (dil == 1 ? pos < in : pos % dil == 0 && pos / dil < in);
    };
    do {
      auto const base = row_source(g, s, k, in_strides, along);
      for (std::int64_t r = 0; r < count;) {
        bool const inside = base && reads(r);
        auto end = r + 1;
        // Undilated inside rows read consecutive input rows; dilated ones go one by one.
        if (!inside || dil == 1)
          while (end < count && (base && reads(end)) == inside) ++end;
        std::optional<std::int64_t> source;
        if (inside) source = *base + (r * stride + offset) / dil * in_strides[along];
        visit(WindowRun{kk, column + r * row, end - r, first, stride * in_strides[along], source});
        r = end;
      }
      column += count * row;
    } while (next_index(s, outer));
    ++kk;
  } while (next_index(k, g.window));
}

/// Along the last spatial dim: the output columns [lo, hi) whose position
/// first + c * stride falls inside the (undilated) input.
inline std::pair<std::int64_t, std::int64_t> inside_columns(ConvGeometry const& g, std::int64_t first) {
  auto const last = g.in.size() - 1;
  auto const stride = g.strides[last], row = g.out[last], in = g.in[last];
  auto const lo = std::min(first >= 0 ? 0 : (-first + stride - 1) / stride, row);
  auto const hi = std::clamp<std::int64_t>(in - first <= 0 ? 0 : (in - first + stride - 1) / stride, lo, row);
  return {lo, hi};
}

/// Along a dilated last dim: the input index column c reads, or -1.
inline std::int64_t dilated_source(ConvGeometry const& g, std::int64_t first, std::int64_t c) {
  auto const last = g.in.size() - 1;
  auto const pos = first + c * g.strides[last];
  auto const dil = g.lhs_dilation[last];
  return pos >= 0 && pos % dil == 0 && pos / dil < g.in[last] ? pos / dil : -1;
}

/// im2col: rows (feature i, window position k) for i in [0, features), of
/// the input of one batch element starting at `in`; columns the output's
/// spatial positions, in rows `pitch` apart. Positions in the padding or
/// between dilated input elements read zero.
template <class T>
void conv_patches(ConvGeometry const& g, T const* in, std::int64_t features, T* patches, std::int64_t pitch) {
  auto const last = g.in.size() - 1;
  auto const row = g.out[last], step = g.lhs_spatial[last];
  auto const stride = g.strides[last] * step;
  for (std::int64_t i = 0; i < features; ++i) {
    T const* feature = in + i * g.lhs_feature_stride;
    T* window_rows = patches + i * g.window_size() * pitch;
    for_each_window_run(g, g.lhs_spatial, [&](WindowRun const& run) {
      T* dst = window_rows + run.k * pitch + run.column;
      auto const span = run.rows * row;
      if (!run.source) {
        std::fill(dst, dst + span, T{0});
      } else if (g.lhs_dilation[last] != 1) {
        for (std::int64_t r = 0; r < run.rows; ++r)
          for (std::int64_t c = 0; c < row; ++c) {
            auto const at = dilated_source(g, run.first, c);
            dst[r * row + c] = at < 0 ? T{0} : feature[*run.source + r * run.source_step + at * step];
          }
      } else if (auto const [lo, hi] = inside_columns(g, run.first); lo >= hi) {
        std::fill(dst, dst + span, T{0});
      } else if (T const* src = feature + *run.source + run.first * step; stride == 1 && run.source_step == row) {
        // The rows' inputs follow each other as their outputs do (SAME
        // padding, unit strides): one copy, whose reads between one row's
        // last inside column and the next row's first land on the padding
        // columns, zeroed after.
        std::copy(src + lo, src + (span - row) + hi, dst + lo);
        for (std::int64_t c = 0; c < lo; ++c)
          for (std::int64_t r = 0; r < run.rows; ++r) dst[r * row + c] = T{0};
        for (auto c = hi; c < row; ++c)
          for (std::int64_t r = 0; r < run.rows; ++r) dst[r * row + c] = T{0};
      } else {
        for (std::int64_t r = 0; r < run.rows; ++r, dst += row, src += run.source_step) {
          std::fill(dst, dst + lo, T{0});
          for (auto c = lo; c < hi; ++c) dst[c] = src[c * stride];
          std::fill(dst + hi, dst + row, T{0});
        }
      }
    });
  }
}

/// im2col stored by columns, for outputs with fewer positions along the
/// last spatial dim than the window (a kernel's gradient, whose window is
/// the image): column c (an output position) holds its rows (feature i,
/// window position k) contiguously, `pitch` apart, filled by runs along the
/// window's last dim, which read the input contiguously.
template <class T>
void conv_patches_by_window(ConvGeometry const& g, T const* in, std::int64_t features, T* patches,
                            std::int64_t pitch) {
  auto const nd = g.in.size(), last = nd - 1;
  auto const run = g.window[last], step = g.lhs_spatial[last];
  auto const window = g.window_size();
  Shape const outer(g.window.begin(), g.window.end() - 1);
  std::vector<std::int64_t> s(nd, 0), k(last, 0);
  std::int64_t column = 0;
  do {
    T* col = patches + column * pitch;
    for (std::int64_t i = 0; i < features; ++i) {
      T const* feature = in + i * g.lhs_feature_stride;
      T* dst = col + i * window;
      do {
        auto const source = row_source(g, s, k, g.lhs_spatial, last);
        // Along the window's last dim: position first + j * rhs_dilation for window index j.
        auto const first = s[last] * g.strides[last] - g.pad_lo[last];
        auto const dil = g.rhs_dilation[last], in_dil = g.lhs_dilation[last];
        if (!source) {
          std::fill(dst, dst + run, T{0});
        } else if (dil == 1 && in_dil == 1) {
          // Window indices [lo, hi) read inside the input, as one contiguous run when step is 1.
          auto const lo = std::clamp<std::int64_t>(-first, 0, run);
          auto const hi = std::clamp<std::int64_t>(g.in[last] - first, lo, run);
          T const* src = feature + *source + first * step;
          std::fill(dst, dst + lo, T{0});
          if (step == 1) std::copy(src + lo, src + hi, dst + lo);
          else
            for (auto j = lo; j < hi; ++j) dst[j] = src[j * step];
          std::fill(dst + hi, dst + run, T{0});
        } else {
          for (std::int64_t j = 0; j < run; ++j) {
            auto const pos = first + j * dil;
            dst[j] = pos >= 0 && pos % in_dil == 0 && pos / in_dil < g.in[last] ? feature[*source + (pos / in_dil) * step]
                                                                               : T{0};
          }
        }
        dst += run;
      } while (next_index(k, outer));
    }
    ++column;
  } while (next_index(s, g.out));
}

/// The transpose of conv_patches for one output feature: each window
/// position's row of `z` (the products with the input, over the input's
/// positions in row-major order) added to the output positions reading it.
template <class T>
void conv_shift_add(ConvGeometry const& g, Strides const& z_strides, T const* z, std::int64_t z_pitch, T* out) {
  auto const last = g.in.size() - 1;
  auto const row = g.out[last], stride = g.strides[last];
  for_each_window_run(g, z_strides, [&](WindowRun const& run) {
    if (!run.source) return;
    T* dst = out + run.column;
    T const* src = z + run.k * z_pitch + *run.source;
    if (g.lhs_dilation[last] == 1) {
      auto const [lo, hi] = inside_columns(g, run.first);
      src += run.first;
      for (std::int64_t r = 0; r < run.rows; ++r, dst += row, src += run.source_step) {
        if (stride == 1)
          for (auto c = lo; c < hi; ++c) dst[c] += src[c];
        else
          for (auto c = lo; c < hi; ++c) dst[c] += src[c * stride];
      }
    } else {
      for (std::int64_t r = 0; r < run.rows; ++r, dst += row, src += run.source_step)
        for (std::int64_t c = 0; c < row; ++c)
          if (auto const at = dilated_source(g, run.first, c); at >= 0) dst[c] += src[at];
    }
  });
}

template <class T>
using ConvMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A row-major matrix read in place: rows `row_stride` apart, elements
/// contiguous, or `column_stride` apart.
template <class T>
auto strided_matrix(T const* data, std::int64_t rows, std::int64_t columns, std::int64_t row_stride) {
  return Eigen::Map<ConvMatrix<T> const, Eigen::Unaligned, Eigen::OuterStride<>>(data, rows, columns,
                                                                                 Eigen::OuterStride<>(row_stride));
}
template <class T>
auto strided_matrix(T const* data, std::int64_t rows, std::int64_t columns, std::int64_t row_stride,
                    std::int64_t column_stride) {
  using Stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
  return Eigen::Map<ConvMatrix<T> const, Eigen::Unaligned, Stride>(data, rows, columns, Stride(row_stride, column_stride));
}

/// The kernels as GEMM operands: for a block of input features, an
/// (out_features × features·window) matrix with uniform strides, read in
/// place when the rhs's layout allows, else from a dense copy.
template <class T>
struct ConvKernels {
  T const* data;
  std::int64_t out_stride, in_stride, window_stride;
  std::int64_t block;  // input features per GEMM: 1 when in_stride breaks the flat run
  Array<T> owner;      // the dense copy, when one was made

  ConvKernels(ConvGeometry const& g, Array<T> const& rhs, Axes const& rhs_spec, std::int64_t block_limit) {
    auto const window_step = flat_stride(g.window, g.rhs_spatial);
    if (window_step) {
      data = rhs.data();
      out_stride = g.rhs_out_stride;
      in_stride = g.rhs_in_stride;
      window_stride = *window_step;
    } else {
      // Copy to (out, in, window...) order: everything merges.
      auto const dense = detail::contiguous(lax::transpose(rhs, rhs_spec));
      owner = dense;
      data = dense.data();
      window_stride = 1;
      in_stride = g.window_size();
      out_stride = g.in_features * in_stride;
    }
    bool const merges = g.in_features == 1 || in_stride == g.window_size() * window_stride;
    block = merges ? std::clamp<std::int64_t>(block_limit, 1, g.in_features) : 1;
  }
};

template <class T>
using ConvResult = Eigen::Map<ConvMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

/// Zeros a result row by row, each row one memset: Eigen's setZero on a
/// strided map stores vectors, reading each line first.
template <class T>
void zero_rows(ConvResult<T>& result) {
  for (Eigen::Index r = 0; r < result.rows(); ++r) std::fill_n(result.row(r).data(), result.cols(), T{0});
}

/// Where the output rows of `count` batch elements from n and one group go:
/// the output itself when that is one strided matrix, else `scratch`
/// (features × count·positions), which write_rows then scatters.
template <class T>
struct ConvTarget {
  ConvGeometry const& g;
  T* out;
  bool flat;

  ConvTarget(ConvGeometry const& geometry, T* output) : g(geometry), out(output) {
    auto const step = flat_stride(g.out, g.out_spatial);
    flat = step && *step == 1;
  }
  T* rows_of(std::int64_t n, std::int64_t group) const {
    return out + n * g.out_batch_stride + group * g.out_features * g.out_feature_stride;
  }
  bool direct(std::int64_t count) const { return flat && count == 1; }
  ConvResult<T> result(std::int64_t n, std::int64_t count, std::int64_t group, std::vector<T>& scratch) const {
    auto const columns = count * g.out_size();
    if (direct(count)) return {rows_of(n, group), g.out_features, columns, Eigen::OuterStride<>(g.out_feature_stride)};
    scratch.resize(static_cast<std::size_t>(g.out_features * columns));
    return {scratch.data(), g.out_features, columns, Eigen::OuterStride<>(columns)};
  }
  void write_rows(std::int64_t n, std::int64_t count, std::int64_t group, std::vector<T> const& scratch) const {
    if (direct(count)) return;
    auto const columns = count * g.out_size();
    std::vector<std::int64_t> offsets;
    std::vector<std::int64_t> s(g.out.size(), 0);
    do {
      std::int64_t offset = 0;
      for (std::size_t d = 0; d < s.size(); ++d) offset += s[d] * g.out_spatial[d];
      offsets.push_back(offset);
    } while (next_index(s, g.out));
    for (std::int64_t b = 0; b < count; ++b) {
      T* dst = rows_of(n + b, group);
      for (std::int64_t o = 0; o < g.out_features; ++o) {
        T const* src = scratch.data() + o * columns + b * g.out_size();
        for (std::size_t c = 0; c < offsets.size(); ++c) dst[o * g.out_feature_stride + offsets[c]] = src[c];
      }
    }
  }
};

/// The output of `count` batch elements from n in one group: its rows
/// (features) times its columns (each element's spatial positions), summed
/// over the input features in [begin, end) — one im2col block and GEMM per
/// block of features.
template <class T>
void conv_rows(ConvGeometry const& g, ConvKernels<T> const& kernels, T const* lhs, std::int64_t n, std::int64_t count,
               std::int64_t group, std::int64_t begin, std::int64_t end, ConvResult<T>& result,
               std::vector<T>& patches) {
  auto const positions = g.out_size(), columns = count * positions, window = g.window_size();
  auto const feature0 = g.batch_groups > 1 ? 0 : group * g.in_features;
  auto const kernels_of_group = kernels.data + group * g.out_features * kernels.out_stride;
  if (begin == end) zero_rows(result);
  for (auto i0 = begin; i0 < end; i0 += kernels.block) {
    auto const features = std::min(kernels.block, end - i0);
    auto const rows = features * window;
    patches.resize(static_cast<std::size_t>(rows * columns));
    bool const by_window = g.window.back() > g.out.back();
    for (std::int64_t b = 0; b < count; ++b) {
      auto const in_batch = g.batch_groups > 1 ? group * g.out_batch + n + b : n + b;
      T const* in = lhs + in_batch * g.lhs_batch_stride + (feature0 + i0) * g.lhs_feature_stride;
      if (by_window) conv_patches_by_window(g, in, features, patches.data() + b * positions * rows, rows);
      else conv_patches(g, in, features, patches.data() + b * positions, columns);
    }
    auto const accumulate = [&](auto const& weights, auto const& cols) {
      if (i0 == begin) zero_rows(result);
      result.noalias() += weights * cols;
    };
    auto const with_weights = [&](auto const& cols) {
      T const* w = kernels_of_group + i0 * kernels.in_stride;
      // A unit inner stride known at compile time: Eigen's GEMM reads such a map in place.
      if (kernels.window_stride == 1)
        accumulate(strided_matrix(w, g.out_features, rows, kernels.out_stride), cols);
      else
        accumulate(strided_matrix(w, g.out_features, rows, kernels.out_stride, kernels.window_stride), cols);
    };
    if (by_window) with_weights(Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> const>(patches.data(), rows, columns));
    else with_weights(Eigen::Map<ConvMatrix<T> const>(patches.data(), rows, columns));
  }
}

/// The other order, for kernels with fewer output than input features (a
/// gradient with respect to the input): per batch element, z = W' x, the
/// (features · window) × input-positions products of the transposed kernels
/// with the input, then each output position adds up the products that its
/// window reads (conv_shift_add). Its intermediate is out_features/in_features
/// of im2col's.
template <class T>
struct ConvByShifts {
  std::vector<T> transposed;  // per group: (out_features · window) × in_features, dense
  std::int64_t in_step;       // the input's flat spatial stride
  Strides z_strides;          // row-major over the input's spatial shape

  static std::optional<ConvByShifts> planned(ConvGeometry const& g, ConvKernels<T> const& kernels) {
    auto const in_step = flat_stride(g.in, g.lhs_spatial);
    if (!in_step || g.out_features * g.in.numel() >= g.in_features * g.out_size()) return std::nullopt;
    ConvByShifts plan;
    plan.in_step = *in_step;
    plan.z_strides = contiguous_strides(g.in);
    auto const window = g.window_size();
    plan.transposed.resize(static_cast<std::size_t>(g.groups * g.out_features * window * g.in_features));
    T* w = plan.transposed.data();
    for (std::int64_t group = 0; group < g.groups; ++group)
      for (std::int64_t o = 0; o < g.out_features; ++o)
        for (std::int64_t k = 0; k < window; ++k)
          for (std::int64_t i = 0; i < g.in_features; ++i)
            *w++ = kernels.data[(group * g.out_features + o) * kernels.out_stride + i * kernels.in_stride +
                                k * kernels.window_stride];
    return plan;
  }

  void rows(ConvGeometry const& g, T const* lhs, std::int64_t n, std::int64_t group, ConvResult<T>& result,
            std::vector<T>& z) const {
    auto const window = g.window_size(), positions = g.in.numel();
    auto const in_batch = g.batch_groups > 1 ? group * g.out_batch + n : n;
    auto const feature0 = g.batch_groups > 1 ? 0 : group * g.in_features;
    T const* x = lhs + in_batch * g.lhs_batch_stride + feature0 * g.lhs_feature_stride;
    Eigen::Map<ConvMatrix<T> const> w(transposed.data() + group * g.out_features * window * g.in_features,
                                      g.out_features * window, g.in_features);
    z.resize(static_cast<std::size_t>(g.out_features * window * positions));
    Eigen::Map<ConvMatrix<T>> products(z.data(), g.out_features * window, positions);
    if (in_step == 1) products.noalias() = w * strided_matrix(x, g.in_features, positions, g.lhs_feature_stride);
    else products.noalias() = w * strided_matrix(x, g.in_features, positions, g.lhs_feature_stride, in_step);
    zero_rows(result);
    for (std::int64_t o = 0; o < g.out_features; ++o)
      conv_shift_add(g, z_strides, z.data() + o * window * positions, positions, result.row(o).data());
  }
};

/// Input features per im2col block: about 1 MiB of patches.
template <class T>
std::int64_t conv_feature_block(ConvGeometry const& g) {
  auto const per_feature = std::max<std::int64_t>(g.window_size() * g.out_size(), 1);
  return std::max<std::int64_t>(1, (std::int64_t{1} << 20) / static_cast<std::int64_t>(sizeof(T)) / per_feature);
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

template <Element T>
Array<T> conv_general_dilated_p::impl(Params const& p, Shape out_shape, Array<T> const& lhs, Array<T> const& rhs) {
  auto allocated = detail::allocate<T>(std::move(out_shape));
  auto const& out = allocated.first;
  T* const dst = allocated.second;  // a plain variable: OpenMP regions can't capture bindings
  if (out.size() == 0) return out;
  auto const g = detail::conv_geometry(p, lhs, rhs, out.shape(), out.strides());
  if (g.in_features == 0 || g.window_size() == 0) {
    std::fill(dst, dst + out.size(), T{0});
    return out;
  }
  detail::ConvKernels<T> const kernels(g, rhs, p.dimension_numbers.rhs_spec, detail::conv_feature_block<T>(g));
  detail::ConvTarget<T> const target(g, dst);
  auto const threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  T const* const src = lhs.data();

  if (auto const shifts = detail::ConvByShifts<T>::planned(g, kernels)) {
    auto const tasks = g.out_batch * g.groups;
    auto const run = [&](std::int64_t t, std::vector<T>& z, std::vector<T>& scratch) {
      auto result = target.result(t / g.groups, 1, t % g.groups, scratch);
      shifts->rows(g, src, t / g.groups, t % g.groups, result, z);
      target.write_rows(t / g.groups, 1, t % g.groups, scratch);
    };
    if (threads > 1 && tasks >= threads) {
#pragma omp parallel
      {
        std::vector<T> z, scratch;
#pragma omp for schedule(dynamic)
        for (std::int64_t t = 0; t < tasks; ++t) run(t, z, scratch);
      }
    } else {
      std::vector<T> z, scratch;
      for (std::int64_t t = 0; t < tasks; ++t) run(t, z, scratch);
    }
    return out;
  }

  // Batch elements share a GEMM when each has few output positions: the
  // kernels are then packed once for all of them.
  auto const per_gemm = std::clamp<std::int64_t>(256 / g.out_size(), 1, g.out_batch);
  auto const chunks = (g.out_batch + per_gemm - 1) / per_gemm;
  auto const tasks = chunks * g.groups;
  auto const blocks = (g.in_features + kernels.block - 1) / kernels.block;
  // Task t: group t % groups, batch elements [n, n + count).
  auto const first_of = [&](std::int64_t t) { return t / g.groups * per_gemm; };
  auto const count_of = [&](std::int64_t t) { return std::min(per_gemm, g.out_batch - first_of(t)); };
  if (threads > 1 && tasks >= 2 * threads) {
    // Enough tasks: one per thread at a time.
#pragma omp parallel
    {
      std::vector<T> patches, scratch;
#pragma omp for schedule(dynamic)
      for (std::int64_t t = 0; t < tasks; ++t) {
        auto result = target.result(first_of(t), count_of(t), t % g.groups, scratch);
        detail::conv_rows(g, kernels, src, first_of(t), count_of(t), t % g.groups, 0, g.in_features, result, patches);
        target.write_rows(first_of(t), count_of(t), t % g.groups, scratch);
      }
    }
  } else if (threads > 1 && blocks >= threads) {
    // Few tasks of many feature blocks (a kernel's gradient): each thread
    // sums its share of the blocks, and the shares are added.
    std::vector<T> partial;
    for (std::int64_t t = 0; t < tasks; ++t) {
      auto const size = g.out_features * count_of(t) * g.out_size();
      partial.resize(static_cast<std::size_t>(threads * size));
      auto const share = [&](std::int64_t id) {
        return detail::ConvResult<T>(partial.data() + id * size, g.out_features, count_of(t) * g.out_size(),
                                     Eigen::OuterStride<>(count_of(t) * g.out_size()));
      };
#pragma omp parallel num_threads(threads)
      {
        std::vector<T> patches;
        auto const id = static_cast<std::int64_t>(omp_get_thread_num());
        auto const begin = std::min(g.in_features, id * blocks / threads * kernels.block);
        auto const end = std::min(g.in_features, (id + 1) * blocks / threads * kernels.block);
        auto mine = share(id);
        detail::conv_rows(g, kernels, src, first_of(t), count_of(t), t % g.groups, begin, end, mine, patches);
      }
      std::vector<T> scratch;
      auto result = target.result(first_of(t), count_of(t), t % g.groups, scratch);
      result = share(0);
      for (std::int64_t id = 1; id < threads; ++id) result += share(id);
      target.write_rows(first_of(t), count_of(t), t % g.groups, scratch);
    }
  } else {
    // One at a time, Eigen's GEMM spreading over the threads.
    std::vector<T> patches, scratch;
    for (std::int64_t t = 0; t < tasks; ++t) {
      auto result = target.result(first_of(t), count_of(t), t % g.groups, scratch);
      detail::conv_rows(g, kernels, src, first_of(t), count_of(t), t % g.groups, 0, g.in_features, result, patches);
      target.write_rows(first_of(t), count_of(t), t % g.groups, scratch);
    }
  }
  return out;
}

}  // namespace jaxcc::primitives
