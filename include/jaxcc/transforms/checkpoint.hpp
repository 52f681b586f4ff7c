// jaxcc::checkpoint (jax.checkpoint / remat): the function's intermediate
// values are not kept for the backward pass but recomputed there, trading
// compute for memory. Batched, it is a checkpoint of the batched program.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "jaxcc/graph/program.hpp"
#include "jaxcc/lax/control_flow_common.hpp"
#include "jaxcc/transforms/trace_call.hpp"

namespace jaxcc {

namespace detail {

class CheckpointCall final : public graph::PrimitiveBase, public std::enable_shared_from_this<CheckpointCall> {
 public:
  explicit CheckpointCall(graph::Program program) : program_(std::move(program)) {}
  std::string_view name() const override { return "checkpoint"; }
  std::string params_string() const override { return {}; }
  graph::Program const* subprogram() const override { return &program_; }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    std::vector<graph::Aval> avals;
    for (auto const& o : program_.outputs) avals.push_back(graph::aval_of(o));
    return graph::apply(shared_from_this(), inputs, avals, [&] { return graph::run(program_, inputs); });
  }
  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const> primals, std::span<graph::MaybeArray const> tangents,
                                     std::span<AnyArray const>) const override {
    return graph::program_jvp(program_, primals, tangents);
  }
  /// Recomputes the forward values from the inputs: nothing inside was kept.
  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const>) const override {
    return graph::program_vjp(program_, primals, cotangents);
  }
  graph::Batched batch(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                       graph::AxisData const& axis) const override {
    auto batched = batched_body(program_, dims, std::vector<bool>(program_.outputs.size(), false), axis);
    auto operands = std::move(batched.body.consts);
    operands.insert(operands.end(), inputs.begin(), inputs.end());
    auto call = std::make_shared<CheckpointCall const>(std::move(batched.body.program));
    return {call->evaluate(operands), front_dims(batched.out_mapped)};
  }
  bool binds_axis(std::string_view axis_name) const override { return program_binds_axis(program_, axis_name); }

 private:
  graph::Program program_;
};

}  // namespace detail

/// `f` whose intermediates are recomputed, not stored, when differentiated.
template <class F>
auto checkpoint(F f) {
  return [f]<class... Args>(Args const&... args) {
    detail::FlatCall<F, Args...> flat(f, std::tuple<Args...>{args...});
    auto operands = flat.argument_leaves();
    std::vector<graph::Aval> avals;
    for (auto const& a : operands) avals.push_back(graph::aval_of(a));
    std::vector<AnyArray> closure;
    auto program = graph::trace_program(flat, avals, closure);
    operands.insert(operands.end(), closure.begin(), closure.end());
    auto call = std::make_shared<detail::CheckpointCall const>(std::move(program));
    return flat.unflatten_output(call->evaluate(operands));
  };
}

}  // namespace jaxcc
