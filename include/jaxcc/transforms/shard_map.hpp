// shard_map: a function written for one device's part of its arguments,
// run on every device of a mesh at once (jax.shard_map).
//
// The function is traced once on the per-device shapes, with the mesh's
// axes bound so that its collectives (lax::psum, all_gather, ppermute, ...)
// name them. The program is one `shard_map` equation: run concretely, each
// device's thread runs it on its own part of the inputs (views, no copies)
// and writes its part of the outputs in place; traced, it is recorded, and
// its JVP and VJP are shard_maps of the program's JVP and VJP. Before
// running, JAX's replication check asks whether every output claimed to be
// the same along a mesh axis (one its out_spec leaves out) provably is.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/runtime_compiled.hpp"
#include "jaxcc/devices/spmd.hpp"
#include "jaxcc/graph/optimize.hpp"
#include "jaxcc/graph/plan.hpp"
#include "jaxcc/graph/program.hpp"
#include "jaxcc/graph/value_ops.hpp"
#include "jaxcc/lax/control_flow_common.hpp"
#include "jaxcc/primitives/collectives.hpp"
#include "jaxcc/sharding/bits/spmd_ops.hpp"
#include "jaxcc/sharding/eager.hpp"
#include "jaxcc/sharding/mesh_context.hpp"
#include "jaxcc/sharding/named_sharding.hpp"
#include "jaxcc/sharding/partition.hpp"
#include "jaxcc/sharding/shard_map_call.hpp"
#include "jaxcc/sharding/sharded_array.hpp"
#include "jaxcc/tracing/trace_call.hpp"

namespace jaxcc {

/// shard_map's in_specs: one PartitionSpec per positional argument, for
/// every array in it (or one for all arguments).
struct in_specs_t {
  std::vector<P> specs;
};
/// shard_map's out_specs: one for the whole output, or one per element of
/// a returned tuple.
struct out_specs_t {
  std::vector<P> specs;
};
/// check_vma(false) turns off the replication check of out_specs.
struct check_vma_t {
  bool value = true;
};
template <std::same_as<P>... Specs>
in_specs_t in_specs(Specs const&... specs) {
  return {{specs...}};
}
template <std::same_as<P>... Specs>
out_specs_t out_specs(Specs const&... specs) {
  return {{specs...}};
}
inline check_vma_t check_vma(bool on) { return {on}; }

}  // namespace jaxcc

namespace jaxcc::detail {

/// Python's shape of an aval in errors: float32[8,4].
inline std::string short_aval(AnyArray const& x) {
  std::string s(name(x.dtype()));
  s += '[';
  for (std::size_t d = 0; d < x.shape().size(); ++d) {
    if (d) s += ',';
    s += std::to_string(x.shape()[d]);
  }
  return s + ']';
}

/// The per-device aval of an argument leaf; JAX's errors for a spec longer
/// than its rank or a split that does not divide it.
inline graph::Aval local_aval(Mesh const& mesh, P const& spec, AnyArray const& leaf, std::string const& where) {
  auto const rank = leaf.shape().size();
  if (spec.size() > rank)
    throw Error("shard_map applied to the function '<lambda>' was given an in_specs entry which is too long to be "
                "compatible with the corresponding input value from the function:\n\nin_specs" + where + " is " +
                to_string(spec) + " which has length " + std::to_string(spec.size()) + ", but the passed args" +
                where + " has shape " + short_aval(leaf) + ", which has rank " + std::to_string(rank) + " (and " +
                std::to_string(rank) + " < " + std::to_string(spec.size()) +
                ")\n\nEntries in in_specs must be of length no greater than the number of axes in the corresponding "
                "input value.\n\nEither revise the spec to be shorter, or modify '<lambda>' so that its inputs have "
                "sufficient rank." +
                (rank == 0 ? "\n\nFor scalar values (rank 0), consider using an in_specs entry of `P()`, where `P = "
                             "jaxcc::P`."
                           : ""));
  graph::Aval aval{leaf.dtype(), leaf.shape()};
  for (std::size_t d = 0; d < spec.size(); ++d) {
    auto const& names = spec.entries()[d].names;
    if (names.empty()) continue;
    std::int64_t ways = 1;
    for (auto const& n : names) ways *= mesh.axis_size(n);
    if (aval.shape[d] % ways != 0) {
      std::string axes = names.size() > 1 ? "axes (" : "axis '";
      if (names.size() > 1) {
        for (std::size_t k = 0; k < names.size(); ++k) axes += (k ? ", '" : "'") + names[k] + "'";
        axes += ")";
      } else {
        axes += names[0] + "'";
      }
      throw Error("shard_map applied to the function '<lambda>' was given argument arrays with axis sizes that are "
                  "not evenly divisible by the corresponding mesh axis sizes:\n\nThe mesh given has shape " +
                  mesh_shape_string(mesh) + ".\n\nthe passed args" + where + " of shape " + short_aval(leaf) +
                  " corresponds to in_specs" + where + " of value " + to_string(spec) + ", which maps array axis " +
                  std::to_string(d) + " (of size " + std::to_string(aval.shape[d]) + ") to mesh " + axes + " (of " +
                  (names.size() > 1 ? "total " : "") + "size " + std::to_string(ways) + "), but " +
                  std::to_string(ways) + " does not evenly divide " + std::to_string(aval.shape[d]) +
                  "\n\nArray arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated by "
                  "the corresponding elements of the argument's in_specs entry. Consider checking that in_specs are "
                  "correct, and if so consider changing the mesh axis sizes or else padding the input and adapting "
                  "'<lambda>' appropriately.");
    }
    aval.shape[d] /= ways;
  }
  return aval;
}

/// The spec of an argument leaf given no in_specs: its own sharding's,
/// which must be on the same mesh; P() for an array not put on a mesh.
inline P inferred_spec(Mesh const& mesh, AnyArray const& leaf) {
  auto const& sharding = impl_of(leaf).sharding;
  if (!sharding) return P();
  if (!(sharding->mesh() == mesh))
    throw Error("shard_map was given no in_specs and an argument laid out on " + to_string(sharding->mesh()) +
                ", not on its mesh " + to_string(mesh) + ": pass in_specs, or device_put the argument on the mesh");
  return sharding->spec();
}

/// How many Array leaves each element of a returned tuple has, when the
/// output is a tuple of `count` elements.
template <class Out>
std::optional<std::vector<std::size_t>> leaves_per_element(Out const& out, std::size_t count) {
  if constexpr (requires { std::tuple_size<Out>::value; }) {
    if (std::tuple_size_v<Out> != count) return std::nullopt;
    return std::apply([](auto const&... e) { return std::vector<std::size_t>{array_leaves(e).size()...}; }, out);
  } else {
    return std::nullopt;
  }
}

template <class F>
class ShardMapped {
 public:
  ShardMapped(F f, std::optional<Mesh> mesh, std::optional<std::vector<P>> in, std::vector<P> out, bool check)
      : f_(std::move(f)), mesh_(std::move(mesh)), in_(std::move(in)), out_(std::move(out)), check_(check) {
    install_mesh_operations();  // its outputs are sharded arrays (sharding/eager.hpp)
  }

  template <class... Args>
  auto operator()(Args const&... args) const {
    if constexpr (!(TraceableArgument<Args> && ...))  // one message, naming the argument
      static_assert(traced_arguments<Args...>(std::index_sequence_for<Args...>{}));
    else if constexpr ((holds_expression<Args> || ...)) return (*this)(as_argument(args)...);
    else return mapped(args...);
  }

 private:
  template <class... Args>
  auto mapped(Args const&... args) const {
    Mesh const mesh = mesh_ ? *mesh_ : current_mesh("shard_map");
    FlatCall<F, Args...> flat(f_, std::tuple<Args...>{args...});
    auto operands = flat.argument_leaves();

    // One spec per input leaf: its argument's, or the leaf's own layout.
    if (in_ && in_->size() != 1 && in_->size() != sizeof...(Args))
      throw Error("shard_map in_specs has " + std::to_string(in_->size()) + " entries for " +
                  std::to_string(sizeof...(Args)) + " positional arguments: give one per argument");
    std::vector<P> in_specs;
    std::vector<graph::Aval> avals;
    std::size_t argument = 0, leaf = 0;
    [[maybe_unused]] auto const per_argument = [&](auto const& arg) {
      for (std::size_t k = 0, n = array_leaves(arg).size(); k < n; ++k, ++leaf) {
        auto const spec = in_ ? (*in_)[in_->size() == 1 ? 0 : argument] : inferred_spec(mesh, operands[leaf]);
        avals.push_back(local_aval(mesh, spec, operands[leaf], "[" + std::to_string(argument) + "]"));
        in_specs.push_back(spec);
      }
      ++argument;
    };
    (per_argument(args), ...);

    std::vector<AnyArray> closure;
    auto program = trace_on_mesh(flat, mesh, avals, closure);
    for (auto& c : closure) {  // values of enclosing traces: the same on every device
      in_specs.emplace_back();
      operands.push_back(std::move(c));
    }

    // One spec per output leaf.
    auto const n_out = program.outputs.size();
    std::vector<P> out_specs;
    std::vector<std::string> out_paths;
    if (out_.size() == 1) {
      out_specs.assign(n_out, out_[0]);
      out_paths.assign(n_out, "");
    } else {
      auto const counts = leaves_per_element(flat.output(), out_.size());
      if (!counts)
        throw Error("shard_map out_specs has " + std::to_string(out_.size()) +
                    " entries but the function does not return a tuple of that many elements");
      for (std::size_t e = 0; e < counts->size(); ++e)
        for (std::size_t k = 0; k < (*counts)[e]; ++k) {
          out_specs.push_back(out_[e]);
          out_paths.push_back("[" + std::to_string(e) + "]");
        }
    }
    for (std::size_t o = 0; o < n_out; ++o)
      if (out_specs[o].size() > program.outputs[o].shape().size())
        throw Error("shard_map applied to the function '<lambda>' was given an out_specs entry which is too long to "
                    "be compatible with the corresponding output value from the function:\n\nout_specs" +
                    out_paths[o] + " is " + to_string(out_specs[o]) + " which has length " +
                    std::to_string(out_specs[o].size()) + ", but <lambda>(*args)" + out_paths[o] + " has shape " +
                    short_aval(program.outputs[o]) + ", which has rank " +
                    std::to_string(program.outputs[o].shape().size()) + " (and " +
                    std::to_string(program.outputs[o].shape().size()) + " < " + std::to_string(out_specs[o].size()) +
                    ")\n\nEntries in out_specs must be of length no greater than the number of axes in the "
                    "corresponding output value.\n\nEither revise the spec to be shorter, or modify '<lambda>' so "
                    "that its outputs have sufficient rank.");
    if (check_) check_replication(program, mesh, in_specs, out_specs, out_paths);

    graph::optimize(program);
    auto call = std::make_shared<ShardMapCall const>(std::move(program), mesh, std::move(in_specs), std::move(out_specs));
    return flat.unflatten_output(call->evaluate(operands));
  }

  F f_;
  std::optional<Mesh> mesh_;
  std::optional<std::vector<P>> in_;
  std::vector<P> out_;
  bool check_;
};

template <class Option>
concept ShardMapOption =
    std::same_as<Option, in_specs_t> || std::same_as<Option, out_specs_t> || std::same_as<Option, check_vma_t>;

template <class F, class... Options>
auto make_shard_map(F f, std::optional<Mesh> mesh, Options const&... options) {
  static_assert((std::same_as<Options, out_specs_t> || ...), "shard_map needs out_specs(P(...), ...)");
  std::optional<std::vector<P>> in;
  std::vector<P> out;
  bool check = true;
  auto const take = [&](auto const& option) {
    using O = std::remove_cvref_t<decltype(option)>;
    if constexpr (std::same_as<O, in_specs_t>) in = option.specs;
    else if constexpr (std::same_as<O, out_specs_t>) out = option.specs;
    else check = option.value;
  };
  (take(options), ...);
  return ShardMapped<F>(std::move(f), std::move(mesh), std::move(in), std::move(out), check);
}

}  // namespace jaxcc::detail

namespace jaxcc {

/// jax.shard_map: `shard_map(f, mesh, in_specs(P("data")), out_specs(P("data")))`.
/// Without in_specs each argument keeps the layout device_put gave it.
template <class F, detail::ShardMapOption... Options>
auto shard_map(F f, Mesh mesh, Options const&... options) {
  return detail::make_shard_map(std::move(f), std::optional<Mesh>(std::move(mesh)), options...);
}
/// shard_map over the mesh set by set_mesh (read when it is called).
template <class F, detail::ShardMapOption... Options>
auto shard_map(F f, Options const&... options) {
  return detail::make_shard_map(std::move(f), std::nullopt, options...);
}

}  // namespace jaxcc

