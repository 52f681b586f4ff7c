// Viscous Burgers' equation u_t + u u_x = nu u_xx on a periodic domain,
// solved pseudo-spectrally: derivatives by the real FFT (jnp::fft::rfft,
// irfft), time stepping by RK4 in a lax::scan. Then the gradient of the
// final state's energy with respect to the initial condition, by
// jaxcc::grad through every step and every FFT.
//
// A port of examples/spectral.py, function by function; it prints the
// figures the JAX file prints (examples/spectral.expected): run with that
// file's path to compare them.
#include <cmath>
#include <complex>
#include <cstdio>
#include <map>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>

#include "expected_figures.hpp"

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;

constexpr std::int64_t n = 64;
constexpr float nu = 0.05f, dt = 0.01f;
constexpr std::int64_t steps = 100;
constexpr float length = 2 * std::numbers::pi_v<float>;

// Wavenumbers 0, 1, ..., n/2.
Array<float> const k = jnp::fft::rfftfreq(n, length / n) * (2 * std::numbers::pi_v<float>);

Array<float> rhs(Array<float> const& u) {
  auto const u_hat = jnp::fft::rfft(u);
  auto const u_x = jnp::fft::irfft(std::complex<float>(0, 1) * k * u_hat, n);
  auto const u_xx = jnp::fft::irfft(-(k * k) * u_hat, n);
  return -u * u_x + nu * u_xx;
}

Array<float> rk4_step(Array<float> const& u) {
  auto const a = rhs(u);
  auto const b = rhs(u + 0.5f * dt * a);
  auto const c = rhs(u + 0.5f * dt * b);
  auto const d = rhs(u + dt * c);
  return u + dt / 6 * (a + 2.f * b + 2.f * c + d);
}

Array<float> solve(Array<float> const& u0) {
  auto const step = [](Array<float> const& u, jaxcc::none_t) { return std::pair{rk4_step(u), jaxcc::none}; };
  return lax::scan(step, u0, jaxcc::none, steps).first;
}

Array<float> energy(Array<float> const& u0) {
  auto const u = solve(u0);
  return 0.5f * jnp::mean(u * u);
}

int main(int argc, char** argv) {
  auto const x = jnp::arange<float>(n) * (length / n);
  Array<float> const u0 = jnp::sin(x) + 0.5f * jnp::cos(2.f * x);
  auto const u = solve(u0);
  auto const g = jaxcc::grad(energy)(u0);

  // What the JAX file prints, in its order.
  std::vector<std::pair<std::string, double>> rows{{"energy at t=0", Array<float>(0.5f * jnp::mean(u0 * u0)).item()},
                                                   {"energy at t=1", energy(u0).item()}};
  char const* const where[] = {"0", "pi/2", "pi", "3pi/2"};
  for (int q = 0; q < 4; ++q) rows.emplace_back(std::string("u(1) at x=") + where[q], u[q * n / 4].item());
  for (int q = 0; q < 4; ++q) rows.emplace_back(std::string("d energy / d u0 at x=") + where[q], g[q * n / 4].item());
  rows.emplace_back("sum of d energy / d u0", jnp::sum(g).item());
  for (auto const& [name, value] : rows) std::printf("%s: %.6f\n", name.c_str(), value);

  if (argc < 2) return 0;
  return examples::compare_with_expected({rows.begin(), rows.end()}, argv[1]);
}
