// Automatic batching: the two examples of the vmap tutorial
// (predict(w, b, x) and its per-example gradients), then in_axes/out_axes and a collective.
// A function written for ONE example is traced once and rewritten, primitive
// by primitive, into one batched program: no loop over the batch.
#include <iostream>
#include <tuple>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using jaxcc::in_axes;
using jaxcc::none;
using Params = std::tuple<Array<float>, Array<float>>;

// Written for one example x: a (2,) vector.
Array<float> predict(Params const& params, Array<float> x) {
  auto const& [w, b] = params;
  return jnp::dot(w, x) + b;
}

Array<float> loss_fn(Params const& params, Array<float> x, Array<float> y) {
  return jnp::sum(jnp::square(predict(params, x) - y));
}

int main() {
  auto const w = jnp::array({{1.f, 2.f}, {3.f, 4.f}});
  auto const b = jnp::array({0.5f, -0.5f});
  auto const xs = jnp::stack({jnp::array({1.f, 1.f}), jnp::array({2.f, 0.f}), jnp::array({0.f, 3.f})});
  auto const ys = jnp::stack({jnp::array({1.f, 1.f}), jnp::array({0.f, 0.f}), jnp::array({1.f, 1.f})});

  // params (w, b) are shared by the batch (none); xs is mapped along axis 0.
  auto const batched_predict = jaxcc::vmap(predict, in_axes(none, 0));
  std::cout << batched_predict(Params{w, b}, xs) << "\n\n";

  // Per-example gradients: grad of the one-example loss, batched.
  auto const per_example_grad = jaxcc::vmap(jaxcc::grad(loss_fn), in_axes(none, 0, 0));
  auto const [dw, db] = per_example_grad(Params{w, b}, xs, ys);
  std::cout << "dw: shape " << dw.shape() << "\n" << dw << "\ndb: shape " << db.shape() << "\n" << db << "\n\n";

  // The traced program is one batched dot_general, not three products.
  std::cout << jaxcc::make_jaxpr(batched_predict)(Params{w, b}, xs) << "\n\n";

  // Mapped along axis 1, results stacked along the last axis.
  auto const columns = jnp::arange<float>(6).reshape({2, 3});
  std::cout << jaxcc::vmap([](Array<float> c) { return Array<float>(c * 10.f); }, in_axes(1), jaxcc::out_axes(-1))(columns)
            << "\n\n";

  // A collective over the named axis: each example minus the batch mean.
  auto const centered = jaxcc::vmap([](Array<float> x) { return Array<float>(x - lax::pmean(x, "i")); },
                                    jaxcc::axis_name("i"));
  std::cout << centered(xs) << "\n";
}
