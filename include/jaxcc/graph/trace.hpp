// Tracing: while a transform runs a user function, every primitive applied
// to a traced Array is recorded as an Equation of the innermost Trace among
// its operands. Traces nest (grad of grad, vmap of grad): each lives on a
// thread-local stack, and a value of an outer trace used inside an inner one
// becomes one of the inner trace's captures, as a closed-over constant does
// in JAX.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/buffer.hpp"
#include "jaxcc/core/var.hpp"
#include "jaxcc/graph/batch_dim.hpp"
#include "jaxcc/graph/layout.hpp"

namespace jaxcc::graph {

struct Program;
class Trace;
struct Capture;
using VarPtr = std::shared_ptr<Var>;

/// One cotangent or tangent slot: empty means a symbolic zero.
using MaybeArray = std::optional<AnyArray>;

/// Which operands of a primitive application need a cotangent: reverse mode
/// skips the work for the others (the input batch of a loss, say), as JAX's
/// transpose rules skip operands that are not UndefinedPrimal. Default-made,
/// every operand needs one.
class Wanted {
 public:
  Wanted() = default;
  explicit Wanted(std::span<std::uint8_t const> flags) : flags_(flags) {}
  bool operator[](std::size_t operand) const noexcept { return flags_.empty() || flags_[operand] != 0; }

 private:
  std::span<std::uint8_t const> flags_;
};

/// How a collective over a mesh axis changes where its result varies:
/// psum and all_gather give a value that is the same along `axis`
/// (`varies` false), ppermute and axis_index one that differs along it.
/// shard_map's replication check follows these through the program.
struct AxisVariance {
  std::string_view axis;
  bool varies = false;
};

/// Equations [first, end) of a program that run as one fused loop, reading
/// `inputs` and writing `outputs` (make_jaxpr shows them as one `fusion`).
struct Fusion {
  std::size_t first, end;
  std::vector<VarPtr> inputs, outputs;
};

/// A reduction's fold of a stream of elements, fed a row at a time (jit's
/// fused runs fold each tile of a value as it is computed). The reduced
/// dimensions are the operand's last ones, so each result folds `segment()`
/// consecutive elements (row-major); over every axis, one result folds all.
/// Each chunk of a run makes one per call: they live in small blocks, not
/// the system heap.
class RowFold {
 public:
  explicit RowFold(std::int64_t segment) : segment_(segment) {}
  virtual ~RowFold() = default;
  static void* operator new(std::size_t bytes) { return detail::SmallBlocks::acquire(bytes); }
  static void operator delete(void* p, std::size_t bytes) noexcept { detail::SmallBlocks::release(p, bytes); }
  /// The elements that fold into one result.
  std::int64_t segment() const noexcept { return segment_; }
  virtual void fold(void const* row, std::int64_t count) = 0;
  /// The fold of every element so far, written to `out` as one element of
  /// the reduction's dtype.
  virtual void result(void* out) const = 0;
  /// Start the next result afresh.
  virtual void reset() = 0;

 private:
  std::int64_t segment_;
};

/// Where an equation writes itself as make_jaxpr shows it. The writer
/// (graph::JaxprWriter, graph/jaxpr.hpp) is its one implementation; the
/// equations' print rules, which every primitive's vtable names, are written
/// against this interface, so that the writer itself is compiled only in the
/// files that make a jaxpr.
class JaxprSink {
 public:
  /// The name of a Var, given on first use.
  virtual std::string const& name(Var const& v) = 0;
  /// `name:type`.
  virtual std::string binder(Var const& v) = 0;
  /// A name for a value that exists only in the printout (inside a fused region).
  virtual std::string fresh_name() = 0;
  /// A one-element constant as a literal (`2.0:f32[]`).
  virtual std::string literal(double value, DType dtype) const = 0;
  virtual void emit(std::string equation) = 0;
  /// Emit `name:type = op[params] args...` (the args in `order` when it is
  /// given) and return `name`. Fused regions print each node through this:
  /// one definition, rather than the text built in every region's type.
  virtual std::string emit_node(std::string name, DType dtype, Shape const& shape, std::string_view op,
                                std::string_view params, std::span<std::string const> args,
                                std::span<int const> order = {}) = 0;
  /// A program's text; `fusions`: runs of its equations printed as one
  /// `fusion` equation each.
  virtual std::string program(Trace const& trace, std::vector<AnyArray> const& outputs,
                              std::span<Capture const> constants, std::span<Fusion const> fusions = {}) = 0;

 protected:
  ~JaxprSink() = default;
};

/// A primitive application's rules, erased of the primitive's static type.
/// Every method works by binding primitives again, so applied to values of
/// an enclosing trace it records there: that is how transforms compose.
class PrimitiveBase {
 public:
  virtual ~PrimitiveBase() = default;
  virtual std::string_view name() const = 0;
  /// `axes=(0,)`-style parameters as make_jaxpr prints them; empty if none.
  virtual std::string params_string() const = 0;
  virtual std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const = 0;
  /// evaluate, its outputs appended to `out` (a plan keeps `out`'s capacity
  /// from call to call, so a primitive that overrides this runs there
  /// without allocating bookkeeping).
  virtual void evaluate_into(std::span<AnyArray const> inputs, std::vector<AnyArray>& out) const {
    for (auto& result : evaluate(inputs)) out.push_back(std::move(result));
  }
  /// Output tangents from input primals, input tangents and output primals.
  virtual std::vector<MaybeArray> jvp(std::span<AnyArray const> primals, std::span<MaybeArray const> tangents,
                                      std::span<AnyArray const> outputs) const = 0;
  /// Input cotangents from output cotangents, input primals and output
  /// primals; an input that is not `wanted` may get any value or none.
  virtual std::vector<MaybeArray> vjp(std::span<MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                      std::span<AnyArray const> outputs, Wanted wanted) const = 0;
  /// vmap: the outputs, with their mapped axes, from inputs some of which are
  /// mapped along `dims` (at least one is, or binds_axis(axis.name)).
  virtual inline Batched batch(std::span<AnyArray const> inputs, std::span<BatchDim const> dims,
                                AxisData const& axis) const;
  /// Whether this is a collective over the named axis (psum(x, "i") binds
  /// "i"): vmap then asks its batching rule even for unmapped operands.
  virtual bool binds_axis(std::string_view /*axis_name*/) const { return false; }
  /// For a collective: how it changes where its result varies. Others
  /// vary wherever one of their operands does.
  virtual std::optional<AxisVariance> axis_variance() const { return std::nullopt; }
  /// Sharded jit: this primitive applied to this device's parts of its
  /// operands, laid out as `layouts` (the mesh axes are bound), resharding
  /// operands through `reshard` where it must. None: no rule, and the
  /// partitioner gathers the operands whole (elementwise primitives need
  /// none: the partitioner lines their operands up itself).
  virtual std::optional<Partitioned> partition(std::span<AnyArray const> /*parts*/, std::span<Layout const> /*layouts*/,
                                               Resharder const& /*reshard*/) const {
    return std::nullopt;
  }
  /// Whether this applies the same function as `other`: the same primitive
  /// with equal parameters (jit's CSE merges such applications to the same
  /// inputs). No by default: a primitive whose parameters can't be compared.
  virtual bool same_as(PrimitiveBase const& /*other*/) const { return false; }
  /// The operand this application always returns unchanged, given the
  /// operands' shapes and which operands hold one value at every index
  /// (`uniform[k]`, or std::nullopt): a transpose by the identity
  /// permutation or a reshape to the operand's own shape returns its
  /// operand; `x * 1`, `x / 1`, `x - 0` and `x + -0.0` return x, in floating
  /// point exactly. jit's optimizer replaces the result by it when dtype and
  /// shape agree. None by default.
  virtual std::optional<std::size_t> forwarded_operand(std::span<Shape const> /*shapes*/,
                                                       std::span<std::optional<double> const> /*uniform*/) const {
    return std::nullopt;
  }
  /// This application with the operands that hold one value everywhere
  /// (`uniform[k]`, as for forwarded_operand) made part of it: an
  /// equivalent primitive and the operands it still reads, in order; or
  /// none. jit's optimizer asks this before forwarded_operand: a fused
  /// derivative folds in the ones reverse mode seeds with (`ct * 1`), as the
  /// optimizer folds them between equations.
  struct Folded {
    std::shared_ptr<PrimitiveBase const> primitive;
    std::vector<std::size_t> operands;
  };
  virtual std::optional<Folded> folded(std::span<Shape const> /*shapes*/,
                                       std::span<std::optional<double> const> /*uniform*/) const {
    return std::nullopt;
  }
  /// Whether the result at each index depends only on the operands at that
  /// index (operands of the result's shape, or of one element): then jit
  /// runs runs of such equations tile by tile, with no buffers between them.
  virtual bool is_elementwise() const { return false; }
  /// For an elementwise primitive, its row kernel: `run(context, ...)`
  /// writes `count` results into `out`, operand k read at values[operands[k]]
  /// stepping steps[operands[k]] elements (0 or 1). A fused run keeps its
  /// values' rows in one table, and takes each member's kernel once: a tile
  /// then costs one indirect call per member.
  struct RowKernel {
    void (*run)(void const* context, std::span<void const* const> values, std::span<std::int64_t const> steps,
                std::span<std::uint32_t const> operands, void* out, std::int64_t count) = nullptr;
    void const* context = nullptr;
  };
  virtual RowKernel row_kernel() const { throw Error("'" + std::string(name()) + "' is not elementwise"); }
  /// For a reduction over the last axes (or every axis) of an operand of
  /// this shape whose partial results combine by the reduction itself (sum,
  /// max, min): a new fold from the identity, so jit can end a fused run in
  /// it. None by default.
  virtual std::unique_ptr<RowFold> row_fold(Shape const& /*operand*/) const { return nullptr; }
  /// The program a call-like primitive carries (make_jaxpr prints it).
  virtual Program const* subprogram() const { return nullptr; }
  /// The runs of that program's equations that execute fused (jit's plan).
  virtual std::span<Fusion const> subprogram_fusions() const { return {}; }
  /// Write this equation as make_jaxpr shows it.
  virtual inline void print(JaxprSink& w, std::span<std::string const> inputs, std::span<VarPtr const> outputs) const;
};

inline Batched PrimitiveBase::batch(std::span<AnyArray const>, std::span<BatchDim const>, AxisData const&) const {
  throw Error("Batching rule for '" + std::string(name()) + "' not implemented");
}

struct Equation {
  std::shared_ptr<PrimitiveBase const> primitive;
  std::vector<VarPtr> inputs;
  std::vector<VarPtr> outputs;
};

/// A value from outside the trace (a concrete array, or a value of an
/// enclosing trace) that the traced program reads.
struct Capture {
  VarPtr var;
  AnyArray value;
};

class Trace {
 public:
  Trace() : id_(next_id()) {}
  Trace(Trace const&) = delete;
  Trace& operator=(Trace const&) = delete;

  std::uint64_t id() const noexcept { return id_; }
  /// Vars made so far; their ids are 0 .. var_count() - 1.
  std::size_t var_count() const noexcept { return var_count_; }

  VarPtr new_var(DType dtype, Shape shape) {
    auto v = std::make_shared<Var>(Var{dtype, std::move(shape), id_, var_count_++});
    return v;
  }
  /// A parameter of the traced function, as a traced Array.
  template <Element T>
  Array<T> add_input(Shape shape) {
    return detail::ArrayAccess::make<T>(detail::ArrayAccess::handle(add_input(dtype_of<T>, std::move(shape))));
  }
  AnyArray add_input(DType dtype, Shape shape) {
    auto v = new_var(dtype, std::move(shape));
    inputs.push_back(v);
    return traced_any(v);
  }
  /// The Var standing for `value` inside this trace: its own Var if it was
  /// made here, else a capture (one per captured array).
  VarPtr var_for(AnyArray const& value) {
    auto const* impl = &detail::ArrayAccess::impl(value);
    if (impl->var && impl->var->trace_id == id_) return impl->var;
    if (auto it = capture_index_.find(impl); it != capture_index_.end()) return captures[it->second].var;
    auto v = new_var(value.dtype(), value.shape());
    capture_index_.emplace(impl, captures.size());
    captures.push_back({v, value});
    return v;
  }
  void record(std::shared_ptr<PrimitiveBase const> primitive, std::vector<VarPtr> in, std::vector<VarPtr> out) {
    equations.push_back({std::move(primitive), std::move(in), std::move(out)});
  }

  template <Element T>
  static Array<T> traced_array(VarPtr const& v) {
    return detail::ArrayAccess::make<T>(traced_handle(v));
  }
  static AnyArray traced_any(VarPtr const& v) { return AnyArray::from_handle(v->dtype, traced_handle(v)); }

  std::vector<VarPtr> inputs;
  std::vector<Capture> captures;
  std::vector<Equation> equations;

 private:
  /// The handle of an array standing for `v`: a shape and dtype, no buffer.
  static std::shared_ptr<detail::ArrayImpl const> traced_handle(VarPtr const& v) {
    return detail::new_handle({v->shape, {}, 0, nullptr, v});
  }
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> counter{1};
    return counter++;
  }
  std::uint64_t id_;
  std::uint64_t var_count_ = 0;
  std::unordered_map<detail::ArrayImpl const*, std::size_t> capture_index_;
};

}  // namespace jaxcc::graph

namespace jaxcc::graph {

/// A traced function closed over its constants (graph/program.hpp).
struct Program {
  std::shared_ptr<Trace> trace;
  std::vector<AnyArray> outputs;  // Vars of `trace`, or constants
  std::size_t num_arguments = 0;  // trace->inputs: the arguments, then the converted captures
};

/// A function of flat arrays, as closed programs are traced from.
using FlatFunction = std::function<std::vector<AnyArray>(std::vector<AnyArray> const&)>;

inline void PrimitiveBase::print(JaxprSink& w, std::span<std::string const> inputs, std::span<VarPtr const> outputs) const {
  std::string lhs, rhs(name());
  for (auto const& v : outputs) {
    if (!lhs.empty()) lhs += ' ';
    lhs += w.binder(*v);
  }
  std::string params = params_string();
  if (auto const* p = subprogram()) {
    std::string program = "jaxpr=";
    program += w.program(*p->trace, p->outputs, p->trace->captures, subprogram_fusions());
    if (!params.empty()) program.append(" ").append(params);
    params = std::move(program);
  }
  if (!params.empty()) rhs.append("[").append(params).append("]");
  for (auto const& in : inputs) rhs.append(" ").append(in);
  lhs.append(" = ").append(rhs);
  w.emit(std::move(lhs));
}

}  // namespace jaxcc::graph

namespace jaxcc::detail {
inline std::vector<graph::Trace*>& trace_stack() {
  thread_local std::vector<graph::Trace*> stack;
  return stack;
}
}  // namespace jaxcc::detail

namespace jaxcc::graph {

/// Makes `trace` the innermost active trace for its lifetime.
class ScopedTrace {
 public:
  explicit ScopedTrace(Trace& trace) { detail::trace_stack().push_back(&trace); }
  ScopedTrace(ScopedTrace const&) = delete;
  ScopedTrace& operator=(ScopedTrace const&) = delete;
  ~ScopedTrace() { detail::trace_stack().pop_back(); }
};

/// The active trace that made `v`; JAX's UnexpectedTracerError if none does
/// (the value leaked out of the transform that traced it).
inline std::size_t trace_level_of(Var const& v) {
  auto const& stack = detail::trace_stack();
  for (std::size_t i = stack.size(); i-- > 0;)
    if (stack[i]->id() == v.trace_id) return i;
  throw Error("Encountered an unexpected tracer. A function transformed by jaxcc had a side effect, allowing for a "
              "reference to an intermediate value with type " +
              type_string(v.dtype, v.shape) +
              " to escape the scope of the transformation.\njaxcc transformations require that functions explicitly "
              "return their outputs, and disallow saving intermediate values to global state.");
}

/// The innermost active trace among the Vars it is shown.
class InnermostTrace {
 public:
  void see(VarPtr const& var) {
    if (!var) return;
    auto const l = trace_level_of(*var);
    if (!trace_ || l > level_) {
      trace_ = detail::trace_stack()[l];
      level_ = l;
    }
  }
  Trace* get() const noexcept { return trace_; }

 private:
  Trace* trace_ = nullptr;
  std::size_t level_ = 0;
};

/// The Var behind an array, or null for a concrete one.
inline VarPtr const& var_of(AnyArray const& a) {
  return detail::ArrayAccess::impl(a).var;
}

}  // namespace jaxcc::graph
