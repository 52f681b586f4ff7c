// PRNG keys: JAX's typed key arrays (jax.random.key), and raw legacy keys
// (jax.random.PRNGKey: a uint32 array whose last dimension is 2). A typed key
// array of shape S holds key data of shape (*S, 2); every function of
// jaxcc::random takes either kind and returns keys of the kind it was given.
//
// A key array is a pytree node with one child, its key data, so transforms
// see keys as uint32 arrays whose leading dimensions are the key array's:
// vmap's in_axes and out_axes count those dimensions from the front (a
// negative axis counts from the end of the key data, not of the key array).
#pragma once

#include <concepts>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/print.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/primitives/random_bits.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/tree/registry.hpp"

namespace jaxcc::random {

/// The dtype of typed keys (jax.random.key_dtype): `key<fry>`, whose
/// implementation is threefry2x32, the one jaxcc has.
struct KeyDType {
  /// The implementation's name, as jax.random.key_impl gives it.
  std::string impl() const { return "threefry2x32"; }
  /// As JAX prints the dtype: `key<fry>`.
  std::string name() const { return "key<fry>"; }
  friend bool operator==(KeyDType, KeyDType) = default;
  friend std::ostream& operator<<(std::ostream& os, KeyDType const& d) { return os << d.name(); }
};

/// A typed key array (dtype `key<fry>`): keys of shape `shape()`, each two
/// uint32 words of threefry2x32 key data.
class KeyArray {
 public:
  /// Wraps key data of shape (..., 2), as jax.random.wrap_key_data.
  explicit KeyArray(Array<std::uint32_t> data) : data_(std::move(data)) {
    (void)detail::key_batch_shape("wrap_key_data", data_.shape());
  }

  /// The key array's shape: the key data's without its last dimension.
  Shape shape() const { return Shape(data_.shape().begin(), data_.shape().end() - 1); }
  std::int64_t ndim() const { return data_.ndim() - 1; }
  std::int64_t size() const { return shape().numel(); }
  /// Its dtype, `key<fry>` (`key.dtype`).
  KeyDType dtype() const { return {}; }
  /// The key data, shape (*shape(), 2): jax.random.key_data.
  Array<std::uint32_t> const& data() const { return data_; }

  /// The keys at index i of the first dimension (negative: from the end).
  KeyArray operator[](std::int64_t i) const {
    if (ndim() == 0) throw Error("Too many indices: a key array of shape () cannot be indexed");
    auto const n = data_.shape()[0];
    if (i < -n || i >= n) {
      std::ostringstream os;
      os << "index " << i << " is out of bounds for axis 0 with size " << n;
      throw Error(os.str());
    }
    if (i < 0) i += n;
    Axes start(static_cast<std::size_t>(data_.ndim()), 0);
    Axes limit(data_.shape().begin(), data_.shape().end());
    start[0] = i;
    limit[0] = i + 1;
    Shape rest(data_.shape().begin() + 1, data_.shape().end());
    return KeyArray(lax::reshape(lax::slice(data_, start, limit), rest));
  }

  /// As JAX prints a key array: `Array((3,), dtype=key<fry>) overlaying:`
  /// and the key data as numpy's str prints it.
  friend std::ostream& operator<<(std::ostream& os, KeyArray const& keys) {
    auto const data = detail::contiguous(keys.data_);
    os << "Array(" << keys.shape() << ", dtype=key<fry>) overlaying:\n"
       << detail::ArrayPrinter<std::uint32_t>(data, "", " ", 0).print();
    return os;
  }

 private:
  Array<std::uint32_t> data_;
};

/// A key argument: a typed key array, or raw key data (legacy PRNGKey keys).
template <class K>
concept Key = std::same_as<std::remove_cvref_t<K>, KeyArray> || std::same_as<std::remove_cvref_t<K>, Array<std::uint32_t>>;

namespace detail {

inline Array<std::uint32_t> const& key_bits(KeyArray const& keys) { return keys.data(); }
inline Array<std::uint32_t> const& key_bits(Array<std::uint32_t> const& raw) { return raw; }

/// JAX's check that a sampler, split or fold_in was given one key.
template <Key K>
Array<std::uint32_t> const& single_key(std::string_view op, K const& key) {
  auto const& bits = key_bits(key);
  if (bits.ndim() == 0) (void)jaxcc::detail::key_batch_shape(op, bits.shape());  // raw key data of shape (): not key data
  if (bits.ndim() != 1) {
    std::ostringstream os;
    os << op << " accepts a single key, but was given a key array of shape "
       << Shape(bits.shape().begin(), bits.shape().end() - 1) << " != (). Use jax.vmap for batching.";
    throw Error(os.str());
  }
  return bits;
}

/// New key data as keys of the kind `K` that came in.
template <Key K>
auto keys_like(Array<std::uint32_t> data) {
  if constexpr (std::same_as<std::remove_cvref_t<K>, KeyArray>) return KeyArray(std::move(data));
  else return data;
}

/// threefry_seed: a 32-bit seed fills the low word; a 64-bit one both.
template <std::integral I>
Array<std::uint32_t> seed_data(I seed) {
  auto const word = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<I>>(seed));
  auto const hi = sizeof(I) > 4 ? static_cast<std::uint32_t>(word >> 32) : 0u;
  return numpy::array<std::uint32_t>({hi, static_cast<std::uint32_t>(word)});
}

}  // namespace detail

/// jax.random.key(seed): a typed key of shape ().
template <std::integral I>
KeyArray key(I seed) {
  return KeyArray(detail::seed_data(seed));
}

/// jax.random.PRNGKey(seed): raw key data, a uint32 array of shape (2,).
template <std::integral I>
Array<std::uint32_t> PRNGKey(I seed) {
  return detail::seed_data(seed);
}

/// jax.random.key_data: the uint32 words of keys, shape (..., 2).
template <Key K>
Array<std::uint32_t> key_data(K const& keys) {
  return detail::key_bits(keys);
}

/// jax.random.wrap_key_data: key data of shape (..., 2) as typed keys.
inline KeyArray wrap_key_data(Array<std::uint32_t> data) { return KeyArray(std::move(data)); }

/// split(key, shape): new keys of that shape.
template <Key K>
auto split(K const& keys, Shape const& shape) {
  return detail::keys_like<K>(jaxcc::detail::bind<primitives::random_split_p>({shape}, detail::single_key("split", keys)));
}

/// jax.random.split(key, num): `num` new keys, shape (num,).
template <Key K>
auto split(K const& keys, std::int64_t num = 2) {
  return split(keys, Shape{num});
}
/// jax.random.fold_in(key, data): a new key from a key and an integer (a
/// C++ integer, or a 0-d integer array, traced or not).
template <Key K, class D>
  requires std::integral<D> || (ArrayLike<D> && std::integral<value_type_t<D>>)
auto fold_in(K const& keys, D const& data) {
  auto const& bits = detail::single_key("fold_in", keys);
  Array<std::uint32_t> words;
  if constexpr (std::integral<D>) {
    words = numpy::array<std::uint32_t>(static_cast<std::uint32_t>(data));
  } else {
    words = fusion::cast<std::uint32_t>(data);
    if (words.ndim() != 0) {
      std::ostringstream os;
      os << "fold_in accepts a scalar, but was given an array of shape " << words.shape()
         << " != (). Use jax.vmap for batching.";
      throw Error(os.str());
    }
  }
  return detail::keys_like<K>(jaxcc::detail::bind<primitives::random_fold_in_p>({}, bits, words));
}

/// jax.random.clone: the same keys (an identity outside JAX's key-reuse
/// checking, which jaxcc does not have), of the kind given.
template <Key K>
std::remove_cvref_t<K> clone(K const& keys) {
  return keys;
}

/// jax.random.key_impl: the name of the keys' PRNG implementation, the
/// string JAX returns for its built-in ones and accepts back as `impl`.
/// jaxcc has one, "threefry2x32", for typed and raw keys of any shape.
template <Key K>
std::string key_impl(K const& /*keys*/) {
  return "threefry2x32";
}

/// jax.random.key_dtype(impl): the dtype of keys of the PRNG implementation
/// `impl` (its name; the default is the default implementation,
/// threefry2x32). jaxcc has threefry2x32 only: JAX's other implementations
/// are an error that says so, an unknown name JAX's error.
inline KeyDType key_dtype(std::string_view impl = "threefry2x32") {
  if (impl == "threefry2x32") return {};
  for (std::string_view jax_impl : {"philox2x32", "philox4x32", "rbg", "unsafe_rbg", "threefry4x32"})
    if (impl == jax_impl)
      throw Error("key_dtype: the PRNG implementation \"" + std::string(impl) +
                  "\" is not implemented in jaxcc, which has \"threefry2x32\" only");
  throw Error("unrecognized PRNG implementation \"" + std::string(impl) + "\". Did you mean one of: \"threefry2x32\"?");
}

}  // namespace jaxcc::random

template <>
struct jaxcc::tree::node_traits<jaxcc::random::KeyArray> {
  static constexpr std::string_view name = "KeyArray";
  static auto children(jaxcc::random::KeyArray const& keys) { return std::tuple{keys.data()}; }
  static jaxcc::random::KeyArray unflatten(std::tuple<jaxcc::Array<std::uint32_t>> children) {
    return jaxcc::random::KeyArray(std::move(std::get<0>(children)));
  }
};
