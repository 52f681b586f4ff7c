// The golden cases of jax.scipy.special (tests/golden/special_cases.py),
// shared by the tests/test_special_*.cpp programs: each case is a function
// name, a precision, the arguments, JAX's result and (float64) JAX's
// gradient of its sum with respect to one argument. Include after
// "catch.hpp" and <jaxcc/jaxcc.hpp>.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>

namespace special_golden {

struct Case {
  std::string name;
  int bits;
  std::vector<std::vector<double>> args;
  std::vector<double> values, grad;
};

inline std::vector<Case> const& cases() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  static std::vector<Case> const all = {
#include "golden/special_cases.inc"
  };
  return all;
}

inline Case const& find(std::string const& name, int bits) {
  for (auto const& c : cases())
    if (c.name == name && c.bits == bits) return c;
  throw std::runtime_error("no golden case " + name);
}

template <class T>
using Fn = std::function<jaxcc::Array<T>(std::vector<jaxcc::Array<T>> const&)>;

template <class T>
std::vector<jaxcc::Array<T>> arguments(Case const& c) {
  std::vector<jaxcc::Array<T>> args;
  for (auto const& a : c.args) {
    std::vector<T> v(a.begin(), a.end());
    args.push_back(jaxcc::numpy::array(v, jaxcc::Shape{static_cast<std::int64_t>(v.size())}));
  }
  return args;
}

/// "" if got matches expected within atol + rtol |expected| (nan with nan,
/// an infinity exactly), else the first difference.
inline std::string mismatch(std::string const& what, std::vector<double> const& got, std::vector<double> const& expected,
                            double rtol, double atol) {
  if (got.size() != expected.size())
    return what + ": " + std::to_string(got.size()) + " values, expected " + std::to_string(expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    double const g = got[i], e = expected[i];
    bool const ok = std::isnan(e) ? std::isnan(g) : std::isinf(e) ? g == e : std::abs(g - e) <= atol + rtol * std::abs(e);
    if (!ok) {
      std::ostringstream out;
      out.precision(17);
      out << what << "[" << i << "]: got " << g << ", JAX " << e;
      return out.str();
    }
  }
  return "";
}

template <class T>
std::vector<double> as_doubles(jaxcc::Array<T> const& a) {
  auto const v = a.to_vector();
  return std::vector<double>(v.begin(), v.end());
}

/// The case without its elements where an argument is infinite or nan.
inline Case finite_only(Case c) {
  Case out{c.name, c.bits, std::vector<std::vector<double>>(c.args.size()), {}, {}};
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    bool finite = true;
    for (auto const& a : c.args) finite = finite && std::isfinite(a[i]);
    if (!finite) continue;
    for (std::size_t k = 0; k < c.args.size(); ++k) out.args[k].push_back(c.args[k][i]);
    out.values.push_back(c.values[i]);
  }
  return out;
}

/// The case's values at precision T against JAX's (finite arguments only, if so asked).
template <class T>
std::string check_values(std::string const& name, Fn<T> const& f, double rtol, double atol, bool finite = false) {
  Case const c = finite ? finite_only(find(name, sizeof(T) == 4 ? 32 : 64)) : find(name, sizeof(T) == 4 ? 32 : 64);
  return mismatch(name + " (" + std::to_string(c.bits) + "-bit)", as_doubles(f(arguments<T>(c))), c.values, rtol, atol);
}

/// The float64 case's gradient of sum(f) with respect to argument `arg` against JAX's.
inline std::string check_grad(std::string const& name, Fn<double> const& f, std::size_t arg, double rtol, double atol) {
  Case const& c = find(name, 64);
  auto const args = arguments<double>(c);
  auto const g = jaxcc::grad([&](jaxcc::Array<double> const& x) {
    auto with = args;
    with[arg] = x;
    return jaxcc::numpy::sum(f(with));
  })(args[arg]);
  return mismatch(name + " (gradient)", as_doubles(jaxcc::Array<double>(g)), c.grad, rtol, atol);
}

}  // namespace special_golden
