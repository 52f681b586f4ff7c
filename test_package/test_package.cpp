// Conan's test_package: grad, jit and vmap on the installed jaxcc, with the
// precompiled runtime when it is linked (jaxcc::jaxcc by default, which defines
// JAXCC_PRECOMPILED_RUNTIME). Exits non-zero if a result is wrong.
#include <cmath>
#include <cstdio>
#include <vector>

#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

// f(x) = sum(x * x): grad is 2x.
Array<float> f(Array<float> x) { return jnp::sum(x * x); }

int main() {
  auto const x = jnp::array({1.f, 2.f, 3.f});
  auto const df = jaxcc::jit(jaxcc::grad(f));               // jit(grad(f))
  auto const per_row = jaxcc::vmap(f);                        // f over each row
  std::vector<float> const g = df(x).to_vector();             // 2, 4, 6
  std::vector<float> const v = per_row(jnp::stack({x, jaxcc::Array<float>(x * 2.f)})).to_vector();  // 14, 56
  bool const ok = g == std::vector<float>{2, 4, 6} && std::fabs(v[0] - 14.f) < 1e-5f && std::fabs(v[1] - 56.f) < 1e-4f;
  std::printf("jaxcc %d.%d.%d: grad %g %g %g, vmap %g %g: %s\n", JAXCC_VERSION_MAJOR, JAXCC_VERSION_MINOR,
              JAXCC_VERSION_PATCH, g[0], g[1], g[2], v[0], v[1], ok ? "ok" : "WRONG");
#if defined(JAXCC_PRECOMPILED_RUNTIME)
  std::printf("precompiled runtime: used (JAXCC_PRECOMPILED_RUNTIME, rules from libjaxcc_runtime)\n");
#else
  std::printf("precompiled runtime: not used (headers only)\n");
#endif
  return ok ? 0 : 1;
}
