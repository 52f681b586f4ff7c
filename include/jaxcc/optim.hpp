// jaxcc::optim, optax's design: gradient transformations (init, update)
// whose states are pytrees, chained into the optimizers; schedules; and
// clipping, masking and gradient accumulation. Not part of jaxcc.hpp:
// include this header to use it.
#pragma once

#include "jaxcc/fusion/print.hpp"
#include "jaxcc/optim/alias.hpp"
#include "jaxcc/optim/base.hpp"
#include "jaxcc/optim/clipping.hpp"
#include "jaxcc/optim/factorized.hpp"
#include "jaxcc/optim/schedules.hpp"
#include "jaxcc/optim/transforms.hpp"
#include "jaxcc/optim/wrappers.hpp"
// Last: with the precompiled runtime, the rules it holds are declared extern.
#include "jaxcc/runtime/precompiled_runtime.hpp"
