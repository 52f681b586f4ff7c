// Linear algebra: jax.numpy.linalg (jnp::linalg, the norms) and
// jax.lax.linalg (lax::linalg).
#pragma once

#include "jaxcc/fusion/print.hpp"
#include "jaxcc/numpy/linalg.hpp"
#include "jaxcc/numpy/linalg_array_api.hpp"
#include "jaxcc/numpy/linalg_decompositions.hpp"
#include "jaxcc/numpy/linalg_eig.hpp"
#include "jaxcc/numpy/linalg_solve.hpp"
#include "jaxcc/numpy/norm.hpp"
#include "jaxcc/lax/linalg.hpp"
// Last: with the precompiled runtime, the rules it holds are declared extern.
#include "jaxcc/runtime/precompiled_runtime.hpp"
