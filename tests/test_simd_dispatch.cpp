// SIMD dispatch (kernels/simd_dispatch.hpp, runtime/simd_dispatch.hpp): at
// every level the runtime holds that this CPU runs, the dispatched kernels —
// fused programs' rows under jit and grad, the float GEMM — against results
// computed here element by element; the level's query, JAXCC_SIMD, and the
// test setter's errors; a file below the runtime's level running its regions
// on the runtime's rows. From the headers alone: the compile-time level.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "support.hpp"

namespace test_simd_dispatch {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::uniform;

namespace {

// Not a multiple of any batch width, and more than one 512-element tile.
constexpr std::int64_t n = 1037;

std::vector<double> widened(std::vector<float> const& v) { return {v.begin(), v.end()}; }

// "" when |got - expected| <= atol + rtol |expected| everywhere, else where not.
std::string mismatches(std::vector<double> const& got, std::vector<double> const& expected, double rtol, double atol) {
  if (got.size() != expected.size()) return "size " + std::to_string(got.size()) + " vs " + std::to_string(expected.size());
  std::ostringstream os;
  os.precision(17);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - expected[i]) <= atol + rtol * std::abs(expected[i])))
      os << "element " << i << ": " << got[i] << " vs " << expected[i] << "; ";
  return os.str();
}

void check_float_program() {
  auto const xs = uniform<float>(n, -3.0f, 3.0f, 1), ys = uniform<float>(n, 0.5f, 2.0f, 2);
  auto const x = jnp::array(xs, Shape{n}), y = jnp::array(ys, Shape{n});
  auto const f = jaxcc::jit([](Array<float> const& a, Array<float> const& b) {
    return Array<float>(a * 1.5f + jnp::sin(a) * b - jnp::exp(b * 0.5f) / (a * a + 1.0f) + jnp::tanh(a) * 2.0f);
  });
  std::vector<double> expected(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    double const a = xs[i], b = ys[i];
    expected[i] = a * 1.5 + std::sin(a) * b - std::exp(b * 0.5) / (a * a + 1.0) + std::tanh(a) * 2.0;
  }
  CHECK(mismatches(widened(f(x, y).to_vector()), expected, 2e-5, 1e-5) == "");
  // A scalar operand read broadcast (step 0), and a derivative's program.
  auto const g = jaxcc::jit(jaxcc::grad([](Array<float> const& a) { return jnp::sum(jnp::sin(a) * a); }));
  std::vector<double> slope(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) slope[i] = std::cos(double{xs[i]}) * xs[i] + std::sin(double{xs[i]});
  CHECK(mismatches(widened(g(x).to_vector()), slope, 2e-5, 1e-5) == "");
}

void check_double_program() {
  auto const xs = uniform<double>(n, -2.0, 2.0, 3);
  auto const x = jnp::array(xs, Shape{n});
  auto const f = jaxcc::jit([](Array<double> const& a) {
    return Array<double>(jnp::log1p(a * a) * jnp::cos(a) + jnp::maximum(a, 0.25) - jnp::sqrt(jnp::abs(a)));
  });
  std::vector<double> expected(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    double const a = xs[i];
    expected[i] = std::log1p(a * a) * std::cos(a) + std::max(a, 0.25) - std::sqrt(std::abs(a));
  }
  CHECK(mismatches(f(x).to_vector(), expected, 1e-13, 1e-14) == "");
}

void check_int_program() {
  std::vector<std::int32_t> xs(n), ys(n);
  for (std::int64_t i = 0; i < n; ++i) {
    xs[static_cast<std::size_t>(i)] = static_cast<std::int32_t>((i * 7919) % 2001 - 1000);
    ys[static_cast<std::size_t>(i)] = static_cast<std::int32_t>((i * 104729) % 37 + 1);
  }
  auto const f = jaxcc::jit([](Array<std::int32_t> const& a, Array<std::int32_t> const& b) {
    return Array<std::int32_t>(a * 3 + b - jnp::maximum(a, b) + jnp::minimum(a, 5) * 2 - jnp::abs(a));
  });
  auto const got = f(jnp::array(xs, Shape{n}), jnp::array(ys, Shape{n})).to_vector();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    auto const a = xs[i], b = ys[i];
    auto const want = a * 3 + b - std::max(a, b) + std::min(a, 5) * 2 - std::abs(a);
    if (got[i] != want) FAIL("element " << i << ": " << got[i] << " vs " << want);
  }
}

// lhs (m × k) · rhs (k × p) by a triple loop, in double.
template <class T>
std::vector<double> naive_matmul(std::vector<T> const& lhs, std::vector<T> const& rhs, std::int64_t m, std::int64_t k,
                                 std::int64_t p) {
  std::vector<double> out(static_cast<std::size_t>(m * p), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < p; ++j)
      for (std::int64_t l = 0; l < k; ++l)
        out[static_cast<std::size_t>(i * p + j)] +=
            double{lhs[static_cast<std::size_t>(i * k + l)]} * double{rhs[static_cast<std::size_t>(l * p + j)]};
  return out;
}

template <class T>
std::vector<double> as_double(Array<T> const& a) {
  auto const v = a.to_vector();
  return {v.begin(), v.end()};
}

template <class T>
void check_gemm(double tol) {
  constexpr std::int64_t m = 37, k = 29, p = 23;
  auto const ls = uniform<T>(m * k, -1, 1, 4), rs = uniform<T>(k * p, -1, 1, 5);
  auto const lhs = jnp::array(ls, Shape{m, k}), rhs = jnp::array(rs, Shape{k, p});
  auto const expected = naive_matmul(ls, rs, m, k, p);
  CHECK(mismatches(as_double(jnp::matmul(lhs, rhs)), expected, tol, tol) == "");
  // Column-major operands (transposed views of transposed copies), and jit.
  auto const lhs_t = jnp::transpose(jnp::array(as_double(jnp::transpose(lhs)), Shape{k, m}).template astype<T>());
  auto const rhs_t = jnp::transpose(jnp::array(as_double(jnp::transpose(rhs)), Shape{p, k}).template astype<T>());
  auto const mm = jaxcc::jit([](Array<T> const& a, Array<T> const& b) { return jnp::matmul(a, b); });
  CHECK(mismatches(as_double(mm(lhs_t, rhs)), expected, tol, tol) == "");
  CHECK(mismatches(as_double(mm(lhs, rhs_t)), expected, tol, tol) == "");
  CHECK(mismatches(as_double(mm(lhs_t, rhs_t)), expected, tol, tol) == "");
}

void check_reduction() {
  auto const xs = uniform<float>(n * 3, -1.0f, 1.0f, 6);
  auto const f = jaxcc::jit([](Array<float> const& a) { return jnp::sum(a * a); });
  double want = 0;
  for (auto v : xs) want += double{v} * v;
  CHECK(std::abs(double{f(jnp::array(xs, Shape{n * 3})).item()} - want) <= 1e-5 * want);
}

void check_kernels() {
  check_float_program();
  check_double_program();
  check_int_program();
  check_gemm<float>(2e-5);
  check_gemm<double>(1e-12);
  check_reduction();
}

bool known_level(std::string_view level) {
  for (auto l : {"sse2", "sse4.2", "avx2", "avx512", "neon", "scalar"})
    if (level == l) return true;
  return false;
}

}  // namespace

// First: JAXCC_SIMD, or the best level, is the level the kernels start at.
TEST_CASE("the runtime starts at JAXCC_SIMD's level or the best this CPU runs") {
  auto const levels = jaxcc::runtime_simd_levels();
  REQUIRE(!levels.empty());
  auto const level = jaxcc::runtime_simd_level();
  INFO("level " << level);
  CHECK(known_level(level));
  char const* forced = std::getenv("JAXCC_SIMD");
  bool const runs_forced =
      forced && std::find(levels.begin(), levels.end(), std::string_view(forced)) != levels.end();
#if defined(JAXCC_PRECOMPILED_RUNTIME)
  if (runs_forced) CHECK(level == std::string_view(forced));
  else CHECK(level == levels.back());
#else
  (void)runs_forced;
  CHECK(level == jaxcc::detail::compile_time_simd_level());
#endif
}

TEST_CASE("the dispatched kernels at every level this CPU runs") {
  auto const start = jaxcc::runtime_simd_level();
  for (auto const level : jaxcc::runtime_simd_levels()) {
    INFO("level " << level);
#if defined(JAXCC_PRECOMPILED_RUNTIME)
    jaxcc::detail::set_simd_level(level);
#endif
    REQUIRE(jaxcc::runtime_simd_level() == level);
    check_kernels();
  }
#if defined(JAXCC_PRECOMPILED_RUNTIME)
  jaxcc::detail::set_simd_level(start);
#endif
  CHECK(jaxcc::runtime_simd_level() == start);
}

#if defined(JAXCC_PRECOMPILED_RUNTIME)
TEST_CASE("each level runs kernels of its own") {
  auto const start = jaxcc::runtime_simd_level();
  auto const levels = jaxcc::runtime_simd_levels();
  std::vector<jaxcc::fusion::OpKernel::Row> rows;
  std::vector<jaxcc::detail::GemmKernel<float>> gemms;
  for (auto const level : levels) {
    jaxcc::detail::set_simd_level(level);
    rows.push_back(jaxcc::fusion::dispatched_op_row<jaxcc::primitives::sin_p, float>.load());
    gemms.push_back(jaxcc::detail::dispatched_gemm<float>());
  }
  jaxcc::detail::set_simd_level(start);
  if (gemms[0] == nullptr) return;  // no level dispatched (off x86-64, or JAXCC_RUNTIME_SIMD_LEVELS empty)
  for (std::size_t a = 0; a < levels.size(); ++a) {
    CHECK(rows[a] != nullptr);
    CHECK(gemms[a] != nullptr);
    CHECK(rows[a] != &jaxcc::fusion::op_row<jaxcc::primitives::sin_p, float>);
    for (std::size_t b = 0; b < a; ++b) {
      CHECK(rows[a] != rows[b]);
      CHECK(gemms[a] != gemms[b]);
    }
  }
}

// A file compiled for a lower level than the runtime's kernels run at (the
// sanitizer build's x86-64-v2 against this CPU's best): its fused regions,
// eager and under jit, run on the runtime's rows at that level, not on
// loops compiled here. sin(a) * 2 + b rounds once outside sin (the product
// is exact, so fused or not it is the same), so the region's result is, bit
// for bit, the level's own sin row's followed by that sum.
TEST_CASE("a file below the runtime's level runs its regions on the runtime's rows") {
  auto const start = jaxcc::runtime_simd_level();
  auto const here = jaxcc::detail::simd_level_rank(jaxcc::detail::compile_time_simd_level());
  auto const xs = uniform<float>(n, -30.0f, 30.0f, 7), ys = uniform<float>(n, -1.0f, 1.0f, 8);
  auto const a = jnp::array(xs, Shape{n}), b = jnp::array(ys, Shape{n});
  auto const region = [](Array<float> const& x, Array<float> const& y) { return Array<float>(jnp::sin(x) * 2.0f + y); };
  auto const jitted = jaxcc::jit(region);
  int above = 0;
  for (auto const level : jaxcc::runtime_simd_levels()) {
    if (jaxcc::detail::simd_level_rank(level) <= here) continue;
    ++above;
    INFO("file at " << jaxcc::detail::compile_time_simd_level() << ", runtime at " << level);
    jaxcc::detail::set_simd_level(level);
    auto const sin_row = jaxcc::fusion::dispatched_op_row<jaxcc::primitives::sin_p, float>.load();
    REQUIRE(sin_row != nullptr);
    std::vector<float> expected(xs.size());
    void const* operands[] = {xs.data()};
    std::int64_t const steps[] = {1};
    sin_row(operands, steps, expected.data(), n);
    for (std::size_t i = 0; i < xs.size(); ++i) expected[i] = expected[i] * 2.0f + ys[i];
    CHECK(region(a, b).to_vector() == expected);
    CHECK(jitted(a, b).to_vector() == expected);
  }
  jaxcc::detail::set_simd_level(start);
  if (above == 0) SUCCEED("no level of the runtime is above this file's (" << jaxcc::detail::compile_time_simd_level() << ")");
}

TEST_CASE("set_simd_level refuses a level the runtime does not hold") {
  auto const start = jaxcc::runtime_simd_level();
  auto const unknown = jaxcc_test::message_of([] { jaxcc::detail::set_simd_level("avx1024"); });
  bool const dispatches = jaxcc::detail::dispatched_gemm<float>() != nullptr;  // false off x86-64
  if (dispatches)
    CHECK(unknown ==
          "jaxcc::detail::set_simd_level(\"avx1024\"): 'avx1024' is not one of the runtime's levels (sse2, sse4.2, avx2, "
          "avx512)");
  else
    CHECK(unknown.starts_with("jaxcc::detail::set_simd_level(\"avx1024\"): this runtime dispatches no SIMD levels: it runs at "));
  CHECK(jaxcc::runtime_simd_level() == start);
  auto const levels = jaxcc::runtime_simd_levels();
  if (std::find(levels.begin(), levels.end(), std::string_view("avx512")) == levels.end() &&
      dispatches) {
    CHECK(jaxcc_test::message_of([] { jaxcc::detail::set_simd_level("avx512"); })
              .starts_with("jaxcc::detail::set_simd_level(\"avx512\"): this CPU does not run avx512 (it runs sse2"));
  }
}
#endif

}  // namespace test_simd_dispatch
