// tree::flatten / leaves / structure / unflatten / flatten_with_path.
// Leaf orders are JAX's (depth-first, left to right, dict keys sorted),
// written out by hand for each tree below.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "support.hpp"

namespace test_tree_flatten {

namespace jnp = jaxcc::numpy;
namespace tree = jaxcc::tree;
using jaxcc::Array;
using jaxcc::testing::AllClose;
using jaxcc_test::message_of;

namespace model {

struct Dense {
  Array<float> w, b;
};
JAXCC_PYTREE(Dense, w, b);

struct Net {
  Dense encoder;
  std::vector<Dense> layers;
  std::optional<Array<float>> scale;
  int step = 0;
};
JAXCC_PYTREE(Net, encoder, layers, scale, step);

}  // namespace model

namespace {

// A container with a run-time number of children and aux data, registered
// through node_traits (JAX's register_pytree_node).
struct Stack {
  std::vector<Array<float>> items;
  std::string name;
};

}  // namespace

}  // namespace test_tree_flatten

template <>
struct jaxcc::tree::node_traits<test_tree_flatten::Stack> {
  static constexpr std::string_view name = "Stack";
  static std::vector<jaxcc::Array<float>> const& children(test_tree_flatten::Stack const& s) { return s.items; }
  static std::string aux(test_tree_flatten::Stack const& s) { return s.name; }
  static test_tree_flatten::Stack unflatten(std::string const& name, std::vector<jaxcc::Array<float>> items) { return {std::move(items), name}; }
};

namespace test_tree_flatten {

using Params = std::map<std::string, std::map<std::string, Array<float>>>;

TEST_CASE("tree flatten: the seed example's params flatten to 4 leaves, dict keys sorted") {
  Params params{{"layer1", {{"w", jnp::ones<float>({2, 2})}, {"b", jnp::zeros<float>(2)}}},
                {"layer2", {{"w", jnp::ones<float>({2, 1})}, {"b", jnp::zeros<float>(1)}}}};
  auto [leaves, treedef] = tree::flatten(params);
  static_assert(std::is_same_v<decltype(leaves), std::vector<Array<float>>>);
  REQUIRE(leaves.size() == 4);
  // layer1.b, layer1.w, layer2.b, layer2.w
  CHECK(leaves[0].shape() == jaxcc::Shape{2});
  CHECK(leaves[1].shape() == jaxcc::Shape{2, 2});
  CHECK(leaves[2].shape() == jaxcc::Shape{1});
  CHECK(leaves[3].shape() == jaxcc::Shape{2, 1});
  CHECK(leaves[0].to_vector() == std::vector<float>{0, 0});
  CHECK(leaves[1].to_vector() == std::vector<float>{1, 1, 1, 1});
  CHECK(treedef.to_string() == "PyTreeDef({'layer1': {'b': *, 'w': *}, 'layer2': {'b': *, 'w': *}})");
  CHECK(treedef.num_leaves() == 4);
  CHECK(treedef.num_nodes() == 7);

  Params back = tree::unflatten(treedef, leaves);
  CHECK(back.at("layer2").at("w").shape() == jaxcc::Shape{2, 1});
  CHECK(tree::structure(back) == treedef);
}

TEST_CASE("tree flatten: every node kind round trips") {
  auto a = jnp::arange<float>(3);
  auto b = jnp::full<float>({2, 2}, 7.0f);
  auto c = jnp::array({5.0f});

  SECTION("tuple, pair, std::array") {
    auto t = std::tuple{a, std::pair{b, c}, std::array<Array<float>, 2>{c, a}};
    auto [leaves, treedef] = tree::flatten(t);
    REQUIRE(leaves.size() == 5);
    CHECK_THAT(leaves[1], AllClose(b));
    CHECK_THAT(leaves[4], AllClose(a));
    auto back = tree::unflatten(treedef, leaves);
    static_assert(std::is_same_v<decltype(back), decltype(t)>);
    CHECK_THAT(std::get<1>(back).second, AllClose(c));
    CHECK_THAT(std::get<2>(back)[0], AllClose(c));
  }
  SECTION("vector and map") {
    std::map<std::string, std::vector<Array<float>>> m{{"z", {a}}, {"a", {b, c}}};
    auto [leaves, treedef] = tree::flatten(m);
    REQUIRE(leaves.size() == 3);
    CHECK_THAT(leaves[0], AllClose(b));  // 'a' sorts first
    CHECK_THAT(leaves[2], AllClose(a));
    CHECK(treedef.to_string() == "PyTreeDef({'a': [*, *], 'z': [*]})");
    auto back = tree::unflatten(treedef, leaves);
    REQUIRE(back.at("a").size() == 2);
    CHECK_THAT(back.at("a")[1], AllClose(c));
  }
  SECTION("optional and none") {
    auto t = std::tuple{std::optional<Array<float>>{a}, std::optional<Array<float>>{}, jaxcc::none, std::nullopt};
    auto [leaves, treedef] = tree::flatten(t);
    REQUIRE(leaves.size() == 1);
    CHECK(treedef.to_string() == "PyTreeDef((*, None, None, None))");
    auto back = tree::unflatten(treedef, leaves);
    REQUIRE(std::get<0>(back).has_value());
    CHECK_THAT(*std::get<0>(back), AllClose(a));
    CHECK_FALSE(std::get<1>(back).has_value());
  }
  SECTION("structs, nested, with every kind inside") {
    model::Net net{{b, a}, {{b, c}, {b, a}}, c, 3};
    auto [leaves, treedef] = tree::flatten(net);
    static_assert(std::is_same_v<decltype(leaves), std::vector<jaxcc::AnyArray>>);  // Array<float> and int
    REQUIRE(leaves.size() == 8);
    CHECK(treedef.to_string() ==
          "PyTreeDef(CustomNode(Net[()], [CustomNode(Dense[()], [*, *]), [CustomNode(Dense[()], [*, *]), "
          "CustomNode(Dense[()], [*, *])], *, *]))");
    CHECK(leaves[7].dtype() == jaxcc::DType::int32);
    auto back = tree::unflatten(treedef, leaves);
    CHECK(back.step == 3);
    REQUIRE(back.layers.size() == 2);
    CHECK_THAT(back.layers[1].b, AllClose(a));
    REQUIRE(back.scale.has_value());
    CHECK_THAT(*back.scale, AllClose(c));
  }
  SECTION("custom container with a run-time number of children") {
    Stack s{{a, b, c}, "s"};
    auto [leaves, treedef] = tree::flatten(s);
    REQUIRE(leaves.size() == 3);
    CHECK(treedef.to_string() == "PyTreeDef(CustomNode(Stack[s], [*, *, *]))");
    auto back = tree::unflatten(treedef, leaves);
    CHECK(back.name == "s");
    REQUIRE(back.items.size() == 3);
    CHECK_THAT(back.items[1], AllClose(b));
  }
}

TEST_CASE("tree flatten: empty containers") {
  CHECK(tree::leaves(std::vector<Array<float>>{}).empty());
  CHECK(tree::leaves(std::map<std::string, Array<float>>{}).empty());
  CHECK(tree::leaves(std::tuple<>{}).empty());
  CHECK(tree::leaves(std::array<Array<float>, 0>{}).empty());
  CHECK(tree::leaves(jaxcc::none).empty());

  auto t = std::tuple{std::vector<Array<float>>{}, std::map<std::string, int>{}, std::tuple<>{}, Stack{{}, "e"}};
  auto [leaves, treedef] = tree::flatten(t);
  CHECK(leaves.empty());
  CHECK(treedef.to_string() == "PyTreeDef(([], {}, (), CustomNode(Stack[e], [])))");
  CHECK(treedef.num_leaves() == 0);
  CHECK(treedef.num_nodes() == 5);
  auto back = tree::unflatten(treedef, leaves);
  CHECK(std::get<0>(back).empty());
  CHECK(std::get<3>(back).name == "e");
}

TEST_CASE("tree flatten: the leaf type is the tree's one leaf type, else AnyArray") {
  static_assert(std::is_same_v<tree::leaf_t<std::tuple<Array<float>, std::vector<Array<float>>>>, Array<float>>);
  static_assert(std::is_same_v<tree::leaf_t<std::tuple<int, std::pair<int, int>>>, int>);
  static_assert(std::is_same_v<tree::leaf_t<std::tuple<Array<float>, Array<double>>>, jaxcc::AnyArray>);
  static_assert(std::is_same_v<tree::leaf_t<std::tuple<Array<float>, float>>, jaxcc::AnyArray>);
  static_assert(std::is_same_v<tree::leaf_t<std::tuple<>>, jaxcc::AnyArray>);
  static_assert(std::is_same_v<tree::leaf_t<std::optional<std::vector<double>>>, double>);
  auto ints = tree::leaves(std::tuple{1, std::pair{2, 3}});
  CHECK(ints == std::vector<int>{1, 2, 3});
}

TEST_CASE("tree flatten: a fused expression leaf flattens to the Array it evaluates to") {
  auto const x = jaxcc::numpy::arange<float>(3);
  auto const t = std::tuple{x * 2.0f, x};
  static_assert(std::is_same_v<tree::leaf_t<decltype(t)>, Array<float>>);
  auto const leaves = tree::leaves(t);
  REQUIRE(leaves.size() == 2);
  CHECK(leaves[0].to_vector() == std::vector<float>{0, 2, 4});
  CHECK(leaves[1].to_vector() == std::vector<float>{0, 1, 2});
}

TEST_CASE("tree flatten: mixed dtypes round trip exactly through AnyArray") {
  auto f32 = jnp::array({{1.5f, -2.0f}, {3.0f, 4.0f}}).T();  // a non-contiguous view
  auto f64 = jnp::array({0.1, 0.2});
  auto i32 = jnp::array({std::int32_t{-7}, std::int32_t{2147483647}});
  auto i64 = jnp::array({std::int64_t{1} << 40});
  auto b = jnp::array({true, false, true});
  auto t = std::tuple{f32, std::map<std::string, Array<double>>{{"x", f64}}, std::pair{i32, i64}, b, 2.5f, 7,
                      std::int64_t{-3}, true, 0.1};
  auto [leaves, treedef] = tree::flatten(t);
  REQUIRE(leaves.size() == 10);
  using jaxcc::DType;
  std::vector<DType> dtypes;
  for (auto const& l : leaves) dtypes.push_back(l.dtype());
  CHECK(dtypes == std::vector<DType>{DType::float32, DType::float64, DType::int32, DType::int64, DType::bool_,
                                     DType::float32, DType::int32, DType::int64, DType::bool_, DType::float64});
  CHECK(leaves[0].shape() == jaxcc::Shape{2, 2});
  CHECK(leaves[5].shape() == jaxcc::Shape{});  // a scalar leaf is a rank-0 array

  auto back = tree::unflatten(treedef, leaves);
  static_assert(std::is_same_v<decltype(back), decltype(t)>);
  CHECK(std::get<0>(back).to_vector() == std::vector<float>{1.5f, 3.0f, -2.0f, 4.0f});
  CHECK(std::get<1>(back).at("x").to_vector() == std::vector<double>{0.1, 0.2});
  CHECK(std::get<2>(back).first.to_vector() == std::vector<std::int32_t>{-7, 2147483647});
  CHECK(std::get<2>(back).second.to_vector() == std::vector<std::int64_t>{std::int64_t{1} << 40});
  CHECK(std::get<3>(back).to_vector() == std::vector<bool>{true, false, true});
  CHECK(std::get<4>(back) == 2.5f);
  CHECK(std::get<5>(back) == 7);
  CHECK(std::get<6>(back) == -3);
  CHECK(std::get<7>(back) == true);
  CHECK(std::get<8>(back) == 0.1);
}

TEST_CASE("tree unflatten: wrong leaf counts and dtypes raise JAX's messages") {
  Params params{{"layer1", {{"w", jnp::ones<float>({2, 2})}, {"b", jnp::zeros<float>(2)}}},
                {"layer2", {{"w", jnp::ones<float>({2, 1})}, {"b", jnp::zeros<float>(1)}}}};
  auto const flat = tree::flatten(params);  // (not a structured binding: lambdas below capture it)
  auto const& leaves = flat.first;
  auto const& treedef = flat.second;
  auto fewer = std::vector<Array<float>>(leaves.begin(), leaves.end() - 1);
  auto more = leaves;
  more.push_back(leaves[0]);
  // jaxlib: "Too few leaves for PyTreeDef; expected %d, got %d" and
  // "Too many leaves for PyTreeDef; expected %d." (here with the count given too)
  CHECK(message_of([&] { tree::unflatten(treedef, fewer); }) == "Too few leaves for PyTreeDef; expected 4, got 3");
  CHECK(message_of([&] { tree::unflatten(treedef, more); }) == "Too many leaves for PyTreeDef; expected 4, got 5.");

  auto mixed = tree::structure(std::tuple{jnp::ones<float>(2), std::map<std::string, int>{{"n", 1}}});
  std::vector<jaxcc::AnyArray> wrong{jnp::ones<float>(2), jnp::ones<float>(2)};
  CHECK(message_of([&] { tree::unflatten(mixed, wrong); }) ==
        "tree::unflatten: leaf 1 (key path [1]['n']) is an array of dtype float32 and shape (2,), but the tree's "
        "type holds a scalar of dtype int32 there");
  std::vector<jaxcc::AnyArray> wrong_dtype{jnp::ones<double>(2), jnp::array(std::int32_t{1})};
  CHECK(message_of([&] { tree::unflatten(mixed, wrong_dtype); }) ==
        "tree::unflatten: leaf 0 (key path [0]) is an array of dtype float64 and shape (2,), but the tree's type "
        "holds an array of dtype float32 there");
  auto ok = tree::unflatten(mixed, {jnp::zeros<float>(3), jnp::array(std::int32_t{9})});
  CHECK(std::get<0>(ok).shape() == jaxcc::Shape{3});
  CHECK(std::get<1>(ok).at("n") == 9);
}

TEST_CASE("tree flatten_with_path: key paths print as jax.tree_util.keystr") {
  model::Net net{{jnp::ones<float>(1), jnp::ones<float>(1)}, {{jnp::ones<float>(1), jnp::ones<float>(1)}},
                 std::nullopt, 5};
  auto [with_path, treedef] = tree::flatten_with_path(net);
  std::vector<std::string> paths;
  for (auto const& [path, leaf] : with_path) paths.push_back(tree::keystr(path));
  CHECK(paths == std::vector<std::string>{".encoder.w", ".encoder.b", ".layers[0].w", ".layers[0].b", ".step"});
  CHECK(treedef == tree::structure(net));

  // JAX's testKeyStr, with a JAXCC_PYTREE struct for its namedtuple ATuple(foo, bar).
  Params params{{"layer1", {{"w", jnp::ones<float>(1)}, {"b", jnp::ones<float>(1)}}}};
  std::vector<std::string> keys, simple;
  for (auto const& [path, leaf] : tree::leaves_with_path(std::tuple{params, Stack{{jnp::ones<float>(1)}, "s"}})) {
    keys.push_back(tree::keystr(path));
    simple.push_back(tree::keystr(path, /*simple=*/true, "/"));
  }
  CHECK(keys == std::vector<std::string>{"[0]['layer1']['b']", "[0]['layer1']['w']", "[1][<flat index 0>]"});
  CHECK(simple == std::vector<std::string>{"0/layer1/b", "0/layer1/w", "1/0"});

  // The key entries themselves.
  auto const& first = with_path[2].first;
  REQUIRE(first.size() == 3);
  CHECK(std::get<tree::GetAttrKey>(first[0]).name == "layers");
  CHECK(std::get<tree::SequenceKey>(first[1]).idx == 0);
  CHECK(tree::to_string(first[2]) == ".w");
  CHECK(tree::to_string(tree::DictKey{"it's"}) == "[\"it's\"]");
  CHECK(tree::to_string(tree::FlattenedIndexKey{2}) == "[<flat index 2>]");
  CHECK(tree::keystr({}).empty());
}

TEST_CASE("tree flatten: an is_leaf predicate stops the walk at chosen subtrees") {
  auto a = jnp::ones<float>(2);
  auto t = std::tuple{std::pair{a, a}, std::vector{std::pair{a, a}}, a};
  using Pair = std::pair<Array<float>, Array<float>>;
  auto pairs_are_leaves =
      tree::is_leaf([](auto const& x) { return std::is_same<std::remove_cvref_t<decltype(x)>, Pair>{}; });
  // The pairs and the array are leaves now; their types differ and pairs are not arrays,
  // so this tree has a structure but no common leaf type to flatten to.
  CHECK(tree::structure(t, pairs_are_leaves).to_string() == "PyTreeDef((*, [*], *))");
  CHECK(tree::structure(t).to_string() == "PyTreeDef(((*, *), [(*, *)], *))");

  // JAX's is_leaf=lambda x: x is None: None becomes a leaf.
  auto with_none = std::tuple{jaxcc::none, jaxcc::none};
  CHECK(tree::structure(with_none).to_string() == "PyTreeDef((None, None))");
  auto [none_leaves, none_def] = tree::flatten(with_none, tree::leaf_types<jaxcc::none_t>);
  CHECK(none_leaves.size() == 2);
  CHECK(none_def.to_string() == "PyTreeDef((*, *))");
  auto back = tree::unflatten(none_def, none_leaves);
  static_assert(std::is_same_v<decltype(back), std::tuple<jaxcc::none_t, jaxcc::none_t>>);

  auto vp = std::vector{std::pair{1, 2}, std::pair{3, 4}};
  auto [pair_leaves, pair_def] = tree::flatten(vp, tree::leaf_types<std::pair<int, int>>);
  static_assert(std::is_same_v<decltype(pair_leaves), std::vector<std::pair<int, int>>>);
  CHECK(pair_leaves[1].second == 4);
  CHECK(pair_def.to_string() == "PyTreeDef([*, *])");
  CHECK(tree::unflatten(pair_def, pair_leaves) == vp);
}

}  // namespace test_tree_flatten
