// The reduce_* primitives: reduce_sum, reduce_prod, reduce_max, reduce_min,
// reduce_and, reduce_or, each over any set of axes, all evaluated by one
// kernel (kernels/reduce_kernel.hpp). Accumulation happens in the input dtype,
// as XLA does (jnp::sum converts bool to int32 first); max and min
// propagate NaN, as lax.max / lax.min do.
//
// Derivatives are JAX's, written with primitives so that they differentiate
// again: reduce_sum is linear and transposes to a broadcast_in_dim;
// reduce_prod's JVP is a tree of pairwise products (no division, so zeros
// are exact), and its VJP that tree transposed; max and min send the tangent
// through the elements equal to the result, split evenly among ties;
// reduce_and and reduce_or have no derivative.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/kernels/reduce_kernel.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/concatenate_p.hpp"
#include "jaxcc/primitives/bits/pad_p.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/bits/slice_p.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::detail {

/// The shape left after reducing `axes`, checked as lax checks them.
inline Shape reduce_shape_rule(std::string_view name, Shape const& shape, Axes const& axes) {
  auto describe = [&](std::string_view what) {
    std::ostringstream os;
    os << name << ": " << what << Shape(axes.begin(), axes.end());
    return os;
  };
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (axes[i] == axes[j]) throw Error(describe("duplicate value in 'axes' of reduction: ").str());
  for (auto a : axes)
    if (a < 0 || a >= shape.rank()) {
      auto os = describe("reduction axes ");
      os << " contains out-of-bounds indices for operand shape " << shape << ".";
      throw Error(os.str());
    }
  Shape out;
  for (std::int64_t d = 0; d < shape.rank(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) out.push_back(shape[static_cast<std::size_t>(d)]);
  return out;
}

/// A Folder behind graph::RowFold's erased interface.
template <class Op, Element T>
class RowFoldOf final : public graph::RowFold {
 public:
  RowFoldOf(std::int64_t segment, T identity) : RowFold(segment), identity_(identity), folder_(identity) {}
  void fold(void const* row, std::int64_t count) override { folder_.fold(static_cast<T const*>(row), count); }
  void result(void* out) const override { *static_cast<T*>(out) = folder_.result(); }
  void reset() override { folder_ = Folder<Op, T>(identity_); }

 private:
  T identity_;
  Folder<Op, T> folder_;
};

/// What the reduce_* primitives share: Params, shape rule and kernel. Each
/// member of the family adds its name, its combining op (`monoid`), that
/// op's identity (also the result of an empty reduction) and its
/// derivative rules.
template <class Derived>
struct Reduction {
  struct Params {
    Axes axes;  // non-negative and distinct (jnp's functions normalize them)
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    return reduce_shape_rule(Derived::name, x.shape(), p.axes);
  }

  /// Sharded jit, for the reductions whose parts combine (sum, max, min):
  /// each device reduces its part; over a split dimension the results are
  /// partial, and the partitioner combines them across those mesh axes.
  /// (Here and in row_fold, whether Derived has partial_combine is asked in
  /// the body, not in a constraint: clang 14 caches a constraint on Derived
  /// checked while Derived is still incomplete, and then never applies it.)
  template <Element T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const&, Array<T> const& x) {
    if constexpr (requires { Derived::partial_combine; }) {
      graph::Layout out;
      std::vector<std::string> partial;
      for (std::size_t d = 0; d < layouts[0].dims.size(); ++d) {
        auto const& axes = layouts[0].dims[d];
        if (std::find(p.axes.begin(), p.axes.end(), static_cast<std::int64_t>(d)) == p.axes.end()) out.dims.push_back(axes);
        else partial.insert(partial.end(), axes.begin(), axes.end());
      }
      return graph::Partitioned{jaxcc::detail::bind<Derived>(p, x), out, partial, Derived::partial_combine};
    } else {
      return std::nullopt;
    }
  }

  /// jit, for the reductions whose parts combine (sum, max, min) over the
  /// operand's last axes (all of them, or a softmax's or a norm's last
  /// one): a fused run that computes the operand folds each of its tiles
  /// as they come, and the operand is never written to memory.
  template <Element T>
  static std::unique_ptr<graph::RowFold> row_fold(Params const& p, Shape const& operand) {
    // (16-bit floats stay unfused: their reductions accumulate in float32, see impl.)
    if constexpr (requires { Derived::partial_combine; } && !is_half_float<T>) {
      auto const rank = operand.rank(), reduced = static_cast<std::int64_t>(p.axes.size());
      bool const trailing = reduced > 0 && std::all_of(p.axes.begin(), p.axes.end(), [&](std::int64_t a) {
        return a >= rank - reduced;  // distinct, so these are exactly the last `reduced`
      });
      std::int64_t segment = 1;
      for (auto a : p.axes) segment *= operand[static_cast<std::size_t>(a)];
      // (Results of empty segments would never be written: those stay unfused.)
      if (trailing && (segment > 0 || reduced == rank))
        return std::make_unique<RowFoldOf<typename Derived::monoid, T>>(segment, Derived::template identity<T>());
    }
    return nullptr;
  }

  /// make_jaxpr's `reduce_sum[axes=(0, 1)]`.
  static std::string params_string(Params const& p) { return "axes=" + to_string(Shape(p.axes.begin(), p.axes.end())); }

  /// The mapped axis stays where it is; the reduced axes step over it.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x) {
    auto const b = *dims[0];
    Params q;
    std::int64_t before = 0;
    for (auto a : p.axes) {
      q.axes.push_back(a >= b ? a + 1 : a);
      before += a < b ? 1 : 0;
    }
    return {jaxcc::detail::bind<Derived>(q, x), b - before};
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    // 16-bit floats accumulate in float32 and round once, as XLA's CPU code.
    if constexpr (is_half_float<T>) {
      return impl(p, std::move(out_shape), x.template astype<float>()).template astype<T>();
    } else {
      auto [out, dst] = allocate<T>(std::move(out_shape));
      reduce_into<typename Derived::monoid>(x, p.axes, Derived::template identity<T>(), dst, out.size());
      return out;
    }
  }
};

}  // namespace jaxcc::detail

// The rules bind these by name.
namespace jaxcc::primitives {
struct broadcast_in_dim_p;
struct concatenate_p;
struct pad_p;
struct reduce_sum_p;
struct slice_p;
}  // namespace jaxcc::primitives

namespace jaxcc::detail {

// --- derivative helpers -----------------------------------------------------

/// The operand dimensions a reduction over `axes` keeps, in order: output
/// dimension i is operand dimension kept[i].
inline Axes kept_dimensions(std::int64_t rank, Axes const& axes) {
  Axes kept;
  for (std::int64_t d = 0; d < rank; ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept.push_back(d);
  return kept;
}

/// An output-shaped `y` repeated along the reduced axes: reduce_sum's
/// transpose (JAX's _reduce_sum_transpose_rule).
template <Element T>
Array<T> broadcast_over_reduced(Array<T> const& y, Shape const& operand_shape, Axes const& axes) {
  return jaxcc::detail::bind<primitives::broadcast_in_dim_p>({operand_shape, kept_dimensions(operand_shape.rank(), axes)}, y);
}

/// 1 where x equals its max (or min) `out`, else 0 (JAX's location_indicators).
template <Element T>
Array<T> location_indicators(Array<T> const& x, Array<T> const& out, Axes const& axes) {
  Shape shape = x.shape();
  for (auto a : axes) shape[static_cast<std::size_t>(a)] = 1;
  return fusion::cast<T>(x == lax::reshape(out, shape));
}

/// JAX's _reduce_chooser_jvp_rule: the tangents at the locations of the
/// max (min), averaged over ties.
template <Element T>
Array<T> chooser_jvp(Axes const& axes, Array<T> const& out, Array<T> const& x, Array<T> const& t) {
  auto const where = location_indicators(x, out, axes);
  auto const counts = jaxcc::detail::bind<primitives::reduce_sum_p>({axes}, where);
  return jaxcc::detail::bind<primitives::reduce_sum_p>({axes}, Array<T>(t * where)) / counts;
}

/// That JVP transposed: ct / counts, repeated along the reduced axes, at
/// the locations.
template <Element T>
Array<T> chooser_vjp(Axes const& axes, Array<T> const& ct, Array<T> const& out, Array<T> const& x) {
  auto const where = location_indicators(x, out, axes);
  auto const counts = jaxcc::detail::bind<primitives::reduce_sum_p>({axes}, where);
  return where * broadcast_over_reduced(Array<T>(ct / counts), x.shape(), axes);
}

/// reduce_prod's derivatives follow JAX's _reduce_jvp: the reduced axes are
/// moved to the front (this permutation of the operand's axes) and
/// flattened into one of n rows, which a tree of pairwise products folds.
inline Axes reduced_axes_first(std::int64_t rank, Axes const& axes) {
  Axes order = axes;
  for (auto k : kept_dimensions(rank, axes)) order.push_back(k);
  return order;
}

/// x laid out as those rows: shape (n, kept dimensions...).
template <Element T>
Array<T> rows_to_reduce(Array<T> const& x, Axes const& axes) {
  auto const order = reduced_axes_first(x.ndim(), axes);
  auto const moved = std::is_sorted(order.begin(), order.end()) ? x : lax::transpose(x, order);
  Shape shape{1};
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i < axes.size()) shape[0] *= moved.shape()[i];
    else shape.push_back(moved.shape()[i]);
  }
  return moved.shape() == shape ? moved : lax::reshape(moved, shape);
}

/// The inverse: rows back to the operand's layout.
template <Element T>
Array<T> rows_to_operand(Array<T> const& rows, Shape const& operand_shape, Axes const& axes) {
  auto const order = reduced_axes_first(operand_shape.rank(), axes);
  Shape moved_shape;
  for (auto a : order) moved_shape.push_back(operand_shape[static_cast<std::size_t>(a)]);
  auto const moved = rows.shape() == moved_shape ? rows : lax::reshape(rows, moved_shape);
  if (std::is_sorted(order.begin(), order.end())) return moved;
  Axes inverse(order.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) inverse[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  return lax::transpose(moved, inverse);
}

/// One level of the product tree: the first ceil(n/2) rows and the rest,
/// the rest `padded` with a row of the fill value when n is odd, so that
/// the next level is their elementwise product.
template <Element T>
struct Halves {
  Array<T> first, second;
  bool padded;
};
template <Element T>
Halves<T> halves(Array<T> const& rows, T fill) {
  auto const n = rows.shape()[0], n1 = (n + 1) / 2;
  Axes start(rows.shape().size(), 0), limit(rows.shape().begin(), rows.shape().end());
  limit[0] = n1;
  auto first = jaxcc::detail::bind<primitives::slice_p>({start, limit, {}}, rows);
  start[0] = n1;
  limit[0] = n;
  auto second = jaxcc::detail::bind<primitives::slice_p>({start, limit, {}}, rows);
  bool const padded = n - n1 != n1;
  if (padded) {
    std::vector<std::array<std::int64_t, 3>> config(rows.shape().size(), {0, 0, 0});  // (lo, hi, interior)
    config[0] = {0, 1, 0};
    second = jaxcc::detail::bind<primitives::pad_p>({std::move(config)}, second, detail::rank0_array(fill));
  }
  return {std::move(first), std::move(second), padded};
}

/// The tangent of the product over `axes`: each level's products carried
/// forward with the product rule.
template <Element T>
Array<T> product_tree_jvp(Axes const& axes, Shape const& out_shape, Array<T> const& x, Array<T> const& t) {
  auto xs = rows_to_reduce(x, axes), ts = rows_to_reduce(t, axes);
  if (xs.shape()[0] == 0) return zeros_view<T>(out_shape);  // the empty product is the constant 1
  while (xs.shape()[0] > 1) {
    auto const x_halves = halves(xs, T{1});
    auto const t_halves = halves(ts, T{0});
    ts = t_halves.first * x_halves.second + x_halves.first * t_halves.second;
    if (ts.shape()[0] == 1) break;  // the last level's product is `out` itself
    xs = x_halves.first * x_halves.second;
  }
  return lax::reshape(ts, out_shape);
}

/// The transpose of product_tree_jvp's map from t: the tree's levels are
/// recomputed, then the cotangent walks down them, each half's cotangent
/// the next level's times the other half (the padding row cropped off,
/// the halves joined again).
template <Element T>
Array<T> product_tree_vjp(Axes const& axes, Array<T> const& ct, Array<T> const& x) {
  auto xs = rows_to_reduce(x, axes);
  if (xs.shape()[0] == 0) return zeros_view<T>(x.shape());
  Shape top = xs.shape();  // the last level: one row, the output
  top[0] = 1;
  std::vector<Halves<T>> levels;
  while (xs.shape()[0] > 1) {
    levels.push_back(halves(xs, T{1}));
    if (levels.back().first.shape()[0] == 1) break;
    xs = levels.back().first * levels.back().second;
  }
  auto c = lax::reshape(ct, top);
  for (auto level = levels.rbegin(); level != levels.rend(); ++level) {
    Array<T> const c1 = c * level->second;
    Array<T> c2 = c * level->first;
    if (level->padded) {
      Axes start(c2.shape().size(), 0), limit(c2.shape().begin(), c2.shape().end());
      limit[0] -= 1;
      c2 = jaxcc::detail::bind<primitives::slice_p>({start, limit, {}}, c2);
    }
    c = jaxcc::detail::bind<primitives::concatenate_p>({0}, std::vector<Array<T>>{c1, c2});
  }
  return rows_to_operand(c, x.shape(), axes);
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct reduce_sum_p : detail::Reduction<reduce_sum_p> {
  static constexpr std::string_view name = "reduce_sum";
  static constexpr graph::PartialCombine partial_combine = graph::PartialCombine::sum;
  using monoid = add_p;
  template <Element T>
  static constexpr T identity() {
    return T{0};
  }

  template <Element T>
  static auto jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    if constexpr (InexactElement<T>) return detail::bind<reduce_sum_p>(p, t);
    else return fusion::Zero<T>{};
  }
  template <Element T>
  static auto vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const& x) {
    if constexpr (InexactElement<T>) return detail::broadcast_over_reduced(ct, x.shape(), p.axes);
    else return graph::NoCotangent{};
  }
};

struct reduce_prod_p : detail::Reduction<reduce_prod_p> {
  static constexpr std::string_view name = "reduce_prod";
  using monoid = mul_p;
  template <Element T>
  static constexpr T identity() {
    return T{1};
  }

  template <Element T>
  static auto jvp(Params const& p, Array<T> const& out, Array<T> const& x, Array<T> const& t) {
    if constexpr (InexactElement<T>) return detail::product_tree_jvp(p.axes, out.shape(), x, t);
    else return fusion::Zero<T>{};
  }
  template <Element T>
  static auto vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const& x) {
    if constexpr (InexactElement<T>) return detail::product_tree_vjp(p.axes, ct, x);
    else return graph::NoCotangent{};
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::detail {

/// reduce_max and reduce_min: a Reduction whose derivatives take the
/// tangent at the extremum, shared among ties (chooser_jvp / chooser_vjp);
/// none for integers.
template <class Derived>
struct ChooserReduction : Reduction<Derived> {
  using typename Reduction<Derived>::Params;

  template <Element T>
  static auto jvp(Params const& p, Array<T> const& out, Array<T> const& x, Array<T> const& t) {
    if constexpr (detail::is_float<T>) return detail::chooser_jvp(p.axes, out, x, t);
    else return fusion::Zero<T>{};
  }
  template <Element T>
  static auto vjp(Params const& p, Array<T> const& ct, Array<T> const& out, Array<T> const& x) {
    if constexpr (detail::is_float<T>) return detail::chooser_vjp(p.axes, ct, out, x);
    else return graph::NoCotangent{};
  }
};

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct reduce_max_p : detail::ChooserReduction<reduce_max_p> {
  static constexpr std::string_view name = "reduce_max";
  static constexpr graph::PartialCombine partial_combine = graph::PartialCombine::max;
  using monoid = max_p;
  template <Element T>
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }

};

struct reduce_min_p : detail::ChooserReduction<reduce_min_p> {
  static constexpr std::string_view name = "reduce_min";
  static constexpr graph::PartialCombine partial_combine = graph::PartialCombine::min;
  using monoid = min_p;
  template <Element T>
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }

};

/// Logical (bool) or bitwise (integer) reductions, as lax.reduce_and / reduce_or.
struct reduce_and_p : detail::Reduction<reduce_and_p> {
  static constexpr std::string_view name = "reduce_and";
  using monoid = and_p;
  template <Element T>
  static constexpr T identity() {
    static_assert(!FloatElement<T>, "reduce_and: logical reduction requires operand dtype bool or int");
    if constexpr (std::same_as<T, bool>) return true;
    else return T(~T{0});
  }

  // Not differentiable (bool and integer operands only).
  template <Element T>
  static fusion::Zero<T> jvp(Params const&, Array<T> const&, Array<T> const&, Array<T> const&) {
    return {};
  }
  template <Element T>
  static graph::NoCotangent vjp(Params const&, Array<T> const&, Array<T> const&, Array<T> const&) {
    return {};
  }
};

struct reduce_or_p : detail::Reduction<reduce_or_p> {
  static constexpr std::string_view name = "reduce_or";
  using monoid = or_p;
  template <Element T>
  static constexpr T identity() {
    static_assert(!FloatElement<T>, "reduce_or: logical reduction requires operand dtype bool or int");
    return T{0};
  }

  // Not differentiable (bool and integer operands only).
  template <Element T>
  static fusion::Zero<T> jvp(Params const&, Array<T> const&, Array<T> const&, Array<T> const&) {
    return {};
  }
  template <Element T>
  static graph::NoCotangent vjp(Params const&, Array<T> const&, Array<T> const&, Array<T> const&) {
    return {};
  }
};

}  // namespace jaxcc::primitives
