// The slicing primitives: slice (static bounds and strides), dynamic_slice
// (start indices as arrays, clamped into range) and dynamic_update_slice.
// slice and dynamic_slice are views (offset and strides changed, nothing
// copied); dynamic_update_slice makes a new array. Helpers the layout
// primitives share live here too: `detail::write_region`, the loop that
// writes a block into a window of a new array, and `detail::throw_error`.
//
// Their derivatives are JAX's: each is linear in its array operands, so a
// JVP applies the same primitive to the tangents; slice transposes to pad
// (primitives/pad.hpp), dynamic_slice to a dynamic_update_slice into zeros,
// and dynamic_update_slice to the pair of those. Start indices take no
// cotangent.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "jaxcc/bits/strided.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"

namespace jaxcc {

/// An element type usable as an index: int32 or int64.
template <class I>
concept IndexElement = std::same_as<I, std::int32_t> || std::same_as<I, std::int64_t>;

namespace detail {

/// Throw jaxcc::Error with `parts` streamed into one message.
[[noreturn]] void throw_error(auto const&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  throw Error(os.str());
}

/// Walk `src` in step with a window of a buffer being built: the window
/// starts at `dst` and steps by `dst_strides` (one per dimension of src).
/// Calls `write(dst_element, src_element)` once per element.
template <Element T, class Write>
void write_region(Array<T> const& src, T* dst, Strides const& dst_strides, Write&& write) {
  auto layout = merge_dimensions<2>(src.shape(), {src.strides(), dst_strides});
  T const* in = src.data();
  for_each_row(layout, [&](auto const& off, std::int64_t n, auto const& step) {
    for (std::int64_t i = 0; i < n; ++i) write(dst[off[1] + i * step[1]], in[off[0] + i * step[0]]);
  });
}

/// Start indices read from rank-0 arrays, each clamped so that a window of
/// `sizes` fits inside `shape` (XLA's rule for dynamic slices).
template <IndexElement I>
Axes clamped_starts(std::vector<Array<I>> const& starts, Shape const& shape, Shape const& sizes) {
  Axes out;
  for (std::size_t d = 0; d < shape.size(); ++d)
    out.push_back(std::clamp<std::int64_t>(starts[d].item(), 0, shape[d] - sizes[d]));
  return out;
}

template <IndexElement I>
void check_scalar_starts(std::vector<Array<I>> const& starts, std::string_view op) {
  for (auto const& s : starts)
    if (s.ndim() != 0) {
      std::ostringstream os;
      os << "start_indices arguments to " << op << " must be scalars, got indices of shapes ";
      for (std::size_t i = 0; i < starts.size(); ++i) os << (i ? ", " : "") << starts[i].shape();
      throw Error(os.str());
    }
}

}  // namespace detail

namespace primitives {

// Defined below (and pad_p in primitives/pad.hpp, included at the end): the
// rules of one refer to the other.
struct pad_p;
struct dynamic_update_slice_p;

struct slice_p {
  static constexpr std::string_view name = "slice";
  struct Params {
    Axes start_indices;
    Axes limit_indices;
    Axes strides;  // empty: all ones
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    using detail::throw_error;
    auto const tuple = [](Axes const& a) { return Shape(a.begin(), a.end()); };
    auto const& start = p.start_indices;
    auto const& limit = p.limit_indices;
    for (auto v : start)
      if (v < 0) throw_error("slice start_indices must have every element be nonnegative, got ", tuple(start), ".");
    for (auto v : limit)
      if (v < 0) throw_error("slice limit_indices must have every element be nonnegative, got ", tuple(limit), ".");
    if (static_cast<std::int64_t>(start.size()) != x.ndim())
      throw_error("slice start_indices must have length equal to the number of dimensions of the operand, got "
                  "indices ", tuple(start), " for operand shape ", x.shape(), ".");
    if (start.size() != limit.size())
      throw_error("slice limit_indices must have the same length as start_indices, got start_indices ", tuple(start),
                  " and limit_indices ", tuple(limit), ".");
    for (std::size_t d = 0; d < start.size(); ++d)
      if (limit[d] > x.shape()[d])
        throw_error("slice limit_indices must be less than or equal to operand shape, got limit_indices ",
                    tuple(limit), " for operand shape ", x.shape(), ".");
    for (std::size_t d = 0; d < start.size(); ++d)
      if (limit[d] < start[d])
        throw_error("slice limit_indices must be greater than or equal to start_indices, got start_indices ",
                    tuple(start), " and limit_indices ", tuple(limit), ".");
    Shape out;
    for (std::size_t d = 0; d < start.size(); ++d) out.push_back(limit[d] - start[d]);
    if (p.strides.empty()) return out;
    if (static_cast<std::int64_t>(p.strides.size()) != x.ndim())
      throw_error("slice strides must have length equal to the number of dimensions of the operand, got strides ",
                  tuple(p.strides), " for operand shape ", x.shape(), ".");
    for (auto s : p.strides)
      if (s <= 0) throw_error("slice strides must be positive, got ", tuple(p.strides));
    for (std::size_t d = 0; d < out.size(); ++d) out[d] = out[d] > 0 ? (out[d] - 1) / p.strides[d] + 1 : 0;
    return out;
  }

  static std::string params_string(Params const& p) {
    auto const tuple = [](Axes const& a) { return to_string(Shape(a.begin(), a.end())); };
    return "limit_indices=" + tuple(p.limit_indices) + " start_indices=" + tuple(p.start_indices) +
           " strides=" + (p.strides.empty() ? std::string("None") : tuple(p.strides));
  }

  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const& t) {
    return detail::bind<slice_p>(p, t);
  }
  /// The cotangent padded with zeros back to the operand's shape; a strided
  /// slice's cotangent is spread out by interior padding (JAX's rule).
  template <Element T>
  static Array<T> vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const& x) {
    std::vector<std::array<std::int64_t, 3>> config;
    for (std::size_t d = 0; d < p.start_indices.size(); ++d) {
      auto const stride = p.strides.empty() ? 1 : p.strides[d];
      auto const n = ct.shape()[d];
      auto const real_limit = p.start_indices[d] + (n == 0 ? 0 : 1 + (n - 1) * stride);
      config.push_back({p.start_indices[d], x.shape()[d] - real_limit, stride - 1});
    }
    return detail::bind<pad_p>({std::move(config)}, ct, detail::zeros_view<T>(Shape{}));
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    auto offset = detail::offset_of(x);
    Strides strides = x.strides();
    for (std::size_t d = 0; d < strides.size(); ++d) {
      offset += p.start_indices[d] * strides[d];
      if (!p.strides.empty()) strides[d] *= p.strides[d];
    }
    // An empty result reads nothing; keep its offset inside the buffer.
    if (out_shape.numel() == 0) offset = detail::offset_of(x);
    return detail::view(x, std::move(out_shape), std::move(strides), offset);
  }
};

struct dynamic_slice_p {
  static constexpr std::string_view name = "dynamic_slice";
  struct Params {
    Shape slice_sizes;
  };

  template <Element T, IndexElement I>
  static Shape shape_rule(Params const& p, Array<T> const& x, std::vector<Array<I>> const& start_indices) {
    auto const& sizes = p.slice_sizes;
    if (sizes.rank() != x.ndim())
      detail::throw_error("dynamic_slice slice_sizes must have length equal to the number of dimensions of the "
                          "operand, got slice_sizes ", sizes, " for operand shape ", x.shape(), ".");
    if (static_cast<std::int64_t>(start_indices.size()) != x.ndim())
      detail::throw_error("dynamic_slice start_indices must have length equal to the number of dimensions of the "
                          "operand, got ", start_indices.size(), " indices for operand shape ", x.shape(), ".");
    for (std::size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d] > x.shape()[d])
        detail::throw_error("slice slice_sizes must be less than or equal to operand shape, got slice_sizes ", sizes,
                            " for operand shape ", x.shape(), ".");
    for (auto size : sizes)
      if (size < 0)
        detail::throw_error("slice slice_sizes must be greater than or equal to zero, got slice_sizes of ", sizes, ".");
    detail::check_scalar_starts(start_indices, "dynamic_slice");
    return sizes;
  }

  static std::string params_string(Params const& p) { return "slice_sizes=" + to_string(p.slice_sizes); }

  template <Element T, IndexElement I>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, std::vector<Array<I>> const& start_indices,
                      Array<T> const& t, std::vector<Array<I>> const&) {
    return detail::bind<dynamic_slice_p>(p, t, start_indices);
  }
  /// The cotangent written into zeros at the (clamped) window.
  template <Element T, IndexElement I>
  static std::tuple<Array<T>, graph::NoCotangent> vjp(Params const&, Array<T> const& ct, Array<T> const&,
                                                      Array<T> const& x, std::vector<Array<I>> const& start_indices) {
    return {detail::bind<dynamic_update_slice_p>({}, detail::zeros_view<T>(x.shape()), ct, start_indices), {}};
  }

  template <Element T, IndexElement I>
  static Array<T> impl(Params const&, Shape out_shape, Array<T> const& x, std::vector<Array<I>> const& start_indices) {
    auto const starts = detail::clamped_starts(start_indices, x.shape(), out_shape);
    auto offset = detail::offset_of(x);
    if (out_shape.numel() != 0)
      for (std::size_t d = 0; d < starts.size(); ++d) offset += starts[d] * x.strides()[d];
    return detail::view(x, std::move(out_shape), x.strides(), offset);
  }
};

struct dynamic_update_slice_p {
  static constexpr std::string_view name = "dynamic_update_slice";
  struct Params {};

  template <Element T, IndexElement I>
  static Shape shape_rule(Params const&, Array<T> const& x, Array<T> const& update,
                          std::vector<Array<I>> const& start_indices) {
    if (x.ndim() != update.ndim())
      detail::throw_error("dynamic_update_slice update must have the same rank as operand, got update shape ",
                          update.shape(), " for operand shape ", x.shape(), ".");
    if (static_cast<std::int64_t>(start_indices.size()) != x.ndim())
      detail::throw_error("dynamic_update_slice start_indices must have length equal to the rank of operand, got ",
                          start_indices.size(), " indices for operand shape ", x.shape(), ".");
    for (std::size_t d = 0; d < x.shape().size(); ++d)
      if (update.shape()[d] > x.shape()[d])
        detail::throw_error("dynamic_update_slice update shape must be smaller than operand shape, got update shape ",
                            update.shape(), " for operand shape ", x.shape(), ".");
    detail::check_scalar_starts(start_indices, "dynamic_update_slice");
    return x.shape();
  }

  template <Element T, IndexElement I>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const&,
                      std::vector<Array<I>> const& start_indices, Array<T> const& tx, Array<T> const& tu,
                      std::vector<Array<I>> const&) {
    return detail::bind<dynamic_update_slice_p>(p, tx, tu, start_indices);
  }
  /// The operand's cotangent is ct with the window zeroed; the update's is
  /// the window of ct.
  template <Element T, IndexElement I>
  static std::tuple<Array<T>, Array<T>, graph::NoCotangent> vjp(Params const& p, Array<T> const& ct, Array<T> const&,
                                                                Array<T> const&, Array<T> const& update,
                                                                std::vector<Array<I>> const& start_indices) {
    return {detail::bind<dynamic_update_slice_p>(p, ct, detail::zeros_view<T>(update.shape()), start_indices),
            detail::bind<dynamic_slice_p>({update.shape()}, ct, start_indices), {}};
  }

  template <Element T, IndexElement I>
  static Array<T> impl(Params const&, Shape out_shape, Array<T> const& x, Array<T> const& update,
                       std::vector<Array<I>> const& start_indices) {
    auto const starts = detail::clamped_starts(start_indices, x.shape(), update.shape());
    auto [out, data] = detail::allocate<T>(std::move(out_shape));
    x.copy_to(data);
    auto const strides = detail::contiguous_strides(x.shape());
    if (update.size() == 0) return out;
    T* window = data;
    for (std::size_t d = 0; d < starts.size(); ++d) window += starts[d] * strides[d];
    detail::write_region(update, window, strides, [](T& dst, T src) { dst = src; });
    return out;
  }
};

}  // namespace primitives
}  // namespace jaxcc

#include "jaxcc/primitives/pad.hpp"
