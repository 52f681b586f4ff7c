// Loading arrays from files: a 1 GB float32 .npy, memory-mapped (and every
// page then read) and copied, and a 100 MB .npz of four arrays, through
// jaxcc::io. numpy.load's figures for the same files come from
// bench/io_numpy.py, run right after on the same machine:
//
//     ./build-bench/bench/bench_io && python3 bench/io_numpy.py --cleanup
//
// The files are written (by jaxcc::io, once) to $JAXCC_BENCH_IO_DIR, by
// default /tmp/jaxcc_bench_io, and stay for io_numpy.py (which removes them
// with --cleanup). Both read them from the page cache, as a second load does.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <jaxcc/io.hpp>
#include <jaxcc/jaxcc.hpp>

namespace {

namespace jnp = jaxcc::numpy;
namespace io = jaxcc::io;

constexpr std::int64_t big_count = 250'000'000;  // float32: 1 GB
constexpr std::int64_t npz_count = 6'250'000;    // float32 x 4 arrays: 100 MB

std::filesystem::path dir() {
  char const* env = std::getenv("JAXCC_BENCH_IO_DIR");
  return env ? env : "/tmp/jaxcc_bench_io";
}
std::filesystem::path big_npy() { return dir() / "big.npy"; }
std::filesystem::path data_npz() { return dir() / "data.npz"; }

void make_files() {
  std::filesystem::create_directories(dir());
  if (!std::filesystem::exists(big_npy()))
    io::save_npy(big_npy(), jaxcc::Array<float>(jnp::arange<float>(big_count) * 0.5f));
  if (!std::filesystem::exists(data_npz())) {
    io::ArrayMap arrays;
    for (int k = 0; k < 4; ++k) {
      std::string name = "x";  // (not "x" + to_string: GCC 12's false -Wrestrict)
      name += std::to_string(k);
      arrays.emplace(name, jaxcc::Array<float>(jnp::arange<float>(npz_count) + float(k)));
    }
    io::save_npz(data_npz(), arrays);
  }
}

void set_bytes(benchmark::State& state, std::int64_t bytes) { state.SetBytesProcessed(state.iterations() * bytes); }

/// Read one float of every 4 KiB page: what makes a mapping's pages resident.
float touch_pages(float const* data, std::int64_t n) {
  float sum = 0;
  for (std::int64_t i = 0; i < n; i += 1024) sum += data[i];
  return sum;
}

// The array a copy: the file read into fresh memory. The buffer cache is
// emptied first, so that each load pays for new pages as numpy's does
// (`_reused`: a second load of the same size reuses the freed buffer).
// Fresh memory is asked for in huge pages, as numpy asks: the kernel may
// then stall to compact memory, in either program (read the medians).
void BM_load_npy_copy(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    jaxcc::detail::BufferCache::instance().clear();
    state.ResumeTiming();
    auto const x = io::load_npy<float>(big_npy());
    benchmark::DoNotOptimize(x.data());
  }
  set_bytes(state, big_count * 4);
}
BENCHMARK(BM_load_npy_copy)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1)->Repetitions(7);

void BM_load_npy_copy_reused(benchmark::State& state) {
  for (auto _ : state) {
    auto const x = io::load_npy<float>(big_npy());
    benchmark::DoNotOptimize(x.data());
  }
  set_bytes(state, big_count * 4);
}
BENCHMARK(BM_load_npy_copy_reused)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1)->Repetitions(7);

// Mapped: the array a view of the file; opening it reads only the header.
void BM_load_npy_mmap(benchmark::State& state) {
  for (auto _ : state) {
    auto const x = io::load_npy<float>(big_npy(), true);
    benchmark::DoNotOptimize(x.data());
  }
}
BENCHMARK(BM_load_npy_mmap)->Unit(benchmark::kMicrosecond)->UseRealTime()->Repetitions(7);

// Mapped, then one float of every page read (every page made resident).
void BM_load_npy_mmap_touch(benchmark::State& state) {
  for (auto _ : state) {
    auto const x = io::load_npy<float>(big_npy(), true);
    benchmark::DoNotOptimize(touch_pages(x.data(), x.size()));
  }
  set_bytes(state, big_count * 4);
}
BENCHMARK(BM_load_npy_mmap_touch)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10)->Repetitions(7);

void BM_load_npz(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    jaxcc::detail::BufferCache::instance().clear();
    state.ResumeTiming();
    auto const arrays = io::load_npz(data_npz());
    benchmark::DoNotOptimize(arrays.size());
  }
  set_bytes(state, 4 * npz_count * 4);
}
BENCHMARK(BM_load_npz)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1)->Repetitions(11);

}  // namespace

int main(int argc, char** argv) {
  make_files();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
