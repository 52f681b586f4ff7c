// Scalar kernels of lax.lgamma, lax.digamma and lax.polygamma, in double
// (float arguments are computed in double and rounded). lgamma: the Lanczos
// approximation (g = 7, 9 terms), with the reflection formula below 1/2;
// digamma and the Hurwitz zeta behind polygamma: Cephes' algorithms
// (recurrence up to the asymptotic series; Euler-Maclaurin summation).
// Poles are XLA's: lgamma is inf and digamma nan at 0, -1, -2, ...;
// polygamma(m, x) is nan unless m is a whole number >= 0.
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <numbers>

namespace jaxcc::detail {

inline bool is_nonpositive_integer(double x) { return x <= 0 && x == std::floor(x); }

inline double lanczos_lgamma(double x) {
  constexpr double g = 7;
  constexpr std::array<double, 9> c{0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                                    771.32342877765313,   -176.61502916214059,   12.507343278686905,
                                    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  if (std::isnan(x)) return x;
  if (is_nonpositive_integer(x)) return std::numeric_limits<double>::infinity();
  if (x < 0.5)  // reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x)
    return std::log(std::numbers::pi / std::abs(std::sin(std::numbers::pi * x))) - lanczos_lgamma(1 - x);
  if (std::isinf(x)) return x;
  x -= 1;
  double a = c[0];
  double const t = x + g + 0.5;
  for (std::size_t i = 1; i < c.size(); ++i) a += c[i] / (x + static_cast<double>(i));
  return 0.5 * std::log(2 * std::numbers::pi) + (x + 0.5) * std::log(t) - t + std::log(a);
}

/// Cephes' psi.
inline double cephes_digamma(double x) {
  if (std::isnan(x) || is_nonpositive_integer(x)) return std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return x;
  double reflection = 0;
  if (x < 0) {  // psi(x) = psi(1 - x) - pi / tan(pi x)
    reflection = std::numbers::pi / std::tan(std::numbers::pi * x);
    x = 1 - x;
  }
  double shift = 0;
  while (x < 10) {
    shift += 1 / x;
    x += 1;
  }
  // Asymptotic series: ln x - 1/(2x) - sum B_2k / (2k x^2k).
  double const z = 1 / (x * x);
  double const series =
      z * (8.33333333333333333333e-2 +
           z * (-8.33333333333333333333e-3 +
                z * (3.96825396825396825397e-3 +
                     z * (-4.16666666666666666667e-3 +
                          z * (7.57575757575757575758e-3 + z * (-2.10927960927960927961e-2 + z * 8.33333333333333333333e-2))))));
  return std::log(x) - 0.5 / x - series - shift - reflection;
}

/// The Hurwitz zeta function sum_{k >= 0} (k + q)^-s, s > 1 (Cephes' zeta).
inline double hurwitz_zeta(double s, double q) {
  constexpr std::array<double, 12> euler_maclaurin{12.0,
                                                    -720.0,
                                                    30240.0,
                                                    -1209600.0,
                                                    47900160.0,
                                                    -1.8924375803183791606e9,
                                                    7.47242496e10,
                                                    -2.950130727918164224e12,
                                                    1.1646782814350067249e14,
                                                    -4.5979787224074726105e15,
                                                    1.8152105401943546773e17,
                                                    -7.1661652561756670113e18};
  if (s == 1) return std::numeric_limits<double>::infinity();
  if (s < 1) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0) {
    if (q == std::floor(q)) return std::numeric_limits<double>::infinity();
    if (s != std::floor(s)) return std::numeric_limits<double>::quiet_NaN();  // q^-s not real
  }
  // Direct sum until the terms are small, then the Euler-Maclaurin tail.
  double sum = std::pow(q, -s), a = q, term = 0;
  int i = 0;
  while (i < 9 || a <= 9) {
    ++i;
    a += 1;
    term = std::pow(a, -s);
    sum += term;
    if (std::abs(term / sum) < std::numeric_limits<double>::epsilon()) return sum;
  }
  double const w = a;
  sum += term * w / (s - 1) - 0.5 * term;
  double factor = 1, power = s;
  for (double const divisor : euler_maclaurin) {
    factor *= power;  // s (s + 1) ... (s + 2k - 2)
    term /= w;
    double const t = factor * term / divisor;
    sum += t;
    if (std::abs(t / sum) < std::numeric_limits<double>::epsilon()) break;
    power += 1;
    term /= w;
    factor *= power;
    power += 1;
  }
  return sum;
}

/// polygamma(m, x) = (-1)^(m+1) m! zeta(m + 1, x); digamma for m = 0.
inline double polygamma(double m, double x) {
  if (std::isnan(m) || std::isnan(x) || m < 0 || m != std::floor(m)) return std::numeric_limits<double>::quiet_NaN();
  if (m == 0) return cephes_digamma(x);
  double const sign = std::fmod(m, 2) == 1 ? 1 : -1;
  return sign * std::exp(lanczos_lgamma(m + 1)) * hurwitz_zeta(m + 1, x);
}

}  // namespace jaxcc::detail
