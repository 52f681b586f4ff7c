// What sharded jit's partitioner speaks of: how a value of the program is
// split over the mesh (for each dimension, the mesh axes it is split over,
// major to minor), and what a primitive's partition rule gives back: its
// result on this device's part, that result's layout, and the mesh axes
// over which it is still a partial result (a local dot over a split
// contraction: the partitioner completes it with psum, pmax or pmin).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"

namespace jaxcc::graph {

struct Layout {
  std::vector<std::vector<std::string>> dims;  // one list per dimension; empty: not split

  static Layout replicated(std::size_t rank) { return {std::vector<std::vector<std::string>>(rank)}; }
  bool is_replicated() const {
    for (auto const& d : dims)
      if (!d.empty()) return false;
    return true;
  }
  /// Whether laying a value out as `to` instead gathers dimension `d`: it
  /// is split here, and not the same way there.
  bool gathers(Layout const& to, std::size_t d) const { return !dims[d].empty() && dims[d] != to.dims[d]; }
  /// Whether laying a value out as `to` instead gathers any dimension.
  bool gathers(Layout const& to) const {
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (gathers(to, d)) return true;
    return false;
  }
  friend bool operator==(Layout const&, Layout const&) = default;
};

/// How the parts of a partial result combine.
enum class PartialCombine { sum, max, min };

/// A partition rule's results: this device's part of each output, and each
/// one's layout (all partial over the same mesh axes, if any).
struct Partitioned {
  Partitioned(AnyArray value, Layout layout, std::vector<std::string> partial = {},
              PartialCombine how = PartialCombine::sum)
      : values{std::move(value)}, layouts{std::move(layout)}, partial_over(std::move(partial)), combine(how) {}
  Partitioned(std::vector<AnyArray> v, std::vector<Layout> l) : values(std::move(v)), layouts(std::move(l)) {}

  std::vector<AnyArray> values;
  std::vector<Layout> layouts;
  std::vector<std::string> partial_over;  // mesh axes still to combine over
  PartialCombine combine = PartialCombine::sum;
};

/// The partitioner's resharding, offered to rules: `x` (this device's part,
/// laid out as `from`) laid out as `to`.
using Resharder = std::function<AnyArray(AnyArray const& x, Layout const& from, Layout const& to)>;

}  // namespace jaxcc::graph
