// An elementwise computation held as data: the derivatives of fused regions.
//
// A region's own type fixes its loop, compiled where the region is written.
// Its derivatives are not compiled per region: a region becomes a Program
// (its ops as a list of nodes), the ops' tangent rules turn that into the
// Program of its tangent or of a leaf's cotangent, and one interpreter runs
// any Program tile by tile, each node through its op's row kernel, so a
// derivative is still one pass with its intermediates in a small per-thread
// buffer. Each op contributes, per signature of operand dtypes, an OpKernel:
// its row kernel and a builder that appends its tangent's nodes, made by
// applying the op's tangent rule (fusion/elementwise.hpp) to
// placeholders. Only the ops a region's derivatives can reach are compiled
// (those of its tangent rules, and theirs in turn), and only as loops.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/runtime_compiled.hpp"
#include "jaxcc/core/small_vector.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/fusion/loop.hpp"
#include "jaxcc/kernels/simd_dispatch.hpp"

namespace jaxcc::fusion {

class ProgramBuilder;

/// One elementwise op at one signature of operand dtypes, as a Program calls it.
struct OpKernel {
  /// `count` results into `out` (contiguous); operand k read at operands[k]
  /// stepping steps[k] elements.
  using Row = void (*)(void const* const* operands, std::int64_t const* steps, void* out, std::int64_t count);
  /// Appends the op's tangent to a program: the op's operand values and
  /// their tangents (Program::none: zero) in, the tangent's value (or none) out.
  using Tangent = std::uint32_t (*)(ProgramBuilder& b, std::uint32_t const* operands, std::uint32_t const* tangents);

  std::string_view name;
  std::string (*params)();  // make_jaxpr's `[...]`; null: none
  std::span<int const> print_order;
  DType result;
  std::uint8_t arity;
  Row row;
  Tangent tangent;  // null where the result has no tangent (integers, bools)
  /// The operand the op returns as is given its operands' values where
  /// known (`x * 1`; the op's forwarded_operand), or null.
  std::optional<std::size_t> (*forwarded)(std::optional<double>, std::optional<double>);
};

/// A value of a Program: an input, a constant, or an op applied to earlier values.
struct ProgramValue {
  enum class Kind : std::uint8_t { input, constant, node };
  Kind kind = Kind::node;
  DType dtype = DType::float32;
  OpKernel const* op = nullptr;          // node
  std::array<std::uint32_t, 3> args{};  // node: its operands; input: args[0] is its position among the inputs
  std::array<std::uint64_t, 2> bits{};   // constant: its value's bytes (a complex128 takes both words)
  friend bool operator==(ProgramValue const&, ProgramValue const&) = default;
};

/// Values in the order they compute; the result is one of them.
struct Program {
  static constexpr std::uint32_t none = 0xffffffffu;
  std::vector<ProgramValue> values;
  std::uint32_t input_count = 0;
  std::uint32_t result = none;
  /// Copies the result's dtype element by element: the node a program whose
  /// result is one of its inputs, read broadcast, ends in.
  OpKernel const* copy = nullptr;

  DType dtype() const { return values[result].dtype; }
  /// The value of each input, by position.
  std::vector<std::uint32_t> input_values() const {
    std::vector<std::uint32_t> out(input_count, none);
    for (std::uint32_t v = 0; v < values.size(); ++v)
      if (values[v].kind == ProgramValue::Kind::input) out[values[v].args[0]] = v;
    return out;
  }
  std::size_t node_count() const {
    std::size_t n = 0;
    for (auto const& v : values) n += v.kind == ProgramValue::Kind::node;
    return n;
  }
  friend bool operator==(Program const& a, Program const& b) {
    return a.input_count == b.input_count && a.result == b.result && a.values == b.values;
  }
};

/// Appends values to a program.
class ProgramBuilder {
 public:
  ProgramBuilder() = default;
  explicit ProgramBuilder(Program program) : p_(std::move(program)) {}

  std::uint32_t input(DType dtype) {
    ProgramValue v{ProgramValue::Kind::input, dtype};
    v.args[0] = p_.input_count++;
    return push(v);
  }
  template <Element T>
  std::uint32_t constant(T value) {
    ProgramValue v{ProgramValue::Kind::constant, dtype_of<T>};
    std::memcpy(&v.bits, &value, sizeof(T));
    return push(v);
  }
  /// A constant of `dtype` holding `value` (a value of that dtype, as a double).
  std::uint32_t constant(DType dtype, double value) {
    return jaxcc::detail::with_element_type(dtype, [&]<class T>(std::type_identity<T>) { return constant(static_cast<T>(value)); });
  }
  /// A value already made, as is (its operands renumbered by the caller).
  std::uint32_t copy_of(ProgramValue const& v) { return push(v); }
  std::uint32_t node(OpKernel const& op, std::span<std::uint32_t const> args) {
    ProgramValue v{ProgramValue::Kind::node, op.result, &op};
    std::copy(args.begin(), args.end(), v.args.begin());
    return push(v);
  }
  std::size_t size() const noexcept { return p_.values.size(); }
  DType dtype(std::uint32_t v) const { return p_.values[v].dtype; }

  /// Forward mode over the values there are now: `tangents[v]` holds the
  /// tangent of each input that has one (others none); each node's tangent
  /// comes from its op's rule. Returns the tangent of value `of`.
  std::uint32_t tangent(std::uint32_t of, std::vector<std::uint32_t> tangents) {
    auto const existing = static_cast<std::uint32_t>(p_.values.size());
    tangents.resize(existing, Program::none);
    for (std::uint32_t v = 0; v < existing; ++v) {
      auto const value = p_.values[v];  // a copy: the rule appends to the values
      if (value.kind != ProgramValue::Kind::node || !value.op->tangent) continue;
      std::array<std::uint32_t, 3> arg_tangents{Program::none, Program::none, Program::none};
      bool any = false;
      for (std::size_t k = 0; k < value.op->arity; ++k) {
        arg_tangents[k] = tangents[value.args[k]];
        any = any || arg_tangents[k] != Program::none;
      }
      if (any) tangents[v] = value.op->tangent(*this, value.args.data(), arg_tangents.data());
    }
    return tangents[of];
  }

  /// The program computing value `result`, without the values it does not
  /// need (every input stays, in its position). A result that is an input
  /// or a constant is copied by a node, so that a program always ends in one.
  Program finish(std::uint32_t result) && {
    if (p_.values[result].kind != ProgramValue::Kind::node) result = node(*p_.copy, std::array{result});
    std::vector<bool> live(p_.values.size(), false);
    live[result] = true;
    for (auto v = p_.values.size(); v-- > 0;) {
      auto const& value = p_.values[v];
      if (value.kind == ProgramValue::Kind::input) live[v] = true;
      if (!live[v] || value.kind != ProgramValue::Kind::node) continue;
      for (std::size_t k = 0; k < value.op->arity; ++k) live[value.args[k]] = true;
    }
    Program out;
    out.input_count = p_.input_count;
    out.copy = p_.copy;
    std::vector<std::uint32_t> moved(p_.values.size(), Program::none);
    for (std::size_t v = 0; v < p_.values.size(); ++v) {
      if (!live[v]) continue;
      auto value = p_.values[v];
      if (value.kind == ProgramValue::Kind::node)
        for (std::size_t k = 0; k < value.op->arity; ++k) value.args[k] = moved[value.args[k]];
      moved[v] = static_cast<std::uint32_t>(out.values.size());
      out.values.push_back(value);
    }
    out.result = moved[result];
    return out;
  }

  void set_copy(OpKernel const* copy) noexcept { p_.copy = copy; }

 private:
  std::uint32_t push(ProgramValue const& v) {
    p_.values.push_back(v);
    return static_cast<std::uint32_t>(p_.values.size() - 1);
  }
  Program p_;
};

// --- each op's kernel and tangent builder ----------------------------------------

#if defined(JAXCC_PRECOMPILED_RUNTIME)
/// The runtime's copy of op_row<Op, A...> at the chosen SIMD level, where
/// it holds one (the runtime fills it: runtime/simd_dispatch.hpp); null:
/// op_row runs its own body.
template <class Op, class... A>
inline std::atomic<OpKernel::Row> dispatched_op_row{nullptr};
#endif

template <class Op, class... A>
void op_row(void const* const* operands, std::int64_t const* steps, void* out, std::int64_t count) {
#if defined(JAXCC_PRECOMPILED_RUNTIME)
  jaxcc::detail::ensure_simd_dispatch();
  if (auto const row = dispatched_op_row<Op, A...>.load(std::memory_order_relaxed))
    return row(operands, steps, out, count);
#endif
  using E = Expr<Op, Array<A>...>;
  static E const shape_only(Shape{}, Array<A>{}...);  // evaluate_row reads only its types
  RowState<sizeof...(A)> s;
  for (std::size_t k = 0; k < sizeof...(A); ++k) {
    s.ptr[k] = operands[k];
    s.stride[k] = steps[k];
  }
  evaluate_row(shape_only, s, static_cast<typename E::value_type*>(out), count);
}

/// The arrays that stand for program values while a tangent rule builds its
/// expression: each is told apart by its identity.
class Placeholders {
 public:
  template <Element T>
  Array<T> make(std::uint32_t value) {
    auto a = jaxcc::detail::ArrayAccess::make<T>({Shape{}, {}, 0, nullptr});
    known_.push_back({&jaxcc::detail::ArrayAccess::impl(a), value});
    return a;
  }
  template <Element T>
  std::uint32_t value_of(Array<T> const& a) const {
    auto const* impl = &jaxcc::detail::ArrayAccess::impl(a);
    for (auto const& [k, v] : known_)
      if (k == impl) return v;
    throw Error("internal error: a tangent rule used an array that is not one of its operands");
  }

 private:
  struct Known {
    jaxcc::detail::ArrayImpl const* impl;
    std::uint32_t value;
  };
  jaxcc::detail::SmallVector<Known, 6> known_;
};

template <class Op, class... A>
struct OpRules;

/// The nodes of expression `x` appended to `b`, children first and left to
/// right; returns x's value. Its scalars become constants, and `leaf(a)`
/// gives the value of each array leaf a.
template <class X, class Leaf>
std::uint32_t emit(ProgramBuilder& b, Leaf&& leaf, X const& x) {
  if constexpr (AnArray<X>) {
    return leaf(x);
  } else if constexpr (is_scalar_leaf<X>::value) {
    return b.constant(x.value);
  } else {
    return [&]<class Op, class... Args>(std::type_identity<Expr<Op, Args...>>) {
      std::array<std::uint32_t, sizeof...(Args)> args{};
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((args[I] = emit(b, leaf, std::get<I>(x.args()))), ...);
      }(std::index_sequence_for<Args...>{});
      return b.node(OpRules<Op, typename Args::value_type...>::kernel, args);
    }(std::type_identity<X>{});
  }
}

template <class Op, class... A>
struct OpRules {
  using R = typename Expr<Op, Array<A>...>::value_type;

  static std::string params() { return std::string(Op::params_string()); }
  static constexpr std::span<int const> print_order() {
    if constexpr (requires { Op::print_order; }) return Op::print_order;
    else return {};
  }

  /// Op::tangent applied to placeholders for the operands and for the
  /// tangents that are not zero (integer and bool operands have none).
  template <std::size_t K, class... D>
  static std::uint32_t tangent_with(ProgramBuilder& b, Placeholders& known, std::tuple<Array<A>...> const& primals,
                                    std::uint32_t const* tangents, D const&... chosen) {
    if constexpr (K == sizeof...(A)) {
      auto const t = std::apply([&](auto const&... p) { return Op::tangent(p..., chosen...); }, primals);
      using X = std::remove_cvref_t<decltype(t)>;
      if constexpr (is_zero<X>) return Program::none;
      else return emit(b, [&](auto const& a) { return known.value_of(a); }, fusion::cast<R>(t));
    } else {
      using T = std::tuple_element_t<K, std::tuple<A...>>;
      if constexpr (!InexactElement<T>) {
        return tangent_with<K + 1>(b, known, primals, tangents, chosen..., Zero<T>{});
      } else {
        if (tangents[K] == Program::none) return tangent_with<K + 1>(b, known, primals, tangents, chosen..., Zero<T>{});
        return tangent_with<K + 1>(b, known, primals, tangents, chosen..., known.template make<T>(tangents[K]));
      }
    }
  }
  /// (Defined for every op, so that the precompiled runtime can instantiate
  /// it for each; only a float op's kernel points at it.)
  static std::uint32_t tangent([[maybe_unused]] ProgramBuilder& b, [[maybe_unused]] std::uint32_t const* operands,
                               [[maybe_unused]] std::uint32_t const* tangents);

  static constexpr OpKernel::Tangent tangent_rule() {
    if constexpr (InexactElement<R>) return &tangent;
    else return nullptr;
  }
  static constexpr auto params_rule() -> std::string (*)() {
    if constexpr (requires { Op::params_string(); }) return &params;
    else return nullptr;
  }

  static constexpr auto forwarded_rule() -> std::optional<std::size_t> (*)(std::optional<double>, std::optional<double>) {
    if constexpr (requires { Op::forwarded_operand(std::optional<double>{}, std::optional<double>{}); })
      return &Op::forwarded_operand;
    else return nullptr;
  }

  static constexpr OpKernel kernel{Op::name,   params_rule(),          print_order(), dtype_of<R>,
                                   static_cast<std::uint8_t>(sizeof...(A)), &op_row<Op, A...>, tangent_rule(),
                                   forwarded_rule()};
};

template <class Op, class... A>
JAXCC_RUNTIME_INLINE std::uint32_t OpRules<Op, A...>::tangent([[maybe_unused]] ProgramBuilder& b,
                                                              [[maybe_unused]] std::uint32_t const* operands,
                                                              [[maybe_unused]] std::uint32_t const* tangents) {
  if constexpr (InexactElement<R>) {
    Placeholders known;
    std::tuple<Array<A>...> const primals = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple<Array<A>...>{known.template make<A>(operands[I])...};
    }(std::index_sequence_for<A...>{});
    return tangent_with<0>(b, known, primals, tangents);
  } else {
    return Program::none;
  }
}

/// Region E as a Program: its leaves are the inputs, in order; its scalars
/// constants.
template <class E>
Program program_of(E const& e) {
  ProgramBuilder b;
  auto const result = emit(b, [&]<Element T>(Array<T> const&) { return b.input(dtype_of<T>); }, e);
  using R = typename E::value_type;
  b.set_copy(&OpRules<primitives::convert_p<R>, R>::kernel);
  return std::move(b).finish(result);
}

// --- running a program --------------------------------------------------------------

}  // namespace jaxcc::fusion

namespace jaxcc::detail {
/// Elements per tile: a tile's values stay in a per-thread buffer. As
/// jit's fused runs' tiles (graph/fused_run.hpp), so that a program in a run
/// takes each of the run's tiles in one piece.
inline constexpr std::int64_t program_tile = 512;

}  // namespace jaxcc::detail

namespace jaxcc::fusion {

/// `count` results of `p` into `out` (contiguous): input k read at
/// inputs[k] stepping steps[k] elements.
template <class = void>
void run_program_row(Program const& p, void const* const* inputs, std::int64_t const* steps, void* out,
                     std::int64_t count) {
  using Kind = ProgramValue::Kind;
  constexpr auto tile = jaxcc::detail::program_tile;
  auto const n_values = p.values.size();
  // Each value's row in this tile and its step: on the stack for the
  // programs regions make (jit calls this for every tile of every run).
  constexpr std::size_t on_stack = 48;
  std::array<char const*, on_stack> ptr_here;
  std::array<std::int64_t, on_stack> step_here;
  std::vector<char const*> ptr_heap;
  std::vector<std::int64_t> step_heap;
  if (n_values > on_stack) {
    ptr_heap.resize(n_values);
    step_heap.resize(n_values);
  }
  char const** const ptr = n_values > on_stack ? ptr_heap.data() : ptr_here.data();
  std::int64_t* const step = n_values > on_stack ? step_heap.data() : step_here.data();
  // A node's tile, per thread: `tile` words hold any element type.
  thread_local std::vector<std::uint64_t> scratch_of_thread;
  auto& scratch = scratch_of_thread;
  if (scratch.size() < n_values * tile) scratch.resize(n_values * tile);

  auto const out_size = static_cast<std::int64_t>(item_size(p.dtype()));
  for (std::int64_t first = 0; first < count; first += tile) {
    auto const n = std::min(tile, count - first);
    for (std::size_t v = 0; v < n_values; ++v) {
      auto const& value = p.values[v];
      if (value.kind == Kind::input) {
        auto const k = value.args[0];
        step[v] = steps[k];
        ptr[v] = static_cast<char const*>(inputs[k]) + first * steps[k] * static_cast<std::int64_t>(item_size(value.dtype));
      } else if (value.kind == Kind::constant) {
        ptr[v] = reinterpret_cast<char const*>(&value.bits);
        step[v] = 0;
      } else {
        ptr[v] = v == p.result ? static_cast<char*>(out) + first * out_size
                               : reinterpret_cast<char const*>(scratch.data() + v * static_cast<std::size_t>(tile));
        step[v] = 1;
      }
    }
    for (std::size_t v = 0; v < n_values; ++v) {
      auto const& value = p.values[v];
      if (value.kind != Kind::node) continue;
      std::array<void const*, 3> operand;
      std::array<std::int64_t, 3> operand_step;
      for (std::size_t k = 0; k < value.op->arity; ++k) {
        operand[k] = ptr[value.args[k]];
        operand_step[k] = step[value.args[k]];
      }
      value.op->row(operand.data(), operand_step.data(), const_cast<char*>(ptr[v]), n);
    }
  }
}

/// `p` on concrete inputs, as an array of `shape` (the inputs' broadcast).
/// Allocates only the result: jit's steady state runs programs.
template <class = void>
AnyArray run_program(Program const& p, std::span<AnyArray const> inputs, Shape const& shape) {
  using jaxcc::detail::SmallVector;
  auto [out, data] = jaxcc::detail::allocate_any(p.dtype(), shape);
  if (shape.numel() == 0) return out;
  // Dimensions every operand (the inputs as broadcast to `shape`, then the
  // output) walks contiguously are merged, as detail::merge_dimensions does
  // for a number of operands known at compile time; stride[d * n + k] is
  // operand k's along merged dimension d.
  auto const n_in = inputs.size(), n = n_in + 1;
  SmallVector<char const*, 8> base;
  SmallVector<std::int64_t, 8> sizes;
  SmallVector<std::int64_t, 64> full(n * shape.size());
  for (std::size_t k = 0; k < n; ++k) {
    auto const strides = k < n_in ? broadcast_strides(inputs[k].shape(), jaxcc::detail::impl_of(inputs[k]).strides, shape)
                                  : jaxcc::detail::contiguous_strides(shape);
    for (std::size_t d = 0; d < shape.size(); ++d) full[k * shape.size() + d] = strides[d];
    if (k < n_in) {
      base.push_back(static_cast<char const*>(jaxcc::detail::data_of(inputs[k])));
      sizes.push_back(static_cast<std::int64_t>(item_size(inputs[k].dtype())));
    }
  }
  Shape merged;
  SmallVector<std::int64_t, 64> stride;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !merged.empty();
    for (std::size_t k = 0; merge && k < n; ++k) merge = stride[stride.size() - n + k] == full[k * shape.size() + d] * shape[d];
    if (merge) {
      merged.back() *= shape[d];
      for (std::size_t k = 0; k < n; ++k) stride[stride.size() - n + k] = full[k * shape.size() + d];
    } else {
      merged.push_back(shape[d]);
      for (std::size_t k = 0; k < n; ++k) stride.push_back(full[k * shape.size() + d]);
    }
  }
  if (merged.empty()) {
    merged.push_back(shape.numel());
    for (std::size_t k = 0; k < n; ++k) stride.push_back(1);
  }
  auto const rank = merged.size(), last = (rank - 1) * n;
  auto const inner = merged[rank - 1];
  std::int64_t rows = 1;
  for (std::size_t d = 0; d + 1 < rank; ++d) rows *= merged[d];
  auto const out_size = static_cast<std::int64_t>(item_size(p.dtype()));
  char* const dst = static_cast<char*>(data);

  // Elements [lo, hi) of the row that starts at each operand's `offset`.
  auto const run_row = [&](SmallVector<std::int64_t, 8> const& offset, std::int64_t out_offset, std::int64_t lo,
                           std::int64_t hi) {
    SmallVector<void const*, 8> row(n_in, nullptr);
    SmallVector<std::int64_t, 8> step(n_in, 0);
    for (std::size_t k = 0; k < n_in; ++k) {
      step[k] = stride[last + k];
      row[k] = base[k] + (offset[k] + lo * step[k]) * sizes[k];
    }
    run_program_row(p, row.data(), step.data(), dst + (out_offset + lo) * out_size, hi - lo);
  };
  if (rows == 1) {  // one row: split it over threads
    SmallVector<std::int64_t, 8> const origin(n_in, 0);
    jaxcc::detail::parallel_chunks(inner, jaxcc::detail::program_tile,
                                   [&](std::int64_t lo, std::int64_t hi) { run_row(origin, 0, lo, hi); });
    return out;
  }
  jaxcc::detail::split_over_threads(rows, rows * inner, [&](std::int64_t first, std::int64_t end) {
    for (std::int64_t r = first; r < end; ++r) {
      SmallVector<std::int64_t, 8> offset(n_in, 0);
      std::int64_t out_offset = 0;
      for (std::int64_t rest = r, d = static_cast<std::int64_t>(rank) - 2; d >= 0; --d) {
        auto const ud = static_cast<std::size_t>(d);
        auto const i = rest % merged[ud];
        rest /= merged[ud];
        for (std::size_t k = 0; k < n_in; ++k) offset[k] += i * stride[ud * n + k];
        out_offset += i * stride[ud * n + n_in];
      }
      run_row(offset, out_offset, 0, inner);
    }
  });
  return out;
}

}  // namespace jaxcc::fusion
