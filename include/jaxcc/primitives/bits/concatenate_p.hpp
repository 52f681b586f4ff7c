// concatenate: join arrays along an existing dimension. Always one new
// array; each operand (any strides) is written into its window of it.
// Its JVP concatenates the tangents; its VJP splits the cotangent back into
// one slice per operand, as JAX's; batched, it joins the batched operands.
#pragma once

#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/slice_p.hpp"

namespace jaxcc::primitives {

struct concatenate_p {
  static constexpr std::string_view name = "concatenate";
  struct Params {
    std::int64_t dimension;  // non-negative
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, std::vector<Array<T>> const& operands) {
    auto const fail = [&](auto const&... parts) {
      std::ostringstream shapes;
      for (std::size_t i = 0; i < operands.size(); ++i) shapes << (i ? ", " : "") << operands[i].shape();
      detail::throw_error(parts..., shapes.str(), '.');
    };
    if (operands.empty()) throw Error("concatenate expects at least one operand, got 0.");
    auto const rank = operands[0].ndim();
    for (auto const& x : operands)
      if (x.ndim() != rank) fail("Cannot concatenate arrays with different numbers of dimensions: got ");
    if (p.dimension < 0 || p.dimension >= rank)
      fail("concatenate dimension out of bounds: dimension ", p.dimension, " for shapes ");
    auto const axis = static_cast<std::size_t>(p.dimension);
    Shape out = operands[0].shape();
    out[axis] = 0;
    for (auto const& x : operands) {
      for (std::size_t d = 0; d < out.size(); ++d)
        if (d != axis && x.shape()[d] != out[d])
          fail("Cannot concatenate arrays with shapes that differ in dimensions other than the one being "
               "concatenated: concatenating along dimension ", p.dimension, " for shapes ");
      out[axis] += x.shape()[axis];
    }
    return out;
  }

  static std::string params_string(Params const& p) { return "dimension=" + std::to_string(p.dimension); }

  template <Element T>
  static Array<T> jvp(Params const& p, Array<T> const&, std::vector<Array<T>> const&,
                      std::vector<Array<T>> const& tangents) {
    return detail::bind<concatenate_p>(p, tangents);
  }
  template <Element T>
  static std::vector<Array<T>> vjp(Params const& p, Array<T> const& ct, Array<T> const&,
                                   std::vector<Array<T>> const& operands) {
    auto const axis = static_cast<std::size_t>(p.dimension);
    Axes start(ct.shape().size(), 0);
    Axes limit(ct.shape().begin(), ct.shape().end());
    std::vector<Array<T>> cts;
    for (auto const& x : operands) {
      limit[axis] = start[axis] + x.shape()[axis];
      cts.push_back(detail::bind<slice_p>({start, limit, {}}, ct));
      start[axis] = limit[axis];
    }
    return cts;
  }

  /// Every operand gets its mapped axis where the first mapped one has it
  /// (an unmapped operand is broadcast there, JAX's rule), and the join
  /// steps over that axis.
  template <Element T>
  static std::pair<Array<T>, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                                    std::span<graph::BatchDim const> dims,
                                                    std::vector<Array<T>> const& operands) {
    auto const b = *dims[detail::first_mapped(dims)];
    std::vector<Array<T>> batched;
    batched.reserve(operands.size());
    for (std::size_t i = 0; i < operands.size(); ++i)
      batched.push_back(detail::bdim_at(operands[i], dims[i], axis.size, b));
    return {detail::bind<concatenate_p>({p.dimension >= b ? p.dimension + 1 : p.dimension}, batched), b};
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, std::vector<Array<T>> const& operands) {
    auto const axis = static_cast<std::size_t>(p.dimension);
    auto const strides = detail::contiguous_strides(out_shape);
    auto [out, data] = detail::allocate<T>(std::move(out_shape));
    std::int64_t position = 0;  // where the next operand starts along `axis`
    for (auto const& x : operands) {
      if (x.size() != 0)
        detail::write_region(x, data + position * strides[axis], strides, [](T& dst, T src) { dst = src; });
      position += x.shape()[axis];
    }
    return out;
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::lax {

/// lax.concatenate: join `operands` along `dimension` (non-negative); the
/// operands' shapes must agree everywhere else.
template <Element T>
Array<T> concatenate(std::vector<Array<T>> const& operands, std::int64_t dimension) {
  if (operands.empty()) throw Error("concatenate requires a non-empty sequences of arrays");
  if (operands.size() == 1) return operands[0];
  return detail::bind<primitives::concatenate_p>({dimension}, operands);
}

}  // namespace jaxcc::lax
