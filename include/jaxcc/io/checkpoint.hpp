// jaxcc::io::save and load: a pytree checkpoint, one array per leaf, keyed
// by the leaf's key path with its keys joined by '/' as flax's
// traverse_util.flatten_dict(sep='/') joins a state dict's (`w1`,
// `layers/0/kernel`); an .npz file, or .safetensors by the path's extension.
// Needs zlib and nlohmann-json (the jaxcc::io CMake target).
#pragma once

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/io/file.hpp"
#include "jaxcc/io/npz.hpp"
#include "jaxcc/io/safetensors.hpp"
#include "jaxcc/tree/flatten.hpp"
#include "jaxcc/tree/paths.hpp"

namespace jaxcc::detail {

inline bool checkpoint_is_safetensors(std::filesystem::path const& path) {
  return path.extension() == ".safetensors";
}

/// A leaf's key in the file: its key path's keys, simple, joined by '/'.
inline std::string checkpoint_key(tree::KeyPath const& path) { return tree::keystr(path, true, "/"); }

/// The keys of `arrays`, for an error: at most `most`, then how many more.
inline std::string checkpoint_key_list(io::ArrayMap const& arrays, auto const& skip, std::size_t most = 8) {
  std::string out;
  std::size_t shown = 0, left = 0;
  for (auto const& [key, array] : arrays) {
    if (skip(key)) continue;
    if (shown == most) {
      ++left;
      continue;
    }
    out += (shown++ ? ", '" : "'") + key + "'";
  }
  if (left) out += " and " + std::to_string(left) + " more";
  return shown ? out : "nothing";
}

/// The stored array for the leaf `like` at `path`, checked to match it.
inline AnyArray checkpoint_leaf(IoContext const& ctx, io::ArrayMap const& arrays, tree::KeyPath const& path,
                                AnyArray const& like) {
  auto const key = checkpoint_key(path);
  auto const it = arrays.find(key);
  auto const where = tree::keystr(path);
  if (it == arrays.end())
    io_fail(ctx, "holds no array '", key, "' for the tree's leaf ", where.empty() ? "(the root)" : where,
            "; it holds ", checkpoint_key_list(arrays, [](auto const&) { return false; }));
  auto const& stored = it->second;
  if (stored.shape() != like.shape())
    io_fail(ctx, "array '", key, "' has shape ", to_string(stored.shape()), ", but the tree's leaf ", where,
            " has shape ", to_string(like.shape()));
  if (stored.dtype() != like.dtype())
    io_fail(ctx, "array '", key, "' has dtype ", name(stored.dtype()), ", but the tree's leaf ", where, " has dtype ",
            name(like.dtype()));
  return stored;
}

}  // namespace jaxcc::detail

namespace jaxcc::io {

/// Write `tree`'s leaves to `path`, each under its key path joined by '/'
/// (a struct member `w1` is "w1", `layers[0].kernel` is "layers/0/kernel",
/// a map's key "b" is "b"): a .safetensors file where the path ends so,
/// else an uncompressed .npz file.
template <class Tree>
void save(std::filesystem::path const& path, Tree const& tree) {
  detail::IoContext const ctx{"jaxcc::io::save", path};
  ArrayMap arrays;
  for (auto const& [key_path, leaf] : tree::leaves_with_path(tree)) {
    auto key = detail::checkpoint_key(key_path);
    if (!arrays.emplace(key, detail::to_tree_leaf<AnyArray>(leaf)).second)
      detail::io_fail(ctx, "two of the tree's leaves have the key '", key, "' (one is ", tree::keystr(key_path), ")");
  }
  if (detail::checkpoint_is_safetensors(path)) save_safetensors(path, arrays);
  else save_npz(path, arrays);
}

/// The tree `save` wrote to `path`, of the structure, shapes and dtypes of
/// `like` (whose values are not used). A key the file lacks, one the tree
/// has no leaf for, a shape or a dtype that differs: each an error naming
/// the key.
template <class Tree>
Tree load(std::filesystem::path const& path, Tree const& like) {
  detail::IoContext const ctx{"jaxcc::io::load", path};
  auto const arrays = detail::checkpoint_is_safetensors(path) ? load_safetensors(path) : load_npz(path);
  auto [leaves_like, treedef] = tree::flatten_with_path(like);
  using Leaf = tree::leaf_t<Tree>;
  std::vector<Leaf> leaves;
  leaves.reserve(leaves_like.size());
  for (std::size_t i = 0; i < leaves_like.size(); ++i) {
    auto const& [key_path, leaf] = leaves_like[i];
    auto const stored = detail::checkpoint_leaf(ctx, arrays, key_path, detail::to_tree_leaf<AnyArray>(leaf));
    leaves.push_back(detail::from_tree_leaf<Leaf>(stored, i, nullptr));
  }
  if (leaves.size() != arrays.size()) {
    std::vector<std::string> keys;
    for (auto const& [key_path, leaf] : leaves_like) keys.push_back(detail::checkpoint_key(key_path));
    auto const in_tree = [&](std::string const& key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
    detail::io_fail(ctx, "holds arrays the tree has no leaf for: ", detail::checkpoint_key_list(arrays, in_tree));
  }
  return tree::unflatten(treedef, leaves);
}

}  // namespace jaxcc::io
