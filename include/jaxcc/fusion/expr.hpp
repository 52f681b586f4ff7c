// Fused elementwise regions as expression templates. `a * x + b * sin(x)` has
// a type that is its graph; converting it to an Array lowers that graph, by
// the C++ compiler, to ONE loop (fusion/evaluate.hpp). The shape of every
// node is checked when the node is made, so a bad broadcast fails at the line
// that wrote it.
#pragma once

#include "jaxcc/fusion/elementwise.hpp"
#include "jaxcc/fusion/expr_core.hpp"
