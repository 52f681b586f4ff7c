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

#if defined(JAXCC_RUNTIME_MACHINERY_SOURCE)
#define JAXCC_RUNTIME_INSTANCE(...) template __VA_ARGS__;
#elif defined(JAXCC_PRECOMPILED_RUNTIME)
#define JAXCC_RUNTIME_INSTANCE(...) extern template __VA_ARGS__;
#else
#define JAXCC_RUNTIME_INSTANCE(...)
#endif

/// JAXCC_RUNTIME_INLINE, on the definition, after its class, of a large
/// member of a class the runtime holds (`PlanT<>::run`,
/// `PrimitiveOf<...>::bind`): `inline` from the headers alone; nothing where
/// the runtime is linked (every file of such a program defines
/// JAXCC_PRECOMPILED_RUNTIME, the runtime's own sources too), as {fmt}'s
/// FMT_FUNC. GCC and clang instantiate an inline member of an extern
/// template class wherever it is called, to inline it — even one declared
/// noinline — and do not instantiate a non-inline one: defined in its class,
/// such a member would still be compiled, though not emitted, in every file
/// that calls it.
#if defined(JAXCC_PRECOMPILED_RUNTIME)
#define JAXCC_RUNTIME_INLINE
#else
#define JAXCC_RUNTIME_INLINE inline
#endif
