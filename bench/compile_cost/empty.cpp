// Compile cost: what including the whole library costs a file that uses none of it.
#include <jaxcc/jaxcc.hpp>

int main() {}
