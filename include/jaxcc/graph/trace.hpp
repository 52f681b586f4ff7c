// Tracing: while a transform runs a user function, every primitive applied
// to a traced Array is recorded as an Equation of the innermost Trace among
// its operands. Traces nest (grad of grad, vmap of grad): each lives on a
// thread-local stack, and a value of an outer trace used inside an inner one
// becomes one of the inner trace's captures, as a closed-over constant does
// in JAX.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/buffer.hpp"
#include "jaxcc/core/var.hpp"
#include "jaxcc/graph/batch_dim.hpp"
#include "jaxcc/graph/layout.hpp"
#include "jaxcc/graph/primitive_base.hpp"

namespace jaxcc::graph {

struct Equation {
  std::shared_ptr<PrimitiveBase const> primitive;
  std::vector<VarPtr> inputs;
  std::vector<VarPtr> outputs;
};

/// A value from outside the trace (a concrete array, or a value of an
/// enclosing trace) that the traced program reads.
struct Capture {
  VarPtr var;
  AnyArray value;
};

class Trace {
 public:
  Trace() : id_(next_id()) {}
  Trace(Trace const&) = delete;
  Trace& operator=(Trace const&) = delete;

  std::uint64_t id() const noexcept { return id_; }
  /// Vars made so far; their ids are 0 .. var_count() - 1.
  std::size_t var_count() const noexcept { return var_count_; }

  VarPtr new_var(DType dtype, Shape shape) {
    auto v = std::make_shared<Var>(Var{dtype, std::move(shape), id_, var_count_++});
    return v;
  }
  /// A parameter of the traced function, as a traced Array.
  template <Element T>
  Array<T> add_input(Shape shape) {
    return detail::ArrayAccess::make<T>(detail::ArrayAccess::handle(add_input(dtype_of<T>, std::move(shape))));
  }
  AnyArray add_input(DType dtype, Shape shape) {
    auto v = new_var(dtype, std::move(shape));
    inputs.push_back(v);
    return traced_any(v);
  }
  /// The Var standing for `value` inside this trace: its own Var if it was
  /// made here, else a capture (one per captured array).
  VarPtr var_for(AnyArray const& value) {
    auto const* impl = &detail::ArrayAccess::impl(value);
    if (impl->var && impl->var->trace_id == id_) return impl->var;
    if (auto it = capture_index_.find(impl); it != capture_index_.end()) return captures[it->second].var;
    auto v = new_var(value.dtype(), value.shape());
    capture_index_.emplace(impl, captures.size());
    captures.push_back({v, value});
    return v;
  }
  void record(std::shared_ptr<PrimitiveBase const> primitive, std::vector<VarPtr> in, std::vector<VarPtr> out) {
    equations.push_back({std::move(primitive), std::move(in), std::move(out)});
  }

  template <Element T>
  static Array<T> traced_array(VarPtr const& v) {
    return detail::ArrayAccess::make<T>(traced_handle(v));
  }
  static AnyArray traced_any(VarPtr const& v) { return AnyArray::from_handle(v->dtype, traced_handle(v)); }

  std::vector<VarPtr> inputs;
  std::vector<Capture> captures;
  std::vector<Equation> equations;

 private:
  /// The handle of an array standing for `v`: a shape and dtype, no buffer.
  static std::shared_ptr<detail::ArrayImpl const> traced_handle(VarPtr const& v) {
    return detail::new_handle({v->shape, {}, 0, nullptr, v});
  }
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> counter{1};
    return counter++;
  }
  std::uint64_t id_;
  std::uint64_t var_count_ = 0;
  std::unordered_map<detail::ArrayImpl const*, std::size_t> capture_index_;
};

}  // namespace jaxcc::graph

namespace jaxcc::graph {

/// A traced function closed over its constants (graph/program.hpp).
struct Program {
  std::shared_ptr<Trace> trace;
  std::vector<AnyArray> outputs;  // Vars of `trace`, or constants
  std::size_t num_arguments = 0;  // trace->inputs: the arguments, then the converted captures
};

/// A function of flat arrays, as closed programs are traced from.
using FlatFunction = std::function<std::vector<AnyArray>(std::vector<AnyArray> const&)>;

inline void PrintingRules::print(JaxprSink& w, std::span<std::string const> inputs, std::span<VarPtr const> outputs) const {
  std::string lhs, rhs(name());
  for (auto const& v : outputs) {
    if (!lhs.empty()) lhs += ' ';
    lhs += w.binder(*v);
  }
  std::string params = params_string();
  if (auto const* p = subprogram()) {
    std::string program = "jaxpr=";
    program += w.program(*p->trace, p->outputs, p->trace->captures, subprogram_fusions());
    if (!params.empty()) program.append(" ").append(params);
    params = std::move(program);
  }
  if (!params.empty()) rhs.append("[").append(params).append("]");
  for (auto const& in : inputs) rhs.append(" ").append(in);
  lhs.append(" = ").append(rhs);
  w.emit(std::move(lhs));
}

}  // namespace jaxcc::graph

namespace jaxcc::detail {
inline std::vector<graph::Trace*>& trace_stack() {
  thread_local std::vector<graph::Trace*> stack;
  return stack;
}
}  // namespace jaxcc::detail

namespace jaxcc::graph {

/// Makes `trace` the innermost active trace for its lifetime.
class ScopedTrace {
 public:
  explicit ScopedTrace(Trace& trace) { detail::trace_stack().push_back(&trace); }
  ScopedTrace(ScopedTrace const&) = delete;
  ScopedTrace& operator=(ScopedTrace const&) = delete;
  ~ScopedTrace() { detail::trace_stack().pop_back(); }
};

/// The active trace that made `v`; JAX's UnexpectedTracerError if none does
/// (the value leaked out of the transform that traced it).
inline std::size_t trace_level_of(Var const& v) {
  auto const& stack = detail::trace_stack();
  for (std::size_t i = stack.size(); i-- > 0;)
    if (stack[i]->id() == v.trace_id) return i;
  throw Error("Encountered an unexpected tracer. A function transformed by jaxcc had a side effect, allowing for a "
              "reference to an intermediate value with type " +
              type_string(v.dtype, v.shape) +
              " to escape the scope of the transformation.\njaxcc transformations require that functions explicitly "
              "return their outputs, and disallow saving intermediate values to global state.");
}

/// The innermost active trace among the Vars it is shown.
class InnermostTrace {
 public:
  void see(VarPtr const& var) {
    if (!var) return;
    auto const l = trace_level_of(*var);
    if (!trace_ || l > level_) {
      trace_ = detail::trace_stack()[l];
      level_ = l;
    }
  }
  Trace* get() const noexcept { return trace_; }

 private:
  Trace* trace_ = nullptr;
  std::size_t level_ = 0;
};

/// The Var behind an array, or null for a concrete one.
inline VarPtr const& var_of(AnyArray const& a) {
  return detail::ArrayAccess::impl(a).var;
}

}  // namespace jaxcc::graph
