// concatenate: join arrays along an existing dimension. Always one new
// array; each operand (any strides) is written into its window of it.
#pragma once

#include <sstream>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/slice.hpp"

namespace jaxcc::primitives {

struct concatenate_p {
  static constexpr std::string_view name = "concatenate";
  struct Params {
    std::int64_t dimension;  // non-negative
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
