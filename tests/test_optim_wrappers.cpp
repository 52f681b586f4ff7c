// masked and MultiSteps (jaxcc/optim/wrappers.hpp) against optax (20 steps
// on tests/golden/optim_cases.py's problem), the masked state's None
// nodes, and MultiSteps' zero updates between its inner steps.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>

#include <map>
#include <string>

#include "optim_problem.hpp"
#include "support.hpp"

namespace test_optim_wrappers {

namespace optim = jaxcc::optim;
namespace jnp = jaxcc::numpy;
namespace tree = jaxcc::tree;
using jaxcc::Array;
using namespace optim_problem;

namespace {
std::map<std::string, bool> const mask{{"b", false}, {"w", true}};
}

TEST_CASE("masked, with a mask tree and a mask function, matches optax", "[optim][wrappers]") {
  check_golden("chain(masked(trace(0.9), MASK), scale(-0.1))",
               optim::chain(optim::masked(optim::trace{0.9}, mask), optim::scale(-0.1)));
  check_golden("chain(masked(sgd(0.1), lambda p: MASK), scale(-0.5))",
               optim::chain(optim::masked(optim::sgd(0.1), [](Params const&) { return mask; }), optim::scale(-0.5)));
}

TEST_CASE("the masked inner state holds None where the mask leaves params out", "[optim][wrappers]") {
  auto const state = optim::masked(optim::trace{0.9}, mask).init(params());
  CHECK(jaxcc_test::streamed(tree::structure(state)) ==
        "PyTreeDef(CustomNode(MaskedState[()], [CustomNode(TraceState[()], [{'b': None, 'w': *}])]))");
}

TEST_CASE("MultiSteps matches optax and updates every k mini-steps", "[optim][wrappers]") {
  check_golden("MultiSteps(adam(0.05), 3)", optim::MultiSteps(optim::adam(0.05), 3));
  check_golden("MultiSteps(sgd(0.1), 4, use_grad_mean=False)", optim::MultiSteps(optim::sgd(0.1), 4, false));
  optim::MultiSteps const opt(optim::sgd(1.0), 2);
  auto state = opt.init(params());
  for (int t = 0; t < 4; ++t) {
    auto [u, next] = opt.update(params(), state, params());
    bool const emits = t % 2 == 1;
    CHECK((jnp::max(jnp::abs(u.at("w"))).item() > 0) == emits);
    CHECK(opt.has_updated(next).item() == emits);
    state = next;
  }
  CHECK(state.gradient_step.item() == 2);
}

}  // namespace test_optim_wrappers
