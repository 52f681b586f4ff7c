// jax.nn: every header of nn/ (jaxcc::nn).
#pragma once

#include "jaxcc/fusion/print.hpp"
#include "jaxcc/nn/activations.hpp"
#include "jaxcc/nn/attention.hpp"
#include "jaxcc/nn/normalization.hpp"
// Last: with the precompiled runtime, the rules it holds are declared extern.
#include "jaxcc/runtime/precompiled_runtime.hpp"
