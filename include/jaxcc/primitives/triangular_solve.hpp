// triangular_solve: X with op(a) · X = b (left_side) or X · op(a) = b, where
// a is (..., m, m) and only its `lower` or upper triangle is read (its
// diagonal taken as ones with unit_diagonal), op(a) is a or aᵀ
// (transpose_a), and b is (..., m, n) on the left, (..., n, m) on the
// right, with the same leading (batch) axes: lax.linalg.triangular_solve.
// Each matrix is one Eigen triangular solve.
//
// Derivatives as JAX's: linear in b (its transpose solves with op(a)
// transposed); in a, JAX's _triangular_solve_jvp_rule_a, and for the VJP
// its transpose: ā = -(b̄ Xᵀ) on the left, -(Xᵀ b̄) on the right (transposed
// back when transpose_a), restricted to the triangle that was read.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include <Eigen/Core>

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/matrix_batch.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"

namespace jaxcc::primitives {

struct triangular_solve_p {
  static constexpr std::string_view name = "triangular_solve";
  struct Params {
    bool left_side = false, lower = false, transpose_a = false, unit_diagonal = false;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& a, Array<T> const& b) {
    detail::check_linalg_operands<T, 2>(name, {2, 2}, {&a, &b});
    auto const a_dims = detail::matrix_dims(a.shape()), b_dims = detail::matrix_dims(b.shape());
    if (a_dims[0] != a_dims[1])
      detail::throw_error("The first input to triangular_solve must be a square matrix. Got shape ", a_dims, ".");
    if (a_dims[1] != b_dims[p.left_side ? 0 : 1])
      detail::throw_error("Incompatible shapes for arguments to triangular_solve: ", a_dims, " and ", b_dims, ".");
    return b.shape();
  }
  static std::string params_string(Params const& p) {
    auto const py = [](bool v) { return v ? "True" : "False"; };
    return std::string("conjugate_a=False left_side=") + py(p.left_side) + " lower=" + py(p.lower) +
           " transpose_a=" + py(p.transpose_a) + " unit_diagonal=" + py(p.unit_diagonal);
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& a, Array<T> const& b) {
    auto [out, out_data] = detail::allocate<T>(out_shape);
    T* const dst = out_data;  // a plain variable: clang 14 cannot capture a structured binding
    detail::MatrixBatch<T> const as(a), bs(b);
    auto const rows = bs.rows, cols = bs.cols;
    detail::for_each_matrix(bs.count(), as.rows * rows * cols, [&](std::int64_t i) {
      detail::RowMatrixMap<T> x(dst + i * rows * cols, rows, cols);
      x = bs[i];
      auto const solve = [&]<int Mode>(auto const& op_a) {
        if (p.left_side) op_a.template triangularView<Mode>().solveInPlace(x);
        else op_a.template triangularView<Mode>().template solveInPlace<Eigen::OnTheRight>(x);
      };
      // Transposing a lower triangle makes an upper one.
      auto const in = [&](auto const& op_a, bool lower) {
        if (lower && p.unit_diagonal) solve.template operator()<Eigen::UnitLower>(op_a);
        else if (lower) solve.template operator()<Eigen::Lower>(op_a);
        else if (p.unit_diagonal) solve.template operator()<Eigen::UnitUpper>(op_a);
        else solve.template operator()<Eigen::Upper>(op_a);
      };
      if (p.transpose_a) in(as[i].transpose(), !p.lower);
      else in(as[i], p.lower);
    });
    return out;
  }

  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const& out, Array<T> const& a, Array<T> const&,
                      Array<T> const& a_dot, Array<T> const& b_dot) {
    std::optional<Array<T>> tangent;
    if (!detail::is_zero_broadcast(b_dot)) tangent = detail::bind<triangular_solve_p>(p, a, b_dot);
    if (!detail::is_zero_broadcast(a_dot)) {
      auto g = Array<T>(-read_triangle(p, a_dot));
      if (p.transpose_a) g = detail::matrix_transpose(g);
      // A⁻¹ (∂A X) on the left, (X ∂A) A⁻¹ on the right.
      auto const from_a = detail::bind<triangular_solve_p>(
          p, a, p.left_side ? detail::batch_matmul(g, out) : detail::batch_matmul(out, g));
      tangent = tangent ? Array<T>(*tangent + from_a) : from_a;
    }
    return tangent ? *tangent : detail::zeros_view<T>(out.shape());
  }

  template <Element T>
  static std::tuple<std::optional<Array<T>>, std::optional<Array<T>>> vjp(Params const& p, graph::Wanted wanted,
                                                                            Array<T> const& ct, Array<T> const& out,
                                                                            Array<T> const& a, Array<T> const&) {
    auto transposed = p;
    transposed.transpose_a = !p.transpose_a;
    auto const ct_b = detail::bind<triangular_solve_p>(transposed, a, ct);
    std::optional<Array<T>> ct_a;
    if (wanted[0]) {
      auto g = p.left_side ? detail::batch_matmul(ct_b, detail::matrix_transpose(out))
                           : detail::batch_matmul(detail::matrix_transpose(out), ct_b);
      if (p.transpose_a) g = detail::matrix_transpose(g);
      ct_a = Array<T>(-read_triangle(p, g));
    }
    return {ct_a, wanted[1] ? std::optional<Array<T>>(ct_b) : std::nullopt};
  }

  /// Both operands' batch axes first (an unmapped one broadcast): one more batch axis.
  /// Sharded jit: batch axes split alike in both operands stay split;
  /// the matrices are gathered whole.
  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& a,
                                                     Array<T> const& b) {
    auto const batch = layouts[0].dims.size() - 2;
    auto want_a = graph::Layout::replicated(batch + 2), want_b = graph::Layout::replicated(batch + 2);
    for (std::size_t d = 0; d < batch; ++d)
      if (layouts[0].dims[d] == layouts[1].dims[d]) want_a.dims[d] = want_b.dims[d] = layouts[0].dims[d];
    auto const a_part = reshard(AnyArray(a), layouts[0], want_a).template as<T>();
    auto const b_part = reshard(AnyArray(b), layouts[1], want_b).template as<T>();
    return graph::Partitioned{AnyArray(detail::bind<triangular_solve_p>(p, a_part, b_part)), want_b};
  }

  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& a,
                                                    Array<T> const& b) {
    return {detail::bind<triangular_solve_p>(p, detail::bdim_at_front(a, dims[0], axis.size),
                                             detail::bdim_at_front(b, dims[1], axis.size)),
            0};
  }

 private:
  /// The part of an a-shaped array that the solve reads: its triangle,
  /// without the diagonal when that is taken as ones.
  template <Element T>
  static Array<T> read_triangle(Params const& p, Array<T> const& x) {
    auto const k = p.unit_diagonal ? 1 : 0;
    return detail::matrix_triangle(x, p.lower ? -k : k, p.lower);
  }
};

}  // namespace jaxcc::primitives
