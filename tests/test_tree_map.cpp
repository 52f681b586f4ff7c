// tree::map and tree::map_with_path: structure kept, several trees, prefix
// trees, fn order, structure errors worded as JAX's _prefix_error
// (jax/_src/tree_util.py), and no heap allocation for tuples and structs.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "allocation_counter.hpp"
#include "support.hpp"

namespace test_tree_map {

namespace jnp = jaxcc::numpy;
namespace tree = jaxcc::tree;
using jaxcc::Array;
using jaxcc::testing::AllClose;
using jaxcc_test::message_of;

// ---- trees --------------------------------------------------------------------

namespace model {

struct Dense {
  Array<float> w, b;
};
JAXCC_PYTREE(Dense, w, b);

struct Mlp {
  Dense layer1, layer2;
  Array<float> scale;
};
JAXCC_PYTREE(Mlp, layer1, layer2, scale);

struct Other {
  Array<float> w, b;
};
JAXCC_PYTREE(Other, w, b)  // the trailing semicolon is optional

}  // namespace model

namespace {

struct Tagged {
  Array<float> value;
  int tag = 0;
};

using Params = std::map<std::string, std::map<std::string, Array<float>>>;

Params seed_params() {
  return {{"layer1", {{"w", jnp::ones<float>({2, 2})}, {"b", jnp::zeros<float>(2)}}},
          {"layer2", {{"w", jnp::ones<float>({2, 1})}, {"b", jnp::zeros<float>(1)}}}};
}

}  // namespace

}  // namespace test_tree_map

template <>
struct jaxcc::tree::node_traits<test_tree_map::Tagged> {
  static constexpr std::string_view name = "Tagged";
  static auto children(test_tree_map::Tagged const& t) { return std::tuple{t.value}; }
  static int aux(test_tree_map::Tagged const& t) { return t.tag; }
  static test_tree_map::Tagged unflatten(int tag, std::tuple<jaxcc::Array<float>> c) { return {std::get<0>(c), tag}; }
};

namespace test_tree_map {

TEST_CASE("tree map: the seed example doubles every leaf and keeps the dict structure") {
  auto params = seed_params();
  auto doubled = tree::map([](auto const& x) { return x * 2; }, params);
  static_assert(std::is_same_v<decltype(doubled), Params>);
  CHECK(tree::structure(doubled) == tree::structure(params));
  auto leaves = tree::leaves(doubled);
  REQUIRE(leaves.size() == 4);
  // layer1.b = zeros(2)*2, layer1.w = ones(2,2)*2, layer2.b = zeros(1)*2, layer2.w = ones(2,1)*2
  CHECK_THAT(leaves[0], AllClose(jnp::zeros<float>(2)));
  CHECK_THAT(leaves[1], AllClose(jnp::full<float>({2, 2}, 2.0f)));
  CHECK_THAT(leaves[2], AllClose(jnp::zeros<float>(1)));
  CHECK_THAT(leaves[3], AllClose(jnp::full<float>({2, 1}, 2.0f)));
}

TEST_CASE("tree map: over two and three trees") {
  auto a = jnp::array({1.0f, 2.0f});
  auto b = jnp::array({10.0f, 20.0f});
  auto c = jnp::array({100.0f, 200.0f});
  model::Mlp x{{a, b}, {c, a}, b};
  model::Mlp y{{b, c}, {a, b}, c};
  model::Mlp z{{c, a}, {b, c}, a};

  auto two = tree::map([](auto const& p, auto const& q) { return p - q; }, x, y);
  static_assert(std::is_same_v<decltype(two), model::Mlp>);
  CHECK_THAT(two.layer1.w, AllClose(jnp::array({-9.0f, -18.0f})));      // a - b
  CHECK_THAT(two.layer2.b, AllClose(jnp::array({-9.0f, -18.0f})));      // a - b
  CHECK_THAT(two.scale, AllClose(jnp::array({-90.0f, -180.0f})));       // b - c

  auto three = tree::map([](auto const& p, auto const& q, auto const& r) { return p + 2.0f * q + 3.0f * r; }, x, y, z);
  CHECK_THAT(three.layer1.w, AllClose(jnp::array({321.0f, 642.0f})));   // a + 2b + 3c
  CHECK_THAT(three.layer1.b, AllClose(jnp::array({213.0f, 426.0f})));   // b + 2c + 3a
  CHECK_THAT(three.scale, AllClose(jnp::array({213.0f, 426.0f})));      // b + 2c + 3a

  // Different container types with the same structure, and dicts and vectors.
  auto sum = tree::map([](auto const& p, auto const& q) { return p + q; }, std::tuple{a, std::vector{b, c}},
                       std::pair{c, std::vector{a, a}});
  static_assert(std::is_same_v<decltype(sum), std::tuple<Array<float>, std::vector<Array<float>>>>);
  CHECK_THAT(std::get<1>(sum)[1], AllClose(jnp::array({101.0f, 202.0f})));
  auto params = seed_params();
  auto three_dicts =
      tree::map([](auto const& p, auto const& q, auto const& r) { return p + q * r; }, params, params, params);
  CHECK_THAT(three_dicts.at("layer1").at("w"), AllClose(jnp::full<float>({2, 2}, 2.0f)));
}

TEST_CASE("tree map: results may change leaf types; std containers are rebuilt around them") {
  auto t = std::tuple{jnp::ones<float>({2, 3}), std::vector{jnp::zeros<std::int32_t>(4)}, 1.5};
  auto shapes = tree::map(
      [](auto const& x) {
        if constexpr (jaxcc::AnArray<std::remove_cvref_t<decltype(x)>>) return x.shape();
        else return jaxcc::Shape{};
      },
      t);
  static_assert(std::is_same_v<decltype(shapes), std::tuple<jaxcc::Shape, std::vector<jaxcc::Shape>, jaxcc::Shape>>);
  CHECK(std::get<0>(shapes) == jaxcc::Shape{2, 3});
  CHECK(std::get<1>(shapes)[0] == jaxcc::Shape{4});
  auto positive = tree::map([](auto const& x) { return x > 0.5f; }, std::map<std::string, Array<float>>{
                                                                        {"a", jnp::array({0.0f, 1.0f})}});
  static_assert(std::is_same_v<decltype(positive), std::map<std::string, Array<bool>>>);
  CHECK(positive.at("a").to_vector() == std::vector<bool>{false, true});
  // Empty containers map to empty containers of the new type.
  auto none = tree::map([](auto const& x) { return x.shape(); }, std::vector<Array<float>>{});
  static_assert(std::is_same_v<decltype(none), std::vector<jaxcc::Shape>>);
  CHECK(none.empty());
  auto empty_array = tree::map([](auto const& x) { return x.shape(); }, std::array<Array<float>, 0>{});
  static_assert(std::is_same_v<decltype(empty_array), std::array<jaxcc::Shape, 0>>);
}

TEST_CASE("tree map: optionals, None, custom nodes and is_leaf") {
  auto a = jnp::array({1.0f, 2.0f});
  auto neg = [](auto const& x) { return -x; };

  std::vector<std::optional<Array<float>>> v{a, std::nullopt};
  auto nv = tree::map(neg, v);
  REQUIRE(nv[0].has_value());
  CHECK_THAT(*nv[0], AllClose(jnp::array({-1.0f, -2.0f})));
  CHECK_FALSE(nv[1].has_value());
  // An engaged optional matches a plain value; empty ones match each other and none.
  auto sum = tree::map([](auto const& p, auto const& q) { return p + q; },
                       std::tuple{std::optional<Array<float>>{a}, std::optional<Array<float>>{}},
                       std::tuple{a, jaxcc::none});
  CHECK_THAT(*std::get<0>(sum), AllClose(jnp::array({2.0f, 4.0f})));
  CHECK_FALSE(std::get<1>(sum).has_value());
  auto both = tree::map([](auto const& p, auto const& q) { return p * q; }, v, v);
  CHECK_THAT(*both[0], AllClose(jnp::array({1.0f, 4.0f})));
  CHECK_FALSE(both[1].has_value());

  auto tagged = tree::map(neg, std::vector{Tagged{a, 3}});
  CHECK(tagged[0].tag == 3);
  CHECK_THAT(tagged[0].value, AllClose(jnp::array({-1.0f, -2.0f})));

  // is_leaf: fn receives the chosen subtrees whole.
  using Pair = std::pair<Array<float>, Array<float>>;
  auto pairs = std::vector<Pair>{{a, a}, {a, 2.0f * a}};
  auto products = tree::map([](Pair const& p) { return p.first * p.second; }, pairs, tree::leaf_types<Pair>);
  static_assert(std::is_same_v<decltype(products), std::vector<Array<float>>>);
  CHECK(products[1].to_vector() == std::vector<float>{2.0f, 8.0f});  // (1, 2) * (2, 4)
}

TEST_CASE("tree map: the first tree is a prefix of the others, as in JAX") {
  auto a = jnp::array({1.0f});
  // in_axes-style: one entry per argument, the second standing for a whole pair.
  auto full = std::tuple{a, std::pair{a, jnp::array({2.0f, 3.0f})}};
  auto sizes = tree::map([](int axis, auto const& sub) { return axis + static_cast<int>(tree::leaves(sub).size()); },
                         std::tuple{0, 10}, full);
  CHECK(sizes == std::tuple{1, 12});
}

TEST_CASE("tree map: fn sees the leaves in flatten's order") {
  std::vector<std::string> seen;
  auto record = [&](tree::KeyPath const& path, auto const& x) {
    seen.push_back(tree::keystr(path));
    return x;
  };
  auto params = seed_params();
  tree::map_with_path(record, std::tuple{params, model::Dense{jnp::ones<float>(1), jnp::ones<float>(1)}});
  CHECK(seen == std::vector<std::string>{"[0]['layer1']['b']", "[0]['layer1']['w']", "[0]['layer2']['b']",
                                         "[0]['layer2']['w']", "[1].w", "[1].b"});
  auto with_path = tree::map_with_path(
      [](tree::KeyPath const& path, auto const& x, auto const& y) { return path.size() + x + y; },
      std::vector{1, 2}, std::vector{10, 20});
  CHECK(with_path == std::vector<std::size_t>{12, 23});
}

TEST_CASE("tree map: mismatched structures raise JAX's pytree structure errors") {
  auto id = [](auto const& x, auto const&...) { return x; };

  CHECK(message_of([&] { tree::map(id, std::tuple{1, std::tuple{2, 3}}, std::tuple{1, std::tuple{2, 3, 4}}); }) ==
        "pytree structure error: different lengths of tuple at key path\n"
        "    tree::map tree[1]\n"
        "At that key path, the prefix pytree tree::map tree has a subtree of type tuple of length 2, but the full "
        "pytree has a subtree of the same type but of length 3.\n"
        "The first tree has structure\n"
        "    PyTreeDef((*, (*, *)))\n"
        "and tree 2 has structure\n"
        "    PyTreeDef((*, (*, *, *)))");

  CHECK(message_of([&] { tree::map(id, std::vector{1}, std::vector{2}, std::vector{3, 4}); }) ==
        "pytree structure error: different lengths of list at key path\n"
        "    tree::map tree\n"
        "At that key path, the prefix pytree tree::map tree has a subtree of type list of length 1, but the full "
        "pytree has a subtree of the same type but of length 2.\n"
        "The first tree has structure\n"
        "    PyTreeDef([*])\n"
        "and tree 3 has structure\n"
        "    PyTreeDef([*, *])");

}

TEST_CASE("tree map: more structure errors") {
  auto id = [](auto const& x, auto const&...) { return x; };
  auto a = jnp::ones<float>(1);
  // A leaf of the first tree is a prefix of any subtree: no error.
  CHECK(message_of([&] { tree::map(id, std::tuple{1, 2}, std::tuple{1, std::vector{2}}); }) == "<no error>");

  CHECK(message_of([&] { tree::map(id, std::tuple{std::vector{1}}, std::tuple<std::tuple<int>>{std::tuple{1}}); }) ==
        "pytree structure error: different types at key path\n"
        "    tree::map tree[0]\n"
        "At that key path, the prefix pytree tree::map tree has a subtree of type\n"
        "    list\n"
        "but at the same key path the full pytree has a subtree of different type\n"
        "    tuple.\n"
        "The first tree has structure\n"
        "    PyTreeDef(([*],))\n"
        "and tree 2 has structure\n"
        "    PyTreeDef(((*,),))");

  std::map<std::string, int> hi{{"hi", 1}}, hi_bye{{"hi", 2}, {"bye", 3}}, other{{"ho", 1}};
  CHECK(message_of([&] { tree::map(id, hi, hi_bye); }) ==
        "pytree structure error: different numbers of pytree children at key path\n"
        "    tree::map tree\n"
        "At that key path, the prefix pytree tree::map tree has a subtree of type\n"
        "    dict\n"
        "with 1 child keys\n"
        "    ['hi']\n"
        "but at the same key path the full pytree has a subtree of the same type but with 2 child keys\n"
        "    ['bye'] ['hi']\n"
        "so the symmetric difference on key sets is\n"
        "    ['bye']\n"
        "The first tree has structure\n"
        "    PyTreeDef({'hi': *})\n"
        "and tree 2 has structure\n"
        "    PyTreeDef({'bye': *, 'hi': *})");
  CHECK(message_of([&] { tree::map(id, std::vector{hi}, std::vector{other}); }) ==
        "pytree structure error: different pytree metadata at key path\n"
        "    tree::map tree[0]\n"
        "At that key path, the prefix pytree tree::map tree has a subtree of type\n"
        "    dict\n"
        "with metadata\n"
        "    ('hi',)\n"
        "but at the same key path the full pytree has a subtree of the same type but with metadata\n"
        "    ('ho',)\n"
        "so the diff in the metadata at these pytree nodes is\n"
        "    - ('hi',)\n"
        "    + ('ho',)\n"
        "The first tree has structure\n"
        "    PyTreeDef([{'hi': *}])\n"
        "and tree 2 has structure\n"
        "    PyTreeDef([{'ho': *}])");

  // Custom nodes: a different registered type, or different aux data.
  auto custom_types = message_of([&] { tree::map(id, model::Dense{a, a}, model::Other{a, a}); });
  CHECK(custom_types.starts_with("pytree structure error: different types at key path\n"
                                 "    tree::map tree\n"
                                 "At that key path, the prefix pytree tree::map tree has a subtree of type\n"
                                 "    Dense\n"
                                 "but at the same key path the full pytree has a subtree of different type\n"
                                 "    Other.\n"));
  CHECK(custom_types.ends_with("    PyTreeDef(CustomNode(Dense[()], [*, *]))\n"
                               "and tree 2 has structure\n"
                               "    PyTreeDef(CustomNode(Other[()], [*, *]))"));
  auto aux = message_of([&] { tree::map(id, std::tuple{Tagged{a, 1}}, std::tuple{Tagged{a, 2}}); });
  CHECK(aux.starts_with("pytree structure error: different pytree metadata at key path\n"
                        "    tree::map tree[0]\n"
                        "At that key path, the prefix pytree tree::map tree has a subtree of type\n"
                        "    Tagged\n"
                        "with metadata\n"
                        "    1\n"
                        "but at the same key path the full pytree has a subtree of the same type but with metadata\n"
                        "    2\n"));

  // None against a value, both ways.
  CHECK(message_of([&] { tree::map(id, std::tuple{std::optional<int>{}}, std::tuple{3}); })
            .starts_with("pytree structure error: different types at key path\n"
                         "    tree::map tree[0]\n"
                         "At that key path, the prefix pytree tree::map tree has a subtree of type\n"
                         "    NoneType\n"
                         "but at the same key path the full pytree has a subtree of different type\n"
                         "    int.\n"));
  using IntPair = std::pair<int, int>;
  auto none_full =
      message_of([&] { tree::map(id, std::tuple<IntPair>{{1, 2}}, std::tuple{std::optional<IntPair>()}); });
  CHECK(none_full.starts_with("pytree structure error: different types at key path\n"
                              "    tree::map tree[0]\n"
                              "At that key path, the prefix pytree tree::map tree has a subtree of type\n"
                              "    tuple\n"
                              "but at the same key path the full pytree has a subtree of different type\n"
                              "    NoneType.\n"));
  // A node in the first tree against a leaf in another.
  CHECK(message_of([&] { tree::map(id, std::vector{1}, a); })
            .starts_with("pytree structure error: different types at key path\n"
                         "    tree::map tree\n"
                         "At that key path, the prefix pytree tree::map tree has a subtree of type\n"
                         "    list\n"
                         "but at the same key path the full pytree has a subtree of different type\n"
                         "    jaxcc::Array<float>.\n"));
}

TEST_CASE("tree map: a struct of arrays maps without touching the heap") {
  auto a = jnp::ones<float>(2);
  auto b = jnp::zeros<float>(3);
  model::Mlp mlp{{a, b}, {b, a}, a};
  auto tuple = std::tuple{a, std::pair{b, mlp}, std::array<Array<float>, 2>{a, b}};
  auto identity = [](auto const& x) { return x; };
  auto first = [](auto const& x, auto const&, auto const&) { return x; };

  // Warm up: the first default-constructed Array makes the shared empty array.
  (void)tree::map(identity, mlp);

  long const before = jaxcc_test::heap_allocations();
  auto mapped = tree::map(identity, mlp);
  auto mapped_tuple = tree::map(identity, tuple);
  auto mapped_three = tree::map(first, mlp, mlp, mlp);
  float total = tree::reduce([](float acc, auto const& x) { return acc + static_cast<float>(x.size()); }, mlp, 0.0f);
  long const after = jaxcc_test::heap_allocations();

  if (jaxcc_test::counts_allocations) REQUIRE(after - before == 0);
  CHECK(total == 12.0f);  // 2 + 3 + 3 + 2 + 2
  CHECK(mapped.layer2.w.data() == b.data());  // the same buffers, not copies
  CHECK(std::get<1>(mapped_tuple).second.scale.data() == a.data());
  CHECK(mapped_three.layer1.b.data() == b.data());
}

}  // namespace test_tree_map
