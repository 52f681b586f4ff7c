// Tree structures. PyTreeDef is the run-time structure of a pytree, as
// jaxlib's PyTreeDef: node kinds, arities, dict keys and custom-node data,
// compared, hashed and printed exactly as JAX prints them. TreeDef<Tree>
// wraps one and remembers the C++ type of the tree it came from, so that
// tree::unflatten can give back that type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/tree/paths.hpp"

namespace jaxcc::tree {

/// The node kinds of a structure (jaxlib's PyTreeKind, without namedtuple):
/// tuple covers std::tuple, std::pair and std::array; list is std::vector;
/// dict is std::map<std::string, T>; none is an empty std::optional or
/// jaxcc::none; custom is a JAXCC_PYTREE struct or a node_traits container.
enum class NodeKind : std::uint8_t { leaf, none, tuple, list, dict, custom };

}  // namespace jaxcc::tree

namespace jaxcc::detail {

/// One registered custom node type; its address is the type's identity.
struct TreeNodeType {
  std::string_view name;    // printed in treedefs: CustomNode(name[...], ...)
  std::string_view no_aux;  // printed when the node carries no aux data
};

/// A custom node's metadata (JAX's aux_data): compared, hashed and printed.
struct TreeAuxData {
  virtual ~TreeAuxData() = default;
  /// Only called on two TreeAuxData of the same registered node type.
  virtual bool equals(TreeAuxData const& other) const = 0;
  virtual std::size_t hash() const = 0;
  virtual std::string str() const = 0;
};

inline std::size_t hash_combine(std::size_t seed, std::size_t value) noexcept {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

/// Predicate of trees flattened without an is_leaf option.
struct no_leaf_predicate {};
struct treedef_access;

}  // namespace jaxcc::detail

namespace jaxcc::tree {

/// The run-time structure of a pytree.
class PyTreeDef {
 public:
  struct Node {
    NodeKind kind = NodeKind::leaf;
    std::int64_t arity = 0;
    std::int64_t num_leaves = 0;  // in this node's subtree
    std::int64_t num_nodes = 0;   // in this node's subtree, itself included
    std::vector<std::string> dict_keys;              // dict: keys in sorted order
    detail::TreeNodeType const* custom = nullptr;    // custom: the node type
    std::shared_ptr<detail::TreeAuxData const> aux;  // custom: its metadata, if any

    /// The same node (counts aside: they follow from the arities).
    friend bool operator==(Node const& x, Node const& y) {
      return x.kind == y.kind && x.arity == y.arity && x.custom == y.custom && x.dict_keys == y.dict_keys &&
             !x.aux == !y.aux && (!x.aux || x.aux->equals(*y.aux));
    }
  };
  /// The hash of a structure given by its nodes in pre-order.
  static std::size_t hash(std::span<Node const> nodes) noexcept {
    std::size_t h = nodes.size();
    for (auto const& node : nodes) {
      h = detail::hash_combine(h, static_cast<std::size_t>(node.kind));
      h = detail::hash_combine(h, static_cast<std::size_t>(node.arity));
      h = detail::hash_combine(h, std::hash<void const*>{}(node.custom));
      for (auto const& key : node.dict_keys) h = detail::hash_combine(h, std::hash<std::string>{}(key));
      if (node.aux) h = detail::hash_combine(h, node.aux->hash());
    }
    return h;
  }

  /// The structure of a single leaf: `PyTreeDef(*)`.
  PyTreeDef() : nodes_{Node{NodeKind::leaf, 0, 1, 1, {}, nullptr, nullptr}} {}
  /// From nodes in pre-order (a node, then its children's subtrees left to
  /// right) whose arities are set; counts are filled in here.
  explicit PyTreeDef(std::vector<Node> nodes) : nodes_(std::move(nodes)) {
    std::size_t pos = 0;
    recount(pos);
    if (pos != nodes_.size()) throw Error("PyTreeDef: the nodes do not form one tree");
  }

  /// Number of leaves.
  std::int64_t num_leaves() const noexcept { return nodes_.front().num_leaves; }
  /// Number of nodes, leaves and None included (jaxlib counts every entry
  /// of its traversal: `node.num_nodes = traversal_.size() - start + 1`).
  std::int64_t num_nodes() const noexcept { return static_cast<std::int64_t>(nodes_.size()); }
  /// Nodes in pre-order.
  std::vector<Node> const& nodes() const noexcept { return nodes_; }
  /// The structures of the root's children.
  std::vector<PyTreeDef> children() const {
    std::vector<PyTreeDef> out;
    std::size_t pos = 1;
    for (std::int64_t i = 0; i < nodes_.front().arity; ++i) {
      auto const end = pos + static_cast<std::size_t>(nodes_[pos].num_nodes);
      out.emplace_back(std::vector<Node>(nodes_.begin() + static_cast<std::ptrdiff_t>(pos),
                                         nodes_.begin() + static_cast<std::ptrdiff_t>(end)));
      pos = end;
    }
    return out;
  }
  /// This structure with every leaf replaced by `inner` (jaxlib's compose).
  PyTreeDef compose(PyTreeDef const& inner) const {
    std::vector<Node> out;
    out.reserve(static_cast<std::size_t>(num_leaves() * inner.num_nodes() + num_nodes() - num_leaves()));
    for (auto const& node : nodes_) {
      if (node.kind == NodeKind::leaf) out.insert(out.end(), inner.nodes_.begin(), inner.nodes_.end());
      else out.push_back(node);
    }
    return PyTreeDef(std::move(out));
  }

  /// JAX's repr: `PyTreeDef({'a': *, 'b': (*, *)})`.
  std::string to_string() const {
    std::string out = "PyTreeDef(";
    std::size_t pos = 0;
    print(out, pos);
    return out + ")";
  }

  friend bool operator==(PyTreeDef const& a, PyTreeDef const& b) { return a.nodes_ == b.nodes_; }

  std::size_t hash() const noexcept { return hash(nodes_); }

 private:
  void recount(std::size_t& pos) {
    if (pos >= nodes_.size()) throw Error("PyTreeDef: too few nodes for the arities given");
    auto const self = pos++;
    std::int64_t leaves = nodes_[self].kind == NodeKind::leaf ? 1 : 0;
    for (std::int64_t i = 0; i < nodes_[self].arity; ++i) {
      auto const child = pos;
      recount(pos);
      leaves += nodes_[child].num_leaves;
    }
    nodes_[self].num_leaves = leaves;
    nodes_[self].num_nodes = static_cast<std::int64_t>(pos - self);
  }

  // Mirrors PyTreeDef::ToString in jaxlib/pytree.cc.
  void print(std::string& out, std::size_t& pos) const {
    auto const& node = nodes_[pos++];
    auto children = [&](std::string_view separator_after_last) {
      for (std::int64_t i = 0; i < node.arity; ++i) {
        if (i) out += ", ";
        print(out, pos);
      }
      out += separator_after_last;
    };
    switch (node.kind) {
      case NodeKind::leaf: out += '*'; return;
      case NodeKind::none: out += "None"; return;
      case NodeKind::tuple:
        out += '(';
        children(node.arity == 1 ? ",)" : ")");  // a 1-tuple keeps its comma
        return;
      case NodeKind::list:
        out += '[';
        children("]");
        return;
      case NodeKind::dict:
        out += '{';
        for (std::int64_t i = 0; i < node.arity; ++i) {
          if (i) out += ", ";
          out += detail::tree_key_repr(node.dict_keys[static_cast<std::size_t>(i)]);
          out += ": ";
          print(out, pos);
        }
        out += '}';
        return;
      case NodeKind::custom:
        out += "CustomNode(";
        out += node.custom->name;
        out += '[';
        out += node.aux ? node.aux->str() : std::string(node.custom->no_aux);
        out += "], [";
        children("])");
        return;
    }
  }

  std::vector<Node> nodes_;
};

inline std::ostream& operator<<(std::ostream& os, PyTreeDef const& def) { return os << def.to_string(); }
inline std::string to_string(PyTreeDef const& def) { return def.to_string(); }

/// The structure of a tree of C++ type `Tree` (flattened with the is_leaf
/// predicate type `Pred`): a PyTreeDef that knows what unflatten gives back.
template <class Tree, class Pred = detail::no_leaf_predicate>
class TreeDef {
 public:
  using tree_type = Tree;
  using predicate_type = Pred;

  PyTreeDef const& pytreedef() const noexcept { return def_; }
  operator PyTreeDef const&() const noexcept { return def_; }

  std::int64_t num_leaves() const noexcept { return def_.num_leaves(); }
  std::int64_t num_nodes() const noexcept { return def_.num_nodes(); }
  std::vector<PyTreeDef> children() const { return def_.children(); }
  std::string to_string() const { return def_.to_string(); }
  std::size_t hash() const noexcept { return def_.hash(); }

  /// Structures compare as JAX compares them, whatever C++ types they came from.
  template <class U, class P>
  friend bool operator==(TreeDef const& a, TreeDef<U, P> const& b) {
    return a.pytreedef() == b.pytreedef();
  }
  friend bool operator==(TreeDef const& a, PyTreeDef const& b) { return a.def_ == b; }

 private:
  friend struct detail::treedef_access;
  explicit TreeDef(PyTreeDef def) : def_(std::move(def)) {}
  PyTreeDef def_;
};

template <class Tree, class Pred>
std::ostream& operator<<(std::ostream& os, TreeDef<Tree, Pred> const& def) {
  return os << def.pytreedef();
}
template <class Tree, class Pred>
std::string to_string(TreeDef<Tree, Pred> const& def) {
  return def.to_string();
}

}  // namespace jaxcc::tree

namespace jaxcc::detail {
struct treedef_access {
  template <class Tree, class Pred>
  static tree::TreeDef<Tree, Pred> make(tree::PyTreeDef def) {
    return tree::TreeDef<Tree, Pred>(std::move(def));
  }
};
}  // namespace jaxcc::detail

template <>
struct std::hash<jaxcc::tree::PyTreeDef> {
  std::size_t operator()(jaxcc::tree::PyTreeDef const& def) const noexcept { return def.hash(); }
};
template <class Tree, class Pred>
struct std::hash<jaxcc::tree::TreeDef<Tree, Pred>> {
  std::size_t operator()(jaxcc::tree::TreeDef<Tree, Pred> const& def) const noexcept { return def.hash(); }
};
