// lax::cond: both branches traced once into programs taking the same
// operands, one equation choosing between them at run time. Its JVP and VJP
// are conds of the branches' JVPs and VJPs (each recomputing its forward
// pass); the predicate takes no derivative. Batched with the same branch
// for every example, it is a cond of the batched branches; with a mapped
// predicate, every branch runs on the whole batch and each example's result
// is selected, as JAX does. lax::select is the elementwise choice (jnp.where's
// primitive, batched as any elementwise one).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/lax/control_flow_common.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/primitives/bits/install_value_ops.hpp"
#include "jaxcc/primitives/stop_gradient.hpp"

namespace jaxcc::detail {

template <class = void>
std::vector<AnyArray> bind_cond(Array<std::int32_t> const& index, std::vector<Body> branches, std::span<AnyArray const> args);

/// The VJP of a program, as a body: inputs are the program's inputs, then
/// the cotangents of the outputs marked in `nonzero_ct`; outputs are the
/// inputs' cotangents that are not symbolic zeros or that `instantiate`
/// asks for (`nonzero_out` says which). Integer inputs take none.
inline JvpBody vjp_body(graph::Program const& p, std::vector<bool> const& nonzero_ct, std::vector<bool> const& instantiate) {
  auto const in_avals = input_avals(p);
  auto const out_avals = output_avals(p);
  auto arguments = in_avals;
  for (std::size_t o = 0; o < out_avals.size(); ++o)
    if (nonzero_ct[o]) arguments.push_back(out_avals[o]);
  std::vector<bool> nonzero_out(in_avals.size());
  auto const fn = [&](std::vector<AnyArray> const& args) {
    std::span<AnyArray const> const inputs(args.data(), in_avals.size());
    std::vector<graph::MaybeArray> cts(out_avals.size());
    for (std::size_t o = 0, k = in_avals.size(); o < out_avals.size(); ++o)
      if (nonzero_ct[o]) cts[o] = args[k++];
    auto const in_cts = graph::program_vjp(p, inputs, cts);
    std::vector<AnyArray> result;
    for (std::size_t i = 0; i < in_avals.size(); ++i) {
      nonzero_out[i] = has_tangent_space(in_avals[i].dtype) && (in_cts[i].has_value() || instantiate[i]);
      if (nonzero_out[i]) result.push_back(instantiate_zeros(in_cts[i], in_avals[i]));
    }
    return result;
  };
  auto body = trace_body(fn, arguments);
  return {std::move(body), std::move(nonzero_out)};
}

/// Derived bodies of every branch whose outputs agree: traced once each,
/// then again where a branch lacks an output (a symbolic zero, an unmapped
/// value) that another has. `derive(branch, instantiate)` returns a JvpBody
/// or a BatchedBody: the body, then which outputs it has.
template <class Derive>
std::pair<std::vector<Body>, std::vector<bool>> unified_bodies(std::vector<graph::Program> const& branches,
                                                                std::size_t num_outputs, Derive const& derive) {
  std::vector<bool> const none(num_outputs, false);
  std::vector<std::pair<Body, std::vector<bool>>> derived;
  std::vector<bool> any(num_outputs, false);
  for (auto const& b : branches) {
    auto [body, has] = derive(b, none);
    for (std::size_t o = 0; o < num_outputs; ++o) any[o] = any[o] || has[o];
    derived.emplace_back(std::move(body), std::move(has));
  }
  std::vector<Body> bodies;
  for (std::size_t k = 0; k < branches.size(); ++k)
    bodies.push_back(derived[k].second == any ? std::move(derived[k].first) : derive(branches[k], any).body);
  return {std::move(bodies), std::move(any)};
}

// A class template only so that a file that never applies it compiles
// none of it (docs/compile_cost.md, "What a file compiles").
template <class = void>
class CondCallT;
using CondCall = CondCallT<>;

/// The cond primitive: operands the branch index (int32, clamped), the
/// values the branches close over, then the operands; branches in index
/// order (false, then true).
template <class>
class CondCallT final : public graph::CallPrimitive<CondCallT<>> {
 public:
  explicit CondCallT(std::vector<graph::Program> branches) : branches_(std::move(branches)) {}
  std::string_view name() const override { return "cond"; }
  std::vector<graph::Program const*> called() const override {
    std::vector<graph::Program const*> programs;
    for (auto const& b : branches_) programs.push_back(&b);
    return programs;
  }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    auto const avals = output_avals(branches_[0]);
    return this->apply(inputs, avals, [&] {
      auto const last = static_cast<std::int32_t>(branches_.size()) - 1;
      auto const index = std::clamp(inputs[0].as<std::int32_t>().item(), 0, last);
      return graph::run(branches_[static_cast<std::size_t>(index)], inputs.subspan(1));
    });
  }

  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const> primals, std::span<graph::MaybeArray const> tangents,
                                     std::span<AnyArray const> outputs) const override {
    auto const operands = primals.subspan(1);
    std::vector<bool> nonzero(operands.size());
    for (std::size_t k = 0; k < operands.size(); ++k) nonzero[k] = tangents[k + 1] && has_tangent_space(operands[k].dtype());
    std::vector<graph::MaybeArray> result(outputs.size());
    if (count_true(nonzero) == 0) return result;
    std::array const in_groups{operands.size()};
    std::array const out_groups{outputs.size()};
    auto [bodies, out_nonzero] = unified_bodies(branches_, outputs.size(), [&](graph::Program const& b, std::vector<bool> const& inst) {
      return jvp_body(b, in_groups, nonzero, out_groups, inst, false);
    });
    std::vector<AnyArray> args(operands.begin(), operands.end());
    for (std::size_t k = 0; k < operands.size(); ++k)
      if (nonzero[k]) args.push_back(*tangents[k + 1]);
    auto const outs = bind_cond(primals[0].as<std::int32_t>(), std::move(bodies), args);
    for (std::size_t o = 0, k = 0; o < outputs.size(); ++o)
      if (out_nonzero[o]) result[o] = outs[k++];
    return result;
  }

  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const>, graph::Wanted) const override {
    auto const operands = primals.subspan(1);
    std::vector<bool> nonzero_ct(cotangents.size());
    for (std::size_t o = 0; o < cotangents.size(); ++o)
      nonzero_ct[o] = cotangents[o] && has_tangent_space(cotangents[o]->dtype());
    auto [bodies, in_nonzero] = unified_bodies(branches_, operands.size(), [&](graph::Program const& b, std::vector<bool> const& inst) {
      return vjp_body(b, nonzero_ct, inst);
    });
    std::vector<AnyArray> args(operands.begin(), operands.end());
    for (std::size_t o = 0; o < cotangents.size(); ++o)
      if (nonzero_ct[o]) args.push_back(*cotangents[o]);
    auto const outs = bind_cond(primals[0].as<std::int32_t>(), std::move(bodies), args);
    std::vector<graph::MaybeArray> result(primals.size());  // the index takes none
    for (std::size_t k = 0, n = 0; k < operands.size(); ++k)
      if (in_nonzero[k]) result[k + 1] = outs[n++];
    return result;
  }

  /// JAX's _cond_batching_rule.
  graph::Batched batch(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                       graph::AxisData const& axis) const override {
    if (dims[0]) return batch_mapped_index(inputs, dims, axis);
    // One cond for the whole batch: branches batched alike, their outputs
    // mapped where any branch's is.
    std::vector<AnyArray> ops;
    std::vector<graph::BatchDim> op_dims;
    for (std::size_t k = 1; k < inputs.size(); ++k) {
      ops.push_back(dims[k] ? mapped_at(inputs[k], dims[k], 0, axis.size) : inputs[k]);
      op_dims.push_back(dims[k] ? graph::BatchDim(0) : graph::not_mapped);
    }
    auto const num_outputs = branches_[0].outputs.size();
    auto [bodies, out_mapped] = unified_bodies(branches_, num_outputs, [&](graph::Program const& b, std::vector<bool> const& inst) {
      return batched_body(b, op_dims, inst, axis);
    });
    return {bind_cond(inputs[0].as<std::int32_t>(), std::move(bodies), ops), front_dims(out_mapped)};
  }

  void print(graph::JaxprSink& w, std::span<std::string const> inputs,
             std::span<graph::VarPtr const> outputs) const override {
    print_call(w, "cond", inputs, outputs, [&] {
      std::vector<std::string> programs;
      for (auto const& b : branches_) programs.push_back(program_text(w, b));
      std::string flat = "branches=(";
      for (std::size_t i = 0; i < programs.size(); ++i) flat.append(i ? " " : "").append(programs[i]);
      flat += ")";
      // The parameter sits 6 columns in when the equation's are broken onto lines.
      if (flat.find('\n') == std::string::npos && flat.size() + 6 <= 80) return std::vector<std::string>{flat};
      std::string broken = "branches=(";
      for (auto const& p : programs) broken.append("\n  ").append(indented(p, 2));
      return std::vector<std::string>{broken + "\n)"};
    });
  }

 private:
  /// Every branch on the whole batch, then each example's output selected by
  /// its (clamped) index. Each branch sees its operands through a select
  /// that stops their gradient for the examples it does not take, so that
  /// its derivative there (possibly nan) is dropped rather than multiplied
  /// by zero (jax#1052).
  graph::Batched batch_mapped_index(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                                    graph::AxisData const& axis) const {
    graph::install_value_ops<ControlFlowBatchingOps>();
    auto const last = static_cast<std::int32_t>(branches_.size()) - 1;
    AnyArray const index = graph::values::clamp(mapped_at(inputs[0], dims[0], 0, axis.size), 0, last);
    std::vector<AnyArray> ops;
    for (std::size_t k = 1; k < inputs.size(); ++k) ops.push_back(mapped_at(inputs[k], dims[k], 0, axis.size));
    std::vector<graph::BatchDim> const op_dims(ops.size(), 0);
    std::vector<AnyArray> out;
    for (std::size_t b = 0; b < branches_.size(); ++b) {
      Array<bool> const taken = graph::values::equals(index, static_cast<std::int64_t>(b));
      std::vector<AnyArray> guarded;
      for (auto const& x : ops)
        guarded.push_back(has_tangent_space(x.dtype())
                              ? select_mapped(taken, x, graph::values::stop_gradient(x))
                              : x);
      auto const branch = graph::batch_program(branches_[b], guarded, op_dims, axis);
      for (std::size_t o = 0; o < branch.values.size(); ++o) {
        auto const value = mapped_at(branch.values[o], branch.dims[o], 0, axis.size);
        if (b == 0) out.push_back(value);
        else out[o] = select_mapped(taken, value, out[o]);
      }
    }
    return {std::move(out), std::vector<graph::BatchDim>(branches_[0].outputs.size(), 0)};
  }

  std::vector<graph::Program> branches_;
};

/// Apply a cond. Each branch's program gets the same inputs: the union of
/// what the branches close over (one input per closed-over value), then args.
template <class>
std::vector<AnyArray> bind_cond(Array<std::int32_t> const& index, std::vector<Body> branches,
                                       std::span<AnyArray const> args) {
  std::vector<AnyArray> consts;
  auto const find = [](std::vector<AnyArray> const& in, AnyArray const& x) {
    return std::find_if(in.begin(), in.end(), [&](AnyArray const& y) { return graph::var_of(y) == graph::var_of(x); });
  };
  for (auto const& b : branches)
    for (auto const& c : b.consts)
      if (find(consts, c) == consts.end()) consts.push_back(c);
  std::vector<graph::Program> programs;
  for (auto& b : branches) {
    auto& trace = *b.program.trace;
    std::vector<graph::VarPtr> inputs;
    for (auto const& c : consts) {
      auto const it = find(b.consts, c);
      inputs.push_back(it != b.consts.end() ? trace.inputs[static_cast<std::size_t>(it - b.consts.begin())]
                                            : trace.new_var(c.dtype(), c.shape()));
    }
    inputs.insert(inputs.end(), trace.inputs.begin() + static_cast<std::ptrdiff_t>(b.consts.size()), trace.inputs.end());
    trace.inputs = std::move(inputs);
    programs.push_back(std::move(b.program));
  }
  std::vector<AnyArray> operands{AnyArray(index)};
  operands.insert(operands.end(), consts.begin(), consts.end());
  operands.insert(operands.end(), args.begin(), args.end());
  auto call = std::make_shared<CondCall const>(std::move(programs));
  return call->evaluate(operands);
}

/// The predicate as a rank-0 bool array (numbers compare with 0, as JAX's do).
template <class Pred>
Array<bool> cond_predicate(Pred const& pred) {
  if constexpr (Scalar<Pred>) {
    return detail::rank0_array(static_cast<bool>(pred));
  } else {
    auto const p = as_array(pred);
    if (p.ndim() != 0) {
      std::ostringstream os;
      os << "Pred must be a scalar, got ";
      if (p.is_traced()) os << "Traced<" << aval_string(graph::aval_of(AnyArray(p))) << ">";
      else os << p;
      os << " of shape " << p.shape() << ".";
      throw Error(os.str());
    }
    if constexpr (std::same_as<value_type_t<Pred>, bool>) return p;
    else return Array<bool>(p != value_type_t<Pred>{0});
  }
}

/// JAX's _check_branch_outputs: `api` names the caller (cond, switch),
/// `name1` and `name2` the branches.
template <class TrueOut, class FalseOut>
void check_branch_outputs(TrueOut const& true_out, FalseOut const& false_out, std::string const& api = "cond",
                          std::string const& name1 = "true_fun", std::string const& name2 = "false_fun") {
  auto const true_def = tree::structure(true_out);
  auto const false_def = tree::structure(false_out);
  if (!(true_def == false_def))
    throw Error(api + " branch outputs must have the same pytree structure, but they differ:\n\n" + name1 +
                " output is " + true_def.to_string() + " but " + name2 + " output is " + false_def.to_string() +
                ".\n\nRevise " + name1 + " and/or " + name2 + " so that they have the same pytree structure.");
  auto const a = array_leaves(true_out);
  auto const b = array_leaves(false_out);
  auto const paths = leaf_paths(true_out);
  std::vector<std::string> diffs;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto const x = graph::aval_of(a[i]);
    auto const y = graph::aval_of(b[i]);
    if (same_type(x, y)) continue;
    auto const at = paths[i].empty() ? std::string() : " at path " + tree::keystr(paths[i]);
    diffs.push_back("the output of " + name1 + at + " has type " + aval_string(x) + " but the corresponding output of " +
                    name2 + " has type " + aval_string(y) + mismatch_extra(x, y));
  }
  if (diffs.empty()) return;
  std::string list;
  if (diffs.size() == 1) {
    list = capitalized(diffs[0]) + ".\n";
  } else {
    for (std::size_t i = 0; i + 1 < diffs.size(); ++i) list += (i ? "\n  * " : "  * ") + diffs[i] + ";";
    list += "\n  * " + diffs.back() + ".\n";
  }
  throw Error(api + " branches must have equal output types but they differ.\n\n" + list + "\nRevise " + name1 +
              " and/or " + name2 + " so that all output types match.");
}


/// lax.switch's index: a rank-0 integer, as int32 clamped into [0, n - 1].
template <class Index>
Array<std::int32_t> switch_index(Index const& index, std::size_t n) {
  if constexpr (Scalar<Index>) {
    static_assert(std::integral<Index> && !std::same_as<Index, bool>, "lax::switch_: Index type must be an integer");
    auto const hi = static_cast<std::int64_t>(n) - 1;
    return rank0_array<std::int32_t>(static_cast<std::int32_t>(std::clamp<std::int64_t>(index, 0, hi)));
  } else {
    using I = value_type_t<Index>;
    static_assert(std::integral<I> && !std::same_as<I, bool>, "lax::switch_: Index type must be an integer");
    auto const i = as_array(index);
    if (i.ndim() != 0) {
      std::ostringstream os;
      os << "Branch index must be scalar, got ";
      if (i.is_traced()) os << "Traced<" << aval_string(graph::aval_of(AnyArray(i))) << ">";
      else os << i;
      os << " of shape " << i.shape() << ".";
      throw Error(os.str());
    }
    Array<std::int32_t> const as32 = i.template astype<std::int32_t>();
    auto const hi = static_cast<std::int32_t>(n - 1);
    return Array<std::int32_t>(binary<primitives::min_p>(binary<primitives::max_p>(as32, std::int32_t{0}), hi));
  }
}

/// One traced branch of a switch: its body and its output tree.
template <class F, class... Args>
auto switch_branch(F const& f, std::tuple<Args...> const& args, std::vector<graph::Aval> const& avals) {
  FlatCall<F, Args...> call(f, args);
  auto body = trace_body(call, avals);
  auto out = call.unflatten_output(body.program.outputs);
  return std::pair{std::move(body), std::move(out)};
}

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.cond: `true_fun(operands...)` if pred else `false_fun(operands...)`.
/// pred is a rank-0 bool (or number) Array or a C++ bool. Both branches are
/// traced, and must return the same pytree structure, shapes and dtypes;
/// only the chosen one runs.
template <class Pred, class TrueFun, class FalseFun, class... Operands>
auto cond(Pred const& pred, TrueFun const& true_fun, FalseFun const& false_fun, Operands const&... operands) {
  auto const p = detail::cond_predicate(pred);
  std::tuple<std::remove_cvref_t<decltype(detail::as_argument(operands))>...> const args{detail::as_argument(operands)...};
  detail::FlatCall<TrueFun, std::remove_cvref_t<decltype(detail::as_argument(operands))>...> on_true(true_fun, args);
  detail::FlatCall<FalseFun, std::remove_cvref_t<decltype(detail::as_argument(operands))>...> on_false(false_fun, args);
  auto const leaves = on_true.argument_leaves();
  auto const avals = detail::avals_of(leaves);
  auto true_body = detail::trace_body(on_true, avals);
  auto false_body = detail::trace_body(on_false, avals);
  auto const true_out = on_true.unflatten_output(true_body.program.outputs);
  detail::check_branch_outputs(true_out, on_false.unflatten_output(false_body.program.outputs));
  std::vector<detail::Body> branches;
  branches.push_back(std::move(false_body));
  branches.push_back(std::move(true_body));
  auto const outs = detail::bind_cond(p.template astype<std::int32_t>(), std::move(branches), leaves);
  return on_true.unflatten_output(outs);
}

/// lax.switch (named switch_: `switch` is a C++ keyword): branches[index](operands...),
/// index clamped into range. `branches` is a std::vector of one callable
/// type (e.g. std::function) or a std::tuple of callables. All branches are
/// traced and must return the same pytree structure, shapes and dtypes;
/// only the chosen one runs. A tuple of one branch simply calls it.
template <class Index, class F, class... Operands>
auto switch_(Index const& index, std::vector<F> const& branches, Operands const&... operands) {
  if (branches.empty()) throw Error("Empty branch sequence");
  auto const i = detail::switch_index(index, branches.size());
  std::tuple<std::remove_cvref_t<decltype(detail::as_argument(operands))>...> const args{detail::as_argument(operands)...};
  detail::FlatCall<F, std::remove_cvref_t<decltype(detail::as_argument(operands))>...> first(branches[0], args);
  auto const leaves = first.argument_leaves();
  auto const avals = detail::avals_of(leaves);
  std::vector<detail::Body> bodies;
  bodies.push_back(detail::trace_body(first, avals));
  auto const out0 = first.unflatten_output(bodies[0].program.outputs);
  for (std::size_t k = 1; k < branches.size(); ++k) {
    auto [body, out] = detail::switch_branch(branches[k], args, avals);
    detail::check_branch_outputs(out0, out, "switch", "branch 0", "branch" + std::to_string(k));
    bodies.push_back(std::move(body));
  }
  return first.unflatten_output(detail::bind_cond(i, std::move(bodies), leaves));
}
template <class Index, class... Fs, class... Operands>
  requires(sizeof...(Fs) > 0)
auto switch_(Index const& index, std::tuple<Fs...> const& branches, Operands const&... operands) {
  if constexpr (sizeof...(Fs) == 1) {
    return std::get<0>(branches)(operands...);
  } else {
    auto const i = detail::switch_index(index, sizeof...(Fs));
    std::tuple<std::remove_cvref_t<decltype(detail::as_argument(operands))>...> const args{
        detail::as_argument(operands)...};
    using F0 = std::tuple_element_t<0, std::tuple<Fs...>>;
    detail::FlatCall<F0, std::remove_cvref_t<decltype(detail::as_argument(operands))>...> first(std::get<0>(branches),
                                                                                               args);
    auto const leaves = first.argument_leaves();
    auto const avals = detail::avals_of(leaves);
    std::vector<detail::Body> bodies;
    bodies.push_back(detail::trace_body(first, avals));
    auto const out0 = first.unflatten_output(bodies[0].program.outputs);
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      auto one = [&](auto const& f, std::size_t k) {
        auto [body, out] = detail::switch_branch(f, args, avals);
        detail::check_branch_outputs(out0, out, "switch", "branch 0", "branch" + std::to_string(k));
        bodies.push_back(std::move(body));
      };
      (one(std::get<K + 1>(branches), K + 1), ...);
    }(std::make_index_sequence<sizeof...(Fs) - 1>{});
    return first.unflatten_output(detail::bind_cond(i, std::move(bodies), leaves));
  }
}

}  // namespace jaxcc::lax
