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
#include <map>
#include <optional>
#include <stdexcept>
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
struct FreqCase {
  std::string spelling, dtype;
  std::vector<std::int64_t> shape;
  std::vector<double> values;
};
GradCase const grad_cases[] = {
#define JAXCC_FFT_GRAD_CASES
#include "golden/fft_cases.inc"
#undef JAXCC_FFT_GRAD_CASES
};
FreqCase const freq_cases[] = {
#define JAXCC_FFT_FREQ_CASES
#include "golden/fft_cases.inc"
#undef JAXCC_FFT_FREQ_CASES
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

namespace f = jnp::fft;

/// The golden script's losses: real values of complex intermediates.
template <class T>
Array<T> loss(std::string const& name, Array<T> const& x) {
  using C = std::complex<T>;
  if (name == "parseval") return jnp::sum(jnp::square(jnp::abs(f::fft(x))));
  if (name == "real_ifft") return jnp::sum(jnp::real(f::ifft(x * x)) * jnp::arange<T>(6));
  if (name == "rfft_irfft") return jnp::sum(jnp::square(f::irfft(f::rfft(x) * f::rfft(jnp::sin(x)), 6)));
  if (name == "abs_rfft_ortho") return jnp::sum(jnp::abs(f::rfft(x, 9, -1, "ortho")));
  if (name == "imag_fft2") return jnp::sum(jnp::square(jnp::imag(f::fft2(x.reshape({2, 3})))));
  if (name == "hfft_ihfft")
    return jnp::sum(f::hfft(f::ihfft(x) * C(1, 0.5), 7) * jnp::cos(jnp::arange<T>(7)));
  throw std::runtime_error("no such loss: " + name);
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

TEST_CASE("jnp::fft: gradients of real losses through complex intermediates match JAX's", "[fft][grad]") {
  auto const x = input<float>({6});
  for (auto const& c : grad_cases) {
    INFO(c.loss);
    auto const [value, g] = jaxcc::value_and_grad([&](Array<float> const& v) { return loss(c.loss, v); })(x);
    CHECK(std::abs(double(value.item()) - c.value) <= 2e-6 * std::max(1.0, std::abs(c.value)));
    CHECK(relative_error(flat(g), c.grad) <= 1e-5);
  }
}

TEST_CASE("jnp::fft: check_grads to order 2, vmap and jit", "[fft][grad][vmap][jit]") {
  auto const x = input<double>({6});
  for (auto const& c : grad_cases) {
    INFO(c.loss);
    auto const fn = [&](Array<double> const& v) { return loss(c.loss, v); };
    REQUIRE_NOTHROW(jaxcc::testing::check_grads(fn, std::tuple{x}, 2));
    // hfft_ihfft multiplies by a complex scalar, whose transpose under jit
    // is the complex dtype's business (test_complex), not the FFT's.
    if (c.loss != "hfft_ihfft") REQUIRE_NOTHROW(jaxcc::testing::check_jit(jaxcc::grad(fn), x));
  }
  // vmap over a leading and a trailing axis of each kind of transform.
  auto const batch = input<double>({3, 4, 5});
  auto const cbatch = input<c128>({3, 4, 5});
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule([](Array<c128> const& z) { return f::fft2(z); },
                                                      jaxcc::in_axes(0), cbatch));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule([](Array<c128> const& z) { return f::ifft(z, 6, 0); },
                                                      jaxcc::in_axes(2), cbatch));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule([](Array<double> const& v) { return f::rfft(v, 7); },
                                                      jaxcc::in_axes(1), batch));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule([](Array<c128> const& z) { return f::irfftn(z, {4, 6}); },
                                                      jaxcc::in_axes(2), cbatch));
  auto const g = jaxcc::grad([](Array<double> const& v) { return loss("rfft_irfft", v); });
  // A batched FFT and a loop of them may sum in another order (pocketfft's
  // plans over a batch vectorize across it): a few ulp at float64.
  jaxcc::testing::BatchingRuleOptions const ulps{{1e-13, 1e-13}};
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(g, jaxcc::in_axes(0), ulps, input<double>({2, 6})));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit([](Array<c128> const& z) { return f::irfft2(z, {3, 8}, {0, 2}); }, cbatch));
}

TEST_CASE("lax::fft: kinds, dtypes, the jaxpr and JAX's errors", "[fft][lax]") {
  auto const x = input<float>({2, 8});
  auto const spectrum = lax::fft(x, lax::FftType::RFFT, {8});
  CHECK(spectrum.dtype() == jaxcc::DType::complex64);
  CHECK(spectrum.shape() == Shape{2, 5});
  auto const back = lax::fft(spectrum, lax::FftType::IRFFT, {8});
  CHECK(back.dtype() == jaxcc::DType::float32);
  CHECK(relative_error(flat(back), flat(x)) <= 1e-6);
  // FFT converts integers and reals to complex64, float64 to complex128.
  CHECK(lax::fft(input<std::int32_t>({4}), lax::FftType::FFT, {4}).dtype() == jaxcc::DType::complex64);
  CHECK(lax::fft(input<double>({4}), lax::FftType::IFFT, {4}).dtype() == jaxcc::DType::complex128);
  CHECK(lax::fft(input<std::int32_t>({4}), lax::FftType::RFFT, {4}).dtype() == jaxcc::DType::complex64);
  CHECK(lax::fft(x, lax::FftType::FFT, {}).dtype() == jaxcc::DType::complex64);
  CHECK(jaxcc_test::jaxpr_of([](Array<c64> const& z) { return lax::fft(z, lax::FftType::IFFT, {2, 8}); },
                             input<c64>({2, 8})) ==
        "{ lambda ; a:c64[2,8]. let\n    b:c64[2,8] = fft[fft_lengths=(2, 8) fft_type=1] a\n  in (b,) }");
  auto const z = input<c64>({3, 4});
  CHECK(message_of([&] { lax::fft(z, lax::FftType::FFT, {3, 4, 5}); }) ==
        "FFT input shape (3, 4) must have at least as many input dimensions as fft_lengths (3, 4, 5).");
  CHECK(message_of([&] { lax::fft(z, lax::FftType::FFT, {5}); }) ==
        "FFT input shape (3, 4) minor dimensions must be equal to fft_lengths (5,)");
  CHECK(message_of([&] { lax::fft(x, lax::FftType::RFFT, {3, 8}); }) ==
        "RFFT input shape (2, 8) minor dimensions must be equal to fft_lengths (3, 8)");
  CHECK(message_of([&] { lax::fft(z, lax::FftType::IRFFT, {2, 6}); }) ==
        "IRFFT input shape (3, 4) minor dimensions must be equal to all except the last fft_length, got "
        "fft_lengths=(2, 6)");
  CHECK(message_of([&] { lax::fft(z, lax::FftType::IRFFT, {8}); }) ==
        "IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1. Got: 4 but fft_length is 8.");
  CHECK(message_of([&] { lax::fft(z, lax::FftType::RFFT, {4}); }) ==
        "lax::fft: only real valued inputs supported for rfft");
  CHECK(message_of([&] { lax::fft(input<jaxcc::bfloat16>({4}), lax::FftType::RFFT, {4}); }) ==
        "lax::fft: RFFT input must be float32 or float64, got bfloat16");
}

TEST_CASE("jnp::fft: frequencies and shifts match JAX", "[fft]") {
  auto const x34 = jnp::arange<float>(12).reshape({3, 4});
  auto const x5 = jnp::arange<float>(5);
  std::map<std::string, std::function<Result()>> const calls = {
      {"fftfreq(8)", [] { return result_of(f::fftfreq(8)); }},
      {"fftfreq(7, 0.5)", [] { return result_of(f::fftfreq(7, 0.5f)); }},
      {"fftfreq(1)", [] { return result_of(f::fftfreq(1)); }},
      {"fftfreq<double>(9, 0.1)", [] { return result_of(f::fftfreq<double>(9, 0.1)); }},
      {"fftfreq<int32>(6, 0.25)", [] { return result_of(f::fftfreq<std::int32_t>(6, 0.25)); }},
      {"rfftfreq(8)", [] { return result_of(f::rfftfreq(8)); }},
      {"rfftfreq(7, 0.1)", [] { return result_of(f::rfftfreq(7, 0.1f)); }},
      {"rfftfreq<int32>(9, 0.5)", [] { return result_of(f::rfftfreq<std::int32_t>(9, 0.5)); }},
      {"fftshift(x34)", [&] { return result_of(f::fftshift(x34)); }},
      {"fftshift(x34, 0)", [&] { return result_of(f::fftshift(x34, 0)); }},
      {"fftshift(x34, {-1})", [&] { return result_of(f::fftshift(x34, {-1})); }},
      {"ifftshift(x34)", [&] { return result_of(f::ifftshift(x34)); }},
      {"ifftshift(x34, 1)", [&] { return result_of(f::ifftshift(x34, 1)); }},
      {"ifftshift(fftshift(x5))", [&] { return result_of(f::ifftshift(f::fftshift(x5))); }},
      {"fftshift(x5)", [&] { return result_of(f::fftshift(x5)); }},
  };
  for (auto const& c : freq_cases) {
    INFO(c.spelling);
    auto const got = calls.at(c.spelling)();
    CHECK(got.dtype == c.dtype);
    CHECK(got.shape == Shape(c.shape.begin(), c.shape.end()));
    CHECK(relative_error(got.values, c.values) <= 1e-7);
  }
}

TEST_CASE("jnp::fft: 0-d and empty inputs, and JAX's errors", "[fft][errors]") {
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<c64> const& z) { return f::fft(z); }, input<c64>({2, 3})));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<float> const& v) { return f::rfft2(v); }, input<float>({2, 3})));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<c64> const& z) { return f::irfft(z, 4); }, input<c64>({2, 3})));
  CHECK(f::fft(jnp::zeros<c64>({0, 3})).shape() == Shape{0, 3});
  CHECK(f::irfft(input<c64>({1})).shape() == Shape{0});  // n = 2 (1 - 1)
  auto const z = input<c64>({3, 4});
  CHECK(message_of([&] { f::fft(z, 0); }) == "jnp::fft::fft: Shape should be positive.");
  CHECK(message_of([&] { f::fftn(z, {2}, {0, 1}); }) == "jnp::fft::fftn: Shape and axes have different lengths.");
  CHECK(message_of([&] { f::fftn(z, jaxcc::none, {0, 0}); }) ==
        "jnp::fft::fftn does not support repeated axes. Got axes (0, 0).");
  CHECK(message_of([&] { f::fft2(z, jaxcc::none, {0}); }) == "jnp::fft::fft2 only supports 2 axes. Got axes = (0,).");
  CHECK(message_of([&] { f::fft(z, 4, -1, "bad"); }) ==
        "jnp::fft::fft: Invalid norm value bad; should be \"backward\",\"ortho\" or \"forward\".");
  CHECK(message_of([&] { f::fft(z, std::nullopt, 2); }) == "moveaxis: axis 2 is out of bounds for array of dimension 2");
  CHECK(message_of([&] { f::rfft(z); }) == "jnp::fft::rfft: only real valued inputs supported for rfft");
  CHECK(message_of([&] { f::fftn(input<c64>({3}), {2, 3}); }) ==
        "jnp::fft::fftn: FFT input shape (3,) must have at least as many input dimensions as fft_lengths (2, 3).");
}

TEST_CASE("jnp::fft under sharded jit: batch rows stay split", "[fft][partition]") {
  using jaxcc::NamedSharding;
  using jaxcc::P;
  auto const mesh = jaxcc_test::mesh_of({2}, {"x"});
  auto const x = input<double>({4, 8});
  auto const rows = jaxcc::device_put(x, NamedSharding(mesh, P("x")));
  auto const spectrum = jaxcc::jit([](Array<double> const& a) { return f::rfft(a); })(rows);
  CHECK(spectrum.sharding() == NamedSharding(mesh, P("x")));
  REQUIRE_THAT(spectrum, jaxcc::testing::AllClose(f::rfft(x), 1e-12, 1e-12));
  // Along the split axis: gathered whole first.
  auto const columns = jaxcc::jit([](Array<double> const& a) { return f::fft(a, std::nullopt, 0); })(rows);
  REQUIRE_THAT(columns, jaxcc::testing::AllClose(f::fft(x, std::nullopt, 0), 1e-12, 1e-12));
  auto const power = [](Array<double> const& a) { return jnp::sum(jnp::square(jnp::abs(f::rfft(a)))); };
  auto const g = jaxcc::jit(jaxcc::grad(power))(rows);
  REQUIRE_THAT(g, jaxcc::testing::AllClose(jaxcc::grad(power)(x), 1e-12, 1e-12));
}

}  // namespace test_fft
