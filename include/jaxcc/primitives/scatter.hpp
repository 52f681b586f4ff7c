// scatter into the window that integer indices on the leading axes select:
// the primitive behind `x.at(i, j).set(v)` / `.add(v)` / ... A new array is
// made; the operand is never written. As in JAX's default scatter mode, an
// update whose window lies outside the operand is dropped.
#pragma once

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "jaxcc/core/array.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/slice.hpp"

namespace jaxcc::primitives {

struct scatter_p {
  static constexpr std::string_view name = "scatter";
  /// How an update combines with the element it lands on (JAX's scatter,
  /// scatter_add, scatter_sub, scatter_mul, scatter_min, scatter_max).
  enum class Kind { set, add, subtract, multiply, min, max };
  struct Params {
    Axes indices;  // one per leading axis, negatives already wrapped; out of range drops the update
    Kind kind;
  };

  template <Element T>
  static Shape shape_rule(Params const& p, Array<T> const& x, Array<T> const& updates) {
    auto const k = static_cast<std::int64_t>(p.indices.size());
    if (k > x.ndim()) {
      std::ostringstream os;
      os << "Too many indices: array is " << x.ndim() << "-dimensional, but " << k << " were indexed";
      throw Error(os.str());
    }
    Shape const window(x.shape().begin() + k, x.shape().end());
    if (!(updates.shape() == window)) {
      std::ostringstream os;
      os << "scatter: updates of shape " << updates.shape() << " do not match the window " << window
         << " that " << k << " leading indices select in an operand of shape " << x.shape();
      throw Error(os.str());
    }
    return x.shape();
  }

  template <Element T>
  static Array<T> impl(Params const& p, Shape out_shape, Array<T> const& x, Array<T> const& updates) {
    for (std::size_t d = 0; d < p.indices.size(); ++d)
      if (p.indices[d] < 0 || p.indices[d] >= x.shape()[d]) return x;  // dropped, as mode="drop"
    if (updates.size() == 0) return x;
    auto const strides = detail::contiguous_strides(out_shape);
    auto [out, data] = detail::allocate<T>(std::move(out_shape));
    x.copy_to(data);
    T* window = data;
    for (std::size_t d = 0; d < p.indices.size(); ++d) window += p.indices[d] * strides[d];
    Strides const window_strides(strides.begin() + static_cast<std::ptrdiff_t>(p.indices.size()), strides.end());
    auto const apply = [&](auto combine) {
      detail::write_region(updates, window, window_strides, [&](T& dst, T u) { dst = combine(dst, u); });
    };
    switch (p.kind) {
      case Kind::set: apply([](T, T u) { return u; }); break;
      case Kind::add: apply([](T a, T u) { return combine_add(a, u); }); break;
      case Kind::subtract:
        if constexpr (std::same_as<T, bool>) throw Error("scatter_sub does not accept dtype bool");
        else apply([](T a, T u) { return combine_sub(a, u); });
        break;
      case Kind::multiply: apply([](T a, T u) { return combine_mul(a, u); }); break;
      case Kind::min: apply([](T a, T u) { return combine_min(a, u); }); break;
      case Kind::max: apply([](T a, T u) { return combine_max(a, u); }); break;
    }
    return out;
  }

 private:
  // Integers wrap on overflow as in XLA (computed unsigned: no UB); bools
  // add as OR and multiply as AND.
  template <Element T>
  static T combine_add(T a, T u) {
    if constexpr (std::same_as<T, bool>) return a || u;
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(u));
    else return a + u;
  }
  template <Element T>
  static T combine_sub(T a, T u) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(u));
    else return a - u;
  }
  template <Element T>
  static T combine_mul(T a, T u) {
    if constexpr (std::same_as<T, bool>) return a && u;
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(u));
    else return a * u;
  }
  // NaN wins, as lax.min / lax.max.
  template <Element T>
  static T combine_min(T a, T u) {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(a) || std::isnan(u)) return std::isnan(a) ? a : u;
    return std::min(a, u);
  }
  template <Element T>
  static T combine_max(T a, T u) {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(a) || std::isnan(u)) return std::isnan(a) ? a : u;
    return std::max(a, u);
  }
};

}  // namespace jaxcc::primitives
