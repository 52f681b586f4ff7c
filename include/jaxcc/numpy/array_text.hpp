// jnp.array_repr and jnp.array_str: numpy's text of an array, laid out by
// core/print.hpp's printer (the one jaxcc's `<<` uses).
#pragma once

#include <string>
#include <string_view>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/print.hpp"
#include "jaxcc/fusion/evaluate.hpp"

namespace jaxcc::detail {

/// An array's values may be printed here: not traced, not partly elsewhere.
template <Element T>
void require_printable(Array<T> const& x, std::string_view what) {
  if (x.is_traced()) throw_concretization_error(x.shape(), x.dtype(), what);
  if (ArrayAccess::impl(x).partly_elsewhere) throw_not_addressable();
}

/// Whether numpy's repr leaves the dtype out (numpy's default types: float64,
/// int64, bool).
constexpr bool repr_dtype_implied(DType d) { return d == DType::float64 || d == DType::int64 || d == DType::bool_; }

/// numpy's dtype_short_repr: the name, or `dtype(bfloat16)` for ml_dtypes' type.
inline std::string dtype_short_repr(DType d) {
  return d == DType::bfloat16 ? "dtype(bfloat16)" : std::string(name(d));
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// jnp.array_repr(x), which is numpy's array_repr applied to a JAX array:
/// `ArrayImpl(` (JAX's array class) + the elements + `)`, with `shape=` where
/// the elements do not show it (empty but not of shape (0,), or summarized
/// past 1000 elements) and `dtype=` unless it is numpy's default (float64,
/// int64, bool) of a non-empty array; these go on a new line where the last
/// one would pass 75 columns. A traced array raises JAX's concretization
/// error.
template <Element T>
std::string array_repr(Array<T> const& x) {
  detail::require_printable(x, "jnp::array_repr");
  constexpr std::string_view prefix = "ArrayImpl(";
  std::string const body = x.size() == 0 ? "[]" : detail::ArrayPrinter<T>(x, prefix).print();
  std::string extras;
  if ((x.size() == 0 && x.ndim() != 1) || x.size() > detail::print_threshold) extras = "shape=" + to_string(x.shape());
  if (!detail::repr_dtype_implied(x.dtype()) || x.size() == 0)
    extras += (extras.empty() ? "dtype=" : ", dtype=") + detail::dtype_short_repr(x.dtype());
  if (extras.empty()) return std::string(prefix) + body + ")";
  auto const text = std::string(prefix) + body + ",";
  auto const last_line = text.size() - (text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  bool const wrap = last_line + extras.size() + 2 > detail::print_line_width;  // + ")" and the space
  return text + (wrap ? "\n" + std::string(prefix.size(), ' ') : " ") + extras + ")";
}

/// jnp.array_str(x), numpy's str of an array: the elements separated by
/// spaces, with no class name or dtype (`[1. 2. 3.]`). JAX has no array_str
/// of a 0-d array (numpy's indexes it as an ndarray), nor has jaxcc; a traced
/// array raises JAX's concretization error.
template <Element T>
std::string array_str(Array<T> const& x) {
  detail::require_printable(x, "jnp::array_str");
  if (x.ndim() == 0)
    throw Error("array_str: JAX gives no array_str of a 0-d array (numpy's array_str indexes it as an ndarray); "
                "use jnp::array_repr(x) or x.item()");
  if (x.size() == 0) return "[]";
  return detail::ArrayPrinter<T>(x, "", " ", 0).print();
}

/// array_repr and array_str of a fused expression: of the array it evaluates to.
template <class E>
  requires fusion::is_expr<E>::value
std::string array_repr(E const& e) {
  return array_repr(as_array(e));
}
template <class E>
  requires fusion::is_expr<E>::value
std::string array_str(E const& e) {
  return array_str(as_array(e));
}

}  // namespace jaxcc::numpy
