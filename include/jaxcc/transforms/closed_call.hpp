// A call of a closed program as one equation: what jit and checkpoint
// record. It runs the program's plan when its operands are concrete and
// records itself when any is traced; its JVP and VJP are those of the
// program (the VJP recomputes the forward values inside: nothing from the
// call's forward run is kept), and batched it is a call of the batched
// program — so grad(jit(f)), vmap(jit(f)) and jit(jit(f)) need no more.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/graph/call_primitive.hpp"
#include "jaxcc/graph/microbatch.hpp"
#include "jaxcc/graph/plan.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/lax/control_flow_common.hpp"

namespace jaxcc::detail {

// A class template only so that a file that never applies it compiles
// none of it (docs/compile_cost.md, "What a file compiles").
template <class = void>
class ClosedCallT;
using ClosedCall = ClosedCallT<>;

template <class>
class ClosedCallT final : public graph::CallPrimitive<ClosedCallT<>> {
 public:
  /// `name` is what make_jaxpr prints: "jit", "checkpoint". `donated[i]`:
  /// input i's buffer may hold an output when run concretely.
  ClosedCallT(std::string_view name, graph::Program program, std::vector<std::uint8_t> donated = {})
      : name_(name),
        plan_(std::move(program), std::move(donated)),
        microbatched_(graph::MicrobatchedPlan::planned(plan_.program())),
        out_avals_(output_avals(plan_.program())) {}
  std::string_view name() const override { return name_; }
  std::vector<graph::Program const*> called() const override { return {&plan_.program()}; }
  graph::Program const* subprogram() const override { return &plan_.program(); }
  std::span<graph::Fusion const> subprogram_fusions() const override { return plan_.fusions(); }
  graph::Plan const& plan() const noexcept { return plan_; }
  /// How it runs concretely when its values outgrow the caches
  /// (graph/microbatch.hpp); none if it runs as one plan.
  std::optional<graph::MicrobatchedPlan> const& microbatched() const noexcept { return microbatched_; }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    return this->apply(inputs, out_avals_, [&] {
      std::vector<AnyArray> out;
      run(inputs, out);
      return out;
    });
  }
  void evaluate_into(std::span<AnyArray const> inputs, std::vector<AnyArray>& out) const override {
    if (std::ranges::any_of(inputs, [](AnyArray const& a) { return graph::var_of(a) != nullptr; }))
      PrimitiveBase::evaluate_into(inputs, out);  // recorded
    else
      run(inputs, out);
  }
  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const> primals, std::span<graph::MaybeArray const> tangents,
                                     std::span<AnyArray const>) const override {
    return graph::program_jvp(plan_.program(), primals, tangents);
  }
  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const>, graph::Wanted wanted) const override {
    return graph::program_vjp(plan_.program(), primals, cotangents, wanted);
  }
  graph::Batched batch(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                       graph::AxisData const& axis) const override {
    auto const& program = plan_.program();
    auto batched = batched_body(program, dims, std::vector<bool>(program.outputs.size(), false), axis);
    auto operands = std::move(batched.body.consts);
    operands.insert(operands.end(), inputs.begin(), inputs.end());
    auto call = std::make_shared<ClosedCall const>(name_, std::move(batched.body.program));
    return {call->evaluate(operands), front_dims(batched.out_mapped)};
  }

 private:
  void run(std::span<AnyArray const> inputs, std::vector<AnyArray>& out) const {
    if (microbatched_) microbatched_->run(inputs, out);
    else plan_.run(inputs, out);
  }

  std::string name_;
  graph::Plan plan_;
  std::optional<graph::MicrobatchedPlan> microbatched_;
  std::vector<graph::Aval> out_avals_;
};

}  // namespace jaxcc::detail
