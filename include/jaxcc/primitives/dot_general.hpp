// dot_general: the one contraction primitive (lax.dot_general). The output
// holds the batch dims, then lhs's free dims, then rhs's free dims. Each
// batch is one GEMM that Eigen runs straight over jaxcc's buffers through
// Eigen::Map; an operand is copied only when its dims can't be read as a
// strided matrix (rows or columns unit-stride).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <omp.h>
#include <Eigen/Core>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/kernels/gemm.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::detail {

/// Axes as JAX prints a tuple of ints: `(0, 2)`, `(1,)`, `()`.
inline std::string axes_string(Axes const& axes) { return to_string(Shape(axes.begin(), axes.end())); }

/// (lo, hi) pairs as JAX prints a tuple of them: `((1, 1), (0, 2))`, `((0, 1),)`.
inline std::string pairs_string(std::vector<std::pair<std::int64_t, std::int64_t>> const& pairs) {
  std::string s = "(";
  for (std::size_t i = 0; i < pairs.size(); ++i)
    s += (i ? ", (" : "(") + std::to_string(pairs[i].first) + ", " + std::to_string(pairs[i].second) + ")";
  return s + (pairs.size() == 1 ? ",)" : ")");
}

/// Axes as Python prints a list of ints: `[1, 2]`.
inline std::string axes_list_string(Axes const& axes) {
  std::string s = "[";
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(axes[i]);
  }
  return s + ']';
}

/// `x` (any ArrayLike, any dtype) as an Array of element type T.
template <Element T, ArrayLike A>
Array<T> array_as(A const& x) {
  return fusion::cast<T>(x);
}

/// Size and stride of `axes` of a strided layout read as one dimension
/// (row-major over the axes in the order given); nullopt when they can't be.
inline std::optional<std::pair<std::int64_t, std::int64_t>> merge_axes(Shape const& shape, Strides const& strides,
                                                                       Axes const& axes) {
  std::int64_t size = 1, stride = 1;
  bool seen = false;
  for (auto it = axes.end(); it != axes.begin();) {
    auto const d = static_cast<std::size_t>(*--it);
    if (shape[d] == 0) return std::pair<std::int64_t, std::int64_t>{0, 1};
    if (shape[d] == 1) continue;
    if (!seen) stride = strides[d];
    else if (strides[d] != stride * size) return std::nullopt;
    seen = true;
    size *= shape[d];
  }
  return std::pair{size, stride};
}

/// One operand of a batched product read as a stack of matrices: each batch
/// index has its own offset; rows and cols are merged dims with one stride.
template <Element T>
struct MatrixStack {
  Array<T> owner;  // the operand, or the copy the matrices are read from
  Shape batch_sizes;
  Strides batch_strides;
  std::int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;

  bool row_major() const { return cols <= 1 || col_stride == 1; }
  bool col_major() const { return rows <= 1 || row_stride == 1; }

  T const* matrix(std::int64_t batch) const {
    std::int64_t offset = 0;
    for (auto d = batch_sizes.size(); d-- > 0;) {
      offset += (batch % batch_sizes[d]) * batch_strides[d];
      batch /= batch_sizes[d];
    }
    return owner.data() + offset;
  }
};

/// `x` read as matrices whose rows are `row_axes` and columns `col_axes`,
/// one per index of `batch_axes`. Zero-copy when the rows or the columns are
/// unit-stride (Eigen maps it row- or column-major); else the operand is
/// copied once, in (batch, rows, cols) order.
template <Element T>
MatrixStack<T> matrix_stack(Array<T> const& x, Axes const& batch_axes, Axes const& row_axes, Axes const& col_axes) {
  MatrixStack<T> m;
  auto const& shape = x.shape();
  for (auto a : batch_axes) {
    m.batch_sizes.push_back(shape[static_cast<std::size_t>(a)]);
    m.batch_strides.push_back(x.strides()[static_cast<std::size_t>(a)]);
  }
  auto rows = merge_axes(shape, x.strides(), row_axes);
  auto cols = merge_axes(shape, x.strides(), col_axes);
  if (rows && cols && rows->second >= 0 && cols->second >= 0) {
    m.owner = x;
    std::tie(m.rows, m.row_stride) = *rows;
    std::tie(m.cols, m.col_stride) = *cols;
    if (m.row_major() || m.col_major()) return m;
  }
  // Copy the permuted view; every group of its dims then merges.
  Shape permuted_shape;
  Strides permuted_strides;
  for (auto const* group : {&batch_axes, &row_axes, &col_axes})
    for (auto a : *group) {
      permuted_shape.push_back(shape[static_cast<std::size_t>(a)]);
      permuted_strides.push_back(x.strides()[static_cast<std::size_t>(a)]);
    }
  auto dense = contiguous(view(x, permuted_shape, std::move(permuted_strides), offset_of(x)));
  auto const nb = batch_axes.size(), nr = row_axes.size();
  Axes dense_batch, dense_rows, dense_cols;
  for (std::size_t i = 0; i < permuted_shape.size(); ++i)
    (i < nb ? dense_batch : i < nb + nr ? dense_rows : dense_cols).push_back(static_cast<std::int64_t>(i));
  return matrix_stack(dense, dense_batch, dense_rows, dense_cols);
}

/// `out` (rows × cols, row-major, dense) = lhs · rhs for one batch, or
/// += scale · lhs · rhs with `accumulate`.
template <class T>
void gemm(MatrixStack<T> const& lhs, MatrixStack<T> const& rhs, std::int64_t batch, T* out, bool accumulate = false,
          T scale = T{1}) {
  gemm_into<T>({lhs.matrix(batch), lhs.rows, lhs.cols, lhs.row_stride, lhs.col_stride},
               {rhs.matrix(batch), rhs.rows, rhs.cols, rhs.row_stride, rhs.col_stride},
               {out, rhs.cols, accumulate, scale});
}

/// Whether `x` is known to be all zeros without reading more than one
/// element: a concrete broadcast (every stride 0) of a zero, such as the
/// symbolic zero tangents that transforms make real.
template <Element T>
bool is_zero_broadcast(Array<T> const& x) {
  if (x.is_traced()) return false;
  if (x.size() == 0) return true;
  for (auto s : x.strides())
    if (s != 0) return false;
  return x.data()[0] == T{0};
}

/// Below this many multiply-adds per batch, batches (not rows) are split
/// over threads: Eigen would run such a GEMM on one thread anyway.
inline constexpr std::int64_t gemm_parallel_grain = std::int64_t{1} << 21;

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct dot_general_p {
  static constexpr std::string_view name = "dot_general";
  /// lax.dot_general's dimension_numbers: ((lhs_contracting, rhs_contracting),
  /// (lhs_batch, rhs_batch)), dims paired in order, all nonnegative.
  struct Params {
    Axes lhs_contracting, rhs_contracting;
    Axes lhs_batch = {}, rhs_batch = {};
    friend bool operator==(Params const&, Params const&) = default;
  };

  /// As JAX's jaxprs print it: `dimension_numbers=(([1], [0]), ([], []))`.
  static std::string params_string(Params const& p) {
    auto const list = detail::axes_list_string;
    return "dimension_numbers=((" + list(p.lhs_contracting) + ", " + list(p.rhs_contracting) + "), (" +
           list(p.lhs_batch) + ", " + list(p.rhs_batch) + "))";
  }

  /// Sharded jit (GSPMD's dot rule): batch and free dimensions keep their
  /// splits; a contraction split the same way on both sides is multiplied
  /// part by part, leaving partial sums over its mesh axes (the
  /// partitioner adds them with psum); any other split of a contracted or
  /// batch dimension, or a mesh axis the result would use twice, is
  /// gathered first.
  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& lhs,
                                                     Array<T> const& rhs) {
    auto want_l = layouts[0], want_r = layouts[1];
    auto const at = [](graph::Layout& l, std::int64_t d) -> std::vector<std::string>& {
      return l.dims[static_cast<std::size_t>(d)];
    };
    std::vector<std::string> partial;
    for (std::size_t i = 0; i < p.lhs_batch.size(); ++i)
      if (at(want_l, p.lhs_batch[i]) != at(want_r, p.rhs_batch[i])) at(want_l, p.lhs_batch[i]).clear(), at(want_r, p.rhs_batch[i]).clear();
    for (std::size_t i = 0; i < p.lhs_contracting.size(); ++i) {
      auto& l = at(want_l, p.lhs_contracting[i]);
      auto& r = at(want_r, p.rhs_contracting[i]);
      if (l == r) partial.insert(partial.end(), l.begin(), l.end());
      else l.clear(), r.clear();
    }
    auto const free_dims = [](std::int64_t rank, Axes const& a, Axes const& b) {
      Axes out;
      for (std::int64_t d = 0; d < rank; ++d)
        if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end()) out.push_back(d);
      return out;
    };
    auto const lhs_free = free_dims(lhs.ndim(), p.lhs_batch, p.lhs_contracting);
    auto const rhs_free = free_dims(rhs.ndim(), p.rhs_batch, p.rhs_contracting);
    // A mesh axis may split one dimension of the result: the rhs gives way.
    std::vector<std::string> used = partial;
    for (auto d : p.lhs_batch) used.insert(used.end(), at(want_l, d).begin(), at(want_l, d).end());
    for (auto d : lhs_free) used.insert(used.end(), at(want_l, d).begin(), at(want_l, d).end());
    for (auto d : rhs_free)
      for (auto const& a : at(want_r, d))
        if (std::find(used.begin(), used.end(), a) != used.end()) at(want_r, d).clear();
    graph::Layout out;
    for (auto d : p.lhs_batch) out.dims.push_back(at(want_l, d));
    for (auto d : lhs_free) out.dims.push_back(at(want_l, d));
    for (auto d : rhs_free) out.dims.push_back(at(want_r, d));
    auto const l = reshard(AnyArray(lhs), layouts[0], want_l).template as<T>();
    auto const r = reshard(AnyArray(rhs), layouts[1], want_r).template as<T>();
    return graph::Partitioned{detail::bind<dot_general_p>(p, l, r), out, partial, graph::PartialCombine::sum};
  }

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& lhs, Array<T> const& rhs) {
    using detail::axes_string;
    auto in_range = [](Axes const& axes, std::int64_t rank) {
      for (auto a : axes)
        if (a < 0 || a >= rank) return false;
      return true;
    };
    auto distinct = [](Axes const& axes) {
      for (std::size_t i = 0; i < axes.size(); ++i)
        for (std::size_t j = i + 1; j < axes.size(); ++j)
          if (axes[i] == axes[j]) return false;
      return true;
    };
    auto disjoint = [](Axes const& a, Axes const& b) {
      for (auto x : a)
        for (auto y : b)
          if (x == y) return false;
      return true;
    };
    auto fail = [](std::string const& msg) { throw Error("dot_general requires " + msg); };
    if (!in_range(p.lhs_contracting, lhs.ndim()) || !in_range(p.lhs_batch, lhs.ndim()))
      fail("lhs dimension numbers to be nonnegative and less than the number of axes of the lhs value, got lhs_batch of " +
           axes_string(p.lhs_batch) + " and lhs_contracting of " + axes_string(p.lhs_contracting) +
           " for lhs of rank " + std::to_string(lhs.ndim()));
    if (!in_range(p.rhs_contracting, rhs.ndim()) || !in_range(p.rhs_batch, rhs.ndim()))
      fail("rhs dimension numbers to be nonnegative and less than the number of axes of the rhs value, got rhs_batch of " +
           axes_string(p.rhs_batch) + " and rhs_contracting of " + axes_string(p.rhs_contracting) +
           " for rhs of rank " + std::to_string(rhs.ndim()));
    if (p.lhs_batch.size() != p.rhs_batch.size())
      fail("equal numbers of lhs_batch and rhs_batch dimensions, got lhs_batch " + axes_string(p.lhs_batch) +
           " and rhs_batch " + axes_string(p.rhs_batch) + ".");
    if (!distinct(p.lhs_batch))
      fail("lhs batch dimensions to be distinct, got lhs_batch " + axes_string(p.lhs_batch) + ".");
    if (!distinct(p.rhs_batch))
      fail("rhs batch dimensions to be distinct, got rhs_batch " + axes_string(p.rhs_batch) + ".");
    if (!distinct(p.lhs_contracting))
      fail("lhs contracting dimensions to be distinct, got lhs_contracting " + axes_string(p.lhs_contracting) + ".");
    if (!distinct(p.rhs_contracting))
      fail("rhs contracting dimensions to be distinct, got rhs_contracting " + axes_string(p.rhs_contracting) + ".");
    if (!disjoint(p.lhs_batch, p.lhs_contracting))
      fail("lhs batch dimensions to be disjoint from contracting dimensions, got lhs_batch " +
           axes_string(p.lhs_batch) + " and lhs_contracting " + axes_string(p.lhs_contracting) + ".");
    if (!disjoint(p.rhs_batch, p.rhs_contracting))
      fail("rhs batch dimensions to be disjoint from contracting dimensions, got rhs_batch " +
           axes_string(p.rhs_batch) + " and rhs_contracting " + axes_string(p.rhs_contracting) + ".");
    auto sizes = [](Array<T> const& x, Axes const& axes) {
      Shape s;
      for (auto a : axes) s.push_back(x.shape()[static_cast<std::size_t>(a)]);
      return s;
    };
    auto const lhs_batch_shape = sizes(lhs, p.lhs_batch), rhs_batch_shape = sizes(rhs, p.rhs_batch);
    if (!(lhs_batch_shape == rhs_batch_shape))
      fail("lhs batch dimensions and rhs batch dimensions to have the same shape, got " + to_string(lhs_batch_shape) +
           " and " + to_string(rhs_batch_shape) + ".");
    auto const lhs_contracting_shape = sizes(lhs, p.lhs_contracting);
    auto const rhs_contracting_shape = sizes(rhs, p.rhs_contracting);
    if (!(lhs_contracting_shape == rhs_contracting_shape))
      fail("contracting dimensions to have the same shape, got " + to_string(lhs_contracting_shape) + " and " +
           to_string(rhs_contracting_shape) + ".");
    Shape out = lhs_batch_shape;
    for (auto d : free_axes(lhs.ndim(), p.lhs_batch, p.lhs_contracting)) out.push_back(lhs.shape()[static_cast<std::size_t>(d)]);
    for (auto d : free_axes(rhs.ndim(), p.rhs_batch, p.rhs_contracting)) out.push_back(rhs.shape()[static_cast<std::size_t>(d)]);
    return out;
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& lhs, Array<T> const& rhs) {
    if constexpr (std::same_as<T, bool>) {
      // Logical or of ands: count the true products in int32, then test > 0.
      auto const counts = impl(p, std::move(out_shape), lhs.template astype<std::int32_t>(), rhs.template astype<std::int32_t>());
      return counts.template astype<bool>();
    } else if constexpr (detail::is_half_float<T>) {
      // 16-bit floats: a float32 product, rounded once (XLA's CPU dot).
      auto const wide = impl(p, std::move(out_shape), lhs.template astype<float>(), rhs.template astype<float>());
      return wide.template astype<T>();
    } else {
      auto allocated = detail::allocate<T>(std::move(out_shape));
      product_into(p, lhs, rhs, allocated.second, false, T{1});
      return allocated.first;
    }
  }

  /// `addend` (broadcast to the product's shape) + scale · lhs·rhs, the
  /// product added into a copy of the addend by the GEMM itself: jit's plan
  /// runs `w - 0.01 * dot_general(x, g)` so (EvaluationRules::accumulates),
  /// with no pass over the product of its own. Not for bool or the 16-bit
  /// floats, whose products are computed wider.
  template <Element T>
    requires(!std::same_as<T, bool> && !detail::is_half_float<T>)
  static Array<T> impl_accumulating(Params const& p, Shape out_shape, Array<T> const& lhs, Array<T> const& rhs,
                                    Array<T> const& addend, T scale) {
    auto allocated = detail::allocate<T>(out_shape);
    auto const& source = detail::impl_of(addend);
    auto* const bytes = reinterpret_cast<std::byte*>(allocated.second);
    if (addend.shape() == out_shape && detail::is_contiguous(source.shape, source.strides)) {
      auto const* from = detail::first_element(source, sizeof(T));
      auto const n = out_shape.numel();
      detail::split_over_threads(n, n, [&](std::int64_t first, std::int64_t last) {
        std::memcpy(bytes + first * std::int64_t{sizeof(T)}, from + first * std::int64_t{sizeof(T)},
                    static_cast<std::size_t>(last - first) * sizeof(T));
      });
    } else {
      detail::copy_strided<sizeof(T)>(detail::first_element(source, sizeof(T)), out_shape,
                                      detail::broadcast_strides(source.shape, source.strides, out_shape), bytes,
                                      detail::contiguous_strides(out_shape));
    }
    product_into(p, lhs, rhs, allocated.second, true, scale);
    return allocated.first;
  }

  /// Bilinear, as JAX's defbilinear: d(a·b) = ta·b + a·tb, each term
  /// skipped when its tangent is a known zero.
  template <Element T>
  static auto jvp(Params const& p, Array<T> const& out, Array<T> const& lhs, Array<T> const& rhs,
                  Array<T> const& lhs_tangent, Array<T> const& rhs_tangent) {
    if constexpr (!InexactElement<T>) {
      return fusion::Zero<T>{};
    } else {
      bool const lhs_zero = detail::is_zero_broadcast(lhs_tangent), rhs_zero = detail::is_zero_broadcast(rhs_tangent);
      if (lhs_zero && rhs_zero) return detail::zeros_view<T>(out.shape());
      if (lhs_zero) return detail::bind<dot_general_p>(p, lhs, rhs_tangent);
      if (rhs_zero) return detail::bind<dot_general_p>(p, lhs_tangent, rhs);
      return Array<T>(detail::bind<dot_general_p>(p, lhs_tangent, rhs) + detail::bind<dot_general_p>(p, lhs, rhs_tangent));
    }
  }

  /// JAX's _dot_general_transpose_lhs / _rhs, each only for an operand that
  /// needs it (a loss's input batch costs no GEMM); integer operands take no
  /// cotangent. Operands and output share one dtype (lax::dot_general
  /// promotes before binding, and that cast carries the cotangent back).
  template <Element T>
  static auto vjp(Params const& p, graph::Wanted wanted, Array<T> const& ct, Array<T> const&, Array<T> const& lhs,
                  Array<T> const& rhs) {
    if constexpr (!InexactElement<T>) {
      return std::tuple{graph::NoCotangent{}, graph::NoCotangent{}};
    } else {
      std::tuple<std::optional<Array<T>>, std::optional<Array<T>>> cts;
      if (wanted[0])
        std::get<0>(cts) =
            transpose_lhs(ct, lhs.ndim(), rhs, p.lhs_contracting, p.rhs_contracting, p.lhs_batch, p.rhs_batch, false);
      if (wanted[1])
        std::get<1>(cts) =
            transpose_lhs(ct, rhs.ndim(), lhs, p.rhs_contracting, p.lhs_contracting, p.rhs_batch, p.lhs_batch, true);
      return cts;
    }
  }

  /// Both mapped: the mapped axes become a new leading batch dimension.
  /// One mapped: its mapped axis, moved first, is one more free dimension,
  /// which the output keeps where that operand's free dims land.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& lhs,
                                                    Array<T> const& rhs) {
    auto const shifted = [](Axes axes) {
      for (auto& a : axes) ++a;
      return axes;
    };
    auto const lhs_b = detail::mapped_at_front(lhs, dims[0]);
    auto const rhs_b = detail::mapped_at_front(rhs, dims[1]);
    Params q = p;
    if (dims[0]) q.lhs_contracting = shifted(p.lhs_contracting), q.lhs_batch = shifted(p.lhs_batch);
    if (dims[1]) q.rhs_contracting = shifted(p.rhs_contracting), q.rhs_batch = shifted(p.rhs_batch);
    std::int64_t out_dim = 0;
    if (dims[0] && dims[1]) {
      q.lhs_batch.insert(q.lhs_batch.begin(), 0);
      q.rhs_batch.insert(q.rhs_batch.begin(), 0);
    } else if (dims[0]) {
      out_dim = static_cast<std::int64_t>(p.lhs_batch.size());
    } else {
      out_dim = static_cast<std::int64_t>(p.lhs_batch.size() +
                                          free_axes(lhs.ndim(), p.lhs_batch, p.lhs_contracting).size());
    }
    return {detail::bind<dot_general_p>(q, lhs_b, rhs_b), out_dim};
  }

  /// Dims of a rank-`rank` operand that are neither batch nor contracting, in order.
  static Axes free_axes(std::int64_t rank, Axes const& batch, Axes const& contracting) {
    Axes out;
    for (std::int64_t d = 0; d < rank; ++d) {
      bool used = false;
      for (auto a : batch) used = used || a == d;
      for (auto a : contracting) used = used || a == d;
      if (!used) out.push_back(d);
    }
    return out;
  }

 private:
  /// `dst` (the product's shape, dense) = lhs·rhs, or += scale · lhs·rhs
  /// with `accumulate`: one GEMM per batch.
  template <Element T>
  static void product_into(Params const& p, Array<T> const& lhs, Array<T> const& rhs, T* dst, bool accumulate, T scale) {
    auto const a = detail::matrix_stack(lhs, p.lhs_batch, free_axes(lhs.ndim(), p.lhs_batch, p.lhs_contracting),
                                        p.lhs_contracting);
    auto const b = detail::matrix_stack(rhs, p.rhs_batch, p.rhs_contracting,
                                        free_axes(rhs.ndim(), p.rhs_batch, p.rhs_contracting));
    auto const m = a.rows, n = b.cols, k = a.cols;
    auto const batches = a.batch_sizes.numel();
    if (batches * m * n == 0) return;
    if (k == 0) {
      if (!accumulate) std::fill(dst, dst + batches * m * n, T{0});
      return;
    }
    auto const per_batch = m * n * k;
    bool const split_batches = batches > 1 && !omp_in_parallel() && batches * per_batch >= detail::parallel_grain &&
                               (batches >= omp_get_max_threads() || per_batch < detail::gemm_parallel_grain);
    if (split_batches) {
      // Inside a parallel region Eigen runs each GEMM on the calling thread.
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < batches; ++i) detail::gemm(a, b, i, dst + i * m * n, accumulate, scale);
    } else {
      for (std::int64_t i = 0; i < batches; ++i) detail::gemm(a, b, i, dst + i * m * n, accumulate, scale);
    }
  }

  /// Whether x's axes are its batch dims, then its contracting dims in the
  /// order y's come out of a product (`by_y`), then its free dims: the
  /// order of y · g.
  static bool swapped_is_identity(Axes const& x_batch, Axes const& x_kept, Axes const& x_contract, Axes const& by_y) {
    Axes order = x_batch;
    for (auto i : by_y) order.push_back(x_contract[static_cast<std::size_t>(i)]);
    order.insert(order.end(), x_kept.begin(), x_kept.end());
    for (std::size_t i = 0; i < order.size(); ++i)
      if (order[i] != static_cast<std::int64_t>(i)) return false;
    return true;
  }

  /// The cotangent of operand x of a product with y, given the output's
  /// cotangent g: g contracted with y over y's free dims, batched over the
  /// batch dims, leaves x's batch, free and contracting dims (the latter in
  /// y's order), then transposed back into x's order. `swapped` when x is
  /// the rhs, whose free dims come after the other operand's in g.
  template <Element T>
  static Array<T> transpose_lhs(Array<T> const& g, std::int64_t x_ndim, Array<T> const& y, Axes const& x_contract,
                                Axes const& y_contract, Axes const& x_batch, Axes const& y_batch, bool swapped) {
    auto const x_kept = free_axes(x_ndim, x_batch, x_contract);
    auto const y_kept = free_axes(y.ndim(), y_batch, y_contract);
    auto const nbatch = static_cast<std::int64_t>(x_batch.size());
    auto const y_start = swapped ? nbatch : nbatch + static_cast<std::int64_t>(x_kept.size());
    Params dims;
    for (std::int64_t i = 0; i < nbatch; ++i) dims.lhs_batch.push_back(i);
    for (std::size_t i = 0; i < y_kept.size(); ++i) dims.lhs_contracting.push_back(y_start + static_cast<std::int64_t>(i));
    dims.rhs_contracting = y_kept;
    dims.rhs_batch = y_batch;
    // x's contracting dims in the order y's come out of the product: ascending.
    Axes by_y(x_contract.size());
    for (std::size_t i = 0; i < by_y.size(); ++i) by_y[i] = static_cast<std::int64_t>(i);
    std::sort(by_y.begin(), by_y.end(), [&](auto a, auto b) {
      return y_contract[static_cast<std::size_t>(a)] < y_contract[static_cast<std::size_t>(b)];
    });
    Axes unsorted = x_batch;
    unsorted.insert(unsorted.end(), x_kept.begin(), x_kept.end());
    for (auto i : by_y) unsorted.push_back(x_contract[static_cast<std::size_t>(i)]);
    Axes out_axes(unsorted.size());
    bool identity = true;
    for (std::size_t i = 0; i < unsorted.size(); ++i) {
      out_axes[static_cast<std::size_t>(unsorted[i])] = static_cast<std::int64_t>(i);
      identity = identity && unsorted[i] == static_cast<std::int64_t>(i);
    }
    // Where x's contracting dims precede its free dims, y · g comes out in
    // x's order: the product then needs no transpose, and whatever reads the
    // cotangent (an SGD update, a GEMM) reads it in order.
    if (!identity && swapped_is_identity(x_batch, x_kept, x_contract, by_y)) {
      Params swapped_dims;
      swapped_dims.lhs_contracting = y_kept;
      swapped_dims.lhs_batch = y_batch;
      swapped_dims.rhs_contracting = dims.lhs_contracting;
      swapped_dims.rhs_batch = dims.lhs_batch;
      return detail::bind<dot_general_p>(swapped_dims, y, g);
    }
    auto const product = detail::bind<dot_general_p>(dims, g, y);
    // As lax.transpose: an identity permutation of a concrete array is a no-op.
    if (identity && !product.is_traced()) return product;
    return lax::transpose(product, out_axes);
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// lax.dot_general's dimension numbers: `{lhs_contracting, rhs_contracting,
/// lhs_batch, rhs_batch}`, e.g. `{{2}, {1}, {0}, {0}}` for a batched matmul.
using DotDimensionNumbers = primitives::dot_general_p::Params;

/// lax.dot_general: contract `lhs` and `rhs` over paired contracting dims,
/// batched over paired batch dims. Operands are promoted to a common dtype.
template <ArrayLike A, ArrayLike B>
Array<promote_t<value_type_t<A>, value_type_t<B>>> dot_general(A const& lhs, B const& rhs,
                                                               DotDimensionNumbers const& dimension_numbers) {
  using T = promote_t<value_type_t<A>, value_type_t<B>>;
  return detail::bind<primitives::dot_general_p>(dimension_numbers, detail::array_as<T>(lhs),
                                                 detail::array_as<T>(rhs));
}

}  // namespace jaxcc::lax
