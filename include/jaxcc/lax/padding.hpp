// lax's padding argument of convolutions and window reductions: "SAME",
// "SAME_LOWER" or "VALID", resolved against the input and window shapes as
// lax.padtype_to_pads does, or explicit (lo, hi) pairs.
#pragma once

#include <algorithm>
#include <cctype>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/core/shape.hpp"

namespace jaxcc::lax {

/// The padding of a convolution or a window reduction: "SAME", "SAME_LOWER" or "VALID", or a (lo, hi)
/// pair of any integer type per spatial dimension.
class Padding {
 public:
  Padding(char const* kind) : kind_(kind) {}
  Padding(std::string_view kind) : kind_(kind) {}
  Padding(std::string const& kind) : kind_(kind) {}
  Padding(std::initializer_list<std::pair<std::int64_t, std::int64_t>> pads) : pads_(pads) {}
  template <std::ranges::input_range Pairs>
    requires(!std::convertible_to<Pairs, std::string_view>) &&
            requires(std::ranges::range_value_t<Pairs> const& p) {
              { std::get<0>(p) } -> std::convertible_to<std::int64_t>;
              { std::get<1>(p) } -> std::convertible_to<std::int64_t>;
            }
  Padding(Pairs const& pads) {
    for (auto const& p : pads) pads_.emplace_back(std::get<0>(p), std::get<1>(p));
  }

  bool is_string() const { return kind_.has_value(); }
  std::string const& kind() const { return *kind_; }
  std::vector<std::pair<std::int64_t, std::int64_t>> const& pads() const { return pads_; }

 private:
  std::optional<std::string> kind_;
  std::vector<std::pair<std::int64_t, std::int64_t>> pads_;
};

/// lax.padtype_to_pads: the (lo, hi) padding of each spatial dimension for
/// "SAME" (the output has ceil(in / stride) elements, any odd cell of
/// padding at the end), "SAME_LOWER" (at the start) or "VALID" (none).
inline std::vector<std::pair<std::int64_t, std::int64_t>> padtype_to_pads(Shape const& in_shape,
                                                                          Shape const& window_shape,
                                                                          Axes const& window_strides,
                                                                          std::string const& padding) {
  std::string upper = padding;
  std::ranges::transform(upper, upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper != "SAME" && upper != "SAME_LOWER" && upper != "VALID")
    throw Error("Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got " + padding + ".");
  std::vector<std::pair<std::int64_t, std::int64_t>> pads;
  for (std::size_t d = 0; d < in_shape.size(); ++d) {
    if (upper == "VALID") {
      pads.emplace_back(0, 0);
      continue;
    }
    auto const s = window_strides[d];
    auto const out = (in_shape[d] + s - 1) / s;
    auto const total = std::max<std::int64_t>((out - 1) * s + window_shape[d] - in_shape[d], 0);
    if (upper == "SAME") pads.emplace_back(total / 2, total - total / 2);
    else pads.emplace_back(total - total / 2, total / 2);
  }
  return pads;
}

}  // namespace jaxcc::lax
