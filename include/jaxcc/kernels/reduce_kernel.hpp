// The reduction kernel behind the reduce_* primitives
// (primitives/reduce.hpp): out[i] = a fold with a monoid op over some axes.
// It chooses by the input's strides:
//  - a reduced dimension is contiguous: each output folds contiguous runs
//    into several independent xsimd accumulators (Folder);
//  - the output's innermost dimension is contiguous instead: whole input
//    rows fold, lane by lane, into a block of outputs (fold_columns);
//  - neither: the input is copied to row-major first, which makes one of
//    the two hold.
// Large reductions split over OpenMP threads: over the outputs when there
// are enough of them, else over the reduced elements, combining each
// thread's partial results afterwards.
//
// Accumulation happens in the input dtype, as XLA does. Float sums are
// blocked, not one long chain: the Folder flushes its accumulators every
// 4096 elements and the column kernel every 256 rows, so rounding error
// grows with n / block + block rather than with n.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include <omp.h>
#include <xsimd/xsimd.hpp>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/strided.hpp"

namespace jaxcc::detail {

/// Whether `Op` folds lanes of T with xsimd (bool lanes never do).
template <class Op, class T>
inline constexpr bool simd_fold = !std::same_as<T, bool> && Op::template simd_for<T>;

template <class T, bool Simd>
struct fold_lanes {
  using type = T;
};
template <class T>
struct fold_lanes<T, true> {
  using type = xsimd::batch<T>;
};

/// A position in a strided index space, stepped in row-major order;
/// `offset` is the element offset of the current position.
class Odometer {
 public:
  Odometer(Shape const& shape, Strides const& strides, std::int64_t linear)
      : shape_(shape), strides_(strides), index_(shape.size(), 0) {
    for (auto d = shape.size(); d-- > 0;) {
      index_[d] = linear % shape[d];
      linear /= shape[d];
      offset += index_[d] * strides[d];
    }
  }
  void next() {
    for (auto d = shape_.size(); d-- > 0;) {
      offset += strides_[d];
      if (++index_[d] < shape_[d]) return;
      offset -= strides_[d] * shape_[d];
      index_[d] = 0;
    }
  }

  std::int64_t offset = 0;

 private:
  Shape const& shape_;
  Strides const& strides_;
  Strides index_;
};

/// Folds contiguous runs of elements with `Op`. Four independent vector
/// accumulators keep the SIMD units busy; every `block` elements they are
/// flushed into a running vector, which makes a float sum a blocked sum.
template <class Op, Element T>
class Folder {
  static constexpr bool simd = simd_fold<Op, T>;
  using Lanes = typename fold_lanes<T, simd>::type;
  static constexpr std::int64_t block = 4096;

 public:
  explicit Folder(T identity) : identity_(identity), total_(identity), scalar_(identity) {
    if constexpr (simd) {
      acc_.fill(Lanes(identity));
      running_ = Lanes(identity);
    }
  }

  void fold(T const* p, std::int64_t n) {
    while (n > 0) {
      auto const take = std::min(n, block - pending_);
      fold_chunk(p, take);
      p += take;
      n -= take;
      if ((pending_ += take) == block) flush();
    }
  }

  T result() const {
    T r = Op::scalar(total_, scalar_);
    if constexpr (simd) {
      if (vectors_) {
        alignas(64) std::array<T, Lanes::size> lanes;
        Op::simd(running_, combined()).store_aligned(lanes.data());
        for (auto v : lanes) r = Op::scalar(r, v);
      }
    }
    return r;
  }

 private:
  void fold_chunk(T const* p, std::int64_t n) {
    std::int64_t i = 0;
    if constexpr (simd) {
      constexpr std::int64_t w = Lanes::size;
      vectors_ = vectors_ || n >= w;
      for (; i + 4 * w <= n; i += 4 * w) {
        acc_[0] = Op::simd(acc_[0], Lanes::load_unaligned(p + i));
        acc_[1] = Op::simd(acc_[1], Lanes::load_unaligned(p + i + w));
        acc_[2] = Op::simd(acc_[2], Lanes::load_unaligned(p + i + 2 * w));
        acc_[3] = Op::simd(acc_[3], Lanes::load_unaligned(p + i + 3 * w));
      }
      for (; i + w <= n; i += w) acc_[0] = Op::simd(acc_[0], Lanes::load_unaligned(p + i));
    }
    for (; i < n; ++i) scalar_ = Op::scalar(scalar_, p[i]);
  }

  Lanes combined() const { return Op::simd(Op::simd(acc_[0], acc_[1]), Op::simd(acc_[2], acc_[3])); }

  void flush() {
    if constexpr (simd) {
      running_ = Op::simd(running_, combined());
      acc_.fill(Lanes(identity_));
    }
    total_ = Op::scalar(total_, scalar_);
    scalar_ = identity_;
    pending_ = 0;
  }

  T identity_, total_, scalar_;
  std::array<Lanes, 4> acc_{};
  Lanes running_{};
  std::int64_t pending_ = 0;
  bool vectors_ = false;
};

/// acc[j] = Op(acc[j], rows[0][j], ..., rows[R-1][j]) for j < n. Folding
/// several input rows per pass loads and stores each accumulator once for
/// all of them.
template <class Op, Element T, std::size_t R>
void fold_columns(T* acc, std::array<T const*, R> const& rows, std::int64_t n) {
  std::int64_t j = 0;
  if constexpr (simd_fold<Op, T>) {
    using Lanes = xsimd::batch<T>;
    constexpr std::int64_t w = Lanes::size;
    for (; j + w <= n; j += w) {
      auto v = Lanes::load_unaligned(acc + j);
      for (auto const* row : rows) v = Op::simd(v, Lanes::load_unaligned(row + j));
      v.store_unaligned(acc + j);
    }
  }
  for (; j < n; ++j)
    for (auto const* row : rows) acc[j] = Op::scalar(acc[j], row[j]);
}

/// A reduction's index spaces: the kept dimensions (the output is
/// row-major over them) and the reduced ones, size-1 dimensions dropped and
/// neighbours that stride evenly merged.
struct ReduceLayout {
  Shape kept;
  Strides kept_strides;
  Shape reduced;  // ordered by decreasing stride: a unit-stride one is last
  Strides reduced_strides;
};

inline void push_merged(Shape& shape, Strides& strides, std::int64_t size, std::int64_t stride) {
  if (!shape.empty() && strides.back() == stride * size) {
    shape.back() *= size;
    strides.back() = stride;
  } else {
    shape.push_back(size);
    strides.push_back(stride);
  }
}

/// `axes` must be normalized (non-negative, distinct).
inline ReduceLayout reduce_layout(Shape const& shape, Strides const& strides, Axes const& axes) {
  ReduceLayout layout;
  Axes reduced;
  for (std::int64_t d = 0; d < shape.rank(); ++d) {
    auto const ud = static_cast<std::size_t>(d);
    if (shape[ud] == 1) continue;
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) reduced.push_back(d);
    else push_merged(layout.kept, layout.kept_strides, shape[ud], strides[ud]);
  }
  // The order of reduction is free: outermost the broadcast (stride 0)
  // dimensions, then by decreasing stride, so a contiguous one ends last.
  auto key = [&](std::int64_t d) {
    auto const s = strides[static_cast<std::size_t>(d)];
    return s == 0 ? std::numeric_limits<std::int64_t>::max() : s < 0 ? -s : s;
  };
  // A stable insertion sort: a few axes, and no buffer (std::stable_sort
  // takes one from the heap, on every call of a jitted sum).
  for (std::size_t i = 1; i < reduced.size(); ++i)
    for (std::size_t j = i; j > 0 && key(reduced[j - 1]) < key(reduced[j]); --j) std::swap(reduced[j - 1], reduced[j]);
  for (auto d : reduced)
    push_merged(layout.reduced, layout.reduced_strides, shape[static_cast<std::size_t>(d)],
                strides[static_cast<std::size_t>(d)]);
  return layout;
}

/// Runs `fold(first, last, lo, hi, dst)`, which folds work items
/// [first, last) over reduced positions [lo, hi) and writes their results
/// into `dst` (laid out like the output), on the calling thread for small
/// work, else split over OpenMP threads: by items when there are at least
/// as many as threads, otherwise by reduced positions, each thread into its
/// own partial output, combined in thread order afterwards.
template <class Op, Element T, class Fold>
void run_reduction(std::int64_t items, std::int64_t n_reduced, std::int64_t n_out, std::int64_t work, T identity,
                   T* out, Fold&& fold) {
  int const threads = work >= parallel_grain && !omp_in_parallel() ? omp_get_max_threads() : 1;
  if (threads <= 1) {
    fold(std::int64_t{0}, items, std::int64_t{0}, n_reduced, out);
  } else if (items >= threads) {
#pragma omp parallel num_threads(threads)
    {
      std::int64_t const t = omp_get_thread_num(), nt = omp_get_num_threads();
      fold(items * t / nt, items * (t + 1) / nt, std::int64_t{0}, n_reduced, out);
    }
  } else {
    auto const slots = static_cast<std::size_t>(threads * n_out);
    auto partial = std::make_unique<T[]>(slots);
    std::fill_n(partial.get(), slots, identity);
#pragma omp parallel num_threads(threads)
    {
      std::int64_t const t = omp_get_thread_num(), nt = omp_get_num_threads();
      fold(std::int64_t{0}, items, n_reduced * t / nt, n_reduced * (t + 1) / nt, partial.get() + t * n_out);
    }
    for (std::int64_t i = 0; i < n_out; ++i) {
      T r = partial[static_cast<std::size_t>(i)];
      for (std::int64_t t = 1; t < threads; ++t) r = Op::scalar(r, partial[static_cast<std::size_t>(t * n_out + i)]);
      out[i] = r;
    }
  }
}

/// The column kernel folds input rows into blocks of this many outputs
/// (16 KiB, so the block stays in L1 while the rows stream by); every
/// `column_flush` rows the block's partial results join its total.
template <class T>
inline constexpr std::int64_t column_block = 16384 / sizeof(T);
inline constexpr std::int64_t column_flush = 256;

// reduce_into's two kernels, declared inline as its branches were: g++
// then inlines them there (a call costs a small reduction about 1% more
// instructions).

/// The reduction when the innermost reduced dimension is contiguous: each
/// output folds contiguous runs of m elements, one per position of the
/// other reduced dimensions.
template <class Op, Element T>
inline void reduce_runs(ReduceLayout const& layout, T const* data, std::int64_t work, T identity, T* out,
                        std::int64_t n_out) {
  Shape const runs(layout.reduced.begin(), layout.reduced.end() - 1);
  Strides const run_strides(layout.reduced_strides.begin(), layout.reduced_strides.end() - 1);
  auto const m = layout.reduced.back();
  run_reduction<Op>(n_out, layout.reduced.numel(), n_out, work, identity, out,
                    [&](std::int64_t first, std::int64_t last, std::int64_t lo, std::int64_t hi, T* dst) {
                      Odometer output(layout.kept, layout.kept_strides, first);
                      for (auto i = first; i < last; ++i, output.next()) {
                        Folder<Op, T> folder(identity);
                        Odometer run(runs, run_strides, lo / m);
                        for (auto k = lo, col = lo % m; k < hi; col = 0, run.next()) {
                          auto const len = std::min(m - col, hi - k);
                          folder.fold(data + output.offset + run.offset + col, len);
                          k += len;
                        }
                        dst[i] = folder.result();
                      }
                    });
}

/// The reduction when the output's innermost dimension is contiguous in the
/// input instead: input rows fold into blocks of up to column_block outputs
/// at once.
template <class Op, Element T>
inline void reduce_columns(ReduceLayout const& layout, T const* data, std::int64_t work, T identity, T* out,
                           std::int64_t n_out) {
  Shape const outer(layout.kept.begin(), layout.kept.end() - 1);
  Strides const outer_strides(layout.kept_strides.begin(), layout.kept_strides.end() - 1);
  auto const m = layout.kept.back();
  auto const width = std::min(m, column_block<T>);
  auto const blocks = (m + width - 1) / width;
  run_reduction<Op>(outer.numel() * blocks, layout.reduced.numel(), n_out, work, identity, out,
                    [&](std::int64_t first, std::int64_t last, std::int64_t lo, std::int64_t hi, T* dst) {
                      std::array<T, column_block<T>> partial, total;  // on the stack: nothing to throw here
                      for (auto item = first; item < last; ++item) {
                        auto const k = item / blocks, j0 = item % blocks * width;
                        auto const w = std::min(width, m - j0);
                        T const* base = data + Odometer(outer, outer_strides, k).offset + j0;
                        std::fill_n(partial.data(), w, identity);
                        std::fill_n(total.data(), w, identity);
                        Odometer row(layout.reduced, layout.reduced_strides, lo);
                        auto next_row = [&] {
                          T const* p = base + row.offset;
                          row.next();
                          return p;
                        };
                        auto flush = [&] {
                          fold_columns<Op>(total.data(), std::array<T const*, 1>{partial.data()}, w);
                          std::fill_n(partial.data(), w, identity);
                        };
                        for (auto r = lo, since = std::int64_t{0}; r < hi;) {
                          if (hi - r >= 4) {
                            fold_columns<Op>(partial.data(), std::array{next_row(), next_row(), next_row(), next_row()}, w);
                            r += 4;
                            since += 4;
                          } else {
                            fold_columns<Op>(partial.data(), std::array{next_row()}, w);
                            ++r;
                            ++since;
                          }
                          if (since >= column_flush) {
                            flush();
                            since = 0;
                          }
                        }
                        flush();
                        std::copy_n(total.data(), w, dst + k * m + j0);
                      }
                    });
}

/// out[i] = the fold with `Op` over the normalized `axes` of x, for each
/// position i (row-major) of the dimensions not reduced.
template <class Op, Element T>
void reduce_into(Array<T> const& x, Axes const& axes, T identity, T* out, std::int64_t n_out) {
  if (n_out == 0) return;
  if (x.size() == 0) {  // something reduced is empty
    std::fill_n(out, n_out, identity);
    return;
  }
  auto const layout = reduce_layout(x.shape(), x.strides(), axes);
  if (layout.reduced.empty()) {  // only size-1 axes (or none) reduced
    x.copy_to(out);
    return;
  }
  if (layout.reduced_strides.back() == 1) reduce_runs<Op>(layout, x.data(), x.size(), identity, out, n_out);
  else if (!layout.kept.empty() && layout.kept_strides.back() == 1)
    reduce_columns<Op>(layout, x.data(), x.size(), identity, out, n_out);
  else reduce_into<Op>(contiguous(x), axes, identity, out, n_out);
}

}  // namespace jaxcc::detail
