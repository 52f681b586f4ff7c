// jaxcc/optim/base.hpp: states are pytrees (chain's is the tuple of its
// parts'), apply_updates, and every transformation under the transforms: a
// jitted train step equals the eager one, a vmapped ensemble equals a loop
// over its members, and a sharded jitted step equals the unsharded one.
#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>

#include <string>
#include <vector>

#include "optim_problem.hpp"
#include "support.hpp"

namespace test_optim_base {

namespace optim = jaxcc::optim;
namespace jnp = jaxcc::numpy;
namespace tree = jaxcc::tree;
using jaxcc::Array;
using namespace optim_problem;

namespace {

// The optimizer the transform tests train with: every kind of state (a
// count, moments, a schedule's count, a masked inner state) in one chain.
auto full_chain() {
  auto const lr = optim::warmup_cosine_decay_schedule(0.0, 0.1, 5, 20, 0.01);
  std::map<std::string, bool> const mask{{"b", false}, {"w", true}};
  return optim::chain(optim::clip_by_global_norm(2.0), optim::adamw(lr, 0.9, 0.999, 1e-8, 0.0, 0.1, mask));
}

std::string close(Params const& got, Params const& expected, double rtol = 1e-6) {
  std::string out;
  for (auto const& [k, x] : expected) out += mismatches(doubles(got.at(k)), doubles(x), rtol, 1e-7);
  return out;
}

}  // namespace

TEST_CASE("states are pytrees: chain's is the tuple of its parts'", "[optim][base]") {
  auto const opt = optim::adam(0.1);
  auto const state = opt.init(params());
  CHECK(jaxcc_test::streamed(tree::structure(state)) ==
        "PyTreeDef((CustomNode(ScaleByAdamState[()], [*, {'b': *, 'w': *}, {'b': *, 'w': *}]), ()))");
  auto const& adam_state = std::get<0>(state);
  CHECK(adam_state.count.shape() == jaxcc::Shape{});
  CHECK(adam_state.mu.at("w").shape() == jaxcc::Shape{3, 4});
  auto const scheduled = optim::sgd(optim::constant_schedule(0.1), 0.9).init(params());
  CHECK(jaxcc_test::streamed(tree::structure(scheduled)) ==
        "PyTreeDef((CustomNode(TraceState[()], [{'b': *, 'w': *}]), CustomNode(ScaleByScheduleState[()], [*])))");
  // tree::map reaches every leaf, the int32 counts included.
  auto const doubled = tree::map([](auto const& x) { return decltype(x)(x + x); }, scheduled);
  CHECK(std::get<1>(doubled).count.item() == 0);
}

TEST_CASE("apply_updates keeps each param's dtype", "[optim][base]") {
  std::tuple<Array<jaxcc::bfloat16>, Array<float>> const p{jnp::ones<jaxcc::bfloat16>({2}), jnp::ones<float>({2})};
  std::tuple<Array<float>, Array<float>> const u{jnp::full<float>({2}, 0.5f), jnp::full<float>({2}, -0.25f)};
  auto const out = optim::apply_updates(p, u);
  static_assert(std::is_same_v<std::decay_t<decltype(std::get<0>(out))>, Array<jaxcc::bfloat16>>);
  CHECK(float(std::get<0>(out).to_vector()[0]) == 1.5f);
  CHECK(std::get<1>(out).to_vector()[1] == 0.75f);
}

TEST_CASE("a jitted train step equals the eager one, schedule counts traced", "[optim][base][jit]") {
  auto const opt = full_chain();
  auto const [eager, eager_state] = run(opt);
  using State = decltype(opt.init(params()));
  auto step = jaxcc::jit([&opt](Params const& p, State const& s, Array<float> const& t) {
    auto [u, next] = opt.update(grads(p, t), s, p);
    return std::pair{optim::apply_updates(p, u), next};
  });
  Params p = params();
  State s = opt.init(p);
  for (int t = 0; t < 20; ++t) std::tie(p, s) = step(p, s, jnp::array(float(t)));
  CHECK(close(p, eager) == "");
  CHECK(std::get<2>(std::get<1>(s)).count.item() == 20);  // the learning rate's schedule count
}

TEST_CASE("a vmapped ensemble of optimizers equals a loop over its members", "[optim][base][vmap]") {
  auto const opt = optim::chain(optim::clip_by_global_norm(2.0), optim::lamb(optim::linear_schedule(0.05, 0.01, 10), 0.9,
                                                                              0.999, 1e-6, 0.0, 0.01));
  int const members = 3;
  // Member k starts from params() + 0.3 k.
  auto const start = [](int k) {
    return tree::map([k](Array<float> const& x) { return Array<float>(x + 0.3f * float(k)); }, params());
  };
  std::vector<Params> starts;
  for (int k = 0; k < members; ++k) starts.push_back(start(k));
  Params stacked;
  for (auto const& [name, x] : params()) {
    std::vector<Array<float>> parts;
    for (auto const& s : starts) parts.push_back(s.at(name));
    stacked[name] = jnp::stack(parts);
  }
  auto state = jaxcc::vmap([&opt](Params const& p) { return opt.init(p); })(stacked);
  using State = decltype(opt.init(params()));
  auto step = jaxcc::vmap([&opt](Params const& p, State const& s, Array<float> const& t) {
    auto [u, next] = opt.update(grads(p, t), s, p);
    return std::pair{optim::apply_updates(p, u), next};
  }, jaxcc::in_axes(0, 0, jaxcc::none));
  Params p = stacked;
  for (int t = 0; t < 20; ++t) std::tie(p, state) = step(p, state, jnp::array(float(t)));
  for (int k = 0; k < members; ++k) {
    Params one = starts[static_cast<std::size_t>(k)];
    auto s = opt.init(one);
    for (int t = 0; t < 20; ++t) {
      auto [u, next] = opt.update(grads(one, jnp::array(float(t))), s, one);
      one = optim::apply_updates(one, u);
      s = next;
    }
    Params member;
    for (auto const& [name, x] : p) member[name] = x(k);
    INFO("member " << k);
    CHECK(close(member, one, 1e-5) == "");
  }
}

TEST_CASE("a sharded jitted step equals the unsharded one", "[optim][base][sharding]") {
  auto const mesh = jaxcc_test::mesh_of({4}, {"x"});
  using jaxcc::NamedSharding;
  using jaxcc::P;
  std::map<std::string, Array<float>> const p0{{"b", jnp::linspace<float>(-1.0, 1.0, 4)},
                                               {"w", jnp::arange<float>(32).reshape({8, 4}) / 16.0f}};
  std::map<std::string, NamedSharding> const shardings{{"b", NamedSharding(mesh, P())},
                                                       {"w", NamedSharding(mesh, P("x", jaxcc::none))}};
  auto const opt = optim::adamw(optim::cosine_decay_schedule(0.05, 10), 0.9, 0.999, 1e-8, 0.0, 0.01);
  using Tree = std::map<std::string, Array<float>>;
  using State = decltype(opt.init(p0));
  auto const grad_of = [](Tree const& p) {
    return tree::map([](Array<float> const& x) { return Array<float>(2.0f * (x - 0.5f)); }, p);
  };
  auto step = jaxcc::jit([&](Tree const& p, State const& s) {
    auto [u, next] = opt.update(grad_of(p), s, p);
    return std::pair{optim::apply_updates(p, u), next};
  });
  Tree sharded = tree::map([](Array<float> const& x, NamedSharding const& sh) { return jaxcc::device_put(x, sh); },
                           p0, shardings);
  State state = opt.init(sharded);
  std::get<0>(state).mu = tree::map([](Array<float> const& x, NamedSharding const& sh) { return jaxcc::device_put(x, sh); },
                                    std::get<0>(state).mu, shardings);
  Tree plain = p0;
  State plain_state = opt.init(p0);
  for (int t = 0; t < 5; ++t) {
    std::tie(sharded, state) = step(sharded, state);
    auto [u, next] = opt.update(grad_of(plain), plain_state, plain);
    plain = optim::apply_updates(plain, u);
    plain_state = next;
  }
  CHECK(sharded.at("w").sharding().shard_shape({8, 4}) == jaxcc::Shape{2, 4});  // still split over x
  CHECK(close(sharded, plain) == "");
  CHECK(std::get<0>(state).count.item() == 5);
}

}  // namespace test_optim_base
