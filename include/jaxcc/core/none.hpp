// jaxcc::none: JAX's `None` where an axis or mesh-axis entry may be absent.
#pragma once

namespace jaxcc {

struct none_t {
  friend constexpr bool operator==(none_t, none_t) noexcept { return true; }
};
inline constexpr none_t none{};

}  // namespace jaxcc
