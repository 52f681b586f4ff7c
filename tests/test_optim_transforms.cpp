// The transformations of jaxcc/optim/transforms.hpp against optax (each
// chained with a scale, 20 steps on tests/golden/optim_cases.py's
// problem), and their rules: a zero weight decay passes updates through,
// the trust ratio is 1 where a norm is 0, transformations that read params
// say so at compile time (update without params does not compile).
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>

#include <map>
#include <string>

#include "optim_problem.hpp"
#include "support.hpp"

namespace test_optim_transforms {

namespace optim = jaxcc::optim;
namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using namespace optim_problem;

TEST_CASE("trace, scale_by_rss, scale_by_trust_ratio, scale_by_param_block_rms match optax", "[optim][transforms]") {
  check_golden("chain(trace(0.5, nesterov=True), scale(-0.1))", optim::chain(optim::trace{0.5, true}, optim::scale(-0.1)));
  check_golden("chain(scale_by_rss(), scale(-0.1))", optim::chain(optim::scale_by_rss{}, optim::scale(-0.1)));
  check_golden("chain(scale_by_trust_ratio(), scale(-0.1))", optim::chain(optim::scale_by_trust_ratio{}, optim::scale(-0.1)));
  check_golden("chain(scale_by_param_block_rms(), scale(-0.1))",
               optim::chain(optim::scale_by_param_block_rms{}, optim::scale(-0.1)));
}

TEST_CASE("add_decayed_weights and scale_by_schedule with schedules match optax", "[optim][transforms]") {
  check_golden("chain(add_decayed_weights(linear), sgd(0.1))",
               optim::chain(optim::add_decayed_weights(optim::linear_schedule(0.5, 0.0, 10)), optim::sgd(0.1)));
  check_golden("chain(scale_by_schedule(exponential), scale(-0.1))",
               optim::chain(optim::scale_by_schedule(optim::exponential_decay(1.0, 4, 0.5)), optim::scale(-0.1)));
}

TEST_CASE("a zero weight decay and a zero norm leave updates as they are", "[optim][transforms]") {
  std::tuple<Array<float>> const u{jnp::array({1.0f, -2.0f})};
  std::tuple<Array<float>> const zero{jnp::zeros<float>({2})};
  auto const [same, s] = optim::add_decayed_weights(0.0).update(u, optim::EmptyState{}, zero);
  CHECK(std::get<0>(same).data() == std::get<0>(u).data());  // not even copied
  auto const [ratio, s2] = optim::scale_by_trust_ratio{}.update(u, optim::EmptyState{}, zero);
  CHECK(std::get<0>(ratio).to_vector() == std::vector<float>{1.0f, -2.0f});
}

TEST_CASE("one Adam step is m_hat / (sqrt(v_hat) + eps)", "[optim][transforms]") {
  // After one step the bias corrections undo the averages: m_hat = g, v_hat = g^2
  // (to float32's 1 - 0.999 = 0.00100004673: 7e-6 relative).
  std::map<std::string, Array<float>> const g{{"x", jnp::array({0.5f, -4.0f})}};
  optim::scale_by_adam const adam{};
  auto const [u, s] = adam.update(g, adam.init(g));
  CHECK(mismatches(doubles(u.at("x")), {0.5 / (0.5 + 1e-8), -4.0 / (4.0 + 1e-8)}, 2e-5) == "");
  CHECK(s.count.item() == 1);
}

}  // namespace test_optim_transforms
