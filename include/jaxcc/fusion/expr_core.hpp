// The expression-template node types of fused elementwise regions, without
// any op: Expr, ScalarLeaf, make_expr, and the ArrayLike concept. The ops
// live in fusion/elementwise.hpp; fusion/expr.hpp brings both.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "jaxcc/core/array.hpp"

namespace jaxcc {

/// Base of every fused expression; it puts namespace jaxcc's operators in
/// reach of argument-dependent lookup.
struct FusedExpression {};

namespace fusion {

/// A weakly typed scalar inside an expression, already cast to its lane type.
template <Element T>
struct ScalarLeaf {
  using value_type = T;
  constexpr ScalarLeaf(T v) : value(v) {}
  /// Any C++ number, converted to T (a 16-bit float has no implicit conversion).
  template <Scalar S>
  constexpr ScalarLeaf(S v) : value(static_cast<T>(v)) {}
  T value;
  static Shape shape() { return {}; }
};

template <class Op, class... Args>
class Expr;

template <class E>
struct is_expr : std::false_type {};
template <class Op, class... Args>
struct is_expr<Expr<Op, Args...>> : std::true_type {};

template <class E>
struct is_scalar_leaf : std::false_type {};
template <Element T>
struct is_scalar_leaf<ScalarLeaf<T>> : std::true_type {};

/// A node of a fused region: an Array, a scalar, or an Expr.
template <class E>
concept Operand = AnArray<E> || is_expr<E>::value || is_scalar_leaf<E>::value;

template <class Op, class... Args>
class Expr : public FusedExpression {
 public:
  using op_type = Op;
  using value_type = typename Op::template result<typename std::tuple_element_t<sizeof...(Args) - 1, std::tuple<Args...>>::value_type>;

  Expr(Shape shape, Args... args) : shape_(std::move(shape)), args_(std::move(args)...) {}

  Shape const& shape() const noexcept { return shape_; }
  std::int64_t ndim() const noexcept { return shape_.rank(); }
  std::int64_t size() const noexcept { return shape_.numel(); }
  static constexpr DType dtype() noexcept { return dtype_of<value_type>; }
  std::tuple<Args...> const& args() const noexcept { return args_; }

  /// Materialize: run the fused loop.
  operator Array<value_type>() const;  // defined in fusion/evaluate.hpp
  Array<value_type> eval() const { return *this; }
  /// A concrete comparison's truth value (`if (jnp::all(x > 0))`), as Array<bool>'s.
  explicit operator bool() const
    requires std::same_as<value_type, bool>
  {
    return static_cast<bool>(eval());
  }

 private:
  Shape shape_;
  std::tuple<Args...> args_;
};

/// Leaves (arrays) read through pointers; scalars live in the tree itself.
template <class E>
inline constexpr std::size_t leaf_count = 0;
template <Element T>
inline constexpr std::size_t leaf_count<Array<T>> = 1;
template <class Op, class... Args>
inline constexpr std::size_t leaf_count<Expr<Op, Args...>> = (std::size_t{0} + ... + leaf_count<Args>);

// Where each child's leaves start, in depth-first order.
template <class... Args>
constexpr auto child_leaf_offsets() {
  std::array<std::size_t, sizeof...(Args)> out{};
  std::size_t k = 0, i = 0;
  ((out[i++] = k, k += leaf_count<Args>), ...);
  return out;
}
template <class E>
struct child_offsets;
template <class Op, class... Args>
struct child_offsets<Expr<Op, Args...>> {
  static constexpr auto value = child_leaf_offsets<Args...>();
};
template <class E>
constexpr auto child_leaf_offsets_of() {
  return child_offsets<E>::value;
}

/// Build a node, checking broadcast compatibility in the op's name.
template <class Op, Operand... Args>
Expr<Op, Args...> make_expr(Args... args) {
  Shape shape;
  bool first = true;
  ((shape = first ? Shape(args.shape()) : jaxcc::detail::broadcast_shapes(shape, args.shape(), Op::name), first = false), ...);
  return Expr<Op, Args...>(std::move(shape), std::move(args)...);
}

}  // namespace fusion

/// Anything that evaluates to an array: an Array or a fused expression.
template <class A>
concept ArrayLike = AnArray<A> || fusion::is_expr<std::remove_cvref_t<A>>::value;

/// The element type of an ArrayLike.
template <ArrayLike A>
using value_type_t = typename std::remove_cvref_t<A>::value_type;

/// An ArrayLike as an Array (runs the fused loop for an expression).
template <ArrayLike A>
Array<value_type_t<A>> as_array(A const& a) {
  return a;
}

}  // namespace jaxcc
