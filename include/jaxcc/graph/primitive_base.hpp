// The rules of a primitive application, erased of the primitive's static
// type: one interface per concern (evaluation, differentiation, batching,
// partitioning, fusion, printing), joined in graph::PrimitiveBase, which
// every equation of a trace holds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/buffer.hpp"
#include "jaxcc/core/var.hpp"
#include "jaxcc/graph/batch_dim.hpp"
#include "jaxcc/graph/layout.hpp"

namespace jaxcc::graph {

struct Program;
class Trace;
struct Capture;
class PrimitiveBase;
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
  /// The element of `dtype` at `element` as a literal (`2.0:f32[]`, `(1+2j):c64[]`).
  virtual std::string literal(void const* element, DType dtype) const = 0;
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

/// A primitive application's rules, erased of the primitive's static type,
/// in one interface per concern; PrimitiveBase joins them. Every rule works
/// by binding primitives again, so applied to values of an enclosing trace
/// it records there: that is how transforms compose. graph::PrimitiveOf
/// (graph/primitive_of.hpp) implements them all from a primitive's static
/// rules; call primitives (cond, scan, closed calls, ...) from their
/// programs.

/// Running the application on concrete inputs.
class EvaluationRules {
 public:
  virtual std::vector<AnyArray> evaluate(std::span<AnyArray const> inputs) const = 0;
  /// evaluate, its outputs appended to `out` (a plan keeps `out`'s capacity
  /// from call to call, so a primitive that overrides this runs there
  /// without allocating bookkeeping).
  virtual void evaluate_into(std::span<AnyArray const> inputs, std::vector<AnyArray>& out) const {
    for (auto& result : evaluate(inputs)) out.push_back(std::move(result));
  }
  /// Whether this application can add its result, scaled, into a copy of
  /// another array (a GEMM adds its product into its output buffer): jit's
  /// plan then hands it the `addend + scale * result` that an elementwise
  /// equation makes of its result (FusionRules::affine_in), and that pass
  /// over the result is gone. No by default.
  virtual bool accumulates() const { return false; }
  /// `addend` (broadcast to the result's shape) + scale · this application
  /// on `inputs`, where accumulates(): concrete operands on no mesh, as a
  /// plan runs them.
  virtual AnyArray evaluate_accumulating(std::span<AnyArray const> /*inputs*/, AnyArray const& /*addend*/,
                                         double /*scale*/) const {
    throw Error("internal error: this primitive does not accumulate into an addend");
  }

 protected:
  ~EvaluationRules() = default;
};

/// Forward and reverse mode.
class DifferentiationRules {
 public:
  /// Output tangents from input primals, input tangents and output primals.
  virtual std::vector<MaybeArray> jvp(std::span<AnyArray const> primals, std::span<MaybeArray const> tangents,
                                      std::span<AnyArray const> outputs) const = 0;
  /// Input cotangents from output cotangents, input primals and output
  /// primals; an input that is not `wanted` may get any value or none.
  virtual std::vector<MaybeArray> vjp(std::span<MaybeArray const> cotangents, std::span<AnyArray const> primals,
                                      std::span<AnyArray const> outputs, Wanted wanted) const = 0;

 protected:
  ~DifferentiationRules() = default;
};

/// vmap, and the named axes collectives bind.
class BatchingRules {
 public:
  /// The outputs, with their mapped axes, from inputs some of which are
  /// mapped along `dims` (at least one is, or binds_axis(axis.name)).
  virtual Batched batch(std::span<AnyArray const> inputs, std::span<BatchDim const> dims,
                        AxisData const& axis) const = 0;
  /// Whether this is a collective over the named axis (psum(x, "i") binds
  /// "i"): vmap then asks its batching rule even for unmapped operands.
  virtual bool binds_axis(std::string_view /*axis_name*/) const { return false; }
  /// For a collective: how it changes where its result varies. Others
  /// vary wherever one of their operands does.
  virtual std::optional<AxisVariance> axis_variance() const { return std::nullopt; }

 protected:
  ~BatchingRules() = default;
};

/// Sharded jit.
class PartitioningRules {
 public:
  /// This primitive applied to this device's parts of its operands, laid
  /// out as `layouts` (the mesh axes are bound), resharding operands
  /// through `reshard` where it must. None: no rule, and the partitioner
  /// gathers the operands whole (elementwise primitives need none: the
  /// partitioner lines their operands up itself).
  virtual std::optional<Partitioned> partition(std::span<AnyArray const> /*parts*/, std::span<Layout const> /*layouts*/,
                                               Resharder const& /*reshard*/) const {
    return std::nullopt;
  }
  /// The same, with the result wanted laid out as `wanted` (the layout its
  /// users ask for: see `wanted_operand_layout`), for a primitive that can
  /// make any part of its result on its own (a random draw from whole keys:
  /// each device draws only its block). None: `partition` decides.
  virtual std::optional<Partitioned> partition_as(std::span<AnyArray const> /*parts*/,
                                                  std::span<Layout const> /*layouts*/, Layout const& /*wanted*/,
                                                  Resharder const& /*reshard*/) const {
    return std::nullopt;
  }
  /// Backward sharding propagation: the layout this application asks of
  /// its operand `k` (of shape `operand_shape`), whatever its result is
  /// wanted as (a sharding constraint asks for its own). None: no wish.
  virtual std::optional<Layout> wanted_operand_layout(std::size_t /*k*/, Shape const& /*operand_shape*/) const {
    return std::nullopt;
  }

 protected:
  ~PartitioningRules() = default;
};

/// What jit's optimizer and its fused runs ask.
class FusionRules {
 public:
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
  /// An elementwise application's result as `operand[addend] + scale *
  /// operand[k]`, where it is that in exact arithmetic (`w - 0.01 * g` in g,
  /// `y + b` in y) and the addend broadcasts to the result's shape: jit's
  /// plan lets the equation that makes operand k add into a copy of the
  /// addend (EvaluationRules::accumulates). None by default.
  struct Affine {
    std::size_t addend;
    double scale;
  };
  virtual std::optional<Affine> affine_in(std::size_t /*k*/) const { return std::nullopt; }
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
  virtual RowKernel row_kernel() const = 0;
  /// For a reduction over the last axes (or every axis) of an operand of
  /// this shape whose partial results combine by the reduction itself (sum,
  /// max, min): a new fold from the identity, so jit can end a fused run in
  /// it. None by default.
  virtual std::unique_ptr<RowFold> row_fold(Shape const& /*operand*/) const { return nullptr; }

 protected:
  ~FusionRules() = default;
};

/// make_jaxpr.
class PrintingRules {
 public:
  /// The primitive's name, as JAX prints it.
  virtual std::string_view name() const = 0;
  /// `axes=(0,)`-style parameters as make_jaxpr prints them; empty if none.
  virtual std::string params_string() const = 0;
  /// The program a call-like primitive carries (make_jaxpr prints it).
  virtual Program const* subprogram() const { return nullptr; }
  /// The runs of that program's equations that execute fused (jit's plan).
  virtual std::span<Fusion const> subprogram_fusions() const { return {}; }
  /// Write this equation as make_jaxpr shows it (defined in graph/trace.hpp,
  /// beside the Program it prints).
  virtual inline void print(JaxprSink& w, std::span<std::string const> inputs, std::span<VarPtr const> outputs) const;

 protected:
  ~PrintingRules() = default;
};

class PrimitiveBase : public EvaluationRules,
                      public DifferentiationRules,
                      public BatchingRules,
                      public PartitioningRules,
                      public FusionRules,
                      public PrintingRules {
 public:
  virtual ~PrimitiveBase() = default;
  /// The rules a primitive may leave out, failing with its name.
  Batched batch(std::span<AnyArray const>, std::span<BatchDim const>, AxisData const&) const override {
    throw Error("Batching rule for '" + std::string(name()) + "' not implemented");
  }
  RowKernel row_kernel() const override { throw Error("'" + std::string(name()) + "' is not elementwise"); }
};

}  // namespace jaxcc::graph
