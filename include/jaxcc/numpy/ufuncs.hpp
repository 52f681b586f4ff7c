// jax.numpy's further elementwise functions: the hyperbolic and inverse
// trigonometric functions, logarithms and powers of 2 and 10, floored
// division, rounding and splitting of floats, signs and spacing, and
// bit counts. Each promotes as its jnp form does (integers become floats
// for the float functions) and is composed of lax's elementwise functions
// as JAX composes it; the basic ones are in numpy/elementwise.hpp.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <numbers>
#include <tuple>

#include "jaxcc/core/creation.hpp"
#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/lax/while_loop.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/reductions.hpp"

namespace jaxcc::detail {
/// Operands of a binary jnp function: arrays or numbers, at least one an
/// array; float_binary_t is the float dtype of their promotion.
template <class A, class B>
concept BinaryOperands = (ArrayLike<A> || ArrayLike<B>) && ArrayOrScalar<A> && ArrayOrScalar<B>;
template <class A, class B>
using float_binary_t = float_t<binary_dtype_t<A, B>>;
/// The signed integer of a float's width (jnp's _INT_DTYPES).
template <class T>
using same_width_int_t = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
/// CPython's float_divmod, as JAX's _float_divmod: the floored quotient
/// (rounded to a whole number) and the remainder with the divisor's sign.
template <FloatElement T>
std::tuple<Array<T>, Array<T>> float_divmod(Array<T> const& x1, Array<T> const& x2) {
  Array<T> mod = lax::rem(x1, x2);
  Array<T> div = lax::div(numpy::where(x2 == 0, x1, x1 - mod), x2);
  Array<bool> const ind = numpy::logical_and(mod != 0, lax::sign(x2) != lax::sign(mod));
  mod = numpy::where(ind, mod + x2, mod);
  div = numpy::where(ind, div - 1, div);
  return {lax::round(div, lax::RoundingMethod::TO_NEAREST_EVEN), mod};
}
}  // namespace jaxcc::detail

namespace jaxcc::numpy {

// Float functions of one operand (integers become floats first).
#define JAXCC_NUMPY_FLOAT_UNARY(fn, prim) \
  template <ArrayLike A>                  \
  auto fn(A const& a) {                   \
    return detail::float_unary<primitives::prim>(a); \
  }
JAXCC_NUMPY_FLOAT_UNARY(sinh, sinh_p)
JAXCC_NUMPY_FLOAT_UNARY(cosh, cosh_p)
JAXCC_NUMPY_FLOAT_UNARY(arcsin, asin_p)
JAXCC_NUMPY_FLOAT_UNARY(arccos, acos_p)
JAXCC_NUMPY_FLOAT_UNARY(arcsinh, asinh_p)
JAXCC_NUMPY_FLOAT_UNARY(arccosh, acosh_p)
JAXCC_NUMPY_FLOAT_UNARY(arctanh, atanh_p)
JAXCC_NUMPY_FLOAT_UNARY(exp2, exp2_p)
// The array API's names.
JAXCC_NUMPY_FLOAT_UNARY(asin, asin_p)
JAXCC_NUMPY_FLOAT_UNARY(acos, acos_p)
JAXCC_NUMPY_FLOAT_UNARY(atan, atan_p)
JAXCC_NUMPY_FLOAT_UNARY(asinh, asinh_p)
JAXCC_NUMPY_FLOAT_UNARY(acosh, acosh_p)
JAXCC_NUMPY_FLOAT_UNARY(atanh, atanh_p)
#undef JAXCC_NUMPY_FLOAT_UNARY

template <class A, class B>
  requires detail::BinaryOperands<A, B>
auto atan2(A const& a, B const& b) {
  return arctan2(a, b);
}
/// log(x) * (1 / log(10)), as JAX.
template <ArrayLike A>
auto log10(A const& a) {
  using T = float_t<value_type_t<A>>;
  return log(a) * detail::compute_t<T>(0.4342944819032518);
}
/// log(x) / log(2), as JAX.
template <ArrayLike A>
auto log2(A const& a) {
  using T = float_t<value_type_t<A>>;
  return log(a) / std::log(detail::compute_t<T>(2));
}
/// log2(2^a + 2^b) without overflow, with JAX's derivative (see logaddexp2_p).
template <class A, class B>
  requires detail::BinaryOperands<A, B>
auto logaddexp2(A const& a, B const& b) {
  return detail::binary_as<primitives::logaddexp2_p, detail::float_binary_t<A, B>>(a, b);
}
/// 1 / x (integers become floats).
template <ArrayLike A>
auto reciprocal(A const& a) {
  return lax::reciprocal(fusion::cast<float_t<value_type_t<A>>>(a));
}
/// |x| as a float.
template <ArrayLike A>
auto fabs(A const& a) {
  return abs(fusion::cast<float_t<value_type_t<A>>>(a));
}
/// +x: a copy of x.
template <ArrayLike A>
Array<value_type_t<A>> positive(A const& a) {
  return as_array(a);
}
template <class A, class B>
  requires detail::BinaryOperands<A, B>
auto pow(A const& a, B const& b) {
  return power(a, b);
}
/// power in floats: integers become floats first.
template <class A, class B>
  requires detail::BinaryOperands<A, B>
auto float_power(A const& a, B const& b) {
  return detail::binary_as<primitives::pow_p, detail::float_binary_t<A, B>>(a, b);
}
template <ArrayLike A>
auto around(A const& a) {
  return numpy::round(a);
}
/// Round half to even; integers and bools become floats.
template <ArrayLike A>
auto rint(A const& a) {
  return fusion::make_expr<primitives::round_p>(fusion::cast<float_t<value_type_t<A>>>(a));
}
/// Round toward zero: ceil below 0, floor above; integers stay as they are.
template <ArrayLike A>
auto trunc(A const& a) {
  if constexpr (FloatElement<value_type_t<A>>) return where(a < 0, ceil(a), floor(a));
  else return as_array(a);
}
/// x * (pi / 180) and x * (180 / pi), in floats.
template <ArrayLike A>
auto deg2rad(A const& a) {
  using C = detail::compute_t<float_t<value_type_t<A>>>;
  return fusion::cast<float_t<value_type_t<A>>>(a) * C(std::numbers::pi / 180);
}
template <ArrayLike A>
auto rad2deg(A const& a) {
  using C = detail::compute_t<float_t<value_type_t<A>>>;
  return fusion::cast<float_t<value_type_t<A>>>(a) * C(180 / std::numbers::pi);
}
template <ArrayLike A>
auto radians(A const& a) {
  return deg2rad(a);
}
template <ArrayLike A>
auto degrees(A const& a) {
  return rad2deg(a);
}

/// The remainder of floor division, with the divisor's sign (Python's %).
/// An integer divisor of 0 gives 0, as JAX (it divides by 1 there).
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B> &&
          (!std::same_as<detail::binary_dtype_t<A, B>, bool>)
Array<detail::binary_dtype_t<A, B>> remainder(A const& a, B const& b) {
  using T = detail::binary_dtype_t<A, B>;
  auto const x1 = detail::array_operand<T>(a);
  Array<T> x2 = detail::array_operand<T>(b);
  if constexpr (!FloatElement<T>) x2 = where(x2 == 0, T(1), x2);
  Array<T> const trunc_mod = lax::rem(x1, x2);
  auto const do_plus = logical_and((trunc_mod < 0) != (x2 < 0), trunc_mod != 0);
  return where(do_plus, trunc_mod + x2, trunc_mod);
}
template <class A, class B>
  requires requires(A const& a, B const& b) { remainder(a, b); }
auto mod(A const& a, B const& b) {
  return remainder(a, b);
}


/// The floored quotient: integers divide and round toward -inf (x // 0 as
/// XLA's integer division gives it); floats as Python's divmod.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B> &&
          (!std::same_as<detail::binary_dtype_t<A, B>, bool>)
Array<detail::binary_dtype_t<A, B>> floor_divide(A const& a, B const& b) {
  using T = detail::binary_dtype_t<A, B>;
  Array<T> const x1 = detail::array_operand<T>(a);
  Array<T> const x2 = detail::array_operand<T>(b);
  if constexpr (FloatElement<T>) {
    return std::get<0>(detail::float_divmod(x1, x2));
  } else if constexpr (std::is_unsigned_v<T>) {
    return lax::div(x1, x2);
  } else {
    Array<T> const quotient = lax::div(x1, x2);
    auto const select = logical_and(lax::sign(x1) != lax::sign(x2), Array<T>(lax::rem(x1, x2)) != 0);
    return where(select, quotient - 1, quotient);
  }
}
/// (floor_divide(a, b), remainder(a, b)).
template <class A, class B>
  requires requires(A const& a, B const& b) { floor_divide(a, b); }
auto divmod(A const& a, B const& b) {
  using T = detail::binary_dtype_t<A, B>;
  if constexpr (FloatElement<T>)
    return detail::float_divmod(Array<T>(detail::array_operand<T>(a)),
                                Array<T>(detail::array_operand<T>(b)));
  else return std::tuple<Array<T>, Array<T>>{floor_divide(a, b), remainder(a, b)};
}

/// The larger (smaller) of a and b, ignoring a nan in b (and in a, where b is not nan).
template <class A, class B>
  requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B> && (ArrayLike<A> || ArrayLike<B>)
auto fmax(A const& a, B const& b) {
  using T = detail::binary_dtype_t<A, B>;
  auto const x1 = detail::array_operand<T>(a);
  auto const x2 = detail::array_operand<T>(b);
  return where(logical_or(greater(x1, x2), isnan(x2)), x1, x2);
}
template <class A, class B>
  requires detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B> && (ArrayLike<A> || ArrayLike<B>)
auto fmin(A const& a, B const& b) {
  using T = detail::binary_dtype_t<A, B>;
  auto const x1 = detail::array_operand<T>(a);
  auto const x2 = detail::array_operand<T>(b);
  return where(logical_or(less(x1, x2), isnan(x2)), x1, x2);
}

/// 0 below 0, 1 above, h at 0, nan at nan; in floats.
template <class A, class B>
  requires detail::BinaryOperands<A, B>
Array<detail::float_binary_t<A, B>> heaviside(A const& a, B const& b) {
  using T = detail::float_binary_t<A, B>;
  auto const x1 = detail::array_operand<T>(a);
  auto const x2 = detail::array_operand<T>(b);
  return where(x1 < 0, T(0), where(x1 > 0, T(1), where(isnan(x1), x1, x2)));
}

/// sin(pi x) / (pi x), 1 at 0. JAX gives the value at 0 a custom_jvp whose
/// derivatives are the Maclaurin series' (0, -pi^2 / 3, 0, pi^4 / 5, ...);
/// here the series itself, 1 - u^2 / 6 + u^4 / 120 at u = pi x, stands at
/// 0, so the derivatives there are JAX's to the fifth order.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> sinc(A const& a) {
  using T = float_t<value_type_t<A>>;
  using C = detail::compute_t<T>;
  Array<T> const x = fusion::cast<T>(a);
  Array<bool> const eq_zero = x == 0;
  Array<T> const pi_x = x * C(std::numbers::pi);
  Array<T> const safe_pi_x = where(eq_zero, C(1), pi_x);
  auto const u2 = square(pi_x);
  auto const series = C(1) - u2 * (C(1) / 6 - u2 * (C(1) / 120));
  return where(eq_zero, series, sin(safe_pi_x) / safe_pi_x);
}

/// True where the sign bit is set (-0.0 and negative nans included); x < 0 for integers.
template <ArrayLike A>
auto signbit(A const& a) {
  using T = value_type_t<A>;
  if constexpr (std::same_as<T, bool>) {
    return a != a;
  } else if constexpr (!FloatElement<T>) {
    return a < 0;
  } else {
    using F = detail::compute_t<T>;  // a 16-bit float's sign as float32's
    using I = detail::same_width_int_t<F>;
    auto const bits = lax::bitcast_convert_type<I>(fusion::cast<F>(a));
    return fusion::cast<bool>(lax::shift_right_arithmetic(bits, I(8 * sizeof(I) - 1)));
  }
}
/// |a| with b's sign bit, in floats.
template <class A, class B>
  requires detail::BinaryOperands<A, B>
auto copysign(A const& a, B const& b) {
  using T = detail::float_binary_t<A, B>;
  Array<T> const magnitude = abs(detail::array_operand<T>(a));
  return where(signbit(Array<T>(detail::array_operand<T>(b))), -magnitude, magnitude);
}
/// The float after a toward b (float32 and float64).
template <class A, class B>
  requires detail::BinaryOperands<A, B> && (!detail::is_half_float<detail::float_binary_t<A, B>>)
auto nextafter(A const& a, B const& b) {
  return detail::binary_as<primitives::nextafter_p, detail::float_binary_t<A, B>>(a, b);
}
/// The distance from x to the next float away from 0 (float32 and float64).
template <ArrayLike A>
  requires(!detail::is_half_float<value_type_t<A>>)
Array<float_t<value_type_t<A>>> spacing(A const& a) {
  using T = float_t<value_type_t<A>>;
  constexpr T inf = std::numeric_limits<T>::infinity();
  Array<T> const x = fusion::cast<T>(a);
  Array<T> const result = nextafter(x, copysign(inf, x)) - x;
  return where(result == 0, copysign(std::numeric_limits<T>::denorm_min(), x), result);
}

/// x = mantissa * 2^exponent with |mantissa| in [0.5, 1) (0, inf and nan
/// as they are, exponent 0), as JAX's bit manipulation computes it; the
/// exponent is int32. float32 and float64 (and integers, as floats).
template <ArrayLike A>
  requires(!detail::is_half_float<value_type_t<A>>)
std::tuple<Array<float_t<value_type_t<A>>>, Array<std::int32_t>> frexp(A const& a) {
  using T = float_t<value_type_t<A>>;
  using I = detail::same_width_int_t<T>;
  constexpr int nmant = std::numeric_limits<T>::digits - 1;
  constexpr I mask = (I(1) << (8 * sizeof(T) - 1 - nmant)) - 1;
  constexpr I bias = 1 - (std::numeric_limits<T>::min_exponent - 1);
  Array<T> const x = fusion::cast<T>(a);
  Array<bool> const tiny = abs(x) < std::numeric_limits<T>::min();
  Array<I> bits = lax::bitcast_convert_type<I>(where(tiny, x * T(I(1) << nmant), x));
  Array<I> exponent = where(tiny, I(-nmant), I(0)) + (((bits >> I(nmant)) & mask) - bias + 1);
  bits = (bits & ~(mask << nmant)) | ((bias - 1) << nmant);
  Array<bool> const special = logical_or(logical_or(isinf(x), isnan(x)), x == 0);
  return {where(special, x, lax::bitcast_convert_type<T>(bits)),
          fusion::cast<std::int32_t>(where(special, I(0), exponent))};
}
/// x1 * 2^x2 for integer x2, as JAX computes it from frexp.
template <ArrayLike A, ArrayLike B>
  requires std::integral<value_type_t<B>> && (!std::same_as<value_type_t<B>, bool>) &&
           (!detail::is_half_float<value_type_t<A>>)
Array<float_t<value_type_t<A>>> ldexp(A const& a, B const& b) {
  using T = float_t<value_type_t<A>>;
  Array<T> const x1 = fusion::cast<T>(a);
  auto const [m0, e0] = frexp(x1);
  Array<T> const e1 = fusion::cast<T>(fusion::cast<value_type_t<B>>(e0) + b);
  Array<T> const m = where(e1 > 0, m0 * T(2), m0);
  Array<T> const e = where(e1 > 0, e1 - T(1), e1);
  return where(logical_or(isinf(x1), x1 == 0), x1, m * power(T(2), e));
}
/// (x - whole, whole), whole = x rounded toward 0; in floats.
template <ArrayLike A>
std::tuple<Array<float_t<value_type_t<A>>>, Array<float_t<value_type_t<A>>>> modf(A const& a) {
  using T = float_t<value_type_t<A>>;
  Array<T> const x = fusion::cast<T>(a);
  Array<T> const whole = where(x >= 0, floor(x), ceil(x));
  return {x - whole, whole};
}

/// x == +inf (-inf); never for integers and bools.
template <ArrayLike A>
auto isposinf(A const& a) {
  if constexpr (FloatElement<value_type_t<A>>)
    return a == std::numeric_limits<detail::compute_t<value_type_t<A>>>::infinity();
  else return a != a;
}
template <ArrayLike A>
auto isneginf(A const& a) {
  if constexpr (FloatElement<value_type_t<A>>)
    return a == -std::numeric_limits<detail::compute_t<value_type_t<A>>>::infinity();
  else return a != a;
}

/// Exactly one of a and b is true (nonzero).
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B>
auto logical_xor(A const& a, B const& b) {
  return detail::binary_as<primitives::xor_p, bool>(a, b);
}

/// The number of bits set in |x|, as uint8.
template <ArrayLike A>
  requires std::integral<value_type_t<A>>
auto bitwise_count(A const& a) {
  if constexpr (std::same_as<value_type_t<A>, bool>) return fusion::cast<std::uint8_t>(a);
  else return fusion::cast<std::uint8_t>(lax::population_count(abs(a)));
}
// The array API's names of invert and the shifts.
template <ArrayLike A>
  requires std::integral<value_type_t<A>>
auto bitwise_invert(A const& a) {
  return ~a;
}
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ShiftOperands<A, B>
auto bitwise_left_shift(A const& a, B const& b) {
  return a << b;
}
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ShiftOperands<A, B>
auto bitwise_right_shift(A const& a, B const& b) {
  return a >> b;
}

/// The greatest common divisor of |a| and |b| (0 for two zeros), by
/// Euclid's steps in a while_loop over the whole array, as JAX.
template <class A, class B>
  requires(ArrayLike<A> || ArrayLike<B>) && detail::ArrayOrScalar<A> && detail::ArrayOrScalar<B> &&
          detail::is_int<detail::binary_dtype_t<A, B>>
Array<detail::binary_dtype_t<A, B>> gcd(A const& a, B const& b) {
  using T = detail::binary_dtype_t<A, B>;
  auto const x1 = detail::array_operand<T>(a);
  auto const x2 = detail::array_operand<T>(b);
  Array<T> const zero = x1 * T(0) + x2 * T(0);  // the broadcast shape
  using Pair = std::tuple<Array<T>, Array<T>>;
  auto const cond = [](Pair const& xs) { return any(std::get<1>(xs) != 0); };
  auto const body = [](Pair const& xs) {
    auto const& [u, v] = xs;
    Array<T> const p = where(v != 0, v, u);
    Array<T> const q = where(v != 0, lax::rem(u, where(v != 0, v, T(1))), T(0));
    return Pair{where(p < q, q, p), where(p < q, p, q)};
  };
  return std::get<0>(lax::while_loop(cond, body, Pair{abs(x1 + zero), abs(x2 + zero)}));
}
/// The least common multiple of |a| and |b| (0 where either is 0).
template <class A, class B>
  requires requires(A const& a, B const& b) { gcd(a, b); }
Array<detail::binary_dtype_t<A, B>> lcm(A const& a, B const& b) {
  using T = detail::binary_dtype_t<A, B>;
  Array<T> const x1 = abs(detail::array_operand<T>(a));
  Array<T> const x2 = abs(detail::array_operand<T>(b));
  Array<T> const d = gcd(x1, x2);
  return where(d == 0, T(0), x1 * floor_divide(x2, d));
}

}  // namespace jaxcc::numpy
