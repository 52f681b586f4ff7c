// lax::while_loop: body_fun applied while cond_fun holds, both traced once
// into programs, so the loop is one equation whatever its trip count. Its
// JVP is a while loop carrying tangents beside the primals; reverse mode is
// not defined (the trip count is not known before running), as in JAX.
// Batched, it is one while loop of the batched programs; when the predicate
// differs between examples, the loop runs while any example's holds, and
// the examples whose predicate fails keep their carry.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/lax/control_flow_common.hpp"
#include "jaxcc/primitives/bits/install_value_ops.hpp"

namespace jaxcc::detail {

template <class = void>
std::vector<AnyArray> bind_while(Body cond, std::span<AnyArray const> cond_consts, Body body,
                                 std::span<AnyArray const> body_consts, std::span<AnyArray const> init);

// A class template only so that a file that never applies it compiles
// none of it (docs/compile_cost.md, "What a file compiles").
template <class = void>
class WhileCallT;
using WhileCall = WhileCallT<>;

/// The while primitive: operands the cond program's consts, the body
/// program's consts, then the initial carry; outputs the final carry.
template <class>
class WhileCallT final : public graph::CallPrimitive<WhileCallT<>> {
 public:
  WhileCallT(graph::Program cond, std::size_t cond_nconsts, graph::Program body, std::size_t body_nconsts)
      : cond_(std::move(cond)), body_(std::move(body)), cond_nconsts_(cond_nconsts), body_nconsts_(body_nconsts) {}
  std::string_view name() const override { return "while"; }
  std::vector<graph::Program const*> called() const override { return {&cond_, &body_}; }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    auto const avals = output_avals(body_);
    return this->apply(inputs, avals, [&] { return run_steps(inputs); });
  }

  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const> primals, std::span<graph::MaybeArray const> tangents,
                                     std::span<AnyArray const>) const override {
    auto const ncc = cond_nconsts_, nbc = body_nconsts_;
    auto const ncarry = primals.size() - ncc - nbc;
    // Tangents of the body's inputs (its consts, then the carry).
    std::vector<bool> nonzero(nbc + ncarry);
    for (std::size_t i = 0; i < nonzero.size(); ++i)
      nonzero[i] = tangents[ncc + i] && has_tangent_space(primals[ncc + i].dtype());
    if (count_true(nonzero) == 0) return std::vector<graph::MaybeArray>(ncarry);
    std::array const in_groups{nbc, ncarry};
    std::array const out_groups{ncarry};
    auto jvp = loop_jvp_body(body_, in_groups, nonzero, nbc, ncarry, out_groups);

    // The predicate reads the primal carry and ignores the tangents.
    auto const cond_in = input_avals(cond_);
    auto cond_avals = cond_in;
    for (std::size_t i = 0; i < ncarry; ++i)
      if (nonzero[nbc + i]) cond_avals.push_back(cond_in[ncc + i]);
    auto cond = trace_body(
        [&](std::vector<AnyArray> const& args) {
          return graph::run(cond_, std::span(args).first(ncc + ncarry));
        },
        cond_avals);

    auto const primal = [&](std::size_t i) { return primals.begin() + static_cast<std::ptrdiff_t>(i); };
    std::vector<AnyArray> body_consts(primal(ncc), primal(ncc + nbc));
    std::vector<AnyArray> init(primal(ncc + nbc), primals.end());
    for (std::size_t i = 0; i < nbc + ncarry; ++i)
      if (nonzero[i]) (i < nbc ? body_consts : init).push_back(instantiate_zeros(tangents[ncc + i], primals[ncc + i]));
    auto const outs = bind_while(std::move(cond), primals.first(ncc), std::move(jvp.body), body_consts, init);
    std::vector<graph::MaybeArray> result(ncarry);
    std::size_t k = ncarry;
    for (std::size_t i = 0; i < ncarry; ++i)
      if (nonzero[nbc + i]) result[i] = outs[k++];
    return result;
  }

  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const>, std::span<AnyArray const>,
                                     std::span<AnyArray const>, graph::Wanted) const override {
    throw Error(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop "
        "values. Try using lax.scan, or using fori_loop with static start/stop.");
  }

  /// JAX's _while_loop_batching_rule, with its lowering of a mapped
  /// predicate (reduce_or to decide, a select per carry in the body).
  graph::Batched batch(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                       graph::AxisData const& axis) const override {
    graph::install_value_ops<ControlFlowBatchingOps>();
    auto const ncc = cond_nconsts_, nbc = body_nconsts_;
    auto const ncarry = inputs.size() - ncc - nbc;
    auto const cond_consts = inputs.first(ncc);
    auto const body_consts = inputs.subspan(ncc, nbc);
    auto const init = inputs.subspan(ncc + nbc);
    std::vector<bool> carry_mapped(ncarry);
    for (std::size_t i = 0; i < ncarry; ++i) carry_mapped[i] = dims[ncc + nbc + i].has_value();
    // The consts keep their mapped axes; a mapped carry has its at 0.
    auto const program_dims = [&](std::size_t nconsts_from, std::size_t nconsts) {
      std::vector<graph::BatchDim> d(dims.begin() + static_cast<std::ptrdiff_t>(nconsts_from),
                                     dims.begin() + static_cast<std::ptrdiff_t>(nconsts_from + nconsts));
      for (bool m : carry_mapped) d.push_back(m ? graph::BatchDim(0) : graph::not_mapped);
      return d;
    };
    // A carry mapped on the way out must be mapped on the way in.
    auto body = batched_body(body_, program_dims(ncc, nbc), carry_mapped, axis);
    for (;;) {
      bool grew = false;
      for (std::size_t i = 0; i < ncarry; ++i)
        if (body.out_mapped[i] && !carry_mapped[i]) carry_mapped[i] = grew = true;
      if (!grew) break;
      body = batched_body(body_, program_dims(ncc, nbc), carry_mapped, axis);
    }
    auto cond = batched_body(cond_, program_dims(0, ncc), {false}, axis);
    if (!cond.out_mapped[0]) {
      std::vector<AnyArray> carry;
      for (std::size_t i = 0; i < ncarry; ++i)
        carry.push_back(carry_mapped[i] ? mapped_at(init[i], dims[ncc + nbc + i], 0, axis.size) : init[i]);
      return {bind_while(std::move(cond.body), cond_consts, std::move(body.body), body_consts, carry), front_dims(carry_mapped)};
    }
    // Examples leave the loop at different steps: every carry is mapped.
    std::vector<AnyArray> carry;
    for (std::size_t i = 0; i < ncarry; ++i) carry.push_back(mapped_at(init[i], dims[ncc + nbc + i], 0, axis.size));
    carry_mapped.assign(ncarry, true);
    auto const cond_dims = program_dims(0, ncc);
    auto const body_dims = program_dims(ncc, nbc);
    // The predicate per example, as (batch,) bools: from cond consts, then the carry.
    auto const predicate = [&](std::span<AnyArray const> cond_inputs) {
      auto const pred = graph::batch_program(cond_, cond_inputs, cond_dims, axis);
      return mapped_at(pred.values[0], pred.dims[0], 0, axis.size).template as<bool>();
    };
    std::vector<graph::Aval> cond_avals = avals_of(cond_consts);
    for (auto const& c : carry) cond_avals.push_back(graph::aval_of(c));
    auto any_holds = trace_body(
        [&](std::vector<AnyArray> const& args) { return std::vector<AnyArray>{graph::values::any(predicate(args), 0)}; },
        cond_avals);
    // The step's inputs: cond consts, body consts, then the carry.
    std::vector<AnyArray> step_consts(cond_consts.begin(), cond_consts.end());
    step_consts.insert(step_consts.end(), body_consts.begin(), body_consts.end());
    std::vector<graph::Aval> step_avals = avals_of(step_consts);
    for (auto const& c : carry) step_avals.push_back(graph::aval_of(c));
    auto step = trace_body(
        [&](std::vector<AnyArray> const& args) {
          std::span<AnyArray const> const all(args);
          auto const old_carry = all.subspan(ncc + nbc);
          std::vector<AnyArray> cond_inputs(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(ncc));
          cond_inputs.insert(cond_inputs.end(), old_carry.begin(), old_carry.end());
          auto const holds = predicate(cond_inputs);
          auto const next = graph::batch_program(body_, all.subspan(ncc), body_dims, axis);
          std::vector<AnyArray> out;
          for (std::size_t i = 0; i < ncarry; ++i)
            out.push_back(select_mapped(holds, mapped_at(next.values[i], next.dims[i], 0, axis.size), old_carry[i]));
          return out;
        },
        step_avals);
    return {bind_while(std::move(any_holds), cond_consts, std::move(step), step_consts, carry), front_dims(carry_mapped)};
  }

  void print(graph::JaxprSink& w, std::span<std::string const> inputs,
             std::span<graph::VarPtr const> outputs) const override {
    print_call(w, "while", inputs, outputs, [&] {
      auto body = "body_jaxpr=" + program_text(w, body_);
      auto cond = "cond_jaxpr=" + program_text(w, cond_);
      return std::vector<std::string>{std::move(body), "body_nconsts=" + std::to_string(body_nconsts_), std::move(cond),
                                      "cond_nconsts=" + std::to_string(cond_nconsts_)};
    });
  }

 private:

  /// Concrete execution: the predicate and the body run once per step.
  std::vector<AnyArray> run_steps(std::span<AnyArray const> inputs) const {
    auto const consts_end = inputs.begin() + static_cast<std::ptrdiff_t>(cond_nconsts_);
    std::vector<AnyArray> cond_args(inputs.begin(), consts_end);
    std::vector<AnyArray> body_args(consts_end, consts_end + static_cast<std::ptrdiff_t>(body_nconsts_));
    std::vector<AnyArray> carry(consts_end + static_cast<std::ptrdiff_t>(body_nconsts_), inputs.end());
    auto const with_carry = [&carry](std::vector<AnyArray>& args, std::size_t nconsts) -> std::vector<AnyArray> const& {
      args.resize(nconsts);
      args.insert(args.end(), carry.begin(), carry.end());
      return args;
    };
    while (graph::run(cond_, with_carry(cond_args, cond_nconsts_))[0].template as<bool>().item())
      carry = graph::run(body_, with_carry(body_args, body_nconsts_));
    return carry;
  }

  graph::Program cond_, body_;
  std::size_t cond_nconsts_, body_nconsts_;
};

/// Apply a while loop; each program's closed-over values go first among its consts.
template <class>
std::vector<AnyArray> bind_while(Body cond, std::span<AnyArray const> cond_consts, Body body,
                                        std::span<AnyArray const> body_consts, std::span<AnyArray const> init) {
  auto operands = std::move(cond.consts);
  operands.insert(operands.end(), cond_consts.begin(), cond_consts.end());
  auto const cond_nconsts = operands.size();
  operands.insert(operands.end(), body.consts.begin(), body.consts.end());
  operands.insert(operands.end(), body_consts.begin(), body_consts.end());
  auto const body_nconsts = operands.size() - cond_nconsts;
  operands.insert(operands.end(), init.begin(), init.end());
  auto call = std::make_shared<WhileCall const>(std::move(cond.program), cond_nconsts, std::move(body.program), body_nconsts);
  return call->evaluate(operands);
}

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.while_loop: `val = init_val; while (cond_fun(val)) val = body_fun(val);`
/// cond_fun returns a boolean scalar; body_fun keeps the carry's structure,
/// shapes and dtypes. Forward-mode differentiable; reverse mode raises.
template <class CondFun, class BodyFun, class Init>
auto while_loop(CondFun const& cond_fun, BodyFun const& body_fun, Init const& init_val) {
  auto const init_value = detail::as_loop_value(init_val);
  using Value = std::remove_cvref_t<decltype(init_value)>;
  auto const init_leaves = detail::array_leaves(init_value);
  auto const avals = detail::avals_of(init_leaves);

  auto const cond_fn = [&cond_fun](Value const& v) { return detail::as_loop_value(cond_fun(v)); };
  detail::FlatCall<decltype(cond_fn), Value> cond_flat(cond_fn, std::tuple<Value>{init_value});
  auto cond = detail::trace_body(cond_flat, avals);
  auto const& pred = cond.program.outputs;
  if (pred.size() != 1)
    throw Error("cond_fun must return a boolean scalar, but got pytree " +
                tree::structure(cond_flat.unflatten_output(pred)).to_string() + ".");
  if (pred[0].dtype() != DType::bool_ || pred[0].ndim() != 0)
    throw Error("cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(" +
                detail::aval_string(graph::aval_of(pred[0])) + ")].");

  auto const body_fn = [&body_fun](Value const& v) { return detail::as_loop_value(body_fun(v)); };
  detail::FlatCall<decltype(body_fn), Value> body_flat(body_fn, std::tuple<Value>{init_value});
  auto body = detail::trace_body(body_flat, avals);
  detail::check_carry_type("while_loop body", init_value, body_flat.unflatten_output(body.program.outputs));

  auto const outs = detail::bind_while(std::move(cond), {}, std::move(body), {}, init_leaves);
  std::size_t next = 0;
  return detail::with_array_leaves(init_value, outs, next);
}

}  // namespace jaxcc::lax
