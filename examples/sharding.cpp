// JAX's sharding tutorial in C++ (jax.sharding and Mesh, and
// the pmap -> shard_map migration) in C++, on 8 virtual devices, as JAX's
// tutorials force 8 host devices. Run as is, or with JAXCC_NUM_DEVICES set
// to 8 or more (its first mesh is 4 x 2 devices).
#include <jaxcc/jaxcc.hpp>

#include <cstdlib>
#include <iostream>
#include <tuple>

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::NamedSharding;
using jaxcc::none;
using jaxcc::P;

namespace {

void tutorial() {
  // ============ A mesh ============
  // The first 8 devices as a (data=4, model=2) mesh; with fewer, make_mesh
  // says so (jaxcc::Error, as jax.make_mesh raises).
  jaxcc::Mesh const mesh = jaxcc::make_mesh({4, 2}, {"data", "model"});
  std::cout << mesh << "\n";

  // ============ A sharded array ============
  NamedSharding const sharding(mesh, P("data", "model"));
  auto const x = jnp::arange<std::int32_t>(64 * 32).reshape({64, 32});
  auto const x_sharded = jaxcc::device_put(x, sharding);
  std::cout << x_sharded.sharding() << "\n";
  // Devices go row-major over the mesh: row i of the diagram is data=i,
  // holding CPU 2i and 2i+1 (the tutorial's comment draws them
  // column-major; JAX draws this).
  jaxcc::debug::visualize_array_sharding(x_sharded);

  // ============ jit distributes by itself ============
  auto const matmul = jaxcc::jit([](Array<float> const& a, Array<float> const& b) { return jnp::matmul(a, b); });
  auto const a = jaxcc::device_put(jnp::ones<float>({1024, 512}), NamedSharding(mesh, P("data", none)));
  auto const b = jaxcc::device_put(jnp::ones<float>({512, 256}), NamedSharding(mesh, P(none, "model")));
  auto const c = matmul(a, b);  // the output is split (data, model) too
  std::cout << "c: " << c.sharding() << ", c[0, 0] = " << c.to_vector()[0] << "\n";
  jaxcc::debug::visualize_array_sharding(c);

  // ============ A training step ============
  auto const train_step = [](Array<float> const& params, Array<float> const& x, Array<float> const& y, float lr) {
    auto const loss_fn = [&](Array<float> const& p) { return jnp::mean(jnp::square(jnp::matmul(x, p) - y)); };
    auto const [loss, grads] = jaxcc::value_and_grad(loss_fn)(params);
    auto const new_params = jaxcc::tree::map([&](auto const& p, auto const& g) { return Array<float>(p - lr * g); }, params, grads);
    return std::tuple{new_params, loss};
  };
  auto const jitted_step = jaxcc::jit(train_step);

  auto const params = jnp::linspace<float>(-1, 1, 16);
  auto const batch_x = jnp::sin(jnp::arange<float>(1024 * 16).reshape({1024, 16}) * 0.01f);
  auto const batch_y = jnp::cos(jnp::arange<float>(1024) * 0.02f);

  // Data parallel: params replicated, the batch split over 'data'.
  NamedSharding const data_sharding(mesh, P("data", none));
  NamedSharding const replicated(mesh, P());  // every device holds the same values
  auto const params_repl = jaxcc::device_put(params, replicated);
  auto const x_sharded_batch = jaxcc::device_put(Array<float>(batch_x), data_sharding);
  auto const y_sharded = jaxcc::device_put(Array<float>(batch_y), NamedSharding(mesh, P("data")));

  // jit inserts the collectives (the loss and gradient are psums over 'data').
  auto const [new_params, loss] = jitted_step(params_repl, x_sharded_batch, y_sharded, 0.01f);
  auto const [plain_params, plain_loss] = train_step(params, Array<float>(batch_x), Array<float>(batch_y), 0.01f);
  std::cout << "loss " << loss.item() << " (unsharded " << plain_loss.item() << "), params " << new_params.sharding()
            << ", largest difference from the unsharded step "
            << jnp::max(jnp::abs(new_params - plain_params)).item() << "\n";

  // ============ pmap, the old way ============
  auto const n = jaxcc::local_device_count();
  auto const parallel_step_pmap = jaxcc::pmap(
      [](Array<float> const& params, Array<float> const& grads) {
        auto const g = lax::pmean(grads, "devices");
        return Array<float>(params - 0.1f * g);
      },
      jaxcc::axis_name("devices"));
  std::cout << "pmap: " << parallel_step_pmap(jnp::zeros<float>({n, 4}), jnp::ones<float>({n, 4})) << "\n";

  // ============ shard_map, the way now ============
  jaxcc::set_mesh(jaxcc::make_mesh({n}, {"data"}));
  auto const grads = jaxcc::device_put(jnp::ones<float>({n, 4}), P("data"));
  auto const params_n = jaxcc::device_put(jnp::zeros<float>({n, 4}), P("data"));
  auto const parallel_step = jaxcc::shard_map(
      [](Array<float> const& p, Array<float> const& g) {
        auto const g_mean = lax::pmean(g, "data");
        return Array<float>(p - 0.1f * g_mean);
      },
      jaxcc::out_specs(P("data")));
  auto const updated = parallel_step(params_n, grads);
  std::cout << "shard_map: shape " << updated.shape() << ", " << updated.sharding() << "\n";
}

}  // namespace

int main() {
  setenv("JAXCC_NUM_DEVICES", "8", /*overwrite=*/0);  // before the first devices()
  try {
    tutorial();
  } catch (jaxcc::Error const& e) {
    std::cerr << "jaxcc::Error: " << e.what() << '\n';
    return 1;
  }
}
