// Window reductions, as XLA's ReduceWindow: reduce_window_sum, _max and
// _min over windows of the operand (with strides, (lo, hi) padding of the
// monoid's identity, base and window dilation), and the two primitives
// that differentiate max and min, as in JAX: select_and_gather_add (each
// window's tangent at the element it selects) and its transpose
// select_and_scatter_add (each window's cotangent added to the element it
// selects). The sum's transpose is a sum over windows of the padded
// cotangent. vmap adds a window of 1 along the mapped axis.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/dot_general.hpp"
#include "jaxcc/primitives/pad.hpp"
#include "jaxcc/primitives/slice.hpp"

namespace jaxcc::primitives {

/// The windows of a window reduction, one entry per operand dimension.
struct WindowParams {
  Axes window_dimensions, window_strides;
  std::vector<std::pair<std::int64_t, std::int64_t>> padding;
  Axes base_dilation, window_dilation;
  friend bool operator==(WindowParams const&, WindowParams const&) = default;

  /// The same windows with a window of 1 inserted at `axis` (vmap's).
  WindowParams with_unit_axis(std::int64_t axis) const {
    WindowParams q = *this;
    q.window_dimensions.insert(q.window_dimensions.begin() + axis, 1);
    q.window_strides.insert(q.window_strides.begin() + axis, 1);
    q.padding.insert(q.padding.begin() + axis, {0, 0});
    q.base_dilation.insert(q.base_dilation.begin() + axis, 1);
    q.window_dilation.insert(q.window_dilation.begin() + axis, 1);
    return q;
  }

  /// Sharded jit: the splits of `layout` that can stay, those of the
  /// dimensions whose windows are single elements read in place (window 1,
  /// stride 1, no padding or dilation); the others are gathered whole.
  graph::Layout kept_splits(graph::Layout layout) const {
    for (std::size_t d = 0; d < layout.dims.size(); ++d)
      if (window_dimensions[d] != 1 || window_strides[d] != 1 || padding[d] != std::pair<std::int64_t, std::int64_t>{0, 0} ||
          base_dilation[d] != 1)
        layout.dims[d].clear();
    return layout;
  }
  /// Both operands of select_and_*: their kept splits where they agree.
  std::pair<graph::Layout, graph::Layout> kept_splits(graph::Layout const& a, graph::Layout const& b) const {
    auto want_a = kept_splits(a), want_b = kept_splits(b);
    for (std::size_t d = 0; d < want_a.dims.size(); ++d)
      if (want_a.dims[d] != want_b.dims[d]) want_a.dims[d].clear(), want_b.dims[d].clear();
    return {want_a, want_b};
  }

  /// As a jaxpr prints them (alphabetical order).
  std::string to_string() const {
    return "base_dilation=" + detail::axes_string(base_dilation) + " padding=" + detail::pairs_string(padding) +
           " window_dilation=" + detail::axes_string(window_dilation) +
           " window_dimensions=" + detail::axes_string(window_dimensions) +
           " window_strides=" + detail::axes_string(window_strides);
  }

  /// JAX's _common_reduce_window_shape_rule and reduce_window_shape_tuple.
  Shape output_shape(Shape const& operand) const {
    auto const n = window_dimensions.size();
    auto const check = [&](Axes const& values, std::string_view name, bool positive) {
      for (auto v : values)
        if (v < 0 || (positive && v == 0))
          detail::throw_error("reduce_window ", name, " must have every element be ",
                              positive ? "strictly positive" : "nonnegative", ", got ", detail::axes_string(values),
                              ".");
    };
    check(window_dimensions, "window_dimensions", true);
    check(window_strides, "window_strides", true);
    check(base_dilation, "base_dilation", false);
    check(window_dilation, "window_dilation", false);
    if (operand.size() != n)
      detail::throw_error("reduce_window got the wrong number of window_dimensions for operand: got operand shape ",
                          operand, " with window_dimensions ", detail::axes_string(window_dimensions), ".");
    auto const consistent = [&](Axes const& values, std::string_view name) {
      if (values.size() != n)
        detail::throw_error("reduce_window got inconsistent ", name, " and window_dimensions: got ", name, " ",
                            detail::axes_string(values), " and window_dimensions ",
                            detail::axes_string(window_dimensions), ".");
    };
    consistent(window_strides, "window_strides");
    consistent(base_dilation, "base_dilation");
    consistent(window_dilation, "window_dilation");
    if (padding.size() != n)
      detail::throw_error("reduce_window got inconsistent padding and window_dimensions: got ", padding.size(),
                          " (lo, hi) pairs for ", n, " window dimensions.");
    Shape out;
    for (std::size_t d = 0; d < n; ++d) {
      auto const in = dilated(operand[d], base_dilation[d]) + padding[d].first + padding[d].second;
      auto const window = dilated(window_dimensions[d], window_dilation[d]);
      out.push_back(in >= window ? (in - window) / window_strides[d] + 1 : 0);
    }
    return out;
  }

  static std::int64_t dilated(std::int64_t d, std::int64_t dilation) { return d == 0 ? 0 : 1 + dilation * (d - 1); }
};

/// The monoids of the window reductions.
struct WindowSum {
  static constexpr std::string_view name = "reduce_window_sum";
  template <class T>
  static constexpr T identity() { return T{0}; }
  template <class T>
  static T combine(T a, T b) { return a + b; }
};
struct WindowMax {
  static constexpr std::string_view name = "reduce_window_max";
  template <class T>
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  /// NaN propagates, as in lax.max.
  template <class T>
  static T combine(T a, T b) { return a != a || a > b ? a : b; }
  /// select_and_*'s choice (lax.ge_p): keep the element chosen so far when it is >= the next.
  template <class T>
  static bool keeps(T chosen, T next) { return chosen >= next; }
};
struct WindowMin {
  static constexpr std::string_view name = "reduce_window_min";
  template <class T>
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
  template <class T>
  static T combine(T a, T b) { return a != a || a < b ? a : b; }
  template <class T>
  static bool keeps(T chosen, T next) { return chosen <= next; }
};

}  // namespace jaxcc::primitives

namespace jaxcc::detail {

/// Walks the windows of an operand: for output position o (flat, row-major)
/// calls visit(k, offset) for each window position k (flat, row-major, in
/// order) that reads an operand element, at `offset` through the operand's
/// strides; positions in the padding or between dilated elements are skipped.
struct WindowWalk {
  primitives::WindowParams const& p;
  Shape in, out;
  Strides strides;

  template <class Visit>
  void visit_window(std::int64_t o, std::vector<std::int64_t>& index, std::vector<std::int64_t>& k,
                    Visit&& visit) const {
    auto const n = in.size();
    for (auto d = n; d-- > 0;) {
      index[d] = o % out[d];
      o /= out[d];
    }
    std::fill(k.begin(), k.end(), 0);
    std::int64_t kk = 0;
    while (true) {
      std::int64_t offset = 0;
      bool inside = true;
      for (std::size_t d = 0; d < n && inside; ++d) {
        auto const pos = index[d] * p.window_strides[d] + k[d] * p.window_dilation[d] - p.padding[d].first;
        auto const dil = p.base_dilation[d];
        inside = pos >= 0 && pos % dil == 0 && pos / dil < in[d];
        offset += inside ? (pos / dil) * strides[d] : 0;
      }
      if (inside) visit(kk, offset);
      ++kk;
      std::size_t d = n;
      while (d-- > 0) {
        if (++k[d] < p.window_dimensions[d]) break;
        k[d] = 0;
      }
      if (d == static_cast<std::size_t>(-1)) return;
    }
  }

  /// fn(o, index, k) for every output position, over threads.
  template <class Fn>
  void for_each_output(Fn&& fn) const {
    parallel_chunks(out.numel(), 1, [&](std::int64_t lo, std::int64_t hi) {
      std::vector<std::int64_t> index(in.size()), k(in.size());
      for (auto o = lo; o < hi; ++o) fn(o, index, k);
    });
  }
};

/// For each window: the offset of the element select chooses (the first
/// of the window's elements, in order, that it keeps over every later one),
/// or -1 when it chooses padding (the identity, which the window starts with).
template <class Monoid, Element T>
std::int64_t window_choice(WindowWalk const& walk, T const* data, std::int64_t o, std::vector<std::int64_t>& index,
                           std::vector<std::int64_t>& k) {
  std::int64_t chosen = -1;
  T value = Monoid::template identity<T>();
  bool started = false;
  walk.visit_window(o, index, k, [&](std::int64_t kk, std::int64_t offset) {
    started = started || kk != 0;  // a window that starts in padding starts from the identity
    if (!started || !Monoid::keeps(value, data[offset])) chosen = offset, value = data[offset];
    started = true;
  });
  return chosen;
}

/// The parameters of select_and_gather_add and select_and_scatter_add, as
/// a jaxpr prints them: the windows and the comparison that selects.
template <class Monoid>
std::string select_params_string(primitives::WindowParams const& p) {
  return p.to_string() + " select_prim=" + (std::same_as<Monoid, primitives::WindowMax> ? "ge" : "le");
}

/// The partition of select_and_gather_add / select_and_scatter_add: both
/// operands laid out by WindowParams::kept_splits, which split only
/// dimensions that the windows' shape and the operand's share, and so the
/// result.
template <class P, Element T>
std::optional<graph::Partitioned> window_partition(primitives::WindowParams const& p,
                                                   std::span<graph::Layout const> layouts,
                                                   graph::Resharder const& reshard, Array<T> const& first,
                                                   Array<T> const& operand) {
  auto const [want_first, want_operand] = p.kept_splits(layouts[0], layouts[1]);
  auto const a = reshard(AnyArray(first), layouts[0], want_first).template as<T>();
  auto const b = reshard(AnyArray(operand), layouts[1], want_operand).template as<T>();
  return graph::Partitioned{AnyArray(jaxcc::detail::bind<P>(p, a, b)), want_operand};
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

template <class Monoid>
struct select_and_scatter_add_p;

/// Each window's tangent at the element its operand's window selects
/// (JAX's select_and_gather_add: the JVP of max and min pooling).
template <class Monoid>
struct select_and_gather_add_p {
  static constexpr std::string_view name = "select_and_gather_add";
  using Params = WindowParams;

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& tangents, Array<T> const& operand) {
    if (tangents.shape() != operand.shape())
      detail::throw_error("select_and_gather_add tangents and operand shapes must match, got ", tangents.shape(),
                          " and ", operand.shape(), ".");
    return p.output_shape(operand.shape());
  }
  static std::string params_string(Params const& p) {
    return detail::select_params_string<Monoid>(p);
  }
  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& tangents, Array<T> const& operand) {
    auto [out, data] = detail::allocate<T>(std::move(out_shape));
    T* const dst = data;
    auto const dense_operand = detail::contiguous(operand), dense_tangents = detail::contiguous(tangents);
    detail::WindowWalk const walk{p, operand.shape(), out.shape(), dense_operand.strides()};
    walk.for_each_output([&](std::int64_t o, auto& index, auto& k) {
      auto const chosen = detail::window_choice<Monoid>(walk, dense_operand.data(), o, index, k);
      dst[o] = chosen < 0 ? T{0} : dense_tangents.data()[chosen];
    });
    return out;
  }
  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& operand,
                      Array<T> const& tangents_tangent, Array<T> const&) {
    return detail::bind<select_and_gather_add_p>(p, tangents_tangent, operand);
  }
  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& tangents,
                                                     Array<T> const& operand) {
    return detail::window_partition<select_and_gather_add_p>(p, layouts, reshard, tangents, operand);
  }
  /// JAX's _select_and_gather_add_transpose: scatter the cotangent back to
  /// the selected elements; base dilation by padding the operand with the
  /// identity and taking every dilation-th element after.
  template <Element T>
  static auto vjp(Params const& p, graph::Wanted, Array<T> const& ct, Array<T> const&, Array<T> const&,
                  Array<T> const& operand) {
    return std::tuple{std::optional<Array<T>>(transpose(p, ct, operand)), graph::NoCotangent{}};
  }
  /// JAX's _select_and_gather_add_transpose: the cotangent scattered back
  /// to the selected elements; under base dilation, chosen among the
  /// operand padded with the identity, and every dilation-th element kept.
  template <Element T>
  static Array<T> transpose(Params const& p, Array<T> const& ct, Array<T> const& operand) {
    for (auto d : p.window_dilation)
      if (d != 1)
        detail::throw_error("VJP not implemented for select_and_gather (MaxPool) with window dilation, got "
                            "window_dilation=",
                            detail::axes_string(p.window_dilation), ".");
    bool const dilated = std::ranges::any_of(p.base_dilation, [](std::int64_t d) { return d != 1; });
    auto chosen_from = operand;
    if (dilated) {
      pad_p::PaddingConfig config;
      for (auto d : p.base_dilation) config.push_back({0, 0, d - 1});
      chosen_from = lax::pad(operand, Monoid::template identity<T>(), config);
    }
    Params scatter = p;
    scatter.base_dilation = scatter.window_dilation = Axes(p.window_dimensions.size(), 1);
    auto result = detail::bind<select_and_scatter_add_p<Monoid>>(scatter, ct, chosen_from);
    if (!dilated) return result;
    return detail::bind<slice_p>(
        {Axes(result.ndim(), 0), Axes(result.shape().begin(), result.shape().end()), p.base_dilation}, result);
  }
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& tangents,
                                                    Array<T> const& operand) {
    return {detail::bind<select_and_gather_add_p>(p.with_unit_axis(0), detail::bdim_at_front(tangents, dims[0], axis.size),
                                                  detail::bdim_at_front(operand, dims[1], axis.size)),
            0};
  }
};

/// Each window's element of `source` added to the operand element the
/// window selects (JAX's select_and_scatter_add: the VJP of max and min
/// pooling). Undilated windows.
template <class Monoid>
struct select_and_scatter_add_p {
  static constexpr std::string_view name = "select_and_scatter_add";
  using Params = WindowParams;

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& source, Array<T> const& operand) {
    if (source.shape() != p.output_shape(operand.shape()))
      detail::throw_error("select_and_scatter_add source shape ", source.shape(),
                          " must equal the shape of the operand's windows ", p.output_shape(operand.shape()), ".");
    return operand.shape();
  }
  static std::string params_string(Params const& p) {
    return detail::select_params_string<Monoid>(p);
  }
  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& source, Array<T> const& operand) {
    auto [out, data] = detail::allocate<T>(std::move(out_shape));
    T* const dst = data;
    std::fill(dst, dst + out.size(), T{0});
    auto const dense = detail::contiguous(operand);
    detail::WindowWalk const walk{p, dense.shape(), source.shape(), dense.strides()};
    auto const src = detail::contiguous(source);
    // Windows overlap: choose in parallel, add in order.
    std::vector<std::int64_t> choice(static_cast<std::size_t>(src.size()));
    walk.for_each_output([&](std::int64_t o, auto& index, auto& k) {
      choice[static_cast<std::size_t>(o)] = detail::window_choice<Monoid>(walk, dense.data(), o, index, k);
    });
    for (std::int64_t o = 0; o < src.size(); ++o)
      if (auto const c = choice[static_cast<std::size_t>(o)]; c >= 0) dst[c] += src.data()[o];
    return out;
  }
  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& operand,
                      Array<T> const& source_tangent, Array<T> const&) {
    return detail::bind<select_and_scatter_add_p>(p, source_tangent, operand);
  }
  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& source,
                                                     Array<T> const& operand) {
    return detail::window_partition<select_and_scatter_add_p>(p, layouts, reshard, source, operand);
  }
  template <Element T>
  static auto vjp(Params const& p, graph::Wanted, Array<T> const& ct, Array<T> const&, Array<T> const&,
                  Array<T> const& operand) {
    return std::tuple{std::optional<Array<T>>(detail::bind<select_and_gather_add_p<Monoid>>(p, ct, operand)),
                      graph::NoCotangent{}};
  }
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& source,
                                                    Array<T> const& operand) {
    return {detail::bind<select_and_scatter_add_p>(p.with_unit_axis(0), detail::bdim_at_front(source, dims[0], axis.size),
                                                   detail::bdim_at_front(operand, dims[1], axis.size)),
            0};
  }
};

/// reduce_window_sum, _max or _min.
template <class Monoid>
struct reduce_window_p {
  static constexpr std::string_view name = Monoid::name;
  using Params = WindowParams;

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& operand) {
    return p.output_shape(operand.shape());
  }
  static std::string params_string(Params const& p) { return p.to_string(); }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& operand) {
    auto [out, data] = detail::allocate<T>(std::move(out_shape));
    T* const dst = data;
    detail::WindowWalk const walk{p, operand.shape(), out.shape(), operand.strides()};
    T const* src = operand.data();
    walk.for_each_output([&](std::int64_t o, auto& index, auto& k) {
      T acc = Monoid::template identity<T>();
      walk.visit_window(o, index, k, [&](std::int64_t, std::int64_t offset) { acc = Monoid::combine(acc, src[offset]); });
      dst[o] = acc;
    });
    return out;
  }

  /// The sum is linear; max and min carry the tangent of the element they
  /// select (JAX's _reduce_window_chooser_jvp_rule).
  template <Element T>
  static auto jvp(Params const& p, Array<T> const&, Array<T> const& operand, Array<T> const& tangent) {
    if constexpr (!InexactElement<T>) return fusion::Zero<T>{};
    else if constexpr (std::same_as<Monoid, WindowSum>) return detail::bind<reduce_window_p>(p, tangent);
    else return detail::bind<select_and_gather_add_p<Monoid>>(p, tangent, operand);
  }

  template <Element T>
  static auto vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const& operand) {
    if constexpr (!InexactElement<T>) return graph::NoCotangent{};
    else if constexpr (std::same_as<Monoid, WindowSum>) return sum_transpose(p, ct, operand.shape());
    else return select_and_gather_add_p<Monoid>::transpose(p, ct, operand);
  }

  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& operand) {
    return {detail::bind<reduce_window_p>(p.with_unit_axis(*dims[0]), operand), dims[0]};
  }

  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& operand) {
    auto const want = p.kept_splits(layouts[0]);
    auto const part = reshard(AnyArray(operand), layouts[0], want).template as<T>();
    return graph::Partitioned{AnyArray(detail::bind<reduce_window_p>(p, part)), want};
  }

 private:
  /// JAX's _reduce_window_sum_transpose_rule: the cotangent spread back by
  /// interior padding of stride - 1, edge padding that lines its windows
  /// up with the operand's, then summed over the same windows.
  template <Element T>
  static Array<T> sum_transpose(Params const& p, Array<T> const& ct, Shape const& operand_shape) {
    pad_p::PaddingConfig config;
    for (std::size_t d = 0; d < operand_shape.size(); ++d) {
      auto const in = WindowParams::dilated(operand_shape[d], p.base_dilation[d]);
      auto const window = WindowParams::dilated(p.window_dimensions[d], p.window_dilation[d]);
      auto const out = WindowParams::dilated(ct.shape()[d], p.window_strides[d]);
      auto const before = window - p.padding[d].first - 1;
      config.push_back({before, in + window - 1 - out - before, p.window_strides[d] - 1});
    }
    Params q;
    q.window_dimensions = p.window_dimensions;
    q.window_strides = p.base_dilation;
    q.padding.assign(operand_shape.size(), {0, 0});
    q.base_dilation = Axes(operand_shape.size(), 1);
    q.window_dilation = p.window_dilation;
    return detail::bind<reduce_window_p>(q, lax::pad(ct, T{0}, config));
  }
};

}  // namespace jaxcc::primitives
