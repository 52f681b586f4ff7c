// pad: surround each dimension with `lo` and `hi` copies of a scalar and put
// `interior` copies between neighbouring elements, as lax.pad. Negative lo
// or hi crop instead. One new array: filled with the padding value, then
// the operand's surviving elements written at their strided positions.
//
// pad is linear in both operands. Its JVP pads the operand's tangent with
// the padding value's; its VJP (JAX's _pad_transpose) crops and
// de-interleaves the cotangent for the operand, and gives the padding value
// the sum of everything else. It is the transpose of slice. Its batching
// rule is JAX's.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/slice_p.hpp"

namespace jaxcc::primitives {

// The VJP's reduction, bound by name (bits/reduce_p.hpp; primitives/pad.hpp
// brings it).
struct reduce_sum_p;

struct pad_p {
  static constexpr std::string_view name = "pad";
  /// Per dimension: (lo, hi, interior).
  using PaddingConfig = std::vector<std::array<std::int64_t, 3>>;
  struct Params {
    PaddingConfig padding_config;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x, Array<T> const& padding_value) {
    if (padding_value.ndim() != 0)
      detail::throw_error("padding_value must be a scalar; got np.shape(padding_value)=", padding_value.shape());
    auto const config = config_string(p.padding_config);
    if (static_cast<std::int64_t>(p.padding_config.size()) != x.ndim())
      detail::throw_error("length of padding_config must equal the number of axes of operand, got padding_config ",
                          config, " for operand shape ", x.shape());
    for (auto const& [lo, hi, interior] : p.padding_config)
      if (interior < 0)
        detail::throw_error("interior padding in padding_config must be nonnegative, got padding_config ", config);
    Shape out;
    for (std::size_t d = 0; d < p.padding_config.size(); ++d) {
      auto const [lo, hi, interior] = p.padding_config[d];
      auto const n = x.shape()[d];
      out.push_back(lo + hi + (n == 0 ? 0 : 1 + (interior + 1) * (n - 1)));
    }
    for (auto d : out)
      if (d < 0)
        detail::throw_error("Dimension size after padding is not at least 0, got result shape ", out,
                            ", for padding_config ", config, " and operand shape ", x.shape());
    return out;
  }

  static std::string params_string(Params const& p) { return "padding_config=" + config_string(p.padding_config); }

  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, Array<T> const&, Array<T> const&, Array<T> const& t,
                      Array<T> const& t_padding_value) {
    return detail::bind<pad_p>(p, t, t_padding_value);
  }

  template <Element T>
  static auto vjp(Params const& p, Array<T> const& ct, Array<T> const&, Array<T> const&, Array<T> const&) {
    if constexpr (std::same_as<T, bool>) {
      return std::tuple<graph::NoCotangent, graph::NoCotangent>{};
    } else {
      PaddingConfig unpad;
      Axes start, limit, strides;
      bool crops = false, strided = false;
      for (auto const& [lo, hi, interior] : p.padding_config) {
        unpad.push_back({-lo, -hi, 0});
        crops = crops || lo != 0 || hi != 0;
        strided = strided || interior != 0;
        strides.push_back(interior + 1);
      }
      auto operand_ct = crops ? detail::bind<pad_p>({std::move(unpad)}, ct, detail::zeros_view<T>(Shape{})) : ct;
      if (strided) {
        start.assign(strides.size(), 0);
        limit.assign(operand_ct.shape().begin(), operand_ct.shape().end());
        operand_ct = detail::bind<slice_p>({start, limit, strides}, operand_ct);
      }
      Array<T> const padding_value_ct = total(ct) - total(operand_ct);
      return std::tuple{operand_ct, padding_value_ct};
    }
  }

  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims, Array<T> const& x,
                                                    Array<T> const& padding_value);

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x, Array<T> const& padding_value) {
    auto const out_strides = detail::contiguous_strides(out_shape);
    auto [out, data] = detail::allocate<T>(std::move(out_shape));
    std::fill(data, data + out.size(), padding_value.item());
    // Per dimension, the operand's elements [first, last) land inside the
    // result, the first at lo + first * step.
    Shape kept;
    Strides dst_strides;
    auto src_offset = detail::offset_of(x);
    T* dst = data;
    for (std::size_t d = 0; d < p.padding_config.size(); ++d) {
      auto const [lo, hi, interior] = p.padding_config[d];
      auto const step = interior + 1;
      auto const room = out.shape()[d] - lo;  // positions from lo to the result's end
      auto const first = lo < 0 ? (-lo + step - 1) / step : 0;
      auto const last = room > 0 ? std::min(x.shape()[d], (room + step - 1) / step) : 0;
      if (last <= first) return out;
      kept.push_back(last - first);
      src_offset += first * x.strides()[d];
      dst += (lo + first * step) * out_strides[d];
      dst_strides.push_back(step * out_strides[d]);
    }
    auto const src = detail::view(x, std::move(kept), x.strides(), src_offset);
    detail::write_region(src, dst, dst_strides, [](T& to, T from) { to = from; });
    return out;
  }

 private:
  /// `((1, 2, 0),)`: the config as the Python tuple JAX prints.
  static std::string config_string(PaddingConfig const& config) {
    std::ostringstream os;
    os << '(';
    for (std::size_t d = 0; d < config.size(); ++d)
      os << (d ? ", " : "") << '(' << config[d][0] << ", " << config[d][1] << ", " << config[d][2] << ')';
    if (config.size() == 1) os << ',';
    os << ')';
    return os.str();
  }
  /// The sum of all elements, as a rank-0 array.
  template <Element T>
  static Array<T> total(Array<T> const& x) {
    if (x.ndim() == 0) return x;
    Axes all;
    for (std::int64_t d = 0; d < x.ndim(); ++d) all.push_back(d);
    return detail::bind<reduce_sum_p>({all}, x);
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// lax.pad: per dimension, `lo` padding values before, `hi` after and
/// `interior` between elements (negative lo / hi crop). A new array.
template <ArrayLike A>
Array<value_type_t<A>> pad(A const& operand, value_type_t<A> padding_value,
                           primitives::pad_p::PaddingConfig const& padding_config) {
  auto [value, data] = detail::allocate<value_type_t<A>>(Shape{});
  data[0] = padding_value;
  return detail::bind<primitives::pad_p>({padding_config}, as_array(operand), value);
}
template <ArrayLike A, ArrayLike V>
Array<value_type_t<A>> pad(A const& operand, V const& padding_value,
                           primitives::pad_p::PaddingConfig const& padding_config) {
  static_assert(std::same_as<value_type_t<A>, value_type_t<V>>,
                "lax::pad: operand and padding_value must have the same dtype; convert one with astype<T>()");
  return detail::bind<primitives::pad_p>({padding_config}, as_array(operand), as_array(padding_value));
}

}  // namespace jaxcc::lax


namespace jaxcc::primitives {

/// An unmapped padding value: pad around the mapped axis. A mapped one: pad
/// with zeros, then select each example's value wherever padding went (an
/// unmapped operand is padded once, unbroadcast).
template <Element T>
std::pair<Array<T>, graph::BatchDim> pad_p::batch(Params const& p, graph::AxisData const&,
                                                  std::span<graph::BatchDim const> dims, Array<T> const& x,
                                                  Array<T> const& padding_value) {
  auto q = p;
  if (!dims[1]) {
    auto const b = *dims[0];
    q.padding_config.insert(q.padding_config.begin() + b, std::array<std::int64_t, 3>{0, 0, 0});
    return {detail::bind<pad_p>(q, x, padding_value), b};
  }
  auto const operand = detail::mapped_at_front(x, dims[0]);
  if (dims[0]) q.padding_config.insert(q.padding_config.begin(), std::array<std::int64_t, 3>{0, 0, 0});
  auto const padded = detail::bind<pad_p>(q, operand, detail::zeros_view<T>(Shape{}));
  Shape const example(operand.shape().begin() + (dims[0] ? 1 : 0), operand.shape().end());
  using Mask = detail::dependent_t<T, bool>;
  auto const is_padding = detail::bind<pad_p>(p, detail::zeros_view<Mask>(example), detail::rank0_array(Mask{true}));
  auto const value = detail::batched_for_broadcast(padding_value, dims[1], example.rank());
  return {Array<T>(fusion::make_expr<select_p>(is_padding, value, padded)), 0};
}

}  // namespace jaxcc::primitives
