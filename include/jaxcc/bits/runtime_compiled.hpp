// The type-erased machinery that the precompiled runtime compiles once:
// jit's planner and fused runs, the program optimizer, the interpreters of
// traced programs, the jaxpr printer. Each piece is a template of one
// defaulted parameter (`template <class = void>`), so that a file compiles
// it only where it uses it, and its header names its <void> specialization
// in JAXCC_RUNTIME_INSTANCE right after it: with JAXCC_PRECOMPILED_RUNTIME
// (linking jaxcc::runtime) that declares it extern, so that the file
// compiles none of it, and the runtime's machinery.cpp
// (cmake/runtime.cmake), which defines JAXCC_RUNTIME_MACHINERY_SOURCE,
// instantiates it there, once.
#pragma once

/// JAXCC_RUNTIME_COMPILED, on the large members of such a class: in a file
/// that links the runtime, [[gnu::noinline]], because GCC and clang
/// instantiate an inline member of an extern template class in order to
/// inline it, and leave to the library one they may not inline. (Function
/// templates are not inline and need nothing.) Elsewhere — the headers
/// alone, the library's own source — nothing: the calls inline as before.
#if defined(JAXCC_RUNTIME_MACHINERY_SOURCE)
#define JAXCC_RUNTIME_INSTANCE(...) template __VA_ARGS__;
#define JAXCC_RUNTIME_COMPILED
#elif defined(JAXCC_PRECOMPILED_RUNTIME)
#define JAXCC_RUNTIME_INSTANCE(...) extern template __VA_ARGS__;
#define JAXCC_RUNTIME_COMPILED [[gnu::noinline]]
#else
#define JAXCC_RUNTIME_INSTANCE(...)
#define JAXCC_RUNTIME_COMPILED
#endif
