// A vector for one call's bookkeeping that keeps its capacity from call to
// call: taken from this thread's spares and given back, cleared, when it
// goes. Calls may nest (a plan runs a primitive that runs a plan): each
// takes its own.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace jaxcc::detail {

template <class T>
class ScratchVector {
 public:
  ScratchVector() {
    auto& s = spares();
    if (!s.empty()) {
      items_ = std::move(s.back());
      s.pop_back();
    }
  }
  ScratchVector(ScratchVector const&) = delete;
  ScratchVector& operator=(ScratchVector const&) = delete;
  ~ScratchVector() {
    items_.clear();
    auto& s = spares();
    if (s.size() < max_spares) s.push_back(std::move(items_));  // within the reserved capacity: no allocation
  }

  std::vector<T>& operator*() noexcept { return items_; }
  std::vector<T>* operator->() noexcept { return &items_; }

 private:
  static constexpr std::size_t max_spares = 16;
  static std::vector<std::vector<T>>& spares() {
    thread_local std::vector<std::vector<T>> s = [] {
      std::vector<std::vector<T>> v;
      v.reserve(max_spares);
      return v;
    }();
    return s;
  }
  std::vector<T> items_;
};

}  // namespace jaxcc::detail
