// Element types, their names, and JAX's type-promotion lattice.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>
#include <type_traits>

namespace jaxcc {

/// The element types an Array may hold.
template <class T>
concept Element = std::same_as<T, float> || std::same_as<T, double> ||
                  std::same_as<T, std::int32_t> || std::same_as<T, std::int64_t> ||
                  std::same_as<T, std::uint32_t> || std::same_as<T, bool>;

namespace detail {
/// Element types with a tangent space: derivatives flow through these only
/// (an integer or bool value's tangent is JAX's float0, always zero).
template <class T>
inline constexpr bool is_float = std::is_floating_point_v<T>;
}  // namespace detail

/// X(T) for each Element type: for overload sets that must name every dtype
/// (a braced list of arrays and expressions deduces no single T).
#define JAXCC_FOR_EACH_ELEMENT(X) X(float) X(double) X(std::int32_t) X(std::int64_t) X(std::uint32_t) X(bool)

/// A C++ arithmetic scalar usable beside arrays; like a Python scalar in JAX it
/// is weakly typed and takes the array's dtype where it can.
template <class T>
concept Scalar = std::is_arithmetic_v<std::remove_cvref_t<T>>;

enum class DType { bool_, int32, int64, float32, float64, uint32 };

/// How many element types there are (the size of per-dtype tables).
inline constexpr std::size_t dtype_count = 6;

constexpr std::string_view name(DType d) noexcept {
  switch (d) {
    case DType::bool_: return "bool";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::uint32: return "uint32";
  }
  return "?";
}

inline std::ostream& operator<<(std::ostream& os, DType d) { return os << name(d); }

/// Bytes per element (numpy's itemsize).
constexpr std::size_t item_size(DType d) noexcept {
  switch (d) {
    case DType::bool_: return sizeof(bool);
    case DType::int32: return 4;
    case DType::int64: return 8;
    case DType::float32: return 4;
    case DType::float64: return 8;
    case DType::uint32: return 4;
  }
  return 0;
}

template <Element T>
inline constexpr DType dtype_of = std::same_as<T, bool>           ? DType::bool_
                                  : std::same_as<T, std::int32_t> ? DType::int32
                                  : std::same_as<T, std::int64_t> ? DType::int64
                                  : std::same_as<T, std::uint32_t> ? DType::uint32
                                  : std::same_as<T, float>        ? DType::float32
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
    case DType::float64: break;
  }
  return f(std::type_identity<double>{});
}

// JAX's lattice (x64 on), restricted to jaxcc's types: bool below every
// number; int32 and uint32 side by side, joining at int64; every integer
// joins a float at that float; float32 below float64.
template <Element A, Element B>
struct promote {
  static constexpr int rank(DType d) {
    switch (d) {
      case DType::bool_: return 0;
      case DType::int32:
      case DType::uint32: return 1;
      case DType::int64: return 2;
      case DType::float32: return 3;
      case DType::float64: return 4;
    }
    return 0;
  }
  static constexpr int ra = rank(dtype_of<A>), rb = rank(dtype_of<B>);
  using type = std::conditional_t<
      std::same_as<A, B>, A,
      std::conditional_t<(ra == rb), std::int64_t, std::conditional_t<(ra > rb), A, B>>>;
};

// A weakly typed scalar S beside an array of T (JAX's weak types).
template <Element T, class S>
struct promote_weak {
  using type = std::conditional_t<
      std::is_floating_point_v<S>, std::conditional_t<std::is_floating_point_v<T>, T, float>,
      std::conditional_t<std::same_as<S, bool>, T,
                         std::conditional_t<std::same_as<T, bool>, std::int32_t, T>>>;
};

// Element type a scalar literal has when it stands alone (e.g. jnp::full's value).
template <class S>
using scalar_element_t =
    std::conditional_t<std::same_as<S, bool>, bool,
                       std::conditional_t<std::is_floating_point_v<S>,
                                          std::conditional_t<std::same_as<S, double>, double, float>,
                                          std::conditional_t<(sizeof(S) > 4), std::int64_t, std::int32_t>>>;

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
/// floats keep theirs, int64 goes to float64, int32 and bool to float32.
template <Element T>
using float_t = std::conditional_t<std::is_floating_point_v<T>, T,
                                   std::conditional_t<std::same_as<T, std::int64_t>, double, float>>;

}  // namespace jaxcc
