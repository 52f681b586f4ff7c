// Fast Fourier transforms over chosen axes of strided n-d data, in float
// and double: complex to complex (fft_c2c), real to complex (fft_r2c, the
// last axis halved to n/2 + 1) and complex to real (fft_c2r). Each result
// is multiplied by `scale` (1, 1/n or 1/sqrt(n), the caller's norm).
//
// The transforms are pocketfft's (third_party/pocketfft: the FFT inside
// numpy and scipy), with its own threads off and a plan cache of 16
// lengths. jaxcc splits the work over OpenMP threads itself:
//  - when dimensions lead the transformed ones (a batch, as lax::fft has),
//    each thread transforms whole slices, a group of slices at a time
//    (pocketfft vectorizes across the lines of a group), so a slice's
//    passes over its axes run while it is in cache;
//  - otherwise the axes run one pass each (pocketfft's own order: for r2c
//    the halved axis first, for c2r last), each pass split over the
//    largest dimension it does not transform;
//  - a single complex line of 2^11 points or more runs as the
//    four-step algorithm: its n = n1 n2 points seen as an n1 x n2 matrix,
//    pocketfft's transforms of the columns, a twiddle factor on each
//    element, then of the rows, written transposed. Each step is a batch
//    of short transforms, which pocketfft vectorizes across lines and
//    jaxcc splits over threads, where one long line runs on one core and,
//    past 128 KiB, takes its scratch from fresh pages in every call.
// Strides are in elements and may be negative or zero on dimensions not
// transformed; the output must not overlap the input unless both have the
// same layout (c2c in place).
#pragma once

#ifndef POCKETFFT_NO_MULTITHREADING
#define POCKETFFT_NO_MULTITHREADING
#endif
#ifndef POCKETFFT_CACHE_SIZE
#define POCKETFFT_CACHE_SIZE 16
#endif

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <numbers>
#include <vector>

#include <omp.h>

#include "jaxcc/core/buffer.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/third_party/pocketfft/pocketfft_hdronly.h"

namespace jaxcc::detail {

/// Which transform: complex to complex, real to complex, complex to real.
enum class FftKind { c2c, r2c, c2r };

/// One pocketfft call's view: the iteration shape (the real side's for r2c
/// and c2r), byte strides of input and output, and the axes.
struct FftView {
  pocketfft::shape_t shape;
  pocketfft::stride_t in, out;
  pocketfft::shape_t axes;
};

/// Complex elements of the slices a thread transforms at once: a group
/// that fits in the per-core cache keeps all of a slice's passes there.
inline constexpr std::int64_t fft_group_elements = std::int64_t{1} << 15;

template <class T>
void fft_call(FftKind kind, FftView const& v, bool forward, char const* in, char* out, T scale) {
  using C = std::complex<T>;
  switch (kind) {
    case FftKind::c2c:
      pocketfft::c2c<T>(v.shape, v.in, v.out, v.axes, forward, reinterpret_cast<C const*>(in),
                        reinterpret_cast<C*>(out), scale);
      break;
    case FftKind::r2c:
      pocketfft::r2c<T>(v.shape, v.in, v.out, v.axes, forward, reinterpret_cast<T const*>(in),
                        reinterpret_cast<C*>(out), scale);
      break;
    case FftKind::c2r:
      pocketfft::c2r<T>(v.shape, v.in, v.out, v.axes, forward, reinterpret_cast<C const*>(in),
                        reinterpret_cast<T*>(out), scale);
      break;
  }
}

/// The threads to use for `elements` of work: one inside a parallel region
/// or below the grain, else OpenMP's count.
inline int fft_threads(std::int64_t elements) {
  return elements >= parallel_grain && !omp_in_parallel() ? omp_get_max_threads() : 1;
}

/// Runs item(i) for i in [0, count) over `threads` OpenMP threads.
template <class Item>
void fft_for(std::int64_t count, int threads, Item&& item) {
  if (threads > 1 && count > 1) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < count; ++i) item(i);
  } else {
    for (std::int64_t i = 0; i < count; ++i) item(i);
  }
}

/// The batch strategy: dimensions [0, lead) lead every transformed axis.
/// Work items are groups of consecutive indices along dimension lead - 1
/// (under each index of the dimensions before it); each is one pocketfft
/// call over (group, shape[lead:]).
template <class T>
void fft_batched(FftKind kind, FftView const& v, std::size_t lead, bool forward, char const* in, char* out,
                 T scale, int threads) {
  auto const inner = static_cast<std::int64_t>(v.shape[lead - 1]);
  std::int64_t outer = 1, slice = 1;
  for (std::size_t d = 0; d + 1 < lead; ++d) outer *= static_cast<std::int64_t>(v.shape[d]);
  for (std::size_t d = lead; d < v.shape.size(); ++d) slice *= static_cast<std::int64_t>(v.shape[d]);
  auto const per_thread = (outer * inner + threads - 1) / threads;
  auto const group = std::max<std::int64_t>(
      1, std::min({fft_group_elements / std::max<std::int64_t>(slice, 1), inner, per_thread}));
  auto const groups_per_row = (inner + group - 1) / group;
  FftView sub;
  sub.shape.assign(v.shape.begin() + static_cast<std::ptrdiff_t>(lead) - 1, v.shape.end());
  sub.in.assign(v.in.begin() + static_cast<std::ptrdiff_t>(lead) - 1, v.in.end());
  sub.out.assign(v.out.begin() + static_cast<std::ptrdiff_t>(lead) - 1, v.out.end());
  for (auto a : v.axes) sub.axes.push_back(a - lead + 1);
  fft_for(outer * groups_per_row, threads, [&](std::int64_t item) {
    auto row = item / groups_per_row;
    auto const first = (item % groups_per_row) * group;
    std::ptrdiff_t in_offset = static_cast<std::ptrdiff_t>(first) * v.in[lead - 1];
    std::ptrdiff_t out_offset = static_cast<std::ptrdiff_t>(first) * v.out[lead - 1];
    for (auto d = static_cast<std::ptrdiff_t>(lead) - 2; d >= 0; --d) {
      auto const extent = static_cast<std::int64_t>(v.shape[static_cast<std::size_t>(d)]);
      auto const index = static_cast<std::ptrdiff_t>(row % extent);
      row /= extent;
      in_offset += index * v.in[static_cast<std::size_t>(d)];
      out_offset += index * v.out[static_cast<std::size_t>(d)];
    }
    FftView mine = sub;
    mine.shape[0] = static_cast<std::size_t>(std::min(group, inner - first));
    fft_call<T>(kind, mine, forward, in + in_offset, out + out_offset, scale);
  });
}

/// The shortest line the four-step algorithm takes (below it one
/// pocketfft call is as fast), and its shortest factor.
inline constexpr std::size_t four_step_min_length = std::size_t{1} << 11;
inline constexpr std::size_t four_step_min_factor = 16;

/// The factor n1 of n = n1 n2 the four-step algorithm splits a line by: the
/// largest divisor at most sqrt(n), or 0 when it is under the minimum (a
/// prime, or a small multiple of one: one pocketfft call then).
inline std::size_t four_step_rows(std::size_t n) {
  if (n < four_step_min_length) return 0;
  auto n1 = static_cast<std::size_t>(std::sqrt(static_cast<double>(n)));
  while (n1 * n1 > n) --n1;
  while (n1 >= four_step_min_factor && n % n1 != 0) --n1;
  return n1 >= four_step_min_factor ? n1 : 0;
}

/// The twiddle factors of the four-step algorithm for n = n1 n2, row-major:
/// w[k1 n2 + j2] = exp(-2 pi i k1 j2 / n), computed in double. The last few
/// tables are kept (a loop transforms lines of one length).
template <class T>
std::shared_ptr<std::vector<std::complex<T>> const> four_step_twiddles(std::size_t n1, std::size_t n2) {
  using Table = std::vector<std::complex<T>>;
  struct Entry {
    std::size_t n1, n2;
    std::shared_ptr<Table const> table;
  };
  static std::mutex mutex;
  static std::vector<Entry> kept;
  std::lock_guard lock(mutex);
  for (auto const& e : kept)
    if (e.n1 == n1 && e.n2 == n2) return e.table;
  auto table = std::make_shared<Table>(n1 * n2);
  auto const n = n1 * n2;
  for (std::size_t k1 = 0; k1 < n1; ++k1)
    for (std::size_t j2 = 0; j2 < n2; ++j2) {
      auto const angle = -2 * std::numbers::pi * static_cast<double>(k1 * j2 % n) / static_cast<double>(n);
      (*table)[k1 * n2 + j2] = std::complex<T>(static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle)));
    }
  constexpr std::size_t kept_tables = 4;
  if (kept.size() == kept_tables) kept.erase(kept.begin());
  kept.push_back({n1, n2, table});
  return kept.back().table;
}

template <class T>
void fft_one_axis(FftKind kind, FftView const& v, std::size_t axis, bool forward, char const* in, char* out,
                  T scale, int threads);

/// The complex line of n = n1 n2 points at `in` (byte stride `in_stride`)
/// transformed to `out` (`out_stride`) by the four-step algorithm:
/// x[j1 n2 + j2] as a matrix, columns transformed (over j1), each element
/// times w^(k1 j2), rows transformed (over j2), element (k1, k2) written to
/// out[k1 + n1 k2].
template <class T>
void fft_four_step(std::size_t n1, std::size_t n2, std::ptrdiff_t in_stride, std::ptrdiff_t out_stride, bool forward,
                   char const* in, char* out, T scale, int threads) {
  using C = std::complex<T>;
  auto const item = static_cast<std::ptrdiff_t>(sizeof(C));
  auto const rows = static_cast<std::ptrdiff_t>(n1), cols = static_cast<std::ptrdiff_t>(n2);
  Buffer matrix(n1 * n2 * sizeof(C));
  auto* b = static_cast<char*>(matrix.data());
  fft_one_axis<T>(FftKind::c2c, FftView{{n1, n2}, {cols * in_stride, in_stride}, {cols * item, item}, {}}, 0, forward,
                  in, b, scale, threads);
  auto const twiddles = four_step_twiddles<T>(n1, n2);
  // The product written out (std::complex's operator* checks for NaN and
  // infinity and does not vectorize); backward uses the conjugates.
  auto* z = reinterpret_cast<T*>(b);
  auto const* w = reinterpret_cast<T const*>(twiddles->data());
  T const sign = forward ? T(1) : T(-1);
  fft_for(rows, threads, [&](std::int64_t k1) {
    auto const at = 2 * static_cast<std::size_t>(k1) * n2;
    for (std::size_t j = at; j < at + 2 * n2; j += 2) {
      T const re = z[j], im = z[j + 1], wr = w[j], wi = sign * w[j + 1];
      z[j] = re * wr - im * wi;
      z[j + 1] = re * wi + im * wr;
    }
  });
  fft_one_axis<T>(FftKind::c2c, FftView{{n1, n2}, {cols * item, item}, {out_stride, rows * out_stride}, {}}, 1,
                  forward, b, out, T(1), threads);
}

/// One axis of `v` (kind's single-axis transform), split over `threads`
/// along the largest dimension it does not transform.
template <class T>
void fft_one_axis(FftKind kind, FftView const& v, std::size_t axis, bool forward, char const* in, char* out,
                  T scale, int threads) {
  std::size_t split = v.shape.size();
  for (std::size_t d = 0; d < v.shape.size(); ++d)
    if (d != axis && (split == v.shape.size() || v.shape[d] > v.shape[split])) split = d;
  FftView sub{v.shape, v.in, v.out, {axis}};
  bool const one_line = split == v.shape.size() || v.shape[split] == 1;
  if (auto const n1 = one_line && kind == FftKind::c2c ? four_step_rows(v.shape[axis]) : 0) {
    fft_four_step<T>(n1, v.shape[axis] / n1, v.in[axis], v.out[axis], forward, in, out, scale, threads);
    return;
  }
  if (split == v.shape.size() || threads <= 1 || v.shape[split] < 2) {
    fft_call<T>(kind, sub, forward, in, out, scale);
    return;
  }
  auto const extent = static_cast<std::int64_t>(v.shape[split]);
  auto const parts = std::min<std::int64_t>(threads, extent);
  fft_for(parts, threads, [&](std::int64_t part) {
    auto const first = extent * part / parts, last = extent * (part + 1) / parts;
    FftView mine = sub;
    mine.shape[split] = static_cast<std::size_t>(last - first);
    fft_call<T>(kind, mine, forward, in + static_cast<std::ptrdiff_t>(first) * v.in[split],
                out + static_cast<std::ptrdiff_t>(first) * v.out[split], scale);
  });
}

/// The shape of the complex side: `shape` with its `last` axis n/2 + 1.
inline pocketfft::shape_t fft_half_shape(pocketfft::shape_t shape, std::size_t last) {
  shape[last] = shape[last] / 2 + 1;
  return shape;
}

/// Row-major byte strides of `shape` for elements of `item` bytes.
inline pocketfft::stride_t fft_dense_strides(pocketfft::shape_t const& shape, std::size_t item) {
  pocketfft::stride_t strides(shape.size());
  auto step = static_cast<std::ptrdiff_t>(item);
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= static_cast<std::ptrdiff_t>(shape[d]);
  }
  return strides;
}

/// The pass strategy: one pass per axis, each split over threads.
/// c2c: every axis, the first from `in` to `out`, the rest in place in
/// `out`. r2c: the last axis real to complex first, then the others in
/// place. c2r: the others into a dense complex scratch copy, then the last
/// axis complex to real. `scale` goes with the first pass.
template <class T>
void fft_passes(FftKind kind, FftView const& v, bool forward, char const* in, char* out, T scale, int threads) {
  auto const last = v.axes.back();
  if (kind == FftKind::c2r && v.axes.size() > 1) {
    auto const half = fft_half_shape(v.shape, last);
    std::size_t count = 1;
    for (auto e : half) count *= e;
    std::vector<std::complex<T>> scratch(count);
    auto* tmp = reinterpret_cast<char*>(scratch.data());
    FftView c{half, v.in, fft_dense_strides(half, sizeof(std::complex<T>)), {}};
    for (std::size_t k = 0; k + 1 < v.axes.size(); ++k) {
      fft_one_axis<T>(FftKind::c2c, c, v.axes[k], forward, k == 0 ? in : tmp, tmp, k == 0 ? scale : T(1), threads);
      c.in = c.out;
    }
    fft_one_axis<T>(FftKind::c2r, FftView{v.shape, c.out, v.out, {}}, last, forward, tmp, out, T(1), threads);
    return;
  }
  if (kind != FftKind::c2c) {  // r2c, or c2r over one axis
    fft_one_axis<T>(kind, v, last, forward, in, out, scale, threads);
    if (kind == FftKind::c2r) return;
    FftView c{fft_half_shape(v.shape, last), v.out, v.out, {}};
    for (std::size_t k = 0; k + 1 < v.axes.size(); ++k)
      fft_one_axis<T>(FftKind::c2c, c, v.axes[k], forward, out, out, T(1), threads);
    return;
  }
  for (std::size_t k = 0; k < v.axes.size(); ++k) {
    FftView c{v.shape, k == 0 ? v.in : v.out, v.out, {}};
    fft_one_axis<T>(FftKind::c2c, c, v.axes[k], forward, k == 0 ? in : out, out, k == 0 ? scale : T(1), threads);
  }
}

/// The driver: picks the batch strategy when dimensions lead the axes,
/// else the pass strategy. `shape` is the real side's for r2c and c2r.
template <class T>
void fft_strided(FftKind kind, Shape const& shape, Strides const& in_strides, Strides const& out_strides,
                 std::vector<int> const& axes, bool forward, void const* in, void* out, T scale) {
  if (shape.numel() == 0 || axes.empty()) return;
  auto const in_item = kind == FftKind::r2c ? sizeof(T) : sizeof(std::complex<T>);
  auto const out_item = kind == FftKind::c2r ? sizeof(T) : sizeof(std::complex<T>);
  FftView v;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    v.shape.push_back(static_cast<std::size_t>(shape[d]));
    v.in.push_back(static_cast<std::ptrdiff_t>(in_strides[d]) * static_cast<std::ptrdiff_t>(in_item));
    v.out.push_back(static_cast<std::ptrdiff_t>(out_strides[d]) * static_cast<std::ptrdiff_t>(out_item));
  }
  for (auto a : axes) v.axes.push_back(static_cast<std::size_t>(a));
  auto const lead = *std::min_element(v.axes.begin(), v.axes.end());
  std::int64_t batch = 1;
  for (std::size_t d = 0; d < lead; ++d) batch *= shape[d];
  auto const threads = fft_threads(shape.numel());
  auto const* src = static_cast<char const*>(in);
  auto* dst = static_cast<char*>(out);
  if (batch > 1)
    fft_batched<T>(kind, v, lead, forward, src, dst, scale, threads);
  else
    fft_passes<T>(kind, v, forward, src, dst, scale, threads);
}

/// out = scale * the FFT (forward: e^{-2 pi i jk/n}; backward: e^{+...},
/// unnormalized) of `in` over `axes`; both have `shape`.
template <class T>
void fft_c2c(Shape const& shape, Strides const& in_strides, Strides const& out_strides, std::vector<int> const& axes,
             bool forward, std::complex<T> const* in, std::complex<T>* out, T scale) {
  fft_strided<T>(FftKind::c2c, shape, in_strides, out_strides, axes, forward, in, out, scale);
}

/// out = scale * the forward FFT of the real `in` (of `shape`) over `axes`,
/// the last of them kept to its n/2 + 1 nonnegative frequencies.
template <class T>
void fft_r2c(Shape const& shape, Strides const& in_strides, Strides const& out_strides, std::vector<int> const& axes,
             T const* in, std::complex<T>* out, T scale) {
  fft_strided<T>(FftKind::r2c, shape, in_strides, out_strides, axes, true, in, out, scale);
}

/// out (real, of `shape`) = scale * the backward FFT over `axes` of the
/// Hermitian-symmetric array whose nonnegative half `in` holds (the last
/// axis n/2 + 1 long); imaginary parts the symmetry fixes are ignored.
template <class T>
void fft_c2r(Shape const& shape, Strides const& in_strides, Strides const& out_strides, std::vector<int> const& axes,
             std::complex<T> const* in, T* out, T scale) {
  fft_strided<T>(FftKind::c2r, shape, in_strides, out_strides, axes, false, in, out, scale);
}

}  // namespace jaxcc::detail
