// lax::while_loop: body_fun applied while cond_fun holds, both traced once
// into programs, so the loop is one equation whatever its trip count. Its
// JVP is a while loop carrying tangents beside the primals; reverse mode is
// not defined (the trip count is not known before running), as in JAX.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/lax/control_flow_common.hpp"

namespace jaxcc::detail {

std::vector<AnyArray> bind_while(Body cond, std::span<AnyArray const> cond_consts, Body body,
                                 std::span<AnyArray const> body_consts, std::span<AnyArray const> init);

/// The while primitive: operands the cond program's consts, the body
/// program's consts, then the initial carry; outputs the final carry.
class WhileCall final : public graph::PrimitiveBase, public std::enable_shared_from_this<WhileCall> {
 public:
  WhileCall(graph::Program cond, std::size_t cond_nconsts, graph::Program body, std::size_t body_nconsts)
      : cond_(std::move(cond)), body_(std::move(body)), cond_nconsts_(cond_nconsts), body_nconsts_(body_nconsts) {}
  std::string_view name() const override { return "while"; }
  std::string params_string() const override { return {}; }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    auto const avals = output_avals(body_);
    return graph::apply(shared_from_this(), inputs, avals, [&] { return run_steps(inputs); });
  }

  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const> primals, std::span<graph::MaybeArray const> tangents,
                                     std::span<AnyArray const>) const override {
    auto const ncc = cond_nconsts_, nbc = body_nconsts_;
    auto const ncarry = primals.size() - ncc - nbc;
    // Tangents of the body's inputs (its consts, then the carry).
    std::vector<bool> nonzero(nbc + ncarry);
    for (std::size_t i = 0; i < nonzero.size(); ++i)
      nonzero[i] = tangents[ncc + i] && is_float_dtype(primals[ncc + i].dtype());
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
                                     std::span<AnyArray const>) const override {
    throw Error(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop "
        "values. Try using lax.scan, or using fori_loop with static start/stop.");
  }

  void print(graph::JaxprWriter& w, std::span<std::string const> inputs,
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
    while (graph::run(cond_, with_carry(cond_args, cond_nconsts_))[0].as<bool>().item())
      carry = graph::run(body_, with_carry(body_args, body_nconsts_));
    return carry;
  }

  graph::Program cond_, body_;
  std::size_t cond_nconsts_, body_nconsts_;
};

/// Apply a while loop; each program's closed-over values go first among its consts.
inline std::vector<AnyArray> bind_while(Body cond, std::span<AnyArray const> cond_consts, Body body,
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
