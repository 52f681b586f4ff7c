// Questions about dtypes, as jax.numpy answers them: finfo and iinfo (the
// machine limits of an element type), promote_types and result_type (JAX's
// promotion lattice, the one promote_t and promote_weak_t follow), can_cast
// (numpy's casting rules), isdtype (the array API's kinds) and issubdtype
// (numpy's generic types: jnp::floating, jnp::integer, ...).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/dtype.hpp"
#include "jaxcc/core/error.hpp"

namespace jaxcc::detail {

/// The dtype of a join in JAX's lattice; a weak type alone takes jaxcc's
/// 32-bit default (int32, float32). uint16 and uint64 are never the join of
/// jaxcc's types.
constexpr DType lattice_dtype(Lattice::Node n) {
  switch (n) {
    case Lattice::b1: return DType::bool_;
    case Lattice::i8: return DType::int8;
    case Lattice::i16: return DType::int16;
    case Lattice::i_:
    case Lattice::i32: return DType::int32;
    case Lattice::i64: return DType::int64;
    case Lattice::u8: return DType::uint8;
    case Lattice::u32: return DType::uint32;
    case Lattice::bf16: return DType::bfloat16;
    case Lattice::f16: return DType::float16;
    case Lattice::f_:
    case Lattice::f32: return DType::float32;
    case Lattice::c_:
    case Lattice::c64: return DType::complex64;
    case Lattice::c128: return DType::complex128;
    default: return DType::float64;
  }
}

/// An argument of result_type as a node of the lattice: a dtype, an array's
/// dtype (an Array or AnyArray), a 16-bit float scalar's dtype, or a C++
/// scalar's weak type.
template <class A>
constexpr Lattice::Node lattice_node(A const& a) {
  using V = std::remove_cvref_t<A>;
  if constexpr (std::same_as<V, DType>) {
    return Lattice::of(a);
  } else if constexpr (TypedScalar<V>) {
    return Lattice::of(dtype_of<V>);
  } else if constexpr (std::same_as<V, bool>) {
    return Lattice::b1;
  } else if constexpr (Scalar<V>) {
    return std::is_floating_point_v<V> ? Lattice::f_ : is_complex_v<V> ? Lattice::c_ : Lattice::i_;
  } else {
    static_assert(requires { { a.dtype() } -> std::same_as<DType>; },
                  "jnp::result_type takes dtypes, arrays and scalars");
    return Lattice::of(a.dtype());
  }
}

constexpr bool is_signed_integer(DType d) {
  return d == DType::int8 || d == DType::int16 || d == DType::int32 || d == DType::int64;
}
constexpr bool is_unsigned_integer(DType d) { return d == DType::uint8 || d == DType::uint32; }

/// numpy's order of kinds for "same_kind" casts: bool, unsigned, signed, floating, complex.
constexpr int numpy_cast_kind(DType d) {
  return d == DType::bool_ ? 0 : is_unsigned_integer(d) ? 1 : is_signed_integer(d) ? 2 : is_complex(d) ? 4 : 3;
}

/// numpy's "safe" casts between jaxcc's dtypes (ml_dtypes' for bfloat16): bool
/// to anything; an integer to a wider one that holds all its values, or to a
/// float holding ints of its size (16-bit floats: 1 byte, float32: 2,
/// float64: 8, int64 included); a float to a wider float, but not between
/// float16 and bfloat16; to complex what the real part holds, complex to a
/// wider complex only.
constexpr bool numpy_safe_cast(DType from, DType to) {
  if (from == to || from == DType::bool_) return true;
  if (to == DType::bool_ || is_complex(from)) return is_complex(from) && is_complex(to) && item_size(to) > item_size(from);
  // To a complex dtype: what its real parts hold safely.
  if (is_complex(to)) return numpy_safe_cast(from, to == DType::complex128 ? DType::float64 : DType::float32);
  auto const from_size = item_size(from), to_size = item_size(to);
  if (is_floating(from)) return is_floating(to) && to_size > from_size;
  if (is_floating(to)) return from_size <= (to_size == 2 ? 1 : to_size == 4 ? 2 : 8);
  if (is_signed_integer(from)) return is_signed_integer(to) && to_size > from_size;
  return to_size > from_size;  // unsigned to a wider signed or unsigned integer
}

/// numpy's generic scalar types, for issubdtype: each has one parent.
enum class DTypeCategoryId : std::uint8_t {
  generic,
  number,
  integer,
  signedinteger,
  unsignedinteger,
  inexact,
  floating,
  complexfloating,
  bool_
};

constexpr DTypeCategoryId category_parent(DTypeCategoryId c) {
  using enum DTypeCategoryId;
  switch (c) {
    case number:
    case bool_: return generic;
    case integer:
    case inexact: return number;
    case signedinteger:
    case unsignedinteger: return integer;
    case floating:
    case complexfloating: return inexact;
    default: return generic;
  }
}

/// 2^e as a float of type T (e within T's normal exponents), exact.
template <FloatElement T>
constexpr T finfo_power_of_two(int e) {
  if constexpr (std::floating_point<T>) {
    T v = 1;
    for (; e > 0; --e) v *= 2;
    for (; e < 0; ++e) v /= 2;
    return v;
  } else {
    int const mantissa_bits = std::numeric_limits<T>::digits - 1;
    int const bias = std::numeric_limits<T>::max_exponent - 1;
    return T(from_bits, static_cast<std::uint16_t>((e + bias) << mantissa_bits));
  }
}

/// A positive normal double rounded to nearest (ties to even) in T, at compile time.
template <FloatElement T>
constexpr T finfo_round(double v) {
  if constexpr (std::floating_point<T>) {
    return static_cast<T>(v);
  } else {
    int const mantissa_bits = std::numeric_limits<T>::digits - 1;
    int e = 0;
    for (; v >= 2; v /= 2) ++e;
    for (; v < 1; v *= 2) --e;
    double scaled = v - 1;
    for (int i = 0; i < mantissa_bits; ++i) scaled *= 2;
    auto q = static_cast<std::uint32_t>(scaled);
    double const rest = scaled - q;
    if (rest > 0.5 || (rest == 0.5 && (q & 1u))) ++q;
    if (q == (1u << mantissa_bits)) q = 0, ++e;
    int const bias = std::numeric_limits<T>::max_exponent - 1;
    return T(from_bits, static_cast<std::uint16_t>(((e + bias) << mantissa_bits) | static_cast<int>(q)));
  }
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// Machine limits of a floating-point type, as jnp.finfo(T) (ml_dtypes'
/// finfo for bfloat16 and float16). The values have type T.
template <FloatElement T>
struct finfo {
 private:
  using limits = std::numeric_limits<T>;

 public:
  static constexpr DType dtype = dtype_of<T>;
  static constexpr int bits = static_cast<int>(sizeof(T) * 8);
  static constexpr int nmant = limits::digits - 1;
  static constexpr int nexp = bits - 1 - nmant;
  static constexpr int iexp = nexp;
  static constexpr int machep = -nmant;
  static constexpr int negep = -nmant - 1;
  static constexpr int maxexp = limits::max_exponent;
  static constexpr int minexp = limits::min_exponent - 1;
  /// Decimal digits: int(-log10(eps)).
  static constexpr int precision = nmant * 30103 / 100000;
  static constexpr T eps = detail::finfo_power_of_two<T>(machep);
  static constexpr T epsneg = detail::finfo_power_of_two<T>(negep);
  static constexpr T max = limits::max();
  static constexpr T min = limits::lowest();
  static constexpr T tiny = limits::min();
  static constexpr T smallest_normal = limits::min();
  static constexpr T smallest_subnormal = limits::denorm_min();
  /// 10^-precision in T.
  static constexpr T resolution = [] {
    double r = 1;
    for (int i = 0; i < precision; ++i) r /= 10;
    return detail::finfo_round<T>(r);
  }();
};

/// Machine limits of an integer type, as jnp.iinfo(T): `kind` is numpy's
/// 'i' (signed) or 'u' (unsigned).
template <std::integral T>
  requires(Element<T> && !std::same_as<T, bool>)
struct iinfo {
  static constexpr DType dtype = dtype_of<T>;
  static constexpr int bits = static_cast<int>(sizeof(T) * 8);
  static constexpr T min = std::numeric_limits<T>::min();
  static constexpr T max = std::numeric_limits<T>::max();
  static constexpr char kind = std::is_signed_v<T> ? 'i' : 'u';
};

/// jnp.promote_types(a, b): the least dtype both promote to, as promote_t.
constexpr DType promote_types(DType a, DType b) {
  return detail::lattice_dtype(detail::Lattice::join(detail::Lattice::of(a), detail::Lattice::of(b)));
}

/// jnp.result_type(*args) over dtypes, arrays (their dtype) and scalars: a
/// C++ arithmetic scalar is weakly typed, as a Python scalar (promote_weak_t),
/// a 16-bit float scalar keeps its dtype; a result that stays weak takes
/// jaxcc's 32-bit default (int32, float32, complex64).
template <class... Args>
constexpr DType result_type(Args const&... args) {
  static_assert(sizeof...(Args) > 0, "jnp::result_type: at least one array or dtype is required");
  detail::Lattice::Node const nodes[] = {detail::lattice_node(args)...};
  auto node = nodes[0];
  for (auto n : nodes) node = detail::Lattice::join(node, n);
  return detail::lattice_dtype(node);
}

/// jnp.can_cast(from, to, casting): numpy's rules. "no" and "equiv" allow
/// only the same dtype (jaxcc's are all native-endian), "safe" a cast that
/// keeps every value, "same_kind" also one within a kind or to a later kind
/// (bool, unsigned, signed, floating), "unsafe" any.
constexpr bool can_cast(DType from, DType to, std::string_view casting = "safe") {
  if (casting == "no" || casting == "equiv") return from == to;
  if (casting == "safe") return detail::numpy_safe_cast(from, to);
  if (casting == "same_kind")
    return detail::numpy_safe_cast(from, to) || detail::numpy_cast_kind(from) <= detail::numpy_cast_kind(to);
  if (casting == "unsafe") return true;
  throw Error("can_cast: casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got '" +
              std::string(casting) + "')");
}

/// jnp.isdtype(dtype, kind) for a kind of the array API: "bool", "signed
/// integer", "unsigned integer", "integral", "real floating", "complex
/// floating", "numeric".
constexpr bool isdtype(DType dtype, std::string_view kind) {
  if (kind == "bool") return dtype == DType::bool_;
  if (kind == "signed integer") return detail::is_signed_integer(dtype);
  if (kind == "unsigned integer") return detail::is_unsigned_integer(dtype);
  if (kind == "integral") return detail::is_signed_integer(dtype) || detail::is_unsigned_integer(dtype);
  if (kind == "real floating") return is_floating(dtype);
  if (kind == "complex floating") return is_complex(dtype);
  if (kind == "numeric") return dtype != DType::bool_;
  throw Error("isdtype: unrecognized kind '" + std::string(kind) +
              "'; expected one of 'bool', 'signed integer', 'unsigned integer', 'integral', 'real floating', "
              "'complex floating', 'numeric', or a dtype");
}

/// jnp.isdtype(dtype, other): whether they are the same dtype.
constexpr bool isdtype(DType dtype, DType kind) { return dtype == kind; }

/// jnp.isdtype(dtype, (kind, ...)): whether `dtype` is of any of the kinds.
constexpr bool isdtype(DType dtype, std::initializer_list<std::string_view> kinds) {
  for (auto kind : kinds)
    if (isdtype(dtype, kind)) return true;
  return false;
}

/// One of numpy's generic scalar types, the second argument of issubdtype.
struct DTypeCategory {
  detail::DTypeCategoryId id;
  friend constexpr bool operator==(DTypeCategory, DTypeCategory) = default;
};

inline constexpr DTypeCategory generic{detail::DTypeCategoryId::generic};
inline constexpr DTypeCategory number{detail::DTypeCategoryId::number};
inline constexpr DTypeCategory integer{detail::DTypeCategoryId::integer};
inline constexpr DTypeCategory signedinteger{detail::DTypeCategoryId::signedinteger};
inline constexpr DTypeCategory unsignedinteger{detail::DTypeCategoryId::unsignedinteger};
inline constexpr DTypeCategory inexact{detail::DTypeCategoryId::inexact};
inline constexpr DTypeCategory floating{detail::DTypeCategoryId::floating};
inline constexpr DTypeCategory complexfloating{detail::DTypeCategoryId::complexfloating};
inline constexpr DTypeCategory bool_{detail::DTypeCategoryId::bool_};

/// jnp.issubdtype(a, b) for two generic types: whether b is a or above it
/// (jnp.issubdtype(jnp.floating, jnp.inexact)).
constexpr bool issubdtype(DTypeCategory a, DTypeCategory b) {
  for (auto c = a.id;; c = detail::category_parent(c)) {
    if (c == b.id) return true;
    if (c == detail::DTypeCategoryId::generic) return false;
  }
}

/// jnp.issubdtype(dtype, category): bfloat16 and float16 are floating, as
/// JAX has them (jnp.issubdtype(jnp.bfloat16, jnp.floating)).
constexpr bool issubdtype(DType a, DTypeCategory b) {
  using enum detail::DTypeCategoryId;
  auto const own = a == DType::bool_                 ? bool_
                   : detail::is_signed_integer(a)    ? signedinteger
                   : detail::is_unsigned_integer(a)  ? unsignedinteger
                   : is_complex(a)                   ? complexfloating
                                                     : floating;
  return issubdtype(DTypeCategory{own}, b);
}

/// jnp.issubdtype(a, b) for two dtypes: whether they are the same.
constexpr bool issubdtype(DType a, DType b) { return a == b; }

/// jnp.issubdtype(category, dtype): a generic type is below no dtype.
constexpr bool issubdtype(DTypeCategory, DType) { return false; }

}  // namespace jaxcc::numpy
