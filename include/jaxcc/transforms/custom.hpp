// User-supplied derivative rules: jaxcc::custom_vjp(f, fwd, bwd) and
// jaxcc::custom_jvp(f, jvp_rule), as jax.custom_vjp / jax.custom_jvp.
//
//   fwd(args...)         -> std::pair{out, residuals}   (residuals: any pytree)
//   bwd(residuals, ct)   -> std::tuple of cotangents, one per argument
//   jvp_rule(std::tuple{primals...}, std::tuple{tangents...})
//                        -> std::pair{out, tangent_out}
//
// Under a transform the call is one equation carrying the traced function;
// its derivative rules call the user's. A custom_jvp function's VJP is the
// pullback of its (linear) tangent map, computed by reverse mode over the
// user's jvp_rule. Batched, the call stays one equation (BatchedCall) whose
// derivative rules are the user's, traced per example and batched: vmap of
// grad and grad of vmap both differentiate by the user's rule.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/graph/call_primitive.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/graph/value_ops.hpp"
#include "jaxcc/lax/control_flow_common.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/primitives/bits/install_value_ops.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/transforms/vjp.hpp"

namespace jaxcc {

namespace detail {

template <class = void>
graph::Batched batch_call(std::shared_ptr<graph::PrimitiveBase const> inner, bool instantiate,
                          std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                          graph::AxisData const& axis);

// A class template only so that a file that never applies it compiles
// none of it (docs/compile_cost.md, "What a file compiles").
template <class = void>
class BatchedCallT;
using BatchedCall = BatchedCallT<>;

/// A call primitive batched as a whole, keeping its derivative rules: it
/// runs as its program batched, and its JVP and VJP are the inner call's,
/// traced on one example and then run on the batch (JAX batches a
/// custom_vjp's fwd and bwd, a custom_jvp's rule). Operands are the batched
/// program's consts, then the inner call's operands.
template <class>
class BatchedCallT final : public graph::CallPrimitive<BatchedCallT<>> {
 public:
  /// `out_mapped`: which outputs are mapped (at axis 0); with `instantiate`
  /// all are, as JAX's custom_jvp makes them so that tangents fit.
  BatchedCallT(std::shared_ptr<graph::PrimitiveBase const> inner, graph::Program program, std::vector<graph::BatchDim> in_dims,
              std::vector<bool> out_mapped, bool instantiate, graph::AxisData axis)
      : inner_(std::move(inner)), program_(std::move(program)), in_dims_(std::move(in_dims)),
        out_mapped_(std::move(out_mapped)), instantiate_(instantiate), axis_(std::move(axis)) {}
  std::string_view name() const override { return inner_->name(); }
  std::vector<graph::Program const*> called() const override { return {&program_}; }
  graph::Program const* subprogram() const override { return &program_; }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    return this->apply(inputs, output_avals(program_), [&] { return graph::run(program_, inputs); });
  }

  /// The inner JVP on one example, batched; tangents are mapped as their primals.
  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const> primals, std::span<graph::MaybeArray const> tangents,
                                     std::span<AnyArray const> outputs) const override {
    auto const nconsts = primals.size() - inner_inputs();
    std::vector<std::size_t> with_tangent;
    for (auto i = nconsts; i < primals.size(); ++i)
      if (tangents[i]) with_tangent.push_back(i - nconsts);
    auto const in_avals = input_avals(*inner_->subprogram());
    std::vector<bool> nonzero_out(outputs.size());
    auto const rule = [&](std::span<AnyArray const> p, std::span<AnyArray const> o, std::span<AnyArray const> extra) {
      std::vector<graph::MaybeArray> t(p.size());
      for (std::size_t k = 0; k < with_tangent.size(); ++k) t[with_tangent[k]] = extra[k];
      return inner_->jvp(p, t, o);
    };
    std::vector<AnyArray> extra;
    std::vector<graph::BatchDim> extra_dims;
    std::vector<graph::Aval> extra_avals;
    for (auto i : with_tangent) {
      extra.push_back(*tangents[nconsts + i]);
      extra_dims.push_back(in_dims_[nconsts + i]);
      extra_avals.push_back(in_avals[i]);
    }
    auto const r = batched_rule(rule, primals, outputs, extra, extra_dims, extra_avals, nonzero_out);
    std::vector<graph::MaybeArray> result(outputs.size());
    // An output whose tangent can be mapped is mapped: custom_jvp calls
    // instantiate, and custom_vjp calls have no JVP.
    for (std::size_t o = 0, k = 0; o < outputs.size(); ++o) {
      if (!nonzero_out[o]) continue;
      result[o] = out_mapped_[o] ? mapped_at(r.values[k], r.dims[k], 0, axis_.size) : r.values[k];
      ++k;
    }
    return result;
  }

  /// The inner VJP on one example, batched. The cotangent of an operand
  /// shared by the batch sums over it.
  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const> outputs, graph::Wanted) const override {
    graph::install_value_ops<ControlFlowBatchingOps>();
    auto const nconsts = primals.size() - inner_inputs();
    auto const out_avals = output_avals(*inner_->subprogram());
    std::vector<std::size_t> with_ct;
    std::vector<AnyArray> extra;
    std::vector<graph::BatchDim> extra_dims;
    std::vector<graph::Aval> extra_avals;
    for (std::size_t o = 0; o < cotangents.size(); ++o)
      if (cotangents[o]) {
        with_ct.push_back(o);
        extra.push_back(*cotangents[o]);
        extra_dims.push_back(out_mapped_[o] ? graph::BatchDim(0) : graph::not_mapped);
        extra_avals.push_back(out_avals[o]);
      }
    auto const rule = [&](std::span<AnyArray const> p, std::span<AnyArray const> o, std::span<AnyArray const> cts) {
      std::vector<graph::MaybeArray> ct(o.size());
      for (std::size_t k = 0; k < with_ct.size(); ++k) ct[with_ct[k]] = cts[k];
      return inner_->vjp(ct, p, o, {});
    };
    std::vector<bool> nonzero_in(inner_inputs());
    auto const r = batched_rule(rule, primals, outputs, extra, extra_dims, extra_avals, nonzero_in);
    std::vector<graph::MaybeArray> result(primals.size());  // the consts take none
    for (std::size_t i = 0, k = 0; i < nonzero_in.size(); ++i) {
      if (!nonzero_in[i]) continue;
      auto const to = in_dims_[nconsts + i];
      auto const& ct = r.values[k];
      auto const from = r.dims[k++];
      if (to) result[nconsts + i] = mapped_at(ct, from, *to, axis_.size);
      else if (from) result[nconsts + i] = graph::values::sum_axis(ct, *from);
      else result[nconsts + i] = ct;
    }
    return result;
  }

  graph::Batched batch(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                       graph::AxisData const& axis) const override {
    return batch_call(this->shared_from_this(), instantiate_, inputs, dims, axis);
  }

 private:
  std::size_t inner_inputs() const { return inner_->subprogram()->trace->inputs.size(); }

  /// `rule(primals, outputs, extra)` (the inner call's JVP or VJP) traced on
  /// one example, then run on the batch; `nonzero` receives which of its
  /// results are not symbolic zeros, and those come back with their dims.
  template <class Rule>
  graph::Batched batched_rule(Rule const& rule, std::span<AnyArray const> primals, std::span<AnyArray const> outputs,
                              std::span<AnyArray const> extra, std::span<graph::BatchDim const> extra_dims,
                              std::span<graph::Aval const> extra_avals, std::vector<bool>& nonzero) const {
    auto const& inner = *inner_->subprogram();
    auto const nin = inner.trace->inputs.size();
    auto const nout = inner.outputs.size();
    auto arguments = input_avals(inner);
    auto const out_avals = output_avals(inner);
    arguments.insert(arguments.end(), out_avals.begin(), out_avals.end());
    arguments.insert(arguments.end(), extra_avals.begin(), extra_avals.end());
    auto const fn = [&](std::vector<AnyArray> const& args) {
      std::span<AnyArray const> const all(args);
      auto const results = rule(all.first(nin), all.subspan(nin, nout), all.subspan(nin + nout));
      std::vector<AnyArray> out;
      for (std::size_t k = 0; k < results.size(); ++k) {
        nonzero[k] = results[k].has_value();
        if (nonzero[k]) out.push_back(*results[k]);
      }
      return out;
    };
    auto body = trace_body(fn, arguments);
    auto const nconsts = primals.size() - nin;
    std::vector<AnyArray> values = body.consts;
    std::vector<graph::BatchDim> dims(values.size(), graph::not_mapped);
    values.insert(values.end(), primals.begin() + static_cast<std::ptrdiff_t>(nconsts), primals.end());
    dims.insert(dims.end(), in_dims_.begin() + static_cast<std::ptrdiff_t>(nconsts), in_dims_.end());
    values.insert(values.end(), outputs.begin(), outputs.end());
    auto const output_dims = front_dims(out_mapped_);
    dims.insert(dims.end(), output_dims.begin(), output_dims.end());
    values.insert(values.end(), extra.begin(), extra.end());
    dims.insert(dims.end(), extra_dims.begin(), extra_dims.end());
    return graph::batch_program(body.program, values, dims, axis_);
  }

  std::shared_ptr<graph::PrimitiveBase const> inner_;
  graph::Program program_;
  std::vector<graph::BatchDim> in_dims_;
  std::vector<bool> out_mapped_;
  bool instantiate_;
  graph::AxisData axis_;
};

/// A call primitive that carries its program (subprogram(), whose inputs
/// are its operands) applied to a batch: one BatchedCall.
template <class>
graph::Batched batch_call(std::shared_ptr<graph::PrimitiveBase const> inner, bool instantiate,
                                 std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                                 graph::AxisData const& axis) {
  auto const& program = *inner->subprogram();
  auto batched = batched_body(program, dims, std::vector<bool>(program.outputs.size(), instantiate), axis);
  auto operands = std::move(batched.body.consts);
  std::vector<graph::BatchDim> in_dims(operands.size(), graph::not_mapped);
  operands.insert(operands.end(), inputs.begin(), inputs.end());
  in_dims.insert(in_dims.end(), dims.begin(), dims.end());
  auto out_dims = front_dims(batched.out_mapped);
  auto call = std::make_shared<BatchedCall const>(std::move(inner), std::move(batched.body.program), std::move(in_dims),
                                                  std::move(batched.out_mapped), instantiate, axis);
  return {call->evaluate(operands), std::move(out_dims)};
}

/// The common part of custom_vjp and custom_jvp calls (`Derived`): the
/// traced function as a program, and how to run it.
template <class Call, class Derived>
class CustomCallBase : public graph::CallPrimitive<Derived> {
 public:
  CustomCallBase(Call call, graph::Program program, std::size_t num_argument_leaves)
      : call_(std::move(call)), program_(std::move(program)), num_argument_leaves_(num_argument_leaves) {}
  std::vector<graph::Program const*> called() const override { return {&program_}; }
  graph::Program const* subprogram() const override { return &program_; }
  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    return this->apply(inputs, output_avals(program_), [&] { return graph::run(program_, inputs); });
  }

 protected:
  auto arguments(std::span<AnyArray const> primals) const {
    return call_.arguments_with(primals.first(num_argument_leaves_));
  }
  Call call_;
  graph::Program program_;
  std::size_t num_argument_leaves_;
};

template <class Call, class Fwd, class Bwd>
class CustomVjpCall final : public CustomCallBase<Call, CustomVjpCall<Call, Fwd, Bwd>> {
  using Base = CustomCallBase<Call, CustomVjpCall>;

 public:
  CustomVjpCall(Call call, graph::Program program, std::size_t n, Fwd fwd, Bwd bwd)
      : Base(std::move(call), std::move(program), n), fwd_(std::move(fwd)), bwd_(std::move(bwd)) {}
  std::string_view name() const override { return "custom_vjp_call"; }

  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const>, std::span<graph::MaybeArray const>,
                                     std::span<AnyArray const>) const override {
    throw Error("can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
  }
  /// Outputs mapped as the function's are: a custom_vjp has no tangents to fit.
  graph::Batched batch(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                       graph::AxisData const& axis) const override {
    return batch_call(this->shared_from_this(), false, inputs, dims, axis);
  }
  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const>, graph::Wanted) const override {
    auto args = this->arguments(primals);
    auto [out, residuals] = std::apply(fwd_, args);
    std::size_t next = 0;
    auto ct = rebuild_like(materialized(out), cotangents, next);
    auto arg_cts = bwd_(residuals, ct);
    static_assert(std::tuple_size_v<decltype(arg_cts)> == std::tuple_size_v<decltype(args)>,
                  "a custom_vjp bwd returns a std::tuple with one cotangent per argument");
    std::vector<graph::MaybeArray> result;
    std::apply([&](auto const&... c) { ((append_leaves(result, materialized(c))), ...); }, arg_cts);
    result.resize(primals.size());  // values closed over take no cotangent
    return result;
  }

 private:
  template <class Tree>
  static void append_leaves(std::vector<graph::MaybeArray>& to, Tree const& tree) {
    for (auto& leaf : array_leaves(tree)) to.emplace_back(std::move(leaf));
  }
  Fwd fwd_;
  Bwd bwd_;
};

template <class Call, class JvpRule>
class CustomJvpCall final : public CustomCallBase<Call, CustomJvpCall<Call, JvpRule>> {
  using Base = CustomCallBase<Call, CustomJvpCall>;

 public:
  CustomJvpCall(Call call, graph::Program program, std::size_t n, JvpRule rule)
      : Base(std::move(call), std::move(program), n), rule_(std::move(rule)) {}
  std::string_view name() const override { return "custom_jvp_call"; }

  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const> primals, std::span<graph::MaybeArray const> tangents,
                                     std::span<AnyArray const>) const override {
    auto args = this->arguments(primals);
    std::size_t next = 0;
    auto tangent_args = std::apply(
        [&](auto const&... a) { return std::tuple<std::remove_cvref_t<decltype(a)>...>{rebuild_like(a, tangents, next)...}; }, args);
    auto [out, tangent_out] = rule_(args, tangent_args);
    auto leaves = array_leaves(materialized(tangent_out));
    return {leaves.begin(), leaves.end()};
  }
  graph::Batched batch(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                       graph::AxisData const& axis) const override {
    return batch_call(this->shared_from_this(), true, inputs, dims, axis);
  }
  /// The pullback of the tangent map t -> rule(primals, t).second.
  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const>, graph::Wanted) const override {
    auto args = this->arguments(primals);
    auto const tangent_map = [&](auto const&... t) { return materialized(rule_(args, std::tuple<std::remove_cvref_t<decltype(t)>...>{t...}).second); };
    std::vector<graph::MaybeArray> none;
    std::size_t next = 0;
    auto zero_tangents = std::apply([&](auto const&... a) { return std::tuple<std::remove_cvref_t<decltype(a)>...>{rebuild_like(a, none, next)...}; }, args);
    auto [out, pullback] = std::apply([&](auto const&... t) { return jaxcc::vjp(tangent_map, t...); }, zero_tangents);
    next = 0;
    auto arg_cts = pullback(rebuild_like(out, cotangents, next));
    std::vector<graph::MaybeArray> result;
    std::apply([&](auto const&... c) { ((append(result, array_leaves(c))), ...); }, arg_cts);
    result.resize(primals.size());
    return result;
  }

 private:
  static void append(std::vector<graph::MaybeArray>& to, std::vector<AnyArray> const& from) {
    for (auto const& a : from) to.emplace_back(a);
  }
  JvpRule rule_;
};

/// Trace f on the arguments and apply a call primitive made by `make`.
template <class F, class Make, class... Args>
auto custom_call(F const& f, Make const& make, Args const&... args) {
  FlatCall<F, Args...> flat(f, std::tuple<Args...>{args...});
  auto operands = flat.argument_leaves();
  bool traced = false;
  for (auto const& a : operands) traced = traced || graph::var_of(a) != nullptr;
  if (!traced) return materialized(f(args...));  // nothing to differentiate: a plain call
  std::vector<graph::Aval> avals;
  for (auto const& a : operands) avals.push_back(graph::aval_of(a));
  std::vector<AnyArray> closure;
  auto program = graph::trace_program(flat, avals, closure);
  auto const n = operands.size();
  operands.insert(operands.end(), closure.begin(), closure.end());
  auto call = make(flat, std::move(program), n);
  return flat.unflatten_output(call->evaluate(operands));
}

}  // namespace detail

/// f with the user's reverse-mode rule (jax.custom_vjp + defvjp).
template <class F, class Fwd, class Bwd>
auto custom_vjp(F f, Fwd fwd, Bwd bwd) {
  return [f, fwd, bwd]<class... Args>(Args const&... args) {
    return detail::custom_call(
        f,
        [&](auto const& flat, graph::Program program, std::size_t n) {
          using Call = std::remove_cvref_t<decltype(flat)>;
          return std::make_shared<detail::CustomVjpCall<Call, Fwd, Bwd> const>(flat, std::move(program), n, fwd, bwd);
        },
        detail::as_argument(args)...);
  };
}

/// f with the user's forward-mode rule (jax.custom_jvp + defjvp).
template <class F, class JvpRule>
auto custom_jvp(F f, JvpRule rule) {
  return [f, rule]<class... Args>(Args const&... args) {
    return detail::custom_call(
        f,
        [&](auto const& flat, graph::Program program, std::size_t n) {
          using Call = std::remove_cvref_t<decltype(flat)>;
          return std::make_shared<detail::CustomJvpCall<Call, JvpRule> const>(flat, std::move(program), n, rule);
        },
        detail::as_argument(args)...);
  };
}

}  // namespace jaxcc
