// jaxcc::make_jaxpr(f)(args...): the program f traces to, printable as JAX
// prints a jaxpr.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/graph/jaxpr.hpp"
#include "jaxcc/tracing/trace_call.hpp"

namespace jaxcc {

/// A traced program with its outputs; `to_string` / `<<` print it.
class ClosedJaxpr {
 public:
  ClosedJaxpr(std::shared_ptr<graph::Trace> trace, std::vector<AnyArray> outputs)
      : trace_(std::move(trace)), outputs_(std::move(outputs)) {}
  graph::Trace const& trace() const noexcept { return *trace_; }
  std::vector<AnyArray> const& outputs() const noexcept { return outputs_; }
  std::size_t num_equations() const noexcept { return trace_->equations.size(); }

  // Templates, so that the writer is compiled only in a file that prints one.
  template <class = void>
  friend std::string to_string(ClosedJaxpr const& j) {
    graph::JaxprWriter w;
    return w.program(*j.trace_, j.outputs_, j.trace_->captures);
  }
  template <class = void>
  friend std::ostream& operator<<(std::ostream& os, ClosedJaxpr const& j) {
    return os << to_string(j);
  }

 private:
  std::shared_ptr<graph::Trace> trace_;
  std::vector<AnyArray> outputs_;
};

/// `make_jaxpr(f)(args...)` traces f on arguments of the same shapes and
/// dtypes as args (their values are not used).
template <class F>
auto make_jaxpr(F f) {
  return [f]<class... Args>(Args const&... args) {
    auto call = detail::trace_call(std::index_sequence_for<Args...>{}, f, args...);
    auto outputs = detail::array_leaves(call.out);
    return ClosedJaxpr(std::shared_ptr<graph::Trace>(std::move(call.trace)), std::move(outputs));
  };
}

}  // namespace jaxcc
