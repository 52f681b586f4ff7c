// The elementwise primitive family. Each op declares, together: its name,
// its result dtype, its scalar kernel, its SIMD kernel (where the lane type
// allows; `long_kernel = true` where that is a long series, a
// transcendental function's) and its tangent rule. Fused regions (fusion/)
// are trees of these ops; a region's JVP and VJP are programs built from
// the ops' tangent rules (fusion/program.hpp).
//
// A tangent rule `tangent(args..., dargs...)` builds the expression of the
// op's output tangent from its operands and their tangents. Tangents may be
// the symbolic `fusion::Zero<T>` / `fusion::One<T>`, which the combinators
// below fold away, so a derivative carries no work for what cannot vary.
#pragma once

#include "jaxcc/fusion/elementwise_arithmetic.hpp"
#include "jaxcc/fusion/elementwise_functions.hpp"
#include "jaxcc/fusion/elementwise_special.hpp"
#include "jaxcc/fusion/elementwise_scipy.hpp"
