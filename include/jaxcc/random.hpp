// jaxcc::random: JAX's PRNG (threefry2x32, partitionable), keys and samplers.
#pragma once

#include "jaxcc/random/distributions.hpp"
#include "jaxcc/random/key.hpp"
