// The test programs' global operator new, counting what it is asked for:
// the checks that a code path allocates nothing (tree::map over structs, a
// jitted function's steady-state call) read jaxcc_test::heap_allocations().
// Sanitizers bring their own allocator, which a replacement would fight:
// their builds do not count (jaxcc_test::counts_allocations is false).
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#include "allocation_counter.hpp"

namespace {
std::atomic<long> allocations{0};
}  // namespace

long jaxcc_test::heap_allocations() noexcept { return allocations.load(); }

#if JAXCC_TEST_COUNT_ALLOCATIONS
namespace {
// Out of line, so that GCC does not pair an inlined free with operator new.
[[gnu::noinline]] void release(void* p) noexcept { std::free(p); }
}  // namespace

void* operator new(std::size_t n) {
  ++allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t align) {
  ++allocations;
  auto const a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (n + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
#endif
