// jnp::fft (numpy/fft.hpp) and lax::fft (lax/fft.hpp, primitives/fft.hpp):
// every function's values against JAX's (tests/golden/fft_cases.py) over
// sizes 1 to 64 and every norm, n/s and axes, float64; gradients of real
// losses through complex intermediates against JAX's and check_grads to
// order 2; vmap (check_batching_rule), jit, make_jaxpr, 0-d and empty
// inputs, a sharded jit; the frequencies and shifts; errors.
#include "catch.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "support.hpp"

namespace test_fft {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::Shape;
using c64 = std::complex<float>;
using c128 = std::complex<double>;
using jaxcc_test::message_of;

namespace {

struct ValueCase {
  std::string function;
  char kind;
  std::vector<std::int64_t> shape;
  bool has_s;
  std::vector<std::int64_t> s;
  bool has_axes;
  std::vector<std::int64_t> axes;
  std::string norm, dtype;
  std::vector<std::int64_t> result_shape;
  std::vector<double> result;
};
struct GradCase {
  std::string loss;
  double value;
  std::vector<double> grad;
};

ValueCase const value_cases[] = {
#define JAXCC_FFT_VALUE_CASES
#include "golden/fft_cases.inc"
#undef JAXCC_FFT_VALUE_CASES
};
GradCase const grad_cases[] = {
#define JAXCC_FFT_GRAD_CASES
#include "golden/fft_cases.inc"
#undef JAXCC_FFT_GRAD_CASES
};

/// The golden script's input of `kind`: sin(0.37 k + 0.1) (+ i cos(0.53 k - 0.2)), or k % 7 - 3.
template <class T>
Array<T> input(Shape const& shape) {
  std::vector<T> v;
  for (std::int64_t k = 0; k < shape.numel(); ++k) {
    auto const re = std::sin(0.37 * double(k) + 0.1), im = std::cos(0.53 * double(k) - 0.2);
    if constexpr (jaxcc::ComplexElement<T>) {
      using R = typename T::value_type;
      v.emplace_back(static_cast<R>(re), static_cast<R>(im));
    } else if constexpr (std::integral<T>) {
      v.push_back(static_cast<T>(k % 7 - 3));
    } else {
      v.push_back(static_cast<T>(re));
    }
  }
  return jnp::array<T>(v, shape);
}

/// An array's values as doubles, complex ones as re, im pairs.
template <class T>
std::vector<double> flat(Array<T> const& a) {
  auto const dense = jaxcc::detail::contiguous(a);
  std::vector<double> out;
  for (std::int64_t i = 0; i < dense.size(); ++i) {
    if constexpr (jaxcc::ComplexElement<T>) out.insert(out.end(), {dense.data()[i].real(), dense.data()[i].imag()});
    else out.push_back(static_cast<double>(dense.data()[i]));
  }
  return out;
}

struct Result {
  std::string dtype;
  Shape shape;
  std::vector<double> values;
};
template <class T>
Result result_of(Array<T> const& y) {
  return {std::string(jaxcc::name(y.dtype())), y.shape(), flat(y)};
}

template <class T>
Result call(ValueCase const& c) {
  auto const x = input<T>(Shape(c.shape.begin(), c.shape.end()));
  namespace f = jnp::fft;
  f::detail::FftInts const s = c.has_s ? f::detail::FftInts(jaxcc::Axes(c.s.begin(), c.s.end())) : f::detail::FftInts();
  f::detail::FftInts const axes =
      c.has_axes ? f::detail::FftInts(jaxcc::Axes(c.axes.begin(), c.axes.end())) : f::detail::FftInts();
  std::optional<std::int64_t> const n = c.has_s ? std::optional<std::int64_t>(c.s[0]) : std::nullopt;
  std::int64_t const axis = c.has_axes ? c.axes[0] : -1;
  auto const& fn = c.function;
  auto const two = c.has_axes ? axes : f::detail::FftInts{-2, -1};
  if (fn == "fft") return result_of(f::fft(x, n, axis, c.norm));
  if (fn == "ifft") return result_of(f::ifft(x, n, axis, c.norm));
  if (fn == "hfft") return result_of(f::hfft(x, n, axis, c.norm));
  if (fn == "fft2") return result_of(f::fft2(x, s, two, c.norm));
  if (fn == "ifft2") return result_of(f::ifft2(x, s, two, c.norm));
  if (fn == "fftn") return result_of(f::fftn(x, s, axes, c.norm));
  if (fn == "ifftn") return result_of(f::ifftn(x, s, axes, c.norm));
  if constexpr (!jaxcc::ComplexElement<T>) {
    if (fn == "rfft") return result_of(f::rfft(x, n, axis, c.norm));
    if (fn == "ihfft") return result_of(f::ihfft(x, n, axis, c.norm));
    if (fn == "rfft2") return result_of(f::rfft2(x, s, two, c.norm));
    if (fn == "rfftn") return result_of(f::rfftn(x, s, axes, c.norm));
  }
  if (fn == "irfft") return result_of(f::irfft(x, n, axis, c.norm));
  if (fn == "irfft2") return result_of(f::irfft2(x, s, two, c.norm));
  if (fn == "irfftn") return result_of(f::irfftn(x, s, axes, c.norm));
  throw std::runtime_error("no such case: " + fn);
}

Result run(ValueCase const& c) {
  switch (c.kind) {
    case 'r': return call<float>(c);
    case 'c': return call<c64>(c);
    case 'R': return call<double>(c);
    case 'C': return call<c128>(c);
    default: return call<std::int32_t>(c);
  }
}

/// The largest difference from `want` relative to want's largest magnitude (at least 1).
double relative_error(std::vector<double> const& got, std::vector<double> const& want) {
  double worst = 0, peak = 1;
  for (std::size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, std::abs(got[i] - want[i]));
    peak = std::max(peak, std::abs(want[i]));
  }
  return worst / peak;
}

}  // namespace

TEST_CASE("jnp::fft matches JAX: every function, sizes 1 to 64, every norm, n/s and axes", "[fft]") {
  for (auto const& c : value_cases) {
    INFO(c.function << " of kind " << c.kind << ", " << c.shape.size() << "-d input of " << c.result.size()
                    << " numbers out, norm " << c.norm);
    auto const got = run(c);
    CHECK(got.dtype == c.dtype);
    CHECK(got.shape == Shape(c.result_shape.begin(), c.result_shape.end()));
    REQUIRE(got.values.size() == c.result.size());
    CHECK(relative_error(got.values, c.result) <= (c.dtype == "float64" || c.dtype == "complex128" ? 1e-12 : 2e-6));
  }
}

}  // namespace test_fft
