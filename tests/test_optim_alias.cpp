// The optimizers of jaxcc/optim/alias.hpp (and chains with the clipping,
// masking and accumulating transformations) against optax: 20 steps of
// each on the problem of tests/golden/optim_cases.py, final params and the
// state's leaves.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>

#include <string>
#include <vector>

#include "optim_problem.hpp"
#include "support.hpp"

namespace test_optim_alias {

namespace optim = jaxcc::optim;
using namespace optim_problem;

namespace {

struct Golden {
  std::string name;
  std::vector<double> b, w;
  std::size_t state_leaves;
  std::vector<double> first_leaf;
};

Golden const& golden(std::string const& name) {
  static std::vector<Golden> const all = {
#define JAXCC_OPTIM_OPTIMIZER_CASES
#include "golden/optim_cases.inc"
#undef JAXCC_OPTIM_OPTIMIZER_CASES
  };
  for (auto const& g : all)
    if (g.name == name) return g;
  throw std::runtime_error("no golden case " + name);
}

template <class Opt>
void check(std::string const& name, Opt const& opt) {
  INFO(name);
  Golden const& expected = golden(name);
  auto const [p, state] = run(opt);
  CHECK(mismatches(doubles(p.at("b")), expected.b) == "");
  CHECK(mismatches(doubles(p.at("w")), expected.w) == "");
  auto const leaves = jaxcc::tree::leaves(state);
  REQUIRE(leaves.size() == expected.state_leaves);
  if (leaves.empty()) return;
  auto const& first = leaves.front();
  if constexpr (std::is_same_v<std::decay_t<decltype(first)>, jaxcc::AnyArray>) {
    if (first.dtype() == jaxcc::DType::int32) CHECK(mismatches(doubles(first.template as<std::int32_t>()), expected.first_leaf) == "");
    else CHECK(mismatches(doubles(first.template as<float>()), expected.first_leaf) == "");
  } else {
    CHECK(mismatches(doubles(first), expected.first_leaf) == "");
  }
}

auto warmup() { return optim::warmup_cosine_decay_schedule(0.0, 0.1, 5, 20, 0.01); }
std::map<std::string, bool> const mask{{"b", false}, {"w", true}};

}  // namespace

TEST_CASE("sgd, with momentum and Nesterov's, matches optax", "[optim][alias]") {
  check("sgd(0.1)", optim::sgd(0.1));
  check("sgd(0.1, 0.9)", optim::sgd(0.1, 0.9));
  check("sgd(0.1, 0.9, nesterov=True)", optim::sgd(0.1, 0.9, true));
}

TEST_CASE("adam, nadam and adamw match optax", "[optim][alias]") {
  check("adam(0.05)", optim::adam(0.05));
  check("adam(warmup)", optim::adam(warmup()));
  check("adam(0.05, eps_root=1e-8)", optim::adam(0.05, 0.9, 0.999, 1e-8, 1e-8));
  check("nadam(0.05)", optim::nadam(0.05));
  check("adamw(0.05, weight_decay=0.1)", optim::adamw(0.05, 0.9, 0.999, 1e-8, 0.0, 0.1));
  check("adamw(warmup, weight_decay=0.1, mask=MASK)", optim::adamw(warmup(), 0.9, 0.999, 1e-8, 0.0, 0.1, mask));
}

TEST_CASE("rmsprop, adagrad and adafactor match optax", "[optim][alias]") {
  check("rmsprop(0.01)", optim::rmsprop(0.01));
  check("rmsprop(0.01, eps_in_sqrt=False, initial_scale=0.1)", optim::rmsprop(0.01, 0.9, 1e-8, 0.1, false));
  check("adagrad(0.1)", optim::adagrad(0.1));
  check("adafactor(0.05)", optim::adafactor(0.05));
  check("adafactor(0.05, min_dim_size_to_factor=2)", optim::adafactor(0.05, 2));
}

TEST_CASE("lion and lamb match optax", "[optim][alias]") {
  check("lion(0.01)", optim::lion(0.01));
  check("lion(0.01, weight_decay=0.5)", optim::lion(0.01, 0.9, 0.99, 0.5));
  check("lamb(0.01, weight_decay=0.01)", optim::lamb(0.01, 0.9, 0.999, 1e-6, 0.0, 0.01));
}

TEST_CASE("chains with clipping, scheduled weight decay, masks and accumulation match optax", "[optim][alias]") {
  check("chain(clip_by_global_norm(1.0), adam(0.05))", optim::chain(optim::clip_by_global_norm(1.0), optim::adam(0.05)));
  check("chain(clip(0.1), sgd(0.1))", optim::chain(optim::clip(0.1), optim::sgd(0.1)));
  check("chain(clip_by_block_rms(0.5), sgd(0.1))", optim::chain(optim::clip_by_block_rms(0.5), optim::sgd(0.1)));
  check("chain(add_decayed_weights(linear), sgd(0.1))",
        optim::chain(optim::add_decayed_weights(optim::linear_schedule(0.5, 0.0, 10)), optim::sgd(0.1)));
  check("chain(scale_by_schedule(exponential), scale(-0.1))",
        optim::chain(optim::scale_by_schedule(optim::exponential_decay(1.0, 4, 0.5)), optim::scale(-0.1)));
  check("chain(masked(trace(0.9), MASK), scale(-0.1))",
        optim::chain(optim::masked(optim::trace{0.9}, mask), optim::scale(-0.1)));
  check("MultiSteps(adam(0.05), 3)", optim::MultiSteps(optim::adam(0.05), 3));
  check("MultiSteps(sgd(0.1), 4, use_grad_mean=False)", optim::MultiSteps(optim::sgd(0.1), 4, false));
}

}  // namespace test_optim_alias
