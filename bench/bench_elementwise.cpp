// y = a*x + b*sin(x) over n = 2^24 floats: the fused jaxcc expression beside
// a hand-written xsimd loop (with plain and with streaming stores), an
// Eigen array expression and a naive op-by-op jaxcc version that
// materializes every intermediate, eagerly and under jit;
// and sum(y) and its row sums the same ways, which jit folds into the run
// that computes y; y over 2^14 floats, in cache, fused beside the
// hand-written loop on one thread; a polynomial of cheap ops fused, as five
// ops under jit and by hand; and jnp::cbrt over 2^20 floats beside
// loops of xsimd::cbrt and of std::cbrt (docs/adding_a_primitive.md).
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <immintrin.h>
#include <omp.h>
#include <xsimd/xsimd.hpp>

#include <cmath>
#include <cstdint>
#include <new>
#include <vector>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;

namespace {

constexpr std::int64_t n = std::int64_t{1} << 24;
constexpr float a = 1.5f;
constexpr float b = 0.75f;

jaxcc::Array<float> const& input() {
  static auto const x = jnp::linspace<float>(-10.0, 10.0, n);
  return x;
}

// Bytes moved per call: x read and y written, or x only for a sum.
void set_bytes(benchmark::State& state, std::int64_t arrays = 2) {
  state.SetBytesProcessed(state.iterations() * n * arrays * static_cast<std::int64_t>(sizeof(float)));
}

void BM_fused_jaxcc(benchmark::State& state) {
  auto const& x = input();
  for (auto _ : state) {
    jaxcc::Array<float> y = a * x + b * jnp::sin(x);
    benchmark::DoNotOptimize(y.data());
  }
  set_bytes(state);
}

// Writes a batch with a streaming store (no read of the line first).
template <class Batch>
void stream_store(float* p, Batch const& v) {
#if defined(__AVX512F__)
  _mm512_stream_ps(p, v);
#elif defined(__AVX__)
  _mm256_stream_ps(p, v);
#else
  _mm_stream_ps(p, v);
#endif
}

// Each thread's share of `count` floats, whole batches, from `in` through
// `rows` into an aligned output allocated once: the hand-written baselines'
// OpenMP split.
template <class Rows>
void split_over_threads(benchmark::State& state, float const* in, std::int64_t count, Rows rows) {
  constexpr std::int64_t width = xsimd::batch<float>::size;
  auto* out = static_cast<float*>(::operator new(count * sizeof(float), std::align_val_t{64}));
  for (auto _ : state) {
#pragma omp parallel
    {
      std::int64_t const threads = omp_get_num_threads(), t = omp_get_thread_num();
      std::int64_t const batches = count / width;
      rows(in, out, batches * t / threads * width, batches * (t + 1) / threads * width);
    }
    benchmark::DoNotOptimize(out);
  }
  ::operator delete(out, std::align_val_t{64});
}

// The baseline: what a careful engineer writes by hand with xsimd and
// OpenMP; `Streaming`: with streaming stores, as jit writes outputs of
// 16 MiB and more. Each thread's rows are one flattened function: left to
// itself, GCC calls xsimd's sin out of line from the OpenMP loop body and
// spills the loop's registers around each call (1.4x slower here).
template <bool Streaming>
[[gnu::flatten]] void handwritten_rows(float const* in, float* out, std::int64_t lo, std::int64_t hi) {
  using batch = xsimd::batch<float>;
  for (std::int64_t i = lo; i < hi; i += batch::size) {
    auto v = batch::load_aligned(in + i);
    auto const y = batch(a) * v + batch(b) * xsimd::sin(v);
    if constexpr (Streaming) stream_store(out + i, y);
    else y.store_aligned(out + i);
  }
  if constexpr (Streaming) _mm_sfence();
}

template <bool Streaming>
void handwritten_xsimd(benchmark::State& state) {
  split_over_threads(state, input().data(), n, handwritten_rows<Streaming>);
  set_bytes(state);
}

void BM_handwritten_xsimd(benchmark::State& state) { handwritten_xsimd<false>(state); }
void BM_handwritten_xsimd_streaming(benchmark::State& state) { handwritten_xsimd<true>(state); }

// In cache: y over 2^14 floats (64 KiB in and out), which jaxcc runs on one
// thread (below its parallel grain), beside the hand-written loop on one
// thread: what the loop itself costs, with no memory traffic to hide it.
constexpr std::int64_t small = std::int64_t{1} << 14;

jaxcc::Array<float> const& small_input() {
  static auto const x = jnp::linspace<float>(-10.0, 10.0, small);
  return x;
}

void BM_fused_jaxcc_in_cache(benchmark::State& state) {
  auto const& x = small_input();
  for (auto _ : state) {
    jaxcc::Array<float> y = a * x + b * jnp::sin(x);
    benchmark::DoNotOptimize(y.data());
  }
}

void BM_handwritten_xsimd_in_cache(benchmark::State& state) {
  float const* in = small_input().data();
  auto* out = static_cast<float*>(::operator new(small * sizeof(float), std::align_val_t{64}));
  for (auto _ : state) {
    handwritten_rows<false>(in, out, 0, small);
    benchmark::DoNotOptimize(out);
  }
  ::operator delete(out, std::align_val_t{64});
}

void BM_eigen_array(benchmark::State& state) {
  Eigen::ArrayXf x = Eigen::Map<Eigen::ArrayXf const>(input().data(), n);
  Eigen::ArrayXf y(n);
  for (auto _ : state) {
    y = a * x + b * x.sin();
    benchmark::DoNotOptimize(y.data());
  }
  set_bytes(state);
}

// Each op materialized: four passes over memory and three temporaries.
jaxcc::Array<float> op_by_op(jaxcc::Array<float> const& x) {
  jaxcc::Array<float> ax = a * x;
  jaxcc::Array<float> s = jnp::sin(x);
  jaxcc::Array<float> bs = b * s;
  return jaxcc::Array<float>(ax + bs);
}

void BM_naive_op_by_op(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(op_by_op(input()).data());
  set_bytes(state);
}

// The same four ops under jit: one fused run, tile by tile.
void BM_naive_op_by_op_jit(benchmark::State& state) {
  auto const f = jaxcc::jit(op_by_op);
  for (auto _ : state) benchmark::DoNotOptimize(f(input()).data());
  set_bytes(state);
}

// sum(a*x + b*sin(x)): under jit the sum folds each tile of y as it is
// computed, so y is never written (eagerly it is written, then read back).
jaxcc::Array<float> sum_op_by_op(jaxcc::Array<float> const& x) { return jnp::sum(op_by_op(x)); }

void BM_sum_op_by_op(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(sum_op_by_op(input()).item());
  set_bytes(state, 1);
}

void BM_sum_op_by_op_jit(benchmark::State& state) {
  auto const f = jaxcc::jit(sum_op_by_op);
  for (auto _ : state) benchmark::DoNotOptimize(f(input()).item());
  set_bytes(state, 1);
}

// The baseline: one pass, each thread summing into its own vector accumulator.
void BM_sum_handwritten_xsimd(benchmark::State& state) {
  using batch = xsimd::batch<float>;
  constexpr std::int64_t width = batch::size;
  float const* in = input().data();
  for (auto _ : state) {
    float total = 0;
#pragma omp parallel reduction(+ : total)
    {
      batch acc(0.f);
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < n; i += width) {
        auto v = batch::load_aligned(in + i);
        acc += batch(a) * v + batch(b) * xsimd::sin(v);
      }
      total += xsimd::hadd(acc);
    }
    benchmark::DoNotOptimize(total);
  }
  set_bytes(state, 1);
}

// Row sums of y over x viewed as 4096 rows of 4096: under jit the sum over
// the last axis folds each row's tiles as they are computed.
constexpr std::int64_t row = 4096;
jaxcc::Array<float> row_sums_op_by_op(jaxcc::Array<float> const& x) {
  return jnp::sum(op_by_op(x.reshape({n / row, row})), -1);
}

void BM_row_sums_op_by_op(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(row_sums_op_by_op(input()).data());
  set_bytes(state, 1);
}

void BM_row_sums_op_by_op_jit(benchmark::State& state) {
  auto const f = jaxcc::jit(row_sums_op_by_op);
  for (auto _ : state) benchmark::DoNotOptimize(f(input()).data());
  set_bytes(state, 1);
}

// The baseline: one pass, a vector accumulator per row, rows split over threads.
void BM_row_sums_handwritten_xsimd(benchmark::State& state) {
  using batch = xsimd::batch<float>;
  constexpr std::int64_t width = batch::size;
  float const* in = input().data();
  std::vector<float> sums(n / row);
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < n / row; ++r) {
      batch acc(0.f);
      for (std::int64_t i = r * row; i < (r + 1) * row; i += width) {
        auto v = batch::load_aligned(in + i);
        acc += batch(a) * v + batch(b) * xsimd::sin(v);
      }
      sums[static_cast<std::size_t>(r)] = xsimd::hadd(acc);
    }
    benchmark::DoNotOptimize(sums.data());
  }
  set_bytes(state, 1);
}

// A polynomial of cheap ops, p(x) = (a*x + b)*x - x/2 + 2, over the same
// 2^24 floats: one fused expression, the same written as five ops under jit
// (one fused run whose ops each run a row per tile, so that their own cost
// shows where sin's hid it), and the hand-written xsimd loop.
jaxcc::Array<float> polynomial_op_by_op(jaxcc::Array<float> const& x) {
  jaxcc::Array<float> ax = a * x;
  jaxcc::Array<float> axb = ax + b;
  jaxcc::Array<float> square = axb * x;
  jaxcc::Array<float> half = x * 0.5f;
  jaxcc::Array<float> difference = square - half;
  return jaxcc::Array<float>(difference + 2.0f);
}

void BM_polynomial_fused_jaxcc(benchmark::State& state) {
  auto const& x = input();
  for (auto _ : state) {
    jaxcc::Array<float> y = (a * x + b) * x - x * 0.5f + 2.0f;
    benchmark::DoNotOptimize(y.data());
  }
  set_bytes(state);
}

void BM_polynomial_op_by_op_jit(benchmark::State& state) {
  auto const f = jaxcc::jit(polynomial_op_by_op);
  for (auto _ : state) benchmark::DoNotOptimize(f(input()).data());
  set_bytes(state);
}

void polynomial_rows(float const* in, float* out, std::int64_t lo, std::int64_t hi) {
  using batch = xsimd::batch<float>;
  for (std::int64_t i = lo; i < hi; i += batch::size) {
    auto const v = batch::load_aligned(in + i);
    ((batch(a) * v + batch(b)) * v - v * batch(0.5f) + batch(2.0f)).store_aligned(out + i);
  }
}

void BM_polynomial_handwritten_xsimd(benchmark::State& state) {
  split_over_threads(state, input().data(), n, polynomial_rows);
  set_bytes(state);
}

// cbrt over 2^20 floats (4 MiB in and out): jaxcc's op, split over threads
// as every dense region is, beside the same split of a loop of xsimd::cbrt
// (the op's SIMD kernel, so the ratio is what the region's loop costs) and
// of std::cbrt (what one writes without SIMD).
constexpr std::int64_t cbrt_n = std::int64_t{1} << 20;

jaxcc::Array<float> const& cbrt_input() {
  static auto const x = jnp::linspace<float>(-1000.0, 1000.0, cbrt_n);
  return x;
}

void set_cbrt_bytes(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() * cbrt_n * 2 * static_cast<std::int64_t>(sizeof(float)));
}

void BM_cbrt_jaxcc(benchmark::State& state) {
  auto const& x = cbrt_input();
  for (auto _ : state) {
    jaxcc::Array<float> y = jnp::cbrt(x);
    benchmark::DoNotOptimize(y.data());
  }
  set_cbrt_bytes(state);
}

[[gnu::flatten]] void cbrt_rows(float const* in, float* out, std::int64_t lo, std::int64_t hi) {
  using batch = xsimd::batch<float>;
  for (std::int64_t i = lo; i < hi; i += batch::size) xsimd::cbrt(batch::load_aligned(in + i)).store_aligned(out + i);
}

void BM_cbrt_handwritten_xsimd(benchmark::State& state) {
  split_over_threads(state, cbrt_input().data(), cbrt_n, cbrt_rows);
  set_cbrt_bytes(state);
}

void BM_cbrt_std_loop(benchmark::State& state) {
  float const* in = cbrt_input().data();
  std::vector<float> out(static_cast<std::size_t>(cbrt_n));
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < cbrt_n; ++i) out[static_cast<std::size_t>(i)] = std::cbrt(in[i]);
    benchmark::DoNotOptimize(out.data());
  }
  set_cbrt_bytes(state);
}

}  // namespace

BENCHMARK(BM_fused_jaxcc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_handwritten_xsimd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_handwritten_xsimd_streaming)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_eigen_array)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_fused_jaxcc_in_cache)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_handwritten_xsimd_in_cache)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_naive_op_by_op)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_naive_op_by_op_jit)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sum_handwritten_xsimd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sum_op_by_op)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sum_op_by_op_jit)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_row_sums_handwritten_xsimd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_row_sums_op_by_op)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_row_sums_op_by_op_jit)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_polynomial_fused_jaxcc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_polynomial_op_by_op_jit)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_polynomial_handwritten_xsimd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_cbrt_jaxcc)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_cbrt_handwritten_xsimd)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_cbrt_std_loop)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_MAIN();
