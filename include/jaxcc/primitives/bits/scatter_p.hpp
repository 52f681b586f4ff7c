// The scatters. A new array is made; the operand is never written.
//  - scatter_p: into the window that integer indices on the leading axes
//    select, the primitive behind `x.at(i, j).set(v)` / `.add(v)` / ... As in
//    JAX's default scatter mode, an update whose window lies outside the
//    operand is dropped. One window, so indices are unique, and the
//    derivatives are JAX's unique-index rules.
//  - scatter_add_p: add updates at integer indices along one axis, the
//    transpose of gather_p (bits/gather_p.hpp), with the same leading
//    axes shared by the operand and the indices; repeated indices add up.
//  - scatter_apply_p: combine updates (set, multiply, min, max) into a 1-D
//    operand at integer positions, in order, so a repeated position takes
//    its last update (set) or all of them. Set, min and max carry no
//    derivative: numpy/indexing.hpp's `.at(...)` builds the differentiable
//    update around the choice they make (which update lands where, as JAX's
//    scatter JVP does) with scatter_add_p; a product at positions that may
//    repeat is differentiable in JAX only with unique indices, so its
//    derivative raises.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/strided.hpp"
#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/gather_p.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/slice.hpp"
#include "jaxcc/primitives/squeeze.hpp"

namespace jaxcc::detail {

// How an update combines with the element it lands on. Integers wrap on
// overflow as in XLA (computed unsigned: no UB); bools add as OR and
// multiply as AND.
template <Element T>
T combine_add(T a, T u) {
  if constexpr (std::same_as<T, bool>) return a || u;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(u));
  else return a + u;
}
template <Element T>
T combine_sub(T a, T u) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(u));
  else return a - u;
}
template <Element T>
T combine_mul(T a, T u) {
  if constexpr (std::same_as<T, bool>) return a && u;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(u));
  else return a * u;
}
// NaN wins, as lax.min / lax.max.
template <Element T>
T combine_min(T a, T u) {
  if constexpr (FloatElement<T>)
    if (std::isnan(a) || std::isnan(u)) return std::isnan(a) ? a : u;
  return std::min(a, u);
}
template <Element T>
T combine_max(T a, T u) {
  if constexpr (FloatElement<T>)
    if (std::isnan(a) || std::isnan(u)) return std::isnan(a) ? a : u;
  return std::max(a, u);
}

/// A scatter equation as make_jaxpr prints it: `params` followed by JAX's
/// update_consts and update_jaxpr, the scalar computation `combine` (JAX's
/// primitive name; empty for a plain scatter, whose update_jaxpr is None).
inline void print_scatter(graph::JaxprSink& w, std::string_view name, std::string const& params,
                          std::string_view combine, std::span<std::string const> inputs, graph::Var const& out) {
  auto const lhs = w.binder(out);
  std::string update_jaxpr = "None";
  if (!combine.empty()) {
    auto const scalar = ":" + graph::type_string(out.dtype, Shape{});
    auto const a = w.fresh_name(), b = w.fresh_name(), c = w.fresh_name();
    update_jaxpr = "{ lambda ; " + a + scalar + " " + b + scalar + ". let " + c + scalar + " = " + std::string(combine) +
                   " " + a + " " + b + " in (" + c + ",) }";
  }
  auto rhs = std::string(name) + "[" + params + " update_consts=() update_jaxpr=" + update_jaxpr + "]";
  for (auto const& in : inputs) rhs += " " + in;
  w.emit(lhs + " = " + rhs);
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct scatter_p {
  static constexpr std::string_view name = "scatter";
  /// How an update combines with the element it lands on (JAX's scatter,
  /// scatter_add, scatter_sub, scatter_mul, scatter_min, scatter_max).
  enum class Kind { set, add, subtract, multiply, min, max };
  struct Params {
    Axes indices;  // one per leading axis, negatives already wrapped; out of range drops the update
    Kind kind;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x, Array<T> const& updates) {
    auto const k = static_cast<std::int64_t>(p.indices.size());
    if (k > x.ndim()) {
      std::ostringstream os;
      os << "Too many indices: array is " << x.ndim() << "-dimensional, but " << k << " were indexed";
      throw Error(os.str());
    }
    Shape const window(x.shape().begin() + k, x.shape().end());
    if (!(updates.shape() == window)) {
      std::ostringstream os;
      os << "scatter: updates of shape " << updates.shape() << " do not match the window " << window
         << " that " << k << " leading indices select in an operand of shape " << x.shape();
      throw Error(os.str());
    }
    return x.shape();
  }

  /// JAX's primitive for each kind: scatter, scatter-add, scatter-sub, ...
  static std::string_view display_name(Params const& p) {
    constexpr std::string_view names[] = {"scatter", "scatter-add", "scatter-sub", "scatter-mul", "scatter-min",
                                          "scatter-max"};
    return names[static_cast<int>(p.kind)];
  }
  /// JAX's params of an integer-index scatter; the indices, an operand in
  /// JAX, are static here and print as `indices`.
  static std::string params_string(Params const& p) {
    return "indices=" + to_string(Shape(p.indices.begin(), p.indices.end())) +
           " indices_are_sorted=True mode=GatherScatterMode.FILL_OR_DROP unique_indices=True";
  }
  static void print(graph::JaxprSink& w, Params const& p, std::span<std::string const> inputs,
                    std::span<graph::VarPtr const> outputs) {
    constexpr std::string_view combine[] = {"", "add", "sub", "mul", "min", "max"};
    auto const& out = *outputs[0];
    auto const k = static_cast<std::int64_t>(p.indices.size());
    auto const range = [](std::int64_t n) {
      Shape r;
      for (std::int64_t i = 0; i < n; ++i) r.push_back(i);
      return to_string(r);
    };
    auto const dimension_numbers = "dimension_numbers=ScatterDimensionNumbers(update_window_dims=" +
                                   range(out.shape.rank() - k) + ", inserted_window_dims=" + range(k) +
                                   ", scatter_dims_to_operand_dims=" + range(k) +
                                   ", operand_batching_dims=(), scatter_indices_batching_dims=())";
    detail::print_scatter(w, display_name(p), dimension_numbers + " " + params_string(p),
                          combine[static_cast<int>(p.kind)], inputs, out);
  }

  /// Tangent of the result: the tangents scattered the same way; for mul,
  /// min and max the window's tangent follows the product rule or the
  /// winner (JAX's _scatter_extremal_jvp: a tie shares it equally).
  template <Element T>
  static auto jvp(Params const& p, Array<T> const& out, Array<T> const& x, Array<T> const& u, Array<T> const& tx,
                  Array<T> const& tu) {
    if constexpr (!FloatElement<T>) {
      return fusion::Zero<T>{};
    } else {
      if (!in_bounds(p, x.shape())) return tx;  // the update was dropped
      if (p.kind == Kind::multiply) return set_window(p, tx, Array<T>(window(p, tx) * u + window(p, x) * tu));
      if (p.kind == Kind::min || p.kind == Kind::max) {
        auto const [operand_coef, update_coef] = extremal_coefficients(p, out, x, u);
        return set_window(p, tx, Array<T>(window(p, tx) * operand_coef + tu * update_coef));
      }
      return detail::bind<scatter_p>(p, tx, tu);  // set, add, subtract: linear
    }
  }
  /// The transpose of that tangent map, for both operands.
  template <Element T>
  static auto vjp(Params const& p, Array<T> const& ct, Array<T> const& out, Array<T> const& x, Array<T> const& u) {
    if constexpr (!FloatElement<T>) {
      return std::tuple<graph::NoCotangent, graph::NoCotangent>{};
    } else {
      using Cotangents = std::tuple<Array<T>, Array<T>>;
      if (!in_bounds(p, x.shape())) return Cotangents{ct, detail::zeros_view<T>(u.shape())};
      auto const ct_window = window(p, ct);
      switch (p.kind) {
        case Kind::set: return Cotangents{set_window(p, ct, detail::zeros_view<T>(u.shape())), ct_window};
        case Kind::add: return Cotangents{ct, ct_window};
        case Kind::subtract: return Cotangents{ct, Array<T>(-ct_window)};
        case Kind::multiply: return Cotangents{detail::bind<scatter_p>(p, ct, u), Array<T>(ct_window * window(p, x))};
        case Kind::min:
        case Kind::max: break;
      }
      auto const [operand_coef, update_coef] = extremal_coefficients(p, out, x, u);
      return Cotangents{set_window(p, ct, Array<T>(ct_window * operand_coef)), Array<T>(ct_window * update_coef)};
    }
  }

  /// vmap: the mapped axis goes last in the operand and the updates (made
  /// there for an unmapped one), a window axis, so the leading indices stay.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x,
                                                    Array<T> const& updates) {
    auto const last = [&](Array<T> const& a, graph::BatchDim dim) {
      return detail::bdim_at(a, dim, axis.size, a.ndim() - (dim ? 1 : 0));
    };
    auto const batched = last(x, dims[0]);
    return {detail::bind<scatter_p>(p, batched, last(updates, dims[1])), batched.ndim() - 1};
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x, Array<T> const& updates) {
    if (!in_bounds(p, x.shape())) return x;  // dropped, as mode="drop"
    if (updates.size() == 0) return x;
    auto const strides = detail::contiguous_strides(out_shape);
    auto [out, data] = detail::allocate<T>(std::move(out_shape));
    x.copy_to(data);
    T* window = data;
    for (std::size_t d = 0; d < p.indices.size(); ++d) window += p.indices[d] * strides[d];
    Strides const window_strides(strides.begin() + static_cast<std::ptrdiff_t>(p.indices.size()), strides.end());
    auto const apply = [&](auto combine) {
      detail::write_region(updates, window, window_strides, [&](T& dst, T u) { dst = combine(dst, u); });
    };
    switch (p.kind) {
      case Kind::set: apply([](T, T u) { return u; }); break;
      case Kind::add: apply(detail::combine_add<T>); break;
      case Kind::subtract:
        if constexpr (std::same_as<T, bool>) throw Error("scatter_sub does not accept dtype bool");
        else apply(detail::combine_sub<T>);
        break;
      case Kind::multiply: apply(detail::combine_mul<T>); break;
      case Kind::min: apply(detail::combine_min<T>); break;
      case Kind::max: apply(detail::combine_max<T>); break;
    }
    return out;
  }

 private:
  static bool in_bounds(Params const& p, Shape const& shape) {
    for (std::size_t d = 0; d < p.indices.size(); ++d)
      if (p.indices[d] < 0 || p.indices[d] >= shape[d]) return false;
    return true;
  }
  /// a[indices...]: the window, a view.
  template <Element T>
  static Array<T> window(Params const& p, Array<T> const& a) {
    Axes start(a.shape().size(), 0), limit(a.shape().begin(), a.shape().end()), leading;
    for (std::size_t d = 0; d < p.indices.size(); ++d) {
      start[d] = p.indices[d];
      limit[d] = p.indices[d] + 1;
      leading.push_back(static_cast<std::int64_t>(d));
    }
    return lax::squeeze(detail::bind<slice_p>({start, limit, {}}, a), leading);
  }
  /// a with its window replaced by w.
  template <Element T>
  static Array<T> set_window(Params const& p, Array<T> const& a, Array<T> const& w) {
    return detail::bind<scatter_p>({p.indices, Kind::set}, a, w);
  }
  /// The share of the window's derivative that goes to the operand's element
  /// and to the update: 1 to the one the min/max kept, 1/2 each on a tie,
  /// none where neither equals the result (NaN).
  template <Element T>
  static std::pair<Array<T>, Array<T>> extremal_coefficients(Params const& p, Array<T> const& out, Array<T> const& x,
                                                             Array<T> const& u) {
    auto const target = window(p, out);
    Array<bool> const won = u == target;                // JAX's successful_updates
    Array<bool> const kept = window(p, x) == target;    // JAX's retained_values
    // mine ? (other ? 1/2 : 1) : 0
    auto const share = [](Array<bool> const& mine, Array<bool> const& other) {
      return Array<T>(ex<select_p>(mine, ex<select_p>(other, ScalarLeaf<T>{T(0.5)}, ScalarLeaf<T>{T(1)}), ScalarLeaf<T>{T(0)}));
    };
    return {share(kept, won), share(won, kept)};
  }
};

struct scatter_add_p {
  static constexpr std::string_view name = "scatter-add";
  using Mode = gather_p::Mode;
  struct Params {
    std::int64_t axis;            // non-negative
    Mode mode;                    // what an out-of-range index does, as gather_p's (fill: dropped)
    std::int64_t batch_dims = 0;  // leading axes the operand and indices share, as gather_p's
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T, IndexElement I>
  static Shape shape_rule(Params const& p, Array<T> const& x, Array<I> const& indices, Array<T> const& updates) {
    auto const axis = static_cast<std::size_t>(detail::normalize_axis(p.axis, x.ndim(), "scatter_add"));
    gather_p::check_batch_dims(p.batch_dims, p.axis, x.shape(), indices.shape());
    Shape expected(x.shape().begin(), x.shape().begin() + static_cast<std::ptrdiff_t>(axis));
    for (auto d = static_cast<std::size_t>(p.batch_dims); d < indices.shape().size(); ++d)
      expected.push_back(indices.shape()[d]);
    for (auto d = axis + 1; d < x.shape().size(); ++d) expected.push_back(x.shape()[d]);
    if (!(updates.shape() == expected))
      detail::throw_error("scatter_add: updates of shape ", updates.shape(), " do not match the shape ", expected,
                          " that indices of shape ", indices.shape(), " select along axis ", p.axis,
                          " of an operand of shape ", x.shape());
    return x.shape();
  }

  static std::string params_string(Params const& p) {
    auto const batch = p.batch_dims ? " batch_dims=" + std::to_string(p.batch_dims) : std::string();
    return "axis=" + std::to_string(p.axis) + batch + " indices_are_sorted=False mode=" +
           gather_p::mode_string(p.mode) + " unique_indices=False";
  }
  static void print(graph::JaxprSink& w, Params const& p, std::span<std::string const> inputs,
                    std::span<graph::VarPtr const> outputs) {
    detail::print_scatter(w, name, params_string(p), "add", inputs, *outputs[0]);
  }

  template <Element T, IndexElement I>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<I> const& indices, Array<T> const&,
                      Array<T> const& tx, Array<I> const&, Array<T> const& tu) {
    return detail::bind<scatter_add_p>(p, tx, indices, tu);
  }
  template <Element T, IndexElement I>
  static std::tuple<Array<T>, graph::NoCotangent, Array<T>> vjp(Params const& p, Array<T> const& ct, Array<T> const&,
                                                                Array<T> const&, Array<I> const& indices,
                                                                Array<T> const&) {
    return {ct, {}, detail::bind<gather_p>({p.axis, p.mode, 0.0, p.batch_dims}, ct, indices)};
  }

  /// JAX's _scatter_batching_rule; the operand and updates are made mapped.
  /// Unmapped indices: the mapped axis is the first past the shared ones in
  /// both, updated whole. Mapped indices: one more shared axis, in front.
  template <Element T, IndexElement I>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x,
                                                    Array<I> const& indices, Array<T> const& updates) {
    using detail::bdim_at;
    auto const b = p.batch_dims;
    if (!dims[1])
      return {detail::bind<scatter_add_p>({p.axis + 1, p.mode, b}, bdim_at(x, dims[0], axis.size, b), indices,
                                          bdim_at(updates, dims[2], axis.size, b)),
              b};
    return {detail::bind<scatter_add_p>({p.axis + 1, p.mode, b + 1}, bdim_at(x, dims[0], axis.size, 0),
                                        detail::move_axis(indices, *dims[1], 0), bdim_at(updates, dims[2], axis.size, 0)),
            0};
  }

  template <Element T, IndexElement I>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x, Array<I> const& indices,
                       Array<T> const& updates) {
    auto allocation = detail::allocate<T>(std::move(out_shape));
    T* const data = allocation.second;  // a plain variable: the lambda below captures it
    x.copy_to(data);
    if (updates.size() == 0 || x.size() == 0) return allocation.first;
    auto const axis = static_cast<std::size_t>(p.axis);
    auto const n = x.shape()[axis];
    // outer: every position before the axis, the shared (batch) axes' included.
    std::int64_t batches = 1, outer = 1, inner = 1;
    for (std::size_t d = 0; d < axis; ++d) outer *= x.shape()[d];
    for (std::size_t d = 0; d < static_cast<std::size_t>(p.batch_dims); ++d) batches *= x.shape()[d];
    for (auto d = axis + 1; d < x.shape().size(); ++d) inner *= x.shape()[d];
    auto const idx = indices.to_vector();
    std::vector<std::int64_t> along(idx.size());
    for (std::size_t j = 0; j < idx.size(); ++j) along[j] = gather_p::position(idx[j], n, p.mode);
    auto const dense = detail::contiguous(updates);
    T const* src = dense.data();
    auto const m = static_cast<std::int64_t>(along.size()) / batches;  // indices per batch position
    auto const per_batch = outer / batches;
    // Each outer position owns its own block of the result: split over those.
    detail::parallel_chunks(outer, 1, [&](std::int64_t lo, std::int64_t hi) {
      for (auto o = lo; o < hi; ++o)
        for (std::int64_t j = 0; j < m; ++j) {
          auto const i = along[static_cast<std::size_t>(o / per_batch * m + j)];
          if (i < 0) continue;  // out of range: dropped
          T* dst = data + (o * n + i) * inner;
          T const* row = src + (o * m + j) * inner;
          for (std::int64_t q = 0; q < inner; ++q) dst[q] = detail::combine_add(dst[q], row[q]);
        }
    });
    return allocation.first;
  }
};

struct scatter_apply_p {
  static constexpr std::string_view name = "scatter-apply";
  using Kind = scatter_p::Kind;
  struct Params {
    Kind kind;  // set, multiply, min or max
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T, IndexElement I>
  static Shape shape_rule(Params const&, Array<T> const& x, Array<I> const& positions, Array<T> const& updates) {
    if (x.ndim() != 1 || positions.ndim() != 1 || !(updates.shape() == positions.shape()))
      detail::throw_error("scatter_apply: takes a 1-d operand and 1-d positions and updates of one length, got ",
                          x.shape(), ", ", positions.shape(), " and ", updates.shape());
    return x.shape();
  }
  static std::string params_string(Params const& p) {
    switch (p.kind) {
      case Kind::set: return "kind=set";
      case Kind::multiply: return "kind=mul";
      case Kind::min: return "kind=min";
      case Kind::max: return "kind=max";
      default: return "kind=add";
    }
  }

  /// Set, min and max choose which update lands where: they carry no
  /// derivative (`.at(...)` builds the differentiable update around that
  /// choice). A product at repeated positions raises with JAX's words.
  template <Element T, IndexElement I>
  static fusion::Zero<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<I> const&, Array<T> const&,
                             Array<T> const&, Array<I> const&, Array<T> const&) {
    if (p.kind == Kind::multiply) throw Error("scatter_mul gradients are only implemented if `unique_indices=True`");
    return {};
  }
  template <Element T, IndexElement I>
  static std::tuple<graph::NoCotangent, graph::NoCotangent, graph::NoCotangent> vjp(Params const& p, Array<T> const&,
                                                                                    Array<T> const&, Array<T> const&,
                                                                                    Array<I> const&, Array<T> const&) {
    if (p.kind == Kind::multiply) throw Error("scatter_mul gradients are only implemented if `unique_indices=True`");
    return {};
  }

  /// Each example's operand becomes its own block of one long operand, its
  /// positions shifted into that block (those out of range stay out).
  template <Element T, IndexElement I>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x,
                                                    Array<I> const& positions, Array<T> const& updates) {
    auto const b = axis.size;
    // The length of the axis that is not the mapped one (each operand is 1-d per example).
    auto const length = [](auto const& a, graph::BatchDim d) { return a.shape()[d ? static_cast<std::size_t>(1 - *d) : 0]; };
    auto const n = length(x, dims[0]);
    auto const m = length(positions, dims[1]);
    auto const flat = [&](auto const& a, graph::BatchDim d, std::int64_t len) {
      return detail::bind<reshape_p>({Shape{b * len}}, detail::bdim_at_front(a, d, b));
    };
    auto const pos = detail::bdim_at_front(positions, dims[1], b);
    auto [offsets, offset_data] = detail::allocate<I>(Shape{b, 1});
    for (std::int64_t e = 0; e < b; ++e) offset_data[e] = static_cast<I>(e * n);
    auto const in_range = (pos >= I(0)) & (pos < static_cast<I>(n));
    Array<I> const shifted = fusion::ex<select_p>(in_range, pos + offsets, fusion::ScalarLeaf<I>{static_cast<I>(-1)});
    auto const out = detail::bind<scatter_apply_p>(p, flat(x, dims[0], n),
                                                   detail::bind<reshape_p>({Shape{b * m}}, shifted),
                                                   flat(updates, dims[2], m));
    return {detail::bind<reshape_p>({Shape{b, n}}, out), 0};
  }

  template <Element T, IndexElement I>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x, Array<I> const& positions,
                       Array<T> const& updates) {
    auto allocation = detail::allocate<T>(std::move(out_shape));
    T* const data = allocation.second;
    x.copy_to(data);
    auto const n = x.size();
    auto const at = positions.to_vector();
    auto const values = updates.to_vector();
    for (std::size_t j = 0; j < at.size(); ++j) {
      auto const i = static_cast<std::int64_t>(at[j]);
      if (i < 0 || i >= n) continue;  // out of range: dropped
      T const u = values[j];
      switch (p.kind) {
        case Kind::set: data[i] = u; break;
        case Kind::multiply: data[i] = detail::combine_mul(data[i], u); break;
        case Kind::min: data[i] = detail::combine_min(data[i], u); break;
        case Kind::max: data[i] = detail::combine_max(data[i], u); break;
        default: data[i] = detail::combine_add(data[i], u); break;
      }
    }
    return allocation.first;
  }
};

}  // namespace jaxcc::primitives
