// The schedules of jaxcc/optim/schedules.hpp against optax
// (tests/golden/optim_cases.py): values at counts 0 .. 24, eagerly and
// with the count traced under jit; optax's errors.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>

#include <string>
#include <vector>

#include "optim_problem.hpp"
#include "support.hpp"

namespace test_optim_schedules {

namespace optim = jaxcc::optim;
namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc_test::message_of;
using optim_problem::mismatches;

namespace {

struct Golden {
  std::string name;
  std::vector<double> values;
};

std::vector<Golden> const& golden() {
  static std::vector<Golden> const all = {
#define JAXCC_OPTIM_SCHEDULE_CASES
#include "golden/optim_cases.inc"
#undef JAXCC_OPTIM_SCHEDULE_CASES
  };
  return all;
}

std::vector<std::pair<std::string, optim::ScheduleFn>> cases() {
  return {
      {"constant_schedule(0.3)", optim::constant_schedule(0.3)},
      {"linear_schedule(1.0, 0.1, 10, 5)", optim::linear_schedule(1.0, 0.1, 10, 5)},
      {"polynomial_schedule(1.0, 0.0, 2, 10)", optim::polynomial_schedule(1.0, 0.0, 2, 10)},
      {"cosine_decay_schedule(0.5, 12, 0.1, 2.0)", optim::cosine_decay_schedule(0.5, 12, 0.1, 2.0)},
      {"cosine_decay_schedule(1.0, 20)", optim::cosine_decay_schedule(1.0, 20)},
      {"exponential_decay(1.0, 3, 0.8)", optim::exponential_decay(1.0, 3, 0.8)},
      {"exponential_decay(1.0, 4, 0.5, 2, True, 0.1)", optim::exponential_decay(1.0, 4, 0.5, 2, true, 0.1)},
      {"exponential_decay(0.1, 5, 2.0, end_value=0.3)", optim::exponential_decay(0.1, 5, 2.0, 0, false, 0.3)},
      {"warmup_cosine_decay_schedule(0.0, 1.0, 5, 20, 0.05)",
       optim::warmup_cosine_decay_schedule(0.0, 1.0, 5, 20, 0.05)},
      {"piecewise_constant_schedule(1.0, {5: 0.5, 10: 0.1})",
       optim::piecewise_constant_schedule(1.0, {{5, 0.5}, {10, 0.1}})},
      {"join_schedules([constant(1.0), linear(1.0, 0.0, 10)], [5])",
       optim::join_schedules({optim::constant_schedule(1.0), optim::linear_schedule(1.0, 0.0, 10)}, {5})},
  };
}

}  // namespace

TEST_CASE("schedules match optax at every count, eagerly and under jit", "[optim][schedules]") {
  auto const all = cases();
  REQUIRE(all.size() == golden().size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto const& name = all[i].first;
    auto const& schedule = all[i].second;
    INFO(name);
    REQUIRE(golden()[i].name == name);
    std::vector<double> eager, jitted;
    auto const traced = jaxcc::jit([&](optim::Count const& c) { return schedule(c); });
    for (std::int32_t c = 0; c < 25; ++c) {
      eager.push_back(schedule(jnp::array(c)).item());
      jitted.push_back(traced(jnp::array(c)).item());
    }
    CHECK(mismatches(eager, golden()[i].values, 1e-6, 1e-7) == "");
    CHECK(mismatches(jitted, golden()[i].values, 1e-6, 1e-7) == "");
  }
}

TEST_CASE("a schedule maps a vector of counts under vmap", "[optim][schedules]") {
  auto const schedule = optim::warmup_cosine_decay_schedule(0.0, 1.0, 5, 20, 0.05);
  Array<float> const mapped = jaxcc::vmap(schedule)(jnp::arange<std::int32_t>(25));
  CHECK(mismatches(optim_problem::doubles(mapped), golden()[8].values, 1e-6, 1e-7) == "");
}

TEST_CASE("schedule errors are optax's", "[optim][schedules][errors]") {
  CHECK(message_of([] { optim::cosine_decay_schedule(1.0, 0); }) ==
        "cosine_decay_schedule requires positive decay_steps, got decay_steps=0.");
  CHECK(message_of([] { optim::piecewise_constant_schedule(1.0, {{3, -0.5}}); }) ==
        "piecewise_constant_schedule expects non-negative scale factors");
  CHECK(message_of([] { optim::join_schedules({optim::constant_schedule(1.0)}, {5}); }) ==
        "join_schedules: 1 schedules need 0 boundaries, got 1");
}

}  // namespace test_optim_schedules
