// Framework-neutral checks of a user's function under the transforms: jit
// against eager, vmap against a loop, derivatives against finite
// differences (testing/check_grads.hpp), vmap of a function's JVP and
// VJP against a loop (check_batching_rule), and the function at 0-d and
// empty inputs (check_edges). Each has two forms:
//   - `jit_matches(f, args...)` returns a CheckResult, which says what
//     differed and where (its message is empty when it passed);
//   - `check_jit(f, args...)` throws jaxcc::testing::CheckError instead.
// The Catch2 and GoogleTest adapters (testing/catch.hpp, testing/gtest.hpp)
// turn either into a test failure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/runtime_compiled.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/testing/allclose.hpp"
#include "jaxcc/testing/check_grads.hpp"
#include "jaxcc/testing/check_result.hpp"
#include "jaxcc/testing/flat.hpp"
#include "jaxcc/testing/random_inputs.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/transforms/jit.hpp"
#include "jaxcc/transforms/jvp.hpp"
#include "jaxcc/transforms/vjp.hpp"
#include "jaxcc/transforms/vmap.hpp"

namespace jaxcc::testing {

/// Tolerances for comparing two computations of one value.
struct Tolerance {
  std::optional<double> rtol, atol;  // unset: default_tolerance of the dtype
};

/// JAX's default test tolerance per dtype (jax._src.test_util
/// `_default_tolerance`), used as both rtol and atol: 1e-2 for bfloat16,
/// 1e-3 for float16, 1e-6 for float32 and complex64, 1e-15 for float64
/// and complex128, exact for integers and bool.
constexpr double default_tolerance(DType dtype) noexcept {
  switch (dtype) {
    case DType::bfloat16: return 1e-2;
    case DType::float16: return 1e-3;
    case DType::float32:
    case DType::complex64: return 1e-6;
    case DType::float64:
    case DType::complex128: return 1e-15;
    default: return 0;
  }
}

namespace detail {

// The helpers over leaves of a run-time dtype are templates (a defaulted
// parameter) so that only a file that calls them compiles them at every dtype.

/// Why two leaves differ ("" when close), at the tolerance for their dtype.
template <class = void>
std::string leaf_difference(AnyArray const& actual, AnyArray const& expected, Tolerance const& tol) {
  if (actual.dtype() != expected.dtype())
    return std::string("dtypes differ: ") + std::string(name(actual.dtype())) + " vs " + std::string(name(expected.dtype()));
  auto const t = default_tolerance(expected.dtype());
  return actual.visit([&](auto const& a) {
    using T = typename std::remove_cvref_t<decltype(a)>::value_type;
    return compare(a, expected.as<T>(), tol.rtol.value_or(t), tol.atol.value_or(t), true).why;
  });
}

/// The first leaf that differs, as "<leaf_name(k)>: <why>" ("" when all are close).
template <class LeafName>
std::string first_differing_leaf(std::vector<AnyArray> const& actual, std::vector<AnyArray> const& expected,
                                 Tolerance const& tol, LeafName const& leaf_name) {
  for (std::size_t k = 0; k < actual.size(); ++k)
    if (auto why = leaf_difference(actual[k], expected[k], tol); !why.empty()) return leaf_name(k) + ": " + why;
  return {};
}

/// The first output leaf that differs, as "<what> differs from f at output leaf k: ...".
template <class = void>
std::string first_difference(std::vector<AnyArray> const& actual, std::vector<AnyArray> const& expected,
                                    Tolerance const& tol, std::string const& what) {
  if (actual.size() != expected.size())
    return what + " returns " + std::to_string(actual.size()) + " arrays, f " + std::to_string(expected.size());
  return first_differing_leaf(actual, expected, tol, [&](std::size_t k) {
    return what + " differs from f at output leaf " + std::to_string(k);
  });
}

/// The output leaves of vmap(f, in) at the arguments, and of f looped over
/// the examples with its results stacked along axis 0.
struct BatchedAndLooped {
  std::vector<AnyArray> batched, looped;
  std::int64_t examples;
};

/// vmap(f) over the leaves with their axes, and the loop; empty when no
/// leaf is mapped. `check` names the check in errors.
template <class V = void>
std::optional<BatchedAndLooped> batched_and_looped(std::string_view check, FlatFunction const& f,
                                                   MappedLeaves const& leaves) {
  // The size of the mapped axis: that of the first mapped leaf.
  std::optional<std::int64_t> n;
  for (auto const& leaf : leaves)
    if (leaf.axis && !n)
      n = leaf.value.shape()[static_cast<std::size_t>(jaxcc::detail::normalize_axis(*leaf.axis, leaf.value.ndim(), check))];
  if (!n) return std::nullopt;

  auto batched = flat_vmap<V>(f, leaves);
  std::vector<Leaves> per_leaf;
  for (std::int64_t i = 0; i < *n; ++i) {
    Leaves example;
    for (auto const& leaf : leaves) {
      std::optional<std::int64_t> axis;
      if (leaf.axis) axis = jaxcc::detail::normalize_axis(*leaf.axis, leaf.value.ndim(), check);
      example.push_back(example_of(leaf.value, axis, i));
    }
    auto const out = f(example);
    per_leaf.resize(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) per_leaf[k].push_back(out[k]);
  }
  Leaves looped;
  for (auto const& slices : per_leaf) looped.push_back(stacked(slices));
  return BatchedAndLooped{std::move(batched), std::move(looped), *n};
}

/// jit_matches once f is flat.
template <class V = void>
CheckResult jit_matches_at(FlatFunction const& f, Tolerance const& tol, Leaves const& args) {
  auto const expected = f(args);
  auto operands = args;
  auto const jitted = flat_jit<V>(f, operands);
  Leaves got = jitted->evaluate(operands);
  if (auto why = first_difference<V>(got, expected, tol, "jit(f), traced on its first call,"); !why.empty())
    return {"check_jit: " + why};
  got.clear();
  jitted->evaluate_into(operands, got);
  if (auto why = first_difference<V>(got, expected, tol, "jit(f), on a second call (the cached plan),"); !why.empty())
    return {"check_jit: " + why};
  return {};
}

}  // namespace detail

/// jit(f) against eager f at these arguments, on the first call (traced)
/// and on a second (the cached plan).
template <class F, class... Args>
CheckResult jit_matches(F const& f, Tolerance const& tol, Args const&... args) {
  auto const concrete = detail::concrete_arguments(args...);
  return detail::jit_matches_at(detail::flat_function(f, concrete), tol, detail::tuple_leaves(concrete));
}
template <class F, class... Args>
CheckResult jit_matches(F const& f, Args const&... args) {
  return jit_matches(f, Tolerance{}, args...);
}
/// The throwing form of jit_matches.
template <class F, class... Args>
void check_jit(F const& f, Args const&... args) {
  jit_matches(f, args...).require();
}

namespace detail {

/// f's output leaves at `args`, or the message of the jaxcc::Error it raised.
template <class F, class Args>
std::pair<std::vector<AnyArray>, std::optional<std::string>> outcome_of(F const& f, Args const& args) {
  try {
    return {jaxcc::detail::array_leaves(jaxcc::detail::materialized(std::apply(f, args))), std::nullopt};
  } catch (Error const& e) {
    return {{}, e.what()};
  }
}

/// edges_match for argument K: each of its edge inputs in turn.
template <std::size_t K, class F, class Jitted, class... Args>
std::string edges_differ_at(F const& f, Jitted const& jitted, std::tuple<Args...> const& args) {
  using A = std::tuple_element_t<K, std::tuple<Args...>>;
  if constexpr (!AnArray<A>) {
    return {};
  } else {
    for (auto const& edge : edge_inputs(std::get<K>(args), static_cast<std::uint32_t>(K))) {
      auto call = args;
      std::get<K>(call) = edge;
      std::ostringstream at;
      at << "argument " << K << " of shape " << edge.shape();
      auto const [expected, eager_error] = outcome_of(f, call);
      auto const [got, jit_error] = outcome_of(jitted, call);
      if (eager_error && !jit_error) return "f raised at " + at.str() + " (" + *eager_error + "), jit(f) did not";
      if (jit_error && !eager_error) return "jit(f) raised at " + at.str() + " (" + *jit_error + "), f did not";
      if (eager_error) continue;
      if (auto why = first_difference(got, expected, Tolerance{}, "jit(f) at " + at.str()); !why.empty()) return why;
    }
    return {};
  }
}

}  // namespace detail

/// f where one array argument at a time is 0-d, then empty along each of its
/// axes in turn (edge_inputs, the other arguments as given): f either
/// raises a jaxcc::Error, and jit(f) then raises too, or returns, and jit(f)
/// returns the same. Under AddressSanitizer it also catches a kernel that
/// touches an empty buffer. Scalar arguments stay as they are.
template <class F, class... Args>
CheckResult edges_match(F const& f, Args const&... args) {
  auto const jitted = jaxcc::jit(f);
  auto const all = std::make_tuple(args...);
  std::string why;
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ((why.empty() ? void(why = detail::edges_differ_at<K>(f, jitted, all)) : void()), ...);
  }(std::index_sequence_for<Args...>{});
  if (!why.empty()) return {"check_edges: " + why};
  return {};
}
/// The throwing form of edges_match.
template <class F, class... Args>
void check_edges(F const& f, Args const&... args) {
  edges_match(f, args...).require();
}

namespace detail {

/// vmap_matches once f is flat.
template <class V = void>
CheckResult vmap_matches_at(FlatFunction const& f, MappedLeaves const& leaves, Tolerance const& tol) {
  auto const runs = batched_and_looped<V>("check_vmap", f, leaves);
  if (!runs) return {"check_vmap: no argument is mapped"};
  if (auto why = first_difference<V>(runs->batched, runs->looped, tol, "vmap(f)"); !why.empty())
    return {"check_vmap: " + why + " (f looped over the " + std::to_string(runs->examples) +
            " examples, stacked along axis 0)"};
  return {};
}

}  // namespace detail

/// vmap(f, in_axes) against a loop of f over the examples, its results
/// stacked along axis 0. `in_axes` gives an int or jaxcc::none per
/// argument (or one for all).
template <class F, class... Specs, class... Args>
CheckResult vmap_matches(F const& f, in_axes_t<Specs...> const& in, Tolerance const& tol, Args const&... args) {
  auto const concrete = detail::concrete_arguments(args...);
  return detail::vmap_matches_at(detail::flat_function(f, concrete), detail::mapped_leaves(in, concrete), tol);
}
template <class F, class... Specs, class... Args>
CheckResult vmap_matches(F const& f, in_axes_t<Specs...> const& in, Args const&... args) {
  return vmap_matches(f, in, Tolerance{}, args...);
}
/// The throwing form of vmap_matches.
template <class F, class... Specs, class... Args>
void check_vmap(F const& f, in_axes_t<Specs...> const& in, Args const&... args) {
  vmap_matches(f, in, args...).require();
}

/// check_grads (testing/check_grads.hpp) as a CheckResult.
template <class F, class... Args>
CheckResult grads_match(F const& f, std::tuple<Args...> const& args, int order, GradCheckOptions const& options = {}) {
  try {
    check_grads(f, args, order, options);
  } catch (CheckError const& e) {
    return {e.what()};
  }
  return {};
}

/// What check_batching_rule compares beyond vmap of f itself, and how closely.
struct BatchingRuleOptions {
  Tolerance tolerance{};  // for every comparison (unset: default_tolerance of each leaf's dtype)
  bool fwd = true;        // vmap of f's JVP; off for a custom_vjp function, which has no JVP
  bool rev = true;        // vmap of f's VJP
};

namespace detail {

/// A name for each leaf of vjp(f)'s result: the argument whose cotangent it
/// is, and which of that argument's leaves when it has several.
template <class... Args>
std::vector<std::string> cotangent_leaf_names(Args const&... args) {
  std::vector<std::string> names;
  std::size_t argument = 0;
  auto const add = [&](auto const& arg) {
    auto const leaves = jaxcc::detail::array_leaves(arg).size();
    for (std::size_t j = 0; j < leaves; ++j)
      names.push_back("the cotangent of argument " + std::to_string(argument) +
                      (leaves > 1 ? " (its leaf " + std::to_string(j) + ")" : ""));
    ++argument;
  };
  (add(args), ...);
  return names;
}

inline std::string looped_note(std::string const& what, std::int64_t examples) {
  return " (" + what + " looped over the " + std::to_string(examples) + " examples, stacked along axis 0)";
}

/// batching_rule_matches once f is flat; `names` names each leaf of the
/// arguments' cotangents.
template <class V = void>
CheckResult batching_rule_matches_at(FlatFunction const& f, MappedLeaves const& leaves,
                                     BatchingRuleOptions const& options, std::vector<std::string> const& names) {
  auto const& tol = options.tolerance;
  auto const values = batched_and_looped<V>("check_batching_rule", f, leaves);
  if (!values) return {"check_batching_rule: no argument is mapped"};
  if (auto why = first_differing_leaf(values->batched, values->looped, tol, [](std::size_t k) {
        return "vmap(f) differs from f at output leaf " + std::to_string(k);
      });
      !why.empty())
    return {"check_batching_rule: " + why + looped_note("f", values->examples)};

  Leaves args;
  for (auto const& leaf : leaves) args.push_back(leaf.value);
  std::mt19937_64 rng(0);
  if (options.fwd) {
    // One tangent per example where the argument is mapped: shaped and mapped like it.
    auto with_tangents = leaves;
    for (auto const& t : with_values(leaves, random_like<V>(args, rng))) with_tangents.push_back(t);
    auto const jvps = batched_and_looped<V>("check_batching_rule", flat_jvp_function<V>(f, args.size()), with_tangents);
    // jvp(f)'s leaves: f's outputs, then their tangents.
    auto const num_out = jvps->batched.size() / 2;
    if (auto why = first_differing_leaf(jvps->batched, jvps->looped, tol, [&](std::size_t k) {
          return k < num_out ? "vmap(jvp(f)) differs from jvp(f) at output leaf " + std::to_string(k)
                             : "vmap(jvp(f)) differs from jvp(f) at the tangent of output leaf " + std::to_string(k - num_out);
        });
        !why.empty())
      return {"check_batching_rule: " + why + looped_note("jvp(f)", jvps->examples)};
  }
  if (options.rev) {
    // One cotangent per example: shaped like vmap(f)'s output, mapped along its axis 0.
    auto with_cotangent = leaves;
    for (auto const& c : random_like<V>(values->batched, rng)) with_cotangent.push_back({c, 0, "the cotangent"});
    auto const vjps = batched_and_looped<V>("check_batching_rule", flat_vjp_function<V>(f, args.size()), with_cotangent);
    if (auto why = first_differing_leaf(vjps->batched, vjps->looped, tol, [&](std::size_t k) {
          return "vmap(vjp(f)) differs from vjp(f) at " + names[k];
        });
        !why.empty())
      return {"check_batching_rule: " + why + looped_note("vjp(f)", vjps->examples)};
  }
  return {};
}

}  // namespace detail

/// A function's batching checked with its derivatives, for a user's own
/// custom_jvp or custom_vjp function (or primitive), whose derivative rules
/// are batched too: vmap(f, in) against f looped over the examples, then
/// vmap of f's JVP (random tangents, mapped as their arguments) and of its
/// VJP (random cotangents, one per example) against the same loop of the
/// JVP and the VJP. A rule that is right for one example and wrong for a
/// batch fails here; one that is wrong for every example is check_grads's
/// to catch. Tangents and cotangents are pseudo-random (fixed seed).
template <class F, class... Specs, class... Args>
CheckResult batching_rule_matches(F const& f, in_axes_t<Specs...> const& in, BatchingRuleOptions const& options,
                                  Args const&... args) {
  auto const concrete = detail::concrete_arguments(args...);
  return detail::batching_rule_matches_at(detail::flat_function(f, concrete), detail::mapped_leaves(in, concrete),
                                          options, detail::cotangent_leaf_names(args...));
}
template <class F, class... Specs, class... Args>
CheckResult batching_rule_matches(F const& f, in_axes_t<Specs...> const& in, Args const&... args) {
  return batching_rule_matches(f, in, BatchingRuleOptions{}, args...);
}
/// The throwing forms of batching_rule_matches.
template <class F, class... Specs, class... Args>
void check_batching_rule(F const& f, in_axes_t<Specs...> const& in, BatchingRuleOptions const& options,
                         Args const&... args) {
  batching_rule_matches(f, in, options, args...).require();
}
template <class F, class... Specs, class... Args>
void check_batching_rule(F const& f, in_axes_t<Specs...> const& in, Args const&... args) {
  batching_rule_matches(f, in, args...).require();
}

}  // namespace jaxcc::testing

// With the precompiled runtime, it holds the checks' machinery above at
// <void> (as testing/check_grads.hpp's): a file that checks compiles only
// its own functions made flat.
#if defined(JAXCC_PRECOMPILED_RUNTIME)
namespace jaxcc::testing::detail {
JAXCC_RUNTIME_INSTANCE(std::string leaf_difference<void>(AnyArray const&, AnyArray const&, Tolerance const&))
JAXCC_RUNTIME_INSTANCE(std::string first_difference<void>(Leaves const&, Leaves const&, Tolerance const&,
                                                          std::string const&))
JAXCC_RUNTIME_INSTANCE(std::optional<BatchedAndLooped> batched_and_looped<void>(std::string_view, FlatFunction const&,
                                                                                MappedLeaves const&))
JAXCC_RUNTIME_INSTANCE(CheckResult jit_matches_at<void>(FlatFunction const&, Tolerance const&, Leaves const&))
JAXCC_RUNTIME_INSTANCE(CheckResult vmap_matches_at<void>(FlatFunction const&, MappedLeaves const&, Tolerance const&))
JAXCC_RUNTIME_INSTANCE(CheckResult batching_rule_matches_at<void>(FlatFunction const&, MappedLeaves const&,
                                                                  BatchingRuleOptions const&,
                                                                  std::vector<std::string> const&))
}  // namespace jaxcc::testing::detail
#endif  // JAXCC_PRECOMPILED_RUNTIME
