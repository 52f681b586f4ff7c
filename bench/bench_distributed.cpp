// Several processes (jaxcc/distributed.hpp), run by bench/distributed.sh in
// three layouts of the same two cores: 1 process x 1 device, 1 process x 2
// devices, 2 processes x 1 device (mpirun -np 2). Every benchmark runs a
// fixed number of iterations, so that every process runs as many
// collectives as the others; process 0 reports.
//  - train_step: the data-parallel MLP training step of bench_sharding
//    (784-128-10, batch 1024, params replicated, the batch split over every
//    device of every process), jitted.
//  - psum_64MiB: a shard_map psum of 64 MiB of float32 per device over every
//    device, beside
//  - mpi_allreduce_64MiB: MPI_Allreduce (MPI_SUM) of the same 64 MiB on
//    MPI_COMM_WORLD, the baseline for the cross-process bandwidth.
#include <benchmark/benchmark.h>

#include <mpi.h>

#include <cstdint>
#include <vector>

#include <jaxcc/distributed.hpp>
#include <jaxcc/jaxcc.hpp>

#include "mlp_problem.hpp"

namespace {

using namespace bench_mlp;  // jnp, Array, pseudo_random, Params, the loss and train_step
using jaxcc::NamedSharding;
using jaxcc::none;
using jaxcc::P;

jaxcc::Mesh all_devices() { return jaxcc::make_mesh({jaxcc::device_count()}, {"data"}); }

void BM_train_step(benchmark::State& state) {
  std::int64_t const rows = 1024;
  auto const mesh = all_devices();
  auto const& p = problem();
  auto params = jaxcc::device_put(Params{p.w1, p.b1, p.w2, p.b2}, NamedSharding(mesh, P()));
  std::vector<float> labels(static_cast<std::size_t>(rows * n_out), 0.f);
  for (std::int64_t i = 0; i < rows; ++i) labels[static_cast<std::size_t>(i * n_out + (i * 7) % n_out)] = 1.f;
  auto const x = jaxcc::device_put(pseudo_random({rows, n_in}, 1.0f, 0.5f), NamedSharding(mesh, P("data", none)));
  auto const y = jaxcc::device_put(jnp::array(labels, jaxcc::Shape{rows, n_out}), NamedSharding(mesh, P("data", none)));
  auto step = jaxcc::jit(train_step);
  params = step(params, x, y);  // traced and planned before the clock starts
  for (auto _ : state) {
    params = step(params, x, y);
    benchmark::DoNotOptimize(std::get<0>(params).addressable_shards().front().data.data());
  }
}

constexpr std::int64_t allreduce_floats = std::int64_t{16} << 20;  // 64 MiB

void BM_psum_64MiB(benchmark::State& state) {
  auto const mesh = all_devices();
  auto const x = jaxcc::device_put(jnp::ones<float>({jaxcc::device_count() * allreduce_floats}),
                                   NamedSharding(mesh, P("data")));
  auto const psum = jaxcc::shard_map([](Array<float> const& part) { return jaxcc::lax::psum(part, "data"); }, mesh,
                                     jaxcc::in_specs(P("data")), jaxcc::out_specs(P()));
  benchmark::DoNotOptimize(psum(x).data());
  for (auto _ : state) {
    auto const sum = psum(x);
    benchmark::DoNotOptimize(sum.data());
  }
  state.SetBytesProcessed(state.iterations() * allreduce_floats * 4);
}

void BM_mpi_allreduce_64MiB(benchmark::State& state) {
  std::vector<float> in(static_cast<std::size_t>(allreduce_floats), 1.0f), out(in.size());
  MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (auto _ : state) {
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * allreduce_floats * 4);
}

}  // namespace

BENCHMARK(BM_train_step)->Iterations(200)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_psum_64MiB)->Iterations(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mpi_allreduce_64MiB)->Iterations(20)->Unit(benchmark::kMillisecond)->UseRealTime();

/// Reports nothing: the processes other than 0 run the benchmarks silently.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(Context const&) override { return true; }
  void ReportRuns(std::vector<Run> const&) override {}
};

int main(int argc, char** argv) {
  jaxcc::distributed::initialize(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (jaxcc::process_index() == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    SilentReporter silent;
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  benchmark::Shutdown();
  jaxcc::distributed::shutdown();
}
