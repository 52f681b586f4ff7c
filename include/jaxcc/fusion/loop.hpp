// Lowering a fused region whose leaves are concrete to one loop. The
// expression's type is walked at compile time; each leaf reads through a row pointer and a stride that are
// set at run time, so broadcasting and strided views cost no copies. When
// every leaf and the result share one lane type and every op has a SIMD
// kernel for it, rows run as xsimd batches.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <xsimd/xsimd.hpp>

#include "jaxcc/core/strided.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/kernels/half_float_batch.hpp"

namespace jaxcc::fusion {

template <std::size_t N>
struct RowState {
  std::array<void const*, N> ptr{};       // each leaf's element at the row start
  std::array<std::int64_t, N> stride{};   // each leaf's step along the row
};

/// The lane type a region of T runs its batches in: float32 for the 16-bit
/// floats, whose ops compute on float32 batches, each result rounded to the
/// 16-bit type's precision and kept in float32 until the store.
template <class T>
struct simd_lane {
  using type = T;
};
template <class T>
  requires detail::is_half_float<T>
struct simd_lane<T> {
  using type = float;
};
template <class T>
using simd_lane_t = typename simd_lane<T>::type;

/// An operand as an op computes it: a 16-bit float widened to float32.
template <class T>
detail::compute_t<T> widened(T v) {
  return static_cast<detail::compute_t<T>>(v);
}

/// Evaluator for node E whose first leaf is leaf K.
template <std::size_t K, class E>
struct Eval;

template <std::size_t K, Element T>
struct Eval<K, Array<T>> {
  using Lane = xsimd::batch<simd_lane_t<T>>;
  template <std::size_t N>
  static T scalar(Array<T> const&, RowState<N> const& s, std::int64_t i) {
    return static_cast<T const*>(s.ptr[K])[i * s.stride[K]];
  }
  // Contiguous: every leaf has stride 1; otherwise each has stride 0 or 1.
  template <bool Contiguous, std::size_t N>
  static Lane simd(Array<T> const&, RowState<N> const& s, std::int64_t i) {
    auto const* p = static_cast<T const*>(s.ptr[K]);
    if constexpr (detail::is_half_float<T>) {
      if (!Contiguous && !s.stride[K]) return Lane(widened(p[0]));
      return jaxcc::detail::load_widened<Lane>(p + i);
    } else if constexpr (Contiguous) {
      return Lane::load_unaligned(p + i);
    } else {
      return s.stride[K] ? Lane::load_unaligned(p + i) : Lane(p[0]);
    }
  }
};

template <std::size_t K, Element T>
struct Eval<K, ScalarLeaf<T>> {
  template <std::size_t N>
  static T scalar(ScalarLeaf<T> const& e, RowState<N> const&, std::int64_t) {
    return e.value;
  }
  template <bool Contiguous, std::size_t N>
  static xsimd::batch<simd_lane_t<T>> simd(ScalarLeaf<T> const& e, RowState<N> const&, std::int64_t) {
    return xsimd::batch<simd_lane_t<T>>(static_cast<simd_lane_t<T>>(e.value));
  }
};

template <std::size_t K, class Op, class... Args>
struct Eval<K, Expr<Op, Args...>> {
  static constexpr auto offsets = child_leaf_offsets<Args...>();
  using Out = typename Expr<Op, Args...>::value_type;
  // 16-bit floats in or out: the op runs on float32 and its result is rounded
  // to the node's type, so every op rounds once, as XLA's CPU code does.
  static constexpr bool widens = detail::is_half_float<Out> || (detail::is_half_float<typename Args::value_type> || ...);

  template <std::size_t N>
  static auto scalar(Expr<Op, Args...> const& e, RowState<N> const& s, std::int64_t i) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      if constexpr (widens)
        return static_cast<Out>(Op::scalar(widened(Eval<K + offsets[I], Args>::scalar(std::get<I>(e.args()), s, i))...));
      else return Op::scalar(Eval<K + offsets[I], Args>::scalar(std::get<I>(e.args()), s, i)...);
    }(std::index_sequence_for<Args...>{});
  }
  template <bool Contiguous, std::size_t N>
  static auto simd(Expr<Op, Args...> const& e, RowState<N> const& s, std::int64_t i) {
    auto const result = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return Op::simd(Eval<K + offsets[I], Args>::template simd<Contiguous>(std::get<I>(e.args()), s, i)...);
    }(std::index_sequence_for<Args...>{});
    if constexpr (detail::is_half_float<Out>) return jaxcc::detail::rounded_to<Out>(result);
    else return result;
  }
};

/// The lane type shared by every leaf, or void when leaves differ.
template <class E>
struct lane {
  using type = typename E::value_type;
};
template <class Op, class... Args>
struct lane<Expr<Op, Args...>> {
  template <class A, class B>
  using join = std::conditional_t<std::same_as<A, B>, A, void>;
  template <class First, class... Rest>
  static auto fold() {
    if constexpr (sizeof...(Rest) == 0) return std::type_identity<First>{};
    else return std::type_identity<join<First, typename decltype(fold<Rest...>())::type>>{};
  }
  using type = typename decltype(fold<typename lane<Args>::type...>())::type;
};

template <class E, class L>
inline constexpr bool simd_ready = true;
template <class Op, class... Args, class L>
inline constexpr bool simd_ready<Expr<Op, Args...>, L> = Op::template simd_for<L> && (simd_ready<Args, L> && ...);

/// The region runs as xsimd batches when the leaves and the result share a
/// lane type, a number or a 16-bit float (not bool, nor float16 without
/// F16C), and every op has a SIMD kernel for it (for a 16-bit float: for
/// float32).
template <class E>
inline constexpr bool vectorizable = [] {
  using L = typename lane<E>::type;
  if constexpr (std::is_void_v<L> || std::same_as<L, bool> || (std::same_as<L, float16> && !detail::float16_batches))
    return false;
  else return std::same_as<L, typename E::value_type> && simd_ready<E, simd_lane_t<L>>;
}();

/// An op whose SIMD kernel is a long series (a transcendental function's),
/// as the op declares with `long_kernel = true`.
template <class Op>
concept LongKernelOp = requires { requires Op::long_kernel; };

/// Whether some op of the region has a long kernel: its dense rows then run
/// through the loop its broadcast rows do (which tests each leaf's step per
/// batch, a cost lost beside the kernel), so that the region compiles one
/// flattened loop instead of two. Regions of short kernels keep a loop of
/// their own for dense rows: there the test costs a few percent in cache.
template <class E>
inline constexpr bool has_long_kernel = false;
template <class Op, class... Args>
inline constexpr bool has_long_kernel<Expr<Op, Args...>> = LongKernelOp<Op> || (has_long_kernel<Args> || ...);

template <class E, class F>
void for_each_leaf(E const& e, F&& f) {
  if constexpr (is_expr<E>::value)
    std::apply([&](auto const&... a) { (for_each_leaf(a, f), ...); }, e.args());
  else if constexpr (AnArray<E>)
    f(e);
}

// Flattened: every kernel the loop body calls is inlined into it. Without
// that, GCC leaves xsimd's larger kernels (sin's argument reduction) out of
// line once the expression nests deeply enough, and the loop spills its
// batches around each call (measured: half the speed of the same loop
// written by hand). Only when optimizing: at -O0 it would only slow builds.
#if defined(__GNUC__) && defined(__OPTIMIZE__)
#define JAXCC_FLATTEN __attribute__((flatten))
#else
#define JAXCC_FLATTEN
#endif

/// Elements [lo, hi) of a region into `dst` as xsimd batches (the last
/// partial batch element by element); `Contiguous`: every leaf steps 1,
/// else each steps 0 or 1.
template <bool Contiguous, class E>
JAXCC_FLATTEN void simd_rows(E const& e, RowState<leaf_count<E>> const& state, typename E::value_type* dst,
                             std::int64_t lo, std::int64_t hi) {
  // A local copy, which no store through dst can alias: the leaves'
  // pointers and steps stay in registers, not reloaded after each store
  // (jit's rows of cheap ops ran at 2.0-3.0x a hand-written loop's time,
  // now 1.5-1.6x: bench/README.md).
  RowState<leaf_count<E>> const s = state;
  using T = typename E::value_type;
  constexpr std::int64_t width = xsimd::batch<simd_lane_t<T>>::size;
  std::int64_t i = lo;
  for (; i + width <= hi; i += width) {
    auto const batch = Eval<0, E>::template simd<Contiguous>(e, s, i);
    if constexpr (detail::is_half_float<T>) {
      jaxcc::detail::store_narrowed(dst + i, batch);
    } else {
      batch.store_unaligned(dst + i);
    }
  }
  for (; i < hi; ++i) dst[i] = Eval<0, E>::scalar(e, s, i);
}

template <class E>
void scalar_rows(E const& e, RowState<leaf_count<E>> const& state, typename E::value_type* dst, std::int64_t lo,
                 std::int64_t hi) {
  RowState<leaf_count<E>> const s = state;  // as in simd_rows: out of dst's reach
  for (std::int64_t i = lo; i < hi; ++i) dst[i] = Eval<0, E>::scalar(e, s, i);
}

/// `len` results of a region into `dst`, leaf k read at s.ptr[k] stepping
/// s.stride[k] elements; as xsimd batches when the region is vectorizable
/// and every step is 0 or 1. The leaves of `e` give only their types here,
/// and its scalar leaves their values.
template <class E>
void evaluate_row(E const& e, RowState<leaf_count<E>> const& s, typename E::value_type* dst, std::int64_t len) {
  if constexpr (vectorizable<E>) {
    bool unit_or_broadcast = true;
    for (auto const step : s.stride) unit_or_broadcast = unit_or_broadcast && (step == 0 || step == 1);
    if (unit_or_broadcast) return simd_rows<false>(e, s, dst, 0, len);
  }
  scalar_rows(e, s, dst, 0, len);
}

/// A region's loop as far as it does not depend on the region: its N
/// leaves (data, element size, strides broadcast to the output's shape;
/// strides[0] the output's), the output, and the region's two row kernels
/// behind pointers. Written once per leaf count rather than per region, as
/// each region's loop would otherwise compile its own layout and thread
/// split around its kernels.
template <std::size_t N>
struct RegionLoop {
  Shape const& shape;
  std::array<void const*, N> base{};
  std::array<std::size_t, N> element_size{};
  std::array<Strides, N + 1> strides{};
  bool all_dense = true;  // every leaf contiguous with the output's own shape
  void* dst = nullptr;
  std::size_t out_size = 0;  // bytes per output element
  void const* region = nullptr;
  /// Elements [lo, hi) when every leaf is dense; chunks start on multiples of `align`.
  void (*dense)(void const* region, RowState<N> const& s, void* dst, std::int64_t lo, std::int64_t hi) = nullptr;
  std::int64_t align = 1;
  /// One row of `len` elements, leaf k read at s.ptr[k] stepping s.stride[k].
  void (*row)(void const* region, RowState<N> const& s, void* dst, std::int64_t len) = nullptr;
};

template <std::size_t N>
void run_region_loop(RegionLoop<N> const& loop) {
  auto const n = loop.shape.numel();
  if (loop.all_dense) {
    RowState<N> s;
    s.ptr = loop.base;
    s.stride.fill(1);
    jaxcc::detail::parallel_chunks(n, loop.align,
                                   [&](std::int64_t lo, std::int64_t hi) { loop.dense(loop.region, s, loop.dst, lo, hi); });
    return;
  }
  auto layout = jaxcc::detail::merge_dimensions<N + 1>(loop.shape, loop.strides);
  jaxcc::detail::for_each_row(layout, [&](auto const& off, std::int64_t len, auto const& step) {
    RowState<N> s;
    for (std::size_t j = 0; j < N; ++j) {
      s.ptr[j] = static_cast<char const*>(loop.base[j]) + off[j + 1] * static_cast<std::int64_t>(loop.element_size[j]);
      s.stride[j] = step[j + 1];
    }
    auto* const dst = static_cast<char*>(loop.dst) + off[0] * static_cast<std::int64_t>(loop.out_size);
    loop.row(loop.region, s, dst, len);
  });
}

/// A region on concrete leaves, into a new array, by its two row kernels
/// (RegionLoop's `dense` and `row`) with dense chunks starting on multiples
/// of `align`.
template <class E>
Array<typename E::value_type> run_concrete(E const& e, decltype(RegionLoop<leaf_count<E>>::dense) dense,
                                           decltype(RegionLoop<leaf_count<E>>::row) row, std::int64_t align) {
  using R = typename E::value_type;
  constexpr std::size_t N = leaf_count<E>;
  auto allocation = jaxcc::detail::allocate<R>(e.shape());
  if (e.size() == 0) return allocation.first;

  RegionLoop<N> loop{e.shape()};
  loop.strides[0] = jaxcc::detail::contiguous_strides(e.shape());
  std::size_t k = 0;
  for_each_leaf(e, [&](auto const& leaf) {
    using T = typename std::remove_cvref_t<decltype(leaf)>::value_type;
    loop.base[k] = leaf.data();
    loop.element_size[k] = sizeof(T);
    loop.strides[k + 1] = jaxcc::detail::broadcast_strides(leaf.shape(), leaf.strides(), e.shape());
    loop.all_dense = loop.all_dense && leaf.shape() == e.shape() && leaf.is_contiguous();
    ++k;
  });
  loop.dst = allocation.second;
  loop.out_size = sizeof(R);
  loop.region = &e;
  loop.dense = dense;
  loop.align = align;
  loop.row = row;
  run_region_loop(loop);
  return allocation.first;
}

/// Run the fused loop of a region whose leaves are all concrete.
template <class E>
Array<typename E::value_type> evaluate_concrete(E const& e) {
  using R = typename E::value_type;
  constexpr std::size_t N = leaf_count<E>;
  std::int64_t align = 1;
  if constexpr (vectorizable<E>) align = xsimd::batch<simd_lane_t<R>>::size;
  return run_concrete(
      e,
      [](void const* region, RowState<N> const& s, void* dst, std::int64_t lo, std::int64_t hi) {
        if constexpr (vectorizable<E>)
          simd_rows<!has_long_kernel<E>>(*static_cast<E const*>(region), s, static_cast<R*>(dst), lo, hi);
        else scalar_rows(*static_cast<E const*>(region), s, static_cast<R*>(dst), lo, hi);
      },
      [](void const* region, RowState<N> const& s, void* dst, std::int64_t len) {
        evaluate_row(*static_cast<E const*>(region), s, static_cast<R*>(dst), len);
      },
      align);
}

}  // namespace jaxcc::fusion

#undef JAXCC_FLATTEN
