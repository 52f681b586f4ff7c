// How many times the test program's global operator new has been called
// (tests/allocation_counter.cpp), where it counts.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define JAXCC_TEST_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define JAXCC_TEST_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef JAXCC_TEST_COUNT_ALLOCATIONS
#define JAXCC_TEST_COUNT_ALLOCATIONS 1
#endif

namespace jaxcc_test {

/// Whether heap_allocations() counts (not under a sanitizer).
inline constexpr bool counts_allocations = JAXCC_TEST_COUNT_ALLOCATIONS != 0;
/// The calls of the global operator new so far, on every thread.
long heap_allocations() noexcept;

}  // namespace jaxcc_test
