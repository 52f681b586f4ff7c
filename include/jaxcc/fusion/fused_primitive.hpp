// A fused region under a transform. When an expression with traced leaves
// becomes an Array, the whole region is recorded as ONE equation, whose
// operands are the region's leaves: the region as a Program of its ops
// (fusion/program_primitive.hpp), run by the region's own loops. Its
// derivatives are not compiled per region: its tangent and cotangents are
// Programs the ops' tangent rules build, run by one interpreter or recorded
// as one equation each. So a file that writes a region compiles only the
// region's loops and its program, and the ops its derivatives reach as
// loops of one op each.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/runtime_compiled.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/fusion/loop.hpp"
#include "jaxcc/fusion/program.hpp"
#include "jaxcc/fusion/program_primitive.hpp"

namespace jaxcc::fusion {

// --- leaves ----------------------------------------------------------------

template <class E>
struct leaf_tuple {
  using type = std::tuple<>;
};
template <Element T>
struct leaf_tuple<Array<T>> {
  using type = std::tuple<Array<T>>;
};
template <class Op, class... Args>
struct leaf_tuple<Expr<Op, Args...>> {
  using type = decltype(std::tuple_cat(std::declval<typename leaf_tuple<Args>::type>()...));
};
/// The region's array leaves, depth first, as a std::tuple of Arrays.
template <class E>
using leaf_tuple_t = typename leaf_tuple<E>::type;

/// The region with its K-th.. leaves replaced by `leaves` (same types; the
/// shapes may differ, and every node's shape is recomputed).
template <std::size_t K, class E, class Leaves>
E substitute(E const& e, Leaves const& leaves) {
  if constexpr (AnArray<E>) {
    return std::get<K>(leaves);
  } else if constexpr (is_expr<E>::value) {
    constexpr auto offsets = child_leaf_offsets_of<E>();
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return make_expr<typename E::op_type>(substitute<K + offsets[I]>(std::get<I>(e.args()), leaves)...);
    }(std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(e.args())>>>{});
  } else {
    return e;
  }
}

template <class E>
bool any_leaf_traced(E const& e) {
  bool traced = false;
  for_each_leaf(e, [&](auto const& leaf) { traced = traced || leaf.is_traced(); });
  return traced;
}
/// Whether a leaf is laid out on a mesh (then the region runs partitioned).
template <class E>
bool any_leaf_sharded(E const& e) {
  bool sharded = false;
  for_each_leaf(e, [&](auto const& leaf) { sharded = sharded || jaxcc::detail::ArrayAccess::impl(leaf).sharding != nullptr; });
  return sharded;
}

/// The region's array leaves, depth first, as the operands of its program.
template <class E>
std::vector<AnyArray> region_leaves(E const& e) {
  std::vector<AnyArray> leaves;
  for_each_leaf(e, [&](auto const& leaf) { leaves.emplace_back(leaf); });
  return leaves;
}

/// Whether a region is one op on arrays and scalars: then it runs the op's
/// row kernel (op_row), the one fused programs run, which the precompiled
/// runtime holds per SIMD level; a region the runtime holds (each op alone)
/// then computes at the level, and to the bit, of jit's programs, not at
/// the runtime's baseline.
template <class L>
inline constexpr bool is_operand_leaf = false;
template <class T>
inline constexpr bool is_operand_leaf<Array<T>> = true;
template <class T>
inline constexpr bool is_operand_leaf<ScalarLeaf<T>> = true;
template <class E>
inline constexpr bool is_one_op_region = false;
template <class Op, class... L>
inline constexpr bool is_one_op_region<Expr<Op, L...>> = (is_operand_leaf<L> && ...);

/// Whether the runtime's kernels run at a higher SIMD level than the file
/// that instantiates this is compiled for (a constant of that file's, hence
/// the template): then a region's loops compiled there run slower than its
/// program on the runtime's rows.
template <class E>
bool outranked_where_compiled() {
  constexpr auto level = jaxcc::detail::compile_time_simd_level();
  return jaxcc::detail::runtime_outranks(level);
}

/// A region with a traced leaf, or a leaf laid out on a mesh: recorded as
/// ONE equation whose operands are the region's leaves, a ProgramPrimitive
/// of the region's program run by the region's own loops (or run on the
/// mesh as that equation). One class for every region: what is compiled per
/// region is its loops and its program, not a primitive's rules.
template <class E>
struct Region {
  /// The output erased (the caller takes its typed view), so that declaring
  /// a Region extern (runtime/precompiled_runtime.hpp) needs no E complete.
  static AnyArray apply(E const& e);
  static void destroy(void const* region) { delete static_cast<E const*>(region); }
  static void row(void const* region, std::span<void const* const> values, std::span<std::int64_t const> steps,
                  std::span<std::uint32_t const> operands, void* out, std::int64_t count);
  static AnyArray evaluate(void const* region, std::span<AnyArray const> leaves);
};

template <class E>
JAXCC_RUNTIME_INLINE AnyArray Region<E>::apply(E const& e) {
  auto leaves = region_leaves(e);
  // The copy of e held through a plain deleter: one shared_ptr control
  // block type for every region (make_shared would compile one per E).
  auto compiled = std::make_shared<CompiledRegion const>(
      CompiledRegion{std::shared_ptr<void const>(static_cast<void const*>(new E(e)), &destroy), &row, &evaluate,
                     // a region of one op runs its op's row, the runtime's, already
                     !is_one_op_region<E> && outranked_where_compiled<E>()});
  return apply_program(std::make_shared<Program const>(program_of(e)), std::move(leaves), std::move(compiled));
}

/// Results [lo, hi) of a one-op region by its op's row kernel: each array
/// leaf as `s` reads it, each scalar as a broadcast operand (step 0).
template <class Op, class... L>
void one_op_rows(Expr<Op, L...> const& e, RowState<leaf_count<Expr<Op, L...>>> const& s, void* dst, std::int64_t lo,
                 std::int64_t hi) {
  std::array<void const*, sizeof...(L)> pointers{};
  std::array<std::int64_t, sizeof...(L)> steps{};
  std::size_t leaf = 0;
  auto const place = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
    using Leaf = std::tuple_element_t<I, std::tuple<L...>>;
    using T = typename Leaf::value_type;
    if constexpr (std::is_same_v<Leaf, Array<T>>) {
      pointers[I] = static_cast<T const*>(s.ptr[leaf]) + lo * s.stride[leaf];
      steps[I] = s.stride[leaf];
      ++leaf;
    } else {
      pointers[I] = &std::get<I>(e.args()).value;
    }
  };
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (place(std::integral_constant<std::size_t, I>{}), ...);
  }(std::index_sequence_for<L...>{});
  using R = typename Expr<Op, L...>::value_type;
  op_row<Op, typename L::value_type...>(pointers.data(), steps.data(), static_cast<R*>(dst) + lo, hi - lo);
}

template <class E>
JAXCC_RUNTIME_INLINE void Region<E>::row(void const* region, std::span<void const* const> values,
                                         std::span<std::int64_t const> steps, std::span<std::uint32_t const> operands,
                                         void* out, std::int64_t count) {
  RowState<leaf_count<E>> s;
  for (std::size_t k = 0; k < s.ptr.size(); ++k) {
    s.ptr[k] = values[operands[k]];
    s.stride[k] = steps[operands[k]];
  }
  E const& e = *static_cast<E const*>(region);
  if constexpr (is_one_op_region<E>) one_op_rows(e, s, out, 0, count);
  else evaluate_row(e, s, static_cast<typename E::value_type*>(out), count);
}

template <class E>
JAXCC_RUNTIME_INLINE AnyArray Region<E>::evaluate(void const* region, std::span<AnyArray const> leaves) {
  using Leaves = leaf_tuple_t<E>;
  auto const typed = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return Leaves{leaves[I].template as<typename std::tuple_element_t<I, Leaves>::value_type>()...};
  }(std::make_index_sequence<std::tuple_size_v<Leaves>>{});
  auto const e = substitute<0>(*static_cast<E const*>(region), typed);
  if constexpr (is_one_op_region<E>) {
    using Concrete = std::remove_cvref_t<decltype(e)>;
    constexpr std::size_t N = leaf_count<Concrete>;
    return AnyArray(run_concrete(
        e,
        [](void const* r, RowState<N> const& s, void* dst, std::int64_t lo, std::int64_t hi) {
          one_op_rows(*static_cast<Concrete const*>(r), s, dst, lo, hi);
        },
        [](void const* r, RowState<N> const& s, void* dst, std::int64_t len) {
          one_op_rows(*static_cast<Concrete const*>(r), s, dst, 0, len);
        },
        // Chunks on multiples of the widest SIMD batch: each thread's
        // scalar tail falls where a one-thread run's would, at any level.
        std::max<std::int64_t>(1, 64 / static_cast<std::int64_t>(sizeof(typename E::value_type)))));
  } else {
    return AnyArray(evaluate_concrete(e));
  }
}

}  // namespace jaxcc::fusion
