// GoogleTest and GoogleMock adapters:
//   EXPECT_THAT(x, jaxcc::testing::AllClose(expected, rtol, atol));
//   EXPECT_ALLCLOSE(x, expected);   ASSERT_ALLCLOSE(x, expected);
//   EXPECT_PASSES(jaxcc::testing::jit_matches(f, x));   ASSERT_PASSES(...);
// A failure prints both arrays as JAX prints them, and the worst element's
// index, values and difference. Include GoogleTest (gtest/gtest.h and
// gmock/gmock.h) before this header; use testing/catch.hpp with Catch2
// instead (each defines AllClose for its framework).
#pragma once

#include <ostream>
#include <sstream>
#include <string>

#include "jaxcc/testing/allclose.hpp"
#include "jaxcc/testing/check_result.hpp"

#if !defined(GTEST_INCLUDE_GTEST_GTEST_H_) && !defined(GOOGLETEST_INCLUDE_GTEST_GTEST_H_)
#error "include GoogleTest (gtest/gtest.h, and gmock/gmock.h for AllClose) before jaxcc/testing/gtest.hpp"
#endif

namespace jaxcc::testing {

#if defined(GMOCK_INCLUDE_GMOCK_GMOCK_H_) || defined(GOOGLEMOCK_INCLUDE_GMOCK_GMOCK_H_)
template <Element T>
class AllCloseGMatcher : public ::testing::MatcherInterface<Array<T> const&> {
 public:
  AllCloseGMatcher(Array<T> expected, double rtol, double atol, bool equal_nan)
      : expected_(std::move(expected)), rtol_(rtol), atol_(atol), equal_nan_(equal_nan) {}

  bool MatchAndExplain(Array<T> const& actual, ::testing::MatchResultListener* listener) const override {
    auto const report = compare(actual, expected_, rtol_, atol_, equal_nan_);
    if (!report.close) *listener << report.why;
    return report.close;
  }
  void DescribeTo(std::ostream* os) const override {
    *os << "is allclose (rtol=" << rtol_ << ", atol=" << atol_ << ") to\n" << expected_;
  }
  void DescribeNegationTo(std::ostream* os) const override {
    *os << "is not allclose (rtol=" << rtol_ << ", atol=" << atol_ << ") to\n" << expected_;
  }

 private:
  Array<T> expected_;
  double rtol_, atol_;
  bool equal_nan_;
};

/// `EXPECT_THAT(actual, AllClose(expected, rtol, atol))` (GoogleMock).
template <ArrayLike E>
::testing::Matcher<Array<value_type_t<E>> const&> AllClose(E const& expected, double rtol = 1e-5, double atol = 1e-8,
                                                          bool equal_nan = false) {
  return ::testing::MakeMatcher(new AllCloseGMatcher<value_type_t<E>>(as_array(expected), rtol, atol, equal_nan));
}
#endif

namespace detail {

/// EXPECT_ALLCLOSE's predicate formatter.
template <ArrayLike A, ArrayLike B>
::testing::AssertionResult allclose_format(char const* actual_text, char const* expected_text, A const& actual,
                                           B const& expected) {
  auto const report = compare(actual, expected, 1e-5, 1e-8);
  if (report.close) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << actual_text << " is not allclose to " << expected_text << ": " << report.why
                                       << "\n  " << actual_text << " = " << as_array(actual) << "\n  " << expected_text
                                       << " = " << as_array(expected);
}

inline ::testing::AssertionResult check_passed(CheckResult const& result) {
  if (result.passed()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << result.message;
}

}  // namespace detail
}  // namespace jaxcc::testing

/// numpy.allclose(actual, expected) with rtol 1e-5 and atol 1e-8.
#define EXPECT_ALLCLOSE(actual, expected) EXPECT_PRED_FORMAT2(::jaxcc::testing::detail::allclose_format, actual, expected)
#define ASSERT_ALLCLOSE(actual, expected) ASSERT_PRED_FORMAT2(::jaxcc::testing::detail::allclose_format, actual, expected)
/// A jaxcc::testing check (jit_matches, vmap_matches, grads_match) passed.
#define EXPECT_PASSES(check) EXPECT_TRUE(::jaxcc::testing::detail::check_passed(check))
#define ASSERT_PASSES(check) ASSERT_TRUE(::jaxcc::testing::detail::check_passed(check))
