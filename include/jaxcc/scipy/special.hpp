// jax.scipy.special: every function jaxcc has of it, in jaxcc::scipy::special.
#pragma once

#include "jaxcc/scipy/special/bessel.hpp"
#include "jaxcc/scipy/special/entropy.hpp"
#include "jaxcc/scipy/special/error_functions.hpp"
#include "jaxcc/scipy/special/exponential_integrals.hpp"
#include "jaxcc/scipy/special/gamma.hpp"
#include "jaxcc/scipy/special/incomplete.hpp"
#include "jaxcc/scipy/special/logistic.hpp"
#include "jaxcc/scipy/special/logsumexp.hpp"
#include "jaxcc/scipy/special/zeta.hpp"
