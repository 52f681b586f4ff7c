// Tree structures: printing, counts, equality and hashing.
//
// Expected strings follow jaxlib's PyTreeDef::ToString (jaxlib/pytree.cc):
// `*` for a leaf, `None`, tuples as `(a, b)` with a trailing comma for one
// element, lists as `[a, b]`, dicts as `{'k': v}` with the key's Python
// repr, custom nodes as `CustomNode(Name[aux], [children])`, all wrapped in
// `PyTreeDef(...)`. Those marked "JAX's test" are copied from TREE_STRINGS
// in JAX's tests/tree_util_test.py for the same trees written in Python.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

namespace test_tree_treedef {

namespace jnp = jaxcc::numpy;
namespace tree = jaxcc::tree;
using jaxcc::Array;

namespace {

// JAX's test: @register_dataclass class ADataclass: x: tuple[int, int]; y: int
struct ADataclass {
  std::pair<int, int> x;
  int y = 0;
};
JAXCC_PYTREE(ADataclass, x, y);

// JAX's test: Special, registered with register_pytree_node, aux data None.
struct Special {
  int x = 0;
  double y = 0;
};

// JAX's test: StaticInt(1), a node with no children and aux data 1.
struct StaticInt {
  int value = 0;
};

struct Labeled {
  Array<float> w;
  std::string label;
};

}  // namespace

}  // namespace test_tree_treedef

template <>
struct jaxcc::tree::node_traits<test_tree_treedef::Special> {
  static constexpr std::string_view name = "Special";
  static auto children(test_tree_treedef::Special const& s) { return std::tuple{s.x, s.y}; }
  static test_tree_treedef::Special unflatten(std::tuple<int, double> c) { return {std::get<0>(c), std::get<1>(c)}; }
};
template <>
struct jaxcc::tree::node_traits<test_tree_treedef::StaticInt> {
  static constexpr std::string_view name = "StaticInt";
  static std::tuple<> children(test_tree_treedef::StaticInt const&) { return {}; }
  static int aux(test_tree_treedef::StaticInt const& s) { return s.value; }
  static test_tree_treedef::StaticInt unflatten(int value, std::tuple<>) { return {value}; }
};
template <>
struct jaxcc::tree::node_traits<test_tree_treedef::Labeled> {
  static constexpr std::string_view name = "Labeled";
  static auto children(test_tree_treedef::Labeled const& l) { return std::tuple{l.w}; }
  static std::string aux(test_tree_treedef::Labeled const& l) { return l.label; }
  static test_tree_treedef::Labeled unflatten(std::string const& label, std::tuple<jaxcc::Array<float>> c) { return {std::get<0>(c), label}; }
};

namespace test_tree_treedef {

TEST_CASE("tree treedef: printed as JAX prints the same trees") {
  using std::tuple;
  CHECK(tree::structure(jaxcc::none).to_string() == "PyTreeDef(None)");               // JAX's test: None
  CHECK(tree::structure(tuple{jaxcc::none}).to_string() == "PyTreeDef((None,))");     // JAX's test: (None,)
  CHECK(tree::structure(tuple<>{}).to_string() == "PyTreeDef(())");                   // JAX's test: ()
  CHECK(tree::structure(std::vector<tuple<>>{{}}).to_string() == "PyTreeDef([()])");  // JAX's test: [()]
  CHECK(tree::structure(tuple{1, 2}).to_string() == "PyTreeDef((*, *))");             // JAX's test: (1, 2)
  CHECK(tree::structure(std::vector{3}).to_string() == "PyTreeDef([*])");             // JAX's test: [3]
  CHECK(tree::structure(std::map<std::string, int>{{"a", 1}, {"b", 2}}).to_string() ==
        "PyTreeDef({'a': *, 'b': *})");  // JAX's test: {"a": 1, "b": 2}
  CHECK(tree::structure(std::map<std::string, int>{}).to_string() == "PyTreeDef({})");  // JAX's test: {}
  CHECK(tree::structure(Special{2, 3.0}).to_string() ==
        "PyTreeDef(CustomNode(Special[None], [*, *]))");  // JAX's test: Special(2, 3.0)
  CHECK(tree::structure(StaticInt{1}).to_string() ==
        "PyTreeDef(CustomNode(StaticInt[1], []))");  // JAX's test: StaticInt(1)
  CHECK(tree::structure(ADataclass{{1, 2}, 3}).to_string() ==
        "PyTreeDef(CustomNode(ADataclass[()], [(*, *), *]))");  // JAX's test: ADataclass(x=(1, 2), y=3)
}

TEST_CASE("tree treedef: every node kind and nesting") {
  auto a = jnp::ones<float>(2);
  auto i = jnp::zeros<std::int32_t>(jaxcc::Shape{});
  // tuple, pair and std::array print as Python tuples; a one-tuple keeps its comma
  CHECK(tree::structure(std::tuple{a}).to_string() == "PyTreeDef((*,))");
  CHECK(tree::structure(std::pair{a, i}).to_string() == "PyTreeDef((*, *))");
  CHECK(tree::structure(std::array<Array<float>, 3>{a, a, a}).to_string() == "PyTreeDef((*, *, *))");
  CHECK(tree::structure(std::array<Array<float>, 0>{}).to_string() == "PyTreeDef(())");
  // vectors are lists, including empty ones
  CHECK(tree::structure(std::vector<Array<float>>{}).to_string() == "PyTreeDef([])");
  // a leaf alone, and a scalar leaf
  CHECK(tree::structure(a).to_string() == "PyTreeDef(*)");
  CHECK(tree::structure(2.5).to_string() == "PyTreeDef(*)");
  // an engaged optional is its value; an empty one is None
  CHECK(tree::structure(std::optional<Array<float>>{a}).to_string() == "PyTreeDef(*)");
  CHECK(tree::structure(std::optional<Array<float>>{}).to_string() == "PyTreeDef(None)");
  CHECK(tree::structure(std::tuple{std::optional<std::pair<int, int>>{std::pair{1, 2}}}).to_string() ==
        "PyTreeDef(((*, *),))");
  // the shape of JAX's ((1, "foo"), [(3, None, 7)]): a list needs one element type in C++
  auto nested = std::tuple{std::pair{1, std::string("foo")},
                           std::vector{std::tuple{3, std::optional<int>{}, 7},
                                       std::tuple{4, std::optional<int>{5}, 8}}};
  CHECK(tree::structure(nested).to_string() == "PyTreeDef(((*, *), [(*, None, *), (*, *, *)]))");
  // dicts of dicts: keys sorted, printed with Python's repr (quotes chosen as Python does)
  std::map<std::string, std::map<std::string, Array<float>>> params{
      {"layer2", {{"w", a}, {"b", a}}}, {"layer1", {{"w", a}, {"b", a}}}};
  CHECK(tree::structure(params).to_string() == "PyTreeDef({'layer1': {'b': *, 'w': *}, 'layer2': {'b': *, 'w': *}})");
  CHECK(tree::structure(std::map<std::string, int>{{"it's", 1}, {"a\nb", 2}}).to_string() ==
        "PyTreeDef({'a\\nb': *, \"it's\": *})");
  // custom nodes print their aux data with <<
  CHECK(tree::structure(std::vector{Labeled{a, "enc"}}).to_string() == "PyTreeDef([CustomNode(Labeled[enc], [*])])");
}

TEST_CASE("tree treedef: the issue's examples, built node by node") {
  using Node = tree::PyTreeDef::Node;
  using tree::NodeKind;
  auto leaf = [] { return Node{NodeKind::leaf, 0, 0, 0, {}, nullptr, nullptr}; };
  auto node = [](NodeKind kind, std::int64_t arity) { return Node{kind, arity, 0, 0, {}, nullptr, nullptr}; };
  Node dict = node(NodeKind::dict, 2);
  dict.dict_keys = {"a", "b"};
  tree::PyTreeDef dict_def({dict, leaf(), node(NodeKind::tuple, 2), leaf(), leaf()});
  CHECK(dict_def.to_string() == "PyTreeDef({'a': *, 'b': (*, *)})");
  CHECK(dict_def.num_leaves() == 3);
  CHECK(dict_def.num_nodes() == 5);  // jaxlib counts every node: dict, leaf, tuple, leaf, leaf

  tree::PyTreeDef list_def(
      {node(NodeKind::list, 3), leaf(), node(NodeKind::tuple, 2), leaf(), leaf(),  //
       node(NodeKind::list, 2), leaf(), leaf()});
  CHECK(list_def.to_string() == "PyTreeDef([*, (*, *), [*, *]])");
  CHECK(list_def.num_leaves() == 5);
  CHECK(list_def.num_nodes() == 8);

  auto children = list_def.children();
  REQUIRE(children.size() == 3);
  CHECK(children[0].to_string() == "PyTreeDef(*)");
  CHECK(children[1].to_string() == "PyTreeDef((*, *))");
  CHECK(children[2].to_string() == "PyTreeDef([*, *])");

  try {
    tree::PyTreeDef bad({node(NodeKind::tuple, 2), leaf()});
    FAIL("no error");
  } catch (jaxcc::Error const& e) {
    CHECK(std::string(e.what()) == "PyTreeDef: too few nodes for the arities given");
  }
}

TEST_CASE("tree treedef: num_leaves and num_nodes count as jaxlib does") {
  // None is a node without leaves: (None,) has 2 nodes and 0 leaves.
  auto none1 = tree::structure(std::tuple{jaxcc::none});
  CHECK(none1.num_leaves() == 0);
  CHECK(none1.num_nodes() == 2);
  // A struct of a pair and an int: struct, pair, 2 leaves, 1 leaf.
  auto dc = tree::structure(ADataclass{});
  CHECK(dc.num_leaves() == 3);
  CHECK(dc.num_nodes() == 5);
  auto empty = tree::structure(std::vector<int>{});
  CHECK(empty.num_leaves() == 0);
  CHECK(empty.num_nodes() == 1);
}

TEST_CASE("tree treedef: compose, as jaxlib's (num_nodes formula from JAX's testCompose)") {
  auto outer = tree::structure(std::vector{1, 2});
  auto inner = tree::structure(std::pair{1, std::tuple{2, 3}});
  auto composed = outer.pytreedef().compose(inner);
  CHECK(composed.to_string() == "PyTreeDef([(*, (*, *)), (*, (*, *))])");
  CHECK(composed.num_leaves() == outer.num_leaves() * inner.num_leaves());
  CHECK(composed.num_nodes() == (outer.num_nodes() - outer.num_leaves()) + inner.num_nodes() * outer.num_leaves());
  CHECK(composed == tree::structure(std::vector{std::pair{1, std::tuple{2, 3}}, std::pair{4, std::tuple{5, 6}}}));
}

TEST_CASE("tree treedef: equality and hashing ignore leaf types and follow JAX's node identity") {
  auto a = jnp::ones<float>(2);
  auto i = jnp::zeros<std::int64_t>(3);
  // The same structure from different C++ types (tuple and pair are both tuples; leaves are leaves).
  CHECK(tree::structure(std::tuple{a, i}) == tree::structure(std::pair{1.0, a}));
  CHECK(std::hash<tree::PyTreeDef>{}(tree::structure(std::tuple{a, i})) ==
        std::hash<tree::PyTreeDef>{}(tree::structure(std::pair{1.0, a})));
  // Different arities, kinds, keys and custom types differ.
  CHECK_FALSE(tree::structure(std::tuple{a, a}) == tree::structure(std::tuple{a, a, a}));
  CHECK_FALSE(tree::structure(std::tuple{a, a}) == tree::structure(std::vector{a, a}));
  CHECK_FALSE(tree::structure(std::map<std::string, int>{{"a", 1}}) ==
              tree::structure(std::map<std::string, int>{{"b", 1}}));
  CHECK_FALSE(tree::structure(ADataclass{}) == tree::structure(std::tuple{std::pair{1, 2}, 3}));
  CHECK_FALSE(tree::structure(std::optional<int>{1}) == tree::structure(std::optional<int>{}));
  // Custom nodes compare their aux data.
  CHECK(tree::structure(Labeled{a, "x"}) == tree::structure(Labeled{i.astype<float>(), "x"}));
  CHECK_FALSE(tree::structure(Labeled{a, "x"}) == tree::structure(Labeled{a, "y"}));
  CHECK_FALSE(tree::structure(StaticInt{1}) == tree::structure(StaticInt{2}));

  // Usable as a hash key (jit's cache).
  std::unordered_set<tree::PyTreeDef> seen;
  seen.insert(tree::structure(std::tuple{a, a}));
  seen.insert(tree::structure(std::pair{i, i}));
  seen.insert(tree::structure(std::vector{a, a}));
  seen.insert(tree::structure(Labeled{a, "x"}));
  seen.insert(tree::structure(Labeled{a, "x"}));
  seen.insert(tree::structure(Labeled{a, "y"}));
  CHECK(seen.size() == 4);
  std::unordered_set<tree::TreeDef<std::tuple<Array<float>, Array<float>>>> typed;
  typed.insert(tree::structure(std::tuple{a, a}));
  typed.insert(tree::structure(std::tuple{a, a}));
  CHECK(typed.size() == 1);
}

TEST_CASE("tree treedef: prints through operator<<") {
  std::ostringstream os;
  os << tree::structure(std::tuple{1, std::vector{2, 3}});
  CHECK(os.str() == "PyTreeDef((*, [*, *]))");
  CHECK(tree::to_string(tree::structure(std::tuple{1})) == "PyTreeDef((*,))");
}

}  // namespace test_tree_treedef
