// Misuses of jaxcc::jit that must not compile. The test compile_fail_jit
// (tests/CMakeLists.txt) builds this file and checks that the compiler
// rejects it with the message of each function's static_assert.
#include <jaxcc/transforms/jit.hpp>

#include <string>
#include <vector>

namespace {

using jaxcc::Array;

Array<float> identity(Array<float> x) { return x; }
Array<float> scaled(Array<float> x, std::vector<int> const& factors) { return x * static_cast<float>(factors.size()); }

// static_argnums names argument 1 of a one-argument call.
[[maybe_unused]] void static_argnum_out_of_range(Array<float> const& x) {
  jaxcc::jit(identity, jaxcc::static_argnums<1>)(x);
}

// donate_argnums names argument 2 of a one-argument call.
[[maybe_unused]] void donate_argnum_out_of_range(Array<float> const& x) {
  jaxcc::jit(identity, jaxcc::donate_argnums<2>)(x);
}

// A std::vector has no std::hash: it cannot key the cache.
[[maybe_unused]] void unhashable_static_argument(Array<float> const& x) {
  jaxcc::jit(scaled, jaxcc::static_argnums<1>)(x, std::vector<int>{1, 2});
}

// A traced argument whose leaf is neither an Array nor a number.
[[maybe_unused]] void non_array_leaf(Array<float> const& x, char const* label) {
  jaxcc::jit([](Array<float> y, char const*) { return y; })(x, label);
}

// A string literal (a C array) as an argument.
[[maybe_unused]] void string_literal_argument(Array<float> const& x) {
  jaxcc::jit([](Array<float> y, std::string const&) { return y; }, jaxcc::static_argnums<1>)(x, "relu");
}

}  // namespace
