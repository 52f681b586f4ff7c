// Dropout with a key per example: split one key into a key for each row of a
// batch, then vmap the per-example function over (keys, rows), as in JAX.
// Each row gets its own mask; the batched call equals a loop over the rows;
// jit gives the same masks; and the gradient flows through the kept units
// only, scaled by 1 / keep_rate.
#include <cstdint>
#include <iostream>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
using jaxcc::Array;

constexpr float keep_rate = 0.75f;

// Inverted dropout of one example: keep each unit with probability
// keep_rate and scale the kept ones so the expectation is unchanged.
Array<float> dropout(jr::KeyArray const& key, Array<float> const& x) {
  auto const keep = jr::bernoulli(key, keep_rate, x.shape());
  return jnp::where(keep, x / keep_rate, 0.0f);
}

int main() {
  std::int64_t const batch = 4, features = 8;
  auto const x = jnp::reshape(jnp::arange<float>(1, 1 + batch * features), {batch, features});

  auto const keys = jr::split(jr::key(0), batch);  // one key per example
  std::cout << "keys: " << keys << "\n\n";

  auto const batched = jaxcc::vmap(dropout)(keys, x);
  std::cout << "vmap(dropout)(keys, x):\n" << batched << "\n\n";

  // The batched call is a loop over the examples, each with its own key.
  bool same = true;
  for (std::int64_t i = 0; i < batch; ++i) {
    auto const row = jnp::take(x, jnp::array<std::int32_t>(static_cast<std::int32_t>(i)), 0);
    auto const batched_row = jnp::take(batched, jnp::array<std::int32_t>(static_cast<std::int32_t>(i)), 0);
    same = same && dropout(keys[i], row).to_vector() == batched_row.to_vector();
  }
  std::cout << "equals a loop over the rows: " << (same ? "yes" : "no") << '\n';

  auto const jitted = jaxcc::jit(jaxcc::vmap(dropout))(keys, x);
  std::cout << "jit(vmap(dropout)) gives the same masks: "
            << (jitted.to_vector() == batched.to_vector() ? "yes" : "no") << '\n';

  // d/dx sum(dropout(key, x)): 1 / keep_rate where a unit was kept, else 0.
  auto const g = jaxcc::grad([&](Array<float> const& row) { return jnp::sum(dropout(keys[0], row)); })(
      jnp::ones<float>({features}));
  std::cout << "gradient of the first example's sum: " << g << '\n';
  return same ? 0 : 1;
}
