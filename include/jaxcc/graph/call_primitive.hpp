// What the call primitives share: cond, while, scan, closed calls (jit,
// checkpoint), custom_jvp/custom_vjp calls and shard_map carry traced
// programs, and apply, differentiate and batch by binding those programs'
// equations again.
#pragma once

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/graph/program.hpp"
#include "jaxcc/graph/trace.hpp"

namespace jaxcc::graph {

/// Whether a program holds a collective over the named axis (then vmap must
/// batch the call that carries it even when no operand is mapped).
inline bool program_binds_axis(Program const& p, std::string_view axis_name) {
  return std::any_of(p.trace->equations.begin(), p.trace->equations.end(),
                     [&](Equation const& eq) { return eq.primitive->binds_axis(axis_name); });
}

/// The base of a call primitive. `Derived` is the primitive's own type, for
/// shared_from_this: its equation holds it.
template <class Derived>
class CallPrimitive : public PrimitiveBase, public std::enable_shared_from_this<Derived> {
 public:
  /// The programs it calls: a cond's branches, a while's condition and
  /// body, the one program of the others.
  virtual std::vector<Program const*> called() const = 0;

  /// Parameters beyond its programs: none unless it says.
  std::string params_string() const override { return {}; }
  /// A collective over the axis anywhere in its programs binds it.
  bool binds_axis(std::string_view axis_name) const override {
    return std::ranges::any_of(called(), [&](Program const* p) { return program_binds_axis(*p, axis_name); });
  }

 protected:
  /// This call applied to `inputs` through the one bind path: recorded in
  /// the innermost trace among them, else `compute()` (graph::apply).
  template <class Compute>
  std::vector<AnyArray> apply(std::span<AnyArray const> inputs, std::span<Aval const> out_avals,
                              Compute&& compute) const {
    return graph::apply(this->shared_from_this(), inputs, out_avals, std::forward<Compute>(compute));
  }
};

}  // namespace jaxcc::graph
