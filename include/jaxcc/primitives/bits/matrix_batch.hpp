// The linalg primitives' common ground. Their shape checks, as JAX's
// linalg_shape_rule makes them. For kernels: an operand read as a
// stack of matrices (its last two axes, any strides, each leading index one
// matrix) and a loop over that stack split over threads by the work it
// costs. For derivative rules, which must stay below the numpy layer:
// matrix products, transposes and triangles over the last two axes of
// operands that share their leading (batch) axes, each one bound primitive.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/dot_general.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::detail {

/// The element types of the linalg primitives: real and complex floats.
template <class T>
concept linalg_element = std::floating_point<T> || ComplexElement<T>;

template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A dense row-major output matrix at `data`.
template <class T>
using RowMatrixMap = Eigen::Map<RowMatrix<T>>;

/// `x` (rank >= 2) as matrices over its last two axes.
template <Element T>
struct MatrixBatch {
  using StridedMap = Eigen::Map<RowMatrix<T> const, Eigen::Unaligned, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

  explicit MatrixBatch(Array<T> const& x)
      : owner(x),
        offsets(element_offsets(Shape(x.shape().begin(), x.shape().end() - 2),
                                Strides(x.strides().begin(), x.strides().end() - 2))),
        rows(x.shape()[x.shape().size() - 2]),
        cols(x.shape()[x.shape().size() - 1]),
        row_stride(x.strides()[x.strides().size() - 2]),
        col_stride(x.strides()[x.strides().size() - 1]) {}

  std::int64_t count() const { return static_cast<std::int64_t>(offsets.size()); }
  /// Matrix `b`, read in place.
  StridedMap operator[](std::int64_t b) const {
    return StridedMap(owner.data() + offsets[static_cast<std::size_t>(b)], rows, cols,
                      Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(row_stride, col_stride));
  }

  Array<T> owner;
  std::vector<std::int64_t> offsets;
  std::int64_t rows, cols, row_stride, col_stride;
};

/// run(b) for each of the `count` matrices of a batch, split over
/// threads when the batch's work (`work_each` per matrix) is large. Eigen's
/// own kernels stay on one thread inside the split.
template <class Run>
void for_each_matrix(std::int64_t count, std::int64_t work_each, Run&& run) {
  split_over_threads(count, count * work_each, [&](std::int64_t first, std::int64_t last) {
    for (auto b = first; b < last; ++b) run(b);
  });
}

/// JAX's linalg_shape_rule: each operand has its `ranks[i]` core axes after
/// the same number of leading batch axes, which here must also agree in size.
template <Element T, std::size_t N>
void check_linalg_operands(std::string_view name, std::array<std::int64_t, N> const& ranks,
                           std::array<Array<T> const*, N> const& operands) {
  for (std::size_t i = 0; i < N; ++i)
    if (operands[i]->ndim() < ranks[i])
      throw_error("Input ", i, " to ", name, " must have rank at least ", ranks[i], ", but got shape=",
                  operands[i]->shape());
  auto const batch_of = [&](std::size_t i) {
    auto const& s = operands[i]->shape();
    return Shape(s.begin(), s.end() - ranks[i]);
  };
  for (std::size_t i = 1; i < N; ++i)
    if (batch_of(i).size() != batch_of(0).size()) {
      std::string counts = "[";
      for (std::size_t k = 0; k < N; ++k) counts += (k ? ", " : "") + std::to_string(batch_of(k).size());
      throw_error("All inputs to ", name, " must have the same number of batch dimensions, but got ", counts,
                  "] batch dimensions for the inputs.");
    }
  for (std::size_t i = 1; i < N; ++i)
    if (!(batch_of(i) == batch_of(0)))
      throw_error(name, ": the batch dimensions of the inputs must be equal, but got ", batch_of(0), " and ",
                  batch_of(i), " (broadcast them first)");
}

/// The last two axes of a shape, as JAX's shape rules print them.
inline Shape matrix_dims(Shape const& s) { return Shape(s.end() - 2, s.end()); }

/// The batching rule of a linalg primitive of one operand, which takes
/// leading batch axes already: the mapped axis moves first.
template <class Derived>
struct BatchesLeadingAxes {
  template <class Params, Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x) {
    return {jaxcc::detail::bind<Derived>(p, move_axis(x, *dims[0], 0)), 0};
  }
  /// Sharded jit: the batch of matrices stays split as it is (the result's
  /// leading axes are the same batch); each matrix is gathered whole.
  template <class Params, Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& x) {
    auto want = layouts[0];
    auto const batch = want.dims.size() - 2;
    want.dims[batch].clear();
    want.dims[batch + 1].clear();
    auto const out = jaxcc::detail::bind<Derived>(p, reshard(AnyArray(x), layouts[0], want).template as<T>());
    auto out_layout = graph::Layout::replicated(static_cast<std::size_t>(out.ndim()));
    std::copy(want.dims.begin(), want.dims.begin() + static_cast<std::ptrdiff_t>(batch), out_layout.dims.begin());
    return graph::Partitioned{AnyArray(out), out_layout};
  }
};

/// The shape rule of a primitive of one square matrix operand: JAX's
/// complaint about a non-square one is `before` + its matrix dims + `after`.
template <Element T>
void check_square_operand(std::string_view name, Array<T> const& x, std::string_view before, std::string_view after) {
  check_linalg_operands<T, 1>(name, {2}, {&x});
  auto const dims = matrix_dims(x.shape());
  if (dims[0] != dims[1]) throw_error(before, dims, after);
}

/// jnp.tri(n, m, k, bool): true where column j <= row i + k. A constant.
template <Element T>
Array<bool> tri_mask(std::int64_t n, std::int64_t m, std::int64_t k) {
  auto [out, data] = allocate<dependent_t<T, bool>>(Shape{n, m});
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) data[i * m + j] = j <= i + k;
  return out;
}

/// The lower (`lower`) or upper triangle of diagonal k of x's last two
/// axes, the rest selected away (JAX's _tril and _triu).
template <Element T>
Array<T> matrix_triangle(Array<T> const& x, std::int64_t k, bool lower) {
  auto const n = x.shape()[x.shape().size() - 2], m = x.shape()[x.shape().size() - 1];
  auto const zero = fusion::ScalarLeaf<T>{T(0)};
  if (lower) return fusion::make_expr<primitives::select_p>(fusion::cast<bool>(tri_mask<T>(n, m, k)), fusion::cast<T>(x), zero);
  return fusion::make_expr<primitives::select_p>(fusion::cast<bool>(tri_mask<T>(n, m, k - 1)), zero, fusion::cast<T>(x));
}

/// The row permutation of an LU factorization, given as a (..., m, 1)
/// column of row indices, as a matrix P (P·x reorders x's rows as the
/// factorization did). A comparison, so it carries no tangent.
template <Element T, Element U>
Array<T> permutation_matrix(Array<U> const& column) {
  auto const m = column.shape()[column.shape().size() - 2];
  return fusion::cast<T>(column == iota<U>(m).reshape(Shape{1, m}));
}

/// The n × n matrix with ones on its diagonal from row `from` on (the
/// identity by default). A constant.
template <Element T>
Array<T> identity_matrix(std::int64_t n, std::int64_t from = 0) {
  auto [out, data] = allocate<T>(Shape{n, n});
  std::fill(data, data + n * n, T(0));
  for (std::int64_t i = from; i < n; ++i) data[i * n + i] = T(1);
  return out;
}

/// x with its last two axes swapped.
template <Element T>
Array<T> matrix_transpose(Array<T> const& x) {
  return move_axis(x, x.ndim() - 1, x.ndim() - 2);
}

/// The symmetric matrix that a solver reading only x's `lower` (else
/// upper) triangle sees: that triangle mirrored across the diagonal.
template <Element T>
Array<T> symmetric_from_triangle(Array<T> const& x, bool lower) {
  return Array<T>(matrix_triangle(x, 0, lower) + matrix_transpose(matrix_triangle(x, lower ? -1 : 1, lower)));
}

/// symmetric_from_triangle's transpose, for VJPs: g's triangle plus the
/// mirror of the rest.
template <Element T>
Array<T> triangle_of_symmetric(Array<T> const& g, bool lower) {
  return Array<T>(matrix_triangle(g, 0, lower) + matrix_triangle(matrix_transpose(g), lower ? -1 : 1, lower));
}

/// a · b over the last two axes; the leading axes are a shared batch.
template <Element T>
Array<T> batch_matmul(Array<T> const& a, Array<T> const& b) {
  auto const r = a.ndim();
  Axes batch;
  for (std::int64_t d = 0; d + 2 < r; ++d) batch.push_back(d);
  return jaxcc::detail::bind<primitives::dot_general_p>({{r - 1}, {r - 2}, batch, batch}, a, b);
}

}  // namespace jaxcc::detail
