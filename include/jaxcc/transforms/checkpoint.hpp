// jaxcc::checkpoint (jax.checkpoint / remat): the function's intermediate
// values are not kept for the backward pass but recomputed there, trading
// compute for memory. Batched, it is a checkpoint of the batched program.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "jaxcc/graph/program.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/transforms/closed_call.hpp"

namespace jaxcc {

/// `f` whose intermediates are recomputed, not stored, when differentiated.
template <class F>
auto checkpoint(F f) {
  auto const run = [f]<class... Args>(Args const&... args) {
    detail::FlatCall<F, Args...> flat(f, std::tuple<Args...>{args...});
    auto operands = flat.argument_leaves();
    std::vector<graph::Aval> avals;
    for (auto const& a : operands) avals.push_back(graph::aval_of(a));
    std::vector<AnyArray> closure;
    auto program = graph::trace_program(flat, avals, closure);
    operands.insert(operands.end(), closure.begin(), closure.end());
    auto call = std::make_shared<detail::ClosedCall const>("checkpoint", std::move(program));
    return flat.unflatten_output(call->evaluate(operands));
  };
  return [run](auto const&... args) { return run(detail::as_argument(args)...); };
}

}  // namespace jaxcc
