// scale_by_factored_rms (jaxcc/optim/factorized.hpp) and Adafactor with
// factored leaves against optax (20 steps on tests/golden/optim_cases.py's
// problem); which leaves are factored, and the shapes of their statistics.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>

#include <map>
#include <string>

#include "optim_problem.hpp"
#include "support.hpp"

namespace test_optim_factorized {

namespace optim = jaxcc::optim;
using namespace optim_problem;

TEST_CASE("factored second moments match optax", "[optim][factorized]") {
  check_golden("chain(scale_by_factored_rms(min_dim_size_to_factor=2), scale(-0.05))",
               optim::chain(optim::scale_by_factored_rms{true, 0.8, 0, 2}, optim::scale(-0.05)));
  check_golden("adafactor(0.05, min_dim_size_to_factor=2)", optim::adafactor(0.05, 2));
}

TEST_CASE("a leaf is factored when its two largest dimensions reach the minimum", "[optim][factorized]") {
  auto const state = optim::scale_by_factored_rms{true, 0.8, 0, 2}.init(params());
  CHECK(state.v_row.at("w").shape() == jaxcc::Shape{3});  // the mean over the largest dimension (1)
  CHECK(state.v_col.at("w").shape() == jaxcc::Shape{4});
  CHECK(state.v.at("w").shape() == jaxcc::Shape{1});
  CHECK(state.v.at("b").shape() == jaxcc::Shape{4});  // rank 1: never factored
  auto const unfactored = optim::scale_by_factored_rms{}.init(params());
  CHECK(unfactored.v.at("w").shape() == jaxcc::Shape{3, 4});
  CHECK(optim::detail::factored_dims({5, 2, 7}, true, 2) == std::pair<std::int64_t, std::int64_t>{0, 2});
  CHECK(!optim::detail::factored_dims({5, 1, 7}, true, 2 + 4));
}

}  // namespace test_optim_factorized
