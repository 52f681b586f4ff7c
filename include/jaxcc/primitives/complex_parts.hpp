// The primitives between complex numbers and their real parts: lax.real,
// lax.imag, lax.conj and lax.complex. Their derivatives are not those of a
// complex-linear map (imag(t) is only real-linear in t), so each declares
// the transpose JAX gives it, and they are primitives of their own rather
// than ops of a fused region, whose cotangents are its tangents' (an
// elementwise map's Jacobian is diagonal: true of holomorphic ops only).
// They are dtype-generic (graph/primitive_of.hpp): a file that applies a
// transform compiles them once, whatever dtypes it uses. abs of a complex
// number, real-valued, is here for the same reason (complex_abs_p).
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"

namespace jaxcc::detail {

/// `f(std::type_identity<T>{})` for the complex element type T of `dtype`.
template <class F>
decltype(auto) with_complex_type(DType dtype, F&& f) {
  if (dtype == DType::complex128) return f(std::type_identity<std::complex<double>>{});
  if (dtype == DType::complex64) return f(std::type_identity<std::complex<float>>{});
  throw Error("internal error: a complex primitive applied to an array of dtype " + std::string(name(dtype)));
}

/// The real dtype of a complex dtype's parts, and the complex dtype of a real one's.
constexpr DType real_dtype(DType complex) noexcept {
  return complex == DType::complex128 ? DType::float64 : DType::float32;
}
constexpr DType complex_dtype(DType real) noexcept {
  return real == DType::float64 ? DType::complex128 : DType::complex64;
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

/// Which part a unary complex primitive takes.
enum class ComplexPart : std::uint8_t { real, imag, conj };

template <ComplexPart Part>
struct complex_part_p;
struct complex_p;

}  // namespace jaxcc::primitives

namespace jaxcc::detail {

// Each returns A: an AnyArray, or for conj (whose dtype is its operand's) an
// Array<T>; real_part, imag_part and make_complex change the dtype, so a
// typed caller passes AnyArrays and takes the result `as` its type.
template <class A>
A real_part(A const& x) {
  return jaxcc::detail::bind<primitives::complex_part_p<primitives::ComplexPart::real>>({}, x);
}
template <class A>
A imag_part(A const& x) {
  return jaxcc::detail::bind<primitives::complex_part_p<primitives::ComplexPart::imag>>({}, x);
}
template <class A>
A conjugate(A const& x) {
  return jaxcc::detail::bind<primitives::complex_part_p<primitives::ComplexPart::conj>>({}, x);
}
/// re + i im, of two real arrays of one dtype and shape.
template <class A>
A make_complex(A const& re, A const& im) {
  return jaxcc::detail::bind<primitives::complex_p>({}, re, im);
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

template <ComplexPart Part>
struct complex_part_p {
  static constexpr std::string_view name = Part == ComplexPart::real ? "real" : Part == ComplexPart::imag ? "imag" : "conj";
  static constexpr bool dtype_generic = true;
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <graph::ErasedArray A>
  static DType out_dtype(Params const&, A const& x) {
    return Part == ComplexPart::conj ? x.dtype() : detail::real_dtype(x.dtype());
  }
  template <graph::ErasedArray A>
  static Shape shape_rule(Params const&, A const& x) {
    if (!is_complex(x.dtype()))
      throw Error("internal error: " + std::string(name) + " of an array of dtype " + std::string(jaxcc::name(x.dtype())));
    return x.shape();
  }

  /// Linear: the tangent's part.
  template <graph::ErasedArray A>
  static A jvp(Params const& p, A const&, A const&, A const& t) {
    return detail::bind<complex_part_p>(p, t);
  }
  /// JAX's transposes: real's is ct + 0i, imag's -i ct (the conjugate of
  /// 0 + i ct), conj's the conjugate.
  template <graph::ErasedArray A>
  static A vjp(Params const&, A const& ct, A const&, A const&) {
    if constexpr (Part == ComplexPart::conj) return detail::conjugate(ct);
    else {
      auto const zero = detail::zeros_view(ct.dtype(), ct.shape());
      if constexpr (Part == ComplexPart::real) return detail::make_complex(ct, A(zero));
      else return detail::conjugate(detail::make_complex(A(zero), ct));
    }
  }
  template <graph::ErasedArray A>
  static std::pair<A, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                             std::span<graph::BatchDim const> dims, A const& x) {
    return {detail::bind<complex_part_p>(p, x), dims[0]};
  }
  /// Sharded jit: elementwise, so each device takes its part's parts.
  template <graph::ErasedArray A>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const&, A const& x) {
    return graph::Partitioned{detail::bind<complex_part_p>(p, x), layouts[0]};
  }

  template <graph::ErasedArray A>
  static A impl(Params const&, Shape out_shape, A const& x) {
    auto const dense = detail::as_contiguous(x);
    auto const [out, data] =
        detail::allocate_any(Part == ComplexPart::conj ? x.dtype() : detail::real_dtype(x.dtype()), out_shape);
    detail::with_complex_type(x.dtype(), [&, data = data]<class C>(std::type_identity<C>) {
      typed_row<C>(detail::data_of(dense), 1, data, out_shape.numel());
    });
    return out;
  }

 private:
  template <class C>
  static void typed_row(void const* in, std::int64_t step, void* out, std::int64_t count) {
    auto const* x = static_cast<C const*>(in);
    if constexpr (Part == ComplexPart::conj) {
      auto* y = static_cast<C*>(out);
      for (std::int64_t i = 0; i < count; ++i) y[i] = std::conj(x[i * step]);
    } else {
      auto* y = static_cast<typename C::value_type*>(out);
      for (std::int64_t i = 0; i < count; ++i) y[i] = Part == ComplexPart::real ? x[i * step].real() : x[i * step].imag();
    }
  }
};

/// lax.complex: re + i im, of real arrays of one dtype and shape.
struct complex_p {
  static constexpr std::string_view name = "complex";
  static constexpr bool dtype_generic = true;
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <graph::ErasedArray A>
  static DType out_dtype(Params const&, A const& re, A const&) {
    return detail::complex_dtype(re.dtype());
  }
  template <graph::ErasedArray A>
  static Shape shape_rule(Params const&, A const& re, A const& im) {
    if (re.dtype() != im.dtype() || (re.dtype() != DType::float32 && re.dtype() != DType::float64) ||
        !(re.shape() == im.shape()))
      throw Error("internal error: complex of " + graph::type_string(re.dtype(), re.shape()) + " and " +
                  graph::type_string(im.dtype(), im.shape()));
    return re.shape();
  }

  template <graph::ErasedArray A>
  static A jvp(Params const&, A const&, A const&, A const&, A const& t_re, A const& t_im) {
    return detail::make_complex(t_re, t_im);
  }
  /// JAX's transpose: real(ct) to the real part, -imag(ct) (imag(conj(ct))) to the imaginary one.
  template <graph::ErasedArray A>
  static std::tuple<A, A> vjp(Params const&, A const& ct, A const&, A const&, A const&) {
    return {detail::real_part(ct), detail::imag_part(detail::conjugate(ct))};
  }
  template <graph::ErasedArray A>
  static std::pair<A, graph::BatchDim> batch(Params const& p, graph::AxisData const& axis,
                                             std::span<graph::BatchDim const> dims, A const& re, A const& im) {
    auto const front = [&](A const& x, graph::BatchDim d) {
      return d ? detail::move_axis(x, *d, 0) : detail::broadcast_axis(x, axis.size, 0);
    };
    return {detail::bind<complex_p>(p, front(re, dims[0]), front(im, dims[1])), graph::BatchDim{0}};
  }

  template <graph::ErasedArray A>
  static A impl(Params const&, Shape out_shape, A const& re, A const& im) {
    auto const dense_re = detail::as_contiguous(re), dense_im = detail::as_contiguous(im);
    auto const [out, data] = detail::allocate_any(detail::complex_dtype(re.dtype()), out_shape);
    detail::with_complex_type(out.dtype(), [&, data = data]<class C>(std::type_identity<C>) {
      using R = typename C::value_type;
      auto const* x = static_cast<R const*>(detail::data_of(dense_re));
      auto const* y = static_cast<R const*>(detail::data_of(dense_im));
      auto* z = static_cast<C*>(data);
      for (std::int64_t i = 0; i < out_shape.numel(); ++i) z[i] = C(x[i], y[i]);
    });
    return out;
  }
};

/// abs of a complex array (lax.abs's complex case), a real array: |z|,
/// with JAX's derivative real(t conj(z) / |z|) (0 at z = 0), whose
/// transpose sends ct to ct conj(z) / |z|.
struct complex_abs_p {
  static constexpr std::string_view name = "abs";
  struct Params {
    friend bool operator==(Params const&, Params const&) = default;
  };

  template <ComplexElement C>
  static Shape shape_rule(Params const&, Array<C> const& x) {
    return x.shape();
  }
  template <ComplexElement C>
  static Array<real_t<C>> jvp(Params const&, Array<real_t<C>> const& out, Array<C> const& x, Array<C> const& t) {
    return detail::real_part(AnyArray(Array<C>(t * conj_over_abs(out, x)))).template as<real_t<C>>();
  }
  template <ComplexElement C>
  static Array<C> vjp(Params const&, Array<real_t<C>> const& ct, Array<real_t<C>> const& out, Array<C> const& x) {
    auto const zero = detail::zeros_view(dtype_of<real_t<C>>, ct.shape()).template as<real_t<C>>();
    auto const ct_complex = detail::make_complex(AnyArray(ct), AnyArray(zero)).template as<C>();
    return Array<C>(ct_complex * conj_over_abs(out, x));
  }
  template <ComplexElement C>
  static std::pair<Array<real_t<C>>, graph::BatchDim> batch(Params const& p, graph::AxisData const&,
                                                            std::span<graph::BatchDim const> dims, Array<C> const& x) {
    return {detail::bind<complex_abs_p>(p, x), dims[0]};
  }
  template <ComplexElement C>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const&, Array<C> const& x) {
    return graph::Partitioned{detail::bind<complex_abs_p>(p, x), layouts[0]};
  }
  template <ComplexElement C>
  static Array<real_t<C>> impl(Params const&, Shape out_shape, Array<C> const& x) {
    auto const dense = detail::contiguous(x);
    auto [out, data] = detail::allocate<real_t<C>>(std::move(out_shape));
    for (std::int64_t i = 0; i < out.size(); ++i) data[i] = std::abs(dense.data()[i]);
    return out;
  }

 private:
  /// conj(z) / |z|, with |z| read as 1 where it is 0 (JAX's _replace_zero).
  template <ComplexElement C>
  static Array<C> conj_over_abs(Array<real_t<C>> const& out, Array<C> const& x) {
    using R = real_t<C>;
    auto const safe = fusion::make_expr<select_p>(out == R(0), fusion::ScalarLeaf<R>{R(1)}, out);
    return Array<C>(detail::conjugate(x) / fusion::cast<C>(safe));  // conj keeps the dtype
  }
};

}  // namespace jaxcc::primitives

namespace jaxcc::detail {
template <ComplexElement C>
Array<real_t<C>> complex_abs(Array<C> const& x) {
  return jaxcc::detail::bind<primitives::complex_abs_p>({}, x);
}
}  // namespace jaxcc::detail
