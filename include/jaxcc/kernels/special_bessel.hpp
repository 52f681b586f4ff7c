// Scalar kernels of the exponentially scaled modified Bessel functions of
// orders 0 and 1, e^-|x| I_0(x) and e^-|x| I_1(x) (lax.bessel_i0e,
// bessel_i1e), in double: the power series (positive terms, no
// cancellation) up to |x| = 25, and past it the asymptotic series, whose
// smallest term there is below e^-50 of the sum.
#pragma once

#include <cmath>
#include <limits>
#include <numbers>

namespace jaxcc::detail {

/// e^-|x| I_nu(x) for nu = 0 or 1, x >= 0.
inline double bessel_ie_positive(int nu, double x) {
  if (std::isinf(x)) return 0;
  if (x <= 25) {
    double const q = x * x / 4;
    double term = nu == 0 ? 1 : x / 2, sum = term;
    for (int k = 1; k < 500; ++k) {
      term *= q / (static_cast<double>(k) * static_cast<double>(k + nu));
      sum += term;
      if (term < sum * std::numeric_limits<double>::epsilon() / 4) break;
    }
    return sum * std::exp(-x);
  }
  double const mu = 4.0 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 2 * x; ++k) {
    double const odd = 2.0 * k - 1;
    term *= -(mu - odd * odd) / (8.0 * k * x);
    sum += term;
    if (std::abs(term) < std::abs(sum) * std::numeric_limits<double>::epsilon() / 4) break;
  }
  return sum / std::sqrt(2 * std::numbers::pi * x);
}

inline double bessel_i0e(double x) {
  if (std::isnan(x)) return x;
  return bessel_ie_positive(0, std::abs(x));
}

inline double bessel_i1e(double x) {
  if (std::isnan(x)) return x;
  double const y = bessel_ie_positive(1, std::abs(x));
  return x < 0 ? -y : y;
}

}  // namespace jaxcc::detail
