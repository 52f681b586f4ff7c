// What vmap's batching rules speak of: where a value's mapped axis is (or
// that it has none), and the axis being mapped: its size and, for the
// collectives that name it, its name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jaxcc/core/any_array.hpp"

namespace jaxcc::graph {

/// The position of a value's mapped axis; empty when the value is the same
/// for every element of the batch (JAX's `not_mapped`).
using BatchDim = std::optional<std::int64_t>;
inline constexpr std::nullopt_t not_mapped = std::nullopt;

/// The axis a vmap maps over (JAX's batching.AxisData).
struct AxisData {
  std::int64_t size = 0;
  std::string name;  // empty when vmap was given no axis_name
};

/// A batching rule's result: the outputs, and where each one's mapped axis is.
struct Batched {
  std::vector<AnyArray> values;
  std::vector<BatchDim> dims;
};

}  // namespace jaxcc::graph
