// pad (bits/pad_p.hpp). Its rules and those of slice, concatenate and the
// reductions bind one another (pad transposes to slice and sums with
// reduce_sum, whose rules slice, pad and concatenate), so this header
// brings all of them.
#pragma once

#include "jaxcc/primitives/bits/reduce_p.hpp"
