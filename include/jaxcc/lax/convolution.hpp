// lax.conv_general_dilated and lax.conv: JAX's convolution API over the
// conv_general_dilated primitive. Dimension numbers are given as three
// spec strings (("NCHW", "OIHW", "NCHW") by default, ("NHWC", "HWIO",
// "NHWC") for TensorFlow's layout); padding as lax/padding.hpp takes it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/lax/padding.hpp"
#include "jaxcc/primitives/conv_general_dilated.hpp"

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

}  // namespace jaxcc::lax
