// FFTs: a 1-D complex64 transform of 2^10, 2^16 and 2^20 points and a
// batched 2-D real transform (rfft2) of 64 x 256 x 256 float32, by jaxcc's
// kernel (kernels/fft.hpp: pocketfft, the work split over OpenMP threads),
// beside pocketfft called once on the whole array as numpy calls it (one
// thread), on the same data in the same run. CPU time is the process's,
// summed over its threads: on a loaded machine it, not wall time, is the
// figure to compare. numpy's and JAX's figures:
// bench/fft_numpy_jax.py.
#include <benchmark/benchmark.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include <jaxcc/kernels/fft.hpp>

namespace {

using jaxcc::Shape;
using jaxcc::detail::contiguous_strides;
using C = std::complex<float>;

std::vector<C> complex_data(std::int64_t n) {
  std::vector<C> x(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k)
    x[static_cast<std::size_t>(k)] = {std::sin(0.37f * float(k % 4096)), std::cos(0.53f * float(k % 4099))};
  return x;
}

std::vector<float> real_data(std::int64_t n) {
  std::vector<float> x(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) x[static_cast<std::size_t>(k)] = std::sin(0.37f * float(k % 4096));
  return x;
}

void BM_jaxcc_fft_1d(benchmark::State& state) {
  auto const n = std::int64_t{1} << state.range(0);
  auto const x = complex_data(n);
  std::vector<C> y(x.size());
  Shape const shape{n};
  for (auto _ : state) {
    jaxcc::detail::fft_c2c<float>(shape, contiguous_strides(shape), contiguous_strides(shape), {0}, true, x.data(),
                                  y.data(), 1.0f);
    benchmark::DoNotOptimize(y.data());
  }
}

void BM_pocketfft_fft_1d(benchmark::State& state) {
  auto const n = std::int64_t{1} << state.range(0);
  auto const x = complex_data(n);
  std::vector<C> y(x.size());
  pocketfft::shape_t const shape{static_cast<std::size_t>(n)};
  pocketfft::stride_t const stride{sizeof(C)};
  for (auto _ : state) {
    pocketfft::c2c<float>(shape, stride, stride, {0}, true, x.data(), y.data(), 1.0f);
    benchmark::DoNotOptimize(y.data());
  }
}

constexpr std::int64_t batch = 64, rows = 256, cols = 256;

void BM_jaxcc_rfft2(benchmark::State& state) {
  auto const x = real_data(batch * rows * cols);
  Shape const shape{batch, rows, cols}, half{batch, rows, cols / 2 + 1};
  std::vector<C> y(static_cast<std::size_t>(half.numel()));
  for (auto _ : state) {
    jaxcc::detail::fft_r2c<float>(shape, contiguous_strides(shape), contiguous_strides(half), {1, 2}, x.data(),
                                  y.data(), 1.0f);
    benchmark::DoNotOptimize(y.data());
  }
}

void BM_pocketfft_rfft2(benchmark::State& state) {
  auto const x = real_data(batch * rows * cols);
  std::vector<C> y(static_cast<std::size_t>(batch * rows * (cols / 2 + 1)));
  pocketfft::shape_t const shape{batch, rows, cols};
  pocketfft::stride_t const in{rows * cols * 4, cols * 4, 4}, out{rows * (cols / 2 + 1) * 8, (cols / 2 + 1) * 8, 8};
  for (auto _ : state) {
    pocketfft::r2c<float>(shape, in, out, {1, 2}, true, x.data(), y.data(), 1.0f);
    benchmark::DoNotOptimize(y.data());
  }
}

}  // namespace

BENCHMARK(BM_jaxcc_fft_1d)->Arg(10)->Arg(16)->Arg(20)->Unit(benchmark::kMicrosecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_pocketfft_fft_1d)->Arg(10)->Arg(16)->Arg(20)->Unit(benchmark::kMicrosecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_jaxcc_rfft2)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_pocketfft_rfft2)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK_MAIN();
