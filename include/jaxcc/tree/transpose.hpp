// tree::transpose (jax.tree.transpose): a tree of outer structure whose
// leaves are trees of inner structure becomes a tree of inner structure
// whose leaves are trees of outer structure, e.g. a std::vector of
// std::pair<Array<float>, Array<int>> becomes a std::pair of
// std::vector<Array<float>> and std::vector<Array<int>>.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/tree/flatten.hpp"
#include "jaxcc/tree/registry.hpp"
#include "jaxcc/tree/treedef.hpp"

namespace jaxcc::tree {

/// `tree` has the structure of outer_treedef with a tree of
/// inner_treedef's structure (and C++ type Inner) at each of its leaves.
/// The result is Inner's containers with, at each leaf, `tree`'s outer
/// containers holding that leaf of every inner tree. A structure that is
/// not outer composed with inner raises jaxcc::Error as JAX does:
/// `Mismatch\n<structure>\n != \n<expected>`.
template <class Outer, class PO, class Inner, class PI, class Tree>
auto transpose(TreeDef<Outer, PO> const& outer_treedef, TreeDef<Inner, PI> const& inner_treedef, Tree const& tree) {
  using OuterPred = detail::leaf_type_predicate<Inner>;
  auto const expected = outer_treedef.pytreedef().compose(inner_treedef.pytreedef());
  auto const actual = structure(tree, IsLeaf<PI>{});
  if (!(actual == expected))
    throw Error(detail::tree_text({"Mismatch\n", actual.to_string(), "\n != \n", expected.to_string()}));

  auto const flat = flatten(tree, IsLeaf<OuterPred>{});
  auto const& subtrees = flat.first;
  auto const& outer_view = flat.second;
  static_assert(std::same_as<leaf_t<Tree, OuterPred>, Inner>,
                "tree::transpose: the tree must hold subtrees of the inner treedef's C++ type");
  std::vector<std::vector<leaf_t<Inner, PI>>> inner_leaves;
  inner_leaves.reserve(subtrees.size());
  for (auto const& sub : subtrees) inner_leaves.push_back(leaves(sub, IsLeaf<PI>{}));

  auto make_inner_leaf = [&]<class L>(std::type_identity<L>, std::size_t k, detail::KeyPathLink const*) {
    auto make_outer_leaf = [&](std::type_identity<Inner>, std::size_t j, detail::KeyPathLink const* path) {
      return detail::from_tree_leaf<L>(inner_leaves[j][k], k, path);
    };
    detail::RebuildCursor cursor{outer_view.pytreedef().nodes().data()};
    return detail::rebuild_tree<Tree, OuterPred>(cursor, make_outer_leaf, nullptr);
  };
  detail::RebuildCursor cursor{inner_treedef.pytreedef().nodes().data()};
  return detail::rebuild_tree<Inner, PI>(cursor, make_inner_leaf, nullptr);
}

}  // namespace jaxcc::tree
