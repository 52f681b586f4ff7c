// One model over several processes: the MLP of examples/mlp.cpp, trained
// data-parallel on a mesh of every process's devices. Each process makes
// only its own slice of the data; the jitted step's gradients are summed
// across processes by the collectives jit inserts, so every process holds
// the same parameters after each step.
//
//   OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 JAXCC_NUM_DEVICES=2 \
//     mpirun --oversubscribe -np 2 ./build/examples/distributed
//
// (The two variables let Open MPI run as root; each process has 2 devices.)
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <utility>

#include <jaxcc/distributed.hpp>
#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
using jaxcc::Array;
using jaxcc::NamedSharding;
using jaxcc::P;

struct Params {
  Array<float> w1, b1, w2, b2;
};
JAXCC_PYTREE(Params, w1, b1, w2, b2)

Array<float> loss(Params const& p, Array<float> const& x, Array<float> const& y) {
  Array<float> const h = jnp::tanh(jnp::matmul(x, p.w1) + p.b1);
  Array<float> const err = jnp::matmul(h, p.w2) + p.b2 - y;
  return jnp::mean(err * err);
}

int main(int argc, char** argv) {
  jaxcc::distributed::initialize(argc, argv);  // first: it fixes the device list
  int const me = jaxcc::process_index(), processes = jaxcc::process_count();
  std::cout << "process " << me << " of " << processes << ": devices " << jaxcc::local_devices().front().id << ".."
            << jaxcc::local_devices().back().id << " of " << jaxcc::device_count() << '\n';

  // The global batch: 256 points x in [-2, 2), y = sin(2x) + x/2. This
  // process makes its contiguous slice of it, and only that.
  std::int64_t const n = 256, hidden = 32, here = n / processes;
  auto const x_here = jnp::reshape(jnp::arange<float>(here) * (4.0f / n) + (-2.0f + 4.0f * me / processes), {here, 1});
  Array<float> const y_here = jnp::sin(2.0f * x_here) + 0.5f * x_here;

  // One mesh axis over every device of every process: the batch is split
  // along it, the parameters replicated.
  auto const mesh = jaxcc::make_mesh({jaxcc::device_count()}, {"data"});
  NamedSharding const batch(mesh, P("data")), replicated(mesh, P());
  auto const x = jaxcc::make_array_from_process_local_data(batch, x_here);
  auto const y = jaxcc::make_array_from_process_local_data(batch, y_here);

  // Every process draws the same initial parameters from the same key.
  auto const keys = jr::split(jr::key(0), 3);
  Params params = jaxcc::device_put(
      Params{jr::normal(keys[0], {1, hidden}), jr::uniform(keys[1], {hidden}, -1.0f, 1.0f),
             jr::normal(keys[2], {hidden, 1}) * (1.0f / std::sqrt(float(hidden))), jnp::zeros<float>({1})},
      replicated);

  auto step = jaxcc::jit([](Params const& p, Array<float> const& xb, Array<float> const& yb) {
    auto [value, g] = jaxcc::value_and_grad(loss)(p, xb, yb);
    Params next = jaxcc::tree::map([](Array<float> const& w, Array<float> const& dw) { return Array<float>(w - 0.1f * dw); },
                                   p, g);
    return std::pair{next, value};
  });

  std::cout << std::fixed << std::setprecision(5);
  for (int i = 0; i <= 600; ++i) {
    auto [next, value] = step(params, x, y);
    if (me == 0 && i % 100 == 0) std::cout << "step " << std::setw(3) << i << "  loss " << value.item() << '\n';
    params = next;
  }

  // The predictions are split like the batch; process_allgather brings
  // the whole of them to every process.
  auto const predictions = jaxcc::jit([](Params const& p, Array<float> const& xb) {
    return jnp::matmul(jnp::tanh(jnp::matmul(xb, p.w1) + p.b1), p.w2) + p.b2;
  })(params, x);
  auto const all = jaxcc::process_allgather(predictions, true);
  if (me == 0) std::cout << "prediction at x = -2: " << all.to_vector().front() << " (target " << std::sin(-4.0) - 1.0 << ")\n";
  jaxcc::distributed::shutdown();
}
