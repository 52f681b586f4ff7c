// The named axes in scope: vmap's axis_name and shard_map's mesh axes,
// for the collectives that name them (their shape rules ask the size).
// Thread-local: each device's thread of a shard_map binds its own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/graph/batch_dim.hpp"

namespace jaxcc::detail {
inline std::vector<graph::AxisData>& axis_env() {
  thread_local std::vector<graph::AxisData> env;
  return env;
}
}  // namespace jaxcc::detail

namespace jaxcc::graph {

/// Names a mapped axis for the collectives traced within its lifetime.
class ScopedAxis {
 public:
  explicit ScopedAxis(AxisData axis) : active_(!axis.name.empty()) {
    if (active_) detail::axis_env().push_back(std::move(axis));
  }
  ScopedAxis(ScopedAxis const&) = delete;
  ScopedAxis& operator=(ScopedAxis const&) = delete;
  ~ScopedAxis() {
    if (active_) detail::axis_env().pop_back();
  }

 private:
  bool active_;
};

/// The innermost axis of that name; JAX's NameError when none is bound.
inline AxisData const& find_axis(std::string_view name) {
  auto const& env = detail::axis_env();
  for (auto it = env.rbegin(); it != env.rend(); ++it)
    if (it->name == name) return *it;
  throw Error("unbound axis name: " + std::string(name) +
              ". The following axis names (e.g. defined by vmap or shard_map) are available to collective operations: " +
              [&] {
                std::string names;
                for (auto const& a : env) names += (names.empty() ? "" : ", ") + a.name;
                return names.empty() ? std::string("(none)") : names;
              }());
}

}  // namespace jaxcc::graph
