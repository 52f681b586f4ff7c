// tree::map and tree::map_with_path (jax.tree.map, jax.tree_util.
// tree_map_with_path): fn applied to the leaves of the first tree and the
// matching parts of the others, the first tree's containers rebuilt around
// the results (fused expressions become Arrays). As in JAX the first tree
// is a prefix of the others: where it has a leaf, fn receives the other
// trees' whole subtrees. Tuples and structs are walked by their types, with
// no allocation and no run-time dispatch; vectors, maps and optionals check
// their lengths, keys and engagement as they go. Mismatches raise
// jaxcc::Error worded as JAX's `pytree structure error: ...`, naming the key
// path and both trees' structures.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/tree/flatten.hpp"
#include "jaxcc/tree/paths.hpp"
#include "jaxcc/tree/prefix_error.hpp"
#include "jaxcc/tree/registry.hpp"

namespace jaxcc::detail {

/// fn's result as a leaf of the mapped tree: fused expressions materialize.
template <class R>
auto as_tree_leaf(R&& r) {
  if constexpr (ArrayLike<R> && !AnArray<R>) return as_array(r);
  else return std::decay_t<R>(std::forward<R>(r));
}

template <bool Unwrap, class R>
decltype(auto) unwrap_optional_if(R const& r) {
  if constexpr (Unwrap) return *r;
  else return r;
}

/// The index of the first true flag (there is one).
template <bool... Flags>
consteval std::size_t tree_first_index_of() {
  constexpr bool flags[] = {Flags...};
  std::size_t i = 0;
  while (!flags[i]) ++i;
  return i;
}

/// Whether nodes of types X and R can match: same kind, same tuple arity,
/// same struct or custom type (what the types alone decide).
template <class X, class R>
consteval bool nodes_may_match() {
  using AX = tree_adapter<X>;
  using AR = tree_adapter<R>;
  if constexpr (AX::category != AR::category) return false;
  else if constexpr (AX::category == TreeCategory::tuple) return AX::arity == AR::arity;
  else if constexpr (AX::category == TreeCategory::record || AX::category == TreeCategory::custom)
    return std::same_as<X, R>;
  else return true;
}

template <class T, class Fallback>
struct tree_std_array_element {
  using type = Fallback;
};
template <class T, std::size_t N, class Fallback>
struct tree_std_array_element<std::array<T, N>, Fallback> {
  using type = T;
};

template <class C>
std::vector<std::string> flat_index_keys(C const& children) {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < tree_child_count(children); ++i)
    keys.push_back(tree::to_string(tree::FlattenedIndexKey{i}));
  return keys;
}

/// The recursive walk of tree::map over a first tree and the others (Rs).
template <class Fn, class P, bool WithPath, class Roots>
struct TreeMapper {
  Fn& fn;
  tree::IsLeaf<P> const& is_leaf;
  Roots const& roots;  // every whole tree, for error messages
  std::string_view name;

  template <class X, class... Rs>
  auto operator()(KeyPathLink const* path, X const& x, Rs const&... rs) const {
    using A = tree_adapter<X>;
    if constexpr (tree_leaf_v<X, P>) {
      if constexpr (WithPath) return as_tree_leaf(std::invoke(fn, to_key_path(path), x, rs...));
      else return as_tree_leaf(std::invoke(fn, x, rs...));
    } else if constexpr (A::category == TreeCategory::optional) {
      using V = typename A::value_type;
      if constexpr (((tree_category_of<Rs> == TreeCategory::none) || ...)) {
        // Another tree is None here whatever the values: so must this one be.
        constexpr std::size_t j = tree_first_index_of<(tree_category_of<Rs> == TreeCategory::none)...>();
        if (x) fail<j>(path, prefix_error_types(name, keystr(path), tree_kind_name<V>(), "NoneType"));
        expect_none(path, std::index_sequence_for<Rs...>{}, rs...);
        return std::optional<V>();
      } else {
        // Optionals match when all are engaged (then their values match) or all empty.
        using Out = decltype(with_values(path, *x, rs...));
        if (x) return std::optional<Out>(with_values(path, *x, rs...));
        expect_none(path, std::index_sequence_for<Rs...>{}, rs...);
        return std::optional<Out>();
      }
    } else if constexpr (A::category == TreeCategory::none) {
      expect_none(path, std::index_sequence_for<Rs...>{}, rs...);
      return x;
    } else if constexpr ((is_std_optional<Rs>::value || ...)) {
      return with_values(path, x, rs...);
    } else if constexpr ((nodes_may_match<X, Rs>() && ...)) {
      check_nodes(path, std::index_sequence_for<Rs...>{}, x, rs...);
      return build(path, x, rs...);
    } else {
      check_nodes(path, std::index_sequence_for<Rs...>{}, x, rs...);
      return x;  // not reached: check_nodes threw; the type keeps the caller's code well-formed
    }
  }

 private:
  static std::string keystr(KeyPathLink const* path) { return tree::keystr(to_key_path(path)); }

  /// (*this)(path, x, rs...) with the optionals among rs replaced by their
  /// values; an empty one is a mismatch (x is not None).
  template <class X, class... Rs>
  auto with_values(KeyPathLink const* path, X const& x, Rs const&... rs) const {
    if constexpr ((is_std_optional<Rs>::value || ...)) {
      constexpr std::size_t j = tree_first_index_of<is_std_optional<Rs>::value...>();
      auto const& r = std::get<j>(std::forward_as_tuple(rs...));
      if (!r) fail<j>(path, prefix_error_types(name, keystr(path), tree_kind_name<X>(), "NoneType"));
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return with_values(path, x, unwrap_optional_if<I == j>(rs)...);
      }(std::index_sequence_for<Rs...>{});
    } else {
      return (*this)(path, x, rs...);
    }
  }

  /// Throw the message for tree number K + 2 with both trees' structures.
  template <std::size_t K>
  [[noreturn]] void fail(KeyPathLink const*, std::string message) const {
    throw Error(tree_text({message, "\nThe first tree has structure\n    ",
                             tree::structure(std::get<0>(roots), is_leaf).to_string(), "\nand tree ",
                             std::to_string(K + 2), " has structure\n    ",
                             tree::structure(std::get<K + 1>(roots)).to_string()}));
  }

  template <std::size_t... K, class... Rs>
  void expect_none([[maybe_unused]] KeyPathLink const* path, std::index_sequence<K...>, Rs const&... rs) const {
    (expect_none_one<K>(path, rs), ...);
  }
  template <std::size_t K, class R>
  void expect_none_one(KeyPathLink const* path, R const& r) const {
    if constexpr (is_std_optional<R>::value) {
      if (r)
        fail<K>(path, prefix_error_types(name, keystr(path), "NoneType", tree_kind_name<typename R::value_type>()));
    } else if constexpr (tree_category_of<R> != TreeCategory::none) {
      fail<K>(path, prefix_error_types(name, keystr(path), "NoneType", tree_kind_name<R>()));
    }
  }

  template <std::size_t... K, class X, class... Rs>
  void check_nodes([[maybe_unused]] KeyPathLink const* path, std::index_sequence<K...>, [[maybe_unused]] X const& x,
                   Rs const&... rs) const {
    (check_node<K>(path, x, rs), ...);
  }
  template <std::size_t K, class X, class R>
  void check_node(KeyPathLink const* path, X const& x, R const& r) const {
    using A = tree_adapter<X>;
    constexpr auto type = tree_kind_name<X>();
    if constexpr (A::category != tree_category_of<R> ||
                  ((A::category == TreeCategory::record || A::category == TreeCategory::custom) &&
                   !std::same_as<X, R>)) {
      fail<K>(path, prefix_error_types(name, keystr(path), type, tree_kind_name<R>()));
    } else if constexpr (A::category == TreeCategory::tuple) {
      if constexpr (A::arity != tree_adapter<R>::arity)
        fail<K>(path, prefix_error_lengths(name, keystr(path), type, A::arity, tree_adapter<R>::arity));
    } else if constexpr (A::category == TreeCategory::list) {
      if (x.size() != r.size()) fail<K>(path, prefix_error_lengths(name, keystr(path), type, x.size(), r.size()));
    } else if constexpr (A::category == TreeCategory::dict) {
      if (x.size() == r.size() &&
          std::equal(x.begin(), x.end(), r.begin(), [](auto const& a, auto const& b) { return a.first == b.first; }))
        return;
      std::vector<std::string> xk, rk;
      for (auto const& kv : x) xk.push_back(tree_key_repr(kv.first));
      for (auto const& kv : r) rk.push_back(tree_key_repr(kv.first));
      if (x.size() != r.size()) {
        auto bracket = [](std::vector<std::string> keys) {
          for (auto& k : keys) k = tree_text({"[", k, "]"});
          return keys;
        };
        fail<K>(path, prefix_error_children(name, keystr(path), type, bracket(xk), bracket(rk)));
      }
      fail<K>(path,
              prefix_error_metadata(name, keystr(path), type, tree_keys_tuple_str(xk), tree_keys_tuple_str(rk)));
    } else if constexpr (A::category == TreeCategory::custom) {
      if constexpr (A::has_aux) {
        using Aux = std::remove_cvref_t<decltype(A::traits::aux(x))>;
        TreeAuxValue<Aux> const ax(A::traits::aux(x)), ar(A::traits::aux(r));
        if (!ax.equals(ar)) fail<K>(path, prefix_error_metadata(name, keystr(path), type, ax.str(), ar.str()));
      }
      if constexpr (tree_category_of<typename A::children_type> == TreeCategory::list) {
        auto const& cx = A::traits::children(x);
        auto const& cr = A::traits::children(r);
        if (cx.size() != cr.size())
          fail<K>(path, prefix_error_children(name, keystr(path), type, flat_index_keys(cx), flat_index_keys(cr)));
      }
    }
  }

  template <class X, class... Rs>
  auto build(KeyPathLink const* path, X const& x, Rs const&... rs) const {
    using A = tree_adapter<X>;
    if constexpr (A::category == TreeCategory::dict) {
      using Out = decltype((*this)(path, x.begin()->second, rs.begin()->second...));
      std::map<std::string, Out> out;
      auto its = std::tuple{rs.begin()...};
      for (auto const& entry : x) {
        KeyPathLink const link{path, KeyEntryKind::dict, 0, entry.first};
        out.emplace_hint(out.end(), entry.first,
                         std::apply([&](auto&... it) { return (*this)(&link, entry.second, (it++)->second...); }, its));
      }
      return out;
    } else if constexpr (A::category == TreeCategory::custom) {
      auto children =
          build_sequence(path, KeyEntryKind::flat_index, A::traits::children(x), A::traits::children(rs)...);
      if constexpr (A::has_aux) return A::traits::unflatten(A::traits::aux(x), std::move(children));
      else return A::traits::unflatten(std::move(children));
    } else {
      constexpr auto kind = A::category == TreeCategory::record ? KeyEntryKind::attr : KeyEntryKind::sequence;
      return build_sequence(path, kind, x, rs...);
    }
  }

  /// The children of a tuple-like, struct or vector mapped, and the first
  /// tree's container rebuilt around them.
  template <class C, class... Rs>
  auto build_sequence(KeyPathLink const* path, KeyEntryKind kind, C const& c, Rs const&... rs) const {
    using A = tree_adapter<C>;
    if constexpr (A::category == TreeCategory::list) {
      using Out = decltype((*this)(path, std::declval<typename A::element_type const&>(),
                                   std::declval<typename tree_adapter<Rs>::element_type const&>()...));
      std::vector<Out> out;
      out.reserve(c.size());
      for (std::size_t i = 0; i < c.size(); ++i) {
        KeyPathLink const link{path, kind, i, {}};
        out.push_back((*this)(&link, c[i], rs[i]...));
      }
      return out;
    } else if constexpr (is_empty_std_array<C>) {
      using T = typename A::element_type;
      using Out = decltype((*this)(path, std::declval<T const&>(),
                                   std::declval<typename tree_std_array_element<Rs, T>::type const&>()...));
      return std::array<Out, 0>{};
    } else {
      [[maybe_unused]] auto one = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
        KeyPathLink const link{path, kind, I, A::key_name(I)};
        return (*this)(&link, A::template child<I>(c), tree_adapter<Rs>::template child<I>(rs)...);
      };
      // A braced list runs its elements in order: fn sees leaves left to right.
      auto results = [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::tuple<decltype(one(std::integral_constant<std::size_t, I>{}))...>{
            one(std::integral_constant<std::size_t, I>{})...};
      }(std::make_index_sequence<A::arity>{});
      return A::rebuild(std::move(results));
    }
  }
};

template <class... Ts>
inline constexpr bool last_is_leaf_option = false;
template <class T>
inline constexpr bool last_is_leaf_option<T> = is_leaf_option<T>::value;
template <class T, class U, class... Ts>
inline constexpr bool last_is_leaf_option<T, U, Ts...> = last_is_leaf_option<U, Ts...>;

template <bool WithPath, class Fn, class P, class Tree, class... Rest>
auto map_trees_with(Fn& fn, tree::IsLeaf<P> const& is_leaf, Tree const& tree, Rest const&... rest) {
  auto const roots = std::forward_as_tuple(tree, rest...);
  TreeMapper<Fn, P, WithPath, decltype(roots)> mapper{fn, is_leaf, roots, "tree::map tree"};
  return mapper(nullptr, tree, rest...);
}

/// tree::map of `fn(key_path, prefix_leaf, full_subtree)` with `None`
/// entries of the prefix as leaves; mismatches are named `name` (e.g.
/// "vmap in_axes") in the error, as JAX's prefix errors are.
template <class Fn, class Prefix, class Full>
auto map_prefix_with_path(std::string_view name, Fn&& fn, Prefix const& prefix, Full const& full) {
  auto const roots = std::forward_as_tuple(prefix, full);
  using NoneIsLeaf = leaf_type_predicate<none_t>;
  constexpr tree::IsLeaf<NoneIsLeaf> is_leaf{};
  TreeMapper<std::remove_reference_t<Fn>, NoneIsLeaf, true, decltype(roots)> mapper{fn, is_leaf, roots, name};
  return mapper(nullptr, prefix, full);
}

/// Splits a trailing is_leaf option off the trees.
template <bool WithPath, class Fn, class Tree, class... Rest>
auto map_trees(Fn& fn, Tree const& tree, Rest const&... rest) {
  if constexpr (last_is_leaf_option<Rest...>) {
    auto const args = std::forward_as_tuple(rest...);
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return map_trees_with<WithPath>(fn, std::get<sizeof...(Rest) - 1>(args), tree, std::get<I>(args)...);
    }(std::make_index_sequence<sizeof...(Rest) - 1>{});
  } else {
    return map_trees_with<WithPath>(fn, tree::IsLeaf<no_leaf_predicate>{}, tree, rest...);
  }
}

}  // namespace jaxcc::detail

namespace jaxcc::tree {

/// `fn(leaf, matching parts of more_trees...)` over `tree`'s leaves, rebuilt
/// in `tree`'s structure (jax.tree.map). A trailing `tree::is_leaf(pred)`
/// marks subtrees of the first tree as leaves.
template <class Fn, class Tree, class... More>
auto map(Fn&& fn, Tree const& tree, More const&... more_trees) {
  return detail::map_trees<false>(fn, tree, more_trees...);
}

/// As map, with `fn(key_path, leaf, ...)` (jax.tree_util.tree_map_with_path).
template <class Fn, class Tree, class... More>
auto map_with_path(Fn&& fn, Tree const& tree, More const&... more_trees) {
  return detail::map_trees<true>(fn, tree, more_trees...);
}

}  // namespace jaxcc::tree
