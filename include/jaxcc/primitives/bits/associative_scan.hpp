// JAX's parallel prefix scan (lax.associative_scan) of one array, written
// with slice, pad, concatenate, gather and the combining function, so that
// every transform goes through their rules. The cumulative primitives
// differentiate themselves as this scan, as JAX's do.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/pad.hpp"
#include "jaxcc/primitives/slice.hpp"

namespace jaxcc::detail {

/// `a` at the even positions along `axis`, `b` at the odd ones; `a` is as
/// long as `b` or one longer (JAX's _interleave: two interior-padded arrays added).
template <Element T>
Array<T> interleave(Array<T> const& a, Array<T> const& b, std::int64_t axis) {
  auto const d = static_cast<std::size_t>(axis);
  bool const same = a.shape()[d] == b.shape()[d];
  primitives::pad_p::PaddingConfig a_pad(a.shape().size(), {0, 0, 0}), b_pad(b.shape().size(), {0, 0, 0});
  a_pad[d] = {0, same ? 1 : 0, 1};
  b_pad[d] = {1, same ? 0 : 1, 1};
  return lax::pad(a, T{0}, a_pad) + lax::pad(b, T{0}, b_pad);
}

/// The inclusive scan of `elems` along `axis` under `combine`
/// (Array<T>(Array<T>, Array<T>), associative): pairs are combined, the
/// half-length result scanned recursively (the odd positions), and the even
/// positions made from it.
template <Element T, class Combine>
Array<T> prefix_scan(Combine const& combine, Array<T> const& elems, std::int64_t axis) {
  auto const n = elems.shape()[static_cast<std::size_t>(axis)];
  if (n < 2) return elems;
  auto const reduced = combine(slice_in_dim(elems, 0, n - 1, 2, axis), slice_in_dim(elems, 1, n, 2, axis));
  auto const odd = prefix_scan(combine, reduced, axis);
  auto const m = odd.shape()[static_cast<std::size_t>(axis)];
  auto const rest = slice_in_dim(elems, 2, n, 2, axis);
  Array<T> const even = n % 2 == 0 ? combine(slice_in_dim(odd, 0, m - 1, 1, axis), rest) : combine(odd, rest);
  return interleave(lax::concatenate(std::vector<Array<T>>{slice_in_dim(elems, 0, 1, 1, axis), even}, axis), odd, axis);
}

/// lax.associative_scan of one array: `reverse` scans from the end (the
/// elements reversed, scanned, and reversed back, as JAX does).
template <Element T, class Combine>
Array<T> associative_scan(Combine const& combine, Array<T> const& elems, std::int64_t axis, bool reverse) {
  if (!reverse) return prefix_scan(combine, elems, axis);
  return reversed_along(prefix_scan(combine, reversed_along(elems, axis), axis), axis);
}

}  // namespace jaxcc::detail
