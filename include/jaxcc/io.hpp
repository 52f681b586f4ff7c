// jaxcc::io: arrays in and out of files. numpy's .npy (copied or
// memory-mapped) and .npz, Hugging Face's .safetensors, and pytree
// checkpoints (io::save, io::load). Its own header, as jaxcc.hpp does not
// include it: a file that reads and writes no files compiles none of it.
// .npz needs zlib and .safetensors nlohmann-json: link the CMake target
// jaxcc::io (or include only <jaxcc/io/npy.hpp>, which needs neither).
#pragma once

#include "jaxcc/io/checkpoint.hpp"
#include "jaxcc/io/npy.hpp"
#include "jaxcc/io/npz.hpp"
#include "jaxcc/io/safetensors.hpp"
