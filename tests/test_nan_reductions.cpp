// jnp's NaN-ignoring reductions (numpy/nan_reductions.hpp) and quantiles
// (nanquantile, nanpercentile, nanmedian in numpy/quantile.hpp): values,
// dtypes and gradients against JAX's (tests/golden/statistics_cases.py;
// inputs with NaNs and an all-NaN row); derivatives to second order against
// finite differences, batching rules against loops, jit against eager.
#include "catch.hpp"

#include <cstdint>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/testing/check.hpp>

#include "statistics_golden.hpp"
#include "support.hpp"

namespace test_nan_reductions {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::none;
using namespace jaxcc_test::statistics_golden;
using jaxcc_test::message_of;

TEST_CASE("nan reductions match JAX", "[nan_reductions]") {
  check({
      {"nansum(n)", [] { return results(jnp::nansum(n())); }},
      {"nansum(n, 1)", [] { return results(jnp::nansum(n(), 1)); }},
      {"nansum(i, 0)", [] { return results(jnp::nansum(i(), 0)); }},
      {"nanprod(n, 0)", [] { return results(jnp::nanprod(n(), 0)); }},
      {"nanmax(n, 1)", [] { return results(jnp::nanmax(n(), 1)); }},
      {"nanmax(n, 1, initial=0.0)", [] { return results(jnp::nanmax(n(), 1, false, 0.0)); }},
      {"nanmin(n, 0, keepdims=True)", [] { return results(jnp::nanmin(n(), 0, true)); }},
      {"nanmin(v)", [] { return results(jnp::nanmin(v())); }},
      {"nanmean(n, 1)", [] { return results(jnp::nanmean(n(), 1)); }},
      {"nanmean(v)", [] { return results(jnp::nanmean(v())); }},
      {"nanmean(i, 1)", [] { return results(jnp::nanmean(i(), 1)); }},
      {"nanvar(n, 1)", [] { return results(jnp::nanvar(n(), 1)); }},
      {"nanvar(n, 0, ddof=1)", [] { return results(jnp::nanvar(n(), 0, 1)); }},
      {"nanstd(v, keepdims=True)", [] { return results(jnp::nanstd(v(), none, 0, true)); }},
      {"nanargmax(n, 1)", [] { return results(jnp::nanargmax(n(), 1)); }},
      {"nanargmin(n, 0, keepdims=True)", [] { return results(jnp::nanargmin(n(), 0, true)); }},
      {"nanargmax(v)", [] { return results(jnp::nanargmax(v())); }},
      {"nanargmin(i)", [] { return results(jnp::nanargmin(i())); }},
      {"nancumsum(n, 1)", [] { return results(jnp::nancumsum(n(), 1)); }},
      {"nancumsum(v)", [] { return results(jnp::nancumsum(v())); }},
      {"nancumprod(n, 0)", [] { return results(jnp::nancumprod(n(), 0)); }},
      {"nanquantile(n, 0.3, 1)", [] { return results(jnp::nanquantile(n(), 0.3, 1)); }},
      {"nanquantile(v, jnp.array([0.0, 0.5, 1.0]))",
       [] { return results(jnp::nanquantile(v(), jnp::array({0.0f, 0.5f, 1.0f}))); }},
      {"nanquantile(n, jnp.array([0.25, 0.8]), 0, 'nearest', True)",
       [] { return results(jnp::nanquantile(n(), jnp::array({0.25f, 0.8f}), 0, "nearest", true)); }},
      {"nanquantile(n, 0.6, 1, 'lower')", [] { return results(jnp::nanquantile(n(), 0.6, 1, "lower")); }},
      {"nanquantile(n, 0.6, 1, 'higher')", [] { return results(jnp::nanquantile(n(), 0.6, 1, "higher")); }},
      {"nanquantile(n, 0.6, None, 'midpoint', True)",
       [] { return results(jnp::nanquantile(n(), 0.6, none, "midpoint", true)); }},
      {"nanpercentile(n, 40, 1)", [] { return results(jnp::nanpercentile(n(), 40, 1)); }},
      {"nanmedian(n, 1)", [] { return results(jnp::nanmedian(n(), 1)); }},
      {"nanmedian(v)", [] { return results(jnp::nanmedian(v())); }},
      {"nanmedian(n, 0, True)", [] { return results(jnp::nanmedian(n(), 0, true)); }},
  });
}

TEST_CASE("nan reductions: gradients match JAX's (zero at the NaNs)", "[nan_reductions][grad]") {
  auto const on = [](Array<float> const& x, auto const& f) { return [x, f] { return results(weighted_grad(f, x)); }; };
  check({
      {"grad:nansum(n, 1)", on(n(), [](Array<float> const& x) { return jnp::nansum(x, 1); })},
      {"grad:nanprod(n, 0)", on(n(), [](Array<float> const& x) { return jnp::nanprod(x, 0); })},
      {"grad:nanmax(n, 1)", on(n(), [](Array<float> const& x) { return jnp::nanmax(x, 1); })},
      {"grad:nanmean(n, 1)", on(n(), [](Array<float> const& x) { return jnp::nanmean(x, 1); })},
      {"grad:nanvar(n, 0, ddof=1)", on(n(), [](Array<float> const& x) { return jnp::nanvar(x, 0, 1); })},
      {"grad:nanstd(v, keepdims=True)", on(v(), [](Array<float> const& x) { return jnp::nanstd(x, none, 0, true); })},
      {"grad:nancumsum(n, 1)", on(n(), [](Array<float> const& x) { return jnp::nancumsum(x, 1); })},
      {"grad:nanquantile(n, 0.3, 1)", on(n(), [](Array<float> const& x) { return jnp::nanquantile(x, 0.3, 1); })},
      {"grad:nanmedian(v)", on(v(), [](Array<float> const& x) { return jnp::nanmedian(x); })},
  });
}

TEST_CASE("nan reductions: derivatives to second order, batching rules, jit", "[nan_reductions][grad][vmap][jit]") {
  using jaxcc::testing::check_batching_rule;
  using jaxcc::testing::check_grads;
  // NaNs where the finite differences never reach them: check_grads
  // perturbs every element, and a NaN stays NaN.
  auto const x = jaxcc_test::smooth({3, 5});
  auto const holes = x.at(0, 1).set(std::numeric_limits<double>::quiet_NaN()).at(2, 3).set(std::numeric_limits<double>::quiet_NaN());
  auto const fns = std::vector<std::pair<char const*, std::function<Array<double>(Array<double> const&)>>>{
      {"nansum", [](Array<double> const& m) { return jnp::nansum(m, 1); }},
      {"nanprod", [](Array<double> const& m) { return jnp::nanprod(m, 0); }},
      {"nanmax", [](Array<double> const& m) { return jnp::nanmax(m, 1); }},
      {"nanmin", [](Array<double> const& m) { return jnp::nanmin(m, 0, true); }},
      {"nanmean", [](Array<double> const& m) { return jnp::nanmean(m, 1); }},
      {"nanvar", [](Array<double> const& m) { return jnp::nanvar(m, 0, 1); }},
      {"nanstd", [](Array<double> const& m) { return jnp::nanstd(m, 1); }},
      {"nancumsum", [](Array<double> const& m) { return jnp::nancumsum(m, 1); }},
      {"nancumprod", [](Array<double> const& m) { return jnp::nancumprod(m, 0); }},
      {"nanquantile", [](Array<double> const& m) { return jnp::nanquantile(m, jnp::array({0.2, 0.7}), 1); }},
      {"nanmedian", [](Array<double> const& m) { return jnp::nanmedian(m, 0); }},
      {"nanpercentile", [](Array<double> const& m) { return jnp::nanpercentile(m, 35.0, 1, "linear", true); }},
  };
  for (auto const& [name, fn] : fns) {
    INFO(name);
    // The derivative in x's finite elements with holes' NaNs fixed.
    auto const masked = [&, fn = fn](Array<double> const& m) {
      return fn(jnp::where(jnp::isnan(holes), holes, m));
    };
    REQUIRE_NOTHROW(check_grads(masked, std::tuple{x}, 2));
    REQUIRE_NOTHROW(check_batching_rule(fn, jaxcc::in_axes(2), jnp::stack({holes, holes * 0.5 + 1.0}, 2)));
  }
  auto const arg = [](Array<double> const& m) { return jnp::nanargmax(m, 0); };
  REQUIRE_NOTHROW(jaxcc::testing::check_vmap(arg, jaxcc::in_axes(1), holes));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(arg, holes));
  REQUIRE_NOTHROW(jaxcc::testing::check_jit(
      jaxcc::grad([](Array<double> const& m) { return jnp::sum(jnp::nanquantile(m, 0.4, 0)); }), holes));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<double> const& m) { return jnp::nanmean(m, 0); }, x));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<double> const& m) { return jnp::nanvar(m); }, x));
  REQUIRE_NOTHROW(jaxcc::testing::check_edges([](Array<double> const& m) { return jnp::nancumsum(m); }, x));
}

TEST_CASE("nan reductions: errors", "[nan_reductions][errors]") {
  CHECK(message_of([] { jnp::nanmax(jnp::zeros<float>({0, 3}), 0); }) ==
        "zero-size array to reduction operation max which has no identity (shape (0, 3), axes (0,))");
  CHECK(message_of([] { jnp::nanargmax(jnp::zeros<float>(0)); }) == "attempt to get argmax of an empty sequence");
  CHECK(message_of([] { jnp::nanquantile(n(), 0.5, 0, "cubic"); }) ==
        "method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or 'inverted_cdf'");
  CHECK(message_of([] { jnp::nanmedian(n(), 2); }) == "nanquantile: axis 2 is out of bounds for array of dimension 2");
  CHECK(message_of([] { jnp::nanquantile(n(), jnp::ones<float>({2, 2}), 0); }) ==
        "q must be have rank <= 1, got shape (2, 2)");
}

}  // namespace test_nan_reductions
