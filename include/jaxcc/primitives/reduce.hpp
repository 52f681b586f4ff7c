// The reduce_* primitives (bits/reduce_p.hpp). Their rules and those of
// slice, pad and concatenate bind one another (reduce_prod's VJP slices,
// pads and concatenates; pad's VJP sums), so this header brings all of them.
#pragma once

#include "jaxcc/primitives/bits/reduce_p.hpp"
