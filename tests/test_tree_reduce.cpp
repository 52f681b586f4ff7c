// tree::reduce, tree::all and tree::transpose. Expected values are worked
// out by hand in the comments.
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

#include "support.hpp"

namespace test_tree_reduce {

namespace jnp = jaxcc::numpy;
namespace tree = jaxcc::tree;
using jaxcc::Array;
using jaxcc::testing::AllClose;
using jaxcc_test::message_of;

TEST_CASE("tree reduce: folds the leaves in flatten's order") {
  // With an initializer the accumulator keeps its type; leaves may differ in type.
  auto t = std::tuple{1, std::vector{2.5, 3.5}, std::map<std::string, float>{{"b", 4.0f}, {"a", 5.0f}}};
  CHECK(tree::reduce([](double acc, auto x) { return acc + x; }, t, 0.0) == 16.0);  // 1 + 2.5 + 3.5 + 5 + 4
  // Order: building a string shows it (dict keys sorted: a before b).
  auto order = tree::reduce([](std::string acc, auto x) { return acc + std::to_string(static_cast<int>(x)); }, t,
                            std::string());
  CHECK(order == "12354");
  // Without an initializer: one leaf type; arrays (fused expressions become arrays).
  auto arrays = std::vector{jnp::array({1.0f, 2.0f}), jnp::array({10.0f, 20.0f}), jnp::array({100.0f, 200.0f})};
  auto total = tree::reduce([](auto const& a, auto const& b) { return a + b; }, arrays);
  static_assert(std::is_same_v<decltype(total), Array<float>>);
  CHECK_THAT(total, AllClose(jnp::array({111.0f, 222.0f})));
  CHECK(tree::reduce([](int a, int b) { return a * b; }, std::tuple{2, 3, std::pair{4, 5}}) == 120);
  // A single leaf is the result; no leaves is Python's reduce error.
  CHECK(tree::reduce([](int a, int b) { return a - b; }, std::vector{7}) == 7);
  CHECK(message_of([] { tree::reduce([](int a, int b) { return a + b; }, std::vector<int>{}); }) ==
        "reduce() of empty iterable with no initial value");
  CHECK(tree::reduce([](int a, int b) { return a + b; }, std::vector<int>{}, 42) == 42);
}

TEST_CASE("tree all: Python's all over the leaves") {
  CHECK(tree::all(std::tuple{1, true, 2.0, std::vector{jnp::array({3.0f})}}));
  CHECK_FALSE(tree::all(std::tuple{1, 0.0}));
  CHECK(tree::all(std::vector<int>{}));  // all of nothing
  CHECK(tree::all(std::tuple{jaxcc::none, std::optional<int>{}}));
  CHECK_FALSE(tree::all(std::map<std::string, Array<bool>>{{"a", jnp::array({false})}}));
  // Arrays need one element, as JAX's check_bool_conversion says.
  CHECK(message_of([] { tree::all(std::tuple{jnp::array({1.0f, 2.0f})}); }) ==
        "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
  CHECK(message_of([] { tree::all(std::tuple{jnp::zeros<float>(0)}); }) ==
        "The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is not empty.");
  // It stops at the first false leaf, as all() does: the bad array after it is never asked.
  CHECK_FALSE(tree::all(std::tuple{0, jnp::array({1.0f, 2.0f})}));
  // Mixed dtypes through AnyArray-free visiting, and an is_leaf option.
  CHECK(tree::all(std::tuple{jnp::array(std::int64_t{5}), jnp::array(true)}));
  CHECK(tree::all(std::tuple{jaxcc::none}, tree::leaf_types<jaxcc::none_t>) == false);  // None is falsy
}

TEST_CASE("tree transpose: a list of pairs becomes a pair of lists") {
  auto a = jnp::array({1.0f});
  auto b = jnp::array({2.0f});
  auto i = jnp::array({std::int32_t{3}});
  auto j = jnp::array({std::int32_t{4}});
  std::vector<std::pair<Array<float>, Array<std::int32_t>>> rows{{a, i}, {b, j}};
  auto outer = tree::structure(std::vector{0, 0});
  auto inner = tree::structure(std::pair<Array<float>, Array<std::int32_t>>{a, i});
  auto columns = tree::transpose(outer, inner, rows);
  static_assert(std::is_same_v<decltype(columns),
                               std::pair<std::vector<Array<float>>, std::vector<Array<std::int32_t>>>>);
  REQUIRE(columns.first.size() == 2);
  CHECK_THAT(columns.first[1], AllClose(b));
  CHECK_THAT(columns.second[0], AllClose(i));
  CHECK_THAT(columns.second[1], AllClose(j));
  CHECK(tree::structure(columns).to_string() == "PyTreeDef(([*, *], [*, *]))");

  // A dict of tuples becomes a tuple of dicts; the outer treedef may come from any type.
  std::map<std::string, std::tuple<int, double>> by_name{{"x", {1, 0.5}}, {"y", {2, 1.5}}};
  auto split = tree::transpose(tree::structure(std::map<std::string, char>{{"x", 'a'}, {"y", 'b'}}),
                               tree::structure(std::tuple{0, 0.0}), by_name);
  static_assert(std::is_same_v<decltype(split), std::tuple<std::map<std::string, int>, std::map<std::string, double>>>);
  CHECK(std::get<0>(split).at("y") == 2);
  CHECK(std::get<1>(split).at("x") == 0.5);

  // An empty outer list transposes to inner's structure of empty lists.
  auto none = tree::transpose(tree::structure(std::vector<int>{}), inner,
                              std::vector<std::pair<Array<float>, Array<std::int32_t>>>{});
  CHECK(none.first.empty());
  CHECK(none.second.empty());
}

TEST_CASE("tree transpose: a structure that is not outer of inner raises JAX's Mismatch") {
  std::vector<std::pair<int, int>> rows{{1, 2}, {3, 4}, {5, 6}};
  // jax.tree.transpose: TypeError(f"Mismatch\n{treedef}\n != \n{expected_treedef}")
  CHECK(message_of([&] {
          tree::transpose(tree::structure(std::vector{0, 0}), tree::structure(std::pair{0, 0}), rows);
        }) == "Mismatch\nPyTreeDef([(*, *), (*, *), (*, *)])\n != \nPyTreeDef([(*, *), (*, *)])");
}

}  // namespace test_tree_reduce
