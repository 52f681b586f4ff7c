// Programs: fused regions as data, and the derivatives built from them
// (fusion/program.hpp, fusion/program_primitive.hpp). Expected values come
// from the regions' own compiled loops, from derivatives worked out by hand
// (in each comment) and from central differences.
#include "catch.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_program {

namespace jnp = jaxcc::numpy;
using jaxcc::AnyArray;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc::testing::AllClose;

TEST_CASE("a region's program computes what its loop computes", "[program]") {
  // Broadcast leaves of three shapes, a scalar constant, a comparison and a
  // select: every kind of value and node.
  auto const x = jnp::linspace<double>(-2.0, 2.0, 12).reshape({3, 4});
  auto const y = jnp::array({0.5, -1.0, 2.0, 3.0});
  auto const z = jnp::array({{1.5}, {-0.25}, {4.0}});
  auto const region = jnp::where(x > 0.0, x * y + jnp::sin(z), jnp::exp(x) - 2.5 * z);
  Array<double> const by_loop = region;
  auto const program = jaxcc::fusion::program_of(region);
  // The leaves in the region's order: the comparison's x, then the true
  // case's x, y, z, then the false case's x and z.
  REQUIRE(program.input_count == 6);
  std::vector<AnyArray> leaves;
  jaxcc::fusion::for_each_leaf(region, [&](auto const& leaf) { leaves.emplace_back(leaf); });
  REQUIRE(leaves.size() == 6);
  auto const by_program = jaxcc::fusion::run_program(program, leaves, Shape{3, 4});
  REQUIRE(jaxcc_test::mismatch(by_program.as<double>(), by_loop) == "");

  // The region's own loops, which run its program where a trace recorded it
  // (jit's fused runs call the row kernel; a concrete evaluation the loop):
  // the whole region on its leaves, and row by row, each leaf read at its
  // row stepping 1 along the last axis, or 0 where it is broadcast (y's row
  // is y, z's a single element); a fused run's values are x, y, z, and the
  // region reads them by position.
  using Compiled = jaxcc::fusion::Region<std::remove_cvref_t<decltype(region)>>;
  REQUIRE(jaxcc_test::mismatch(Compiled::evaluate(&region, leaves).as<double>(), by_loop) == "");
  for (std::int64_t r = 0; r < 3; ++r) {
    std::array<void const*, 3> const rows{x.data() + 4 * r, y.data(), z.data() + r};
    std::array<std::int64_t, 3> const steps{1, 1, 0};
    std::array<std::uint32_t, 6> const operands{0, 0, 1, 2, 0, 2};
    std::array<double, 4> out{};
    Compiled::row(&region, rows, steps, operands, out.data(), 4);
    for (std::int64_t i = 0; i < 4; ++i) REQUIRE(out[i] == by_loop.data()[4 * r + i]);
  }
}

TEST_CASE("a region's tangent and cotangents match central differences", "[program][jvp][vjp]") {
  // f(x, b) = tanh(x * w + b) with w a constant: b broadcasts along rows, so
  // its cotangent sums over them. By hand: df = (1 - f^2) (w dx + db).
  double const w = 0.75;
  auto f = [w](Array<double> x, Array<double> b) { return Array<double>(jnp::tanh(x * w + b)); };
  auto const x = jnp::linspace<double>(-1.0, 1.0, 6).reshape({2, 3});
  auto const b = jnp::array({0.1, -0.2, 0.3});
  auto const dx = jnp::linspace<double>(0.5, 1.5, 6).reshape({2, 3});
  auto const db = jnp::array({1.0, -2.0, 0.5});
  auto const [y, dy] = jaxcc::jvp(f, std::tuple{x, b}, std::tuple{dx, db});
  double const h = 1e-6;
  Array<double> const central = (f(x + h * dx, b + h * db) - f(x - h * dx, b - h * db)) / (2 * h);
  REQUIRE_THAT(dy, AllClose(central, 1e-7));

  auto const out_and_pullback = jaxcc::vjp(f, x, b);
  auto const ct = jnp::linspace<double>(-1.0, 2.0, 6).reshape({2, 3});
  auto const [cx, cb] = out_and_pullback.second(ct);
  Array<double> const slope = 1.0 - y * y;
  REQUIRE_THAT(cx, AllClose(Array<double>(ct * slope * w), 1e-12));
  REQUIRE(cb.shape() == Shape{3});
  REQUIRE_THAT(cb, AllClose(jnp::sum(ct * slope, 0), 1e-12));
}

TEST_CASE("regions that differ only in their constants get their own derivatives", "[program][grad]") {
  // Derived programs are kept per thread and reused; the constants are part
  // of what they are kept by. d/dx sum(a x + sin(a x)) = a + a cos(a x).
  auto const x = jnp::array({0.25, 1.0, -2.0});
  for (double a : {2.0, 3.0, -0.5, 2.0}) {
    auto g = jaxcc::grad([a](Array<double> v) { return jnp::sum(v * a + jnp::sin(v * a)); })(x);
    Array<double> const expected = a + a * jnp::cos(a * x);
    REQUIRE_THAT(g, AllClose(expected, 1e-14));
  }
}

TEST_CASE("jit folds the ones a cotangent program reads", "[program][jit]") {
  // grad of sum(exp(x) * x) seeds the region's cotangents with ones: the
  // traced gradient holds the region (one product) and two cotangent
  // programs, ones * exp(x) * x and ones * exp(x) (three). Under jit the
  // programs fold the ones in, the value no output needs is dropped, and
  // exp(x) * x + exp(x), by hand, is what is left: one product.
  auto const f = [](Array<float> x) { return jnp::sum(jnp::exp(x) * x); };
  auto const x = jnp::array({-1.0f, 0.5f, 2.0f});
  auto const products = [](std::string const& text) {
    std::size_t n = 0;
    for (auto at = text.find(" = mul"); at != std::string::npos; at = text.find(" = mul", at + 1)) ++n;
    return n;
  };
  REQUIRE(products(jaxcc_test::jaxpr_of(jaxcc::grad(f), x)) == 4);
  REQUIRE(products(jaxcc_test::jaxpr_of(jaxcc::jit(jaxcc::grad(f)), x)) == 1);
  Array<float> const by_hand = jnp::exp(x) * x + jnp::exp(x);
  REQUIRE_THAT(jaxcc::jit(jaxcc::grad(f))(x), AllClose(by_hand, 1e-6));
}

TEST_CASE("a program folds a uniform operand and forwards what it leaves", "[program][jit]") {
  // (a * 1) as a program over inputs a and ones: folding the ones leaves a
  // program that passes a on, which jit then drops.
  auto const a = jnp::array({1.0f, -2.0f, 3.0f});
  auto const region = a * jnp::ones<float>({3});
  auto program = std::make_shared<jaxcc::fusion::Program const>(jaxcc::fusion::program_of(region));
  jaxcc::fusion::ProgramPrimitive const primitive(program, {Shape{3}, Shape{3}});
  std::vector<Shape> const shapes{Shape{3}, Shape{3}};
  std::vector<std::optional<double>> const uniform{std::nullopt, 1.0};
  auto const folded = primitive.folded(shapes, uniform);
  REQUIRE(folded);
  REQUIRE(folded->operands == std::vector<std::size_t>{0});
  std::vector<Shape> const kept{Shape{3}};
  std::vector<std::optional<double>> const none{std::nullopt};
  REQUIRE(folded->primitive->forwarded_operand(kept, none) == std::optional<std::size_t>{0});
  // A 2 is no identity: the product stays.
  std::vector<std::optional<double>> const two{std::nullopt, 2.0};
  auto const scaled = primitive.folded(shapes, two);
  REQUIRE(scaled);
  REQUIRE(!scaled->primitive->forwarded_operand(kept, none));
  std::vector<AnyArray> const inputs{a};
  REQUIRE(jaxcc_test::mismatch(scaled->primitive->evaluate(inputs)[0].as<float>(), Array<float>(a * 2.0f)) == "");
  // Folding that would change the result's shape (the ones broadcast a) is declined.
  std::vector<Shape> const broadcasting{Shape{}, Shape{3}};
  jaxcc::fusion::ProgramPrimitive const wide(program, broadcasting);
  REQUIRE(!wide.folded(broadcasting, uniform));
}

}  // namespace test_program
