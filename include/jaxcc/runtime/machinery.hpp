// The precompiled runtime's type-erased machinery, in one place: jit's
// planner and fused runs, the program optimizer, the interpreters of traced
// programs, the fused programs' rules, the batching and partitioning of
// programs, the call primitives and the jaxpr printer. Each piece is a
// template of one defaulted parameter (`template <class = void>`), so that a
// file compiles it only where it uses it; this list names each one's <void>
// instance. With JAXCC_PRECOMPILED_RUNTIME (linking the runtime),
// runtime/precompiled_runtime.hpp includes it and each becomes an extern
// declaration: the file compiles none of it. The runtime's machinery.cpp
// (cmake/runtime.cmake), which defines JAXCC_RUNTIME_MACHINERY_SOURCE,
// instantiates them there, once. Members that such a class defines outside
// itself are marked JAXCC_RUNTIME_INLINE (core/runtime_compiled.hpp). The
// testing checks' machinery is listed likewise at the ends of
// testing/check.hpp and testing/check_grads.hpp, which machinery.cpp also
// includes (a file that does not include them never parses it). Printing
// an array, a template of its dtype, is listed here too, at each dtype the
// runtime holds.
#pragma once

#if defined(JAXCC_PRECOMPILED_RUNTIME)

#include <complex>
#include <cstdint>
#include <string>

#include "jaxcc/core/print.hpp"
#include "jaxcc/fusion/program.hpp"
#include "jaxcc/fusion/program_primitive.hpp"
#include "jaxcc/graph/batch.hpp"
#include "jaxcc/graph/fused_run.hpp"
#include "jaxcc/graph/interpret.hpp"
#include "jaxcc/graph/jaxpr.hpp"
#include "jaxcc/graph/microbatch.hpp"
#include "jaxcc/graph/optimize.hpp"
#include "jaxcc/graph/partition_equation.hpp"
#include "jaxcc/graph/plan.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/lax/cond.hpp"
#include "jaxcc/lax/control_flow_common.hpp"
#include "jaxcc/lax/scan.hpp"
#include "jaxcc/lax/while_loop.hpp"
#include "jaxcc/sharding/eager.hpp"
#include "jaxcc/sharding/partition.hpp"
#include "jaxcc/sharding/shard_map_call.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/transforms/closed_call.hpp"
#include "jaxcc/transforms/custom.hpp"
#include "jaxcc/transforms/jit.hpp"
#include "jaxcc/transforms/vjp.hpp"
#include "jaxcc/transforms/vmap.hpp"


namespace jaxcc::fusion {
// jaxcc/fusion/program.hpp
JAXCC_RUNTIME_INSTANCE(void run_program_row<void>(Program const&, void const* const*, std::int64_t const*, void*,
                                                  std::int64_t))
JAXCC_RUNTIME_INSTANCE(AnyArray run_program<void>(Program const&, std::span<AnyArray const>, Shape const&))
// jaxcc/fusion/program_primitive.hpp
JAXCC_RUNTIME_INSTANCE(std::shared_ptr<Program const> tangent_program<void>(Program const&,
                                                                            std::span<std::uint8_t const>,
                                                                            std::span<DType const>))
JAXCC_RUNTIME_INSTANCE(graph::MaybeArray program_jvp<void>(Program const&, std::span<AnyArray const>,
                                                           std::span<graph::MaybeArray const>))
JAXCC_RUNTIME_INSTANCE(std::vector<graph::MaybeArray> program_vjp<void>(Program const&, AnyArray const&,
                                                                        std::span<AnyArray const>, graph::Wanted))
JAXCC_RUNTIME_INSTANCE(void print_program<void>(graph::JaxprSink&, Program const&, std::span<Shape const>,
                                                std::span<std::string const>, graph::Var const&))
JAXCC_RUNTIME_INSTANCE(class ProgramPrimitiveT<void>)
JAXCC_RUNTIME_INSTANCE(AnyArray apply_program<void>(std::shared_ptr<Program const>, std::vector<AnyArray>,
                                                    std::shared_ptr<CompiledRegion const>))
}  // namespace jaxcc::fusion

namespace jaxcc::graph {
// jaxcc/graph/batch.hpp
JAXCC_RUNTIME_INSTANCE(Batched batch_program<void>(Program const&, std::span<AnyArray const>, std::span<BatchDim const>,
                                                   AxisData const&))
// jaxcc/graph/interpret.hpp
JAXCC_RUNTIME_INSTANCE(Env evaluate<void>(Trace const&, std::span<AnyArray const>))
JAXCC_RUNTIME_INSTANCE(std::vector<MaybeArray> forward_tangents<void>(Trace const&, Env const&,
                                                                      std::span<MaybeArray const>))
JAXCC_RUNTIME_INSTANCE(std::vector<MaybeArray> backward<void>(Trace const&, Env const&, std::vector<MaybeArray>,
                                                              Wanted))
// jaxcc/graph/jaxpr.hpp
JAXCC_RUNTIME_INSTANCE(std::string python_float_repr<void>(double))
JAXCC_RUNTIME_INSTANCE(class JaxprWriterT<void>)
// jaxcc/graph/microbatch.hpp
JAXCC_RUNTIME_INSTANCE(class MicrobatchedPlanT<void>)
// jaxcc/graph/optimize.hpp
JAXCC_RUNTIME_INSTANCE(void eliminate_common_subexpressions<void>(Program&))
JAXCC_RUNTIME_INSTANCE(void eliminate_dead_code<void>(Program&))
JAXCC_RUNTIME_INSTANCE(void optimize<void>(Program&))
// jaxcc/graph/partition_equation.hpp
JAXCC_RUNTIME_INSTANCE(Partitioned partition_equation<void>(Equation const&, std::vector<AnyArray>,
                                                            std::vector<Layout> const&, Resharder const&,
                                                            std::optional<Layout> const&))
JAXCC_RUNTIME_INSTANCE(std::vector<std::optional<Layout>> wanted_layouts<void>(
    Trace const&, std::vector<std::pair<std::size_t, Layout>> const&))
// jaxcc/graph/plan.hpp
JAXCC_RUNTIME_INSTANCE(class PlanT<void>)
// jaxcc/graph/program.hpp
JAXCC_RUNTIME_INSTANCE(Program trace_program<void>(FlatFunction const&, std::span<Aval const>, std::vector<AnyArray>&))
}  // namespace jaxcc::graph

namespace jaxcc::detail {
// jaxcc/graph/fused_run.hpp
JAXCC_RUNTIME_INSTANCE(class FusedRunT<void>)
// jaxcc/lax/cond.hpp
JAXCC_RUNTIME_INSTANCE(class CondCallT<void>)
// jaxcc/lax/control_flow_common.hpp
JAXCC_RUNTIME_INSTANCE(BatchedBody batched_body<void>(graph::Program const&, std::span<graph::BatchDim const>,
                                                      std::vector<bool> const&, graph::AxisData const&))
// jaxcc/lax/scan.hpp
JAXCC_RUNTIME_INSTANCE(class ScanCallT<void>)
// jaxcc/lax/while_loop.hpp
JAXCC_RUNTIME_INSTANCE(class WhileCallT<void>)
// jaxcc/sharding/eager.hpp
JAXCC_RUNTIME_INSTANCE(std::optional<AnyArray> apply_partitioned<void>(std::shared_ptr<graph::PrimitiveBase const> const&,
                                                                       std::span<AnyArray const>))
// It fills every dtype's mesh operations (SpmdOps).
JAXCC_RUNTIME_INSTANCE(void install_mesh_operations<void>())
// jaxcc/sharding/partition.hpp
JAXCC_RUNTIME_INSTANCE(std::optional<Mesh> mesh_of<void>(std::vector<AnyArray> const&,
                                                         std::optional<NamedSharding> const&))
JAXCC_RUNTIME_INSTANCE(
    std::shared_ptr<graph::PrimitiveBase const> partitioned_call<void>(graph::Program const&, Mesh const&,
                                                                       std::vector<AnyArray> const&,
                                                                       std::optional<NamedSharding> const&))
// jaxcc/sharding/shard_map_call.hpp
JAXCC_RUNTIME_INSTANCE(class ShardMapCallT<void>)
// jaxcc/transforms/closed_call.hpp
JAXCC_RUNTIME_INSTANCE(class ClosedCallT<void>)
// jaxcc/transforms/custom.hpp
JAXCC_RUNTIME_INSTANCE(class BatchedCallT<void>)
// jaxcc/transforms/jit.hpp
JAXCC_RUNTIME_INSTANCE(std::pair<int, std::string> key_difference<void>(JitKey const&, JitKey const&,
                                                                        std::vector<std::string> const&,
                                                                        std::vector<std::string> const&,
                                                                        std::vector<std::string> const&))
JAXCC_RUNTIME_INSTANCE(std::string JitCache::explain_miss<void>(JitKey const&, std::vector<std::string> const&,
                                                               std::vector<std::string> const&,
                                                               std::vector<std::string> const&) const)
JAXCC_RUNTIME_INSTANCE(std::shared_ptr<graph::PrimitiveBase const> compile_jit_call<void>(
    graph::FlatFunction const&, std::vector<AnyArray> const&, std::optional<NamedSharding> const&,
    std::vector<std::uint8_t>, std::vector<AnyArray>&))
// jaxcc/transforms/vjp.hpp
JAXCC_RUNTIME_INSTANCE(void seed_cotangents<void>(graph::Trace const&, std::vector<AnyArray> const&,
                                                  std::vector<AnyArray> const&, std::vector<graph::MaybeArray>&))
// jaxcc/transforms/vmap.hpp
JAXCC_RUNTIME_INSTANCE(std::pair<std::vector<AnyArray>, graph::Batched> trace_and_batch<void>(
    graph::FlatFunction const&, std::vector<SpecifiedLeaf> const&, graph::AxisData const&))
}  // namespace jaxcc::detail

// Printing an array (JAX's repr) at the dtypes the runtime holds, and the
// complex ones: its formatting code was a quarter of the quickstart's object
// code (which compiles 1.5-1.7 s faster without it, docs/compile_cost.md).
namespace jaxcc {
JAXCC_RUNTIME_INSTANCE(std::string to_string<float>(Array<float> const&))
JAXCC_RUNTIME_INSTANCE(std::string to_string<double>(Array<double> const&))
JAXCC_RUNTIME_INSTANCE(std::string to_string<std::int32_t>(Array<std::int32_t> const&))
JAXCC_RUNTIME_INSTANCE(std::string to_string<std::int64_t>(Array<std::int64_t> const&))
JAXCC_RUNTIME_INSTANCE(std::string to_string<std::uint32_t>(Array<std::uint32_t> const&))
JAXCC_RUNTIME_INSTANCE(std::string to_string<bool>(Array<bool> const&))
JAXCC_RUNTIME_INSTANCE(std::string to_string<std::complex<float>>(Array<std::complex<float>> const&))
JAXCC_RUNTIME_INSTANCE(std::string to_string<std::complex<double>>(Array<std::complex<double>> const&))
}  // namespace jaxcc

// The value operations at every dtype, as each installer fills them (the
// 16-bit floats' through float32): control flow's and the custom rules'
// batching (lax/control_flow_common.hpp), every reverse-mode entry point's
// (tracing/trace_call.hpp), every vmap's (transforms/vmap.hpp).
JAXCC_RUNTIME_INSTANCE(void jaxcc::graph::install_value_ops<jaxcc::detail::ControlFlowBatchingOps>())
JAXCC_RUNTIME_INSTANCE(void jaxcc::graph::install_value_ops<jaxcc::detail::ReverseOps>())
JAXCC_RUNTIME_INSTANCE(void jaxcc::graph::install_value_ops<jaxcc::detail::BatchingOps>())


#endif  // JAXCC_PRECOMPILED_RUNTIME
