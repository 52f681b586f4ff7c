// Misuses of the transforms that must not compile. The test
// compile_fail_transforms (tests/CMakeLists.txt) builds this file and checks
// that the compiler rejects it with each static_assert's message; the
// instantiation line above each names the argument's position and type.
#include <jaxcc/jaxcc.hpp>

#include <string>

namespace {

using jaxcc::Array;

Array<float> labelled(Array<float> x, std::string const&) { return x; }
Array<float> product(Array<float> x, Array<float> y) { return x * y; }

// A std::string leaf cannot be traced: vmap maps every argument.
[[maybe_unused]] void vmap_of_a_string(Array<float> const& x) { jaxcc::vmap(labelled)(x, std::string("relu")); }

// A string literal is a C array.
[[maybe_unused]] void vmap_of_a_string_literal(Array<float> const& x) {
  jaxcc::vmap([](Array<float> y, char const*) { return y; })(x, "relu");
}

// in_axes with three entries for a function called with two arguments.
[[maybe_unused]] void in_axes_of_the_wrong_structure(Array<float> const& x) {
  jaxcc::vmap(product, jaxcc::in_axes(0, 0, 0))(x, x);
}

// An AnyArray output: its element type is known only at run time.
[[maybe_unused]] void jit_returning_an_any_array(Array<float> const& x) {
  jaxcc::jit([](Array<float> const& y) { return jaxcc::AnyArray(y); })(x);
}

}  // namespace
