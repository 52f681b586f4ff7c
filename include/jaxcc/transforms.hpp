// The transforms: grad, value_and_grad, jvp, vjp, jacfwd, jacrev, hessian,
// vmap, jit, make_jaxpr, checkpoint, custom_jvp and custom_vjp, shard_map
// and pmap (every header of transforms/).
#pragma once

#include "jaxcc/transforms/checkpoint.hpp"
#include "jaxcc/transforms/closed_call.hpp"
#include "jaxcc/transforms/custom.hpp"
#include "jaxcc/transforms/jacobian.hpp"
#include "jaxcc/transforms/jit.hpp"
#include "jaxcc/transforms/jvp.hpp"
#include "jaxcc/transforms/make_jaxpr.hpp"
#include "jaxcc/transforms/numpy_apply.hpp"
#include "jaxcc/transforms/options.hpp"
#include "jaxcc/transforms/pmap.hpp"
#include "jaxcc/transforms/shard_map.hpp"
#include "jaxcc/transforms/vjp.hpp"
#include "jaxcc/transforms/vmap.hpp"
// Last: with the precompiled runtime, the rules it holds are declared extern.
#include "jaxcc/runtime/precompiled_runtime.hpp"
