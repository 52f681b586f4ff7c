// Built against an installed jaxcc through its jaxcc::testing target: the
// framework-neutral checks, without a test framework. Exits non-zero when a
// check that must pass fails, or one that must fail passes.
#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/check.hpp>

#include <iostream>

int main() {
  namespace jnp = jaxcc::numpy;
  using jaxcc::Array;
  auto const x = jnp::linspace<double>(-1.0, 1.0, 5);
  auto const f = [](Array<double> const& v) { return jnp::sum(jnp::sin(v) * v); };
  auto const jit_check = jaxcc::testing::jit_matches(f, x);
  auto const grad_check = jaxcc::testing::grads_match(f, std::tuple{x}, 1);
  auto const mismatch = jaxcc::testing::compare(x, Array<double>(x * 2.0));
  std::cout << "jit: " << jit_check << "\ngrads: " << grad_check << "\nx vs 2x: " << mismatch.why << '\n';
  return jit_check && grad_check && !mismatch.close ? 0 : 1;
}
