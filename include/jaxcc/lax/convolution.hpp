// lax.conv_general_dilated, lax.conv, conv_with_general_padding and
// conv_transpose: JAX's convolution API over the conv_general_dilated
// primitive; conv_general_dilated_patches; and the shape helpers (conv_dimension_numbers,
// conv_general_permutations, conv_shape_tuple, conv_general_shape_tuple,
// conv_transpose_shape_tuple). Dimension numbers are given as three
// spec strings (("NCHW", "OIHW", "NCHW") by default, ("NHWC", "HWIO",
// "NHWC") for TensorFlow's layout); padding as lax/padding.hpp takes it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/lax/padding.hpp"
#include "jaxcc/primitives/bits/gather_p.hpp"
#include "jaxcc/primitives/conv_general_dilated.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::lax {

using primitives::ConvDimensionNumbers;

/// Dimension numbers as three spec strings (lhs, rhs, out), e.g. {"NHWC",
/// "HWIO", "NHWC"}; none means ("NCHW", "OIHW", "NCHW") and its analogues
/// in other ranks.
class ConvSpecs {
 public:
  ConvSpecs() = default;
  ConvSpecs(none_t) {}
  ConvSpecs(std::string lhs, std::string rhs, std::string out) : specs_(std::array{lhs, rhs, out}) {}
  ConvSpecs(ConvDimensionNumbers numbers) : numbers_(std::move(numbers)) {}

  /// Whether none was given (the layout's defaults apply).
  bool is_default() const noexcept { return !specs_ && !numbers_; }

  /// lax.conv_dimension_numbers, with JAX's messages for a bad spec.
  ConvDimensionNumbers resolve(Shape const& lhs_shape, Shape const& rhs_shape) const {
    auto const ndim = static_cast<std::int64_t>(lhs_shape.size());
    if (lhs_shape.size() != rhs_shape.size())
      throw Error("convolution requires lhs and rhs ndim to be equal, got " + std::to_string(lhs_shape.size()) +
                  " and " + std::to_string(rhs_shape.size()) + ".");
    if (numbers_) return *numbers_;
    if (!specs_) {
      Axes iota;
      for (std::int64_t i = 0; i < ndim; ++i) iota.push_back(i);
      return {iota, iota, iota};
    }
    auto const& specs = *specs_;
    for (std::size_t i = 0; i < 3; ++i)
      if (static_cast<std::int64_t>(specs[i].size()) != ndim)
        throw Error("convolution dimension_numbers[" + std::to_string(i) +
                    "] must have len equal to the ndim of lhs and rhs, got " + std::to_string(specs[i].size()) +
                    " for lhs and rhs shapes " + to_string(lhs_shape) + " and " + to_string(rhs_shape) + ".");
    constexpr std::array<std::array<char, 2>, 3> pairs{{{'N', 'C'}, {'O', 'I'}, {'N', 'C'}}};
    for (std::size_t i = 0; i < 3; ++i) {
      auto const& spec = specs[i];
      if (std::ranges::count(spec, pairs[i][0]) != 1 || std::ranges::count(spec, pairs[i][1]) != 1)
        throw Error("convolution dimension_numbers[" + std::to_string(i) + "] must contain the characters '" +
                      std::string(1, pairs[i][0]) + "' and '" + std::string(1, pairs[i][1]) +
                      "' exactly once, got " + spec + ".");
      auto sorted = spec;
      std::ranges::sort(sorted);
      if (std::ranges::adjacent_find(sorted) != sorted.end())
        throw Error("convolution dimension_numbers[" + std::to_string(i) + "] cannot have duplicate characters, got " +
                    spec + ".");
    }
    auto const spatial_set = [&](std::size_t i) {
      std::string s;
      for (char c : specs[i])
        if (c != pairs[i][0] && c != pairs[i][1]) s += c;
      std::ranges::sort(s);
      return s;
    };
    if (spatial_set(0) != spatial_set(1) || spatial_set(1) != spatial_set(2))
      throw Error("convolution dimension_numbers elements must each have the same set of spatial characters, got ('" +
                  specs[0] + "', '" + specs[1] + "', '" + specs[2] + "').");
    // Each spec: its two named dims, then its spatial dims in the rhs's order.
    auto const& rhs_spec = specs[1];
    auto const permutation = [&](std::size_t i) {
      auto const& spec = specs[i];
      Axes perm{static_cast<std::int64_t>(spec.find(pairs[i][0])), static_cast<std::int64_t>(spec.find(pairs[i][1]))};
      for (char c : rhs_spec)
        if (c != 'O' && c != 'I') perm.push_back(static_cast<std::int64_t>(spec.find(c)));
      return perm;
    };
    return {permutation(0), permutation(1), permutation(2)};
  }

 private:
  std::optional<std::array<std::string, 3>> specs_;
  std::optional<ConvDimensionNumbers> numbers_;
};

/// lax.conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation,
/// rhs_dilation, dimension_numbers, feature_group_count, batch_group_count).
/// An empty dilation means 1 in every spatial dimension.
template <ArrayLike L, ArrayLike R>
  requires std::same_as<value_type_t<L>, value_type_t<R>> && std::floating_point<value_type_t<L>>
Array<value_type_t<L>> conv_general_dilated(L const& lhs_in, R const& rhs_in, Axes const& window_strides,
                                            Padding const& padding, Axes lhs_dilation = {}, Axes rhs_dilation = {},
                                            ConvSpecs const& dimension_numbers = {},
                                            std::int64_t feature_group_count = 1,
                                            std::int64_t batch_group_count = 1) {
  auto const lhs = as_array(lhs_in);
  auto const rhs = as_array(rhs_in);
  auto const dn = dimension_numbers.resolve(lhs.shape(), rhs.shape());
  auto const spatial = static_cast<std::size_t>(std::max<std::int64_t>(lhs.ndim() - 2, 0));
  auto const check_entries = [&](Axes const& values, std::string_view what) {
    if (values.size() != spatial)
      throw Error("conv_general_dilated " + std::string(what) + " must have one entry per spatial dimension (" +
                  std::to_string(spatial) + "), got " + detail::axes_string(values));
    for (auto v : values)
      if (v < 1)
        throw Error("conv_general_dilated " + std::string(what) + " must be positive, got " +
                    detail::axes_string(values));
  };
  if (!lhs_dilation.empty() && padding.is_string() &&
      std::ranges::any_of(lhs_dilation, [](std::int64_t d) { return d != 1; }))
    throw Error("String padding is not implemented for transposed convolution using this op. Please either exactly "
                "specify the required padding or use conv_transpose.");
  if (lhs_dilation.empty()) lhs_dilation = Axes(spatial, 1);
  if (rhs_dilation.empty()) rhs_dilation = Axes(spatial, 1);
  check_entries(window_strides, "window_strides");
  check_entries(lhs_dilation, "lhs_dilation");
  check_entries(rhs_dilation, "rhs_dilation");
  primitives::conv_general_dilated_p::Params p;
  p.window_strides = window_strides;
  p.lhs_dilation = lhs_dilation;
  p.rhs_dilation = rhs_dilation;
  p.dimension_numbers = dn;
  p.feature_group_count = feature_group_count;
  p.batch_group_count = batch_group_count;
  if (padding.is_string()) {
    Shape in, window;
    for (std::size_t d = 0; d < spatial; ++d) {
      in.push_back(lhs.shape()[static_cast<std::size_t>(dn.lhs_spec[2 + d])]);
      window.push_back(primitives::conv_general_dilated_p::dilated(
          rhs.shape()[static_cast<std::size_t>(dn.rhs_spec[2 + d])], rhs_dilation[d]));
    }
    p.padding = padtype_to_pads(in, window, window_strides, padding.kind());
  } else {
    p.padding = padding.pads();
  }
  return detail::bind<primitives::conv_general_dilated_p>(p, lhs, rhs);
}

/// lax.conv: conv_general_dilated with "SAME" or "VALID" padding in the
/// default layout (NCHW input, OIHW kernels).
template <ArrayLike L, ArrayLike R>
  requires std::same_as<value_type_t<L>, value_type_t<R>> && std::floating_point<value_type_t<L>>
Array<value_type_t<L>> conv(L const& lhs, R const& rhs, Axes const& window_strides, Padding const& padding) {
  return conv_general_dilated(lhs, rhs, window_strides, padding);
}

/// lax.conv_with_general_padding: conv_general_dilated in the default layout.
template <ArrayLike L, ArrayLike R>
  requires std::same_as<value_type_t<L>, value_type_t<R>> && std::floating_point<value_type_t<L>>
Array<value_type_t<L>> conv_with_general_padding(L const& lhs, R const& rhs, Axes const& window_strides,
                                                 Padding const& padding, Axes const& lhs_dilation = {},
                                                 Axes const& rhs_dilation = {}) {
  return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation);
}

/// lax.conv_dimension_numbers: the three specs as axis permutations.
inline ConvDimensionNumbers conv_dimension_numbers(Shape const& lhs_shape, Shape const& rhs_shape,
                                                   ConvSpecs const& dimension_numbers = {}) {
  return dimension_numbers.resolve(lhs_shape, rhs_shape);
}

/// lax.conv_general_permutations: (lhs_perm, rhs_perm, out_perm) of three
/// spec strings: each its two named dims, then its spatial dims in the rhs's order.
inline std::tuple<Axes, Axes, Axes> conv_general_permutations(std::array<std::string, 3> const& dimension_numbers) {
  Shape const shape(dimension_numbers[0].size(), 1);
  auto const dn = ConvSpecs(dimension_numbers[0], dimension_numbers[1], dimension_numbers[2]).resolve(shape, shape);
  return {dn.lhs_spec, dn.rhs_spec, dn.out_spec};
}

/// lax.conv_shape_tuple: the output shape (N, O, spatial...) of a
/// convolution of shapes in the default layout.
inline Shape conv_shape_tuple(Shape const& lhs_shape, Shape const& rhs_shape, Axes const& strides, Padding const& pads,
                              std::int64_t batch_group_count = 1) {
  Shape const in(lhs_shape.begin() + std::min<std::size_t>(2, lhs_shape.size()), lhs_shape.end());
  Shape const window(rhs_shape.begin() + std::min<std::size_t>(2, rhs_shape.size()), rhs_shape.end());
  auto const pairs = pads.is_string() ? padtype_to_pads(in, window, strides, pads.kind()) : pads.pads();
  if (pairs.size() != in.size())
    detail::throw_error("Wrong number of explicit pads for convolution: expected ", in.size(), ", got ", pairs.size(), ".");
  Shape out{lhs_shape[0] / std::max<std::int64_t>(batch_group_count, 1), rhs_shape[0]};
  for (std::size_t d = 0; d < in.size(); ++d) {
    auto const padded = in[d] + pairs[d].first + pairs[d].second;
    if (padded < 0)
      detail::throw_error("Negative padding is larger than the size of the corresponding dimension: got padding=",
                          detail::pairs_string(pairs), " for lhs_shape[2:]=", in);
    auto const span = padded - window[d];  // floor division, as Python's
    auto const q = span >= 0 ? span / strides[d] : -((-span + strides[d] - 1) / strides[d]);
    out.push_back(std::max<std::int64_t>(q + 1, 0));
  }
  return out;
}

}  // namespace jaxcc::lax

namespace jaxcc::detail {

/// shape[perm[i]] for each i.
inline Shape permuted(Shape const& shape, Axes const& perm) {
  Shape out;
  for (auto p : perm) out.push_back(shape[static_cast<std::size_t>(p)]);
  return out;
}
/// out with out[perm[i]] = shape[i] (np.take(shape, argsort(perm))).
inline Shape unpermuted(Shape const& shape, Axes const& perm) {
  Shape out(shape.size(), 0);
  for (std::size_t i = 0; i < perm.size(); ++i) out[static_cast<std::size_t>(perm[i])] = shape[i];
  return out;
}

/// conv_transpose's (lo, hi) padding of one spatial dimension: window k, stride s.
inline std::pair<std::int64_t, std::int64_t> conv_transpose_padding(std::int64_t k, std::int64_t s,
                                                                    std::string const& padding) {
  std::int64_t pad_len = 0, pad_a = 0;
  if (padding == "SAME") {
    pad_len = k + s - 2;
    pad_a = s > k - 1 ? k - 1 : (pad_len + 1) / 2;
  } else if (padding == "VALID") {
    pad_len = k + s - 2 + std::max<std::int64_t>(k - s, 0);
    pad_a = k - 1;
  } else {
    throw_error("Invalid padding mode: ", padding);
  }
  return {pad_a, pad_len - pad_a};
}

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.conv_general_shape_tuple: conv_shape_tuple in the layout the specs give.
inline Shape conv_general_shape_tuple(Shape const& lhs_shape, Shape const& rhs_shape, Axes const& window_strides,
                                      Padding const& padding, std::array<std::string, 3> const& dimension_numbers) {
  auto const [lhs_perm, rhs_perm, out_perm] = conv_general_permutations(dimension_numbers);
  auto const out = conv_shape_tuple(detail::permuted(lhs_shape, lhs_perm), detail::permuted(rhs_shape, rhs_perm),
                                    window_strides, padding);
  return detail::unpermuted(out, out_perm);
}

/// lax.conv_transpose_shape_tuple: the output shape of conv_transpose.
inline Shape conv_transpose_shape_tuple(Shape const& lhs_shape, Shape const& rhs_shape, Axes const& window_strides,
                                        Padding const& padding, std::array<std::string, 3> const& dimension_numbers) {
  auto const [lhs_perm, rhs_perm, out_perm] = conv_general_permutations(dimension_numbers);
  auto const lhs = detail::permuted(lhs_shape, lhs_perm), rhs = detail::permuted(rhs_shape, rhs_perm);
  Shape out{lhs[0], rhs[0]};
  for (std::size_t d = 0; d + 2 < lhs.size() && d < window_strides.size(); ++d) {
    auto const k = rhs[d + 2], s = window_strides[d];
    auto const pad = padding.is_string() ? detail::conv_transpose_padding(k, s, padding.kind()) : padding.pads()[d];
    out.push_back((lhs[d + 2] - 1) * s - k + 2 + pad.first + pad.second);
  }
  return detail::unpermuted(out, out_perm);
}

/// lax.conv_transpose: the gradient-of-convolution form, a convolution of
/// lhs dilated by `strides`. "SAME" and "VALID" padding are the
/// transpose's (explicit pads are used as given); the layout defaults to
/// ("NHWC", "HWIO", "NHWC") and its analogues; `transpose_kernel` flips
/// the kernel's spatial axes and swaps its I and O.
template <ArrayLike L, ArrayLike R>
  requires std::same_as<value_type_t<L>, value_type_t<R>> && std::floating_point<value_type_t<L>>
Array<value_type_t<L>> conv_transpose(L const& lhs_in, R const& rhs_in, Axes const& strides, Padding const& padding,
                                      Axes rhs_dilation = {}, ConvSpecs dimension_numbers = {},
                                      bool transpose_kernel = false) {
  auto const lhs = as_array(lhs_in);
  auto rhs = as_array(rhs_in);
  auto const ndims = lhs.ndim();
  if (ndims != rhs.ndim() || ndims < 2)
    detail::throw_error("conv_transpose requires lhs and rhs of one rank, at least 2, got ", lhs.shape(), " and ",
                        rhs.shape());
  if (dimension_numbers.is_default()) {
    constexpr std::array<std::array<char const*, 3>, 4> defaults{{{"NC", "IO", "NC"},
                                                                  {"NHC", "HIO", "NHC"},
                                                                  {"NHWC", "HWIO", "NHWC"},
                                                                  {"NHWDC", "HWDIO", "NHWDC"}}};
    if (ndims > 5) throw Error("No 4+ dimensional dimension_number defaults.");
    auto const& d = defaults[static_cast<std::size_t>(ndims - 2)];
    dimension_numbers = ConvSpecs(d[0], d[1], d[2]);
  }
  auto const dn = dimension_numbers.resolve(lhs.shape(), rhs.shape());
  auto const spatial = static_cast<std::size_t>(ndims - 2);
  if (rhs_dilation.empty()) rhs_dilation = Axes(spatial, 1);
  Padding pads = padding;
  if (padding.is_string() && (padding.kind() == "SAME" || padding.kind() == "VALID")) {
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
    for (std::size_t d = 0; d < spatial && d < strides.size(); ++d) {
      auto const k = primitives::conv_general_dilated_p::dilated(rhs.shape()[static_cast<std::size_t>(dn.rhs_spec[2 + d])],
                                                                 rhs_dilation[d]);
      pairs.push_back(detail::conv_transpose_padding(k, strides[d], padding.kind()));
    }
    pads = Padding(pairs);
  }
  if (transpose_kernel) {
    for (std::size_t d = 0; d < spatial; ++d) rhs = detail::reversed_along(rhs, dn.rhs_spec[2 + d]);
    Axes perm;
    for (std::int64_t i = 0; i < ndims; ++i) perm.push_back(i);
    std::swap(perm[static_cast<std::size_t>(dn.rhs_spec[0])], perm[static_cast<std::size_t>(dn.rhs_spec[1])]);
    rhs = transpose(rhs, perm);
  }
  return conv_general_dilated(lhs, rhs, Axes(spatial, 1), pads, strides, rhs_dilation, dn);
}

/// lax.conv_general_dilated_patches: the patches a convolution with a
/// filter of `filter_shape` (spatial) would see, as channels: each input
/// channel's window of prod(filter_shape) values, flattened, in the output's
/// feature dimension (channel-major). A convolution with a one-hot kernel,
/// as JAX computes it.
template <ArrayLike L>
  requires std::floating_point<value_type_t<L>>
Array<value_type_t<L>> conv_general_dilated_patches(L const& lhs_in, Shape const& filter_shape,
                                                    Axes const& window_strides, Padding const& padding,
                                                    Axes const& lhs_dilation = {}, Axes const& rhs_dilation = {},
                                                    ConvSpecs const& dimension_numbers = {}) {
  using T = value_type_t<L>;
  auto const lhs = as_array(lhs_in);
  Shape kernel_shape{1, 1};
  kernel_shape.insert(kernel_shape.end(), filter_shape.begin(), filter_shape.end());
  auto const dn = dimension_numbers.resolve(lhs.shape(), kernel_shape);
  auto const spatial_size = filter_shape.numel();
  auto const channels = lhs.shape()[static_cast<std::size_t>(dn.lhs_spec[1])];
  // (channels * spatial_size, 1, *filter_shape): row c * s + i holds a one at window position i.
  std::vector<T> ones(static_cast<std::size_t>(channels * spatial_size * spatial_size), T(0));
  for (std::int64_t c = 0; c < channels; ++c)
    for (std::int64_t i = 0; i < spatial_size; ++i)
      ones[static_cast<std::size_t>((c * spatial_size + i) * spatial_size + i)] = T(1);
  Shape shape{channels * spatial_size, 1};
  shape.insert(shape.end(), filter_shape.begin(), filter_shape.end());
  auto const ndim = static_cast<std::int64_t>(shape.size());
  // Axes 0 and 1 moved to the rhs spec's O and I positions, the others in order.
  Axes perm(static_cast<std::size_t>(ndim), -1);
  perm[static_cast<std::size_t>(dn.rhs_spec[0])] = 0;
  perm[static_cast<std::size_t>(dn.rhs_spec[1])] = 1;
  std::int64_t next = 2;
  for (auto& p : perm)
    if (p < 0) p = next++;
  auto const rhs = transpose(detail::array_of(ones, shape), perm);
  return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dn, channels);
}

}  // namespace jaxcc::lax
