// Eigen interop. `from_eigen(m)` copies any dense Eigen matrix, array,
// expression or Map into a new Array; `to_eigen(x)` views an Array of rank
// 0, 1 or 2 as a read-only Eigen matrix without copying (a Map over the
// Array's own buffer with its strides), keeping that buffer alive.
//
// Shapes: an Eigen type that is a vector at compile time (VectorXf,
// RowVectorXd, Vector3f, ArrayXi, ...) becomes a rank-1 Array of shape (n,),
// as a JAX user expects; every other matrix becomes (rows, cols), even if it
// has one row or column at run time. `to_eigen` views a rank-1 Array as an
// n×1 column and a rank-0 Array as 1×1.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"

namespace jaxcc {

/// A read-only Eigen view of an Array (rank <= 2): an Eigen::Map with the
/// Array's row and column strides, usable wherever an Eigen matrix
/// expression is (`to_eigen(x) * v`, `Eigen::MatrixXf m = to_eigen(x);`).
/// It holds the Array, so the view stays valid as long as it lives. Copies
/// of the Map itself (e.g. inside a stored Eigen expression) do not.
template <Element T>
class EigenView
    : public Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> const, Eigen::Unaligned,
                        Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>> {
 public:
  using Map = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> const, Eigen::Unaligned,
                         Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

  explicit EigenView(Array<T> x)
      : Map(x.data(), rows_of(x), cols_of(x), Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(stride(x, 0), stride(x, 1))),
        owner_(std::move(x)) {}

  /// The Array this view reads.
  Array<T> const& owner() const noexcept { return owner_; }

 private:
  static Eigen::Index rows_of(Array<T> const& x) { return x.ndim() == 0 ? 1 : x.shape()[0]; }
  static Eigen::Index cols_of(Array<T> const& x) { return x.ndim() == 2 ? x.shape()[1] : 1; }
  /// Outer (row, axis 0) or inner (column, axis 1) stride; a missing axis
  /// has one element, so any stride reads it.
  static Eigen::Index stride(Array<T> const& x, std::int64_t axis) {
    return axis < x.ndim() ? x.strides()[static_cast<std::size_t>(axis)] : 1;
  }

  Array<T> owner_;
};

/// A read-only, zero-copy Eigen view of `x` (rank 0, 1 or 2; an expression
/// is evaluated first). Rank 1 is an n×1 column; see EigenView.
template <ArrayLike A>
EigenView<value_type_t<A>> to_eigen(A const& x) {
  if (x.ndim() > 2)
    throw Error("to_eigen: expected an array of rank at most 2 (an Eigen matrix), got shape " + to_string(x.shape()));
  return EigenView<value_type_t<A>>(as_array(x));
}

/// A new Array holding a copy of any dense Eigen object's coefficients (see
/// the header comment for the shape). The scalar must be an Array dtype.
template <class Derived>
Array<typename Derived::Scalar> from_eigen(Eigen::DenseBase<Derived> const& m) {
  using T = typename Derived::Scalar;
  static_assert(Element<T>, "from_eigen: the Eigen scalar type must be float, double, int32_t, int64_t or bool");
  auto const rows = static_cast<std::int64_t>(m.rows()), cols = static_cast<std::int64_t>(m.cols());
  Shape shape = Derived::IsVectorAtCompileTime ? Shape{rows * cols} : Shape{rows, cols};
  auto [out, data] = detail::allocate<T>(std::move(shape));
  using Dense = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<Dense>(data, m.rows(), m.cols()) = m.derived().array();
  return out;
}

}  // namespace jaxcc
