// Making concrete arrays from values: what jax.numpy's creation functions
// (numpy/creation.hpp) and the primitives' own rules build arrays with.
#pragma once

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"

namespace jaxcc::detail {

/// A rank-0 array holding `value`.
template <Element T>
Array<T> rank0_array(T value) {
  auto [out, data] = allocate<T>(Shape{});
  data[0] = value;
  return out;
}

/// An array of `shape` from row-major `values`.
template <Element T>
Array<T> array_of(std::vector<T> const& values, Shape shape) {
  if (static_cast<std::int64_t>(values.size()) != shape.numel()) {
    std::ostringstream os;
    os << "array: " << values.size() << " values cannot fill shape " << shape << " (size " << shape.numel() << ")";
    throw Error(os.str());
  }
  auto [out, data] = allocate<T>(std::move(shape));
  std::copy(values.begin(), values.end(), data);
  return out;
}

/// An array of `shape` with every element `value`.
template <Element T, Scalar S>
Array<T> filled(Shape shape, S value) {
  for (auto d : shape)
    if (d < 0) throw Error("full: negative dimensions are not allowed, got shape " + to_string(shape));
  auto [out, data] = allocate<T>(std::move(shape));
  std::fill(data, data + out.size(), static_cast<T>(value));
  return out;
}

/// 0, 1, ..., n - 1.
template <Element T>
Array<T> iota(std::int64_t n) {
  auto [out, data] = allocate<T>(Shape{n});
  for (std::int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(i);
  return out;
}

}  // namespace jaxcc::detail
