// Fourier transforms: jax.numpy.fft (jnp::fft) and jax.lax.fft (lax::fft).
#pragma once

#include "jaxcc/fusion/print.hpp"
#include "jaxcc/numpy/fft.hpp"
#include "jaxcc/lax/fft.hpp"
// Last: with the precompiled runtime, the rules it holds are declared extern.
#include "jaxcc/runtime/precompiled_runtime.hpp"
