// jit's microbatching (graph/microbatch.hpp): a program over a batch run
// as the same program over slices of it. Expected values are the same
// program's whole-batch plan, run on the same inputs.
#include "catch.hpp"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_microbatch {

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::AnyArray;
using jaxcc::Array;
using jaxcc::testing::AllClose;
using jaxcc_test::smooth;

// The jit call make_jaxpr(jit(f)) records for these arguments.
template <class F, class... A>
jaxcc::detail::ClosedCall const& jit_call(F const& f, A const&... args) {
  static std::optional<jaxcc::ClosedJaxpr> keep;  // the call lives in its jaxpr
  keep = jaxcc::make_jaxpr(jaxcc::jit(f))(args...);
  auto const* call = dynamic_cast<jaxcc::detail::ClosedCall const*>(keep->trace().equations.at(0).primitive.get());
  REQUIRE(call != nullptr);
  return *call;
}

// The program's outputs run whole and run in slices of `slice_bytes`
// (every program is large enough here), each pair alike.
template <class F, class... A>
std::int64_t compare_slices(std::int64_t slice_bytes, F const& f, A const&... args) {
  auto const& program = *jit_call(f, args...).subprogram();
  auto const sliced = jaxcc::graph::MicrobatchedPlan::planned(program, {0, slice_bytes});
  REQUIRE(sliced.has_value());
  std::vector<AnyArray> const inputs{AnyArray(args)...};
  auto const whole = jaxcc::graph::Plan(program).run(inputs);
  std::vector<AnyArray> parts;
  sliced->run(inputs, parts);
  REQUIRE(parts.size() == whole.size());
  for (std::size_t o = 0; o < whole.size(); ++o) {
    REQUIRE(parts[o].shape() == whole[o].shape());
    REQUIRE_THAT(parts[o].as<double>(), AllClose(whole[o].as<double>(), 1e-12, 1e-12));
  }
  return sliced->slices();
}

auto const conv_loss = [](Array<double> const& x, Array<double> const& w, Array<double> const& c) {
  return jnp::sum(lax::conv(x, w, {1, 1}, "SAME") * c);
};

TEST_CASE("a convolution's value and gradients, slice by slice", "[microbatch]") {
  // The loss and the kernel's gradient are sums over the batch (added up
  // over the slices), the input's gradient is split by it. (Sixteen output
  // features: the outputs are a small share of the values, as slicing
  // asks.)
  auto const x = smooth({8, 3, 10, 10});
  auto const w = smooth({16, 3, 3, 3}, 0.53);
  auto const c = smooth({8, 16, 10, 10}, 0.11);
  auto const step = [](Array<double> const& x, Array<double> const& w, Array<double> const& c) {
    auto [loss, grads] = jaxcc::value_and_grad(conv_loss, jaxcc::argnums<0, 1>)(x, w, c);
    return std::tuple{loss, std::get<0>(grads), std::get<1>(grads)};
  };
  REQUIRE(compare_slices(1, step, x, w, c) == 8);  // a row per slice
  REQUIRE(compare_slices(1 << 30, step, x, w, c) == 2);  // at most half the batch per slice
}

TEST_CASE("what follows a sum over the batch runs once, on the sum", "[microbatch]") {
  // A mean over the batch: its sum is added up over the slices, then
  // divided (the tail); each example's sum is the slices' rows.
  auto const x = smooth({8, 3, 10, 10});
  auto const w = smooth({4, 3, 3, 3}, 0.53);
  auto const c = smooth({8, 4, 10, 10}, 0.11);
  auto const f = [](Array<double> const& x, Array<double> const& w, Array<double> const& c) {
    auto const y = lax::conv(x, w, {1, 1}, "SAME");
    return std::tuple{jnp::mean(y * c), jnp::exp(-jnp::mean(y)), jnp::sum(jnp::reshape(y, {8, -1}), 1)};
  };
  REQUIRE(compare_slices(1, f, x, w, c) == 8);
}

TEST_CASE("a slice's rows divide the batch", "[microbatch]") {
  auto const x = smooth({12, 5});
  auto const w = smooth({5, 5}, 0.29);
  auto const f = [](Array<double> const& x, Array<double> const& w) { return jnp::sum(jnp::tanh(jnp::matmul(x, w)), 1); };
  // About 5 of 12 rows per slice: 4, which divides 12.
  auto const& program = *jit_call(f, x, w).subprogram();
  std::int64_t total = 0;  // the values' bytes: the inputs and every equation's output
  for (auto const& v : program.trace->inputs) total += v->shape.numel() * 8;
  for (auto const& eq : program.trace->equations) total += eq.outputs[0]->shape.numel() * 8;
  REQUIRE(compare_slices(total * 5 / 12, f, x, w) == 3);
}

TEST_CASE("programs whose slices would need each other's data are not microbatched", "[microbatch]") {
  auto const x = smooth({8, 6});
  auto const planned = [](auto const& f, auto const&... args) {
    return jaxcc::graph::MicrobatchedPlan::planned(*jit_call(f, args...).subprogram(), {0, 1}).has_value();
  };
  // Each row centered by the batch's mean: the mean is read before the end.
  REQUIRE_FALSE(planned([](Array<double> const& x) { return Array<double>(x - jnp::mean(x, 0)); }, x));
  // The batch laid along the output's second axis.
  REQUIRE_FALSE(planned([](Array<double> const& x) { return Array<double>(jnp::sin(jnp::transpose(x))); }, x));
  // A row of another slice.
  REQUIRE_FALSE(planned([](Array<double> const& x) { return Array<double>(jnp::sin(jnp::roll(x, 1, 0))); }, x));
  // Elementwise: its fused loop runs tile by tile already.
  REQUIRE_FALSE(planned([](Array<double> const& x) { return Array<double>(jnp::tanh(x) * 2.0); }, x));
  // A cumulative sum along each row, summed: sliceable, but small; and
  // alone, its value an output, not an intermediate.
  auto const f = [](Array<double> const& x) { return jnp::sum(jnp::sin(jnp::cumsum(x, 1)), 1); };
  REQUIRE_FALSE(planned([](Array<double> const& x) { return jnp::cumsum(x, 1); }, x));
  REQUIRE(planned(f, x));
  REQUIRE_FALSE(jaxcc::graph::MicrobatchedPlan::planned(*jit_call(f, x).subprogram(), {1 << 20, 1}).has_value());
  REQUIRE_FALSE(jaxcc::graph::MicrobatchedPlan::planned(*jit_call(f, x).subprogram(), {0, 1, 1 << 20}).has_value());
}

// Sets config::jit_microbatch_bytes for its lifetime.
class MicrobatchBytes {
 public:
  explicit MicrobatchBytes(std::int64_t bytes) : saved_(jaxcc::config::jit_microbatch_bytes().exchange(bytes)) {}
  MicrobatchBytes(MicrobatchBytes const&) = delete;
  MicrobatchBytes& operator=(MicrobatchBytes const&) = delete;
  ~MicrobatchBytes() { jaxcc::config::jit_microbatch_bytes() = saved_; }

 private:
  std::int64_t saved_;
};

TEST_CASE("jit runs a large program in slices, with the same results", "[microbatch][jit]") {
  auto const x = smooth({8, 3, 10, 10});
  auto const w = smooth({16, 3, 3, 3}, 0.53);
  auto const c = smooth({8, 16, 10, 10}, 0.11);
  auto const step = jaxcc::value_and_grad(conv_loss, jaxcc::argnums<0, 1>);
  auto const [loss, grads] = step(x, w, c);  // eager
  std::optional<MicrobatchBytes> bytes(std::in_place, 0);  // every program
  REQUIRE(jit_call(step, x, w, c).microbatched().has_value());
  auto const [jit_loss, jit_grads] = jaxcc::jit(step)(x, w, c);
  bytes.emplace(-1);  // none
  REQUIRE_FALSE(jit_call(step, x, w, c).microbatched().has_value());
  bytes.reset();
  REQUIRE_THAT(jit_loss, AllClose(loss, 1e-12, 1e-12));
  REQUIRE_THAT(std::get<0>(jit_grads), AllClose(std::get<0>(grads), 1e-12, 1e-12));
  REQUIRE_THAT(std::get<1>(jit_grads), AllClose(std::get<1>(grads), 1e-12, 1e-12));
  // The default: a program of this size runs whole.
  REQUIRE_FALSE(jit_call(step, x, w, c).microbatched().has_value());
}

// JAXCC_JIT_MICROBATCH_BYTES is read once, where jit first needs it: CMake
// runs this case alone in processes of their own, the variable set to an
// integer and to text that is not one, and names the threshold jit must
// then hold in JAXCC_TEST_EXPECTED_MICROBATCH_BYTES (tests/CMakeLists.txt).
// Run with the rest of the file, neither set, it checks the default.
TEST_CASE("jit's microbatch threshold is the environment's where that is an integer", "[microbatch][config]") {
  char const* const expected = std::getenv("JAXCC_TEST_EXPECTED_MICROBATCH_BYTES");
  INFO("JAXCC_JIT_MICROBATCH_BYTES is set: name the threshold it gives in JAXCC_TEST_EXPECTED_MICROBATCH_BYTES");
  REQUIRE((expected != nullptr || std::getenv("JAXCC_JIT_MICROBATCH_BYTES") == nullptr));
  std::int64_t const bytes = expected ? std::stoll(expected) : std::int64_t{48} << 20;
  REQUIRE(jaxcc::config::jit_microbatch_bytes().load() == bytes);
}

}  // namespace test_microbatch
