// The optimizers of jaxcc/optim/alias.hpp against optax: 20 steps of each
// on the problem of tests/golden/optim_cases.py (tests/optim_problem.hpp),
// the final params and the state's leaves.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>

#include <map>
#include <string>

#include "optim_problem.hpp"
#include "support.hpp"

namespace test_optim_alias {

namespace optim = jaxcc::optim;
using namespace optim_problem;

namespace {

auto warmup() { return optim::warmup_cosine_decay_schedule(0.0, 0.1, 5, 20, 0.01); }
std::map<std::string, bool> const mask{{"b", false}, {"w", true}};

}  // namespace

TEST_CASE("sgd, with momentum and Nesterov's, matches optax", "[optim][alias]") {
  check_golden("sgd(0.1)", optim::sgd(0.1));
  check_golden("sgd(0.1, 0.9)", optim::sgd(0.1, 0.9));
  check_golden("sgd(0.1, 0.9, nesterov=True)", optim::sgd(0.1, 0.9, true));
}

TEST_CASE("adam, nadam and adamw match optax", "[optim][alias]") {
  check_golden("adam(0.05)", optim::adam(0.05));
  check_golden("adam(warmup)", optim::adam(warmup()));
  check_golden("adam(0.05, eps_root=1e-8)", optim::adam(0.05, 0.9, 0.999, 1e-8, 1e-8));
  check_golden("nadam(0.05)", optim::nadam(0.05));
  check_golden("adamw(0.05, weight_decay=0.1)", optim::adamw(0.05, 0.9, 0.999, 1e-8, 0.0, 0.1));
  check_golden("adamw(warmup, weight_decay=0.1, mask=MASK)", optim::adamw(warmup(), 0.9, 0.999, 1e-8, 0.0, 0.1, mask));
}

TEST_CASE("rmsprop, adagrad and adafactor match optax", "[optim][alias]") {
  check_golden("rmsprop(0.01)", optim::rmsprop(0.01));
  check_golden("rmsprop(0.01, eps_in_sqrt=False, initial_scale=0.1)", optim::rmsprop(0.01, 0.9, 1e-8, 0.1, false));
  check_golden("adagrad(0.1)", optim::adagrad(0.1));
  check_golden("adafactor(0.05)", optim::adafactor(0.05));
}

TEST_CASE("lion and lamb match optax", "[optim][alias]") {
  check_golden("lion(0.01)", optim::lion(0.01));
  check_golden("lion(0.01, weight_decay=0.5)", optim::lion(0.01, 0.9, 0.99, 0.5));
  check_golden("lamb(0.01, weight_decay=0.01)", optim::lamb(0.01, 0.9, 0.999, 1e-6, 0.0, 0.01));
}

TEST_CASE("the golden comparison tells a changed hyperparameter apart", "[optim][alias]") {
  auto const [p, state] = run(optim::adam(0.05, 0.8));
  CHECK(mismatches(doubles(p.at("w")), golden("adam(0.05)").w) != "");
}

}  // namespace test_optim_alias
