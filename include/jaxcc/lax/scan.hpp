// lax::scan: a function of (carry, x) -> (carry, y) run over the leading
// axis of xs, traced once into a program so that a loop of any length is one
// equation. Its JVP is a scan of the body's JVP (tangents carried beside the
// primals); its VJP is a scan that stacks the carry entering each step,
// then a scan in the opposite direction applying the body's VJP per step
// and summing the cotangents of what the body closes over. Batched, it is a
// scan of the batched body, the xs and ys mapped at axis 1 (axis 0 is the
// scanned one).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/lax/control_flow_common.hpp"
#include "jaxcc/tracing/trace_call.hpp"

namespace jaxcc::detail {

/// `x[t]` along the leading axis, as a view.
inline AnyArray leading_index(AnyArray const& x, std::int64_t t) {
  auto const& impl = impl_of(x);
  return view(x, Shape(impl.shape.begin() + 1, impl.shape.end()), Strides(impl.strides.begin() + 1, impl.strides.end()),
              impl.offset + t * impl.strides[0]);
}

/// Per-step values of one type, stacked along a new leading axis as they come.
class StackedSteps {
 public:
  StackedSteps(graph::Aval const& step, std::int64_t length) {
    Shape shape{length};
    for (auto d : step.shape) shape.push_back(d);
    auto [stacked, data] = allocate_any(step.dtype, shape);
    stacked_ = std::move(stacked);
    data_ = static_cast<std::byte*>(data);
    step_bytes_ = step.shape.numel() * static_cast<std::int64_t>(item_size(step.dtype));
  }
  void set(std::int64_t t, AnyArray const& value) {
    copy_elements(impl_of(value), item_size(value.dtype()), data_ + t * step_bytes_);
  }
  AnyArray const& array() const noexcept { return stacked_; }

 private:
  AnyArray stacked_;
  std::byte* data_ = nullptr;
  std::int64_t step_bytes_ = 0;
};

struct ScanParams {
  std::size_t num_consts;
  std::size_t num_carry;
  std::int64_t length;
  bool reverse;
};

template <class = void>
std::vector<AnyArray> bind_scan(Body body, std::size_t num_explicit_consts, std::size_t num_carry, std::int64_t length,
                                bool reverse, std::span<AnyArray const> args);

// A class template only so that a file that never applies it compiles
// none of it (docs/compile_cost.md, "What a file compiles").
template <class = void>
class ScanCallT;
using ScanCall = ScanCallT<>;

/// The scan primitive: operands consts, initial carry, xs; outputs the final
/// carry, then the stacked ys. The body's inputs are consts, carry, x.
template <class>
class ScanCallT final : public graph::CallPrimitive<ScanCallT<>> {
 public:
  ScanCallT(graph::Program body, ScanParams params) : body_(std::move(body)), params_(params) {}
  std::string_view name() const override { return "scan"; }
  std::vector<graph::Program const*> called() const override { return {&body_}; }
  graph::Program const* subprogram() const override { return &body_; }

  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    auto avals = output_avals(body_);
    for (auto i = params_.num_carry; i < avals.size(); ++i) avals[i].shape.insert(avals[i].shape.begin(), params_.length);
    return this->apply(inputs, avals, [&] { return run_steps(inputs); });
  }

  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const> primals, std::span<graph::MaybeArray const> tangents,
                                     std::span<AnyArray const>) const override {
    auto const [nc, ncarry, nx, ny] = sizes(primals.size());
    std::vector<bool> nonzero(primals.size());
    for (std::size_t i = 0; i < primals.size(); ++i) nonzero[i] = tangents[i] && has_tangent_space(primals[i].dtype());
    if (count_true(nonzero) == 0) return std::vector<graph::MaybeArray>(ncarry + ny);
    std::array const in_groups{nc, ncarry, nx};
    std::array const out_groups{ncarry, ny};
    auto jvp = loop_jvp_body(body_, in_groups, nonzero, nc, ncarry, out_groups);

    std::vector<AnyArray> args;  // per group: primals, then the tangents
    for (std::size_t g = 0, start = 0; g < in_groups.size(); start += in_groups[g++]) {
      args.insert(args.end(), primals.begin() + static_cast<std::ptrdiff_t>(start),
                  primals.begin() + static_cast<std::ptrdiff_t>(start + in_groups[g]));
      for (auto i = start; i < start + in_groups[g]; ++i)
        if (nonzero[i]) args.push_back(instantiate_zeros(tangents[i], primals[i]));
    }
    std::vector<bool> const nonzero_consts(nonzero.begin(), nonzero.begin() + static_cast<std::ptrdiff_t>(nc));
    std::vector<bool> const nonzero_carry(nonzero.begin() + static_cast<std::ptrdiff_t>(nc),
                                          nonzero.begin() + static_cast<std::ptrdiff_t>(nc + ncarry));
    auto const outs = bind_scan(std::move(jvp.body), nc + count_true(nonzero_consts), ncarry + count_true(nonzero_carry),
                                params_.length, params_.reverse, args);
    // outs: carry, carry tangents, ys, ys tangents.
    std::vector<graph::MaybeArray> result(ncarry + ny);
    std::size_t k = ncarry;
    for (std::size_t i = 0; i < ncarry; ++i)
      if (nonzero_carry[i]) result[i] = outs[k++];
    k += ny;
    for (std::size_t j = 0; j < ny; ++j)
      if (jvp.nonzero_out[ncarry + j]) result[ncarry + j] = outs[k++];
    return result;
  }

  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const>, graph::Wanted) const override {
    auto const [nc, ncarry, nx, ny] = sizes(primals.size());
    auto const step_in = input_avals(body_);
    auto const step_out = output_avals(body_);
    // 1. The carry entering each step, stacked.
    auto const residuals = carries_entering_steps(primals, step_in);

    // 2. The body's VJP per step, in the opposite direction. Its carry holds
    // the running sums of the consts' cotangents and the carry's cotangent.
    auto const d = differentiable(cotangents, step_in, step_out);
    auto bwd_body = backward_body(d, step_in, step_out);
    std::vector<AnyArray> args(primals.begin(), primals.begin() + static_cast<std::ptrdiff_t>(nc));
    for (auto i : d.consts) args.push_back(zeros_of(step_in[i]));
    for (auto i : d.carry) args.push_back(instantiate_zeros(cotangents[i], step_in[nc + i]));
    args.insert(args.end(), primals.begin() + static_cast<std::ptrdiff_t>(nc + ncarry), primals.end());
    args.insert(args.end(), residuals.begin() + static_cast<std::ptrdiff_t>(ncarry), residuals.end());
    for (auto j : d.ys) args.push_back(*cotangents[ncarry + j]);
    auto const outs = bind_scan(std::move(bwd_body), nc, d.consts.size() + d.carry.size(), params_.length,
                                !params_.reverse, args);

    std::vector<graph::MaybeArray> result(primals.size());
    std::size_t k = 0;
    for (auto i : d.consts) result[i] = outs[k++];
    for (auto i : d.carry) result[nc + i] = outs[k++];
    for (auto x : d.xs) result[nc + ncarry + x] = outs[k++];
    return result;
  }

  /// JAX's _scan_batching_rule. A carry mapped on the way out must be
  /// mapped on the way in: the carries that start unmapped are made mapped,
  /// and the body batched again, until none becomes mapped.
  graph::Batched batch(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                       graph::AxisData const& axis) const override {
    auto const [nc, ncarry, nx, ny] = sizes(inputs.size());
    // The body's consts keep their mapped axes; a step of x is mapped one
    // axis lower than xs, whose axis 0 is scanned (so a mapped axis 0 moves to 1).
    std::vector<graph::BatchDim> body_dims(dims.begin(), dims.end());
    for (auto k = nc + ncarry; k < inputs.size(); ++k)
      if (dims[k]) body_dims[k] = *dims[k] == 0 ? 0 : *dims[k] - 1;
    std::vector<bool> carry_mapped(ncarry);
    for (std::size_t i = 0; i < ncarry; ++i) carry_mapped[i] = dims[nc + i].has_value();
    std::vector<bool> instantiate(ncarry + ny, false);
    for (;;) {
      for (std::size_t i = 0; i < ncarry; ++i) {
        body_dims[nc + i] = carry_mapped[i] ? graph::BatchDim(0) : graph::not_mapped;
        instantiate[i] = carry_mapped[i];
      }
      auto batched = batched_body(body_, body_dims, instantiate, axis);
      bool grew = false;
      for (std::size_t i = 0; i < ncarry; ++i)
        if (batched.out_mapped[i] && !carry_mapped[i]) carry_mapped[i] = grew = true;
      if (grew) continue;

      std::vector<AnyArray> args(inputs.begin(), inputs.end());
      for (std::size_t i = 0; i < ncarry; ++i)
        if (carry_mapped[i]) args[nc + i] = mapped_at(inputs[nc + i], dims[nc + i], 0, axis.size);
      for (auto k = nc + ncarry; k < inputs.size(); ++k)
        if (dims[k] == 0) args[k] = mapped_at(inputs[k], 0, 1, axis.size);
      auto outs = bind_scan(std::move(batched.body), nc, ncarry, params_.length, params_.reverse, args);
      auto out_dims = front_dims(batched.out_mapped);
      for (auto j = ncarry; j < out_dims.size(); ++j)
        if (out_dims[j]) out_dims[j] = 1;
      return {std::move(outs), std::move(out_dims)};
    }
  }

  void print(graph::JaxprSink& w, std::span<std::string const> inputs,
             std::span<graph::VarPtr const> outputs) const override {
    print_call(w, "scan", inputs, outputs, [&] {
      std::string linear = "(";
      auto const n = body_.trace->inputs.size();
      for (std::size_t i = 0; i < n; ++i) linear += i ? ", False" : "False";
      linear += n == 1 ? ",)" : ")";
      return std::vector<std::string>{"_split_transpose=False",
                                      "jaxpr=" + program_text(w, body_),
                                      "length=" + std::to_string(params_.length),
                                      "linear=" + linear,
                                      "num_carry=" + std::to_string(params_.num_carry),
                                      "num_consts=" + std::to_string(params_.num_consts),
                                      "reverse=" + python_bool(params_.reverse),
                                      "unroll=1"};
    });
  }

 private:
  struct Sizes {
    std::size_t consts, carry, xs, ys;
  };
  Sizes sizes(std::size_t num_inputs) const {
    return {params_.num_consts, params_.num_carry, num_inputs - params_.num_consts - params_.num_carry,
            body_.outputs.size() - params_.num_carry};
  }

  /// The final carry, then the carry entering each step, stacked: a scan
  /// whose ys are its carries.
  std::vector<AnyArray> carries_entering_steps(std::span<AnyArray const> primals,
                                              std::vector<graph::Aval> const& step_in) const {
    auto const [nc, ncarry, nx, ny] = sizes(primals.size());
    auto residual_body = trace_body(
        [&, ncarry = ncarry, nc = nc](std::vector<AnyArray> const& args) {
          auto out = graph::run(body_, args);
          out.resize(ncarry);
          out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(nc),
                     args.begin() + static_cast<std::ptrdiff_t>(nc + ncarry));
          return out;
        },
        step_in);
    return bind_scan(std::move(residual_body), nc, ncarry, params_.length, params_.reverse, primals);
  }

  /// The body's inputs that get cotangents (its float consts, carry and
  /// xs), and its ys whose cotangents are nonzero, by index in their group.
  /// The body's inputs and outputs are `step_in` and `step_out`.
  struct Differentiable {
    std::vector<std::size_t> consts, carry, xs, ys;
  };
  Differentiable differentiable(std::span<graph::MaybeArray const> cotangents, std::vector<graph::Aval> const& step_in,
                                std::vector<graph::Aval> const& step_out) const {
    auto const [nc, ncarry, nx, ny] = sizes(step_in.size());
    Differentiable d;
    for (std::size_t i = 0; i < nc; ++i)
      if (has_tangent_space(step_in[i].dtype)) d.consts.push_back(i);
    for (std::size_t i = 0; i < ncarry; ++i)
      if (has_tangent_space(step_in[nc + i].dtype)) d.carry.push_back(i);
    for (std::size_t k = 0; k < nx; ++k)
      if (has_tangent_space(step_in[nc + ncarry + k].dtype)) d.xs.push_back(k);
    for (std::size_t j = 0; j < ny; ++j)
      if (cotangents[ncarry + j] && has_tangent_space(step_out[ncarry + j].dtype)) d.ys.push_back(j);
    return d;
  }

  /// The backward scan's body: inputs consts, the consts' cotangent sums
  /// and the carry's cotangent (its carry), then x, the carry entering the
  /// step and the ys' cotangents; outputs the sums and the carry's
  /// cotangent, then x's cotangent.
  Body backward_body(Differentiable const& d, std::vector<graph::Aval> const& step_in,
                     std::vector<graph::Aval> const& step_out) const {
    auto const [nc, ncarry, nx, ny] = sizes(step_in.size());
    std::vector<graph::Aval> avals(step_in.begin(), step_in.begin() + static_cast<std::ptrdiff_t>(nc));
    for (auto i : d.consts) avals.push_back(step_in[i]);
    for (auto i : d.carry) avals.push_back(step_in[nc + i]);
    for (std::size_t k = 0; k < nx; ++k) avals.push_back(step_in[nc + ncarry + k]);
    for (std::size_t i = 0; i < ncarry; ++i) avals.push_back(step_in[nc + i]);
    for (auto j : d.ys) avals.push_back(step_out[ncarry + j]);
    return trace_body(
        [&, nc = nc, ncarry = ncarry, nx = nx, ny = ny](std::vector<AnyArray> const& args) {
          auto next = args.begin();
          auto const take = [&next](std::size_t n) {
            std::vector<AnyArray> part(next, next + static_cast<std::ptrdiff_t>(n));
            next += static_cast<std::ptrdiff_t>(n);
            return part;
          };
          auto inputs = take(nc);
          auto const sums = take(d.consts.size());
          auto const carry_ct = take(d.carry.size());
          auto const x = take(nx);
          auto const carry = take(ncarry);
          auto const y_ct = take(d.ys.size());
          inputs.insert(inputs.end(), carry.begin(), carry.end());
          inputs.insert(inputs.end(), x.begin(), x.end());
          std::vector<graph::MaybeArray> out_cts(ncarry + ny);
          for (std::size_t k = 0; k < d.carry.size(); ++k) out_cts[d.carry[k]] = carry_ct[k];
          for (std::size_t k = 0; k < d.ys.size(); ++k) out_cts[ncarry + d.ys[k]] = y_ct[k];
          auto const in_cts = graph::program_vjp(body_, inputs, out_cts);
          std::vector<AnyArray> result;
          for (std::size_t k = 0; k < d.consts.size(); ++k)
            result.push_back(*graph::add_maybe(sums[k], in_cts[d.consts[k]]));
          for (auto i : d.carry) result.push_back(instantiate_zeros(in_cts[nc + i], step_in[nc + i]));
          for (auto k : d.xs) result.push_back(instantiate_zeros(in_cts[nc + ncarry + k], step_in[nc + ncarry + k]));
          return result;
        },
        avals);
  }

  /// Concrete execution: the body program run once per step.
  std::vector<AnyArray> run_steps(std::span<AnyArray const> inputs) const {
    auto const [nc, ncarry, nx, ny] = sizes(inputs.size());
    auto const step_out = output_avals(body_);
    std::vector<AnyArray> args(inputs.begin(), inputs.end());  // consts, carry, then this step's x
    std::vector<AnyArray> const xs(inputs.begin() + static_cast<std::ptrdiff_t>(nc + ncarry), inputs.end());
    std::vector<StackedSteps> ys;
    for (std::size_t j = 0; j < ny; ++j) ys.emplace_back(step_out[ncarry + j], params_.length);
    for (std::int64_t step = 0; step < params_.length; ++step) {
      auto const t = params_.reverse ? params_.length - 1 - step : step;
      for (std::size_t k = 0; k < nx; ++k) args[nc + ncarry + k] = leading_index(xs[k], t);
      auto const outs = graph::run(body_, args);
      for (std::size_t i = 0; i < ncarry; ++i) args[nc + i] = outs[i];
      for (std::size_t j = 0; j < ny; ++j) ys[j].set(t, outs[ncarry + j]);
    }
    std::vector<AnyArray> out(args.begin() + static_cast<std::ptrdiff_t>(nc),
                              args.begin() + static_cast<std::ptrdiff_t>(nc + ncarry));
    for (auto const& y : ys) out.push_back(y.array());
    return out;
  }

  graph::Program body_;
  ScanParams params_;
};

/// Apply a scan of `body` to args (explicit consts, carry, xs); the values
/// the body closes over go first among the consts.
template <class>
std::vector<AnyArray> bind_scan(Body body, std::size_t num_explicit_consts, std::size_t num_carry,
                                       std::int64_t length, bool reverse, std::span<AnyArray const> args) {
  auto operands = std::move(body.consts);
  ScanParams const params{operands.size() + num_explicit_consts, num_carry, length, reverse};
  operands.insert(operands.end(), args.begin(), args.end());
  auto call = std::make_shared<ScanCall const>(std::move(body.program), params);
  return call->evaluate(operands);
}

/// JAX's _infer_scan_length. (A template, so that printing a value of every
/// dtype for its error is compiled only where scan is used.)
template <class = void>
std::int64_t scan_length(std::vector<AnyArray> const& xs, std::optional<std::int64_t> length) {
  std::vector<std::int64_t> lengths;
  for (auto const& x : xs) {
    if (x.ndim() == 0) {
      std::ostringstream os;
      os << "scan got value with no leading axis to scan over: " << x << ".";
      throw Error(os.str());
    }
    lengths.push_back(x.shape()[0]);
  }
  auto const list = [&](std::string_view open, std::string_view close) {
    std::string s(open);
    for (std::size_t i = 0; i < lengths.size(); ++i) s.append(i ? ", " : "").append(std::to_string(lengths[i]));
    return s.append(close);
  };
  if (length) {
    for (auto l : lengths)
      if (l != *length)
        throw Error("scan got `length` argument of " + std::to_string(*length) + " which disagrees with leading axis sizes " +
                    list("[", "]") + ".");
    return *length;
  }
  if (lengths.empty()) throw Error("scan got no values to scan over and `length` not provided.");
  for (auto l : lengths)
    if (l != lengths[0]) throw Error("scan got values with different leading axis sizes: " + list("", "") + ".");
  return lengths[0];
}

}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// lax.scan: `f(carry, x) -> (carry, y)` over the leading axis of the
/// pytree `xs` (or `length` steps when xs is jaxcc::none); returns
/// `(final carry, stacked ys)`. With `reverse`, steps run from the end.
/// Carry leaves are Arrays (scalars in `init` become rank-0 arrays) whose
/// structure, shapes and dtypes the body must keep.
template <class F, class Carry, class Xs>
auto scan(F const& f, Carry const& init, Xs const& xs, std::optional<std::int64_t> length = std::nullopt,
          bool reverse = false) {
  auto const init_value = detail::as_loop_value(init);
  auto const xs_value = detail::as_loop_value(xs);
  using CarryValue = std::remove_cvref_t<decltype(init_value)>;
  using XsValue = std::remove_cvref_t<decltype(xs_value)>;
  using BodyOut = decltype(f(init_value, xs_value));
  static_assert(detail::is_pair_like<std::remove_cvref_t<BodyOut>>::value,
                "scan body output must be a pair (carry, y): return std::pair{carry, y}");

  auto const init_leaves = detail::array_leaves(init_value);
  auto const xs_leaves = detail::array_leaves(xs_value);
  auto const steps = detail::scan_length(xs_leaves, length);

  auto const body_fn = [&f](CarryValue const& carry, XsValue const& x) {
    auto out = f(carry, x);
    return std::pair{detail::as_loop_value(std::get<0>(out)), detail::as_loop_value(std::get<1>(out))};
  };
  detail::FlatCall<decltype(body_fn), CarryValue, XsValue> flat(body_fn, {init_value, xs_value});
  auto avals = detail::avals_of(init_leaves);
  for (auto const& x : xs_leaves) avals.push_back({x.dtype(), Shape(x.shape().begin() + 1, x.shape().end())});
  auto body = detail::trace_body(flat, avals);
  auto const traced_out = flat.unflatten_output(body.program.outputs);
  detail::check_carry_type("scan body", init_value, traced_out.first);

  std::vector<AnyArray> args = init_leaves;
  args.insert(args.end(), xs_leaves.begin(), xs_leaves.end());
  auto const outs = detail::bind_scan(std::move(body), 0, init_leaves.size(), steps, reverse, args);
  std::size_t next = 0;
  auto carry = detail::with_array_leaves(init_value, outs, next);
  auto ys = detail::with_array_leaves(traced_out.second, outs, next);
  return std::pair{std::move(carry), std::move(ys)};
}

}  // namespace jaxcc::lax
