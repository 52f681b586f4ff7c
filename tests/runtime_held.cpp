// A file that uses the FFT, the gamma sampler and special functions, and
// prints arrays, built linking the precompiled runtime: the test
// runtime_held (check_runtime_held.py) reads its symbols and fails if it
// compiled any of their rules (PrimitiveOf's and Binder's members, one-op
// regions, op rows) or the printer itself, as it does where the runtime
// does not hold them.
#include <complex>
#include <cstdint>
#include <string>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>
#include <jaxcc/scipy/special.hpp>

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
namespace sp = jaxcc::scipy::special;
using jaxcc::Array;

// Each a function of its own, kept (not inlined away) by being exported.
Array<std::complex<float>> held_fft(Array<std::complex<float>> const& x) { return jnp::fft::ifft(jnp::fft::fft(x)); }
Array<double> held_rfft(Array<double> const& x) { return jnp::fft::irfft(jnp::fft::rfft(x)); }
Array<float> held_gamma(Array<float> const& a) { return jr::gamma(jr::key(0), a); }
Array<float> held_special(Array<float> const& a, Array<float> const& x) {
  return Array<float>(sp::gammainc(a, x)) + Array<float>(sp::xlogy(a, x)) + Array<float>(sp::erfcx(x)) +
         Array<float>(sp::log_ndtr(x)) + Array<float>(sp::i0e(x)) + Array<float>(sp::zeta(a, x));
}
std::string held_printing(Array<float> const& x, Array<double> const& y, Array<std::int32_t> const& i) {
  return jaxcc::to_string(x) + jaxcc::to_string(y) + jaxcc::to_string(i);
}
Array<float> held_special_grad(Array<float> const& a, Array<float> const& x) {
  return jaxcc::grad([](Array<float> const& y, Array<float> const& b) { return jnp::sum(sp::gammainc(b, y)); })(x, a);
}
