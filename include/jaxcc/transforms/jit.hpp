// jaxcc::jit(f): trace once per signature, optimize, cache a plan, replay.
//
// The cache key is the C++ types of the arguments, the pytree structure of
// the traced ones, the dtype and shape of each Array leaf, the value of each
// arithmetic scalar leaf (baked into the program as a constant, since C++
// scalars are not traced), and the values of the static arguments
// (`jaxcc::static_argnums<...>`). A hit runs the cached plan without calling
// f; a miss traces f into a closed program, applies CSE and DCE
// (graph/optimize.hpp) and caches the call. Values f reads from outside its
// arguments are baked in, as in JAX. The call is one `jit` equation
// (transforms/closed_call.hpp), so jit composes with every transform.
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jaxcc/graph/optimize.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/kernels/scratch_vector.hpp"
#include "jaxcc/lax/control_flow_common.hpp"
#include "jaxcc/sharding/eager.hpp"
#include "jaxcc/sharding/named_sharding.hpp"
#include "jaxcc/sharding/partition.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/transforms/closed_call.hpp"
#include "jaxcc/transforms/options.hpp"
#include "jaxcc/tree/flatten.hpp"
#include "jaxcc/tree/paths.hpp"
#include "jaxcc/tree/reduce.hpp"

namespace jaxcc {

namespace detail {
/// A set of positional-argument indices.
template <std::size_t... I>
struct ArgumentSet {
  static constexpr bool contains(std::size_t i) { return ((i == I) || ...); }
  /// One past the largest index (0 for none).
  static constexpr std::size_t end() { return std::max({std::size_t{0}, (I + 1)...}); }
};
}  // namespace detail

/// Which positional arguments jit treats as compile-time constants: their
/// values join the cache key and f sees them as they are (not traced).
template <std::size_t... I>
struct static_argnums_t : detail::ArgumentSet<I...> {};
template <std::size_t... I>
inline constexpr static_argnums_t<I...> static_argnums{};

/// Which positional arguments' buffers jit may reuse for outputs (JAX's
/// donate_argnums): after the call, a donated argument's values are
/// unspecified, as a donated JAX array is deleted. An array leaf is reused
/// when an output of its dtype and shape is computed elementwise after its
/// last read; otherwise donation has no effect.
template <std::size_t... I>
struct donate_argnums_t : detail::ArgumentSet<I...> {};
template <std::size_t... I>
inline constexpr donate_argnums_t<I...> donate_argnums{};

/// jit's out_shardings: every output laid out as `sharding`.
struct out_shardings_t {
  NamedSharding sharding;
};
inline out_shardings_t out_shardings(NamedSharding sharding) { return {std::move(sharding)}; }

namespace config {
/// Log why jit traces again (jax_explain_cache_misses) to std::cerr.
/// Initially on when the environment sets JAXCC_EXPLAIN_CACHE_MISSES=1.
inline std::atomic<bool>& explain_cache_misses() {
  static std::atomic<bool> on{[] {
    char const* env = std::getenv("JAXCC_EXPLAIN_CACHE_MISSES");
    return env && std::string_view(env) == "1";
  }()};
  return on;
}
}  // namespace config

/// A value jit can take as a static argument: hashed and compared to find
/// its cache entry, as JAX requires of static_argnums.
template <class T>
concept StaticArgument = std::equality_comparable<T> && requires(T const& t) {
  { std::hash<T>{}(t) } -> std::convertible_to<std::size_t>;
};

namespace detail {

template <class T>
struct is_static_argnums : std::false_type {};
template <std::size_t... I>
struct is_static_argnums<static_argnums_t<I...>> : std::true_type {};
template <class T>
struct is_donate_argnums : std::false_type {};
template <std::size_t... I>
struct is_donate_argnums<donate_argnums_t<I...>> : std::true_type {};

template <class Option>
concept JitOption = is_static_argnums<Option>::value || is_donate_argnums<Option>::value ||
                    std::same_as<Option, out_shardings_t>;

/// A static argument's value, erased.
class StaticValue {
 public:
  virtual ~StaticValue() = default;
  virtual bool equals(StaticValue const& other) const = 0;
  virtual std::size_t hash() const = 0;
};
template <StaticArgument T>
class StaticValueOf final : public StaticValue {
 public:
  explicit StaticValueOf(T value) : value_(std::move(value)) {}
  bool equals(StaticValue const& other) const override {
    auto const* o = dynamic_cast<StaticValueOf const*>(&other);
    return o && static_cast<bool>(o->value_ == value_);
  }
  std::size_t hash() const override { return std::hash<T>{}(value_); }

 private:
  T value_;
};

/// One leaf of a traced argument in the key: an Array's dtype, shape and
/// layout over devices, or a scalar's dtype and bits.
struct LeafKey {
  DType dtype;
  Shape shape;
  bool is_array;
  std::array<std::uint64_t, 2> bits;  // a complex128 scalar takes both words
  std::shared_ptr<NamedSharding const> sharding{};
  friend bool operator==(LeafKey const& a, LeafKey const& b) {
    return a.dtype == b.dtype && a.shape == b.shape && a.is_array == b.is_array && a.bits == b.bits &&
           (a.sharding == b.sharding || (a.sharding && b.sharding && *a.sharding == *b.sharding));
  }
};

/// Its vectors are filled anew on every call into one kept per thread
/// (scratch_key()), so that a call whose key is in the cache allocates none.
struct JitKey {
  std::type_index signature = typeid(void);
  /// The traced arguments' structures, one after another, as PyTreeDef
  /// nodes; `structure_ends[i]` is one past argument i's last node.
  std::vector<tree::PyTreeDef::Node> nodes;
  std::vector<std::size_t> structure_ends;
  std::vector<LeafKey> leaves;
  std::vector<std::shared_ptr<StaticValue const>> statics;
  std::size_t hash = 0;

  std::size_t num_structures() const noexcept { return structure_ends.size(); }
  std::span<tree::PyTreeDef::Node const> structure_nodes(std::size_t i) const {
    auto const begin = i ? structure_ends[i - 1] : 0;
    return {nodes.data() + begin, structure_ends[i] - begin};
  }
  tree::PyTreeDef structure(std::size_t i) const {
    auto const n = structure_nodes(i);
    return tree::PyTreeDef(std::vector<tree::PyTreeDef::Node>(n.begin(), n.end()));
  }
  void clear() {
    nodes.clear();
    structure_ends.clear();
    leaves.clear();
    statics.clear();
  }

  friend bool operator==(JitKey const& a, JitKey const& b) {
    if (a.hash != b.hash || a.signature != b.signature || a.structure_ends != b.structure_ends || a.nodes != b.nodes ||
        a.leaves != b.leaves || a.statics.size() != b.statics.size())
      return false;
    for (std::size_t i = 0; i < a.statics.size(); ++i)
      if (!a.statics[i]->equals(*b.statics[i])) return false;
    return true;
  }
};
struct JitKeyHash {
  std::size_t operator()(JitKey const& k) const noexcept { return k.hash; }
};
/// This thread's key under construction (see JitKey).
inline JitKey& scratch_key() {
  thread_local JitKey key;
  return key;
}

template <class...>
inline constexpr bool always_false = false;

/// Append the key of each leaf of one traced argument.
template <class Arg>
void append_leaf_keys(Arg const& arg, std::vector<LeafKey>& out) {
  tree::for_each_leaf(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) {
          out.push_back({leaf.dtype(), leaf.shape(), true, {}, ArrayAccess::impl(leaf).sharding});
        } else if constexpr (Scalar<L>) {
          std::array<std::uint64_t, 2> bits{};
          std::memcpy(bits.data(), &leaf, sizeof leaf);
          out.push_back({dtype_of<scalar_element_t<L>>, {}, false, bits});
        } else {
          static_assert(always_false<L>,
                        "jaxcc::jit: the leaves of a traced argument must be Arrays or arithmetic scalars; pass other "
                        "values as static arguments (jaxcc::static_argnums)");
        }
      },
      arg);
}

/// How the key `now` differs from `before` (of the same signature), as
/// JAX's diff_tracing_cache_keys words it: {rank, explanation}, where the
/// closest key has the lowest rank (fewest kinds of difference, then the
/// first kind in JAX's order: pytree, static arguments, types). `where[i]`
/// names leaf i (`args[0]`, `args[1]['w']`); `traced_names` and
/// `static_names` the traced and the static arguments.
template <class = void>
std::pair<int, std::string> key_difference(JitKey const& now, JitKey const& before,
                                           std::vector<std::string> const& where,
                                           std::vector<std::string> const& traced_names,
                                           std::vector<std::string> const& static_names) {
  struct Kind {
    char const* title;
    std::string lines;
    int count = 0;
    void add(std::string line) {
      lines += "\n  * " + line;
      ++count;
    }
  };
  Kind kinds[] = {{"different input pytree:", {}}, {"different static arguments:", {}}, {"different input types:", {}}};
  bool const same_structures = std::ranges::equal(now.structure_ends, before.structure_ends) && now.nodes == before.nodes;
  for (std::size_t i = 0; i < now.num_structures(); ++i)
    if (!std::ranges::equal(now.structure_nodes(i), before.structure_nodes(i)))
      kinds[0].add("at input path " + traced_names[i] + ", now " + now.structure(i).to_string() + " and before " +
                   before.structure(i).to_string());
  for (std::size_t i = 0; i < now.statics.size(); ++i)
    if (!now.statics[i]->equals(*before.statics[i])) kinds[1].add("at " + static_names[i] + ", a value not equal to the one before");
  auto const describe = [](LeafKey const& k) {
    if (!k.is_array) return std::string("a scalar constant of another value");
    return aval_string({k.dtype, k.shape}) + (k.sharding ? " laid out as " + to_string(*k.sharding) : std::string());
  };
  if (same_structures)  // else leaves do not line up
    for (std::size_t i = 0; i < now.leaves.size(); ++i)
      if (!(now.leaves[i] == before.leaves[i]))
        kinds[2].add("at " + where[i] + ", now " + describe(now.leaves[i]) + " and before " + describe(before.leaves[i]));
  int rank = 0;
  std::string explanation;
  for (int k = 2; k >= 0; --k)
    if (kinds[k].count) {
      rank += 1000000;
      explanation = kinds[k].title + kinds[k].lines;
      rank = rank / 1000000 * 1000000 + k * 1000 + std::min(kinds[k].count, 999);
    }
  return {rank, explanation};
}

/// What a cache entry holds: the call, and the structure of f's output.
/// (A jit call, or for arrays laid out on a mesh a partitioned shard_map.)
struct JitEntryBase {
  explicit JitEntryBase(std::shared_ptr<graph::PrimitiveBase const> c) : call(std::move(c)) {}
  virtual ~JitEntryBase() = default;
  std::shared_ptr<graph::PrimitiveBase const> call;
};
template <class Out>
struct JitEntry final : JitEntryBase {
  JitEntry(std::shared_ptr<graph::PrimitiveBase const> c, Out o) : JitEntryBase(std::move(c)), out(std::move(o)) {}
  Out out;
};

/// The cache of one jitted function, shared by its copies and safe to use
/// from several threads: lookups share the lock, a miss traces outside it.
class JitCache {
 public:
  std::shared_ptr<JitEntryBase const> find(JitKey const& key) const {
    std::shared_lock lock(mutex_);
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : it->second;
  }
  /// The entry for `key`: `entry`, or the one another thread put first.
  std::shared_ptr<JitEntryBase const> insert(JitKey key, std::shared_ptr<JitEntryBase const> entry) {
    std::unique_lock lock(mutex_);
    return entries_.try_emplace(std::move(key), std::move(entry)).first->second;
  }
  std::size_t size() const {
    std::shared_lock lock(mutex_);
    return entries_.size();
  }
  /// The explanation JAX's explain_tracing_cache_miss would log for `key`
  /// (key_difference's names: `where`, `traced_names`, `static_names`).
  template <class = void>
  std::string explain_miss(JitKey const& key, std::vector<std::string> const& where,
                           std::vector<std::string> const& traced_names,
                           std::vector<std::string> const& static_names) const;

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<JitKey, std::shared_ptr<JitEntryBase const>, JitKeyHash> entries_;
};

template <class Void>
std::string JitCache::explain_miss(JitKey const& key, std::vector<std::string> const& where,
                                   std::vector<std::string> const& traced_names,
                                   std::vector<std::string> const& static_names) const {
  std::shared_lock lock(mutex_);
  std::string msg = "TRACING CACHE MISS:\n";
  std::pair<int, std::string> closest{-1, {}};
  for (auto const& [seen, entry] : entries_) {
    if (seen.signature != key.signature) continue;
    auto diff = key_difference<Void>(key, seen, where, traced_names, static_names);
    if (closest.first < 0 || diff.first < closest.first) closest = std::move(diff);
  }
  if (closest.first < 0) {
    msg += entries_.empty() ? "  never seen function" : "  never seen these argument types";
    return msg;
  }
  msg += "  all previously seen cache keys differ. For the closest previous key:\n  " + closest.second;
  return msg;
}

// What a jitted call does apart from calling f and rebuilding its output
// depends on the arguments' types at most, not on f: written here once, so
// that jitted functions of one signature share it. What depends on no type
// at all (compile_jit_call, JitCache::explain_miss) the runtime holds.

/// The key of a call with these arguments, built into `key`.
template <class Statics, class... Args>
void jit_key_of(JitKey& key, Args const&... args) {
  key.clear();
  key.signature = typeid(std::tuple<Args...>);
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          if constexpr (Statics::contains(I)) {
            using Arg = std::tuple_element_t<I, std::tuple<Args...>>;
            static_assert(StaticArgument<Arg>,
                          "Non-hashable static arguments are not supported, as this can lead to unexpected "
                          "cache-misses: a static argument of jaxcc::jit needs std::hash and operator==");
            key.statics.push_back(std::allocate_shared<StaticValueOf<Arg> const>(
                BlockAllocator<StaticValueOf<Arg> const>{}, std::get<I>(std::tie(args...))));
          } else {
            append_structure(std::get<I>(std::tie(args...)), key.nodes);
            key.structure_ends.push_back(key.nodes.size());
            append_leaf_keys(std::get<I>(std::tie(args...)), key.leaves);
          }
        }(),
        ...);
  }(std::index_sequence_for<Args...>{});
  std::size_t h = hash_combine(key.signature.hash_code(), tree::PyTreeDef::hash(key.nodes));
  for (auto e : key.structure_ends) h = hash_combine(h, e);
  for (auto const& l : key.leaves) {
    h = hash_combine(h, static_cast<std::size_t>(l.dtype));
    for (auto d : l.shape) h = hash_combine(h, static_cast<std::size_t>(d));
    for (auto word : l.bits) h = hash_combine(h, static_cast<std::size_t>(word));
  }
  for (auto const& s : key.statics) h = hash_combine(h, s->hash());
  key.hash = h;
}

/// The cache-miss log for `key` (slow path: names every leaf).
template <class Statics, class... Args>
std::string explain_jit_miss(JitCache const& cache, JitKey const& key, Args const&... args) {
  std::vector<std::string> where, traced_names, static_names;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          std::string const name = "args[" + std::to_string(I) + "]";
          if constexpr (Statics::contains(I)) {
            static_names.push_back(name);
          } else {
            traced_names.push_back(name);
            for (auto const& [path, leaf] : tree::flatten_with_path(std::get<I>(std::tie(args...))).first)
              where.push_back(name + tree::keystr(path));
          }
        }(),
        ...);
  }(std::index_sequence_for<Args...>{});
  return cache.explain_miss(key, where, traced_names, static_names);
}

/// For each array leaf of the arguments, in order: whether it is donated.
template <class Donated, class... Args>
std::vector<std::uint8_t> donated_leaves(Args const&... args) {
  std::vector<std::uint8_t> out;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (out.insert(out.end(), array_leaves(args).size(), Donated::contains(I) ? 1 : 0), ...);
  }(std::index_sequence_for<Args...>{});
  return out;
}

/// The call for a key not in the cache: f (as a function of its
/// arguments' leaves) traced on `operands`' avals, optimized, and made one
/// `jit` equation, or for operands laid out on a mesh (or sharded outputs)
/// the partitioner's call. Values f read from enclosing traces are
/// appended to `closure`.
template <class Void = void>
std::shared_ptr<graph::PrimitiveBase const> compile_jit_call(graph::FlatFunction const& flat,
                                                             std::vector<AnyArray> const& operands,
                                                             std::optional<NamedSharding> const& out_sharding,
                                                             std::vector<std::uint8_t> donated,
                                                             std::vector<AnyArray>& closure) {
  std::vector<graph::Aval> avals;
  for (auto const& a : operands) avals.push_back(graph::aval_of(a));
  // (Each call names Void, so that none of what it reaches is instantiated
  // in a file that never calls jit.)
  auto program = graph::trace_program<Void>(flat, avals, closure);
  graph::optimize<Void>(program);
  if (auto const mesh = mesh_of<Void>(operands, out_sharding)) {
    auto inputs = operands;  // values of enclosing traces are whole on every device
    inputs.insert(inputs.end(), closure.begin(), closure.end());
    auto const partition = partitioned_call_hook().load(std::memory_order_acquire);
    if (!partition) throw Error("internal error: an array is on a mesh but the partitioner was not installed");
    return partition(program, *mesh, inputs, out_sharding);
  }
  return std::make_shared<ClosedCallT<Void> const>("jit", std::move(program), std::move(donated));
}

}  // namespace detail

/// The result of jaxcc::jit: call it like f; `cache_size()` counts the
/// signatures traced so far. Copies share one cache.
template <class F, class Statics = static_argnums_t<>, class Donated = donate_argnums_t<>>
class Jitted {
 public:
  explicit Jitted(F f, std::optional<NamedSharding> out_sharding = std::nullopt)
      : f_(std::move(f)), out_sharding_(std::move(out_sharding)), cache_(std::make_shared<detail::JitCache>()) {}

  template <class... Args>
  auto operator()(Args const&... args) const {
    if constexpr ((std::is_array_v<Args> || ...))
      static_assert(detail::always_false<Args...>,
                    "jaxcc::jit: a C array (a string literal) cannot be an argument; pass a std::string as a static "
                    "argument (jaxcc::static_argnums) or the values as an Array");
    else if constexpr ((detail::holds_expression<Args> || ...)) return call(detail::as_argument(args)...);
    else return call(args...);
  }

  /// The number of signatures traced and cached.
  std::size_t cache_size() const { return cache_->size(); }

 private:
  template <class... Args>
  auto call(Args const&... args) const {
    static_assert(Statics::end() <= sizeof...(Args),
                  "Jitted function has static_argnums beyond its positional arguments");
    static_assert(Donated::end() <= sizeof...(Args),
                  "Jitted function has donate_argnums beyond its positional arguments");
    using Flat = detail::FlatCall<F, Args...>;
    using Entry = detail::JitEntry<typename Flat::Out>;
    auto& scratch = detail::scratch_key();
    detail::jit_key_of<Statics>(scratch, args...);
    if (auto const entry = cache_->find(scratch)) {
      // The steady state: every vector here keeps its capacity from call to call.
      detail::ScratchVector<AnyArray> operands, results;
      (detail::append_array_leaves(args, *operands), ...);
      auto const& typed = static_cast<Entry const&>(*entry);
      typed.call->evaluate_into(*operands, *results);
      return unflatten(typed, *results);
    }
    // A miss: trace f, optimize, cache the call.
    auto key = std::move(scratch);  // f may call jitted functions, which use the scratch key
    Flat flat(f_, std::tuple<Args...>{args...});
    auto operands = flat.argument_leaves();
    if (config::explain_cache_misses().load()) std::cerr << detail::explain_jit_miss<Statics>(*cache_, key, args...) << '\n';
    std::vector<AnyArray> closure;
    auto made = std::make_shared<Entry const>(
        detail::compile_jit_call(flat, operands, out_sharding_, detail::donated_leaves<Donated>(args...), closure),
        flat.output());
    if (!closure.empty()) {
      // f read values traced by an enclosing transform: this program
      // belongs to that trace alone, so it is used once and not cached.
      operands.insert(operands.end(), closure.begin(), closure.end());
      return unflatten(*made, made->call->evaluate(operands));
    }
    auto const entry = cache_->insert(std::move(key), std::move(made));
    auto const& typed = static_cast<Entry const&>(*entry);
    return unflatten(typed, typed.call->evaluate(operands));
  }

  template <class Entry>
  static auto unflatten(Entry const& entry, std::vector<AnyArray> const& leaves) {
    std::size_t next = 0;
    return detail::with_array_leaves(entry.out, leaves, next);
  }

  F f_;
  std::optional<NamedSharding> out_sharding_;
  std::shared_ptr<detail::JitCache> cache_;
};

/// `f` traced once per signature into an optimized, cached plan
/// (jax.jit). Options, in any order: `jaxcc::static_argnums<...>`,
/// `jaxcc::donate_argnums<...>`, `jaxcc::out_shardings(sharding)`. Given
/// arrays laid out on a mesh (device_put), or out_shardings, the plan is
/// partitioned: each device computes its part (sharding/partition.hpp).
template <class F, detail::JitOption... Options>
  requires((detail::is_static_argnums<Options>::value + ... + 0) <= 1 &&
           (detail::is_donate_argnums<Options>::value + ... + 0) <= 1 &&
           (std::same_as<Options, out_shardings_t> + ... + 0) <= 1)
auto jit(F f, Options const&... options) {
  using Statics = typename detail::find_option<detail::is_static_argnums, static_argnums_t<>, Options...>::type;
  using Donated = typename detail::find_option<detail::is_donate_argnums, donate_argnums_t<>, Options...>::type;
  std::optional<NamedSharding> out;
  ([&] {
    if constexpr (std::same_as<Options, out_shardings_t>) {
      out = options.sharding;
      detail::install_mesh_operations();  // the plan is partitioned, its outputs sharded (sharding/eager.hpp)
    }
  }(), ...);
  return Jitted<F, Statics, Donated>(std::move(f), std::move(out));
}

}  // namespace jaxcc
