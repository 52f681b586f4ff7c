// Built against jaxcc (installed, add_subdirectory, FetchContent, Conan,
// pkg-config); exits non-zero if the result is wrong. The consumer's CMake
// says what it links: JAXCC_EXPECT_RUNTIME=1 where the precompiled runtime
// must be linked (jaxcc::jaxcc by default: JAXCC_PRECOMPILED_RUNTIME
// defined, and the elementwise rules below come from libjaxcc_runtime,
// declared extern, so the program links only with it), =0 where it must
// not (jaxcc::header_only, or a package built without the runtime).
#include <jaxcc/jaxcc.hpp>

#include <cstdio>

#if defined(JAXCC_EXPECT_RUNTIME) && JAXCC_EXPECT_RUNTIME && !defined(JAXCC_PRECOMPILED_RUNTIME)
#error "expected the precompiled runtime (jaxcc::jaxcc), but JAXCC_PRECOMPILED_RUNTIME is not defined"
#endif
#if defined(JAXCC_EXPECT_RUNTIME) && !JAXCC_EXPECT_RUNTIME && defined(JAXCC_PRECOMPILED_RUNTIME)
#error "expected the headers alone (jaxcc::header_only), but JAXCC_PRECOMPILED_RUNTIME is defined"
#endif

int main() {
  namespace jnp = jaxcc::numpy;
  jaxcc::Array<float> y = jnp::arange<float>(4) * 2.0f + 1.0f;  // 1, 3, 5, 7
#if defined(JAXCC_PRECOMPILED_RUNTIME)
  std::printf("precompiled runtime: used\n");
#else
  std::printf("precompiled runtime: not used (headers only)\n");
#endif
  return y.to_vector() == std::vector<float>{1, 3, 5, 7} ? 0 : 1;
}
