// Scalar kernels of jax.scipy.special's erfcx and dawsn, the rational and
// asymptotic approximations JAX composes them of, written for one element
// in the operand's precision (T = float or double): erfcx is exp(x^2)
// erfc(x) until exp(x^2) would overflow and its asymptotic series past that
// (9 terms in float64, 5 in float32); dawsn is Cody, Paciorek and Thacher's
// rational approximations on [0, 3.25), [3.25, 6.25) and [6.25, inf), odd.
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <numbers>

namespace jaxcc::detail {

/// jnp.polyval for one element: constant coefficients, highest power first.
template <class T, std::size_t N>
T polyval_scalar(std::array<double, N> const& coefficients, T x) {
  T y = 0;
  for (double const c : coefficients) y = y * x + static_cast<T>(c);
  return y;
}

template <class T>
T erfcx(T x) {
  // Asymptotic series sum_k (-1)^k (2k - 1)!! / 2^k x^-2k, highest power first.
  static constexpr std::array<double, 9> coefficients{7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625,
                                                      -1.875,        .75,           -.5,        1.};
  T const threshold = static_cast<T>(std::sqrt(std::log(static_cast<double>(std::numeric_limits<T>::max()))));
  if (x > threshold) {
    T const t = T(1) / (x * x);
    T p;
    if constexpr (std::same_as<T, double>) {
      p = polyval_scalar(coefficients, t);
    } else {
      static constexpr std::array<double, 5> five{6.5625, -1.875, .75, -.5, 1.};
      p = polyval_scalar(five, t);
    }
    return p / (x * static_cast<T>(std::sqrt(std::numbers::pi)));
  }
  return std::exp(x * x) * std::erfc(x);
}

inline constexpr std::array<double, 10> dawsn_an{1.13681498971755972054e-11, 8.49262267667473811108e-10, 1.94434204175553054283e-8, 9.53151741254484363489e-7, 3.07828309874913200438e-6, 3.52513368520288738649e-4, -8.50149846724410912031e-4, 4.22618223005546594270e-2, -9.17480371773452345351e-2, 9.99999999999999994612e-1};
inline constexpr std::array<double, 11> dawsn_ad{2.40372073066762605484e-11, 1.48864681368493396752e-9, 5.21265281010541664570e-8, 1.27258478273186970203e-6, 2.32490249820789513991e-5, 3.25524741826057911661e-4, 3.48805814657162590916e-3, 2.79448531198828973716e-2, 1.58874241960120565368e-1, 5.74918629489320327824e-1, 1.00000000000000000539e0};
inline constexpr std::array<double, 11> dawsn_bn{5.08955156417900903354e-1, -2.44754418142697847934e-1, 9.41512335303534411857e-2, -2.18711255142039025206e-2, 3.66207612329569181322e-3, -4.23209114460388756528e-4, 3.59641304793896631888e-5, -2.14640351719968974225e-6, 9.10010780076391431042e-8, -2.40274520828250956942e-9, 3.59233385440928410398e-11};
inline constexpr std::array<double, 11> dawsn_bd{1.00000000000000000000e0, -6.31839869873368190192e-1, 2.36706788228248691528e-1, -5.31806367003223277662e-2, 8.48041718586295374409e-3, -9.47996768486665330168e-4, 7.81025592944552338085e-5, -4.55875153252442634831e-6, 1.89100358111421846170e-7, -4.91324691331920606875e-9, 7.18466403235734541950e-11};
inline constexpr std::array<double, 5> dawsn_cn{-5.90592860534773254987e-1, 6.29235242724368800674e-1, -1.72858975380388136411e-1, 1.64837047825189632310e-2, -4.86827613020462700845e-4};
inline constexpr std::array<double, 6> dawsn_cd{1.00000000000000000000e0, -2.69820057197544900361e0, 1.73270799045947845857e0, -3.93708582281939493482e-1, 3.44278924041233391079e-2, -9.73655226040941223894e-4};

template <class T>
T dawsn(T x) {
  if (std::isnan(x)) return x;
  T const ax = std::abs(x);
  T const sign = x > 0 ? T(1) : x < 0 ? T(-1) : T(0);
  T result;
  if (ax < T(3.25)) {
    T const ax2 = ax * ax;
    result = ax * polyval_scalar(dawsn_an, ax2) / polyval_scalar(dawsn_ad, ax2);
  } else {
    T const t = T(1) / (ax * ax);
    T const ratio = ax < T(6.25) ? polyval_scalar(dawsn_bn, t) / polyval_scalar(dawsn_bd, t)
                                 : polyval_scalar(dawsn_cn, t) / polyval_scalar(dawsn_cd, t);
    result = (T(0.5) / ax) * (T(1) + t * ratio);
  }
  return sign * result;
}

}  // namespace jaxcc::detail
