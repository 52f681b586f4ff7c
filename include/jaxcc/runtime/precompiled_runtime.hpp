// The precompiled runtime's side in the headers. With JAXCC_PRECOMPILED_RUNTIME
// defined (linking the CMake target jaxcc_runtime defines it), the rules of
// jaxcc's own primitives and elementwise ops, and each op's row kernel and
// tangent builder, are declared extern here: a translation unit that binds
// one does not compile its rules, nor the rules those reach; the library
// holds them, compiled once (runtime/runtime_instances.hpp lists them,
// written into the build tree by tools/generate_runtime_instances.py and
// installed with the runtime; the type-erased machinery,
// runtime/machinery.hpp). Without it nothing changes: the
// headers alone are the library. <jaxcc/jaxcc.hpp> includes this last.
#pragma once

#if defined(JAXCC_PRECOMPILED_RUNTIME)

#include <cstdint>
#include <vector>

#include "jaxcc/fusion/evaluate.hpp"
#include "jaxcc/fusion/program.hpp"
#include "jaxcc/graph/primitive_of.hpp"
#include "jaxcc/primitives/argminmax.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/cholesky.hpp"
#include "jaxcc/primitives/collectives.hpp"
#include "jaxcc/primitives/concatenate.hpp"
#include "jaxcc/primitives/conv_general_dilated.hpp"
#include "jaxcc/primitives/cumulative.hpp"
#include "jaxcc/primitives/dot_general.hpp"
#include "jaxcc/primitives/eigh.hpp"
#include "jaxcc/primitives/fft.hpp"
#include "jaxcc/primitives/gather.hpp"
#include "jaxcc/primitives/lu.hpp"
#include "jaxcc/primitives/pad.hpp"
#include "jaxcc/primitives/qr.hpp"
#include "jaxcc/primitives/random_bits.hpp"
#include "jaxcc/primitives/random_gamma.hpp"
#include "jaxcc/primitives/reduce.hpp"
#include "jaxcc/primitives/reduce_window.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/scatter.hpp"
#include "jaxcc/primitives/searchsorted.hpp"
#include "jaxcc/primitives/slice.hpp"
#include "jaxcc/primitives/sort.hpp"
#include "jaxcc/primitives/squeeze.hpp"
#include "jaxcc/primitives/stop_gradient.hpp"
#include "jaxcc/primitives/svd.hpp"
#include "jaxcc/primitives/transpose.hpp"
#include "jaxcc/primitives/triangular_solve.hpp"
#include "jaxcc/runtime/machinery.hpp"
#include "jaxcc/runtime/runtime_instances.hpp"
#include "jaxcc/sharding/sharding_constraint.hpp"

namespace jaxcc {
#define JAXCC_EXTERN_INSTANCE(...) extern template struct graph::Binder<__VA_ARGS__>;
JAXCC_RUNTIME_INSTANCES(JAXCC_EXTERN_INSTANCE)
#undef JAXCC_EXTERN_INSTANCE
// Each elementwise op as a one-op region of a file's own (its record and
// loops under a transform).
#define JAXCC_EXTERN_REGION(...) extern template struct fusion::Region<__VA_ARGS__>;
JAXCC_RUNTIME_REGIONS(JAXCC_EXTERN_REGION)
#undef JAXCC_EXTERN_REGION
// Each op's row kernel and tangent builder, which the programs of a file's
// own regions (their derivatives, jit's fused runs) point at.
#define JAXCC_EXTERN_OP_RULES(...)                                                                               \
  extern template void fusion::op_row<__VA_ARGS__>(void const* const*, std::int64_t const*, void*, std::int64_t); \
  extern template std::uint32_t fusion::OpRules<__VA_ARGS__>::tangent(fusion::ProgramBuilder&, std::uint32_t const*, \
                                                                      std::uint32_t const*);
JAXCC_RUNTIME_OP_RULES(JAXCC_EXTERN_OP_RULES)
#undef JAXCC_EXTERN_OP_RULES
}  // namespace jaxcc

#endif
