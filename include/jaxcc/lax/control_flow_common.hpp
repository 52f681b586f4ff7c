// What cond, scan and while_loop share: bodies traced once into closed
// programs, the JVP of a program as a program (so a loop's derivative is a
// loop again), a program batched as a program (so a loop's batched form is
// one loop again), JAX's carry and branch type checks, and printing
// equations whose parameters are programs.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/graph/batch.hpp"
#include "jaxcc/graph/call_primitive.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/graph/value_ops.hpp"
#include "jaxcc/lax/elementwise.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/install_value_ops.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/stop_gradient.hpp"
#include "jaxcc/primitives/transpose.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/tree/flatten.hpp"
#include "jaxcc/tree/map.hpp"
#include "jaxcc/tree/reduce.hpp"

namespace jaxcc::detail {

inline std::vector<graph::Aval> avals_of(std::span<AnyArray const> xs) {
  std::vector<graph::Aval> out;
  for (auto const& x : xs) out.push_back(graph::aval_of(x));
  return out;
}

inline std::vector<graph::Aval> input_avals(graph::Program const& p) {
  std::vector<graph::Aval> out;
  for (auto const& v : p.trace->inputs) out.push_back({v->dtype, v->shape});
  return out;
}

inline std::vector<graph::Aval> output_avals(graph::Program const& p) { return avals_of(p.outputs); }

/// Zeros of this type, as a stride-0 view that costs one element.
inline AnyArray zeros_of(graph::Aval const& a) {
  return zeros_view(a.dtype, a.shape);
}

/// A tangent or cotangent made an array: symbolic zeros become zeros.
inline AnyArray instantiate_zeros(graph::MaybeArray const& t, graph::Aval const& a) { return t ? *t : zeros_of(a); }
inline AnyArray instantiate_zeros(graph::MaybeArray const& t, AnyArray const& primal) {
  return instantiate_zeros(t, graph::aval_of(primal));
}

/// A scalar leaf as the rank-0 array JAX would make of it.
template <Scalar S>
auto scalar_array(S s) {
  if constexpr (std::same_as<S, bool>) return detail::rank0_array(s);
  else if constexpr (std::is_floating_point_v<S>) {
    if constexpr (sizeof(S) <= 4) return detail::rank0_array(static_cast<float>(s));
    else return detail::rank0_array(static_cast<double>(s));
  } else if constexpr (sizeof(S) <= 4) {
    return detail::rank0_array(static_cast<std::int32_t>(s));
  } else {
    return detail::rank0_array(static_cast<std::int64_t>(s));
  }
}

/// A loop carry or scanned value with every leaf an Array: fused
/// expressions materialized, scalars made rank-0 arrays (a carry's type must
/// stay fixed, so it cannot hold C++ scalars that the body would replace).
template <class Tree>
auto as_loop_value(Tree const& tree) {
  if constexpr (ArrayLike<Tree>) return as_array(tree);
  else if constexpr (Scalar<Tree>) return scalar_array(tree);
  else
    return tree::map(
        [](auto const& leaf) {
          using L = std::remove_cvref_t<decltype(leaf)>;
          if constexpr (Scalar<L>) return scalar_array(leaf);
          else return leaf;
        },
        tree);
}

/// A body or branch traced once into a program whose inputs are the values
/// of enclosing traces it reads (`consts`, passed first, as JAX passes a
/// closed jaxpr's consts), then its arguments.
struct Body {
  graph::Program program;
  std::vector<AnyArray> consts;
};

inline Body trace_body(graph::FlatFunction const& fn, std::span<graph::Aval const> arguments) {
  // An output returned as it is from outside the body (a value of an
  // enclosing trace, or a constant) is read in the body's own trace, so
  // closure conversion makes the former an input and the latter prints as
  // a constant of the body.
  auto const through_trace = [&fn](std::vector<AnyArray> const& args) {
    auto out = fn(args);
    auto& trace = *trace_stack().back();
    for (auto& o : out)
      if (auto const& v = graph::var_of(o); !v || v->trace_id != trace.id()) o = graph::Trace::traced_any(trace.var_for(o));
    return out;
  };
  Body body;
  body.program = graph::trace_program(through_trace, arguments, body.consts);
  auto& inputs = body.program.trace->inputs;
  std::rotate(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(arguments.size()), inputs.end());
  return body;
}

/// The JVP of a program, as a body. Inputs and outputs come in groups of
/// the sizes given (a scan's consts, carry, xs): within each group the
/// primals, then the tangents of those marked in `nonzero_in`. Outputs are,
/// per group, the primals (if `with_primals`), then the tangents that are
/// not symbolic zeros or that `instantiate` asks for; `nonzero_out` says
/// which. Integer values have no tangents.
struct JvpBody {
  Body body;
  std::vector<bool> nonzero_out;
};

inline JvpBody jvp_body(graph::Program const& p, std::span<std::size_t const> in_groups, std::vector<bool> const& nonzero_in,
                        std::span<std::size_t const> out_groups, std::vector<bool> const& instantiate, bool with_primals) {
  auto const in_avals = input_avals(p);
  auto const out_avals = output_avals(p);
  struct Slot {
    std::size_t index;
    bool tangent;
  };
  std::vector<Slot> layout;
  for (std::size_t g = 0, start = 0; g < in_groups.size(); start += in_groups[g++]) {
    for (std::size_t i = start; i < start + in_groups[g]; ++i) layout.push_back({i, false});
    for (std::size_t i = start; i < start + in_groups[g]; ++i)
      if (nonzero_in[i]) layout.push_back({i, true});
  }
  std::vector<graph::Aval> arguments;
  for (auto const& s : layout) arguments.push_back(in_avals[s.index]);

  std::vector<bool> nonzero_out(out_avals.size());
  auto const fn = [&](std::vector<AnyArray> const& args) {
    std::vector<AnyArray> primals(in_avals.size());
    std::vector<graph::MaybeArray> tangents(in_avals.size());
    for (std::size_t k = 0; k < layout.size(); ++k) {
      if (layout[k].tangent) tangents[layout[k].index] = args[k];
      else primals[layout[k].index] = args[k];
    }
    std::vector<AnyArray> outs;
    auto const touts = graph::program_jvp(p, primals, tangents, &outs);
    std::vector<AnyArray> result;
    for (std::size_t g = 0, start = 0; g < out_groups.size(); start += out_groups[g++]) {
      if (with_primals) result.insert(result.end(), outs.begin() + static_cast<std::ptrdiff_t>(start),
                                      outs.begin() + static_cast<std::ptrdiff_t>(start + out_groups[g]));
      for (std::size_t i = start; i < start + out_groups[g]; ++i) {
        nonzero_out[i] = has_tangent_space(out_avals[i].dtype) && (touts[i].has_value() || instantiate[i]);
        if (nonzero_out[i]) result.push_back(instantiate_zeros(touts[i], out_avals[i]));
      }
    }
    return result;
  };
  auto body = trace_body(fn, arguments);
  return {std::move(body), std::move(nonzero_out)};
}

/// jvp_body of a loop body, whose carry (inputs from `carry_at`, the first
/// outputs) must have tangents on the way out exactly where it has them on
/// the way in. A carry whose tangent starts as zero may get one from the
/// body: `nonzero_in` grows, and the body is traced again, until none does.
inline JvpBody loop_jvp_body(graph::Program const& p, std::span<std::size_t const> in_groups,
                             std::vector<bool>& nonzero_in, std::size_t carry_at, std::size_t num_carry,
                             std::span<std::size_t const> out_groups) {
  std::vector<bool> instantiate(p.outputs.size(), false);
  for (;;) {
    for (std::size_t i = 0; i < num_carry; ++i) instantiate[i] = nonzero_in[carry_at + i];
    auto jvp = jvp_body(p, in_groups, nonzero_in, out_groups, instantiate, true);
    bool grew = false;
    for (std::size_t i = 0; i < num_carry; ++i)
      if (jvp.nonzero_out[i] && !nonzero_in[carry_at + i]) nonzero_in[carry_at + i] = grew = true;
    if (!grew) return jvp;
  }
}

inline std::size_t count_true(std::vector<bool> const& v) {
  return static_cast<std::size_t>(std::count(v.begin(), v.end(), true));
}

// ---- batching -----------------------------------------------------------------

/// x with its mapped axis at `to`; an unmapped x is broadcast to `size` there.
inline AnyArray mapped_at(AnyArray const& x, graph::BatchDim dim, std::int64_t to, std::int64_t size) {
  return dim ? graph::values::move_axis(x, *dim, to) : graph::values::broadcast_axis(x, size, to);
}

/// The operations on values that batching rules of control flow and of
/// custom rules compute with (graph/value_ops.hpp): selecting per example,
/// clamping and comparing a mapped index, stopping gradients, reducing over
/// a mapped axis. Installed by those rules when they run, so
/// that a file that batches no control flow compiles none of them at every
/// dtype.
struct ControlFlowBatchingOps {
  template <Element T>
  static void fill(graph::ValueOps& ops) {
    if constexpr (InexactElement<T>)
      ops.stop_gradient = [](AnyArray const& x) -> AnyArray { return jaxcc::stop_gradient(x.as<T>()); };
    // What computes, the 16-bit floats take through float32 (graph::install_value_ops).
    if constexpr (!is_half_float<T>) {
      ops.select = [](Array<bool> const& pred, AnyArray const& on_true, AnyArray const& on_false) -> AnyArray {
        auto const& t = on_true.as<T>();
        return Array<T>(select_expr(batched_for_broadcast(pred, 0, t.ndim() - 1), t, on_false.as<T>()));
      };
      if constexpr (InexactElement<T>)
        ops.sum_axis = [](AnyArray const& x, std::int64_t axis) -> AnyArray {
          return jaxcc::detail::bind<primitives::reduce_sum_p>({Axes{axis}}, x.as<T>());
        };
    }
    if constexpr (std::same_as<T, std::int32_t>) {
      ops.clamp = [](AnyArray const& x, std::int64_t lo, std::int64_t hi) -> AnyArray {
        auto const at_least_lo = binary<primitives::max_p>(x.as<T>(), static_cast<T>(lo));
        return Array<T>(binary<primitives::min_p>(at_least_lo, static_cast<T>(hi)));
      };
      ops.equals = [](AnyArray const& x, std::int64_t value) { return Array<bool>(x.as<T>() == static_cast<T>(value)); };
    }
    if constexpr (std::same_as<T, bool>)
      ops.any = [](AnyArray const& x, std::int64_t axis) -> AnyArray {
        return jaxcc::detail::bind<primitives::reduce_or_p>({Axes{axis}}, x.as<T>());
      };
  }
};

}  // namespace jaxcc::detail

namespace jaxcc::detail {

/// Per example, on_true where pred holds, else on_false: pred is (batch,),
/// the cases are mapped at axis 0 and share a type (JAX's _bcast_select).
inline AnyArray select_mapped(Array<bool> const& pred, AnyArray const& on_true, AnyArray const& on_false) {
  return graph::values::select(pred, on_true, on_false);
}

/// A program batched, as a body (JAX's batch_jaxpr_axes): its inputs are
/// mapped along `in_dims`; each output is mapped at axis 0 if it comes out
/// mapped or `instantiate` asks, and `out_mapped` says which are.
struct BatchedBody {
  Body body;
  std::vector<bool> out_mapped;
};

template <class = void>
BatchedBody batched_body(graph::Program const& p, std::span<graph::BatchDim const> in_dims,
                         std::vector<bool> const& instantiate, graph::AxisData const& axis) {
  auto arguments = input_avals(p);
  for (std::size_t i = 0; i < arguments.size(); ++i)
    if (in_dims[i]) arguments[i].shape.insert(arguments[i].shape.begin() + *in_dims[i], axis.size);
  std::vector<bool> out_mapped(p.outputs.size());
  auto const fn = [&](std::vector<AnyArray> const& args) {
    auto out = graph::batch_program(p, args, in_dims, axis);
    for (std::size_t o = 0; o < out.values.size(); ++o) {
      out_mapped[o] = out.dims[o] || instantiate[o];
      if (out_mapped[o]) out.values[o] = mapped_at(out.values[o], out.dims[o], 0, axis.size);
    }
    return out.values;
  };
  auto body = trace_body(fn, arguments);
  return {std::move(body), std::move(out_mapped)};
}

/// Axis 0 where `mapped`, else not mapped: the dims a batched body's outputs have.
inline std::vector<graph::BatchDim> front_dims(std::vector<bool> const& mapped) {
  std::vector<graph::BatchDim> out;
  for (bool m : mapped) out.push_back(m ? graph::BatchDim(0) : graph::not_mapped);
  return out;
}

// ---- JAX's type checks --------------------------------------------------------

/// An abstract value as JAX's str_short writes it: `float32[3,4]`.
inline std::string aval_string(graph::Aval const& a) {
  std::string out(name(a.dtype));
  out += '[';
  for (std::size_t i = 0; i < a.shape.size(); ++i) out.append(i ? "," : "").append(std::to_string(a.shape[i]));
  return out + ']';
}

inline bool same_type(graph::Aval const& a, graph::Aval const& b) { return a.dtype == b.dtype && a.shape == b.shape; }

/// JAX's core.aval_mismatch_extra: `, so the shapes do not match`.
inline std::string mismatch_extra(graph::Aval const& a, graph::Aval const& b) {
  std::vector<std::string> what;
  if (a.dtype != b.dtype) what.emplace_back("the dtypes do not match");
  if (!(a.shape == b.shape)) what.emplace_back("the shapes do not match");
  if (what.empty()) return {};
  return what.size() == 1 ? ", so " + what[0] : ", so " + what[0] + ", and " + what[1];
}

inline std::string capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

/// JAX's list of differences: one sentence, or a bullet per difference.
inline std::string difference_list(std::vector<std::string> const& diffs) {
  if (diffs.size() == 1) return capitalized(diffs[0]) + ".\n";
  std::string out;
  for (std::size_t i = 0; i + 1 < diffs.size(); ++i) out += "  * " + diffs[i] + ";\n\n";
  return out + "  * " + diffs.back() + ".\n";
}

template <class Tree>
std::vector<tree::KeyPath> leaf_paths(Tree const& t) {
  auto flat = tree::flatten_with_path(t).first;
  std::vector<tree::KeyPath> out;
  for (auto& entry : flat) out.push_back(std::move(entry.first));
  return out;
}

/// JAX's _check_carry_type: a loop body's carry output must have the
/// structure and types of its carry input. `name` is e.g. "scan body".
template <class In, class Out>
void check_carry_type(std::string_view name, In const& in, Out const& out) {
  auto const in_def = tree::structure(in);
  auto const out_def = tree::structure(out);
  if (!(in_def == out_def))
    throw Error(std::string(name) +
                " function carry input and carry output must have the same pytree structure, but they differ:\n\n"
                "the input tree structure is:\n" + in_def.to_string() + "\nthe output tree structure is:\n" +
                out_def.to_string() +
                "\n\nRevise the function so that the carry output has the same pytree structure as the carry input.");
  auto const in_leaves = array_leaves(in);
  auto const out_leaves = array_leaves(out);
  auto const paths = leaf_paths(in);
  std::vector<std::string> diffs;
  for (std::size_t i = 0; i < in_leaves.size(); ++i) {
    auto const a = graph::aval_of(in_leaves[i]);
    auto const b = graph::aval_of(out_leaves[i]);
    if (same_type(a, b)) continue;
    auto const component = paths[i].empty() ? std::string("the input carry") : "the input carry at path " + tree::keystr(paths[i]);
    diffs.push_back(component + " has type " + aval_string(a) + " but the corresponding output carry component has type " +
                    aval_string(b) + mismatch_extra(a, b));
  }
  if (!diffs.empty())
    throw Error(std::string(name) + " function carry input and carry output must have equal types, but they differ:\n\n" +
                difference_list(diffs) + "\nRevise the function so that all output types match the corresponding input types.");
}

// ---- printing -----------------------------------------------------------------

inline std::string indented(std::string const& s, std::size_t n) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out.append(n, ' ');
  }
  return out;
}

inline std::string python_bool(bool b) { return b ? "True" : "False"; }

inline std::string program_text(graph::JaxprSink& w, graph::Program const& p) {
  return w.program(*p.trace, p.outputs, p.trace->captures);
}

/// Write `outs = name[k=v ...] ins` as JAX's printer lays it out: on one
/// line when it fits, else one parameter a line. `params` runs after the
/// outputs are named, as JAX names an equation's outputs before its
/// sub-programs' variables.
template <class Params>
void print_call(graph::JaxprSink& w, std::string_view name, std::span<std::string const> inputs,
                std::span<graph::VarPtr const> outputs, Params const& params) {
  std::string lhs;
  for (auto const& v : outputs) lhs.append(lhs.empty() ? "" : " ").append(w.binder(*v));
  if (!lhs.empty()) lhs += " = ";
  std::vector<std::string> const kv = params();
  std::string ins;
  for (auto const& in : inputs) ins.append(" ").append(in);
  std::string flat = lhs;
  flat.append(name).append("[");
  for (std::size_t i = 0; i < kv.size(); ++i) flat.append(i ? " " : "").append(kv[i]);
  flat.append("]").append(ins);
  if (flat.find('\n') == std::string::npos && flat.size() + 4 <= 80) return w.emit(std::move(flat));
  std::string text = lhs;
  text.append(name).append("[");
  for (auto const& p : kv) text.append("\n  ").append(indented(p, 2));
  text.append("\n]").append(ins);
  w.emit(std::move(text));
}

}  // namespace jaxcc::detail
