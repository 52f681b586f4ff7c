// JAX's values and derivatives of jnp's logaddexp, hypot, arctan2, erfc,
// isnan, isinf, isfinite, nan_to_num and jax.nn's gelu, silu, softplus,
// log_sigmoid, one_hot (tests/golden/elementwise_nn_cases.py wrote them),
// and the checks test_elementwise.cpp and test_nn_grad.cpp run on them.
#pragma once

#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>

#include "support.hpp"

namespace jaxcc_test::elementwise_nn_golden {

inline constexpr double inf = std::numeric_limits<double>::infinity();
inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct Case {
  std::string function;
  int bits;  // 32: float32, 64: float64
  std::vector<double> x, y, values, dx, dy;  // y empty for a unary function; dx, dy empty where not differentiated
};

inline std::vector<Case> const& cases() {
  static std::vector<Case> const all = {
#define JAXCC_GOLDEN_ELEMENTWISE
#include "golden/elementwise_nn_cases.inc"
#undef JAXCC_GOLDEN_ELEMENTWISE
  };
  return all;
}

struct OneHotCase {
  std::int64_t axis;
  std::vector<std::int64_t> shape;
  std::vector<double> values;
};

inline std::vector<OneHotCase> const& one_hot_cases() {
  static std::vector<OneHotCase> const all = {
#define JAXCC_GOLDEN_ONE_HOT
#include "golden/elementwise_nn_cases.inc"
#undef JAXCC_GOLDEN_ONE_HOT
  };
  return all;
}

template <class T>
std::vector<T> narrowed(std::vector<double> const& v) {
  return std::vector<T>(v.begin(), v.end());
}

/// The function a case names, as f(x, y) (a unary one ignores y) with a
/// result of x's dtype (a bool result as 0 and 1).
template <class T>
using Function = std::function<jaxcc::Array<T>(jaxcc::Array<T> const&, jaxcc::Array<T> const&)>;

/// A case's checks on `f` at float dtype T, with relative tolerance rtol:
/// its values in the SIMD body and the scalar tail (the inputs, then the
/// same reversed, so the special values at the end of the list land in
/// both); its derivatives from grad against JAX's; jit's and vmap's (over
/// rows) values against JAX's likewise.
template <class T>
void check_case(Case const& c, Function<T> const& f, double rtol) {
  using jaxcc::Array;
  INFO(c.function << " float" << c.bits);
  auto const n = static_cast<std::int64_t>(c.x.size());
  auto const there_and_back = [](std::vector<double> v) {
    v.insert(v.end(), v.rbegin(), v.rend());
    return v;
  };
  auto const xs = there_and_back(c.x);
  auto const ys = c.y.empty() ? std::vector<double>(xs.size(), 0.0) : there_and_back(c.y);
  auto const x = jaxcc::numpy::array(narrowed<T>(xs), jaxcc::Shape{2 * n});
  auto const y = jaxcc::numpy::array(narrowed<T>(ys), jaxcc::Shape{2 * n});
  auto const out = f(x, y);
  CHECK(mismatches<T>(as_doubles(out), there_and_back(c.values), rtol) == "");

  if (!c.dx.empty()) {
    auto const x1 = jaxcc::numpy::array(narrowed<T>(c.x), jaxcc::Shape{n});
    auto const y1 = jaxcc::numpy::array(narrowed<T>(c.y.empty() ? std::vector<double>(c.x.size(), 0.0) : c.y),
                                        jaxcc::Shape{n});
    // f is elementwise: the gradient of its sum is its derivative at each element.
    auto const [gx, gy] = jaxcc::grad([&](Array<T> const& a, Array<T> const& b) { return jaxcc::numpy::sum(f(a, b)); },
                                      jaxcc::argnums<0, 1>)(x1, y1);
    CHECK(mismatches<T>(as_doubles(gx), c.dx, rtol) == "");
    if (!c.dy.empty()) CHECK(mismatches<T>(as_doubles(gy), c.dy, rtol) == "");
  }

  // jit and vmap against JAX's values too, not against eager's bits: with
  // the precompiled runtime linked their rows run at the CPU's SIMD level
  // (docs/simd_dispatch.md), eager's loop at this file's, and a
  // transcendental function may differ by an ulp between the two.
  CHECK(mismatches<T>(as_doubles(jaxcc::jit(f)(x, y)), there_and_back(c.values), rtol) == "");
  auto const rows = jaxcc::vmap(f)(x.reshape({2, n}), y.reshape({2, n}));
  CHECK(rows.shape() == jaxcc::Shape{2, n});
  CHECK(mismatches<T>(as_doubles(rows), there_and_back(c.values), rtol) == "");
}

}  // namespace jaxcc_test::elementwise_nn_golden
