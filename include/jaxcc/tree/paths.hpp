// Key paths: where a leaf sits inside a pytree, with JAX's key entries and
// JAX's printing (jaxlib/pytree.cc: SequenceKey `[0]`, DictKey `['w']` with
// the key's Python repr, GetAttrKey `.w`, FlattenedIndexKey
// `[<flat index 0>]`; jax.tree_util.keystr joins them).
#pragma once

#include <cstddef>
#include <cstdio>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace jaxcc::tree {

/// A position in a tuple, pair, std::array or vector: `[0]`.
struct SequenceKey {
  std::size_t idx = 0;
  friend bool operator==(SequenceKey const&, SequenceKey const&) = default;
};
/// A key of a dict (std::map<std::string, T>): `['w']`.
struct DictKey {
  std::string key;
  friend bool operator==(DictKey const&, DictKey const&) = default;
};
/// A member of a struct registered with JAXCC_PYTREE: `.w`.
struct GetAttrKey {
  std::string name;
  friend bool operator==(GetAttrKey const&, GetAttrKey const&) = default;
};
/// A child of a node registered through node_traits: `[<flat index 0>]`.
struct FlattenedIndexKey {
  std::size_t key = 0;
  friend bool operator==(FlattenedIndexKey const&, FlattenedIndexKey const&) = default;
};

using KeyEntry = std::variant<SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey>;
/// The keys from the root down to a subtree; empty for the root itself.
using KeyPath = std::vector<KeyEntry>;

}  // namespace jaxcc::tree

namespace jaxcc::detail {

/// The parts joined, in one allocation. (Messages are built with this rather
/// than `"literal" + std::string(...)`, on which GCC 12 at -O3 warns a false
/// -Wrestrict.)
inline std::string tree_text(std::initializer_list<std::string_view> parts) {
  std::size_t size = 0;
  for (auto part : parts) size += part.size();
  std::string out;
  out.reserve(size);
  for (auto part : parts) out += part;
  return out;
}

/// Python's repr of a str: single quotes unless the text holds a single
/// quote and no double quote; backslash escapes for quotes, \\, \n, \r, \t
/// and other control characters.
inline std::string tree_key_repr(std::string_view s) {
  bool const double_quoted = s.find('\'') != s.npos && s.find('"') == s.npos;
  char const quote = double_quoted ? '"' : '\'';
  std::string out(1, quote);
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c == quote) {
          out += '\\';
          out += c;
        } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += quote;
  return out;
}

enum class KeyEntryKind : unsigned char { sequence, dict, attr, flat_index };

/// One step of a key path kept on the stack while a tree is walked, so that
/// walking never allocates; turned into a KeyPath only when one is needed.
struct KeyPathLink {
  KeyPathLink const* up = nullptr;
  KeyEntryKind kind = KeyEntryKind::sequence;
  std::size_t index = 0;
  std::string_view name;  // dict key or member name
};

inline tree::KeyEntry to_key_entry(KeyPathLink const& link) {
  switch (link.kind) {
    case KeyEntryKind::sequence: return tree::SequenceKey{link.index};
    case KeyEntryKind::dict: return tree::DictKey{std::string(link.name)};
    case KeyEntryKind::attr: return tree::GetAttrKey{std::string(link.name)};
    case KeyEntryKind::flat_index: return tree::FlattenedIndexKey{link.index};
  }
  return tree::SequenceKey{link.index};
}

inline tree::KeyPath to_key_path(KeyPathLink const* link) {
  std::size_t depth = 0;
  for (auto const* l = link; l; l = l->up) ++depth;
  tree::KeyPath path(depth);
  for (auto const* l = link; l; l = l->up) path[--depth] = to_key_entry(*l);
  return path;
}

}  // namespace jaxcc::detail

namespace jaxcc::tree {

/// One key as JAX's `str(key)` prints it; `simple` drops brackets, quotes
/// and dots as `keystr(..., simple=True)` does.
inline std::string to_string(KeyEntry const& key, bool simple = false) {
  struct Printer {
    bool simple;
    std::string operator()(SequenceKey const& k) const {
      return simple ? std::to_string(k.idx) : detail::tree_text({"[", std::to_string(k.idx), "]"});
    }
    std::string operator()(DictKey const& k) const {
      return simple ? k.key : detail::tree_text({"[", detail::tree_key_repr(k.key), "]"});
    }
    std::string operator()(GetAttrKey const& k) const { return simple ? k.name : detail::tree_text({".", k.name}); }
    std::string operator()(FlattenedIndexKey const& k) const {
      return simple ? std::to_string(k.key) : detail::tree_text({"[<flat index ", std::to_string(k.key), ">]"});
    }
  };
  return std::visit(Printer{simple}, key);
}

/// A key path as `jax.tree_util.keystr` prints it: `['layer1']['w']`, `[0].b`.
inline std::string keystr(KeyPath const& path, bool simple = false, std::string_view separator = "") {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i) out += separator;
    out += to_string(path[i], simple);
  }
  return out;
}

inline std::ostream& operator<<(std::ostream& os, KeyEntry const& key) { return os << to_string(key); }
inline std::ostream& operator<<(std::ostream& os, KeyPath const& path) { return os << keystr(path); }

}  // namespace jaxcc::tree
