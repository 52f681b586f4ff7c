// gather along one axis (bits/gather_p.hpp). Its VJP scatter-adds and
// scatter_add's VJP gathers, so this header brings the scatters too.
#pragma once

#include "jaxcc/primitives/bits/scatter_p.hpp"
