// The primitives of jaxcc::random: JAX's threefry2x32 counter-based PRNG
// with `jax_threefry_partitionable` on, its default. A key is two uint32
// words; the value at flat index i of a draw of shape S is the threefry hash
// of the 64-bit counter i (high word, low word) under the key. Nothing
// depends on how the draw is cut up, so any part of it can be computed on its
// own ("partitionable").
//
// random_bits_p<U> draws a whole shape at once: U = uint32 gives the hash's
// two words xor-ed (jax.random.bits); U = float or double gives uniform
// floats made from those bits as JAX's `uniform` makes them (a float32 from
// 32 bits, a float64 from the two words as 64 bits), scaled to a scalar
// range, in one pass. random_split_p keeps both words (jax.random.split);
// random_fold_in_p hashes one counter per key (jax.random.fold_in);
// random_permutation_p is jax.random.permutation's index shuffle.
//
// Keys enter as key data of shape (..., 2): leading dimensions are a batch
// of keys, so vmap over keys is one call, and outputs lead with them. The
// outputs are integers or depend only on the keys, so nothing here carries a
// tangent or takes a cotangent: under grad the draws are constants.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <xsimd/xsimd.hpp>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/devices/spmd.hpp"
#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::detail {

/// The bits of each lane of x rotated left by R: one instruction on AVX-512
/// (vprold), which xsimd 8 does not offer, else two shifts and an or.
/// (Not `rotate_left`: xsimd 14's, found by argument-dependent lookup,
/// rotates the lanes themselves.)
template <int R, class V>
inline V rotate_bits_left(V const& x) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64 && !std::is_integral_v<V>) return V(_mm512_rol_epi32(x, R));
#endif
  return (x << R) | (x >> (32 - R));
}

/// Four threefry rounds with rotations R... (each round depends on the one
/// before: measured here, several batches in flight ran no faster than one,
/// the SIMD units being the limit).
template <int R, class V>
inline void threefry_round(V& x0, V& x1) {
  x0 += x1;
  x1 = detail::rotate_bits_left<R>(x1);
  x1 ^= x0;
}
template <int... R, class V>
inline void threefry_rounds(V& x0, V& x1) {
  (detail::threefry_round<R>(x0, x1), ...);
}

/// The threefry2x32 hash (20 rounds, JAX's unrolled lowering) of the counter
/// pair (x0, x1) under key (k0, k1); V is std::uint32_t or an xsimd batch of
/// them. By value, so the pair stays in registers.
template <class V>
inline std::pair<V, V> threefry2x32(std::uint32_t k0, std::uint32_t k1, V x0, V x1) {
  std::uint32_t const k2 = k0 ^ k1 ^ 0x1BD11BDAu;
  auto inject = [&](std::uint32_t a, std::uint32_t b) {
    x0 += V(a);
    x1 += V(b);
  };
  inject(k0, k1);
  threefry_rounds<13, 15, 26, 6>(x0, x1);
  inject(k1, k2 + 1u);
  threefry_rounds<17, 29, 16, 24>(x0, x1);
  inject(k2, k0 + 2u);
  threefry_rounds<13, 15, 26, 6>(x0, x1);
  inject(k0, k1 + 3u);
  threefry_rounds<17, 29, 16, 24>(x0, x1);
  inject(k1, k2 + 4u);
  threefry_rounds<13, 15, 26, 6>(x0, x1);
  inject(k2, k0 + 5u);
  return {x0, x1};
}

/// Both hash words for the counters first, first + 1, ..., first + n - 1
/// under one key, in SIMD lanes where the high word is the same across a
/// batch.
inline void threefry_counters(std::uint32_t k0, std::uint32_t k1, std::uint64_t first, std::int64_t n, std::uint32_t* y0,
                              std::uint32_t* y1) {
  using batch = xsimd::batch<std::uint32_t>;
  constexpr auto lanes = static_cast<std::int64_t>(batch::size);
  alignas(64) std::uint32_t iota[lanes];
  std::iota(iota, iota + lanes, 0u);
  auto const lane_offsets = batch::load_aligned(iota);
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto const c = first + static_cast<std::uint64_t>(i);
    auto const hi = static_cast<std::uint32_t>(c >> 32);
    if (static_cast<std::uint32_t>((c + lanes - 1) >> 32) != hi) break;  // the low word wraps inside this batch
    auto const [h0, h1] = threefry2x32(k0, k1, batch(hi), batch(static_cast<std::uint32_t>(c)) + lane_offsets);
    h0.store_unaligned(y0 + i);
    h1.store_unaligned(y1 + i);
  }
  for (; i < n; ++i) {
    auto const c = first + static_cast<std::uint64_t>(i);
    std::tie(y0[i], y1[i]) = threefry2x32(k0, k1, static_cast<std::uint32_t>(c >> 32), static_cast<std::uint32_t>(c));
  }
}

/// Output element from the two hash words of its counter.
template <class U>
U random_word(std::uint32_t y0, std::uint32_t y1) {
  if constexpr (std::same_as<U, std::uint32_t>) {
    return y0 ^ y1;
  } else if constexpr (std::same_as<U, float>) {  // 23 random mantissa bits under exponent 0, minus 1
    return std::bit_cast<float>(((y0 ^ y1) >> 9) | 0x3F800000u) - 1.0f;
  } else {  // 52 random mantissa bits of the 64-bit word (y0, y1)
    auto const bits = (static_cast<std::uint64_t>(y0) << 32) | y1;
    return std::bit_cast<double>((bits >> 12) | 0x3FF0000000000000ull) - 1.0;
  }
}

/// `keys` (k0, k1 pairs) times `n` draws each: calls
/// `emit(key, first, count, y0, y1, counter)` for runs of hashed counters
/// (from `counter` on), split
/// across threads. `counter(i)` gives the counter of a key's draw i and
/// how many draws from i on have the counters that follow it.
template <class Counter, class Emit>
void for_each_hashed(std::uint32_t const* keys, std::int64_t n_keys, std::int64_t n, Counter&& counter, Emit&& emit) {
  constexpr std::int64_t tile = 512;
  parallel_chunks(n_keys * n, tile, [&](std::int64_t begin, std::int64_t end) {
    alignas(64) std::uint32_t y0[tile];
    alignas(64) std::uint32_t y1[tile];
    for (auto i = begin; i < end;) {
      auto const key = i / n;
      auto const first = i % n;
      auto const [c, run] = counter(first);
      auto const count = std::min({tile, end - i, run});
      threefry_counters(keys[2 * key], keys[2 * key + 1], c, count, y0, y1);
      emit(key, first, count, y0, y1, c);
      i += count;
    }
  });
}
/// ... where draw i has the counter i.
template <class Emit>
void for_each_hashed(std::uint32_t const* keys, std::int64_t n_keys, std::int64_t n, Emit&& emit) {
  detail::for_each_hashed(
      keys, n_keys, n, [n](std::int64_t i) { return std::pair{static_cast<std::uint64_t>(i), n - i}; },
      std::forward<Emit>(emit));
}

/// One device's block of a draw of `shape` per key (sharded jit): the
/// block of extents `extent` from `start`, and the counter of its element
/// at flat index i (its flat index in the whole draw) with how many
/// elements of its row follow.
struct DrawBlock {
  Shape shape, start, extent;

  std::pair<std::uint64_t, std::int64_t> operator()(std::int64_t i) const {
    auto const rank = shape.size();
    if (rank == 0) return {0, 1 - i};
    auto const cols = extent[rank - 1];
    auto const col = i % cols;
    auto row = i / cols;
    std::uint64_t counter = 0, stride = 1;
    for (auto d = rank; d-- > 0;) {
      auto index = start[d];
      if (d + 1 == rank) {
        index += col;
      } else {
        index += row % extent[d];
        row /= extent[d];
      }
      counter += static_cast<std::uint64_t>(index) * stride;
      stride *= static_cast<std::uint64_t>(shape[d]);
    }
    return {counter, cols - col};
  }
};

/// The leading (batch) dimensions of key data of shape (..., 2).
inline Shape key_batch_shape(std::string_view op, Shape const& key_shape) {
  if (key_shape.empty() || key_shape.back() != 2) {
    std::ostringstream os;
    os << op << ": key data must have shape (..., 2) and dtype uint32 (threefry2x32 keys), got shape " << key_shape;
    throw Error(os.str());
  }
  return Shape(key_shape.begin(), key_shape.end() - 1);
}

/// The parameters of a draw: its shape per key.
struct DrawShape {
  Shape shape;
  friend bool operator==(DrawShape const&, DrawShape const&) = default;
};
/// ... and, for uniform floats, their range [minval, minval + span); under
/// sharded jit, the mesh axes each dimension of `shape` is split over (none:
/// the whole draw), of which this draw is the running device's block.
struct DrawParams {
  Shape shape;
  double minval = 0;
  double span = 1;
  std::vector<std::vector<std::string>> part = {};
  bool normal = false;  // then sqrt(2) erf_inv(u), in the same pass: jax.random.normal's draws
  friend bool operator==(DrawParams const&, DrawParams const&) = default;
};

/// jax.random.normal's sqrt(2) erf_inv(u) of the `count` uniform draws at
/// `row`, whose counters run from `counter`, in place: in SIMD lanes for
/// the counters below `simd_end` (the whole draw's full groups of lanes),
/// one by one above. The lanes are independent, so each element's value
/// depends on its counter alone, not on how the draw is cut up (by keys,
/// threads or devices): a block of a draw, or a batch of keys, gives the
/// single whole draw's values bit for bit.
template <class U>
void to_normal(U* row, std::int64_t count, std::uint64_t counter, std::uint64_t simd_end) {
  using primitives::erf_inv_p;
  U const sqrt2 = static_cast<U>(1.4142135623730951);
  std::int64_t j = 0;
  if constexpr (erf_inv_p::simd_for<U>) {
    using batch = xsimd::batch<U>;
    constexpr auto lanes = static_cast<std::int64_t>(batch::size);
    auto const simd = counter >= simd_end ? 0
                                          : static_cast<std::int64_t>(std::min<std::uint64_t>(
                                                simd_end - counter, static_cast<std::uint64_t>(count)));
    alignas(64) U lane[lanes] = {};
    // One call of the kernel (so that it is inlined); a last part of a
    // group goes through `lane`, padded with zeros.
    for (; j < simd; j += lanes) {
      auto const part = std::min(lanes, simd - j);
      U* const at = part == lanes ? row + j : lane;
      if (part < lanes) std::copy(row + j, row + simd, lane);
      (batch(sqrt2) * erf_inv_p::simd(batch::load_unaligned(at))).store_unaligned(at);
      if (part < lanes) std::copy(lane, lane + part, row + j);
    }
    j = std::max<std::int64_t>(simd, 0);
  }
  for (; j < count; ++j) row[j] = sqrt2 * erf_inv_p::scalar(row[j]);
}

/// The running device's block of a draw split as `part` (its extents
/// `extent`), from its position along the mesh axes.
inline DrawBlock device_block(std::string_view op, DrawParams const& p, Shape extent) {
  Shape start(p.shape.size(), 0);
  for (std::size_t d = 0; d < p.shape.size(); ++d) {
    std::int64_t index = 0;
    for (auto const& axis : p.part[d])
      index = index * graph::find_axis(axis).size +
              static_cast<std::int64_t>(spmd_group(spmd_for(op, axis), axis).me);
    start[d] = index * extent[d];
  }
  return {p.shape, std::move(start), std::move(extent)};
}

/// The parameter of a permutation: its length.
struct PermutationSize {
  std::int64_t n;
  friend bool operator==(PermutationSize const&, PermutationSize const&) = default;
};

/// What the primitives of one key-data operand share: their outputs carry
/// no tangent and give no cotangent, and a batch of keys is the kernel's
/// own leading dimensions, so vmap moves the mapped axis to the front.
template <class Derived, Element Out, class P>
struct KeyedDraw {
  static fusion::Zero<Out> jvp(P const&, Array<Out> const&, Array<std::uint32_t> const&, Array<std::uint32_t> const&) {
    return {};
  }
  static graph::NoCotangent vjp(P const&, Array<Out> const&, Array<Out> const&, Array<std::uint32_t> const&) {
    return {};
  }
  static std::pair<Array<Out>, graph::BatchDim> batch(P const& p, graph::AxisData const&,
                                                      std::span<graph::BatchDim const> dims,
                                                      Array<std::uint32_t> const& keys) {
    return {jaxcc::detail::bind<Derived>(p, move_axis(keys, *dims[0], 0)), 0};
  }
};

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

/// Draws of shape `shape` per key: uint32 bits, or uniform floats in
/// [minval, minval + span) made as JAX's uniform makes them:
/// max(minval, fma(u, span, minval)) for u in [0, 1), the multiply-add
/// rounded once as XLA's fused one is.
template <Element U>
  requires std::same_as<U, std::uint32_t> || std::same_as<U, float> || std::same_as<U, double>
struct random_bits_p : detail::KeyedDraw<random_bits_p<U>, U, detail::DrawParams> {
  using Params = detail::DrawParams;
  static constexpr std::string_view name = std::same_as<U, std::uint32_t> ? "random_bits" : "random_uniform";

  /// The draw per key: `shape`, or this device's block of it.
  static Shape drawn_shape(Params const& p) {
    if (p.part.empty()) return p.shape;
    return detail::part_shape(p.shape, graph::Layout{p.part});
  }
  static Shape shape_rule(Params const& p, Array<std::uint32_t> const& keys) {
    for (auto d : p.shape)
      if (d < 0) throw Error(std::string(name) + ": shape " + to_string(p.shape) + " has a negative dimension");
    return detail::concat_shapes(detail::key_batch_shape(name, keys.shape()), drawn_shape(p));
  }
  static std::string params_string(Params const& p) {
    std::string s = "shape=" + to_string(p.shape);
    if constexpr (std::same_as<U, std::uint32_t>) s = "bit_width=32 " + s;
    else s += " minval=" + std::to_string(p.minval) + " span=" + std::to_string(p.span) + (p.normal ? " normal=True" : "");
    if (p.part.empty()) return s;
    s += " part=(";
    for (std::size_t d = 0; d < p.part.size(); ++d) {
      s += d ? ", " : "";
      if (p.part[d].empty()) s += "None";
      for (std::size_t k = 0; k < p.part[d].size(); ++k) s += (k ? "+" : "") + p.part[d][k];
    }
    return s + ")";
  }

  static Array<U> impl(Params const& p, Shape out_shape, Array<std::uint32_t> const& keys) {
    auto const key_data = detail::contiguous(keys);
    auto [out, out_data] = detail::allocate<U>(std::move(out_shape));
    U* const dst = out_data;
    bool const unit = p.minval == 0 && p.span == 1;
    auto const lo = static_cast<U>(p.minval), span = static_cast<U>(p.span);
    auto const drawn = drawn_shape(p);
    auto const n = drawn.numel();
    std::uint64_t simd_end = 0;
    if constexpr (std::same_as<U, float>)
      simd_end = static_cast<std::uint64_t>(p.shape.numel() / static_cast<std::int64_t>(xsimd::batch<U>::size) *
                                            static_cast<std::int64_t>(xsimd::batch<U>::size));
    auto const emit = [&](std::int64_t key, std::int64_t first, std::int64_t count, std::uint32_t const* y0,
                          std::uint32_t const* y1, [[maybe_unused]] std::uint64_t counter) {
      U* const row = dst + key * n + first;
      for (std::int64_t j = 0; j < count; ++j) row[j] = detail::random_word<U>(y0[j], y1[j]);
      if constexpr (!std::same_as<U, std::uint32_t>) {
        if (!unit)
          for (std::int64_t j = 0; j < count; ++j) row[j] = std::max(lo, std::fma(row[j], span, lo));
        if (p.normal) detail::to_normal(row, count, counter, simd_end);
      }
    };
    if (p.part.empty()) detail::for_each_hashed(key_data.data(), keys.size() / 2, n, emit);
    else detail::for_each_hashed(key_data.data(), keys.size() / 2, n, detail::device_block(name, p, drawn), emit);
    return out;
  }

  /// Sharded jit: a batch of keys keeps its split, and each device draws
  /// its keys' draws whole...
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard,
                                                     Array<std::uint32_t> const& keys) {
    auto wanted = graph::Layout::replicated(layouts[0].dims.size() - 1 + p.shape.size());
    std::copy(layouts[0].dims.begin(), layouts[0].dims.end() - 1, wanted.dims.begin());
    return partition_as(p, wanted, layouts, reshard, keys);
  }
  /// ... or, where its users want it laid out as `wanted`, only its block
  /// of it: its keys resharded to `wanted`'s batch dimensions, and the
  /// counters of its block, which are those of the whole draw (JAX's
  /// partitionable threefry), so that every split gives the same values.
  static std::optional<graph::Partitioned> partition_as(Params const& p, graph::Layout const& wanted,
                                                        std::span<graph::Layout const> layouts,
                                                        graph::Resharder const& reshard,
                                                        Array<std::uint32_t> const& keys) {
    auto const batch = layouts[0].dims.size() - 1;
    if (!p.part.empty() || wanted.dims.size() != batch + p.shape.size()) return std::nullopt;
    auto const key_shape = detail::global_shape(keys.shape(), layouts[0]);
    auto const global = detail::concat_shapes(detail::key_batch_shape(name, key_shape), p.shape);
    for (std::size_t d = 0; d < global.size(); ++d)
      if (global[d] % detail::parts_along(wanted.dims[d]) != 0) return std::nullopt;
    auto key_layout = graph::Layout::replicated(batch + 1);
    std::copy(wanted.dims.begin(), wanted.dims.begin() + static_cast<std::ptrdiff_t>(batch), key_layout.dims.begin());
    auto const part = reshard(AnyArray(keys), layouts[0], key_layout).template as<std::uint32_t>();
    auto q = p;
    q.part.assign(wanted.dims.begin() + static_cast<std::ptrdiff_t>(batch), wanted.dims.end());
    bool split = false;
    for (auto const& d : q.part) split = split || !d.empty();
    if (!split) q.part.clear();
    return graph::Partitioned{AnyArray(jaxcc::detail::bind<random_bits_p>(q, part)), wanted};
  }
};

/// jax.random.split: new keys of shape `shape` per key, the hash's two words
/// of each counter.
struct random_split_p : detail::KeyedDraw<random_split_p, std::uint32_t, detail::DrawShape> {
  using Params = detail::DrawShape;
  static constexpr std::string_view name = "random_split";

  static Shape shape_rule(Params const& p, Array<std::uint32_t> const& keys) {
    auto out = detail::concat_shapes(detail::key_batch_shape(name, keys.shape()), p.shape);
    out.push_back(2);
    return out;
  }
  static std::string params_string(Params const& p) { return "shape=" + to_string(p.shape); }

  static Array<std::uint32_t> impl(Params const& p, Shape out_shape, Array<std::uint32_t> const& keys) {
    auto const key_data = detail::contiguous(keys);
    auto [out, out_data] = detail::allocate<std::uint32_t>(std::move(out_shape));
    std::uint32_t* const dst = out_data;
    auto const n = p.shape.numel();
    detail::for_each_hashed(key_data.data(), keys.size() / 2, n,
                            [&](std::int64_t key, std::int64_t first, std::int64_t count, std::uint32_t const* y0,
                                std::uint32_t const* y1, std::uint64_t) {
                              std::uint32_t* const row = dst + 2 * (key * n + first);
                              for (std::int64_t j = 0; j < count; ++j) {
                                row[2 * j] = y0[j];
                                row[2 * j + 1] = y1[j];
                              }
                            });
    return out;
  }
};

/// jax.random.fold_in: each key (..., 2) hashed at the counter (0, data),
/// data of the keys' batch shape.
struct random_fold_in_p {
  static constexpr std::string_view name = "random_fold_in";
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };

  static Shape shape_rule(Params const&, Array<std::uint32_t> const& keys, Array<std::uint32_t> const& data) {
    auto const batch = detail::key_batch_shape(name, keys.shape());
    if (data.shape() != batch) {
      std::ostringstream os;
      os << name << ": the data must have the keys' shape " << batch << ", got " << data.shape();
      throw Error(os.str());
    }
    return keys.shape();
  }
  /// Both operands mapped first; an unmapped one is broadcast.
  static std::pair<Array<std::uint32_t>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                                std::span<graph::BatchDim const> dims,
                                                                Array<std::uint32_t> const& keys,
                                                                Array<std::uint32_t> const& data) {
    return {detail::bind<random_fold_in_p>(p, detail::bdim_at_front(keys, dims[0], axis.size),
                                           detail::bdim_at_front(data, dims[1], axis.size)),
            0};
  }

  static Array<std::uint32_t> impl(Params const&, Shape out_shape, Array<std::uint32_t> const& keys,
                                   Array<std::uint32_t> const& data) {
    auto const key_data = detail::contiguous(keys);
    auto const counters = detail::contiguous(data);
    auto [out, out_data] = detail::allocate<std::uint32_t>(std::move(out_shape));
    auto const* k = key_data.data();
    auto const* c = counters.data();
    for (std::int64_t i = 0; i < data.size(); ++i) {
      std::tie(out_data[2 * i], out_data[2 * i + 1]) = detail::threefry2x32(k[2 * i], k[2 * i + 1], 0u, c[i]);
    }
    return out;
  }
};

/// jax.random.permutation's shuffle of 0, 1, ..., n - 1 per key: rounds of
/// (key, subkey = split(key); stable sort by bits(subkey, (n,))), as many as
/// JAX takes: ceil(3 ln(max(1, n)) / ln(2^32 - 1)).
struct random_permutation_p : detail::KeyedDraw<random_permutation_p, std::int32_t, detail::PermutationSize> {
  using Params = detail::PermutationSize;
  static constexpr std::string_view name = "random_permutation";

  static Shape shape_rule(Params const& p, Array<std::uint32_t> const& keys) {
    if (p.n < 0) throw Error("permutation: n must be non-negative, got " + std::to_string(p.n));
    auto out = detail::key_batch_shape("permutation", keys.shape());
    out.push_back(p.n);
    return out;
  }
  static std::string params_string(Params const& p) { return "n=" + std::to_string(p.n); }

  static int rounds(std::int64_t n) {
    return static_cast<int>(
        std::ceil(3.0 * std::log(static_cast<double>(std::max<std::int64_t>(1, n))) / std::log(4294967295.0)));
  }

  static Array<std::int32_t> impl(Params const& p, Shape out_shape, Array<std::uint32_t> const& keys) {
    auto const key_data = detail::contiguous(keys);
    auto [out, out_data] = detail::allocate<std::int32_t>(std::move(out_shape));
    auto const n = p.n;
    auto const n_keys = keys.size() / 2;
    std::vector<std::uint32_t> y0(static_cast<std::size_t>(n)), y1(static_cast<std::size_t>(n));
    std::vector<std::pair<std::uint32_t, std::int32_t>> order(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n_keys; ++k) {
      std::int32_t* const perm = out_data + k * n;
      std::iota(perm, perm + n, 0);
      std::uint32_t key[2] = {key_data.data()[2 * k], key_data.data()[2 * k + 1]};
      for (int r = 0; r < rounds(n); ++r) {
        // key, subkey = split(key): counters 0 and 1.
        auto const [sub0, sub1] = detail::threefry2x32(key[0], key[1], 0u, 1u);
        std::tie(key[0], key[1]) = detail::threefry2x32(key[0], key[1], 0u, 0u);
        detail::threefry_counters(sub0, sub1, 0, n, y0.data(), y1.data());
        for (std::int64_t i = 0; i < n; ++i) {
          auto const u = static_cast<std::size_t>(i);
          order[u] = {y0[u] ^ y1[u], perm[i]};
        }
        std::stable_sort(order.begin(), order.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
        for (std::int64_t i = 0; i < n; ++i) perm[i] = order[static_cast<std::size_t>(i)].second;
      }
    }
    return out;
  }
};

}  // namespace jaxcc::primitives
