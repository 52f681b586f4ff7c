// jaxcc::random: JAX's PRNG (threefry2x32, partitionable), keys and samplers.
// Its own header, as jax.random is its own module: <jaxcc/jaxcc.hpp> does not
// include it, so a file that draws no random numbers compiles no sampler.
#pragma once

#include "jaxcc/fusion/print.hpp"
#include "jaxcc/random/distributions.hpp"
#include "jaxcc/random/key.hpp"
#include "jaxcc/random/univariate.hpp"
#include "jaxcc/random/multivariate.hpp"
#include "jaxcc/random/gamma.hpp"
#include "jaxcc/random/discrete.hpp"
// Last: with the precompiled runtime, the rules it holds are declared extern.
#include "jaxcc/runtime/precompiled_runtime.hpp"
