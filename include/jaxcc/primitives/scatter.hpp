// The scatters (bits/scatter_p.hpp), with gather (bits/gather_p.hpp): each
// transposes to the other.
#pragma once

#include "jaxcc/primitives/bits/scatter_p.hpp"
