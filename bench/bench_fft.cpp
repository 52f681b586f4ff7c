// FFTs: a 1-D complex64 transform of 2^10, 2^16 and 2^20 points and a
// batched 2-D real transform (rfft2) of 64 x 256 x 256 float32, by
// jnp::fft (a new array each call) and by jaxcc's kernel (kernels/fft.hpp:
// pocketfft, the work split over OpenMP threads), beside pocketfft called
// once on the whole array as numpy calls it (one thread); and jit(grad) of
// a loss through an FFT-based circular convolution of 64 signals of 4096
// points, beside the same forward and backward written by hand on the
// kernel. All on the same data in the same run. CPU time is the process's,
// summed over its threads: on a loaded machine it, not wall time, is the
// figure to compare. numpy's and JAX's figures:
// bench/fft_numpy_jax.py.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/kernels/fft.hpp>

namespace {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
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

void BM_jnp_fft_1d(benchmark::State& state) {
  auto const n = std::int64_t{1} << state.range(0);
  auto const data = complex_data(n);
  auto const x = jnp::array<C>(data, Shape{n});
  for (auto _ : state) {
    auto y = jnp::fft::fft(x);
    benchmark::DoNotOptimize(y.data());
  }
}

void BM_jnp_rfft2(benchmark::State& state) {
  auto const x = jnp::array<float>(real_data(batch * rows * cols), Shape{batch, rows, cols});
  for (auto _ : state) {
    auto y = jnp::fft::rfft2(x);
    benchmark::DoNotOptimize(y.data());
  }
}

// The convolution: sum(tanh(irfft(rfft(signals) * rfft(kernel), n))), its
// gradient with respect to both.
constexpr std::int64_t signals = 64, points = 4096, half = points / 2 + 1;

Array<float> conv_loss(Array<float> const& s, Array<float> const& k) {
  auto const y = jnp::fft::irfft(jnp::fft::rfft(s) * jnp::fft::rfft(k), points);
  return jnp::sum(jnp::tanh(y));
}

void BM_jaxcc_jit_grad_fft_conv(benchmark::State& state) {
  auto const s = jnp::array<float>(real_data(signals * points), Shape{signals, points});
  auto const k = jnp::array<float>(real_data(points), Shape{points}) * 0.01f;
  auto const step = jaxcc::jit(jaxcc::grad(conv_loss, jaxcc::argnums<0, 1>));
  for (auto _ : state) {
    auto g = step(s, k);
    benchmark::DoNotOptimize(std::get<0>(g).data());
  }
}

/// a b and a conj(b), written out (std::complex's product checks for
/// infinities and NaNs, which the FFT's own arithmetic does not).
C times(C a, C b) { return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()}; }
C times_conj(C a, C b) { return {a.real() * b.real() + a.imag() * b.imag(), a.imag() * b.real() - a.real() * b.imag()}; }

/// The same gradients by hand on the kernel: y = s (*) k, dy = 1 - tanh(y)^2,
/// ds = dy (*) reversed k (irfft of rfft(dy) conj(rfft(k))), dk = the sum
/// over signals of dy (*) reversed s.
void handwritten_grad(std::vector<float> const& s, std::vector<float> const& k, std::vector<float>& ds,
                      std::vector<float>& dk) {
  Shape const real{signals, points}, spec{signals, half}, one{points}, one_half{half};
  auto const rs = contiguous_strides(real), hs = contiguous_strides(spec);
  std::vector<C> fs(static_cast<std::size_t>(signals * half)), fk(static_cast<std::size_t>(half)), fy(fs.size());
  std::vector<float> y(s.size());
  jaxcc::detail::fft_r2c<float>(real, rs, hs, {1}, s.data(), fs.data(), 1.0f);
  jaxcc::detail::fft_r2c<float>(one, contiguous_strides(one), contiguous_strides(one_half), {0}, k.data(), fk.data(), 1.0f);
  for (std::int64_t i = 0; i < signals; ++i)
    for (std::int64_t j = 0; j < half; ++j) fy[std::size_t(i * half + j)] = times(fs[std::size_t(i * half + j)], fk[std::size_t(j)]);
  jaxcc::detail::fft_c2r<float>(real, hs, rs, {1}, fy.data(), y.data(), 1.0f / points);
  for (auto& v : y) {  // dy, with scalar std::tanh (jaxcc's is xsimd's)
    auto const t = std::tanh(v);
    v = 1.0f - t * t;
  }
  jaxcc::detail::fft_r2c<float>(real, rs, hs, {1}, y.data(), fy.data(), 1.0f);
  std::vector<C> gk(static_cast<std::size_t>(half));
  for (std::int64_t i = 0; i < signals; ++i)
    for (std::int64_t j = 0; j < half; ++j) {
      auto const d = fy[std::size_t(i * half + j)];
      gk[std::size_t(j)] += times_conj(d, fs[std::size_t(i * half + j)]);
      fs[std::size_t(i * half + j)] = times_conj(d, fk[std::size_t(j)]);
    }
  jaxcc::detail::fft_c2r<float>(real, hs, rs, {1}, fs.data(), ds.data(), 1.0f / points);
  jaxcc::detail::fft_c2r<float>(one, contiguous_strides(one_half), contiguous_strides(one), {0}, gk.data(), dk.data(),
                                1.0f / points);
}

void BM_handwritten_grad_fft_conv(benchmark::State& state) {
  auto const s = real_data(signals * points);
  auto k = real_data(points);
  for (auto& v : k) v *= 0.01f;
  std::vector<float> ds(s.size()), dk(k.size());
  // Both compute the same gradients: compare once, before timing.
  handwritten_grad(s, k, ds, dk);
  auto const [gs, gk] = jaxcc::grad(conv_loss, jaxcc::argnums<0, 1>)(jnp::array<float>(s, Shape{signals, points}),
                                                                    jnp::array<float>(k, Shape{points}));
  float worst = 0;
  for (std::int64_t i = 0; i < gs.size(); ++i) worst = std::max(worst, std::abs(gs.data()[i] - ds[std::size_t(i)]));
  for (std::int64_t i = 0; i < gk.size(); ++i)
    worst = std::max(worst, std::abs(gk.data()[i] - dk[std::size_t(i)]) / 64.0f);
  if (worst > 1e-3f) state.SkipWithError("the hand-written gradients differ from jaxcc's");
  for (auto _ : state) {
    handwritten_grad(s, k, ds, dk);
    benchmark::DoNotOptimize(ds.data());
  }
}

}  // namespace

BENCHMARK(BM_jnp_fft_1d)->Arg(10)->Arg(16)->Arg(20)->Unit(benchmark::kMicrosecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_jnp_rfft2)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_jaxcc_jit_grad_fft_conv)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_handwritten_grad_fft_conv)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_jaxcc_fft_1d)->Arg(10)->Arg(16)->Arg(20)->Unit(benchmark::kMicrosecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_pocketfft_fft_1d)->Arg(10)->Arg(16)->Arg(20)->Unit(benchmark::kMicrosecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_jaxcc_rfft2)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_pocketfft_rfft2)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK_MAIN();
