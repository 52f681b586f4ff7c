// Buffers' recycling (core/buffer.hpp): which freed block an allocation
// of the same size gets back.
#include "catch.hpp"

#include <cstddef>
#include <thread>
#include <vector>

#include <jaxcc/core/buffer.hpp>

namespace test_buffer {

using jaxcc::detail::BufferCache;

TEST_CASE("a thread takes back the large blocks it freed itself first", "[buffer]") {
  auto& cache = BufferCache::instance();
  constexpr std::size_t bytes = std::size_t{3} << 20;  // kept per thread (up to 8 MiB)
  void* mine = cache.acquire(bytes);
  void* theirs = nullptr;
  cache.release(mine, bytes);
  // Another thread frees a block of the same size later; it keeps it.
  std::thread([&] {
    theirs = cache.acquire(bytes);
    cache.release(theirs, bytes);
  }).join();
  REQUIRE(theirs != mine);
  void* again = cache.acquire(bytes);
  REQUIRE(again == mine);
  cache.release(again, bytes);
}

TEST_CASE("a thread's fifth large block goes to the cache all threads share", "[buffer]") {
  auto& cache = BufferCache::instance();
  cache.clear();
  constexpr std::size_t bytes = std::size_t{5} << 20;
  std::vector<void*> freed;
  std::thread([&] {
    for (int i = 0; i < 5; ++i) freed.push_back(cache.acquire(bytes));
    for (void* p : freed) cache.release(p, bytes);  // the first leaves the thread's own four
  }).join();
  void* taken = cache.acquire(bytes);
  REQUIRE(taken == freed[0]);
  cache.release(taken, bytes);
  // Blocks larger than a thread keeps go to the shared cache at once.
  constexpr std::size_t large = std::size_t{16} << 20;
  void* big = nullptr;
  std::thread([&] {
    big = cache.acquire(large);
    cache.release(big, large);
  }).join();
  void* big_again = cache.acquire(large);
  REQUIRE(big_again == big);
  cache.release(big_again, large);
  cache.clear();
}

}  // namespace test_buffer
