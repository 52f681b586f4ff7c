// jaxcc::Error: the one exception type the library throws for bad input.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace jaxcc {

/// Raised for bad shapes, axes, dtypes and misuse of transforms. The message
/// names the operation, the offending shapes or axes, and what would fit.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
/// Throw jaxcc::Error with `parts` streamed into one message.
[[noreturn]] void throw_error(auto const&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  throw Error(os.str());
}
}  // namespace detail

}  // namespace jaxcc
