// jax.numpy's bit packing: packbits (integer or bool elements, each nonzero
// one a 1 bit, eight to a uint8 along the axis, zero-padded) and its
// inverse unpackbits (uint8 elements to eight uint8 0/1 bits each, `count`
// keeping that many or zero-padding up to it; a negative count drops bits
// from the end). "big" puts the first bit in the most significant place,
// "little" in the least. Without an axis the array is flattened first.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/editing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/pad.hpp"
#include "jaxcc/numpy/reductions.hpp"

namespace jaxcc::detail {

/// The eight bit weights (128, 64, ..., 1 for "big"), as uint8.
inline Array<std::uint8_t> bit_weights(std::string_view bitorder, std::string_view op) {
  if (bitorder != "little" && bitorder != "big")
    throw_error(op, ": 'order' must be either 'little' or 'big', got '", bitorder, "'");
  auto [weights, data] = allocate<std::uint8_t>(Shape{8});
  for (int b = 0; b < 8; ++b) data[b] = static_cast<std::uint8_t>(1u << (bitorder == "big" ? 7 - b : b));
  return weights;
}

/// x padded with zeros at the end of its last axis to `size`.
template <Element T>
Array<T> pad_last(Array<T> const& x, std::int64_t size) {
  std::vector<std::array<std::int64_t, 2>> widths(static_cast<std::size_t>(x.ndim()), {0, 0});
  widths.back()[1] = size - x.shape().back();
  return numpy::pad(x, widths);
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// The bits of `a` (nonzero: 1) packed eight to a uint8 along `axis`
/// (jaxcc::none: the flattened array), the last byte zero-padded.
template <ArrayLike A>
Array<std::uint8_t> packbits(A const& a, jaxcc::detail::OptionalAxis const& axis = none,
                             std::string_view bitorder = "big") {
  using T = value_type_t<A>;
  static_assert(std::integral<T>, "packbits: expected an input array of integer or boolean data type");
  // Of a type that depends on A: a file that never packs compiles none of this.
  Array<jaxcc::detail::dependent_t<A, std::uint8_t>> const weights = jaxcc::detail::bit_weights(bitorder, "packbits");
  auto const [flat, ax] = jaxcc::detail::along(Array<bool>(Array<T>(as_array(a)) != T{0}), axis, "packbits");
  auto arr = swapaxes(flat.template astype<std::uint8_t>(), ax, -1);
  auto const n = arr.shape().back();
  if (n % 8) arr = jaxcc::detail::pad_last(arr, n + 8 - n % 8);
  Shape shape = arr.shape();
  shape.back() = arr.shape().back() / 8;
  shape.push_back(8);
  auto const packed = sum(arr.reshape(shape) * weights, -1).template astype<std::uint8_t>();
  return swapaxes(packed, ax, -1);
}

/// The bits of the uint8 `a` along `axis` (jaxcc::none: flattened), eight
/// uint8 0/1 values for each element; `count` (jaxcc::none: all) keeps the
/// first count bits, or zero-pads to count, or with a negative count drops
/// that many from the end.
template <ArrayLike A>
Array<std::uint8_t> unpackbits(A const& a, jaxcc::detail::OptionalAxis const& axis = none,
                               jaxcc::detail::OptionalAxis const& count = none, std::string_view bitorder = "big") {
  static_assert(std::same_as<value_type_t<A>, std::uint8_t>,
                "unpackbits: expected an input array of unsigned byte data type");
  using U = jaxcc::detail::dependent_t<A, std::uint8_t>;  // as in packbits
  Array<U> const weights = jaxcc::detail::bit_weights(bitorder, "unpackbits");
  auto const [flat, ax] = jaxcc::detail::along(Array<U>(as_array(a)), axis, "unpackbits");
  auto const arr = swapaxes(flat, ax, -1);
  Array<bool> const set = (expand_dims(arr, -1) & weights) > U{0};
  Shape shape = arr.shape();
  shape.back() *= 8;
  auto unpacked = set.template astype<std::uint8_t>().reshape(shape);
  if (count.axis) {
    auto const n = unpacked.shape().back(), c = *count.axis;
    auto const last = unpacked.ndim() - 1;
    if (c > n) unpacked = jaxcc::detail::pad_last(unpacked, c);
    else unpacked = lax::slice_in_dim(unpacked, 0, std::max<std::int64_t>(0, c < 0 ? c + n : c), 1, last);
  }
  return swapaxes(unpacked, ax, -1);
}

}  // namespace jaxcc::numpy
