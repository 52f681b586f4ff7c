// tree::reduce and tree::all (jax.tree.reduce, jax.tree.all), and
// tree::for_each_leaf: walks over the leaves in flatten's order, each leaf
// seen at its own type, with no heap allocation for tuples and structs.
#pragma once

#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/tree/flatten.hpp"
#include "jaxcc/tree/map.hpp"
#include "jaxcc/tree/registry.hpp"

namespace jaxcc::detail {

/// Python's truth value of a leaf; arrays follow JAX's check_bool_conversion
/// (jax/_src/core.py): only one-element arrays have one.
template <class L>
bool tree_leaf_truth(L const& leaf) {
  if constexpr (std::same_as<L, AnyArray>) {
    return leaf.visit([](auto const& a) { return tree_leaf_truth(a); });
  } else if constexpr (AnArray<L>) {
    if (leaf.size() == 0)
      throw Error("The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is "
                  "not empty.");
    if (leaf.size() > 1)
      throw Error("The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
    return static_cast<bool>(leaf.item());
  } else if constexpr (tree_category_of<L> == TreeCategory::none) {
    return false;  // bool(None)
  } else {
    return static_cast<bool>(leaf);
  }
}

}  // namespace jaxcc::detail

namespace jaxcc::tree {

/// fn(leaf) for each leaf, in flatten's order, at the leaf's own type (for
/// trees whose leaves differ in type, without going through AnyArray).
template <class Fn, class Tree, class P = detail::no_leaf_predicate>
void for_each_leaf(Fn&& fn, Tree const& tree, IsLeaf<P> = {}) {
  detail::for_each_tree_leaf<P>(tree, fn);
}

/// `fn(...fn(fn(initializer, leaf0), leaf1)..., leafN)`; the accumulator
/// keeps the initializer's type (a fused expression fn returns becomes an
/// Array first).
template <class Fn, class Tree, class Init, class P = detail::no_leaf_predicate>
  requires(!detail::is_leaf_option<Init>::value)
Init reduce(Fn&& fn, Tree const& tree, Init initializer, IsLeaf<P> = {}) {
  Init acc = std::move(initializer);
  detail::for_each_tree_leaf<P>(tree, [&](auto const& leaf) {
    acc = static_cast<Init>(detail::as_tree_leaf(std::invoke(fn, std::move(acc), leaf)));
  });
  return acc;
}

/// `fn(...fn(leaf0, leaf1)..., leafN)`, for trees with one leaf type; an
/// empty tree raises jaxcc::Error as Python's functools.reduce does.
template <class Fn, class Tree, class P = detail::no_leaf_predicate>
leaf_t<Tree, P> reduce(Fn&& fn, Tree const& tree, IsLeaf<P> = {}) {
  using L = leaf_t<Tree, P>;
  std::optional<L> acc;
  detail::for_each_tree_leaf<P>(tree, [&](auto const& leaf) {
    static_assert(std::same_as<std::remove_cvref_t<decltype(leaf)>, L>,
                  "tree::reduce without an initializer needs a tree with one leaf type; pass an initializer");
    if (!acc) acc = leaf;
    else acc = static_cast<L>(detail::as_tree_leaf(std::invoke(fn, std::move(*acc), leaf)));
  });
  if (!acc) throw Error("reduce() of empty iterable with no initial value");
  return std::move(*acc);
}

/// Whether every leaf is true, stopping at the first that is not
/// (Python's all over jax.tree.leaves).
template <class Tree, class P = detail::no_leaf_predicate>
bool all(Tree const& tree, IsLeaf<P> = {}) {
  bool result = true;
  detail::for_each_tree_leaf<P>(tree, [&](auto const& leaf) {
    if (result && !detail::tree_leaf_truth(leaf)) result = false;
  });
  return result;
}

}  // namespace jaxcc::tree
