// What is a pytree node and what is a leaf. Built in: std::tuple, std::pair
// and std::array (tuples), std::vector (lists), std::map<std::string, T>
// (dicts, keys sorted), std::optional (empty: None; engaged: its value) and
// jaxcc::none (None). Users add structs with JAXCC_PYTREE(Type, members...)
// and any other container by specializing jaxcc::tree::node_traits (JAX's
// register_pytree_node). Everything else is a leaf, as in JAX.
//
// The structure of a tuple or struct is its C++ type: walking it is
// straight-line code. Vectors, maps and optionals carry their structure at
// run time.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/none.hpp"
#include "jaxcc/tree/paths.hpp"
#include "jaxcc/tree/treedef.hpp"

namespace jaxcc::tree {

/// Specialize to make a container a pytree node, as register_pytree_node
/// does in JAX:
///
///     template <> struct jaxcc::tree::node_traits<Box> {
///       static constexpr std::string_view name = "Box";  // printed in treedefs
///       static auto children(Box const& b) { return std::tuple{b.lo, b.hi}; }
///       static Box unflatten(std::tuple<Array<float>, Array<float>> c) { ... }
///       // optional metadata (JAX's aux_data): compared, hashed, printed, and
///       // passed first to unflatten, which then is unflatten(aux, children)
///       static std::string aux(Box const& b) { return b.label; }
///     };
///
/// `children` returns a std::tuple, std::pair or std::array (a fixed number
/// of children) or a std::vector (any number). Treedefs print the node as
/// `CustomNode(Box[aux], [*, *])`, `Box[None]` when there is no aux; key
/// paths name its children `[<flat index 0>]`, ...
template <class T>
struct node_traits {};

/// An is_leaf option: subtrees for which `pred(subtree)` is true are leaves.
/// jaxcc trees have one leaf type known at compile time, so the decision is
/// made from the subtree's type: `pred` returns std::true_type or
/// std::false_type, e.g.
/// `[](auto const& x) { return std::is_same<std::remove_cvref_t<decltype(x)>, Box>{}; }`.
template <class Pred>
struct IsLeaf {
  Pred pred;
};
template <class Pred>
constexpr IsLeaf<Pred> is_leaf(Pred pred) {
  return {pred};
}

}  // namespace jaxcc::tree

namespace jaxcc::detail {

template <class... Ts>
struct leaf_type_predicate {
  template <class X>
  constexpr std::bool_constant<(std::same_as<X, Ts> || ...)> operator()(X const&) const {
    return {};
  }
};

}  // namespace jaxcc::detail

namespace jaxcc::tree {

/// The is_leaf option that makes subtrees of the types Ts leaves, e.g.
/// `tree::leaf_types<jaxcc::none_t>` for JAX's `is_leaf=lambda x: x is None`.
template <class... Ts>
inline constexpr IsLeaf<detail::leaf_type_predicate<Ts...>> leaf_types{};

}  // namespace jaxcc::tree

namespace jaxcc::detail {

template <class T>
struct pytree_tag {};

template <class T>
struct is_leaf_option : std::false_type {};
template <class P>
struct is_leaf_option<tree::IsLeaf<P>> : std::true_type {};

/// Whether the is_leaf predicate P calls a subtree of type X a leaf.
template <class P, class X>
consteval bool predicate_says_leaf() {
  if constexpr (std::same_as<P, no_leaf_predicate> || !std::is_invocable_v<P const&, X const&>) {
    return false;
  } else {
    using R = std::remove_cvref_t<std::invoke_result_t<P const&, X const&>>;
    static_assert(requires { { R::value } -> std::convertible_to<bool>; },
                  "tree::is_leaf: the predicate must decide from the subtree's type: return std::true_type or "
                  "std::false_type, e.g. std::is_same<std::remove_cvref_t<decltype(x)>, jaxcc::none_t>{}");
    return R::value;
  }
}

// ---- JAXCC_PYTREE structs ---------------------------------------------------

template <class Class, class... Members>
struct PytreeStructFields {
  static constexpr std::size_t size = sizeof...(Members);
  template <std::size_t I>
  using member_type = std::remove_cv_t<std::tuple_element_t<I, std::tuple<Members...>>>;
  std::string_view name;
  std::array<std::string_view, sizeof...(Members)> names;
  std::tuple<Members Class::*...> members;
};

/// The description JAXCC_PYTREE registers: the type's name, the member names
/// split out of the macro's stringized list, and the member pointers.
template <class Class, class... Members>
constexpr PytreeStructFields<Class, Members...> make_pytree_fields(std::string_view type_name, std::string_view names,
                                                                  Members Class::*... members) {
  PytreeStructFields<Class, Members...> out{type_name, {}, {members...}};
  auto is_space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  std::size_t start = 0;
  for (std::size_t i = 0; i < sizeof...(Members); ++i) {
    auto end = names.find(',', start);
    if (end == std::string_view::npos) end = names.size();
    auto field = names.substr(start, end - start);
    while (!field.empty() && is_space(field.front())) field.remove_prefix(1);
    while (!field.empty() && is_space(field.back())) field.remove_suffix(1);
    out.names[i] = field;
    start = end + 1;
  }
  return out;
}

template <class X>
concept PytreeStruct = requires { jaxcc_pytree_fields(pytree_tag<X>{}); };

template <class X>
concept PytreeCustomNode = requires(X const& x) { tree::node_traits<X>::children(x); };

/// A custom node's aux data kept in a treedef.
template <class A>
struct TreeAuxValue final : TreeAuxData {
  static_assert(std::equality_comparable<A>, "node_traits<T>::aux must return a type with ==");
  static_assert(requires(std::ostream& os, A const& a) { os << a; },
                "node_traits<T>::aux must return a type that prints with << (treedefs show it)");
  A value;
  explicit TreeAuxValue(A v) : value(std::move(v)) {}
  bool equals(TreeAuxData const& other) const override {
    return value == static_cast<TreeAuxValue const&>(other).value;
  }
  std::size_t hash() const override {
    if constexpr (requires { std::hash<A>{}(value); }) return std::hash<A>{}(value);
    else return std::hash<std::string>{}(str());
  }
  std::string str() const override {
    std::ostringstream os;
    os << value;
    return os.str();
  }
};

// ---- adapters: one per node category ---------------------------------------

enum class TreeCategory { leaf, none, optional, tuple, list, dict, record, custom };

template <class X>
struct tree_adapter {
  static constexpr TreeCategory category = TreeCategory::leaf;
};

template <>
struct tree_adapter<none_t> {
  static constexpr TreeCategory category = TreeCategory::none;
};
template <>
struct tree_adapter<std::nullopt_t> {
  static constexpr TreeCategory category = TreeCategory::none;
};

template <class T>
struct tree_adapter<std::optional<T>> {
  static constexpr TreeCategory category = TreeCategory::optional;
  using value_type = T;
};

/// std::tuple, std::pair and std::array: a fixed number of children.
template <class X>
struct tree_tuple_adapter {
  static constexpr TreeCategory category = TreeCategory::tuple;
  static constexpr std::size_t arity = std::tuple_size_v<X>;
  template <std::size_t I>
  using child_type = std::remove_cvref_t<std::tuple_element_t<I, X>>;
  template <std::size_t I>
  static auto const& child(X const& x) {
    return std::get<I>(x);
  }
  static constexpr std::string_view key_name(std::size_t) { return {}; }
};

template <class... Ts>
struct tree_adapter<std::tuple<Ts...>> : tree_tuple_adapter<std::tuple<Ts...>> {
  template <class... Rs>
  static std::tuple<Rs...> rebuild(std::tuple<Rs...>&& results) {
    return std::move(results);
  }
};
template <class A, class B>
struct tree_adapter<std::pair<A, B>> : tree_tuple_adapter<std::pair<A, B>> {
  template <class R0, class R1>
  static std::pair<R0, R1> rebuild(std::tuple<R0, R1>&& results) {
    return {std::get<0>(std::move(results)), std::get<1>(std::move(results))};
  }
};
template <class T, std::size_t N>
struct tree_adapter<std::array<T, N>> : tree_tuple_adapter<std::array<T, N>> {
  using element_type = T;
  /// (std::array<T, 0> has no results to take a type from: callers build it.)
  template <class R0, class... Rs>
  static auto rebuild(std::tuple<R0, Rs...>&& results) {
    using Out = std::common_type_t<R0, Rs...>;
    return std::apply([](auto&&... r) { return std::array<Out, N>{Out(std::move(r))...}; }, std::move(results));
  }
};

/// std::vector: a run-time number of children.
template <class T, class Alloc>
struct tree_adapter<std::vector<T, Alloc>> {
  static constexpr TreeCategory category = TreeCategory::list;
  using element_type = T;
  template <class Out>
  using rebound = std::vector<Out>;
};

/// std::map<std::string, T>: a dict, whose keys std::map already keeps in
/// JAX's order (sorted by code point).
template <class T>
struct tree_adapter<std::map<std::string, T>> {
  static constexpr TreeCategory category = TreeCategory::dict;
  using element_type = T;
  template <class Out>
  using rebound = std::map<std::string, Out>;
};

/// A JAXCC_PYTREE struct: its listed members, in the listed order.
template <PytreeStruct X>
struct tree_adapter<X> {
  static constexpr TreeCategory category = TreeCategory::record;
  using fields_type = decltype(jaxcc_pytree_fields(pytree_tag<X>{}));
  static constexpr fields_type fields = jaxcc_pytree_fields(pytree_tag<X>{});
  static constexpr std::size_t arity = fields_type::size;
  static constexpr std::string_view name = fields.name;
  static constexpr std::string_view no_aux = "()";  // a dataclass without meta fields
  template <std::size_t I>
  using child_type = typename fields_type::template member_type<I>;
  template <std::size_t I>
  static auto const& child(X const& x) {
    return x.*std::get<I>(fields.members);
  }
  static constexpr std::string_view key_name(std::size_t i) { return fields.names[i]; }

  /// A default-constructed X with the listed members assigned, in order.
  template <class... Rs>
  static X rebuild(std::tuple<Rs...>&& results) {
    X out{};
    assign(out, std::move(results), std::index_sequence_for<Rs...>{});
    return out;
  }

 private:
  template <class... Rs, std::size_t... I>
  static void assign(X& out, std::tuple<Rs...>&& results, std::index_sequence<I...>) {
    static_assert((std::is_assignable_v<child_type<I>&, Rs&&> && ...),
                  "a JAXCC_PYTREE struct is rebuilt as itself, so the function's results must convert to its "
                  "member types; map over a std::tuple of the members to change their types");
    ((out.*std::get<I>(fields.members) = std::get<I>(std::move(results))), ...);
  }
};

/// A container registered through node_traits.
template <class X>
  requires(PytreeCustomNode<X> && !PytreeStruct<X>)
struct tree_adapter<X> {
  using traits = tree::node_traits<X>;
  static constexpr TreeCategory category = TreeCategory::custom;
  static constexpr std::string_view name = traits::name;
  static constexpr std::string_view no_aux = "None";  // JAX prints aux_data None
  using children_type = std::remove_cvref_t<decltype(traits::children(std::declval<X const&>()))>;
  static_assert(tree_adapter<children_type>::category == TreeCategory::tuple ||
                    tree_adapter<children_type>::category == TreeCategory::list,
                "node_traits<T>::children must return a std::tuple, std::pair, std::array or std::vector");
  static constexpr bool has_aux = requires(X const& x) { traits::aux(x); };

  template <class Children>
  static X rebuild(TreeAuxData const* aux, Children&& children) {
    if constexpr (has_aux) {
      using Aux = std::remove_cvref_t<decltype(traits::aux(std::declval<X const&>()))>;
      return traits::unflatten(static_cast<TreeAuxValue<Aux> const&>(*aux).value, std::forward<Children>(children));
    } else {
      return traits::unflatten(std::forward<Children>(children));
    }
  }
};

// ---- classification ---------------------------------------------------------

template <class X>
inline constexpr TreeCategory tree_category_of = tree_adapter<std::remove_cvref_t<X>>::category;

/// Whether X is a leaf of a tree walked with is_leaf predicate P.
template <class X, class P>
inline constexpr bool tree_leaf_v = tree_category_of<X> == TreeCategory::leaf || predicate_says_leaf<P, X>();

/// std::array<T, 0> has no children to take a rebuilt element type from.
template <class X>
inline constexpr bool is_empty_std_array = false;
template <class T>
inline constexpr bool is_empty_std_array<std::array<T, 0>> = true;

template <class X>
struct is_std_optional : std::false_type {};
template <class T>
struct is_std_optional<std::optional<T>> : std::true_type {};

/// One TreeNodeType per registered C++ type: its identity in treedefs.
template <class X>
inline constexpr TreeNodeType tree_node_type_of{tree_adapter<X>::name, tree_adapter<X>::no_aux};

/// The node a struct or custom container contributes to a treedef.
template <class X>
tree::PyTreeDef::Node custom_tree_node(X const& x, std::size_t arity) {
  tree::PyTreeDef::Node node{tree::NodeKind::custom, static_cast<std::int64_t>(arity), 0, 0, {},
                             &tree_node_type_of<X>, nullptr};
  if constexpr (tree_adapter<X>::category == TreeCategory::custom) {
    if constexpr (tree_adapter<X>::has_aux) {
      using Aux = std::remove_cvref_t<decltype(tree_adapter<X>::traits::aux(x))>;
      node.aux = std::make_shared<TreeAuxValue<Aux> const>(tree_adapter<X>::traits::aux(x));
    }
  }
  return node;
}

/// Number of children of a tuple-like, struct or vector.
template <class C>
std::size_t tree_child_count(C const& c) {
  if constexpr (tree_category_of<C> == TreeCategory::list) return c.size();
  else return tree_adapter<C>::arity;
}

/// Call f(child, link) for each child of a tuple-like, struct or vector `c`,
/// keyed by `kind`: sequence keys for tuples and lists, member names for
/// structs, flat indices for a custom container's children.
template <class C, class F>
void for_each_tree_child(C const& c, KeyPathLink const* path, KeyEntryKind kind, F&& f) {
  using A = tree_adapter<C>;
  if constexpr (A::category == TreeCategory::list) {
    for (std::size_t i = 0; i < c.size(); ++i) {
      KeyPathLink const link{path, kind, i, {}};
      f(c[i], &link);
    }
  } else {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      [[maybe_unused]] auto one = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
        KeyPathLink const link{path, kind, J, A::key_name(J)};
        f(A::template child<J>(c), &link);
      };
      (one(std::integral_constant<std::size_t, I>{}), ...);
    }(std::make_index_sequence<A::arity>{});
  }
}

/// Readable name of a type, for error messages (from the compiler's
/// signature of this function, which GCC and Clang both spell `T = ...`).
template <class T>
constexpr std::string_view readable_type_name() {
  std::string_view sig = __PRETTY_FUNCTION__;
  auto const start = sig.find("T = ");
  if (start == sig.npos) return "leaf";
  sig.remove_prefix(start + 4);
  return sig.substr(0, sig.find_first_of(";]"));
}

/// What JAX's structure errors call the type of a subtree: the Python type
/// of the node (tuple, list, dict, NoneType, the registered name) or the
/// C++ type of a leaf.
template <class X>
constexpr std::string_view tree_kind_name() {
  constexpr auto c = tree_category_of<X>;
  if constexpr (c == TreeCategory::tuple) return "tuple";
  else if constexpr (c == TreeCategory::list) return "list";
  else if constexpr (c == TreeCategory::dict) return "dict";
  else if constexpr (c == TreeCategory::none) return "NoneType";
  else if constexpr (c == TreeCategory::record || c == TreeCategory::custom) return tree_adapter<X>::name;
  else return readable_type_name<X>();
}

}  // namespace jaxcc::detail

// ---- JAXCC_PYTREE -------------------------------------------------------------

#define JAXCC_PP_PARENS ()
#define JAXCC_PP_EXPAND(...) JAXCC_PP_EXPAND3(JAXCC_PP_EXPAND3(JAXCC_PP_EXPAND3(JAXCC_PP_EXPAND3(__VA_ARGS__))))
#define JAXCC_PP_EXPAND3(...) JAXCC_PP_EXPAND2(JAXCC_PP_EXPAND2(JAXCC_PP_EXPAND2(JAXCC_PP_EXPAND2(__VA_ARGS__))))
#define JAXCC_PP_EXPAND2(...) JAXCC_PP_EXPAND1(JAXCC_PP_EXPAND1(JAXCC_PP_EXPAND1(JAXCC_PP_EXPAND1(__VA_ARGS__))))
#define JAXCC_PP_EXPAND1(...) __VA_ARGS__
// JAXCC_PP_FOR_EACH(m, data, a, b, c) expands to m(data, a) m(data, b) m(data, c)
// (up to 64 arguments).
#define JAXCC_PP_FOR_EACH(macro, data, ...) \
  __VA_OPT__(JAXCC_PP_EXPAND(JAXCC_PP_FOR_EACH_STEP(macro, data, __VA_ARGS__)))
#define JAXCC_PP_FOR_EACH_STEP(macro, data, first, ...) \
  macro(data, first) __VA_OPT__(JAXCC_PP_FOR_EACH_AGAIN JAXCC_PP_PARENS(macro, data, __VA_ARGS__))
#define JAXCC_PP_FOR_EACH_AGAIN() JAXCC_PP_FOR_EACH_STEP
#define JAXCC_PYTREE_MEMBER_POINTER(Type, member) , &Type::member

/// Register a struct as a pytree node whose children are the listed members,
/// in that order (JAX's register_dataclass). Write it at namespace scope in
/// the struct's own namespace, after the struct:
///
///     struct Params { jaxcc::Array<float> w, b; };
///     JAXCC_PYTREE(Params, w, b);
///
/// Key paths name the members (`.w`); treedefs print the node as
/// `CustomNode(Params[()], [*, *])`. Rebuilt structs (tree::map, unflatten)
/// are default-constructed, then the listed members assigned. The trailing
/// semicolon is optional (the macro ends in a declaration of its own).
#define JAXCC_PYTREE(Type, ...)                                                                          \
  [[maybe_unused]] constexpr auto jaxcc_pytree_fields(::jaxcc::detail::pytree_tag<Type>) noexcept {      \
    return ::jaxcc::detail::make_pytree_fields<Type>(                                                    \
        #Type, #__VA_ARGS__ JAXCC_PP_FOR_EACH(JAXCC_PYTREE_MEMBER_POINTER, Type, __VA_ARGS__));           \
  }                                                                                                      \
  static_assert(::jaxcc::detail::PytreeStruct<Type>,                                                     \
                "JAXCC_PYTREE must be written at namespace scope, in the namespace of the struct");
