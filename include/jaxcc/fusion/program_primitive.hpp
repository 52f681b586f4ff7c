// Programs (fusion/program.hpp) applied to arrays: run on concrete values,
// recorded as one equation while tracing, and differentiated and batched as
// data. A region with a traced leaf is recorded as its program, run by the
// region's own compiled loops (fusion/fused_primitive.hpp); its derivatives
// are programs, and so are theirs, under any nesting of transforms, with no
// code compiled per region for any of it. None of this binds a primitive:
// the few operations on whole arrays it needs (summing a cotangent over
// broadcast dimensions, converting it, moving a mapped axis) go through
// graph::values, which the transforms fill.
#pragma once

#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/fusion/program.hpp"
#include "jaxcc/graph/primitive_of.hpp"
#include "jaxcc/graph/trace.hpp"
#include "jaxcc/graph/value_ops.hpp"

namespace jaxcc::fusion {

/// A region's own loops, compiled where the region is written, which run
/// its program in place of the interpreter: the region (its expression,
/// whose type fixes the loops and which holds its scalar constants) and two
/// functions of it.
struct CompiledRegion {
  std::shared_ptr<void const> region;
  /// `count` results into `out`: leaf k read at values[operands[k]]
  /// stepping steps[operands[k]] elements (as PrimitiveBase::RowKernel).
  void (*row)(void const* region, std::span<void const* const> values, std::span<std::int64_t const> steps,
              std::span<std::uint32_t const> operands, void* out, std::int64_t count);
  /// The region on concrete leaves.
  AnyArray (*evaluate)(void const* region, std::span<AnyArray const> leaves);
  /// Compiled for a lower SIMD level than the runtime's kernels run at: the
  /// interpreter, on the runtime's rows, runs it faster than these loops.
  bool outranked = false;
  bool runs_own_loops() const noexcept { return !outranked; }
};

// What follows is written once, for every program, but as templates with a
// defaulted parameter (as graph's call primitives are): a class with
// virtual functions, and what makes it, would otherwise be compiled (and,
// at -O2, analysed for devirtualization) in every file that includes this
// header, used or not.
template <class = void>
AnyArray apply_program(std::shared_ptr<Program const> program, std::vector<AnyArray> inputs,
                       std::shared_ptr<CompiledRegion const> region = nullptr);

/// The programs derived from the programs seen last on this thread (a
/// tangent, a leaf's cotangent): a loop's eager gradient derives the same
/// ones at every step, and building them costs more than running them on
/// small arrays.
class DerivedPrograms {
 public:
  /// The program derived from `base` as `key` says (build() makes it; null:
  /// the derivative is zero).
  template <class Build>
  std::shared_ptr<Program const> get(Program const& base, std::uint64_t key, Build&& build) {
    for (auto const& e : entries_)
      if (e.key == key && e.base == base) return e.derived;
    auto derived = build();
    auto& slot = entries_[next_++ % entries_.size()];
    slot = {base, key, derived};
    return derived;
  }
  static DerivedPrograms& of_this_thread() {
    thread_local DerivedPrograms cache;
    return cache;
  }

 private:
  struct Entry {
    Program base;
    std::uint64_t key = ~std::uint64_t{0};
    std::shared_ptr<Program const> derived;
  };
  std::array<Entry, 16> entries_;
  std::size_t next_ = 0;
};

/// The program of `p`'s result's tangent from its inputs and the tangents
/// of those with `has_tangent[k]` (which follow p's inputs), or null when
/// it is zero.
template <class = void>
std::shared_ptr<Program const> tangent_program(Program const& p, std::span<std::uint8_t const> has_tangent,
                                               std::span<DType const> tangent_dtypes) {
  ProgramBuilder b(p);
  auto const input_values = p.input_values();
  std::vector<std::uint32_t> seeds(p.values.size(), Program::none);
  for (std::size_t k = 0; k < has_tangent.size(); ++k)
    if (has_tangent[k]) seeds[input_values[k]] = b.input(tangent_dtypes[k]);
  auto const t = b.tangent(p.result, std::move(seeds));
  if (t == Program::none) return nullptr;
  return std::make_shared<Program const>(std::move(b).finish(t));
}

/// The tangent of `p`'s result from its inputs' primals and tangents.
template <class = void>
graph::MaybeArray program_jvp(Program const& p, std::span<AnyArray const> primals,
                                     std::span<graph::MaybeArray const> tangents) {
  std::vector<std::uint8_t> has_tangent(primals.size(), 0);
  std::vector<DType> dtypes(primals.size(), DType::float32);
  std::vector<AnyArray> inputs(primals.begin(), primals.end());
  std::uint64_t key = 0;  // which inputs have tangents, if their dtypes are the primals'
  bool cached = primals.size() < 63;
  for (std::size_t k = 0; k < primals.size(); ++k) {
    if (!tangents[k] || !has_tangent_space(primals[k].dtype())) continue;
    has_tangent[k] = 1;
    dtypes[k] = tangents[k]->dtype();
    inputs.push_back(*tangents[k]);
    cached = cached && dtypes[k] == primals[k].dtype();
    if (cached) key |= std::uint64_t{1} << k;
  }
  auto const build = [&] { return tangent_program(p, has_tangent, dtypes); };
  auto const program = cached ? DerivedPrograms::of_this_thread().get(p, key, build) : build();
  if (!program) return std::nullopt;
  return apply_program(program, std::move(inputs));
}

/// The transpose, at `ct`, of the linear map `tangent_at` (a seed of the
/// input's dtype to the tangent of the result), in JAX's convention (no
/// conjugation). An elementwise map's Jacobian is diagonal, multiplication
/// by some c: where input and result are both real or both complex, its
/// transpose is the map itself. A real input of a complex result, t -> c t,
/// transposes to real(c ct) = real(c real(ct)) + imag(c (-imag(ct))); a
/// complex input of a real result, t -> real(c t), to c ct = real(c ct) +
/// i real(c (-i ct)).
template <class TangentAt>
AnyArray transpose_diagonal(TangentAt const& tangent_at, AnyArray const& ct, DType input, DType result) {
  namespace values = graph::values;
  auto const as = [](AnyArray const& x, DType to) { return x.dtype() == to ? x : values::convert(x, to); };
  if (is_complex(result) && !is_complex(input)) {
    auto const a = as(tangent_at(as(ct, input)), input);
    auto const b = values::imag(tangent_at(as(values::imag(values::conj(ct)), input)));
    return values::add(a, as(b, input));
  }
  if (is_complex(input) && !is_complex(result)) {
    auto const part = input == DType::complex128 ? DType::float64 : DType::float32;
    auto const r = as(ct, part);
    auto const zero = jaxcc::detail::zeros_view(part, r.shape());
    auto const re = as(tangent_at(values::make_complex(input, r, zero)), part);
    auto const im = as(tangent_at(values::conj(values::make_complex(input, zero, r))), part);
    return values::make_complex(input, re, im);
  }
  return tangent_at(ct.dtype() == input ? ct : values::convert(ct, input));
}

/// The cotangent of each wanted float input of `p` from its result's
/// cotangent `ct`: the transposed tangent map of that input (an elementwise
/// map's Jacobian is diagonal; transpose_diagonal), summed over the
/// dimensions the input was broadcast along, in the input's dtype.
template <class = void>
std::vector<graph::MaybeArray> program_vjp(Program const& p, AnyArray const& ct, std::span<AnyArray const> primals,
                                           graph::Wanted wanted) {
  std::vector<graph::MaybeArray> out(primals.size());
  std::vector<DType> dtypes;
  for (auto const& x : primals) dtypes.push_back(x.dtype());
  for (std::size_t k = 0; k < primals.size(); ++k) {
    if (!wanted[k] || !has_tangent_space(dtypes[k])) continue;
    auto const build = [&] {
      std::vector<std::uint8_t> seeded(primals.size(), 0);
      seeded[k] = 1;
      return tangent_program(p, seeded, dtypes);
    };
    auto const program = DerivedPrograms::of_this_thread().get(p, (std::uint64_t{1} << 63) | k, build);
    if (!program) continue;
    auto const tangent_at = [&](AnyArray const& seed) {
      std::vector<AnyArray> inputs(primals.begin(), primals.end());
      inputs.push_back(seed);
      return apply_program(program, std::move(inputs));
    };
    auto c = transpose_diagonal(tangent_at, ct, dtypes[k], p.dtype());
    if (!(c.shape() == primals[k].shape())) c = graph::values::sum_to_shape(c, primals[k].shape());
    if (c.dtype() != dtypes[k]) c = graph::values::convert(c, dtypes[k]);
    out[k] = std::move(c);
  }
  return out;
}

/// The shape `inputs` broadcast to together.
inline Shape broadcast_shape_of(std::span<AnyArray const> inputs) {
  Shape shape = inputs.empty() ? Shape{} : inputs[0].shape();
  for (std::size_t k = 1; k < inputs.size(); ++k) shape = broadcast_shapes(shape, inputs[k].shape(), "fused");
  return shape;
}

/// A constant's value where a double holds it whole: not a complex number
/// with an imaginary part (`x * (1 + 0.5i)` is no `x * 1`).
inline std::optional<double> known_constant(ProgramValue const& v) {
  auto const imaginary_part = [&]<class C>(std::type_identity<C>) {
    C c;
    std::memcpy(static_cast<void*>(&c), v.bits.data(), sizeof c);  // void*: std::complex is trivially copyable
    return c.imag();
  };
  if (v.dtype == DType::complex64 && imaginary_part(std::type_identity<std::complex<float>>{}) != 0) return std::nullopt;
  if (v.dtype == DType::complex128 && imaginary_part(std::type_identity<std::complex<double>>{}) != 0) return std::nullopt;
  return jaxcc::detail::value_as_double(v.dtype, v.bits.data());
}

/// `p` as make_jaxpr shows it: each node one equation, as JAX would have
/// traced the ops; the result named `result`.
template <class = void>
void print_program(graph::JaxprSink& w, Program const& p, std::span<Shape const> input_shapes,
                          std::span<std::string const> inputs, graph::Var const& result) {
  std::vector<std::string> names(p.values.size());
  std::vector<Shape> shapes(p.values.size());
  for (std::size_t v = 0; v < p.values.size(); ++v) {
    auto const& value = p.values[v];
    if (value.kind == ProgramValue::Kind::input) {
      names[v] = inputs[value.args[0]];
      shapes[v] = input_shapes[value.args[0]];
    } else if (value.kind == ProgramValue::Kind::constant) {
      names[v] = w.literal(value.bits.data(), value.dtype);
    } else {
      std::vector<std::string> args;
      for (std::size_t k = 0; k < value.op->arity; ++k) {
        args.push_back(names[value.args[k]]);
        shapes[v] = k == 0 ? shapes[value.args[k]] : broadcast_shapes(shapes[v], shapes[value.args[k]], value.op->name);
      }
      names[v] = w.emit_node(v == p.result ? w.name(result) : w.fresh_name(), value.dtype, shapes[v], value.op->name,
                             value.op->params ? value.op->params() : std::string{}, args, value.op->print_order);
    }
  }
}

/// A recorded application of a program: one elementwise equation, which
/// jit runs inside a fused run. A region's runs on the region's compiled
/// loops; a derivative's on the interpreter.
template <class = void>
class ProgramPrimitiveT final : public graph::PrimitiveBase {
 public:
  ProgramPrimitiveT(std::shared_ptr<Program const> program, std::vector<Shape> input_shapes,
                    std::shared_ptr<CompiledRegion const> region = nullptr)
      : program_(std::move(program)), input_shapes_(std::move(input_shapes)), region_(std::move(region)) {}

  /// One node prints as its op, as JAX's jaxprs show it; more as `fused`.
  std::string_view name() const override { return single() ? single()->name : "fused"; }
  std::string params_string() const override {
    auto const* op = single();
    return op && op->params ? op->params() : std::string{};
  }
  std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const override {
    std::vector<AnyArray> out;
    evaluate_into(inputs, out);
    return out;
  }
  void evaluate_into(std::span<AnyArray const> inputs, std::vector<AnyArray>& out) const override {
    bool const traced = std::any_of(inputs.begin(), inputs.end(), [](AnyArray const& a) { return graph::var_of(a) != nullptr; });
    if (traced || region_) out.push_back(apply_program(program_, std::vector<AnyArray>(inputs.begin(), inputs.end()), region_));
    else out.push_back(run_program(*program_, inputs, broadcast_shape_of(inputs)));
  }
  std::vector<graph::MaybeArray> jvp(std::span<AnyArray const> primals, std::span<graph::MaybeArray const> tangents,
                                     std::span<AnyArray const>) const override {
    return {program_jvp(*program_, primals, tangents)};
  }
  std::vector<graph::MaybeArray> vjp(std::span<graph::MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                     std::span<AnyArray const>, graph::Wanted wanted) const override {
    if (!cotangents[0]) return std::vector<graph::MaybeArray>(primals.size());
    return program_vjp(*program_, *cotangents[0], primals, wanted);
  }
  /// Mapped inputs get their batch axis in front, padded with size-1 axes
  /// so that broadcasting lines them up; the program is unchanged.
  graph::Batched batch(std::span<AnyArray const> inputs, std::span<graph::BatchDim const> dims,
                       graph::AxisData const&) const override {
    std::int64_t rank = 0;
    for (std::size_t k = 0; k < inputs.size(); ++k) rank = std::max(rank, inputs[k].ndim() - (dims[k] ? 1 : 0));
    std::vector<AnyArray> batched;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      if (!dims[k]) {
        batched.push_back(inputs[k]);
        continue;
      }
      auto x = graph::values::move_axis(inputs[k], *dims[k], 0);
      for (auto missing = rank - (inputs[k].ndim() - 1); missing > 0; --missing) x = graph::values::broadcast_axis(x, 1, 1);
      batched.push_back(std::move(x));
    }
    return {{apply_program(program_, std::move(batched), region_)}, {graph::BatchDim{0}}};
  }
  /// Float inputs that hold one value everywhere become constants, and
  /// nodes that then return an operand (`x * 1`) are dropped. Only where the
  /// other inputs still give the result its shape, and not in a region,
  /// whose one compiled loop outruns the interpreter on fewer inputs.
  std::optional<Folded> folded(std::span<Shape const> shapes,
                               std::span<std::optional<double> const> uniform) const override {
    if (region_) return std::nullopt;
    auto const fold = [&](std::size_t k) { return uniform[k].has_value() && is_floating(input_dtype(k)); };
    Shape full, kept_shape;
    Folded out;
    std::vector<Shape> kept_shapes;
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      full = k == 0 ? shapes[0] : broadcast_shapes(full, shapes[k], "fused");
      if (fold(k)) continue;
      kept_shape = out.operands.empty() ? shapes[k] : broadcast_shapes(kept_shape, shapes[k], "fused");
      out.operands.push_back(k);
      kept_shapes.push_back(shapes[k]);
    }
    if (out.operands.size() == shapes.size() || out.operands.empty() || !(kept_shape == full)) return std::nullopt;

    auto const& values = program_->values;
    ProgramBuilder b;
    std::vector<std::uint32_t> moved(values.size());
    std::vector<Shape> value_shapes;
    std::vector<std::optional<double>> known;  // constants' values
    auto const add = [&](std::uint32_t v, Shape shape, std::optional<double> value) {
      value_shapes.resize(std::max<std::size_t>(value_shapes.size(), v + 1));
      known.resize(value_shapes.size());
      value_shapes[v] = std::move(shape);
      known[v] = value;
      return v;
    };
    for (std::size_t v = 0; v < values.size(); ++v) {
      auto const& value = values[v];
      if (value.kind == ProgramValue::Kind::input) {
        auto const k = value.args[0];
        moved[v] = fold(k) ? add(b.constant(value.dtype, *uniform[k]), {}, uniform[k]) : add(b.input(value.dtype), shapes[k], {});
      } else if (value.kind == ProgramValue::Kind::constant) {
        moved[v] = add(b.copy_of(value), {}, known_constant(value));
      } else {
        auto node = value;
        Shape shape;
        for (std::size_t k = 0; k < node.op->arity; ++k) {
          node.args[k] = moved[node.args[k]];
          shape = k == 0 ? value_shapes[node.args[0]] : broadcast_shapes(shape, value_shapes[node.args[k]], node.op->name);
        }
        if (node.op->forwarded && node.op->arity == 2)
          if (auto const f = node.op->forwarded(known[node.args[0]], known[node.args[1]])) {
            auto const same = node.args[*f];
            if (value_shapes[same] == shape && b.dtype(same) == node.dtype) {
              moved[v] = same;
              continue;
            }
          }
        moved[v] = add(b.copy_of(node), shape, {});
      }
    }
    b.set_copy(program_->copy);
    auto program = std::make_shared<Program const>(std::move(b).finish(moved[program_->result]));
    out.primitive = std::make_shared<ProgramPrimitiveT>(std::move(program), std::move(kept_shapes));
    return out;
  }
  /// The input a program of one node returns as is: one that passes it on
  /// (what folding can leave), or whose op does given the values known
  /// (`x * 1`: a constant, or an input that holds one value everywhere).
  std::optional<std::size_t> forwarded_operand(std::span<Shape const>,
                                               std::span<std::optional<double> const> uniform) const override {
    auto const& values = program_->values;
    auto const& result = values[program_->result];
    if (program_->node_count() != 1) return std::nullopt;
    std::optional<std::size_t> passed;
    if (result.op == program_->copy) {
      passed = 0;
    } else if (result.op->forwarded && result.op->arity == 2) {
      auto const known = [&](std::uint32_t v) -> std::optional<double> {
        if (values[v].kind == ProgramValue::Kind::constant) return known_constant(values[v]);
        return uniform[values[v].args[0]];
      };
      passed = result.op->forwarded(known(result.args[0]), known(result.args[1]));
    }
    if (!passed || values[result.args[*passed]].kind != ProgramValue::Kind::input) return std::nullopt;
    return values[result.args[*passed]].args[0];
  }
  /// `addend + scale * input k` (jit's plan lets the equation that makes
  /// input k add into a copy of the addend): a program of two real floating
  /// inputs, all of one dtype, whose result adds the other input to, or
  /// subtracts from it, input k negated or multiplied by constants.
  std::optional<Affine> affine_in(std::size_t k) const override {
    auto const& values = program_->values;
    auto const dtype = program_->dtype();
    if (program_->input_count != 2 || !is_floating(dtype) ||
        std::any_of(values.begin(), values.end(), [&](ProgramValue const& v) { return v.dtype != dtype; }))
      return std::nullopt;
    auto const is_input = [&](std::uint32_t v, bool of_k) {
      return values[v].kind == ProgramValue::Kind::input && (values[v].args[0] == k) == of_k;
    };
    // The factor value v multiplies input k by, where v is input k scaled.
    auto const factor = [&](auto const& self, std::uint32_t v) -> std::optional<double> {
      auto const& value = values[v];
      if (is_input(v, true)) return 1.0;
      if (value.kind != ProgramValue::Kind::node) return std::nullopt;
      if (value.op->name == "neg")
        if (auto const f = self(self, value.args[0])) return -*f;
      if (value.op->name == "mul")
        for (std::size_t side = 0; side < 2; ++side)
          if (auto const& c = values[value.args[1 - side]]; c.kind == ProgramValue::Kind::constant)
            if (auto const constant = known_constant(c))
              if (auto const f = self(self, value.args[side])) return *constant * *f;
      return std::nullopt;
    };
    auto const& result = values[program_->result];
    if (result.kind != ProgramValue::Kind::node || result.op->arity != 2) return std::nullopt;
    auto const lhs = result.args[0], rhs = result.args[1];
    auto const addend = [&](std::uint32_t v) { return static_cast<std::size_t>(values[v].args[0]); };
    if (result.op->name == "add") {
      if (is_input(lhs, false))
        if (auto const f = factor(factor, rhs)) return Affine{addend(lhs), *f};
      if (is_input(rhs, false))
        if (auto const f = factor(factor, lhs)) return Affine{addend(rhs), *f};
    } else if (result.op->name == "sub" && is_input(lhs, false)) {
      if (auto const f = factor(factor, rhs)) return Affine{addend(lhs), -*f};
    }
    return std::nullopt;
  }
  bool same_as(PrimitiveBase const& other) const override {
    auto const* o = dynamic_cast<ProgramPrimitiveT const*>(&other);
    return o && *o->program_ == *program_;
  }
  bool is_elementwise() const override { return true; }
  /// A region's row kernel, or the interpreter's on this program (and on an
  /// outranked region's).
  RowKernel row_kernel() const override {
    if (region_ && region_->runs_own_loops()) return {region_->row, region_->region.get()};
    return {&interpret_row, this};
  }
  void print(graph::JaxprSink& w, std::span<std::string const> inputs,
             std::span<graph::VarPtr const> outputs) const override {
    print_program(w, *program_, input_shapes_, inputs, *outputs[0]);
  }

 private:
  static void interpret_row(void const* self, std::span<void const* const> values, std::span<std::int64_t const> steps,
                            std::span<std::uint32_t const> operands, void* out, std::int64_t count) {
    constexpr std::size_t on_stack = 16;
    std::array<void const*, on_stack> inputs_here;
    std::array<std::int64_t, on_stack> steps_here;
    std::vector<void const*> inputs_heap;
    std::vector<std::int64_t> steps_heap;
    if (operands.size() > on_stack) {
      inputs_heap.resize(operands.size());
      steps_heap.resize(operands.size());
    }
    auto* const inputs = operands.size() > on_stack ? inputs_heap.data() : inputs_here.data();
    auto* const input_steps = operands.size() > on_stack ? steps_heap.data() : steps_here.data();
    for (std::size_t k = 0; k < operands.size(); ++k) {
      inputs[k] = values[operands[k]];
      input_steps[k] = steps[operands[k]];
    }
    run_program_row(*static_cast<ProgramPrimitiveT const*>(self)->program_, inputs, input_steps, out, count);
  }
  DType input_dtype(std::size_t k) const {
    for (auto const& v : program_->values)
      if (v.kind == ProgramValue::Kind::input && v.args[0] == k) return v.dtype;
    throw Error("internal error: a program has no input " + std::to_string(k));
  }
  OpKernel const* single() const {
    return program_->node_count() == 1 ? program_->values[program_->result].op : nullptr;
  }
  std::shared_ptr<Program const> program_;
  std::vector<Shape> input_shapes_;
  std::shared_ptr<CompiledRegion const> region_;  // null: run by the interpreter
};
using ProgramPrimitive = ProgramPrimitiveT<>;

/// `program` applied to `inputs` (broadcast together), with a region's
/// compiled loops or none (then the interpreter runs it), through the one
/// bind path (graph/bind_target.hpp): recorded in the innermost trace among
/// them, or, for a region's on concrete inputs laid out on a mesh,
/// partitioned over it as an eager op is, or run. A program that only
/// passes one of its inputs on, already of the result's shape, gives that
/// input.
template <class>
AnyArray apply_program(std::shared_ptr<Program const> program, std::vector<AnyArray> inputs,
                       std::shared_ptr<CompiledRegion const> region) {
  auto const shape = broadcast_shape_of(inputs);
  auto const& result = program->values[program->result];
  if (program->node_count() == 1 && result.op == program->copy) {
    auto const& passed = program->values[result.args[0]];
    if (passed.kind == ProgramValue::Kind::input && inputs[passed.args[0]].shape() == shape) return inputs[passed.args[0]];
  }
  auto const primitive = [&]() -> std::shared_ptr<graph::PrimitiveBase const> {
    std::vector<Shape> shapes;
    for (auto const& in : inputs) shapes.push_back(in.shape());
    return std::make_shared<ProgramPrimitive const>(program, std::move(shapes), region);
  };
  auto const record = [&](graph::Trace& trace) {
    return graph::Trace::traced_any(graph::record_equation(trace, primitive(), inputs, program->dtype(), shape));
  };
  auto const partition = [&]() -> std::optional<AnyArray> {
    auto const apply_sharded = graph::sharded_apply().load(std::memory_order_acquire);
    if (!region || !apply_sharded) return std::nullopt;
    return apply_sharded(primitive(), inputs);
  };
  auto const run = [&] {
    if (region && region->runs_own_loops()) return region->evaluate(region->region.get(), inputs);
    return run_program(*program, inputs, shape);
  };
  return graph::bind_to(graph::target_of_arrays(inputs), record, partition, run);
}

}  // namespace jaxcc::fusion
