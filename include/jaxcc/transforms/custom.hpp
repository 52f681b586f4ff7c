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
// user's jvp_rule.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/graph/program.hpp"
#include "jaxcc/transforms/trace_call.hpp"
#include "jaxcc/transforms/vjp.hpp"

namespace jaxcc {

namespace detail {

/// The common part of custom_vjp and custom_jvp calls: the traced function
/// as a program, and how to run it.
template <class Call>
class CustomCallBase : public graph::PrimitiveBase {
 public:
  CustomCallBase(Call call, graph::Program program, std::size_t num_argument_leaves)
      : call_(std::move(call)), program_(std::move(program)), num_argument_leaves_(num_argument_leaves) {}
  std::string params_string() const override { return {}; }
  graph::Program const* subprogram() const override { return &program_; }

 protected:
  std::vector<AnyArray> run_on(std::span<AnyArray const> inputs, std::shared_ptr<graph::PrimitiveBase const> self) const {
    std::vector<graph::Aval> avals;
    for (auto const& o : program_.outputs) avals.push_back(graph::aval_of(o));
    return graph::apply(self, inputs, avals, [&] { return graph::run(program_, inputs); });
  }
  auto arguments(std::span<AnyArray const> primals) const {
    return call_.arguments_with(primals.first(num_argument_leaves_));
  }
  Call call_;
  graph::Program program_;
  std::size_t num_argument_leaves_;
};

template <class Call, class Fwd, class Bwd>
class CustomVjpCall final : public CustomCallBase<Call>,
                            public std::enable_shared_from_this<CustomVjpCall<Call, Fwd, Bwd>> {
  using Base = CustomCallBase<Call>;

 public:
  CustomVjpCall(Call call, graph::Program program, std::size_t n, Fwd fwd, Bwd bwd)
      : Base(std::move(call), std::move(program), n), fwd_(std::move(fwd)), bwd_(std::move(bwd)) {}
  std::string_view name() const override { return "custom_vjp_call"; }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    return this->run_on(inputs, this->shared_from_this());
  }
  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const>, std::span<graph::MaybeArray const>,
                                     std::span<AnyArray const>) const override {
    throw Error("can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
  }
  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const>) const override {
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
class CustomJvpCall final : public CustomCallBase<Call>, public std::enable_shared_from_this<CustomJvpCall<Call, JvpRule>> {
  using Base = CustomCallBase<Call>;

 public:
  CustomJvpCall(Call call, graph::Program program, std::size_t n, JvpRule rule)
      : Base(std::move(call), std::move(program), n), rule_(std::move(rule)) {}
  std::string_view name() const override { return "custom_jvp_call"; }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    return this->run_on(inputs, this->shared_from_this());
  }
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
  /// The pullback of the tangent map t -> rule(primals, t).second.
  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const>) const override {
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
