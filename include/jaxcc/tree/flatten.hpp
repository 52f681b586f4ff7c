// tree::flatten, leaves, structure, flatten_with_path, leaves_with_path and
// unflatten. Leaves come out in JAX's order: depth-first, left to right,
// dict keys sorted. Their C++ type is the tree's one leaf type when it has
// one (all Array<float>: std::vector<Array<float>>), else jaxcc::AnyArray,
// which unflatten turns back into each leaf's own type exactly.
#pragma once

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/fusion/expr_core.hpp"
#include "jaxcc/tree/paths.hpp"
#include "jaxcc/tree/registry.hpp"
#include "jaxcc/tree/treedef.hpp"

namespace jaxcc::detail {

// ---- the leaf type of a tree --------------------------------------------------

template <class... Ts>
struct tree_type_list {};

template <class List, class T>
struct tree_add_unique_type;
template <class... Ts, class T>
struct tree_add_unique_type<tree_type_list<Ts...>, T> {
  using type = std::conditional_t<(std::same_as<T, Ts> || ...), tree_type_list<Ts...>, tree_type_list<Ts..., T>>;
};

/// The type a leaf of type X flattens to: a fused expression is the Array
/// it evaluates to.
template <class X>
struct tree_leaf_type_of {
  using type = X;
};
template <ArrayLike X>
struct tree_leaf_type_of<X> {
  using type = Array<value_type_t<X>>;
};
template <class X>
using tree_leaf_type = typename tree_leaf_type_of<X>::type;

template <class P, class X, class Acc>
consteval auto collect_leaf_types(Acc acc);

template <class P, class C, std::size_t I, class Acc>
consteval auto collect_child_leaf_types(Acc acc) {
  using A = tree_adapter<C>;
  if constexpr (A::category == TreeCategory::list) {
    return collect_leaf_types<P, typename A::element_type>(acc);
  } else if constexpr (I == A::arity) {
    return acc;
  } else {
    return collect_child_leaf_types<P, C, I + 1>(collect_leaf_types<P, typename A::template child_type<I>>(acc));
  }
}

/// Acc (a tree_type_list) with the leaf types of X added, each once, in order.
template <class P, class X, class Acc>
consteval auto collect_leaf_types(Acc acc) {
  using A = tree_adapter<X>;
  if constexpr (tree_leaf_v<X, P>) return typename tree_add_unique_type<Acc, X>::type{};
  else if constexpr (A::category == TreeCategory::optional) return collect_leaf_types<P, typename A::value_type>(acc);
  else if constexpr (A::category == TreeCategory::none) return acc;
  else if constexpr (A::category == TreeCategory::dict) return collect_leaf_types<P, typename A::element_type>(acc);
  else if constexpr (A::category == TreeCategory::custom)
    return collect_child_leaf_types<P, typename A::children_type, 0>(acc);
  else return collect_child_leaf_types<P, X, 0>(acc);
}

/// The list with each type as tree_leaf_type, each once.
template <class List, class Acc = tree_type_list<>>
struct tree_leaf_types;
template <class Acc>
struct tree_leaf_types<tree_type_list<>, Acc> {
  using type = Acc;
};
template <class T, class... Ts, class Acc>
struct tree_leaf_types<tree_type_list<T, Ts...>, Acc>
    : tree_leaf_types<tree_type_list<Ts...>, typename tree_add_unique_type<Acc, tree_leaf_type<T>>::type> {};

template <class List>
struct tree_common_leaf {
  using type = AnyArray;
};
template <class T>
struct tree_common_leaf<tree_type_list<T>> {
  using type = T;
};

/// What AnyArray can hold and give back exactly.
template <class T>
concept ErasableLeaf = AnArray<T> || std::same_as<T, AnyArray> || (Scalar<T> && !std::same_as<T, long double>);

/// A leaf as the tree's leaf type.
template <class Leaf, class X>
Leaf to_tree_leaf(X const& x) {
  if constexpr (std::same_as<Leaf, X>) {
    return x;
  } else if constexpr (ArrayLike<X> && !AnArray<X>) {
    return to_tree_leaf<Leaf>(as_array(x));
  } else {
    static_assert(ErasableLeaf<X>,
                  "the leaves of this tree differ in type, so they flatten to jaxcc::AnyArray, which holds Arrays "
                  "and arithmetic scalars only; make the other leaves nodes, or mark them with tree::is_leaf");
    if constexpr (Scalar<X>) {
      using E = scalar_element_t<X>;
      auto [out, data] = allocate<E>(Shape{});
      data[0] = static_cast<E>(x);
      return AnyArray(std::move(out));
    } else {
      return AnyArray(x);
    }
  }
}

template <class X>
struct tree_erased_element {
  using type = scalar_element_t<X>;
};
template <Element T>
struct tree_erased_element<Array<T>> {
  using type = T;
};

/// The leaf of type X that unflatten puts back from `leaf` (the leaf type).
template <class X, class Leaf>
X from_tree_leaf(Leaf const& leaf, std::size_t index, KeyPathLink const* path) {
  if constexpr (std::same_as<X, Leaf>) {
    return leaf;
  } else if constexpr (std::same_as<Leaf, AnyArray> && (AnArray<X> || Scalar<X>)) {
    using E = typename tree_erased_element<X>::type;
    bool const scalar_fits = !Scalar<X> || leaf.size() == 1;
    if (!leaf.template holds<E>() || !scalar_fits) {
      throw Error(tree_text({"tree::unflatten: leaf ", std::to_string(index), " (key path ",
                               tree::keystr(to_key_path(path)), ") is an array of dtype ", name(leaf.dtype()),
                               " and shape ", to_string(leaf.shape()), ", but the tree's type holds ",
                               Scalar<X> ? "a scalar of dtype " : "an array of dtype ", name(dtype_of<E>), " there"}));
    }
    if constexpr (AnArray<X>) return leaf.template as<E>();
    else return static_cast<X>(leaf.template as<E>().item());
  } else {
    static_assert(std::convertible_to<Leaf const&, X>,
                  "tree::unflatten: a leaf does not convert to the type the tree holds at its place");
    return X(leaf);
  }
}

// ---- walking a tree ---------------------------------------------------------

/// Visit a tree depth-first, left to right, calling on the sink: leaf(x,
/// path) at leaves, none() at None, open(make_node) before a node's
/// children (make_node() builds its treedef node, for sinks that want it).
template <class P, class Sink, class X>
void walk_tree(Sink& sink, X const& x, KeyPathLink const* path) {
  using A = tree_adapter<X>;
  auto visit_child = [&](auto const& child, KeyPathLink const* link) { walk_tree<P>(sink, child, link); };
  if constexpr (tree_leaf_v<X, P>) {
    sink.leaf(x, path);
  } else if constexpr (A::category == TreeCategory::optional) {
    if (x) walk_tree<P>(sink, *x, path);
    else sink.none();
  } else if constexpr (A::category == TreeCategory::none) {
    sink.none();
  } else if constexpr (A::category == TreeCategory::dict) {
    sink.open([&] {
      tree::PyTreeDef::Node node{tree::NodeKind::dict, static_cast<std::int64_t>(x.size()), 0, 0, {}, nullptr, nullptr};
      for (auto const& [key, value] : x) node.dict_keys.push_back(key);
      return node;
    });
    for (auto const& [key, value] : x) {
      KeyPathLink const link{path, KeyEntryKind::dict, 0, key};
      walk_tree<P>(sink, value, &link);
    }
  } else if constexpr (A::category == TreeCategory::custom) {
    auto const& children = A::traits::children(x);
    sink.open([&] { return custom_tree_node(x, tree_child_count(children)); });
    for_each_tree_child(children, path, KeyEntryKind::flat_index, visit_child);
  } else if constexpr (A::category == TreeCategory::record) {
    sink.open([&] { return custom_tree_node(x, A::arity); });
    for_each_tree_child(x, path, KeyEntryKind::attr, visit_child);
  } else {
    constexpr auto kind = A::category == TreeCategory::list ? tree::NodeKind::list : tree::NodeKind::tuple;
    sink.open([&] {
      return tree::PyTreeDef::Node{kind, static_cast<std::int64_t>(tree_child_count(x)), 0, 0, {}, nullptr, nullptr};
    });
    for_each_tree_child(x, path, KeyEntryKind::sequence, visit_child);
  }
}

/// Collects what flatten and its relatives return; null members are skipped
/// (Leaf = void: no leaves, so a structure never converts any).
template <class Leaf>
struct FlattenSink {
  std::vector<tree::PyTreeDef::Node>* nodes = nullptr;
  std::vector<std::conditional_t<std::is_void_v<Leaf>, char, Leaf>>* leaves = nullptr;
  std::vector<tree::KeyPath>* paths = nullptr;

  template <class X>
  void leaf([[maybe_unused]] X const& x, KeyPathLink const* path) {
    if (nodes) nodes->push_back({tree::NodeKind::leaf, 0, 0, 0, {}, nullptr, nullptr});
    if constexpr (!std::is_void_v<Leaf>) leaves->push_back(to_tree_leaf<Leaf>(x));
    if (paths) paths->push_back(to_key_path(path));
  }
  void none() {
    if (nodes) nodes->push_back({tree::NodeKind::none, 0, 0, 0, {}, nullptr, nullptr});
  }
  template <class MakeNode>
  void open(MakeNode&& make_node) {
    if (nodes) nodes->push_back(make_node());
  }
};

/// Calls f on each leaf, in order, at its own type; touches no heap.
template <class F>
struct LeafVisitSink {
  F& f;
  template <class X>
  void leaf(X const& x, KeyPathLink const*) {
    f(x);
  }
  void none() {}
  template <class MakeNode>
  void open(MakeNode&&) {}
};

/// f(leaf) for each leaf of `tree`, in order, at the leaf's own type.
template <class P, class Tree, class F>
void for_each_tree_leaf(Tree const& tree, F&& f) {
  LeafVisitSink<std::remove_reference_t<F>> sink{f};
  walk_tree<P>(sink, tree, nullptr);
}

// ---- rebuilding a tree from a treedef ---------------------------------------

struct RebuildCursor {
  tree::PyTreeDef::Node const* nodes;
  std::size_t node = 0;
  std::size_t leaf = 0;
};

template <class C, class P, class MakeLeaf>
auto rebuild_children(RebuildCursor& cursor, MakeLeaf& make_leaf, KeyPathLink const* path, std::int64_t arity,
                      KeyEntryKind kind);

/// A tree of C++ type X (walked with predicate P) with the structure at the
/// cursor; each leaf is `make_leaf(std::type_identity<L>{}, index, path)`,
/// L being the type X holds there. Containers are rebuilt around whatever
/// the leaves become (a vector of Array<float> whose leaves become Shape is
/// a vector of Shape); structs and custom containers are rebuilt as
/// themselves.
template <class X, class P, class MakeLeaf>
auto rebuild_tree(RebuildCursor& cursor, MakeLeaf& make_leaf, KeyPathLink const* path) {
  using A = tree_adapter<X>;
  if constexpr (tree_leaf_v<X, P>) {
    ++cursor.node;
    return make_leaf(std::type_identity<X>{}, cursor.leaf++, path);
  } else if constexpr (A::category == TreeCategory::optional) {
    using Out = decltype(rebuild_tree<typename A::value_type, P>(cursor, make_leaf, path));
    if (cursor.nodes[cursor.node].kind == tree::NodeKind::none) {
      ++cursor.node;
      return std::optional<Out>();
    }
    return std::optional<Out>(rebuild_tree<typename A::value_type, P>(cursor, make_leaf, path));
  } else if constexpr (A::category == TreeCategory::none) {
    ++cursor.node;
    if constexpr (std::same_as<X, std::nullopt_t>) return std::nullopt;
    else return X{};
  } else if constexpr (A::category == TreeCategory::list || A::category == TreeCategory::dict) {
    auto const& node = cursor.nodes[cursor.node++];
    using Out = decltype(rebuild_tree<typename A::element_type, P>(cursor, make_leaf, path));
    typename A::template rebound<Out> out;
    for (std::size_t i = 0; i < static_cast<std::size_t>(node.arity); ++i) {
      if constexpr (A::category == TreeCategory::list) {
        KeyPathLink const link{path, KeyEntryKind::sequence, i, {}};
        out.push_back(rebuild_tree<typename A::element_type, P>(cursor, make_leaf, &link));
      } else {
        KeyPathLink const link{path, KeyEntryKind::dict, 0, node.dict_keys[i]};
        out.emplace_hint(out.end(), node.dict_keys[i],
                         rebuild_tree<typename A::element_type, P>(cursor, make_leaf, &link));
      }
    }
    return out;
  } else if constexpr (A::category == TreeCategory::custom) {
    auto const& node = cursor.nodes[cursor.node++];
    auto children = rebuild_children<typename A::children_type, P>(cursor, make_leaf, path, node.arity,
                                                                   KeyEntryKind::flat_index);
    return A::rebuild(node.aux.get(), std::move(children));
  } else {
    auto const& node = cursor.nodes[cursor.node++];
    constexpr auto kind = A::category == TreeCategory::record ? KeyEntryKind::attr : KeyEntryKind::sequence;
    return rebuild_children<X, P>(cursor, make_leaf, path, node.arity, kind);
  }
}

/// The children of a tuple-like, struct or vector C rebuilt, and C around them.
template <class C, class P, class MakeLeaf>
auto rebuild_children(RebuildCursor& cursor, MakeLeaf& make_leaf, KeyPathLink const* path, std::int64_t arity,
                      KeyEntryKind kind) {
  using A = tree_adapter<C>;
  if constexpr (A::category == TreeCategory::list) {
    using Out = decltype(rebuild_tree<typename A::element_type, P>(cursor, make_leaf, path));
    typename A::template rebound<Out> out;
    out.reserve(static_cast<std::size_t>(arity));
    for (std::size_t i = 0; i < static_cast<std::size_t>(arity); ++i) {
      KeyPathLink const link{path, kind, i, {}};
      out.push_back(rebuild_tree<typename A::element_type, P>(cursor, make_leaf, &link));
    }
    return out;
  } else if constexpr (is_empty_std_array<C>) {
    return std::array<decltype(rebuild_tree<typename A::element_type, P>(cursor, make_leaf, path)), 0>{};
  } else {
    [[maybe_unused]] auto one = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
      KeyPathLink const link{path, kind, I, A::key_name(I)};
      return rebuild_tree<typename A::template child_type<I>, P>(cursor, make_leaf, &link);
    };
    // A braced list runs its elements in order: leaves are taken left to right.
    auto results = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple<decltype(one(std::integral_constant<std::size_t, I>{}))...>{
          one(std::integral_constant<std::size_t, I>{})...};
    }(std::make_index_sequence<A::arity>{});
    return A::rebuild(std::move(results));
  }
}

/// `tree`'s structure appended to `nodes`, in pre-order, counts left 0 (what
/// PyTreeDef's constructor fills in). Into a vector kept from call to call,
/// trees of tuples, structs and arrays add no allocation (jit's cache key).
template <class Tree>
void append_structure(Tree const& tree, std::vector<tree::PyTreeDef::Node>& nodes) {
  FlattenSink<void> sink{&nodes, nullptr, nullptr};
  walk_tree<no_leaf_predicate>(sink, tree, nullptr);
}

template <class Tree, class P>
tree::TreeDef<Tree, P> make_treedef(std::vector<tree::PyTreeDef::Node> nodes) {
  return treedef_access::make<Tree, P>(tree::PyTreeDef(std::move(nodes)));
}

}  // namespace jaxcc::detail

namespace jaxcc::tree {

/// The type of the leaves flatten gives for a tree of type Tree: its one
/// leaf type, or AnyArray when leaves differ in type (or there are none).
template <class Tree, class Pred = detail::no_leaf_predicate>
using leaf_t = typename detail::tree_common_leaf<typename detail::tree_leaf_types<decltype(
    detail::collect_leaf_types<Pred, std::remove_cvref_t<Tree>>(detail::tree_type_list<>{}))>::type>::type;

/// `(leaves, treedef)`, as jax.tree.flatten.
template <class Tree, class P = detail::no_leaf_predicate>
std::pair<std::vector<leaf_t<Tree, P>>, TreeDef<Tree, P>> flatten(Tree const& tree, IsLeaf<P> = {}) {
  std::vector<PyTreeDef::Node> nodes;
  std::vector<leaf_t<Tree, P>> leaves;
  detail::FlattenSink<leaf_t<Tree, P>> sink{&nodes, &leaves, nullptr};
  detail::walk_tree<P>(sink, tree, nullptr);
  return {std::move(leaves), detail::make_treedef<Tree, P>(std::move(nodes))};
}

/// The leaves, in flatten's order (jax.tree.leaves).
template <class Tree, class P = detail::no_leaf_predicate>
std::vector<leaf_t<Tree, P>> leaves(Tree const& tree, IsLeaf<P> = {}) {
  std::vector<leaf_t<Tree, P>> leaves;
  detail::FlattenSink<leaf_t<Tree, P>> sink{nullptr, &leaves, nullptr};
  detail::walk_tree<P>(sink, tree, nullptr);
  return leaves;
}

/// The treedef alone (jax.tree.structure).
template <class Tree, class P = detail::no_leaf_predicate>
TreeDef<Tree, P> structure(Tree const& tree, IsLeaf<P> = {}) {
  std::vector<PyTreeDef::Node> nodes;
  detail::FlattenSink<void> sink{&nodes, nullptr, nullptr};
  detail::walk_tree<P>(sink, tree, nullptr);
  return detail::make_treedef<Tree, P>(std::move(nodes));
}

/// `((key_path, leaf) pairs, treedef)`, as jax.tree_util.tree_flatten_with_path.
template <class Tree, class P = detail::no_leaf_predicate>
std::pair<std::vector<std::pair<KeyPath, leaf_t<Tree, P>>>, TreeDef<Tree, P>> flatten_with_path(Tree const& tree,
                                                                                                  IsLeaf<P> = {}) {
  std::vector<PyTreeDef::Node> nodes;
  std::vector<leaf_t<Tree, P>> leaves;
  std::vector<KeyPath> paths;
  detail::FlattenSink<leaf_t<Tree, P>> sink{&nodes, &leaves, &paths};
  detail::walk_tree<P>(sink, tree, nullptr);
  std::vector<std::pair<KeyPath, leaf_t<Tree, P>>> out;
  out.reserve(leaves.size());
  for (std::size_t i = 0; i < leaves.size(); ++i) out.emplace_back(std::move(paths[i]), std::move(leaves[i]));
  return {std::move(out), detail::make_treedef<Tree, P>(std::move(nodes))};
}

/// `(key_path, leaf)` pairs (jax.tree_util.tree_leaves_with_path).
template <class Tree, class P = detail::no_leaf_predicate>
std::vector<std::pair<KeyPath, leaf_t<Tree, P>>> leaves_with_path(Tree const& tree, IsLeaf<P> is_leaf = {}) {
  return flatten_with_path(tree, is_leaf).first;
}

/// The tree of type Tree with `treedef`'s structure and these leaves, in
/// flatten's order (jax.tree.unflatten). AnyArray leaves go back to their
/// places' own types; a dtype that does not fit raises jaxcc::Error.
template <class Tree, class P, std::ranges::random_access_range Leaves>
Tree unflatten(TreeDef<Tree, P> const& treedef, Leaves const& leaves) {
  auto const count = static_cast<std::int64_t>(std::ranges::size(leaves));
  if (count < treedef.num_leaves())
    throw Error(detail::tree_text({"Too few leaves for PyTreeDef; expected ", std::to_string(treedef.num_leaves()),
                                     ", got ", std::to_string(count)}));
  if (count > treedef.num_leaves())
    throw Error(detail::tree_text({"Too many leaves for PyTreeDef; expected ", std::to_string(treedef.num_leaves()),
                                     ", got ", std::to_string(count), "."}));
  auto first = std::ranges::begin(leaves);
  auto make_leaf = [&]<class L>(std::type_identity<L>, std::size_t index, detail::KeyPathLink const* path) {
    return detail::from_tree_leaf<L>(first[static_cast<std::ptrdiff_t>(index)], index, path);
  };
  detail::RebuildCursor cursor{treedef.pytreedef().nodes().data()};
  return detail::rebuild_tree<Tree, P>(cursor, make_leaf, nullptr);
}
template <class Tree, class P>
Tree unflatten(TreeDef<Tree, P> const& treedef, std::initializer_list<leaf_t<Tree, P>> leaves) {
  return unflatten(treedef, std::vector<leaf_t<Tree, P>>(leaves));
}

}  // namespace jaxcc::tree
