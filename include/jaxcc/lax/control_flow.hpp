// Control flow that traces, as jax.lax's: cond, select, scan, fori_loop,
// while_loop. Each body is traced once into a program carried by one
// equation, so loops do not unroll under transforms.
#pragma once

#include "jaxcc/lax/cond.hpp"
#include "jaxcc/lax/loops.hpp"
#include "jaxcc/lax/scan.hpp"
#include "jaxcc/lax/while_loop.hpp"
