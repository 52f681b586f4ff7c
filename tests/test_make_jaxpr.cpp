// make_jaxpr prints traced programs as JAX prints jaxprs. The expected texts
// are what jax.make_jaxpr prints for the same Python function (checked by
// hand against JAX's printing rules: names a, b, ... in order of appearance,
// literals as value:type, one line when it fits in 80 columns).
#include "catch.hpp"

#include <complex>
#include <string>

#include <jaxcc/jaxcc.hpp>

namespace test_make_jaxpr {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;

TEST_CASE("one equation fits on one line", "[make_jaxpr]") {
  auto j = jaxcc::make_jaxpr([](Array<float> x) { return jnp::sin(x); })(jnp::ones<float>({3}));
  REQUIRE(to_string(j) == "{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }");
  REQUIRE(j.num_equations() == 1);
}

TEST_CASE("a fused region prints as its ops", "[make_jaxpr][fusion]") {
  auto j = jaxcc::make_jaxpr([](Array<float> x) { return 2.0f * x + jnp::sin(x) * x; })(jnp::ones<float>({3}));
  REQUIRE(j.num_equations() == 1);  // one fused equation...
  REQUIRE(to_string(j) ==           // ...shown as JAX would trace it
          "{ lambda ; a:f32[3]. let\n"
          "    b:f32[3] = mul 2.0:f32[] a\n"
          "    c:f32[3] = sin a\n"
          "    d:f32[3] = mul c a\n"
          "    e:f32[3] = add b d\n"
          "  in (e,) }");
}

TEST_CASE("where prints as select_n with the false case first", "[make_jaxpr]") {
  auto j = jaxcc::make_jaxpr([](Array<float> x) { return Array<float>(jnp::where(x > 0.0f, x, 0.5f)); })(jnp::ones<float>({2}));
  REQUIRE(to_string(j) ==
          "{ lambda ; a:f32[2]. let\n"
          "    b:bool[2] = gt a 0.0:f32[]\n"
          "    c:f32[2] = select_n b 0.5:f32[] a\n"
          "  in (c,) }");
}

TEST_CASE("complex and signed-zero literals print as Python's repr", "[make_jaxpr][complex]") {
  // The texts jax.make_jaxpr (JAX 0.10.2) prints for
  //   lambda x: x*(0.1+0.2j) - (1e20-0j) + complex(-0.0, 2) + complex(0, -1.5)
  // on a c64[3], and for lambda x: x * -0.0 on an f32[3]: a complex part
  // without a float's ".0", parentheses unless the real part is +0.
  using C = std::complex<float>;
  auto j = jaxcc::make_jaxpr([](Array<C> x) {
    return Array<C>(x * C(0.1f, 0.2f) - C(1e20f, 0.0f) + C(-0.0f, 2.0f) + C(0.0f, -1.5f));
  })(jnp::ones<C>({3}));
  REQUIRE(to_string(j) ==
          "{ lambda ; a:c64[3]. let\n"
          "    b:c64[3] = mul a (0.10000000149011612+0.20000000298023224j):c64[]\n"
          "    c:c64[3] = sub b (1.0000000200408773e+20+0j):c64[]\n"
          "    d:c64[3] = add c (-0+2j):c64[]\n"
          "    e:c64[3] = add d -1.5j:c64[]\n"
          "  in (e,) }");
  auto z = jaxcc::make_jaxpr([](Array<float> x) { return Array<float>(x * -0.0f); })(jnp::ones<float>({3}));
  REQUIRE(to_string(z) == "{ lambda ; a:f32[3]. let b:f32[3] = mul a -0.0:f32[] in (b,) }");
}

TEST_CASE("parameters, several inputs and outputs, constants", "[make_jaxpr]") {
  auto f = [](Array<float> x, Array<float>) { return std::pair{x.T(), x.reshape({6})}; };
  auto j = jaxcc::make_jaxpr(f)(jnp::ones<float>({2, 3}), jnp::ones<float>({}));
  REQUIRE(to_string(j) ==
          "{ lambda ; a:f32[2,3] b:f32[]. let\n"
          "    c:f32[3,2] = transpose[permutation=(1, 0)] a\n"
          "    d:f32[6] = reshape[dimensions=None new_sizes=(6,)] a\n"
          "  in (c, d) }");
  // A captured array of more than one element is a constvar.
  auto w = jnp::array({1.f, 2.f});
  auto g = jaxcc::make_jaxpr([&](Array<float> x) { return Array<float>(x * w); })(jnp::ones<float>({2}));
  REQUIRE(to_string(g) == "{ lambda a:f32[2]; b:f32[2]. let c:f32[2] = mul b a in (c,) }");
}

TEST_CASE("a checkpointed function prints its program as a parameter", "[make_jaxpr][checkpoint]") {
  auto h = jaxcc::checkpoint([](Array<float> a) { return Array<float>(jnp::sin(a) * jnp::exp(a)); });
  REQUIRE(to_string(jaxcc::make_jaxpr(h)(jnp::array(1.0f))) ==
          "{ lambda ; a:f32[]. let\n"
          "    b:f32[] = checkpoint[jaxpr={ lambda ; c:f32[]. let\n"
          "        d:f32[] = sin c\n"
          "        e:f32[] = exp c\n"
          "        f:f32[] = mul d e\n"
          "      in (f,) }] a\n"
          "  in (b,) }");
}

TEST_CASE("python_float_repr writes floats as Python's repr", "[make_jaxpr]") {
  using jaxcc::graph::python_float_repr;
  REQUIRE(python_float_repr(2.0) == "2.0");
  REQUIRE(python_float_repr(0.1) == "0.1");
  REQUIRE(python_float_repr(-1.5) == "-1.5");
  REQUIRE(python_float_repr(1e-5) == "1e-05");
  REQUIRE(python_float_repr(0.0001) == "0.0001");
  REQUIRE(python_float_repr(1e16) == "1e+16");
  REQUIRE(python_float_repr(123456789.0) == "123456789.0");
  REQUIRE(python_float_repr(1.25e-7) == "1.25e-07");
  REQUIRE(python_float_repr(static_cast<double>(0.1f)) == "0.10000000149011612");
}

}  // namespace test_make_jaxpr
