// The 16-bit floats beside float32, in the same run: the fused a*x + b*sin(x)
// over 2^24 elements, and a 1024 x 1024 matmul, on one thread (issue 22's
// figures). bfloat16 moves half the bytes; each of its ops computes in
// float32 and rounds (docs/architecture.md, "dtypes"). Baselines: the same
// expressions written by hand as xsimd loops, float32 and bfloat16 (rounded
// after each op, as jaxcc and XLA do), and a memory-bound a*x + b.
#include <benchmark/benchmark.h>

#include <vector>

#include <omp.h>
#include <xsimd/xsimd.hpp>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

namespace {

constexpr std::int64_t elements = std::int64_t{1} << 24;

template <class T>
Array<T> filled(jaxcc::Shape const& shape) {
  return jnp::reshape(jnp::sin(jnp::arange<float>(shape.numel()) * 0.001f), shape).template astype<T>();
}

template <class T>
void BM_fused_axpb_sin(benchmark::State& state) {
  omp_set_num_threads(1);
  auto const x = filled<T>({elements});
  for (auto _ : state) {
    Array<T> y = 1.5 * x + 0.25 * jnp::sin(x);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * elements * 2 * static_cast<std::int64_t>(sizeof(T)));
}

template <class T>
void BM_fused_axpb(benchmark::State& state) {
  omp_set_num_threads(1);
  auto const x = filled<T>({elements});
  for (auto _ : state) {
    Array<T> y = 1.5 * x + 0.25;
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * elements * 2 * static_cast<std::int64_t>(sizeof(T)));
}

// The hand-written loops, on AVX2 registers: float32 as is; bfloat16 widened
// into float32 lanes (its bits are their high halves), every op's result
// rounded to bfloat16 (nearest even, NaN kept) as XLA's CPU code does, and
// the high halves stored.
#if defined(__AVX2__)
using Batch = xsimd::batch<float, xsimd::avx2>;

__m256 round_bf16(__m256 x) {
  auto const bits = _mm256_castps_si256(x);
  auto const lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  auto const rounded = _mm256_and_si256(_mm256_add_epi32(_mm256_add_epi32(bits, lsb), _mm256_set1_epi32(0x7FFF)),
                                        _mm256_set1_epi32(static_cast<int>(0xFFFF0000u)));
  return _mm256_blendv_ps(_mm256_castsi256_ps(rounded), x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

template <class T, bool WithSin>
void BM_handwritten(benchmark::State& state) {
  omp_set_num_threads(1);
  auto const source = filled<T>({elements});
  std::vector<T> x(source.data(), source.data() + elements), y(elements);
  for (auto _ : state) {
    for (std::int64_t i = 0; i < elements; i += 8) {
      if constexpr (std::same_as<T, float>) {
        Batch const v = _mm256_loadu_ps(&x[i]);
        Batch const r = WithSin ? Batch(1.5f) * v + Batch(0.25f) * xsimd::sin(v) : Batch(1.5f) * v + Batch(0.25f);
        _mm256_storeu_ps(&y[i], r);
      } else {
        auto const raw = _mm_loadu_si128(reinterpret_cast<__m128i const*>(&x[i]));
        Batch const v = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(raw), 16));
        Batch r;
        if constexpr (WithSin) {
          Batch const ax = round_bf16(Batch(1.5f) * v), s = round_bf16(xsimd::sin(v));
          r = round_bf16(ax + Batch(round_bf16(Batch(0.25f) * s)));
        } else {
          r = round_bf16(Batch(round_bf16(Batch(1.5f) * v)) + Batch(0.25f));
        }
        auto const high = _mm256_srli_epi32(_mm256_castps_si256(r), 16);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(&y[i]),
                         _mm_packus_epi32(_mm256_castsi256_si128(high), _mm256_extracti128_si256(high, 1)));
      }
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * elements * 2 * static_cast<std::int64_t>(sizeof(T)));
}
#endif

template <class T>
void BM_matmul_1024(benchmark::State& state) {
  omp_set_num_threads(1);
  auto const a = filled<T>({1024, 1024}), b = filled<T>({1024, 1024});
  for (auto _ : state) {
    auto c = jnp::matmul(a, b);
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(state.iterations() * 2 * 1024 * 1024 * 1024);
}

}  // namespace

BENCHMARK(BM_fused_axpb_sin<float>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_fused_axpb_sin<jaxcc::bfloat16>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_fused_axpb_sin<jaxcc::float16>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_fused_axpb<float>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_fused_axpb<jaxcc::bfloat16>)->Unit(benchmark::kMillisecond)->UseRealTime();
#if defined(__AVX2__)
BENCHMARK(BM_handwritten<float, true>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_handwritten<jaxcc::bfloat16, true>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_handwritten<float, false>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_handwritten<jaxcc::bfloat16, false>)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif
BENCHMARK(BM_matmul_1024<float>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_matmul_1024<jaxcc::bfloat16>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
