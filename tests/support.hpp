// Helpers shared by several test programs: one copy of each. Include after
// "catch.hpp", <jaxcc/jaxcc.hpp> and <jaxcc/testing/catch.hpp>.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <jaxcc/jaxcc.hpp>

namespace jaxcc_test {

/// Draws per distribution in the random tests' moment checks: 10^6, as the
/// random issue asks, where the tests are optimized (-Og by default: about
/// 8 s for every sampler), and `unoptimized` at -O0 (the sanitizer build),
/// where the samplers' loops run 20 to 30 times slower (10^6 poisson and
/// binomial draws took 200 s there).
constexpr std::int64_t moment_draws(std::int64_t unoptimized) {
#ifdef __OPTIMIZE__
  (void)unoptimized;
  return 1000000;
#else
  return unoptimized;
#endif
}

// A mesh of this machine's first shape.numel() devices (the sharding tests
// run with JAXCC_NUM_DEVICES=8, as JAX's force 8 host devices).
inline jaxcc::Mesh mesh_of(jaxcc::Shape const& shape, std::vector<std::string> names) {
  auto const& all = jaxcc::devices();
  if (static_cast<std::size_t>(shape.numel()) > all.size())
    throw std::runtime_error("mesh_of: the test needs JAXCC_NUM_DEVICES >= " + std::to_string(shape.numel()));
  return jaxcc::Mesh(std::vector<jaxcc::Device>(all.begin(), all.begin() + shape.numel()), shape, std::move(names));
}

// The message of the jaxcc::Error that f() throws, or "<no error>".
std::string message_of(auto&& f) {
  try {
    f();
  } catch (jaxcc::Error const& e) {
    return e.what();
  }
  return "<no error>";
}

// What `os << x` writes.
template <class A>
std::string streamed(A const& x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

// The jaxpr of f at args, as make_jaxpr prints it.
template <class F, class... A>
std::string jaxpr_of(F f, A const&... args) {
  return streamed(jaxcc::make_jaxpr(f)(args...));
}

// sin(scale * i + phase) over `shape`: smooth, nonlinear, distinct values (at
// the default scale no two within 0.01 of each other), so second derivatives
// are not zero and max / min have no near-ties.
inline jaxcc::Array<double> smooth(jaxcc::Shape const& shape, double scale = 0.37, double phase = 0.2) {
  return jaxcc::numpy::sin(jaxcc::numpy::arange<double>(shape.numel()).reshape(shape) * scale + phase);
}

// The pullback of f at x applied to `ct`: the gradient of sum(ct * f(x)).
template <class F>
jaxcc::Array<double> pullback(F f, jaxcc::Array<double> const& x, jaxcc::Array<double> const& ct) {
  auto [out, vjp_fn] = jaxcc::vjp(f, x);
  return std::get<0>(vjp_fn(ct));
}

// A braced list as a std::vector of T: values<float>({1, 2}).
template <class T>
std::vector<T> values(std::initializer_list<T> v) {
  return v;
}

// Does `view` read `base`'s buffer (no copy was made)?
template <class T>
bool shares_buffer(jaxcc::Array<T> const& view, jaxcc::Array<T> const& base) {
  auto const* b = base.data();
  return view.data() >= b && view.data() < b + base.size();
}

// Small integers in [-4, 4] from `seed` (exact in every dtype, so sums
// compare exactly); bools from their sign.
template <class T>
jaxcc::Array<T> sample(jaxcc::Shape const& shape, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<T> v(static_cast<std::size_t>(shape.numel()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    int const r = dist(gen);
    if constexpr (std::is_same_v<T, bool>) v[i] = r > 0;
    else v[i] = static_cast<T>(r);
  }
  return jaxcc::numpy::array(v, shape);
}

// Deterministic pseudo-random values in [lo, hi) (a 64-bit LCG from `seed`).
template <class T>
std::vector<T> uniform(std::int64_t n, std::type_identity_t<T> lo, std::type_identity_t<T> hi, std::uint64_t seed = 1) {
  std::vector<T> out(static_cast<std::size_t>(n));
  for (auto& v : out) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    v = lo + (hi - lo) * static_cast<T>(static_cast<double>(seed >> 11) / static_cast<double>(1ULL << 53));
  }
  return out;
}

// Calls f(index) for every multi-index of `shape`, row-major.
inline void for_each_index(jaxcc::Shape const& shape, std::function<void(std::vector<std::int64_t> const&)> const& f) {
  if (shape.numel() == 0) return;
  std::vector<std::int64_t> index(shape.size(), 0);
  while (true) {
    f(index);
    std::size_t d = shape.size();
    while (d > 0 && ++index[d - 1] == shape[d - 1]) index[--d] = 0;
    if (d == 0) return;
  }
}

/// f(index) at every multi-index of `shape`, row-major: expected values
/// from an index formula.
template <class F>
std::vector<double> over(jaxcc::Shape const& shape, F f) {
  std::vector<double> out;
  for_each_index(shape, [&](std::vector<std::int64_t> const& i) { out.push_back(f(i)); });
  return out;
}

/// `y` has `shape` and, at every index i, the value f(i).
template <class F>
void require_values(jaxcc::Array<double> const& y, jaxcc::Shape const& shape, F f) {
  REQUIRE(y.shape() == shape);
  REQUIRE(y.to_vector() == over(shape, f));
}

// "" when got has expected's shape and exactly its elements, else what
// differs first: REQUIRE(mismatch(got, expected) == "").
template <class T>
std::string mismatch(jaxcc::Array<T> const& got, jaxcc::Array<T> const& expected) {
  if (!(got.shape() == expected.shape()))
    return "shapes differ: " + jaxcc::to_string(got.shape()) + " vs " + jaxcc::to_string(expected.shape());
  auto const g = got.to_vector(), e = expected.to_vector();
  for (std::size_t i = 0; i < g.size(); ++i)
    if (!(g[i] == e[i])) {
      std::ostringstream os;
      os.precision(17);
      os << "element " << i << " (row-major) differs: " << +static_cast<T>(g[i]) << " vs " << +static_cast<T>(e[i]);
      return os.str();
    }
  return "";
}

// "" when got matches expected (nan where nan, infinities exactly, others
// within rtol relative), else every element that does not. Below T's
// smallest normal both must be so, with the same sign: XLA on CPU flushes
// subnormals to zero.
template <class T>
std::string mismatches(std::vector<double> const& got, std::vector<double> const& expected, double rtol) {
  if (got.size() != expected.size()) return "size " + std::to_string(got.size()) + " vs " + std::to_string(expected.size());
  double const tiny = std::numeric_limits<T>::min();
  std::ostringstream os;
  os.precision(17);
  for (std::size_t i = 0; i < got.size(); ++i) {
    double const g = got[i], e = expected[i];
    bool const same = std::isnan(e)          ? std::isnan(g)
                      : std::isinf(e)        ? g == e
                      : std::abs(e) < tiny   ? std::abs(g) < tiny && std::signbit(g) == std::signbit(e)
                                             : std::abs(g - e) <= rtol * std::abs(e);
    if (!same) os << "element " << i << ": " << g << " vs " << e << "; ";
  }
  return os.str();
}

/// The elements as doubles; a complex one as its (re, im) pair.
template <class T>
std::vector<double> as_doubles(jaxcc::Array<T> const& a) {
  std::vector<double> out;
  for (auto v : a.to_vector()) {
    if constexpr (jaxcc::ComplexElement<T>) {
      out.push_back(static_cast<double>(v.real()));
      out.push_back(static_cast<double>(v.imag()));
    } else {
      out.push_back(static_cast<double>(v));
    }
  }
  return out;
}

// Example i of x along `axis` (negative counts from the end), sliced without vmap.
template <class T>
jaxcc::Array<T> example(jaxcc::Array<T> const& x, std::int64_t axis, std::int64_t i) {
  if (axis < 0) axis += x.ndim();
  jaxcc::Axes start(x.shape().size(), 0), limit(x.shape().begin(), x.shape().end());
  start[static_cast<std::size_t>(axis)] = i;
  limit[static_cast<std::size_t>(axis)] = i + 1;
  return jaxcc::lax::squeeze(jaxcc::lax::slice(x, start, limit), {axis});
}

// How many times `word` occurs in `text` (overlaps included).
inline std::size_t count(std::string const& text, std::string const& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

}  // namespace jaxcc_test
