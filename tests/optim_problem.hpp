// The problem tests/golden/optim_cases.py runs every optimizer on: params
// {'b': (4,), 'w': (3, 4)}, gradients 2 h (p - target) + 0.1 (t % 3 - 1) pattern,
// 20 steps; and the comparison of results with optax's.
#pragma once

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>

#include "catch.hpp"

#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace optim_problem {

using jaxcc::Array;
namespace jnp = jaxcc::numpy;
using Params = std::map<std::string, Array<float>>;

inline Params params() {
  return {{"b", jnp::array({0.5f, -0.25f, 1.0f, 0.0f})},
          {"w", jnp::arange<float>(12).reshape({3, 4}) / 6.0f - 1.0f}};
}
inline Params const& h() {
  static Params const v{{"b", jnp::array({1.0f, 0.5f, 2.0f, 1.5f})}, {"w", jnp::full<float>({3, 4}, 0.75f)}};
  return v;
}
inline Params const& target() {
  static Params const v{{"b", jnp::array({1.0f, 2.0f, -1.0f, 0.5f})},
                        {"w", jnp::flip(jnp::arange<float>(12).reshape({3, 4}), 0) / 4.0f}};
  return v;
}
inline Params const& pattern() {
  static Params const v{{"b", jnp::array({1.0f, -1.0f, 0.5f, 2.0f})},
                        {"w", jnp::remainder(jnp::arange<float>(12).reshape({3, 4}), 5.0f) - 2.0f}};
  return v;
}

/// The gradient at step t (t a float32 scalar, traced under jit).
inline Params grads(Params const& p, Array<float> const& t) {
  Array<float> const s = 0.1f * (jnp::remainder(t, 3.0f) - 1.0f);
  Params out;
  for (auto const& [k, x] : p) out[k] = 2.0f * h().at(k) * (x - target().at(k)) + s * pattern().at(k);
  return out;
}

/// 20 eager steps of `opt` from params(): the final params and state.
template <class Opt>
auto run(Opt const& opt, int steps = 20) {
  Params p = params();
  auto state = opt.init(p);
  for (int t = 0; t < steps; ++t) {
    auto [updates, next] = opt.update(grads(p, jnp::array(float(t))), state, p);
    p = jaxcc::optim::apply_updates(p, updates);
    state = std::move(next);
  }
  return std::pair{p, state};
}

/// "" when got matches expected to float32 rounding (rtol, with atol for
/// values near 0), else the elements that do not.
inline std::string mismatches(std::vector<double> const& got, std::vector<double> const& expected,
                              double rtol = 2e-5, double atol = 1e-6) {
  if (got.size() != expected.size()) return "size " + std::to_string(got.size()) + " vs " + std::to_string(expected.size());
  std::ostringstream os;
  os.precision(9);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - expected[i]) <= atol + rtol * std::abs(expected[i])))
      os << "element " << i << ": " << got[i] << " vs " << expected[i] << "; ";
  return os.str();
}

template <class T>
std::vector<double> doubles(Array<T> const& a) {
  std::vector<double> out;
  for (auto v : a.to_vector()) out.push_back(static_cast<double>(v));
  return out;
}

/// One row of tests/golden/optim_cases.inc's optimizer cases.
struct Golden {
  std::string name;
  std::vector<double> b, w;
  std::size_t state_leaves;
  std::vector<double> first_leaf;
};

inline Golden const& golden(std::string const& name) {
  static std::vector<Golden> const all = {
#define JAXCC_OPTIM_OPTIMIZER_CASES
#include "golden/optim_cases.inc"
#undef JAXCC_OPTIM_OPTIMIZER_CASES
  };
  for (auto const& g : all)
    if (g.name == name) return g;
  throw std::runtime_error("no golden case " + name);
}

/// Runs `opt` as optim_cases.py runs the case `name` and checks the final
/// params, the number of state leaves and the first one against optax's.
template <class Opt>
void check_golden(std::string const& name, Opt const& opt) {
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
    if (first.dtype() == jaxcc::DType::int32)
      CHECK(mismatches(doubles(first.template as<std::int32_t>()), expected.first_leaf) == "");
    else
      CHECK(mismatches(doubles(first.template as<float>()), expected.first_leaf) == "");
  } else {
    CHECK(mismatches(doubles(first), expected.first_leaf) == "");
  }
}

}  // namespace optim_problem
