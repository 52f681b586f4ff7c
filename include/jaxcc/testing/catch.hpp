// Catch2 matcher `AllClose(expected, rtol, atol)`; works with Catch2 v2 and
// v3. Include Catch2 before this header. The checks of testing/check.hpp
// need no adapter: `CHECK(jaxcc::testing::jit_matches(f, x))` prints the
// CheckResult's message when it fails.
#pragma once

#include <sstream>
#include <string>

#include "jaxcc/testing/allclose.hpp"

#ifndef CATCH_VERSION_MAJOR
#error "include Catch2 (catch2/catch.hpp or catch2/catch_all.hpp) before jaxcc/testing/catch.hpp"
#endif

namespace jaxcc::testing {

#if CATCH_VERSION_MAJOR >= 3
template <class T>
using CatchMatcherBase = Catch::Matchers::MatcherBase<T>;
#else
template <class T>
using CatchMatcherBase = Catch::MatcherBase<T>;
#endif

template <Element T>
class AllCloseMatcher : public CatchMatcherBase<Array<T>> {
 public:
  AllCloseMatcher(Array<T> expected, double rtol, double atol, bool equal_nan)
      : expected_(std::move(expected)), rtol_(rtol), atol_(atol), equal_nan_(equal_nan) {}

  bool match(Array<T> const& actual) const override {
    auto report = compare(actual, expected_, rtol_, atol_, equal_nan_);
    why_ = report.why;
    return report.close;
  }
  std::string describe() const override {
    std::ostringstream os;
    os << "is allclose (rtol=" << rtol_ << ", atol=" << atol_ << ") to\n" << expected_;
    if (!why_.empty()) os << "\n  " << why_;
    return os.str();
  }

 private:
  Array<T> expected_;
  double rtol_, atol_;
  bool equal_nan_;
  mutable std::string why_;
};

/// `REQUIRE_THAT(actual, AllClose(expected))`; `actual` must be an Array of
/// the same dtype (write `as_array(expr)` for an expression).
template <ArrayLike E>
AllCloseMatcher<value_type_t<E>> AllClose(E const& expected, double rtol = 1e-5, double atol = 1e-8,
                                          bool equal_nan = false) {
  return {as_array(expected), rtol, atol, equal_nan};
}

}  // namespace jaxcc::testing
