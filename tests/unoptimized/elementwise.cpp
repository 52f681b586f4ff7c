// Compiled without optimization, for the tests' SIMD target (on an AVX-512
// machine, AVX-512): a debug build of code using every float op must
// compile. GCC's intrinsics differ there (some are macros), and xsimd 8's
// log did not compile with them (fusion/elementwise.hpp,
// detail::xsimd_log_compiles). It has only to compile; the values are the
// other tests'.
#include <jaxcc/jaxcc.hpp>

namespace jnp = jaxcc::numpy;

template <class T>
jaxcc::Array<T> every_float_op(jaxcc::Array<T> const& x) {
  return jnp::log(x) + jnp::power(x, x) + jnp::log1p(x) + jnp::exp(x) + jnp::sin(x) + jnp::cos(x) + jnp::tanh(x) +
         jnp::sqrt(x) + jnp::cbrt(x) + jnp::arctan2(x, x) + jnp::logaddexp(x, x) + jnp::tan(x) + jnp::arctan(x) +
         jnp::expm1(x) + jaxcc::lax::erf(x) + jnp::sinh(x) + jnp::cosh(x) + jnp::arcsin(x) + jnp::arccos(x) +
         jnp::arcsinh(x) + jnp::arccosh(x) + jnp::arctanh(x) + jnp::exp2(x) + jaxcc::lax::rsqrt(x) +
         jaxcc::lax::round(x) + jnp::logaddexp2(x, x) + jnp::nextafter(x, x) + jaxcc::lax::clamp(x, x, x);
}

template jaxcc::Array<float> every_float_op<float>(jaxcc::Array<float> const&);
template jaxcc::Array<double> every_float_op<double>(jaxcc::Array<double> const&);
