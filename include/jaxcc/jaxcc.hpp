// The umbrella header: everything a user needs.
#pragma once

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/dtype.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/core/print.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/lax/slicing.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/primitives/reshape.hpp"
#include "jaxcc/primitives/transpose.hpp"
