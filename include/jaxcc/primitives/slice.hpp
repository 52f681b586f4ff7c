// slice, dynamic_slice and dynamic_update_slice (bits/slice_p.hpp). Their
// rules and those of pad, concatenate and the reductions bind one another
// (slice transposes to pad, whose VJP sums with reduce_sum, whose rules
// slice, pad and concatenate), so this header brings all of them.
#pragma once

#include "jaxcc/primitives/bits/reduce_p.hpp"
