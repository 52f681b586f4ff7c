// jit's fused runs (graph/plan.hpp): a run of consecutive elementwise
// equations of one shape (fused regions of any expression type, one op or
// many) is one step of a plan, which runs tile by tile: a tile's
// intermediates stay in a small per-thread scratch buffer, and only values
// read after the run are written to memory. A run may end in a reduction,
// folded tile by tile. Running one is const and keeps its state on the
// caller's stack (and per-thread scratch).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "jaxcc/core/runtime_compiled.hpp"
#include "jaxcc/kernels/scratch_vector.hpp"
#include "jaxcc/kernels/stream_copy.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/buffer.hpp"
#include "jaxcc/core/small_vector.hpp"
#include "jaxcc/graph/trace.hpp"

namespace jaxcc::detail {

/// How a run of shape `run` reads an input of shape `in`: whole (the same
/// shape), as one value, or broadcast periodically — along the leading
/// dimensions (a bias row of a batch: element i reads element i % unit) or
/// along the trailing ones (each row's maximum kept as (rows, 1): element i
/// reads i / unit). A run cuts its tiles where such an input's period ends,
/// so that in a tile it is a row or one value; periods shorter than
/// `min_period` would cut the tiles too short, and other broadcasts (a
/// middle dimension) cannot be read so: for those, none.
struct RunInput {
  enum class Form : std::uint8_t { whole, one, repeat, stretch };
  static constexpr std::int64_t min_period = 16;
  Form form = Form::whole;
  std::int64_t unit = 0;  // repeat, stretch: elements per period
};
inline std::optional<RunInput> run_input(Shape const& in, Shape const& run) {
  using Form = RunInput::Form;
  if (in == run) return RunInput{Form::whole};
  if (in.numel() == 1) return RunInput{Form::one};
  if (in.rank() > run.rank() || in.numel() == 0) return std::nullopt;
  auto const rank = static_cast<std::size_t>(run.rank());
  Shape padded(rank - static_cast<std::size_t>(in.rank()), 1);
  padded.insert(padded.end(), in.begin(), in.end());
  auto const matches_from = [&](std::size_t first, std::size_t last) {
    return std::equal(padded.begin() + static_cast<std::ptrdiff_t>(first), padded.begin() + static_cast<std::ptrdiff_t>(last),
                      run.begin() + static_cast<std::ptrdiff_t>(first));
  };
  auto const ones = [](auto begin, auto end) { return static_cast<std::size_t>(std::find_if(begin, end, [](std::int64_t d) { return d != 1; }) - begin); };
  std::optional<RunInput> form;
  if (auto const leading = ones(padded.begin(), padded.end()); matches_from(leading, rank))
    form = RunInput{Form::repeat, in.numel()};
  else if (auto const trailing = ones(std::make_reverse_iterator(padded.end()), std::make_reverse_iterator(padded.begin()));
           matches_from(0, rank - trailing))
    form = RunInput{Form::stretch, run.numel() / in.numel()};
  if (form && form->unit < RunInput::min_period) return std::nullopt;
  return form;
}

/// A run of elementwise equations of one shape, computed tile by tile.
/// Its values are referred to as inputs (read from memory), scratch (a
/// tile's intermediate) or outputs (written to memory, also read by later
/// members of the run).
template <class = void>
class FusedRunT {
 public:
  enum class Place : std::uint8_t { input, scratch, output };
  struct Ref {
    Place place;
    std::uint32_t index;
  };
  struct Member {
    graph::PrimitiveBase const* primitive;
    std::vector<Ref> operands;
    Ref result;
  };
  /// A reduction over the last axes (or every axis) that the run ends in:
  /// `operand`, a value of the run, is folded tile by tile; its result, of
  /// `dtype` and `shape`, is the run's last output.
  struct Fold {
    graph::PrimitiveBase const* reduction;
    Ref operand;
    DType dtype;
    Shape shape;
  };

  /// An input value: its dtype, and how the run reads it.
  struct Input {
    DType dtype;
    RunInput read;
  };

  /// `inputs`: the input values. `scratch_slots`: how many tile
  /// buffers the members' scratch refs use (a slot is reused once the value
  /// in it has been read for the last time). `donor[k]`: an input (donated,
  /// of output k's dtype and shape, read by no member after the one that
  /// writes output k) whose buffer output k may take, or -1.
  FusedRunT(Shape shape, std::vector<Member> const& members, std::vector<Input> inputs, std::size_t scratch_slots,
           std::vector<DType> outputs, std::vector<std::int32_t> donor, std::optional<Fold> fold = std::nullopt);

  /// Appends the run's outputs to `out`. `into[k]`, where given and not
  /// null: a dense array of output k's dtype and shape to write it into
  /// (a device's part of a sharded result) instead of a fresh one.
  void run(std::span<AnyArray const> inputs, std::vector<AnyArray>& out,
           std::span<AnyArray const* const> into = {}) const;

 private:
  /// Where chunks may start when each segment must lie in one: on a
  /// segment, and on a tile too (rows then start on a cache line) unless
  /// that leaves too few places to split the work.
  std::int64_t chunk_alignment(std::int64_t n) const {
    auto const both = std::lcm(fold_segment_, tile);
    return both <= n / 8 ? both : fold_segment_;
  }

  /// Folds elements [start, start + count) of the fold's operand, whose row
  /// is at `row`, writing each segment's result as the segment ends.
  void fold_segments(graph::RowFold& fold, void const* row, std::int64_t start, std::int64_t count, void* results) const {
    auto const bytes = static_cast<std::int64_t>(item_size(fold_dtype_));  // the operand's dtype too
    for (auto pos = start, end = start + count; pos < end;) {
      auto const segment_end = (pos / fold_segment_ + 1) * fold_segment_;
      auto const stop = std::min(segment_end, end);
      fold.fold(static_cast<char const*>(row) + (pos - start) * bytes, stop - pos);
      pos = stop;
      if (pos == segment_end) {
        fold.result(static_cast<char*>(results) + (pos / fold_segment_ - 1) * bytes);
        fold.reset();
      }
    }
  }

  /// A chunk's fold: its first element, and its result (one element of
  /// the reduction's dtype).
  struct Partial {
    std::int64_t first;
    alignas(8) unsigned char value[8];
  };

  /// The reduction of the chunks' partial results, appended to `out`, in
  /// element order (so a float sum comes out the same on every call with as
  /// many threads).
  void fold_into(std::vector<Partial>& folds, std::vector<AnyArray>& out) const;

  static constexpr std::int64_t tile = 512;
  // The hardware prefetcher follows a steady stream of reads; a run reads
  // its inputs in bursts, one tile at its first members, and would wait on
  // memory there while the hardware sits idle during the others. So the
  // run asks for the rows two tiles ahead itself, a share before each
  // member (on the bench machine one, two and four tiles ahead measured
  // within noise of each other, each well ahead of none).
  static constexpr std::int64_t prefetch_tiles = 2;
  // An output this large leaves the caches before anyone reads it: it is
  // computed into a scratch slot and copied out with streaming stores,
  // which skip reading each line before writing it (a third of a
  // one-input run's memory traffic).
  static constexpr std::int64_t streaming_bytes = std::int64_t{16} << 20;
  // Scratch slots start at different offsets within a 4 KiB page from one
  // another and from page-aligned arrays: else a load from one and a store
  // to another 4 KiB apart look dependent to the CPU (4K aliasing) and the
  // tile loop stalls on every store.
  static constexpr std::int64_t scratch_offset = 136, slot_stride = tile + 40;

  /// A donated input's buffer can hold an output if it is dense and no
  /// other input reads it (the same array passed twice, or a view of it).
  static bool reusable(std::span<AnyArray const> inputs, std::size_t donor);

  /// A value whose row moves from tile to tile, by its bytes per element.
  struct Moving {
    std::uint32_t value;
    std::int64_t bytes;
  };

  /// Prefetches a tile's elements [first, last) of some rows (values at
  /// `base`), spread over `members` calls of issue().
  class RowPrefetch {
   public:
    RowPrefetch(std::span<Moving const> rows, std::span<void const* const> base, std::size_t members)
        : rows_(rows), base_(base) {
      std::int64_t lines = 0;  // a whole tile's, each row's first line maybe partial
      for (auto const& r : rows_) lines += r.bytes * tile / 64 + 1;
      auto const calls = static_cast<std::int64_t>(std::max<std::size_t>(members, 1));
      share_ = (lines + calls - 1) / calls;
    }

    void start(std::int64_t first, std::int64_t last) {
      first_ = first;
      last_ = last;
      open(first < last ? 0 : rows_.size());
    }
    void issue() {
      for (auto k = share_; k > 0 && row_ < rows_.size(); --k) {
#if defined(__GNUC__)
        __builtin_prefetch(reinterpret_cast<void const*>(line_));
#endif
        line_ += 64;
        if (line_ >= end_) open(row_ + 1);
      }
    }

   private:
    // Addresses as integers: the last line's may lie past the row's end.
    void open(std::size_t row) {
      row_ = row;
      if (row_ == rows_.size()) return;
      auto const& r = rows_[row_];
      auto const at = reinterpret_cast<std::uintptr_t>(base_[r.value]);
      line_ = (at + static_cast<std::uintptr_t>(r.bytes * first_)) / 64 * 64;
      end_ = at + static_cast<std::uintptr_t>(r.bytes * last_);
    }

    std::span<Moving const> rows_;
    std::span<void const* const> base_;
    std::int64_t first_ = 0, last_ = 0, share_ = 0;
    std::size_t row_ = 0;
    std::uintptr_t line_ = 0, end_ = 0;
  };

  /// An input broadcast periodically (RunInput): in a tile, the row at
  /// element `start % unit` (repeat) or the one value at `start / unit`.
  struct Periodic {
    std::uint32_t value;
    std::int64_t bytes, unit;
    bool repeat;
  };

  /// Where a call writes output k: into[k] where given, a donated input's
  /// buffer where it may take it, else a fresh array. Each is appended to
  /// `out`, its data to `out_data`.
  void place_outputs(std::span<AnyArray const> inputs, std::vector<AnyArray>& out,
                     std::span<AnyArray const* const> into, SmallVector<void*, 8>& out_data) const;

  /// A call's values as the tile loop reads them. Each value's row at
  /// element 0 and its step (elements, for the kernels; 0: one value); the
  /// values that move in memory from tile to tile, with their bytes per
  /// element: inputs read as rows (the first `read_rows`, which are
  /// prefetched), then outputs; the inputs read periodically; and the
  /// outputs written with streaming stores. Scratch values are per thread:
  /// set in each chunk.
  struct CallValues {
    SmallVector<void const*, 32> base;
    SmallVector<std::int64_t, 32> steps;
    SmallVector<Moving, 16> moving;
    std::size_t read_rows = 0;
    SmallVector<Periodic, 8> periodic;
    SmallVector<std::uint32_t, 8> streamed;
  };
  /// The inputs' values in `call`, which is sized for every value here;
  /// `dense` keeps the dense copies of strided inputs.
  void add_inputs(CallValues& call, std::span<AnyArray const> inputs, std::vector<AnyArray>& dense) const;
  /// The outputs' values in `call`, after the inputs'.
  void add_outputs(CallValues& call, SmallVector<void*, 8> const& out_data) const;

  /// Values are numbered inputs, then outputs, then scratch slots.
  std::uint32_t value_of(Ref r) const {
    switch (r.place) {
      case Place::input: return r.index;
      case Place::output: return static_cast<std::uint32_t>(inputs_.size()) + r.index;
      case Place::scratch: break;
    }
    return static_cast<std::uint32_t>(inputs_.size() + outputs_.size()) + r.index;
  }

  Shape shape_;
  std::vector<Input> inputs_;
  std::size_t scratch_slots_;
  std::vector<DType> outputs_;
  std::vector<std::int32_t> donor_;
  // Member k applies kernels_[k] to the values operands_[first_operand_[k]
  // .. first_operand_[k + 1]), writing the value results_[k].
  std::vector<graph::PrimitiveBase::RowKernel> kernels_;
  std::vector<std::uint32_t> operands_, first_operand_, results_;
  graph::PrimitiveBase const* fold_ = nullptr;  // the reduction the run ends in, if any
  std::uint32_t fold_operand_ = 0;
  DType fold_dtype_{};
  Shape fold_shape_;
  std::int64_t fold_segment_ = 0;  // elements per result
};

template <class V>
JAXCC_RUNTIME_INLINE FusedRunT<V>::FusedRunT(Shape shape, std::vector<Member> const& members, std::vector<Input> inputs,
                                             std::size_t scratch_slots, std::vector<DType> outputs,
                                             std::vector<std::int32_t> donor, std::optional<Fold> fold)
    : shape_(std::move(shape)),
      inputs_(std::move(inputs)),
      scratch_slots_(scratch_slots),
      outputs_(std::move(outputs)),
      donor_(std::move(donor)) {
  for (auto const& m : members) {
    first_operand_.push_back(static_cast<std::uint32_t>(operands_.size()));
    for (auto const& r : m.operands) operands_.push_back(value_of(r));
    kernels_.push_back(m.primitive->row_kernel());
    results_.push_back(value_of(m.result));
  }
  first_operand_.push_back(static_cast<std::uint32_t>(operands_.size()));
  if (fold) {
    fold_ = fold->reduction;
    fold_dtype_ = fold->dtype;
    fold_shape_ = std::move(fold->shape);
    fold_operand_ = value_of(fold->operand);
    fold_segment_ = fold_->row_fold(shape_)->segment();
  }
}

template <class V>
JAXCC_RUNTIME_INLINE void FusedRunT<V>::place_outputs(std::span<AnyArray const> inputs, std::vector<AnyArray>& out,
                                                      std::span<AnyArray const* const> into,
                                                      SmallVector<void*, 8>& out_data) const {
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    if (k < into.size() && into[k]) {
      out.push_back(*into[k]);
      out_data.push_back(const_cast<void*>(data_of(*into[k])));
      continue;
    }
    if (donor_[k] >= 0 && reusable(inputs, static_cast<std::size_t>(donor_[k]))) {
      auto const& in = inputs[static_cast<std::size_t>(donor_[k])];
      out.push_back(in);
      out_data.push_back(const_cast<void*>(data_of(in)));
      continue;
    }
    auto [array, data] = allocate_any(outputs_[k], shape_);
    out.push_back(std::move(array));
    out_data.push_back(data);
  }
}

template <class V>
JAXCC_RUNTIME_INLINE void FusedRunT<V>::add_inputs(CallValues& call, std::span<AnyArray const> inputs,
                                                   std::vector<AnyArray>& dense) const {
  auto const n_values = inputs_.size() + outputs_.size() + scratch_slots_;
  call.base.assign(n_values, nullptr);
  call.steps.assign(n_values, 1);
  // Each input is read as one value (one element, or every stride 0: a
  // broadcast scalar) or as a dense row, whole or periodically; a strided
  // view is copied dense.
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    auto const& in = inputs[i];
    bool const scalar = in.size() == 1 || broadcast_scalar(in);
    if (!scalar && !contiguous(in))
      dense.push_back(as_contiguous(in));
    call.base[i] = data_of(scalar || contiguous(in) ? in : dense.back());
    auto const bytes = static_cast<std::int64_t>(item_size(inputs_[i].dtype));
    auto const& read = inputs_[i].read;
    if (scalar && shape_.numel() != 1) call.steps[i] = 0;
    else if (read.form == RunInput::Form::whole) call.moving.push_back({static_cast<std::uint32_t>(i), bytes});
    else if (read.form != RunInput::Form::one) {
      bool const repeat = read.form == RunInput::Form::repeat;
      call.steps[i] = repeat ? 1 : 0;
      call.periodic.push_back({static_cast<std::uint32_t>(i), bytes, read.unit, repeat});
    }
  }
  // Inputs read from memory are fetched ahead (RowPrefetch).
  call.read_rows = call.moving.size();
}

template <class V>
JAXCC_RUNTIME_INLINE void FusedRunT<V>::add_outputs(CallValues& call, SmallVector<void*, 8> const& out_data) const {
  // Large outputs are written through a scratch slot with streaming stores.
  auto const n_in = inputs_.size();
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    call.base[n_in + k] = out_data[k];
    auto const bytes = static_cast<std::int64_t>(item_size(outputs_[k]));
    if (bytes * shape_.numel() >= streaming_bytes) call.streamed.push_back(static_cast<std::uint32_t>(k));
    else call.moving.push_back({static_cast<std::uint32_t>(n_in + k), bytes});
  }
}

template <class V>
JAXCC_RUNTIME_INLINE void FusedRunT<V>::run(std::span<AnyArray const> inputs, std::vector<AnyArray>& out,
                                            std::span<AnyArray const* const> into) const {
  SmallVector<void*, 8> out_data;
  place_outputs(inputs, out, into, out_data);
  CallValues call;
  std::vector<AnyArray> dense;
  add_inputs(call, inputs, dense);
  add_outputs(call, out_data);
  auto const n_in = inputs_.size(), n_out = outputs_.size();
  auto const n = shape_.numel();
  // A fold over every axis: its partial results, one per chunk. Over the
  // last axes (several results): each chunk starts a segment, and each
  // result is written as its segment ends.
  std::mutex folds_mutex;
  ScratchVector<Partial> folds;
  bool const per_segment = fold_ && !fold_shape_.empty();  // (1, n) summed over axis 1 too: a (1,) result
  void* segment_results = nullptr;
  if (per_segment) {
    auto [array, data] = allocate_any(fold_dtype_, fold_shape_);
    segment_results = data;
    out.push_back(std::move(array));
  }
  parallel_chunks(n, per_segment ? chunk_alignment(n) : tile, [&](std::int64_t lo, std::int64_t hi) {
    auto fold = fold_ ? fold_->row_fold(shape_) : nullptr;
    // 8-byte elements fit every dtype. A Buffer starts on a cache line, as
    // arrays do, so the slots do too (a vector load or store across two
    // lines costs two).
    thread_local std::unique_ptr<Buffer> scratch;
    // Slots: the scratch values', then one per streamed output.
    auto const n_slots = scratch_slots_ + call.streamed.size();
    auto const needed = sizeof(double) * static_cast<std::size_t>(scratch_offset + slot_stride * static_cast<std::int64_t>(n_slots));
    if (!scratch || scratch->bytes() < needed) scratch = std::make_unique<Buffer>(needed);
    auto* const slots = static_cast<double*>(scratch->data()) + scratch_offset;
    auto ptrs = call.base;
    for (std::size_t k = 0; k < scratch_slots_; ++k) ptrs[n_in + n_out + k] = slots + static_cast<std::int64_t>(k) * slot_stride;
    for (std::size_t k = 0; k < call.streamed.size(); ++k)
      ptrs[n_in + call.streamed[k]] = slots + static_cast<std::int64_t>(scratch_slots_ + k) * slot_stride;
    std::span<void const* const> const values(ptrs.data(), ptrs.size());
    std::span<std::int64_t const> const value_steps(call.steps.data(), call.steps.size());
    RowPrefetch prefetch(std::span<Moving const>(call.moving.data(), call.read_rows),
                         std::span<void const* const>(call.base.data(), call.base.size()),
                         kernels_.size());
    for (std::int64_t start = lo, count = 0; start < hi; start += count) {
      count = std::min<std::int64_t>(tile, hi - start);
      for (auto const& p : call.periodic) count = std::min(count, (start / p.unit + 1) * p.unit - start);  // to the period's end
      for (auto const& m : call.moving) ptrs[m.value] = static_cast<char const*>(call.base[m.value]) + m.bytes * start;
      for (auto const& p : call.periodic)
        ptrs[p.value] = static_cast<char const*>(call.base[p.value]) + p.bytes * (p.repeat ? start % p.unit : start / p.unit);
      prefetch.start(start + prefetch_tiles * tile, std::min(start + (prefetch_tiles + 1) * tile, hi));
      for (std::size_t k = 0; k < kernels_.size(); ++k) {
        prefetch.issue();
        std::span<std::uint32_t const> const operands(operands_.data() + first_operand_[k], first_operand_[k + 1] - first_operand_[k]);
        kernels_[k].run(kernels_[k].context, values, value_steps, operands, const_cast<void*>(ptrs[results_[k]]), count);
      }
      for (auto const k : call.streamed) {
        auto const bytes = static_cast<std::int64_t>(item_size(outputs_[k]));
        stream_copy(static_cast<char*>(out_data[k]) + bytes * start, ptrs[n_in + k], static_cast<std::size_t>(bytes * count));
      }
      if (per_segment) fold_segments(*fold, ptrs[fold_operand_], start, count, segment_results);
      else if (fold) fold->fold(ptrs[fold_operand_], count);
    }
    if (!call.streamed.empty()) stream_fence();
    if (fold && !per_segment) {
      // Read here, so that the fold's block goes back to the cache of the
      // thread that took it (and that thread takes it again next call).
      Partial partial{lo, {}};
      fold->result(partial.value);
      std::lock_guard lock(folds_mutex);
      folds->push_back(partial);
    }
  });
  if (fold_ && !per_segment) fold_into(*folds, out);
}

template <class V>
JAXCC_RUNTIME_INLINE void FusedRunT<V>::fold_into(std::vector<Partial>& folds, std::vector<AnyArray>& out) const {
  std::sort(folds.begin(), folds.end(), [](Partial const& a, Partial const& b) { return a.first < b.first; });
  Shape shape(shape_.size(), 1);  // (chunks, 1, ..., 1): reduced over every axis as the operand was
  if (!shape.empty()) shape[0] = static_cast<std::int64_t>(folds.size());
  auto [partials, data] = allocate_any(fold_dtype_, shape);
  auto const bytes = item_size(fold_dtype_);
  for (std::size_t i = 0; i < folds.size(); ++i) std::memcpy(static_cast<char*>(data) + i * bytes, folds[i].value, bytes);
  AnyArray const operand[] = {partials};
  fold_->evaluate_into(operand, out);
}

template <class V>
JAXCC_RUNTIME_INLINE bool FusedRunT<V>::reusable(std::span<AnyArray const> inputs, std::size_t donor) {
  auto const buffer_of = [](AnyArray const& a) { return impl_of(a).buffer.get(); };
  auto const& in = inputs[donor];
  if (!contiguous(in) || broadcast_scalar(in)) return false;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (i != donor && buffer_of(inputs[i]) == buffer_of(in)) return false;
  return true;
}
using FusedRun = FusedRunT<>;

}  // namespace jaxcc::detail
