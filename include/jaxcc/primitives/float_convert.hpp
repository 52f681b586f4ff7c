// float_convert: convert_element_type between the floating dtypes (float32,
// float64, bfloat16, float16) of a value whose dtype is known only at run
// time. It is how the transforms' type-erased passes convert (reverse mode's
// values::convert, and the 16-bit floats' operations computed through
// float32, graph/value_ops.hpp): dtype-generic (graph/primitive_of.hpp), so a
// file that applies a transform compiles it once, not a fused region per
// pair of dtypes. It prints as JAX's convert_element_type; each element is
// converted as the fused convert_element_type converts it (one rounding,
// to nearest even).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/primitives/bind.hpp"

namespace jaxcc::detail {

/// `f(std::type_identity<T>{})` for the floating element type T of `dtype`.
template <class F>
decltype(auto) with_float_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::float32: return f(std::type_identity<float>{});
    case DType::bfloat16: return f(std::type_identity<bfloat16>{});
    case DType::float16: return f(std::type_identity<float16>{});
    case DType::float64: return f(std::type_identity<double>{});
    default: break;
  }
  throw Error("internal error: float_convert of non-floating dtype " + std::string(name(dtype)));
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

struct float_convert_p {
  static constexpr std::string_view name = "convert_element_type";
  static constexpr bool dtype_generic = true;
  struct Params {
    DType from;
    DType to;
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <graph::ErasedArray A>
  static DType out_dtype(Params const& p, A const&) {
    return p.to;
  }
  template <graph::ErasedArray A>
  static Shape shape_rule(Params const& p, A const& x) {
    if (!is_floating(p.from) || !is_floating(p.to) || x.dtype() != p.from)
      throw Error("internal error: float_convert from " + std::string(jaxcc::name(p.from)) + " to " +
                  std::string(jaxcc::name(p.to)) + " of an array of dtype " + std::string(jaxcc::name(x.dtype())));
    return x.shape();
  }
  static std::string params_string(Params const& p) {
    return "new_dtype=" + std::string(jaxcc::name(p.to)) + " weak_type=False";
  }

  /// Tangents and cotangents convert as the values do (float to float).
  template <graph::ErasedArray A>
  static A jvp(Params const& p, A const&, A const&, A const& t) {
    return detail::bind<float_convert_p>(p, t);
  }
  template <graph::ErasedArray A>
  static A vjp(Params const& p, A const& ct, A const&, A const&) {
    return detail::bind<float_convert_p>({p.to, p.from}, ct);
  }
  template <graph::ErasedArray A>
  static std::pair<A, graph::BatchDim> batch(Params const& p, graph::AxisData const&, std::span<graph::BatchDim const> dims,
                                             A const& x) {
    return {detail::bind<float_convert_p>(p, x), dims[0]};
  }
  /// Sharded jit: elementwise, so each device converts its part.
  template <graph::ErasedArray A>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const&, A const& x) {
    return graph::Partitioned{detail::bind<float_convert_p>(p, x), layouts[0]};
  }

  /// jit's fused loops: `count` results from a row of the operand (step 0 or 1).
  static void run_row(Params const& p, std::span<void const* const> values, std::span<std::int64_t const> steps,
                      std::span<std::uint32_t const> operands, void* out, std::int64_t count) {
    convert_row(p, values[operands[0]], steps[operands[0]], out, count);
  }

  template <graph::ErasedArray A>
  static A impl(Params const& p, Shape out_shape, A const& x) {
    auto const dense = detail::as_contiguous(x);
    auto [out, data] = detail::allocate_any(p.to, out_shape);
    convert_row(p, detail::data_of(dense), 1, data, out_shape.numel());
    return out;
  }

 private:
  static void convert_row(Params const& p, void const* in, std::int64_t step, void* out, std::int64_t count) {
    detail::with_float_type(p.from, [&]<class From>(std::type_identity<From>) {
      detail::with_float_type(p.to, [&]<class To>(std::type_identity<To>) {
        auto const* x = static_cast<From const*>(in);
        auto* y = static_cast<To*>(out);
        for (std::int64_t i = 0; i < count; ++i) y[i] = convert_p<To>::scalar(x[i * step]);
      });
    });
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::detail {

/// x (of a floating dtype) converted to floating dtype `to`. (A template,
/// its operand's type spelled through its parameter, only so that a file
/// that never calls it does not compile the primitive: a call whose
/// arguments do not depend on the template is compiled where it is written.)
template <class T = void>
AnyArray float_converted(dependent_t<T, AnyArray> const& x, DType to) {
  if (x.dtype() == to) return x;
  return jaxcc::detail::bind<primitives::float_convert_p>({x.dtype(), to}, x);
}

}  // namespace jaxcc::detail
