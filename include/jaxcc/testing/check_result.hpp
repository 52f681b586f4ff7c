// What the checks of jaxcc::testing give: a CheckResult that says what
// differed and where, or, in their throwing forms, a CheckError.
#pragma once

#include <ostream>
#include <string>

#include "jaxcc/core/error.hpp"

namespace jaxcc::testing {

/// What a check's throwing form throws: the check's message.
class CheckError : public Error {
 public:
  using Error::Error;
};

/// A check's outcome: passed, or the message of what differed and where.
struct CheckResult {
  std::string message;  // empty when the check passed
  bool passed() const noexcept { return message.empty(); }
  explicit operator bool() const noexcept { return passed(); }
  /// The throwing form: CheckError when the check failed.
  void require() const {
    if (!passed()) throw CheckError(message);
  }
};
inline std::ostream& operator<<(std::ostream& os, CheckResult const& r) {
  return os << (r.passed() ? std::string("passed") : r.message);
}

}  // namespace jaxcc::testing
