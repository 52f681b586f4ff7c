// Pytrees: nested containers handled as one bundle of arrays, as with
// jax.tree. The params dict below is the one of the JAX tutorial:
//
//     params = {"layer1": {"w": jnp.ones((2, 2)), "b": jnp.zeros((2,))},
//               "layer2": {"w": jnp.ones((2, 1)), "b": jnp.zeros((1,))}}
//     doubled = jax.tree.map(lambda x: x * 2, params)
//     leaves, treedef = jax.tree.flatten(params)   # 4 leaves
#include <iostream>
#include <map>
#include <string>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;
namespace tree = jaxcc::tree;
using jaxcc::Array;

// A struct becomes a pytree node with one line.
struct Dense {
  Array<float> w, b;
};
JAXCC_PYTREE(Dense, w, b);

int main() {
  using Params = std::map<std::string, std::map<std::string, Array<float>>>;
  Params params{{"layer1", {{"w", jnp::ones<float>({2, 2})}, {"b", jnp::zeros<float>(2)}}},
                {"layer2", {{"w", jnp::ones<float>({2, 1})}, {"b", jnp::zeros<float>(1)}}}};

  // tree::map keeps the structure and applies the function to every leaf.
  Params doubled = tree::map([](auto const& x) { return x * 2; }, params);

  // flatten: leaves depth-first with dict keys sorted, and the structure.
  auto [leaves, treedef] = tree::flatten(doubled);
  std::cout << "treedef: " << treedef << '\n';
  std::cout << leaves.size() << " leaves:\n";
  for (auto const& [path, leaf] : tree::leaves_with_path(doubled))
    std::cout << "  " << tree::keystr(path) << " = " << leaf << '\n';

  // unflatten puts leaves back into the same C++ type.
  Params rebuilt = tree::unflatten(treedef, leaves);
  std::cout << "rebuilt layer2.w: " << rebuilt.at("layer2").at("w") << "\n\n";

  // Structs, tuples and vectors nest freely; leaves of several dtypes
  // flatten to jaxcc::AnyArray and come back exactly.
  auto model = std::tuple{std::vector{Dense{jnp::ones<float>({2, 2}), jnp::zeros<float>(2)}},
                          jnp::arange<std::int32_t>(3)};
  auto [mixed, model_def] = tree::flatten(model);
  std::cout << "model treedef: " << model_def << '\n';
  for (auto const& leaf : mixed)
    std::cout << "  leaf of dtype " << leaf.dtype() << " and shape " << leaf.shape() << '\n';
  auto model_again = tree::unflatten(model_def, mixed);
  std::cout << "the int32 leaf, back as Array<int32_t>: " << std::get<1>(model_again) << "\n\n";

  // Trees that differ in structure are reported with the key path.
  try {
    Params other{{"layer1", {{"w", jnp::ones<float>({2, 2})}}}};
    tree::map([](auto const& a, auto const& b) { return a + b; }, params, other);
  } catch (jaxcc::Error const& e) {
    std::cout << e.what() << '\n';
  }
}
