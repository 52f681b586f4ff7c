// The messages of a structure mismatch between a prefix tree (whose leaves
// may stand for whole subtrees) and a full tree, as JAX words them in
// jax/_src/tree_util.py `_prefix_error`, which jax.tree.map raises with the
// name 'tree_map tree'. Python types print there as `<class 'tuple'>`; here
// a node's kind is spelled as its Python type name (tuple, list, dict,
// NoneType, a registered name) and a leaf by its C++ type. The metadata
// diff lists the two lines as difflib.ndiff does, without its `?` guides.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/tree/paths.hpp"

namespace jaxcc::detail {

inline std::string tree_join_words(std::vector<std::string> const& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i) out += ' ';
    out += words[i];
  }
  return out;
}

inline std::string prefix_error_types(std::string_view name, std::string_view key_path, std::string_view prefix_type,
                                      std::string_view full_type) {
  return tree_text({"pytree structure error: different types at key path\n    ", name, key_path,
                      "\nAt that key path, the prefix pytree ", name, " has a subtree of type\n    ", prefix_type,
                      "\nbut at the same key path the full pytree has a subtree of different type\n    ", full_type,
                      "."});
}

/// Tuples and lists: JAX reports their lengths rather than their keys.
inline std::string prefix_error_lengths(std::string_view name, std::string_view key_path, std::string_view type,
                                        std::size_t prefix_length, std::size_t full_length) {
  return tree_text({"pytree structure error: different lengths of ", type, " at key path\n    ", name, key_path,
                      "\nAt that key path, the prefix pytree ", name, " has a subtree of type ", type, " of length ",
                      std::to_string(prefix_length),
                      ", but the full pytree has a subtree of the same type but of length ",
                      std::to_string(full_length), "."});
}

/// Other nodes with different numbers of children; keys as `str(key)`.
inline std::string prefix_error_children(std::string_view name, std::string_view key_path, std::string_view type,
                                         std::vector<std::string> const& prefix_keys,
                                         std::vector<std::string> const& full_keys) {
  std::vector<std::string> diff;
  for (auto const& k : prefix_keys)
    if (std::find(full_keys.begin(), full_keys.end(), k) == full_keys.end()) diff.push_back(k);
  for (auto const& k : full_keys)
    if (std::find(prefix_keys.begin(), prefix_keys.end(), k) == prefix_keys.end()) diff.push_back(k);
  std::sort(diff.begin(), diff.end());
  return tree_text({"pytree structure error: different numbers of pytree children at key path\n    ", name,
                      key_path, "\nAt that key path, the prefix pytree ", name, " has a subtree of type\n    ", type,
                      "\nwith ", std::to_string(prefix_keys.size()), " child keys\n    ", tree_join_words(prefix_keys),
                      "\nbut at the same key path the full pytree has a subtree of the same type but with ",
                      std::to_string(full_keys.size()), " child keys\n    ", tree_join_words(full_keys),
                      "\nso the symmetric difference on key sets is\n    ", tree_join_words(diff)});
}

/// Same kind and number of children, different metadata (dict keys, aux).
inline std::string prefix_error_metadata(std::string_view name, std::string_view key_path, std::string_view type,
                                         std::string_view prefix_meta, std::string_view full_meta) {
  return tree_text({"pytree structure error: different pytree metadata at key path\n    ", name, key_path,
                      "\nAt that key path, the prefix pytree ", name, " has a subtree of type\n    ", type,
                      "\nwith metadata\n    ", prefix_meta,
                      "\nbut at the same key path the full pytree has a subtree of the same type but with "
                      "metadata\n    ",
                      full_meta, "\nso the diff in the metadata at these pytree nodes is\n    - ", prefix_meta,
                      "\n    + ", full_meta});
}

/// Python's str of a tuple of str keys: `('a', 'b')`, `('a',)`, `()`.
inline std::string tree_keys_tuple_str(std::vector<std::string> const& reprs) {
  std::string out = "(";
  for (std::size_t i = 0; i < reprs.size(); ++i) {
    if (i) out += ", ";
    out += reprs[i];
  }
  out += reprs.size() == 1 ? ",)" : ")";
  return out;
}

}  // namespace jaxcc::detail
