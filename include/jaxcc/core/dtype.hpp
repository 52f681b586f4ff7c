// Element types, their names, and JAX's type-promotion lattice.
#pragma once

#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "jaxcc/core/half.hpp"

namespace jaxcc {

// The 16-bit floats, bfloat16 and float16, are core/half.hpp's. Arithmetic
// on arrays of them computes in float32 and rounds each op's result
// (fusion/loop.hpp), as XLA on CPU.

namespace detail {
template <class T>
inline constexpr bool is_half_float = std::same_as<T, bfloat16> || std::same_as<T, float16>;
template <class T>
inline constexpr bool is_complex_v = std::same_as<T, std::complex<float>> || std::same_as<T, std::complex<double>>;
}  // namespace detail

/// complex64 (`std::complex<float>`) and complex128 (`std::complex<double>`).
template <class T>
concept ComplexElement = detail::is_complex_v<T>;

/// The element types an Array may hold.
template <class T>
concept Element = std::same_as<T, float> || std::same_as<T, double> || detail::is_half_float<T> ||
                  std::same_as<T, std::int8_t> || std::same_as<T, std::int16_t> || std::same_as<T, std::int32_t> ||
                  std::same_as<T, std::int64_t> || std::same_as<T, std::uint8_t> || std::same_as<T, std::uint32_t> ||
                  std::same_as<T, bool> || ComplexElement<T>;

/// The real floating element types (jnp.floating).
template <class T>
concept FloatElement = std::floating_point<T> || detail::is_half_float<T>;

/// Element types with a tangent space, real or complex (jnp.inexact):
/// derivatives flow through these only (an integer or bool value's tangent
/// is JAX's float0, always zero).
template <class T>
concept InexactElement = FloatElement<T> || ComplexElement<T>;

namespace detail {
template <class T>
inline constexpr bool is_float = FloatElement<T>;
/// What a value of T is computed in: float32 for the 16-bit floats.
template <class T>
using compute_t = std::conditional_t<is_half_float<T>, float, T>;
template <class T>
struct real_part_type {
  using type = T;
};
template <class T>
struct real_part_type<std::complex<T>> {
  using type = T;
};
}  // namespace detail

/// The real type of T's parts: float for complex64, T itself for real types
/// (the dtype of jnp.real, jnp.imag and jnp.abs of an array of T).
template <Element T>
using real_t = typename detail::real_part_type<T>::type;

/// X(T) for each Element type: for overload sets that must name every dtype
/// (a braced list of arrays and expressions deduces no single T).
#define JAXCC_FOR_EACH_ELEMENT(X)                                                                                    \
  X(float) X(double) X(jaxcc::bfloat16) X(jaxcc::float16) X(std::int8_t) X(std::int16_t) X(std::int32_t) X(std::int64_t) \
      X(std::uint8_t) X(std::uint32_t) X(bool) X(std::complex<float>) X(std::complex<double>)

/// A C++ arithmetic or complex scalar usable beside arrays; like a Python
/// scalar in JAX it is weakly typed and takes the array's dtype where it can
/// (a complex one makes a real array's result complex).
template <class T>
concept Scalar = std::is_arithmetic_v<std::remove_cvref_t<T>> || detail::is_complex_v<std::remove_cvref_t<T>>;

/// A 16-bit float scalar (`jaxcc::bfloat16(1)`): beside arrays it keeps its
/// dtype, as a numpy scalar of that dtype (`jnp.bfloat16(1)`) does in JAX.
template <class T>
concept TypedScalar = detail::is_half_float<std::remove_cvref_t<T>>;

enum class DType { bool_, int32, int64, float32, float64, uint32, int8, uint8, int16, bfloat16, float16, complex64, complex128 };

/// How many element types there are (the size of per-dtype tables).
inline constexpr std::size_t dtype_count = 13;

constexpr std::string_view name(DType d) noexcept {
  switch (d) {
    case DType::bool_: return "bool";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::uint32: return "uint32";
    case DType::int8: return "int8";
    case DType::uint8: return "uint8";
    case DType::int16: return "int16";
    case DType::bfloat16: return "bfloat16";
    case DType::float16: return "float16";
    case DType::complex64: return "complex64";
    case DType::complex128: return "complex128";
  }
  return "?";
}

inline std::ostream& operator<<(std::ostream& os, DType d) { return os << name(d); }

/// Whether `d` is a real floating dtype (jnp.issubdtype(d, jnp.floating)).
constexpr bool is_floating(DType d) noexcept {
  return d == DType::float32 || d == DType::float64 || d == DType::bfloat16 || d == DType::float16;
}

/// Whether `d` is complex64 or complex128 (jnp.complexfloating).
constexpr bool is_complex(DType d) noexcept { return d == DType::complex64 || d == DType::complex128; }

/// Whether values of `d` have a tangent space, real or complex
/// (jnp.issubdtype(d, jnp.inexact)).
constexpr bool has_tangent_space(DType d) noexcept { return is_floating(d) || is_complex(d); }

/// Bytes per element (numpy's itemsize).
constexpr std::size_t item_size(DType d) noexcept {
  switch (d) {
    case DType::bool_: return sizeof(bool);
    case DType::int32: return 4;
    case DType::int64: return 8;
    case DType::float32: return 4;
    case DType::float64: return 8;
    case DType::uint32: return 4;
    case DType::int8:
    case DType::uint8: return 1;
    case DType::int16:
    case DType::bfloat16:
    case DType::float16: return 2;
    case DType::complex64: return 8;
    case DType::complex128: return 16;
  }
  return 0;
}

template <Element T>
inline constexpr DType dtype_of = std::same_as<T, bool>           ? DType::bool_
                                  : std::same_as<T, std::int32_t> ? DType::int32
                                  : std::same_as<T, std::int64_t> ? DType::int64
                                  : std::same_as<T, std::uint32_t> ? DType::uint32
                                  : std::same_as<T, std::int8_t>   ? DType::int8
                                  : std::same_as<T, std::uint8_t>  ? DType::uint8
                                  : std::same_as<T, std::int16_t>  ? DType::int16
                                  : std::same_as<T, bfloat16>      ? DType::bfloat16
                                  : std::same_as<T, float16>       ? DType::float16
                                  : std::same_as<T, float>        ? DType::float32
                                  : std::same_as<T, std::complex<float>>  ? DType::complex64
                                  : std::same_as<T, std::complex<double>> ? DType::complex128
                                                                  : DType::float64;

namespace detail {

/// `f(std::type_identity<T>{})` for the element type T of `dtype`.
template <class F>
decltype(auto) with_element_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::bool_: return f(std::type_identity<bool>{});
    case DType::int32: return f(std::type_identity<std::int32_t>{});
    case DType::int64: return f(std::type_identity<std::int64_t>{});
    case DType::float32: return f(std::type_identity<float>{});
    case DType::uint32: return f(std::type_identity<std::uint32_t>{});
    case DType::int8: return f(std::type_identity<std::int8_t>{});
    case DType::uint8: return f(std::type_identity<std::uint8_t>{});
    case DType::int16: return f(std::type_identity<std::int16_t>{});
    case DType::bfloat16: return f(std::type_identity<bfloat16>{});
    case DType::float16: return f(std::type_identity<float16>{});
    case DType::complex64: return f(std::type_identity<std::complex<float>>{});
    case DType::complex128: return f(std::type_identity<std::complex<double>>{});
    case DType::float64: break;
  }
  return f(std::type_identity<double>{});
}

// JAX's type-promotion lattice (jax/_src/dtypes.py, _type_promotion_lattice,
// not strict, x64 on), over JAX's types that take part in jaxcc's joins: the
// weak (Python-scalar) types i_, f_ and c_, and uint16 and uint64, which
// jaxcc has no arrays of, keep the joins JAX's. Each type's list holds the types
// right above it; a join is the least type above both.
struct Lattice {
  enum Node : std::uint8_t { b1, i_, u8, u16, u32, u64, i8, i16, i32, i64, f_, bf16, f16, f32, f64, c_, c64, c128, count };
  static constexpr std::uint32_t above_one(Node n) {
    auto const bit = [](Node m) { return std::uint32_t{1} << m; };
    switch (n) {
      case b1: return bit(i_);
      case i_: return bit(u8) | bit(i8);
      case u8: return bit(i16) | bit(u16);
      case u16: return bit(i32) | bit(u32);
      case u32: return bit(i64) | bit(u64);
      case u64: return bit(f_);
      case i8: return bit(i16);
      case i16: return bit(i32);
      case i32: return bit(i64);
      case i64: return bit(f_);
      case f_: return bit(bf16) | bit(f16) | bit(c_);
      case bf16:
      case f16: return bit(f32);
      case f32: return bit(f64) | bit(c64);
      case f64: return bit(c128);
      case c_: return bit(c64);
      case c64: return bit(c128);
      case c128:
      case count: break;
    }
    return 0;
  }
  /// n and every type above it.
  static constexpr std::uint32_t upper(Node n) {
    std::uint32_t set = std::uint32_t{1} << n;
    for (int m = 0; m < count; ++m)
      if (above_one(n) & (std::uint32_t{1} << m)) set |= upper(static_cast<Node>(m));
    return set;
  }
  static constexpr Node join(Node a, Node b) {
    auto const common = upper(a) & upper(b);
    for (int m = 0; m < count; ++m)
      if ((common & (std::uint32_t{1} << m)) && (upper(static_cast<Node>(m)) & common) == common)
        return static_cast<Node>(m);
    return c128;
  }
  static constexpr Node of(DType d) {
    switch (d) {
      case DType::bool_: return b1;
      case DType::int8: return i8;
      case DType::int16: return i16;
      case DType::int32: return i32;
      case DType::int64: return i64;
      case DType::uint8: return u8;
      case DType::uint32: return u32;
      case DType::float32: return f32;
      case DType::float64: return f64;
      case DType::bfloat16: return bf16;
      case DType::float16: return f16;
      case DType::complex64: return c64;
      case DType::complex128: return c128;
    }
    return f64;
  }
};

/// The element type of lattice node N; the weak types take jaxcc's
/// defaults (a weak int alone is int32, a weak float float32, a weak
/// complex complex64).
template <Lattice::Node N>
using lattice_element_t = std::conditional_t<
    N == Lattice::b1, bool,
    std::conditional_t<
        N == Lattice::i8, std::int8_t,
        std::conditional_t<
            N == Lattice::i16, std::int16_t,
            std::conditional_t<
                N == Lattice::i32 || N == Lattice::i_, std::int32_t,
                std::conditional_t<
                    N == Lattice::i64, std::int64_t,
                    std::conditional_t<
                        N == Lattice::u8, std::uint8_t,
                        std::conditional_t<
                            N == Lattice::u32, std::uint32_t,
                            std::conditional_t<
                                N == Lattice::bf16, bfloat16,
                                std::conditional_t<
                                    N == Lattice::f16, float16,
                                    std::conditional_t<
                                        N == Lattice::f64, double,
                                        std::conditional_t<
                                            N == Lattice::c128, std::complex<double>,
                                            std::conditional_t<N == Lattice::c64 || N == Lattice::c_,
                                                               std::complex<float>, float>>>>>>>>>>>>;

template <Element A, Element B>
struct promote {
  using type = lattice_element_t<Lattice::join(Lattice::of(dtype_of<A>), Lattice::of(dtype_of<B>))>;
};

// A weakly typed scalar S beside an array of T (JAX's weak types): a bool
// scalar is b1, an integer one i_, a floating one f_, a complex one c_.
template <Element T, class S>
struct promote_weak {
  static constexpr Lattice::Node weak = std::same_as<S, bool>               ? Lattice::b1
                                        : std::is_floating_point_v<S> ? Lattice::f_
                                        : is_complex_v<S>               ? Lattice::c_
                                                                      : Lattice::i_;
  using type = lattice_element_t<Lattice::join(Lattice::of(dtype_of<T>), weak)>;
};

// Element type a scalar literal has when it stands alone (e.g. jnp::full's value).
template <class S>
using scalar_element_t = std::conditional_t<
    is_complex_v<S>, S,
    std::conditional_t<std::same_as<S, bool>, bool,
                       std::conditional_t<std::is_floating_point_v<S>,
                                          std::conditional_t<std::same_as<S, double>, double, float>,
                                          std::conditional_t<(sizeof(S) > 4), std::int64_t, std::int32_t>>>>;

/// U, spelled through T. A template that binds a primitive at a fixed element
/// type (a bool mask beside operands of T) names it this way so that the
/// binding is instantiated with the template: a call whose arguments do not
/// depend on T is bound, and its whole rule graph instantiated, where the
/// template is defined, in every file that includes it.
template <class T, class U>
struct dependent_type {
  using type = U;
};
template <class T, class U>
using dependent_t = typename dependent_type<T, U>::type;

}  // namespace detail

/// JAX's promotion of two array dtypes (jnp.promote_types with x64 on).
template <Element A, Element B>
using promote_t = typename detail::promote<A, B>::type;

/// The dtype of `array<T> op scalar<S>` for a weakly typed C++ scalar.
template <Element T, Scalar S>
using promote_weak_t = typename detail::promote_weak<T, std::remove_cvref_t<S>>::type;

/// The result dtype of a floating-point function (sin, exp, divide) of T:
/// floats and complex numbers keep theirs, int64 goes to float64, the other
/// integers and bool to float32.
template <Element T>
using float_t = std::conditional_t<InexactElement<T>, T,
                                   std::conditional_t<std::same_as<T, std::int64_t>, double, float>>;

}  // namespace jaxcc
