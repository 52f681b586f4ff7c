// A primitive whose rule is declared with the wrong signature must stop the
// build with a message naming the rule, instead of being ignored and failing
// at run time as "not implemented". Built only by the test compile_fail_rules.
#include <string_view>

#include <jaxcc/jaxcc.hpp>

namespace {

using jaxcc::Array;

/// 2x, whose jvp forgets the tangent operand and whose batch rule forgets the dims.
struct twice_p {
  static constexpr std::string_view name = "twice";
  struct Params {};
  static jaxcc::Shape shape_rule(Params const&, Array<float> const& x) { return x.shape(); }
  static Array<float> impl(Params const&, jaxcc::Shape const&, Array<float> const& x) { return Array<float>(x * 2.f); }
  static Array<float> jvp(Params const&, Array<float> const&, Array<float> const& x) { return x; }
  static Array<float> batch(Params const&, Array<float> const& x) { return x; }
};

}  // namespace

int main() {
  auto y = jaxcc::detail::bind<twice_p>({}, jaxcc::numpy::ones<float>({3}));
  (void)y;
}
