// The raw FFT kernel (kernels/fft.hpp): c2c, r2c and c2r over chosen axes
// against numpy.fft (tests/golden/fft_kernel_cases.py), in float and
// double, each norm; strided (transposed) inputs and outputs, in place;
// and the work split over threads, and long lines by the four-step
// algorithm, against one pocketfft call.
#include "catch.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include <omp.h>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/kernels/fft.hpp>
#include <jaxcc/testing/catch.hpp>

namespace test_fft_kernel {

using jaxcc::Shape;
using jaxcc::Strides;
using jaxcc::detail::contiguous_strides;

namespace {

struct Case {
  std::string kind;
  std::vector<std::int64_t> shape, axes;
  std::string norm;
  std::vector<double> expected;
};

Case const cases[] = {
#include "golden/fft_kernel_cases.inc"
};

template <class T>
std::vector<std::complex<T>> complex_input(std::int64_t n) {
  std::vector<std::complex<T>> x(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k)
    x[static_cast<std::size_t>(k)] = {static_cast<T>(std::sin(0.37 * double(k) + 0.1)),
                                      static_cast<T>(std::cos(0.53 * double(k) - 0.2))};
  return x;
}

/// numpy's norm as a scale over the transformed elements, for a forward
/// transform (backward: the reciprocal conventions swap).
double scale_of(std::string const& norm, double n, bool forward) {
  if (norm == "ortho") return 1.0 / std::sqrt(n);
  return (norm == "forward") == forward ? 1.0 / n : 1.0;
}

template <class T>
std::vector<double> run_case(Case const& c) {
  Shape shape(c.shape.begin(), c.shape.end());
  std::vector<int> axes(c.axes.begin(), c.axes.end());
  double n = 1;
  for (auto a : axes) n *= double(shape[a]);
  auto half = shape;
  half[axes.back()] = shape[axes.back()] / 2 + 1;
  std::vector<double> out;
  if (c.kind == "c2c_forward" || c.kind == "c2c_backward") {
    bool const forward = c.kind == "c2c_forward";
    auto x = complex_input<T>(shape.numel());
    std::vector<std::complex<T>> y(x.size());
    jaxcc::detail::fft_c2c<T>(shape, contiguous_strides(shape), contiguous_strides(shape), axes, forward, x.data(),
                              y.data(), T(scale_of(c.norm, n, forward)));
    for (auto v : y) out.insert(out.end(), {double(v.real()), double(v.imag())});
  } else if (c.kind == "r2c") {
    auto const z = complex_input<T>(shape.numel());
    std::vector<T> x(z.size());
    std::transform(z.begin(), z.end(), x.begin(), [](auto v) { return v.real(); });
    std::vector<std::complex<T>> y(static_cast<std::size_t>(half.numel()));
    jaxcc::detail::fft_r2c<T>(shape, contiguous_strides(shape), contiguous_strides(half), axes, x.data(), y.data(),
                              T(scale_of(c.norm, n, true)));
    for (auto v : y) out.insert(out.end(), {double(v.real()), double(v.imag())});
  } else {
    auto x = complex_input<T>(half.numel());
    std::vector<T> y(static_cast<std::size_t>(shape.numel()));
    jaxcc::detail::fft_c2r<T>(shape, contiguous_strides(half), contiguous_strides(shape), axes, x.data(), y.data(),
                              T(scale_of(c.norm, n, false)));
    out.assign(y.begin(), y.end());
  }
  return out;
}

template <class T>
void check_case(Case const& c, double tolerance) {
  INFO(c.kind << " shape " << c.shape.size() << "-d, " << c.expected.size() << " numbers, norm " << c.norm);
  auto const got = run_case<T>(c);
  REQUIRE(got.size() == c.expected.size());
  double peak = 1, worst = 0;
  for (auto v : c.expected) peak = std::max(peak, std::abs(v));
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - c.expected[i]));
  CHECK(worst <= tolerance * peak);
}

/// The largest difference between a and b relative to b's largest magnitude.
template <class V>
float max_difference(V const& a, V const& b) {
  float worst = 0, peak = 1;
  for (std::size_t k = 0; k < a.size(); ++k) {
    worst = std::max(worst, float(std::abs(a[k] - b[k])));
    peak = std::max(peak, float(std::abs(b[k])));
  }
  return worst / peak;
}


template <class T>
void check_long_line(std::int64_t n, T tolerance) {
  CAPTURE(n);
  using C = std::complex<T>;
  auto const x = complex_input<T>(n);
  auto const un = static_cast<std::size_t>(n);
  pocketfft::shape_t const dims{un};
  pocketfft::stride_t const bytes{sizeof(C)};
  for (bool forward : {true, false}) {
    CAPTURE(forward);
    T const scale = forward ? T(1) : T(1) / static_cast<T>(n);
    std::vector<C> want(un);
    pocketfft::c2c<T>(dims, bytes, bytes, {0}, forward, x.data(), want.data(), scale, 1);
    Shape const shape{n};
    std::vector<C> got(un);
    jaxcc::detail::fft_c2c<T>(shape, Strides{1}, Strides{1}, {0}, forward, x.data(), got.data(), scale);
    CHECK(max_difference(got, want) <= tolerance);
    // In place, and from a reversed view to every second element of a buffer.
    auto in_place = x;
    jaxcc::detail::fft_c2c<T>(shape, Strides{1}, Strides{1}, {0}, forward, in_place.data(), in_place.data(), scale);
    CHECK(max_difference(in_place, want) <= tolerance);
    std::vector<C> reversed(x.rbegin(), x.rend()), spaced(2 * un);
    jaxcc::detail::fft_c2c<T>(shape, Strides{-1}, Strides{2}, {0}, forward, reversed.data() + (n - 1), spaced.data(),
                              scale);
    std::vector<C> every_second(un);
    for (std::size_t k = 0; k < un; ++k) every_second[k] = spaced[2 * k];
    CHECK(max_difference(every_second, want) <= tolerance);
  }
}
}  // namespace

TEST_CASE("fft kernel matches numpy.fft: c2c, r2c, c2r, every norm", "[fft][kernel]") {
  for (auto const& c : cases) {
    check_case<double>(c, 1e-9);  // the golden values have 10 digits
    check_case<float>(c, 2e-6);
  }
}

TEST_CASE("fft kernel on strided views and in place", "[fft][kernel]") {
  // x is (6, 5) row-major; its transpose (5, 6) has strides (1, 5).
  Shape const shape{5, 6};
  auto const x = complex_input<double>(30);
  std::vector<std::complex<double>> dense(30), y(30), expected(30);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 6; ++j) dense[std::size_t(i * 6 + j)] = x[std::size_t(j * 5 + i)];
  jaxcc::detail::fft_c2c<double>(shape, contiguous_strides(shape), contiguous_strides(shape), {0, 1}, true,
                                 dense.data(), expected.data(), 1.0);
  SECTION("transposed input") {
    jaxcc::detail::fft_c2c<double>(shape, Strides{1, 5}, contiguous_strides(shape), {0, 1}, true, x.data(),
                                   y.data(), 1.0);
    for (std::size_t k = 0; k < 30; ++k) CHECK(std::abs(y[k] - expected[k]) < 1e-12);
  }
  SECTION("transposed output, in place") {
    auto z = x;  // z's transpose is `dense`; transform it in place
    jaxcc::detail::fft_c2c<double>(shape, Strides{1, 5}, Strides{1, 5}, {0, 1}, true, z.data(), z.data(), 1.0);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 6; ++j) CHECK(std::abs(z[std::size_t(j * 5 + i)] - expected[std::size_t(i * 6 + j)]) < 1e-12);
  }
}

TEST_CASE("fft kernel split over threads matches one pocketfft call", "[fft][kernel][threads]") {
  // 2^17 elements: above the grain, so both strategies split the work.
  Shape const shape{8, 64, 256};
  auto const n = shape.numel();
  auto const x = complex_input<float>(n);
  std::vector<float> real(static_cast<std::size_t>(n));
  std::transform(x.begin(), x.end(), real.begin(), [](auto v) { return v.real(); });
  pocketfft::shape_t const dims{8, 64, 256};
  pocketfft::stride_t const bytes{64 * 256 * 8, 256 * 8, 8};
  auto const threads = omp_get_max_threads();
  omp_set_num_threads(std::max(threads, 2));
  for (std::vector<int> axes : {std::vector<int>{1, 2}, std::vector<int>{0, 2}, std::vector<int>{2}}) {
    INFO("axes starting " << axes[0] << ", " << axes.size() << " of them");
    pocketfft::shape_t const paxes(axes.begin(), axes.end());
    std::vector<std::complex<float>> got(x.size()), want(x.size());
    jaxcc::detail::fft_c2c<float>(shape, contiguous_strides(shape), contiguous_strides(shape), axes, false, x.data(),
                                  got.data(), 0.5f);
    pocketfft::c2c<float>(dims, bytes, bytes, paxes, false, x.data(), want.data(), 0.5f, 1);
    CHECK(max_difference(got, want) <= 1e-5f);
    auto half = shape;
    half[axes.back()] = shape[axes.back()] / 2 + 1;
    pocketfft::stride_t const half_bytes{half[1] * half[2] * 8, half[2] * 8, 8};
    pocketfft::stride_t const real_bytes{64 * 256 * 4, 256 * 4, 4};
    std::vector<std::complex<float>> spectrum(static_cast<std::size_t>(half.numel())), spectrum_want(spectrum.size());
    jaxcc::detail::fft_r2c<float>(shape, contiguous_strides(shape), contiguous_strides(half), axes, real.data(),
                                  spectrum.data(), 1.0f);
    pocketfft::r2c<float>(dims, real_bytes, half_bytes, paxes, true, real.data(), spectrum_want.data(), 1.0f, 1);
    CHECK(max_difference(spectrum, spectrum_want) <= 1e-5f);
    std::vector<float> back(real.size()), back_want(real.size());
    jaxcc::detail::fft_c2r<float>(shape, contiguous_strides(half), contiguous_strides(shape), axes, spectrum.data(),
                                  back.data(), 2.0f);
    pocketfft::c2r<float>(dims, half_bytes, real_bytes, paxes, false, spectrum.data(), back_want.data(), 2.0f, 1);
    CHECK(max_difference(back, back_want) <= 1e-5f);
  }
  omp_set_num_threads(threads);
}

TEST_CASE("fft kernel: long lines by the four-step algorithm match one pocketfft call", "[fft][kernel][threads]") {
  using jaxcc::detail::four_step_rows;
  // The split: the largest divisor at most sqrt(n), none under 2^11 points
  // or where that divisor is under 16 (a prime, three times a prime).
  CHECK(four_step_rows(1024) == 0);
  CHECK(four_step_rows(2048) == 32);
  CHECK(four_step_rows(16384) == 128);
  CHECK(four_step_rows(61440) == 240);  // 2^12 * 15: 240 * 256
  CHECK(four_step_rows(65536) == 256);
  CHECK(four_step_rows(16411) == 0);
  CHECK(four_step_rows(3 * 16411) == 0);
  auto const threads = omp_get_max_threads();
  for (int t : {1, 3}) {
    CAPTURE(t);
    omp_set_num_threads(t);
    for (std::int64_t n : {2048, 16384, 61440, 65536, 3 * 16411}) {
      check_long_line<float>(n, 2e-6f);
      check_long_line<double>(n, 1e-13);
    }
  }
  omp_set_num_threads(threads);
  check_long_line<float>(std::int64_t{1} << 20, 4e-6f);
}

}  // namespace test_fft_kernel
