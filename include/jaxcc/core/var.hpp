// graph::Var: a value in a traced program, known by its dtype and shape
// alone. A traced Array points at one; copies of the Array share it, so a
// value used twice is one Var used twice.
#pragma once

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

#include "jaxcc/core/dtype.hpp"
#include "jaxcc/core/shape.hpp"

namespace jaxcc::graph {

struct Var {
  DType dtype;
  Shape shape;
  std::uint64_t trace_id;  // the trace that made it
  std::uint64_t id;        // creation order within that trace
};

/// JAX's short dtype names: f32, f64, bf16, f16, c64, c128, i8, i16, i32, i64,
/// u8, u32, bool.
constexpr std::string_view short_name(DType d) noexcept {
  switch (d) {
    case DType::bool_: return "bool";
    case DType::int32: return "i32";
    case DType::int64: return "i64";
    case DType::float32: return "f32";
    case DType::float64: return "f64";
    case DType::uint32: return "u32";
    case DType::int8: return "i8";
    case DType::uint8: return "u8";
    case DType::int16: return "i16";
    case DType::bfloat16: return "bf16";
    case DType::float16: return "f16";
    case DType::complex64: return "c64";
    case DType::complex128: return "c128";
  }
  return "?";
}

/// An abstract value as JAX prints it: `f32[3,4]`, `bool[]`.
inline std::string type_string(DType dtype, Shape const& shape) {
  std::ostringstream os;
  os << short_name(dtype) << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) os << (i ? "," : "") << shape[i];
  os << ']';
  return os.str();
}

}  // namespace jaxcc::graph
