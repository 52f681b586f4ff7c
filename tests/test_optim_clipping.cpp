// The clipping transformations of jaxcc/optim/clipping.hpp against optax
// (chained with an optimizer, 20 steps on tests/golden/optim_cases.py's
// problem), global_norm, and clip_by_global_norm below its threshold.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>

#include <map>
#include <string>

#include "optim_problem.hpp"
#include "support.hpp"

namespace test_optim_clipping {

namespace optim = jaxcc::optim;
namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using namespace optim_problem;

TEST_CASE("clip, clip_by_global_norm and clip_by_block_rms match optax", "[optim][clipping]") {
  check_golden("chain(clip_by_global_norm(1.0), adam(0.05))",
               optim::chain(optim::clip_by_global_norm(1.0), optim::adam(0.05)));
  check_golden("chain(clip(0.1), sgd(0.1))", optim::chain(optim::clip(0.1), optim::sgd(0.1)));
  check_golden("chain(clip_by_block_rms(0.5), sgd(0.1))", optim::chain(optim::clip_by_block_rms(0.5), optim::sgd(0.1)));
}

TEST_CASE("global_norm, and clipping only above max_norm", "[optim][clipping]") {
  std::map<std::string, Array<float>> const g{{"a", jnp::array({3.0f})}, {"b", jnp::array({0.0f, 4.0f})}};
  CHECK(optim::global_norm(g).item() == 5.0f);
  auto const [kept, s] = optim::clip_by_global_norm(5.5).update(g, optim::EmptyState{});
  CHECK(kept.at("b").to_vector() == std::vector<float>{0.0f, 4.0f});
  auto const [clipped, s2] = optim::clip_by_global_norm(2.5).update(g, optim::EmptyState{});
  CHECK(mismatches(doubles(clipped.at("b")), {0.0, 2.0}, 1e-6) == "");
  auto const [c, s3] = optim::clip(1.5).update(g, optim::EmptyState{});
  CHECK(c.at("b").to_vector() == std::vector<float>{0.0f, 1.5f});
}

}  // namespace test_optim_clipping
