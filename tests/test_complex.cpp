// complex64 and complex128: JAX's values and gradients for jnp's functions
// on complex arrays (tests/golden/complex_cases.py), the parts and their
// transposes, grad's holomorphic option and errors, and the transforms.
#include "catch.hpp"

#include <complex>
#include <functional>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/eigen.hpp>
#include <jaxcc/testing.hpp>

#include "support.hpp"

namespace test_complex {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;
using c64 = std::complex<float>;
using c128 = std::complex<double>;
using jaxcc_test::as_doubles;
using jaxcc_test::message_of;

struct ComplexCase {
  std::string spelling, dtype;
  jaxcc::Shape shape;
  std::vector<double> values, grad;
};
struct HolomorphicCase {
  std::string spelling;
  std::vector<double> grad;
};

// JAX's answers; see tests/golden/complex_cases.py.
#include "golden/complex_cases.inc"

/// A (2, 3) complex64 array from re, im pairs.
Array<c64> complex_array(std::vector<double> const& pairs) {
  std::vector<c64> v;
  for (std::size_t i = 0; i < pairs.size(); i += 2)
    v.emplace_back(static_cast<float>(pairs[i]), static_cast<float>(pairs[i + 1]));
  return jnp::array<c64>(v, {2, 3});
}


std::string mismatches(std::vector<double> const& got, std::vector<double> const& expected, double rtol, double atol) {
  if (got.size() != expected.size()) return "size " + std::to_string(got.size()) + " vs " + std::to_string(expected.size());
  std::string out;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - expected[i]) <= rtol * std::abs(expected[i]) + atol))
      out += "element " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs " + std::to_string(expected[i]) + "; ";
  return out;
}

/// A function's result as an Array (it may be an expression or a view).
template <class R>
auto as_result(R const& r) {
  if constexpr (jaxcc::ArrayLike<R>) return jaxcc::as_array(r);
  else return jaxcc::Array<jaxcc::value_type_t<R>>(r);
}

/// The loss the generator differentiates: 0.7 real + 0.3 imag of a complex
/// result, the sum of a real one.
template <class T>
Array<float> loss_of(Array<T> const& out) {
  if constexpr (jaxcc::ComplexElement<T>) return jnp::sum(0.7f * jnp::real(out) + 0.3f * jnp::imag(out));
  else return jnp::sum(out.template astype<float>());
}

/// A case: its spelling and the function of z, returning any dtype.
struct Case {
  std::string spelling;
  std::function<void(Array<c64> const&, ComplexCase const&)> check;
};

/// Checks `f`'s value against the row, and (for an inexact result) the
/// gradient of its loss with respect to z.
template <class F>
Case make(std::string spelling, F f) {
  return {std::move(spelling), [f](Array<c64> const& z, ComplexCase const& row) {
            auto const out = as_result(f(z));
            using T = jaxcc::value_type_t<decltype(out)>;
            CHECK(std::string(jaxcc::name(out.dtype())) == row.dtype);
            CHECK(out.shape() == row.shape);
            CHECK(mismatches(as_doubles(out), row.values, 2e-5, 2e-6) == "");
            if constexpr (jaxcc::InexactElement<T>) {
              auto const g = jaxcc::grad([f](Array<c64> const& a) { return loss_of(as_result(f(a))); })(z);
              CHECK(mismatches(as_doubles(g), row.grad, 2e-5, 2e-6) == "");
            }
          }};
}

std::vector<Case> cases() {
  auto const w = complex_array(w_values);
  auto const x = jnp::array<float>(std::vector<float>(x_values.begin(), x_values.end()), {2, 3});
  auto const j = c64(0, 1.5f);
  return {
      make("z + w", [=](auto const& a) { return a + w; }),
      make("z - w", [=](auto const& a) { return a - w; }),
      make("z * w", [=](auto const& a) { return a * w; }),
      make("z / w", [=](auto const& a) { return a / w; }),
      make("-z", [=](auto const& a) { return -a; }),
      make("z * 2.5", [=](auto const& a) { return a * 2.5; }),
      make("z + 1.5j", [=](auto const& a) { return a + j; }),
      make("x * z", [=](auto const& a) { return x * a; }),
      make("z / x", [=](auto const& a) { return a / x; }),
      make("square(z)", [=](auto const& a) { return jnp::square(a); }),
      make("power(z, w)", [=](auto const& a) { return jnp::power(a, w); }),
      make("exp(z)", [=](auto const& a) { return jnp::exp(a); }),
      make("log(z)", [=](auto const& a) { return jnp::log(a); }),
      make("sqrt(z)", [=](auto const& a) { return jnp::sqrt(a); }),
      make("sin(z)", [=](auto const& a) { return jnp::sin(a); }),
      make("cos(z)", [=](auto const& a) { return jnp::cos(a); }),
      make("tan(z)", [=](auto const& a) { return jnp::tan(a); }),
      make("tanh(z)", [=](auto const& a) { return jnp::tanh(a); }),
      make("sinh(z)", [=](auto const& a) { return jnp::sinh(a); }),
      make("cosh(z)", [=](auto const& a) { return jnp::cosh(a); }),
      make("arctan(z)", [=](auto const& a) { return jnp::arctan(a); }),
      make("arcsin(z)", [=](auto const& a) { return jnp::arcsin(a); }),
      make("arccos(z)", [=](auto const& a) { return jnp::arccos(a); }),
      make("arcsinh(z)", [=](auto const& a) { return jnp::arcsinh(a); }),
      make("arccosh(z)", [=](auto const& a) { return jnp::arccosh(a); }),
      make("arctanh(z)", [=](auto const& a) { return jnp::arctanh(a); }),
      make("abs(z)", [=](auto const& a) { return jnp::abs(a); }),
      make("angle(z)", [=](auto const& a) { return jnp::angle(a); }),
      make("angle(z, deg=True)", [=](auto const& a) { return jnp::angle(a, true); }),
      make("real(z)", [=](auto const& a) { return jnp::real(a); }),
      make("imag(z)", [=](auto const& a) { return jnp::imag(a); }),
      make("conj(z)", [=](auto const& a) { return jnp::conj(a); }),
      make("abs(z * z) ** 2", [=](auto const& a) { return jnp::power(jnp::abs(a * a), 2); }),
      make("sum(z, axis=0)", [=](auto const& a) { return jnp::sum(a, 0); }),
      make("mean(z)", [=](auto const& a) { return jnp::mean(a); }),
      make("prod(z, axis=1)", [=](auto const& a) { return jnp::prod(a, 1); }),
      make("matmul(z, w.T)", [=](auto const& a) { return jnp::matmul(a, w.T()); }),
      make("einsum('ij,kj->ik', z, w)", [=](auto const& a) { return jnp::einsum("ij,kj->ik", a, w); }),
      make("vdot(z, w)", [=](auto const& a) { return jnp::vdot(a, w); }),
      make("where(x > 0, z, w)", [=](auto const& a) { return jnp::where(x > 0.f, a, w); }),
      make("stack([z, w])", [=](auto const& a) { return jnp::stack({a, w}); }),
      make("concatenate([z, w], axis=1)", [=](auto const& a) { return jnp::concatenate({a, w}, 1); }),
      make("z[1]", [=](auto const& a) { return a[1]; }),
      make("z[:, 1:]", [=](auto const& a) { return a(jaxcc::all, jaxcc::slice(1, jaxcc::none)); }),
      make("z.T", [=](auto const& a) { return a.T(); }),
      make("z.astype(float32)", [=](auto const& a) { return a.template astype<float>(); }),
      make("lax.complex(real(z), x)", [=](auto const& a) { return lax::complex(jnp::real(a), x); }),
      make("iscomplex(z * 0 + x)", [=](auto const& a) { return jnp::iscomplex(a * 0.f + x); }),
      make("isreal(z * 0 + x)", [=](auto const& a) { return jnp::isreal(a * 0.f + x); }),
  };
}

}  // namespace test_complex

using namespace test_complex;

TEST_CASE("complex: jnp's functions on complex64 give JAX's values and conjugate-convention gradients",
          "[complex][golden]") {
  auto const z = complex_array(z_values);
  auto const all = cases();
  REQUIRE(all.size() == complex_cases.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    INFO(all[i].spelling);
    REQUIRE(all[i].spelling == complex_cases[i].spelling);
    all[i].check(z, complex_cases[i]);
  }
}

TEST_CASE("complex: grad with holomorphic gives f'(z), as JAX's holomorphic=True", "[complex][golden]") {
  auto const z = complex_array(z_values);
  using F = std::function<Array<c64>(Array<c64> const&)>;
  std::vector<std::pair<std::string, F>> const fns{
      {"sum(z ** 3)", [](Array<c64> const& a) { return jnp::sum(a * a * a); }},
      {"sum(exp(z) * z)", [](Array<c64> const& a) { return jnp::sum(jnp::exp(a) * a); }},
      {"sum(sin(z) / (z + 2))", [](Array<c64> const& a) { return jnp::sum(jnp::sin(a) / (a + 2.f)); }},
  };
  REQUIRE(fns.size() == holomorphic_cases.size());
  for (std::size_t i = 0; i < fns.size(); ++i) {
    INFO(fns[i].first);
    REQUIRE(fns[i].first == holomorphic_cases[i].spelling);
    auto const g = jaxcc::grad(fns[i].second, jaxcc::holomorphic)(z);
    CHECK(mismatches(as_doubles(g), holomorphic_cases[i].grad, 2e-5, 2e-6) == "");
  }
}

TEST_CASE("complex: grad's errors are JAX's", "[complex][errors]") {
  auto const z = complex_array(z_values);
  auto const x = jnp::ones<float>({3});
  auto const complex_out = [](Array<c64> const& a) { return jnp::sum(a); };
  CHECK(message_of([&] { jaxcc::grad(complex_out)(z); }) ==
        "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64. "
        "For holomorphic differentiation, pass jaxcc::holomorphic. For differentiation of non-holomorphic functions "
        "involving complex outputs, use jaxcc::vjp directly.");
  auto const real_out = [](Array<float> const& a) { return jnp::sum(a); };
  CHECK(message_of([&] { jaxcc::grad(real_out, jaxcc::holomorphic)(x); }) ==
        "grad with holomorphic=True requires inputs with complex dtype, but got float32.");
  auto const real_of_complex = [](Array<c64> const& a) { return jnp::sum(jnp::abs(a)); };
  CHECK(message_of([&] { jaxcc::grad(real_of_complex, jaxcc::holomorphic)(z); }) ==
        "grad with holomorphic=True requires outputs with complex dtype, but got float32.");
  CHECK(message_of([&] { lax::complex(x, jnp::ones<float>({2})); }) ==
        "lax::complex requires arguments to have the same shapes, got (3,), (2,).");
}

TEST_CASE("complex: vjp of complex outputs transposes without conjugating, as JAX", "[complex]") {
  // f(z) = (2 + i) z, a linear map: its transpose is multiplication by 2 + i.
  auto const z = jnp::array<c64>({c64(1, 2), c64(-3, 0.5f)});
  auto const [out, pullback] = jaxcc::vjp([](Array<c64> const& a) { return Array<c64>(a * c64(2, 1)); }, z);
  auto const ct = std::get<0>(pullback(jnp::array<c64>({c64(1, 0), c64(0, 1)})));
  CHECK(as_doubles(ct) == std::vector<double>{2, 1, -1, 2});
  // jvp pushes a tangent through: d/dt exp(z + t v) = exp(z) v.
  auto const [y, t] = jaxcc::jvp([](Array<c64> const& a) { return Array<c64>(jnp::exp(a)); }, std::tuple{z},
                                 std::tuple{jnp::array<c64>({c64(0, 1), c64(1, 0)})});
  auto const e0 = std::exp(c64(1, 2)) * c64(0, 1), e1 = std::exp(c64(-3, 0.5f));
  CHECK(mismatches(as_doubles(t), {e0.real(), e0.imag(), e1.real(), e1.imag()}, 1e-6, 1e-7) == "");
  CHECK(mismatches(as_doubles(y), as_doubles(Array<c64>(jnp::exp(z))), 0, 0) == "");
}

TEST_CASE("complex: jit and vmap agree with eager evaluation", "[complex]") {
  auto const z = complex_array(z_values);
  auto const f = [](Array<c64> const& a) { return jnp::sum(jnp::abs(jnp::exp(a) * jnp::conj(a))); };
  auto const g = jaxcc::grad(f);
  CHECK(mismatches(as_doubles(jaxcc::jit(f)(z)), as_doubles(f(z)), 1e-6, 1e-6) == "");
  CHECK(mismatches(as_doubles(jaxcc::jit(g)(z)), as_doubles(g(z)), 1e-6, 1e-6) == "");
  auto const batched = jaxcc::vmap(g)(z);
  for (std::int64_t i = 0; i < 2; ++i) CHECK(mismatches(as_doubles(Array<c64>(batched[i])), as_doubles(g(z[i])), 1e-6, 1e-7) == "");
}

TEST_CASE("complex: check_grads through complex intermediates of a real function", "[complex][check_grads]") {
  // A real loss of real inputs whose intermediates are complex: each part's
  // transpose (real, imag, conj, complex, abs) carries the cotangent back.
  auto const f = [](Array<double> const& x) {
    auto const c = lax::complex(x, jnp::sin(x));
    auto const d = c * jnp::conj(c) + jnp::exp(c * c128(0, 0.5));
    return jnp::sum(jnp::real(d) * 0.3 + jnp::imag(d) + jnp::abs(c * c));
  };
  auto const x = jnp::array<double>({0.3, -1.2, 0.8, 2.1});
  REQUIRE_NOTHROW(jaxcc::testing::check_grads(f, std::tuple{x}, 2));
  REQUIRE_NOTHROW(jaxcc::testing::check_batching_rule(jaxcc::grad(f), jaxcc::in_axes(0), x.reshape({2, 2})));
}

TEST_CASE("complex: complex128 and conversions between real and complex", "[complex]") {
  auto const z = jnp::array<c128>({c128(1, -2), c128(0.5, 0.25)});
  auto const as_float = z.astype<double>();
  CHECK(as_doubles(as_float) == std::vector<double>{1, 0.5});
  auto const back = as_float.astype<c128>();
  CHECK(as_doubles(back) == std::vector<double>{1, 0, 0.5, 0});
  auto const narrowed = z.astype<c64>();
  CHECK(narrowed.dtype() == jaxcc::DType::complex64);
  CHECK(jnp::iscomplexobj(z));
  CHECK(!jnp::isrealobj(z));
  CHECK(jnp::isrealobj(as_float));
  // float64 beside complex64 is complex128, as jnp.promote_types.
  auto const mixed = jnp::array<double>({1.0, 2.0}) * narrowed;
  CHECK(mixed.dtype() == jaxcc::DType::complex128);
}

TEST_CASE("complex: a std::complex scalar beside a real array is a weak complex", "[complex][dtype]") {
  using namespace std::complex_literals;
  auto const i32 = jnp::array<std::int32_t>({1, 2});
  auto const c = i32 * 1i;  // weak complex with int32: complex64, JAX's default without x64
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(c)>, c64>);
  CHECK(as_doubles(Array<c64>(c)) == std::vector<double>{0, 1, 0, 2});
  auto const f64 = jnp::array<double>({0.5}) + c64(0, 1);  // float64 with a weak complex: complex128
  STATIC_REQUIRE(std::is_same_v<jaxcc::value_type_t<decltype(f64)>, c128>);
}

TEST_CASE("complex: Eigen interop both ways", "[complex][eigen]") {
  Eigen::MatrixXcf m(2, 2);
  m << c64(1, 2), c64(3, -1), c64(0, 0.5f), c64(-2, 0);
  auto x = jaxcc::from_eigen(m);
  STATIC_REQUIRE(std::is_same_v<decltype(x), Array<c64>>);
  CHECK(as_doubles(x) == std::vector<double>{1, 2, 3, -1, 0, 0.5, -2, 0});
  auto const product = jaxcc::to_eigen(Array<c64>(jnp::matmul(x, x)));
  Eigen::MatrixXcf const expected = m * m;
  CHECK(product.isApprox(expected));
}

TEST_CASE("complex: sharded arrays stay split under eager ops, jit and grad", "[complex][partition]") {
  using jaxcc::NamedSharding;
  using jaxcc::P;
  auto const mesh = jaxcc_test::mesh_of({2}, {"x"});
  auto const z = jaxcc::lax::complex(jaxcc_test::smooth({4, 3}), jaxcc_test::smooth({4, 3}, 0.5, 0.1));
  auto const rows = NamedSharding(mesh, P("x"));
  auto const split = jaxcc::device_put(z, rows);
  auto const f = [](Array<c128> const& a) { return Array<c128>(jnp::exp(a) * jnp::conj(a)); };
  auto const loss = [](Array<c128> const& a) { return jnp::sum(jnp::abs(jnp::exp(a) * a)); };
  auto const eager = f(split);
  CHECK(eager.sharding() == rows);
  CHECK(mismatches(as_doubles(eager), as_doubles(f(z)), 1e-14, 1e-14) == "");
  auto const jitted = jaxcc::jit(f)(split);
  CHECK(jitted.sharding() == rows);
  CHECK(mismatches(as_doubles(jitted), as_doubles(f(z)), 1e-14, 1e-14) == "");
  auto const grads = jaxcc::jit(jaxcc::grad(loss))(split);
  CHECK(mismatches(as_doubles(grads), as_doubles(jaxcc::grad(loss)(z)), 1e-13, 1e-13) == "");
}

TEST_CASE("complex: jacfwd and jacrev with holomorphic give f'(z), and JAX's errors without", "[complex][jacobian]") {
  auto const z = jnp::array<c64>({c64(0.5f, 1), c64(-1, 0.25f)});
  auto const f = [](Array<c64> const& a) { return Array<c64>(a * a * jnp::exp(a)); };
  auto const expected = [&] {  // d/dz z^2 e^z = (2z + z^2) e^z, on the diagonal
    std::vector<double> out;
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 2; ++j) {
        auto const v = z.to_vector()[static_cast<std::size_t>(i)];
        auto const d = i == j ? (2.f * v + v * v) * std::exp(v) : c64(0, 0);
        out.push_back(d.real());
        out.push_back(d.imag());
      }
    return out;
  }();
  CHECK(mismatches(as_doubles(jaxcc::jacfwd(f, jaxcc::holomorphic)(z)), expected, 1e-6, 1e-6) == "");
  CHECK(mismatches(as_doubles(jaxcc::jacrev(f, jaxcc::holomorphic)(z)), expected, 1e-6, 1e-6) == "");
  CHECK(message_of([&] { jaxcc::jacrev(f)(z); }) ==
        "jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64. "
        "For holomorphic differentiation, pass jaxcc::holomorphic. For differentiation of non-holomorphic functions "
        "involving complex outputs, use jaxcc::vjp directly.");
  CHECK(message_of([&] { jaxcc::jacfwd(f)(z); }) ==
        "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64. "
        "For holomorphic differentiation, pass jaxcc::holomorphic. For differentiation of non-holomorphic functions "
        "involving complex inputs or integer inputs, use jaxcc::jvp directly.");
  auto const x = jnp::ones<float>({2});
  CHECK(message_of([&] { jaxcc::jacfwd([](Array<float> const& a) { return a; }, jaxcc::holomorphic)(x); }) ==
        "jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.");
}

TEST_CASE("complex: long fused regions (xsimd batches of complex numbers, any width) match std::complex", "[complex][simd]") {
  // 37 elements: full batches and a tail at every SIMD width.
  std::vector<c64> a, b;
  for (int i = 0; i < 37; ++i) {
    a.emplace_back(0.25f * static_cast<float>(i) - 3, 1.5f - 0.125f * static_cast<float>(i));
    b.emplace_back(0.5f + 0.0625f * static_cast<float>(i), 0.75f * static_cast<float>(i % 5) - 1);
  }
  auto const x = jnp::array<c64>(a, {37});
  auto const y = jnp::array<c64>(b, {37});
  Array<c64> const got = -(x * y + x - y * 2.f) + jnp::square(y);
  std::vector<double> expected;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto const v = -(a[i] * b[i] + a[i] - b[i] * 2.f) + b[i] * b[i];
    expected.push_back(v.real());
    expected.push_back(v.imag());
  }
  CHECK(mismatches(as_doubles(got), expected, 1e-6, 1e-6) == "");
  CHECK(mismatches(as_doubles(Array<c64>(jaxcc::jit([](Array<c64> const& p, Array<c64> const& q) {
                     return Array<c64>(-(p * q + p - q * 2.f) + jnp::square(q));
                   })(x, y))),
                   expected, 1e-6, 1e-6) == "");
}

TEST_CASE("complex: jit keeps a product by a complex constant whose real part is 1", "[complex][jit]") {
  // x * (1 + 0.5i) is not x * 1: jit's folding of identities reads the whole constant.
  auto const f = [](Array<double> const& v) {
    return jnp::sum(jnp::real(lax::complex(v, jnp::cos(v)) * c128(1, 0.5)));
  };
  auto const x = jnp::array<double>({0.1, 0.5, 1.0, 2.0});
  auto const eager = jaxcc::grad(f)(x);
  CHECK(mismatches(as_doubles(jaxcc::jit(jaxcc::grad(f))(x)), as_doubles(eager), 1e-15, 1e-15) == "");
  CHECK(mismatches(as_doubles(eager), {1 + 0.5 * std::sin(0.1), 1 + 0.5 * std::sin(0.5), 1 + 0.5 * std::sin(1.0),
                                 1 + 0.5 * std::sin(2.0)}, 1e-15, 1e-15) == "");
}
