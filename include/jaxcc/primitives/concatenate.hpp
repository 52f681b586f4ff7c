// concatenate (bits/concatenate_p.hpp). Its VJP slices, and slice, pad and
// the reductions bind one another, so this header brings all of them.
#pragma once

#include "jaxcc/primitives/bits/reduce_p.hpp"
