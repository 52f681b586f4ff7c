// JAXCC_RUNTIME_INLINE: what the headers of the type-erased machinery that
// the precompiled runtime compiles once (runtime/machinery.hpp lists it)
// mark their out-of-class member definitions with.
#pragma once

/// JAXCC_RUNTIME_INLINE, on the definition, after its class, of a large
/// member of a class the runtime holds (`PlanT<>::run`,
/// `Binder<...>::bind`): `inline` from the headers alone; nothing where
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

/// JAXCC_RUNTIME_INSTANCE(declaration): one specialization of the machinery
/// that the runtime holds, listed where the runtime's lists are
/// (runtime/machinery.hpp, the ends of testing/check.hpp and
/// check_grads.hpp), each inside `#if defined(JAXCC_PRECOMPILED_RUNTIME)`:
/// its explicit instantiation in the runtime's machinery.cpp (which defines
/// JAXCC_RUNTIME_MACHINERY_SOURCE), an `extern template` elsewhere.
#if defined(JAXCC_RUNTIME_MACHINERY_SOURCE)
#define JAXCC_RUNTIME_INSTANCE(...) template __VA_ARGS__;
#else
#define JAXCC_RUNTIME_INSTANCE(...) extern template __VA_ARGS__;
#endif
