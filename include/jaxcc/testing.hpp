// jaxcc::testing: check_grads, check_vmap, check_jit, check_batching_rule,
// check_edges, allclose and the random inputs they use. The adapters for a
// test framework stay their own headers: <jaxcc/testing/catch.hpp>,
// <jaxcc/testing/gtest.hpp>.
#pragma once

#include "jaxcc/testing/allclose.hpp"
#include "jaxcc/testing/check.hpp"
#include "jaxcc/testing/check_grads.hpp"
#include "jaxcc/testing/check_result.hpp"
#include "jaxcc/testing/random_inputs.hpp"
// Last: with the precompiled runtime, the rules it holds are declared extern.
#include "jaxcc/runtime/precompiled_runtime.hpp"
