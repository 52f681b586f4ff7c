// jax.lax's general gather and scatters, with XLA's dimension numbers:
// gather, index_take, scatter, scatter_add, scatter_sub, scatter_mul,
// scatter_min, scatter_max, scatter_apply. The index vector is the last
// dimension of the indices, as in JAX. Each is built as one-axis
// gather_p / scatter_add_p / scatter_apply_p on the flattened operand at
// flat positions computed from the indices (-1: filled or dropped), so the
// derivatives and batching rules are those primitives':
//  - gather: the operand's cotangent is scattered-added back;
//  - scatter_add / scatter_sub: linear in both operand and updates;
//  - scatter (set), scatter_min, scatter_max: differentiable around the
//    choice of which update lands where (JAX's scatter JVP does the same);
//  - scatter_mul: differentiable with unique_indices=true, else its
//    derivative raises JAX's error.
// Modes: "clip" clamps each start so the window fits; "fill" / "drop"
// (FILL_OR_DROP, scatter's default) fills a gathered window or drops an
// update window that does not fit; "promise_in_bounds" (gather's default)
// clamps for gather and drops for scatter, as XLA on CPU does. "one_hot"
// is not supported.
#pragma once

#include <algorithm>
#include <cctype>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/lax/loops.hpp"
#include "jaxcc/lax/reductions.hpp"
#include "jaxcc/lax/shape_ops.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/stop_gradient.hpp"

namespace jaxcc::lax {

/// lax.GatherDimensionNumbers.
struct GatherDimensionNumbers {
  Axes offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims, start_indices_batching_dims;
  GatherDimensionNumbers(Axes offset_dims_, Axes collapsed_slice_dims_, Axes start_index_map_,
                         Axes operand_batching_dims_ = {}, Axes start_indices_batching_dims_ = {})
      : offset_dims(std::move(offset_dims_)),
        collapsed_slice_dims(std::move(collapsed_slice_dims_)),
        start_index_map(std::move(start_index_map_)),
        operand_batching_dims(std::move(operand_batching_dims_)),
        start_indices_batching_dims(std::move(start_indices_batching_dims_)) {}
};

/// lax.ScatterDimensionNumbers.
struct ScatterDimensionNumbers {
  Axes update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims, operand_batching_dims,
      scatter_indices_batching_dims;
  ScatterDimensionNumbers(Axes update_window_dims_, Axes inserted_window_dims_, Axes scatter_dims_to_operand_dims_,
                          Axes operand_batching_dims_ = {}, Axes scatter_indices_batching_dims_ = {})
      : update_window_dims(std::move(update_window_dims_)),
        inserted_window_dims(std::move(inserted_window_dims_)),
        scatter_dims_to_operand_dims(std::move(scatter_dims_to_operand_dims_)),
        operand_batching_dims(std::move(operand_batching_dims_)),
        scatter_indices_batching_dims(std::move(scatter_indices_batching_dims_)) {}
};

}  // namespace jaxcc::lax

namespace jaxcc::detail {

/// A gather or scatter mode as JAX parses it: none or a string; true when
/// out-of-range windows are filled (gather) or dropped (scatter).
template <class = void>
bool fills_or_drops(std::optional<std::string_view> mode, bool scatter) {
  if (!mode) return scatter;
  if (*mode == "clip") return false;
  if (*mode == "fill" || *mode == "drop") return true;
  if (*mode == "promise_in_bounds") return scatter;
  if (*mode == "one_hot") throw Error("GatherScatterMode.ONE_HOT is not supported");
  throw_error("Unknown gather mode \"", *mode, "\"");
}

/// JAX's checks on a list of dimensions of a gather or scatter. (Templates
/// here, so that only a file that gathers or scatters compiles them.)
template <class = void>
struct DimsCheck {
  std::string_view op;
  void sorted(Axes const& dims, std::string_view name) const {
    for (std::size_t i = 1; i < dims.size(); ++i)
      if (dims[i] < dims[i - 1]) throw_error(name, " in ", op, " op must be sorted; got ", dims_tuple(dims));
  }
  void unique(Axes const& dims, std::string_view name) const {
    for (std::size_t i = 0; i < dims.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (dims[i] == dims[j]) throw_error(name, " in ", op, " op must not repeat; got: ", dims_tuple(dims), ".");
  }
  void in_range(Axes const& dims, std::int64_t rank, std::string_view name) const {
    for (auto d : dims)
      if (d < 0 || d >= rank)
        throw_error("Invalid ", name, " set in ", op, " op; valid range is [0, ", rank, "); got: ", d, ".");
  }
  void disjoint(Axes const& a, Axes const& b, std::string_view name_a, std::string_view name_b) const {
    for (auto d : a)
      if (std::find(b.begin(), b.end(), d) != b.end())
        throw_error(name_a, " and ", name_b, " in ", op, " op must be disjoint; got: ", dims_tuple(a), " and ",
                    dims_tuple(b), ".");
  }
  /// sorted, unique and in range (the order JAX checks them in).
  void sorted_set(Axes const& dims, std::int64_t rank, std::string_view name) const {
    sorted(dims, name);
    unique(dims, name);
    in_range(dims, rank, name);
  }
};

/// The batching dimensions shared by operand and indices: equal counts and sizes.
template <class = void>
void check_batching_dims(std::string_view op, Shape const& operand, Shape const& indices, Axes const& obd,
                                Axes const& ibd, std::string_view ibd_name) {
  DimsCheck<> const c{op};
  c.unique(ibd, ibd_name);
  c.in_range(ibd, indices.rank(), ibd_name);
  auto const Op = std::string(1, static_cast<char>(std::toupper(op[0]))) + std::string(op.substr(1));
  if (std::find(ibd.begin(), ibd.end(), indices.rank() - 1) != ibd.end())
    throw_error(Op, " op cannot have the index vector dimension as a batching dimension; got ", dims_tuple(ibd), ".");
  if (obd.size() != ibd.size())
    throw_error(Op, " op requires equal numbers of operand_batching_dims and ", ibd_name, ", got ", dims_tuple(obd),
                " and ", dims_tuple(ibd), ".");
  Shape a, b;
  for (std::size_t i = 0; i < obd.size(); ++i) {
    a.push_back(operand[static_cast<std::size_t>(obd[i])]);
    b.push_back(indices[static_cast<std::size_t>(ibd[i])]);
  }
  if (!(a == b))
    throw_error(Op, " op requires operand batching dimensions and indices batching dimensions to have the same shape, "
                "got ", a, " and ", b, ".");
}

/// JAX's _gather_shape_rule: the checks, then the output shape.
template <class = void>
Shape gather_shape(Shape const& operand, Shape const& indices, lax::GatherDimensionNumbers const& dn,
                          Shape const& slice_sizes) {
  DimsCheck<> const c{"gather"};
  auto const rank = operand.rank();
  if (indices.rank() < 1)
    throw_error("Gather index leaf dimension must be within [0, rank(indices) + 1). rank(indices) is 0 and gather "
                "index leaf dimension is -1.");
  auto const batch = indices.rank() - 1;
  c.sorted(dn.offset_dims, "offset_dims");
  c.unique(dn.offset_dims, "offset_dims");
  auto const out_rank = static_cast<std::int64_t>(dn.offset_dims.size()) + batch;
  for (std::size_t i = 0; i < dn.offset_dims.size(); ++i)
    if (dn.offset_dims[i] < 0 || dn.offset_dims[i] >= out_rank)
      throw_error("Offset dimension ", i, " in gather op is out of bounds; got ", dn.offset_dims[i],
                  ", but should have been in [0, ", out_rank, ")");
  if (static_cast<std::int64_t>(dn.start_index_map.size()) != indices[static_cast<std::size_t>(batch)])
    throw_error("Gather op has ", dn.start_index_map.size(), " elements in start_index_map and the bound of dimension ",
                "index_vector_dim=", batch, " of indices is ", indices[static_cast<std::size_t>(batch)],
                ". These two numbers must be equal.");
  for (std::size_t i = 0; i < dn.start_index_map.size(); ++i)
    if (dn.start_index_map[i] < 0 || dn.start_index_map[i] >= rank)
      throw_error("Invalid start_index_map; domain is [0, ", rank, "), got: ", i, "->", dn.start_index_map[i], ".");
  c.unique(dn.start_index_map, "start_index_map");
  c.sorted_set(dn.collapsed_slice_dims, rank, "collapsed_slice_dims");
  c.sorted_set(dn.operand_batching_dims, rank, "operand_batching_dims");
  c.disjoint(dn.collapsed_slice_dims, dn.operand_batching_dims, "collapsed_slice_dims", "operand_batching_dims");
  c.disjoint(dn.start_index_map, dn.operand_batching_dims, "start_index_map", "operand_batching_dims");
  check_batching_dims("gather", operand, indices, dn.operand_batching_dims, dn.start_indices_batching_dims,
                      "start_indices_batching_dims");
  if (slice_sizes.rank() != rank)
    throw_error("Gather op must have one slice size for every input dimension; got: len(slice_sizes)=",
                slice_sizes.rank(), ", input_shape.rank=", rank);
  if (slice_sizes.size() != dn.offset_dims.size() + dn.collapsed_slice_dims.size() + dn.operand_batching_dims.size())
    throw_error("All components of the offset index in a gather op must either be a offset dimension or explicitly "
                "collapsed/batching; got len(slice_sizes)=", slice_sizes.size(), ", output_slice_sizes=",
                dims_tuple(dn.offset_dims), ", collapsed_slice_dims=", dims_tuple(dn.collapsed_slice_dims),
                ", operand_batching_dims=", dims_tuple(dn.operand_batching_dims), ".");
  for (std::size_t i = 0; i < slice_sizes.size(); ++i)
    if (indices.numel() != 0 && !(slice_sizes[i] >= 0 && operand[i] >= slice_sizes[i]))
      throw_error("Slice size at index ", i, " in gather op is out of range, must be within [0, ", operand[i],
                  " + 1), got ", slice_sizes[i], ".");
  for (std::size_t i = 0; i < dn.collapsed_slice_dims.size(); ++i)
    if (auto const b = slice_sizes[static_cast<std::size_t>(dn.collapsed_slice_dims[i])]; b != 1)
      throw_error("Gather op can only collapse slice dims with bound 1, but bound is ", b, " for index ",
                  dn.collapsed_slice_dims[i], " at position ", i, ".");
  for (std::size_t i = 0; i < dn.operand_batching_dims.size(); ++i)
    if (auto const b = slice_sizes[static_cast<std::size_t>(dn.operand_batching_dims[i])]; b > 1)
      throw_error("Gather op can only have operand batching dims with bound 0/1, but bound is ", b, " for index ",
                  dn.operand_batching_dims[i], " at position ", i, ".");
  Shape out;
  std::size_t next_batch = 0, next_offset = 0;
  for (std::int64_t d = 0; d < out_rank; ++d) {
    if (std::find(dn.offset_dims.begin(), dn.offset_dims.end(), d) != dn.offset_dims.end()) {
      while (std::find(dn.collapsed_slice_dims.begin(), dn.collapsed_slice_dims.end(), next_offset) !=
                 dn.collapsed_slice_dims.end() ||
             std::find(dn.operand_batching_dims.begin(), dn.operand_batching_dims.end(), next_offset) !=
                 dn.operand_batching_dims.end())
        ++next_offset;
      out.push_back(slice_sizes[next_offset++]);
    } else {
      out.push_back(indices[next_batch++]);
    }
  }
  return out;
}

/// Row-major strides of `shape`, in elements.
template <class = void>
Axes row_major_strides(Shape const& shape) {
  Axes strides(shape.size(), 1);
  for (auto d = static_cast<std::int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[static_cast<std::size_t>(d)] = strides[static_cast<std::size_t>(d + 1)] * shape[static_cast<std::size_t>(d + 1)];
  return strides;
}

/// What a gather and a scatter share: the flat operand position of each
/// element of `out_shape` (the output, or the updates), from the start
/// indices at its batch positions `batch_out` plus its offsets along the
/// window positions `window_out` (operand dimension window_dims[j] at output
/// dimension window_out[j]); -1 where `drop` and a window does not fit.
struct FlatPositions {
  Shape operand;
  Axes start_map, window_sizes;  // window_sizes per operand dimension
  Axes operand_batching, indices_batching;
  Axes batch_out, window_dims, window_out;
  bool drop;

  template <IndexElement I>
  Array<std::int32_t> operator()(Array<I> const& indices_in, Shape const& out_shape) const {
    using P = std::int32_t;
    if (operand.numel() > std::numeric_limits<P>::max())
      throw_error("gather/scatter: operand of shape ", operand, " has too many elements for int32 positions");
    auto const strides = row_major_strides(operand);
    auto const indices = lax::convert_element_type<P>(indices_in);
    auto const batch = indices.ndim() - 1;
    Shape const batch_shape(indices.shape().begin(), indices.shape().begin() + batch);
    Array<P> start = rank0_array<P>(0);
    Array<bool> fits = rank0_array(true);
    for (std::size_t k = 0; k < start_map.size(); ++k) {
      auto const d = static_cast<std::size_t>(start_map[k]);
      auto const s = lax::index_in_dim(indices, static_cast<std::int64_t>(k), batch, false);
      auto const bound = static_cast<P>(operand[d] - window_sizes[d]);
      Array<P> const clamped = binary<primitives::min_p>(binary<primitives::max_p>(s, P{0}), bound);
      if (drop) fits = Array<bool>(fits & (s >= P{0}) & (s <= bound));
      start = Array<P>(start + (drop ? s : clamped) * static_cast<P>(strides[d]));
    }
    for (std::size_t i = 0; i < operand_batching.size(); ++i)
      start = Array<P>(start + lax::broadcasted_iota<P>(batch_shape, indices_batching[i]) *
                                   static_cast<P>(strides[static_cast<std::size_t>(operand_batching[i])]));
    if (drop) start = select_expr(fits, start, rank0_array<P>(-1));
    if (start.ndim() == 0) start = lax::broadcast(start, batch_shape);
    start = lax::broadcast_in_dim(start, out_shape, batch_out);
    Array<P> offset = lax::full<P>(out_shape, 0);
    for (std::size_t j = 0; j < window_dims.size(); ++j)
      offset = Array<P>(offset + lax::broadcasted_iota<P>(out_shape, window_out[j]) *
                                     static_cast<P>(strides[static_cast<std::size_t>(window_dims[j])]));
    return drop ? Array<P>(select_expr(start >= P{0}, Array<P>(start + offset), rank0_array<P>(-1))) : Array<P>(start + offset);
  }
};

/// The operand dimensions a window spans (not collapsed, not batching), in order.
template <class = void>
Axes window_dimensions(std::int64_t rank, Axes const& collapsed, Axes const& batching) {
  Axes out;
  for (std::int64_t d = 0; d < rank; ++d)
    if (std::find(collapsed.begin(), collapsed.end(), d) == collapsed.end() &&
        std::find(batching.begin(), batching.end(), d) == batching.end())
      out.push_back(d);
  return out;
}

/// The dimensions of a rank-`rank` shape not in `dims`, in order.
template <class = void>
Axes other_dimensions(std::int64_t rank, Axes const& dims) {
  Axes out;
  for (std::int64_t d = 0; d < rank; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) out.push_back(d);
  return out;
}

/// JAX's _scatter_shape_rule: the checks (the result has the operand's shape).
template <class = void>
void check_scatter(Shape const& operand, Shape const& indices, Shape const& updates,
                          lax::ScatterDimensionNumbers const& dn) {
  DimsCheck<> const c{"scatter"};
  auto const rank = operand.rank();
  if (indices.rank() < 1)
    throw_error("Scatter index leaf dimension must be within [0, rank(indices) + 1). rank(indices) is 0 and scatter "
                "index leaf dimension is -1.");
  auto const batch = indices.rank() - 1;
  auto const expected = batch + static_cast<std::int64_t>(dn.update_window_dims.size());
  if (updates.rank() != expected) throw_error("Updates tensor must be of rank ", expected, "; got ", updates.rank(), ".");
  c.sorted_set(dn.update_window_dims, updates.rank(), "update_window_dims");
  c.sorted_set(dn.inserted_window_dims, rank, "inserted_window_dims");
  c.sorted_set(dn.operand_batching_dims, rank, "operand_batching_dims");
  c.disjoint(dn.inserted_window_dims, dn.operand_batching_dims, "inserted_window_dims", "operand_batching_dims");
  c.disjoint(dn.scatter_dims_to_operand_dims, dn.operand_batching_dims, "scatter_dims_to_operand_dims",
             "operand_batching_dims");
  check_batching_dims("scatter", operand, indices, dn.operand_batching_dims, dn.scatter_indices_batching_dims,
                      "scatter_indices_batching_dims");
  auto const window = dn.update_window_dims.size() + dn.inserted_window_dims.size() + dn.operand_batching_dims.size();
  if (static_cast<std::int64_t>(window) != rank)
    throw_error("Scatter op has window of size ", window, "; doesn't match operand of rank ", rank, ".");
  if (static_cast<std::int64_t>(dn.scatter_dims_to_operand_dims.size()) != indices[static_cast<std::size_t>(batch)])
    throw_error("Scatter op has ", dn.scatter_dims_to_operand_dims.size(),
                " elements in scatter_dims_to_operand_dims and the bound of dimension index_vector_dim=", batch,
                " of indices is ", indices[static_cast<std::size_t>(batch)], ". These two numbers must be equal");
  for (std::size_t i = 0; i < dn.scatter_dims_to_operand_dims.size(); ++i)
    if (auto const d = dn.scatter_dims_to_operand_dims[i]; d < 0 || d >= rank)
      throw_error("Invalid scatter_dims_to_operand_dims mapping; domain is [0, ", rank, "), got: ", i, "->", d, ".");
  c.unique(dn.scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims");
  auto const window_dims = window_dimensions(rank, dn.inserted_window_dims, dn.operand_batching_dims);
  for (std::size_t i = 0; i < dn.update_window_dims.size(); ++i) {
    auto const u = updates[static_cast<std::size_t>(dn.update_window_dims[i])];
    auto const o = operand[static_cast<std::size_t>(window_dims[i])];
    if (o < u)
      throw_error("Bounds of the window dimensions of updates must not exceed the bounds of the corresponding "
                  "dimensions of operand. For dimension ", dn.update_window_dims[i], ", updates bound is ", u,
                  ", operand bound is ", o, ".");
  }
  auto const scatter_dims = other_dimensions(updates.rank(), dn.update_window_dims);
  for (std::size_t i = 0; i < scatter_dims.size(); ++i)
    if (auto const u = updates[static_cast<std::size_t>(scatter_dims[i])]; u != indices[i])
      throw_error("Bounds of the scatter dimensions of updates must be the same as the bounds of the corresponding "
                  "dimensions of scatter indices. For scatter dimension ", scatter_dims[i], ", updates bound is ", u,
                  ", indices bound is ", indices[i], ".");
}

/// The flat operand position of each update element (-1: dropped), flattened.
template <IndexElement I>
Array<std::int32_t> scatter_positions(Shape const& operand, Array<I> const& indices, Shape const& updates,
                                      lax::ScatterDimensionNumbers const& dn, std::optional<std::string_view> mode) {
  check_scatter(operand, indices.shape(), updates, dn);
  bool const drop = fills_or_drops(mode, true);
  auto const window_dims = window_dimensions(operand.rank(), dn.inserted_window_dims, dn.operand_batching_dims);
  Axes sizes(operand.size(), 1);
  for (std::size_t j = 0; j < window_dims.size(); ++j)
    sizes[static_cast<std::size_t>(window_dims[j])] = updates[static_cast<std::size_t>(dn.update_window_dims[j])];
  FlatPositions const where{operand, dn.scatter_dims_to_operand_dims, sizes, dn.operand_batching_dims,
                            dn.scatter_indices_batching_dims, other_dimensions(updates.rank(), dn.update_window_dims),
                            window_dims, dn.update_window_dims, drop};
  return lax::reshape(where(indices, updates), Shape{updates.numel()});
}

/// x (1-d) with the updates u combined in at positions `at` (-1: dropped).
/// Set, min and max are written with scatter-add, gathers and selects
/// around scatter_apply_p's (non-differentiable) choice of the winning
/// update, so their derivatives are those ops' (JAX's scatter JVP works the
/// same way); add and subtract are one scatter-add.
template <Element U>
Array<U> flat_scatter(primitives::scatter_p::Kind kind, Array<U> const& x, Array<std::int32_t> const& at,
                      Array<U> const& u) {
  using Kind = primitives::scatter_p::Kind;
  using Mode = primitives::gather_p::Mode;
  using C = compute_t<U>;  // a 16-bit float's constants as C++ numbers
  auto const scatter_add = [&](Array<U> const& base, Array<U> const& values) {
    return jaxcc::detail::bind<primitives::scatter_add_p>({0, Mode::fill, 0}, base, at, values);
  };
  auto const apply = [&](Kind k, auto const& base, auto const& values) {
    return jaxcc::detail::bind<primitives::scatter_apply_p>({k}, base, at, values);
  };
  auto const constant = [](auto v) { return rank0_array<U>(static_cast<U>(v)); };
  auto const n = x.size();
  auto const zeros = filled<U>(Shape{n}, 0);
  switch (kind) {
    case Kind::add: return scatter_add(x, u);
    case Kind::subtract: return scatter_add(x, Array<U>(-u));
    case Kind::multiply: return apply(Kind::multiply, x, u);
    default: break;
  }
  // Which update lands where: each update's id (1, 2, ...) scattered, then read back.
  auto const ids = Array<std::int32_t>(iota<std::int32_t>(at.size()) + 1);
  auto const landed = apply(Kind::set, filled<std::int32_t>(Shape{n}, 0), ids);
  Array<bool> const untouched = landed == 0;
  if (kind == Kind::set) {
    Array<bool> const kept = jaxcc::detail::bind<primitives::gather_p>({0, Mode::fill, {}, 0}, landed, at) == ids;
    return Array<U>(select_expr(untouched, x, constant(0)) + scatter_add(zeros, select_expr(kept, u, constant(0))));
  }
  // min / max: the extremum of the updates at each position (its value
  // from the kernel, its derivative split among the updates that attain
  // it), then combined with x.
  // As a C++ number (a 16-bit float's limits as float32, exactly).
  auto const lowest = static_cast<compute_t<U>>(kind == Kind::max ? std::numeric_limits<U>::lowest()
                                                                  : std::numeric_limits<U>::max());
  auto const extremum = apply(kind, filled<U>(Shape{n}, lowest), lax::stop_gradient(u));
  Array<U> reached = extremum;
  if constexpr (FloatElement<U>) {
    Array<bool> const attains = jaxcc::detail::bind<primitives::gather_p>({0, Mode::fill, {}, 0}, extremum, at) == u;
    auto const share = scatter_add(zeros, select_expr(attains, constant(1), constant(0)));
    auto const sum = scatter_add(zeros, select_expr(attains, u, constant(0)));
    // The value stays the kernel's; the difference below is zero but carries the derivative.
    reached = Array<U>(extremum + select_expr(lax::is_finite(sum),
                                              Array<U>((sum - lax::stop_gradient(sum)) /
                                                       binary<primitives::max_p>(share, C(1))),
                                              constant(0)));
  }
  Array<U> const combined = kind == Kind::max ? Array<U>(binary<primitives::max_p>(x, reached))
                                              : Array<U>(binary<primitives::min_p>(x, reached));
  return select_expr(untouched, x, combined);
}

/// A scatter of `kind` through the flat positions.
template <Element T, IndexElement I>
Array<T> scatter_kind(primitives::scatter_p::Kind kind, Array<T> const& x, Array<I> const& indices,
                      Array<T> const& updates, lax::ScatterDimensionNumbers const& dn,
                      std::optional<std::string_view> mode, bool unique_indices = false) {
  using Kind = primitives::scatter_p::Kind;
  auto const at = scatter_positions(x.shape(), indices, updates.shape(), dn, mode);
  auto const flat = lax::reshape(x, Shape{x.size()});
  auto const u = lax::reshape(updates, Shape{updates.size()});
  // A product at unique positions is x times ones with the factors set in:
  // differentiable, as JAX's unique-index scatter_mul is.
  auto const out = kind == Kind::multiply && unique_indices
                       ? Array<T>(flat * flat_scatter(Kind::set, filled<T>(Shape{x.size()}, 1), at, u))
                       : flat_scatter(kind, flat, at, u);
  return lax::reshape(out, x.shape());
}

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.gather: for each batch position b of `start_indices` (all but its
/// last dimension, the index vector), the window of `slice_sizes` of
/// `operand` starting at start_indices[b, k] along operand dimension
/// start_index_map[k] (and at b along the operand batching dimensions),
/// with the collapsed and batching dimensions dropped and the window's
/// other dimensions at `offset_dims` of the output. `mode`: see above;
/// `fill_value` (default NaN, the integer minimum, true) fills windows that
/// do not fit in "fill" mode.
template <ArrayLike A, ArrayLike Idx>
  requires IndexElement<value_type_t<Idx>>
Array<value_type_t<A>> gather(A const& operand, Idx const& start_indices, GatherDimensionNumbers const& dimension_numbers,
                              Shape const& slice_sizes, bool unique_indices = false, bool indices_are_sorted = false,
                              std::optional<std::string_view> mode = std::nullopt,
                              std::optional<double> fill_value = std::nullopt) {
  (void)unique_indices, (void)indices_are_sorted;
  auto const x = as_array(operand);
  auto const indices = as_array(start_indices);
  auto const& dn = dimension_numbers;
  auto const out_shape = detail::gather_shape(x.shape(), indices.shape(), dn, slice_sizes);
  bool const fill = detail::fills_or_drops(mode, false);
  Axes sizes(slice_sizes.begin(), slice_sizes.end());
  auto const window_dims = detail::window_dimensions(x.ndim(), dn.collapsed_slice_dims, dn.operand_batching_dims);
  detail::FlatPositions const where{x.shape(), dn.start_index_map, sizes, dn.operand_batching_dims,
                                    dn.start_indices_batching_dims,
                                    detail::other_dimensions(static_cast<std::int64_t>(out_shape.size()), dn.offset_dims),
                                    window_dims, dn.offset_dims, fill};
  auto const positions = where(indices, out_shape);
  using Mode = primitives::gather_p::Mode;
  auto const flat = reshape(x, Shape{x.size()});
  if (positions.size() == 0) return full<value_type_t<A>>(out_shape, 0);
  return detail::bind<primitives::gather_p>({0, fill ? Mode::fill : Mode::clip, fill_value, 0}, flat, positions);
}

/// lax.index_take: src[idxs[0][i], idxs[1][i], ...] along `axes` (indices
/// wrapped modulo each axis size) for each i, the other dimensions whole.
template <ArrayLike A, IndexElement I>
Array<value_type_t<A>> index_take(A const& src, std::vector<Array<I>> const& idxs, Axes const& axes) {
  auto const x = as_array(src);
  if (idxs.size() != axes.size())
    detail::throw_error("index_take: ", idxs.size(), " index arrays for ", axes.size(), " axes");
  std::vector<Array<I>> columns;
  for (std::size_t k = 0; k < idxs.size(); ++k) {
    auto const n = static_cast<I>(x.shape()[static_cast<std::size_t>(detail::normalize_axis(axes[k], x.ndim(), "index_take"))]);
    // idxs[k] % n with Python's sign (JAX's %): C's remainder, moved up by n when negative.
    Array<I> const r = rem(idxs[k], Array<I>(full<I>(idxs[k].shape(), n)));
    columns.push_back(expand_dims(Array<I>(detail::select_expr(r < I{0}, Array<I>(r + n), r)), {1}));
  }
  auto const indices = concatenate(columns, 1);
  Shape slice_sizes = x.shape();
  for (auto a : axes) slice_sizes[static_cast<std::size_t>(a)] = 1;
  Axes offset_dims;
  for (std::int64_t d = 1; d <= x.ndim() - static_cast<std::int64_t>(axes.size()); ++d) offset_dims.push_back(d);
  Axes collapsed = axes;
  std::sort(collapsed.begin(), collapsed.end());
  return gather(x, indices, GatherDimensionNumbers(offset_dims, collapsed, axes), slice_sizes);
}

#define JAXCC_LAX_SCATTER(fn, kind_name)                                                                           \
  template <ArrayLike A, ArrayLike Idx, ArrayLike U>                                                               \
    requires IndexElement<value_type_t<Idx>> && std::same_as<value_type_t<A>, value_type_t<U>>                    \
  Array<value_type_t<A>> fn(A const& operand, Idx const& scatter_indices, U const& updates,                        \
                            ScatterDimensionNumbers const& dimension_numbers, bool indices_are_sorted = false,      \
                            bool unique_indices = false, std::optional<std::string_view> mode = std::nullopt) {    \
    (void)indices_are_sorted;                                                                                      \
    return detail::scatter_kind(primitives::scatter_p::Kind::kind_name, as_array(operand), as_array(scatter_indices), \
                                as_array(updates), dimension_numbers, mode, unique_indices);                       \
  }

/// lax.scatter (set: the last update at a position wins), scatter_add,
/// scatter_sub, scatter_mul, scatter_min, scatter_max: each update window (updates at update_window_dims, its
/// batch position indexing scatter_indices, whose last dimension is the
/// index vector mapped by scatter_dims_to_operand_dims) combined into the
/// operand window it selects; repeated positions combine in order.
/// Out-of-range windows: see `mode` above.
JAXCC_LAX_SCATTER(scatter, set)
JAXCC_LAX_SCATTER(scatter_add, add)
JAXCC_LAX_SCATTER(scatter_sub, subtract)
JAXCC_LAX_SCATTER(scatter_mul, multiply)
JAXCC_LAX_SCATTER(scatter_min, min)
JAXCC_LAX_SCATTER(scatter_max, max)
#undef JAXCC_LAX_SCATTER

/// lax.scatter_apply: `func` (elementwise) applied to the operand elements
/// the windows of `update_shape` select, once per time an element is
/// selected. The counts are scattered first; the function then runs as many
/// times as the largest count, each time kept where the count is not yet
/// used up (a loop: reverse-mode differentiable when the indices are concrete).
template <ArrayLike A, ArrayLike Idx, class F>
  requires IndexElement<value_type_t<Idx>>
Array<value_type_t<A>> scatter_apply(A const& operand, Idx const& scatter_indices, F const& func,
                                     ScatterDimensionNumbers const& dimension_numbers, Shape const& update_shape = {},
                                     bool indices_are_sorted = false, bool unique_indices = false,
                                     std::optional<std::string_view> mode = std::nullopt) {
  (void)indices_are_sorted, (void)unique_indices;
  using T = value_type_t<A>;
  auto const x = as_array(operand);
  auto const at = detail::scatter_positions(x.shape(), as_array(scatter_indices), update_shape, dimension_numbers, mode);
  auto const ones = full<std::int32_t>(Shape{at.size()}, 1);
  auto const counts = reshape(detail::bind<primitives::scatter_add_p>({0, primitives::gather_p::Mode::fill, 0},
                                                                      full<std::int32_t>(Shape{x.size()}, 0), at, ones),
                              x.shape());
  auto const most = x.size() == 0 ? detail::rank0_array<std::int32_t>(0) : reduce_max(counts, [&] {
    Axes all;
    for (std::int64_t d = 0; d < x.ndim(); ++d) all.push_back(d);
    return all;
  }());
  auto const step = [&func, &counts](Array<std::int32_t> const& i, Array<T> const& y) {
    return Array<T>(detail::select_expr(i < counts, Array<T>(func(y)), y));
  };
  return fori_loop(detail::rank0_array<std::int32_t>(0), most, step, x);
}

}  // namespace jaxcc::lax
