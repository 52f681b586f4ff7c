// Calling a user function under a new trace: the chosen arguments' array
// leaves become the trace's inputs (their containers rebuilt around traced
// arrays), the others are passed as they are, and what the function returns
// is collected as a pytree of Arrays.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/graph/interpret.hpp"
#include "jaxcc/graph/trace.hpp"
#include "jaxcc/graph/value_ops.hpp"
#include "jaxcc/primitives/bits/install_value_ops.hpp"
#include "jaxcc/primitives/complex_parts.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/tree/flatten.hpp"
#include "jaxcc/tree/map.hpp"
#include "jaxcc/tree/reduce.hpp"

namespace jaxcc::detail {

/// A function's output that is a pair: (output, aux) under has_aux, (carry, y)
/// from a scan body.
template <class T>
struct is_pair_like : std::false_type {};
template <class A, class B>
struct is_pair_like<std::pair<A, B>> : std::true_type {};
template <class A, class B>
struct is_pair_like<std::tuple<A, B>> : std::true_type {};

/// `x` summed over the dimensions along which an array of `shape` was
/// broadcast to x's shape (its leading ones, and its size-1 ones).
template <Element T>
Array<T> sum_to_shape(Array<T> const& x, Shape const& shape) {
  Axes axes;
  auto const lead = x.ndim() - shape.rank();
  for (std::int64_t i = 0; i < x.ndim(); ++i)
    if (i < lead || (shape[static_cast<std::size_t>(i - lead)] == 1 && x.shape()[static_cast<std::size_t>(i)] != 1))
      axes.push_back(i);
  return lax::reshape(jaxcc::detail::bind<primitives::reduce_sum_p>({axes}, x), shape);
}

/// A cotangent converted to `to`, as convert_element_type converts: a
/// complex one to a real dtype keeps its real part, a real one to a complex
/// dtype takes a zero imaginary part (JAX's transposes of those conversions).
template <class = void>
AnyArray converted_cotangent(AnyArray const& x, DType to) {
  auto const real = [](AnyArray const& r, DType real_to) {
    if (real_to == DType::float64 || real_to == DType::float32) return float_converted(r, real_to);
    return float_converted(float_converted(r, DType::float32), real_to);
  };
  if (x.dtype() == to) return x;
  if (is_complex(x.dtype()) && is_complex(to))
    return make_complex(real(real_part(x), real_dtype(to)), real(imag_part(x), real_dtype(to)));
  if (is_complex(x.dtype())) return real(real_part(x), to);
  if (is_complex(to)) {
    auto const re = real(x, real_dtype(to));
    return make_complex(re, AnyArray(zeros_view(re.dtype(), re.shape())));
  }
  return real(x, to);
}

/// Reverse mode's operations on values (graph/value_ops.hpp): cotangents
/// are summed where a value is read twice, and a fused region's cotangent
/// for a broadcast leaf is summed to the leaf's shape and converted to its
/// dtype. Only inexact values have cotangents, so only their dtypes get
/// these (the 16-bit floats' through float32's, graph::install_value_ops).
struct ReverseOps {
  template <Element T>
  static void fill(graph::ValueOps& ops) {
    if constexpr (InexactElement<T> && !is_half_float<T>) {
      ops.add = [](AnyArray const& a, AnyArray const& b) -> AnyArray { return Array<T>(a.as<T>() + b.as<T>()); };
      ops.sum_to_shape = [](AnyArray const& x, Shape const& shape) -> AnyArray { return sum_to_shape(x.as<T>(), shape); };
      ops.reduce_sum = [](AnyArray const& x, Axes const& axes) -> AnyArray {
        return detail::bind<primitives::reduce_sum_p>({axes}, x.as<T>());
      };
      // float64 to a 16-bit float goes through float32, as the 16-bit
      // floats' own operations compute.
      ops.convert = [](AnyArray const& x, DType to) -> AnyArray { return converted_cotangent(x, to); };
      if constexpr (ComplexElement<T>) {
        ops.imag = [](AnyArray const& x) -> AnyArray { return imag_part(x); };
        ops.conj = [](AnyArray const& x) -> AnyArray { return conjugate(x); };
        ops.make_complex = [](AnyArray const& re, AnyArray const& im) -> AnyArray { return make_complex(re, im); };
      }
    }
  }
};

}  // namespace jaxcc::detail

namespace jaxcc::detail {

/// `arg` with every Array leaf replaced by a new input of `trace`; scalar
/// leaves stay as they are (constants, like static values).
template <class Arg>
auto traced_copy(graph::Trace& trace, Arg const& arg) {
  return tree::map(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) return trace.template add_input<typename L::value_type>(leaf.shape());
        else return leaf;
      },
      arg);
}

template <class... Leaves>
consteval bool any_erased_array(tree_type_list<Leaves...>) {
  return (std::same_as<Leaves, AnyArray> || ...);
}

/// What a function returned, as a tree whose leaves are Arrays. A transform
/// records each output leaf at its element type, so an AnyArray (whose type
/// is known only at run time) cannot be one.
template <class Out>
auto materialized(Out const& out) {
  static_assert(ArrayLike<Out> || !any_erased_array(collect_leaf_types<no_leaf_predicate, Out>(tree_type_list<>{})),
                "jaxcc: a transformed function must return Arrays of a known element type, not an AnyArray; return "
                "its Array<T> (any_array.as<T>())");
  if constexpr (ArrayLike<Out>) return as_array(out);
  else return tree::map([](auto const& leaf) { return leaf; }, out);
}

template <class... Leaves>
consteval bool any_expression(tree_type_list<Leaves...>) {
  return (fusion::is_expr<Leaves>::value || ...);
}
/// Whether a fused expression is among X's leaves, at any depth.
template <class X>
concept holds_expression =
    !std::is_array_v<X> && any_expression(collect_leaf_types<no_leaf_predicate, X>(tree_type_list<>{}));

template <class... Leaves>
consteval bool all_traceable(tree_type_list<Leaves...>) {
  return ((ArrayLike<Leaves> || Scalar<Leaves>) && ...);
}
/// Whether a transform can trace X: every leaf is an Array, a fused
/// expression or an arithmetic scalar.
template <class X>
concept TraceableArgument =
    !std::is_array_v<X> && all_traceable(collect_leaf_types<no_leaf_predicate, X>(tree_type_list<>{}));

/// The check of the argument at `Position` that a transform traces: its
/// failure names the position and the type.
template <std::size_t Position, class Arg>
consteval bool traced_argument() {
  static_assert(!std::is_array_v<Arg>,
                "jaxcc: a C array (a string literal) cannot be a transformed argument; pass an Array, or a std::string "
                "through a closure (the argument's position and type are in the line above)");
  static_assert(std::is_array_v<Arg> || TraceableArgument<Arg>,
                "jaxcc: every leaf of a transformed argument must be an Array, a fused expression or an arithmetic "
                "scalar; pass other values through a closure (the argument's position and type are in the line above)");
  return true;
}
/// traced_argument for each of Args at the positions I.
template <class... Args, std::size_t... I>
consteval bool traced_arguments(std::index_sequence<I...>) {
  return (traced_argument<I, std::tuple_element_t<I, std::tuple<Args...>>>() && ...);
}

/// An argument as a transform takes it: fused expressions, wherever they
/// are in the tree, become Arrays; anything else is passed as it is.
template <class X>
decltype(auto) as_argument(X const& x) {
  if constexpr (holds_expression<X>) return materialized(x);
  else return (x);
}

/// The Array leaves of a tree as AnyArray, in flatten order, appended to `out`.
template <class Tree>
void append_array_leaves(Tree const& tree, std::vector<AnyArray>& out) {
  tree::for_each_leaf(
      [&](auto const& leaf) {
        if constexpr (AnArray<std::remove_cvref_t<decltype(leaf)>>) out.emplace_back(leaf);
      },
      tree);
}
/// The Array leaves of a tree as AnyArray, in flatten order.
template <class Tree>
std::vector<AnyArray> array_leaves(Tree const& tree) {
  std::vector<AnyArray> out;
  append_array_leaves(tree, out);
  return out;
}

/// A tree shaped like `like` whose Array leaves are taken, in order, from
/// `values` (a missing or absent value means zero); scalar leaves become
/// zeros. For gradients, tangents and cotangents.
template <class Tree>
Tree rebuild_like(Tree const& like, std::span<graph::MaybeArray const> values, std::size_t& next) {
  return tree::map(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) {
          using T = typename L::value_type;
          auto const i = next++;
          return i < values.size() && values[i] ? values[i]->template as<T>() : detail::zeros_view<T>(leaf.shape());
        } else {
          return L{};
        }
      },
      like);
}

/// A tree shaped like `like` whose Array leaves are taken, in order, from
/// `values`; other leaves are kept.
template <class Tree>
Tree with_array_leaves(Tree const& like, std::span<AnyArray const> values, std::size_t& next) {
  return tree::map(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) return values[next++].template as<typename L::value_type>();
        else return leaf;
      },
      like);
}

/// A function of pytrees as a function of its arguments' array leaves
/// (graph::FlatFunction); it remembers the structure of what it returned.
template <class F, class... Args>
class FlatCall {
 public:
  using Out = decltype(materialized(std::declval<F const&>()(std::declval<Args const&>()...)));

  FlatCall(F f, std::tuple<Args...> args) : f_(std::move(f)), args_(std::move(args)), out_(std::make_shared<std::optional<Out>>()) {
    graph::install_value_ops<ReverseOps>();
  }

  std::vector<AnyArray> operator()(std::vector<AnyArray> const& leaves) const {
    std::size_t next = 0;
    auto const args = std::apply([&](auto const&... a) { return std::tuple<std::remove_cvref_t<decltype(a)>...>{with_array_leaves(a, leaves, next)...}; }, args_);
    auto out = materialized(std::apply(f_, args));
    auto flat = array_leaves(out);
    *out_ = std::move(out);
    return flat;
  }
  /// The last output's structure with these leaves.
  Out unflatten_output(std::span<AnyArray const> leaves) const {
    std::size_t next = 0;
    return with_array_leaves(**out_, leaves, next);
  }
  /// The last output, as traced (its Array leaves are placeholders).
  Out const& output() const { return **out_; }
  /// The arguments with these array leaves (in argument_leaves' order).
  std::tuple<Args...> arguments_with(std::span<AnyArray const> leaves) const {
    std::size_t next = 0;
    return std::apply([&](auto const&... a) { return std::tuple<Args...>{with_array_leaves(a, leaves, next)...}; }, args_);
  }
  std::tuple<Args...> const& arguments() const noexcept { return args_; }
  F const& function() const noexcept { return f_; }
  std::vector<AnyArray> argument_leaves() const {
    std::vector<AnyArray> out;
    std::apply([&](auto const&... a) { (append_array_leaves(a, out), ...); }, args_);
    return out;
  }

 private:
  F f_;
  std::tuple<Args...> args_;
  std::shared_ptr<std::optional<Out>> out_;
};

/// The function's output, its value in the forward run, and the trace.
template <class Out>
struct TracedCall {
  std::unique_ptr<graph::Trace> trace;
  Out out;  // as traced: leaves may be Vars of `trace`
};

/// Run f with the arguments at positions `Diff` traced; the others as given.
template <std::size_t... Diff, class F, class... Args>
auto trace_call(std::index_sequence<Diff...>, F const& f, Args const&... args) {
  static_assert((traced_argument<Diff, std::tuple_element_t<Diff, std::tuple<Args...>>>() && ...));
  graph::install_value_ops<ReverseOps>();
  auto trace = std::make_unique<graph::Trace>();
  auto call = [&] {
    graph::ScopedTrace scope(*trace);
    auto const wrap = [&]<std::size_t I>(std::integral_constant<std::size_t, I>, auto const& arg) {
      if constexpr (((I == Diff) || ...)) return traced_copy(*trace, arg);
      else return arg;
    };
    // Braced initialization runs left to right, so inputs are made in order
    // (function arguments would be evaluated in an unspecified order).
    auto wrapped = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple<decltype(wrap(std::integral_constant<std::size_t, I>{}, args))...>{
          wrap(std::integral_constant<std::size_t, I>{}, args)...};
    }(std::index_sequence_for<Args...>{});
    return materialized(std::apply(f, wrapped));
  };
  auto out = call();
  return TracedCall<decltype(out)>{std::move(trace), std::move(out)};
}

/// A tree's leaves read in a trace's environment: its Vars become values.
template <class Tree>
Tree resolve(graph::Env const& env, Tree const& tree) {
  return tree::map(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) return env.resolve(AnyArray(leaf)).template as<typename L::value_type>();
        else return leaf;
      },
      tree);
}

}  // namespace jaxcc::detail
