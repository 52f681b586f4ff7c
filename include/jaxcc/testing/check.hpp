// Framework-neutral checks of a user's function under the transforms: jit
// against eager, vmap against a loop, derivatives against finite
// differences (testing/check_grads.hpp). Each has two forms:
//   - `jit_matches(f, args...)` returns a CheckResult, which says what
//     differed and where (its message is empty when it passed);
//   - `check_jit(f, args...)` throws jaxcc::testing::CheckError instead.
// The Catch2 and GoogleTest adapters (testing/catch.hpp, testing/gtest.hpp)
// turn either into a test failure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/indexing.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/testing/allclose.hpp"
#include "jaxcc/testing/check_result.hpp"
#include "jaxcc/testing/check_grads.hpp"
#include "jaxcc/transforms/jit.hpp"
#include "jaxcc/transforms/trace_call.hpp"
#include "jaxcc/transforms/vmap.hpp"

namespace jaxcc::testing {

/// Tolerances for comparing two computations of one value.
struct Tolerance {
  std::optional<double> rtol, atol;  // unset: default_tolerance of the dtype
};

/// JAX's default test tolerance per dtype (jax._src.test_util
/// `_default_tolerance`), used as both rtol and atol: 1e-6 for float32,
/// 1e-15 for float64, exact for integers and bool.
constexpr double default_tolerance(DType dtype) noexcept {
  switch (dtype) {
    case DType::float32: return 1e-6;
    case DType::float64: return 1e-15;
    default: return 0;
  }
}

namespace detail {

/// Why two leaves differ ("" when close), at the tolerance for their dtype.
inline std::string leaf_difference(AnyArray const& actual, AnyArray const& expected, Tolerance const& tol) {
  if (actual.dtype() != expected.dtype())
    return std::string("dtypes differ: ") + std::string(name(actual.dtype())) + " vs " + std::string(name(expected.dtype()));
  auto const t = default_tolerance(expected.dtype());
  return actual.visit([&](auto const& a) {
    using T = typename std::remove_cvref_t<decltype(a)>::value_type;
    return compare(a, expected.as<T>(), tol.rtol.value_or(t), tol.atol.value_or(t), true).why;
  });
}

/// The first output leaf that differs, as "<what> differs from f at output leaf k: ...".
inline std::string first_difference(std::vector<AnyArray> const& actual, std::vector<AnyArray> const& expected,
                                    Tolerance const& tol, std::string const& what) {
  if (actual.size() != expected.size())
    return what + " returns " + std::to_string(actual.size()) + " arrays, f " + std::to_string(expected.size());
  for (std::size_t k = 0; k < actual.size(); ++k)
    if (auto why = leaf_difference(actual[k], expected[k], tol); !why.empty())
      return what + " differs from f at output leaf " + std::to_string(k) + ": " + why;
  return {};
}

/// Slice `index` of every array leaf of `arg` along `axis` (none: `arg` as it is).
template <class Arg, class Spec>
auto example_of(Arg const& arg, Spec const& spec, std::int64_t index) {
  if constexpr (std::same_as<Spec, none_t>) {
    return arg;
  } else {
    return tree::map(
        [&](auto const& leaf) {
          using L = std::remove_cvref_t<decltype(leaf)>;
          if constexpr (AnArray<L>) {
            auto const axis = jaxcc::detail::normalize_axis(static_cast<std::int64_t>(spec), leaf.ndim(), "check_vmap");
            return numpy::take(leaf, numpy::array(index), axis);
          } else {
            return leaf;
          }
        },
        arg);
  }
}

/// The size of the mapped axis: that of the first mapped array leaf.
template <class Spec, class Arg>
std::optional<std::int64_t> mapped_size(Spec const& spec, Arg const& arg) {
  std::optional<std::int64_t> size;
  if constexpr (!std::same_as<Spec, none_t>)
    for (auto const& leaf : jaxcc::detail::array_leaves(arg))
      if (!size) {
        auto const axis = jaxcc::detail::normalize_axis(static_cast<std::int64_t>(spec), leaf.ndim(), "check_vmap");
        size = leaf.shape()[static_cast<std::size_t>(axis)];
      }
  return size;
}

inline AnyArray stacked(std::vector<AnyArray> const& slices) {
  return slices[0].visit([&](auto const& first) -> AnyArray {
    using T = typename std::remove_cvref_t<decltype(first)>::value_type;
    std::vector<Array<T>> typed;
    for (auto const& s : slices) typed.push_back(s.as<T>());
    return numpy::stack(typed, 0);
  });
}

}  // namespace detail

/// jit(f) against eager f at these arguments, on the first call (traced)
/// and on a second (the cached plan).
template <class F, class... Args>
CheckResult jit_matches(F const& f, Tolerance const& tol, Args const&... args) {
  auto const expected = jaxcc::detail::array_leaves(jaxcc::detail::materialized(f(args...)));
  auto const jitted = jaxcc::jit(f);
  for (char const* call : {"jit(f), traced on its first call,", "jit(f), on a second call (the cached plan),"}) {
    auto const got = jaxcc::detail::array_leaves(jitted(args...));
    if (auto why = detail::first_difference(got, expected, tol, call); !why.empty()) return {"check_jit: " + why};
  }
  return {};
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

/// vmap(f, in_axes) against a loop of f over the examples, its results
/// stacked along axis 0. `in_axes` gives an int or jaxcc::none per
/// argument (or one for all).
template <class F, class... Specs, class... Args>
CheckResult vmap_matches(F const& f, in_axes_t<Specs...> const& in, Tolerance const& tol, Args const&... args) {
  static_assert(sizeof...(Specs) == 1 || sizeof...(Specs) == sizeof...(Args),
                "check_vmap: in_axes gives one entry per argument, or one for all");
  auto const spec = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
    if constexpr (sizeof...(Specs) == 1) return std::get<0>(in.specs);
    else return std::get<I>(in.specs);
  };
  auto const all = std::forward_as_tuple(args...);
  std::optional<std::int64_t> n;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((n = n ? n : detail::mapped_size(spec(std::integral_constant<std::size_t, I>{}), std::get<I>(all))), ...);
  }(std::index_sequence_for<Args...>{});
  if (!n) return {"check_vmap: no argument is mapped"};

  auto const got = jaxcc::detail::array_leaves(jaxcc::vmap(f, in)(args...));
  std::vector<std::vector<AnyArray>> per_leaf;
  for (std::int64_t i = 0; i < *n; ++i) {
    auto const out = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return jaxcc::detail::array_leaves(jaxcc::detail::materialized(
          f(detail::example_of(std::get<I>(all), spec(std::integral_constant<std::size_t, I>{}), i)...)));
    }(std::index_sequence_for<Args...>{});
    per_leaf.resize(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) per_leaf[k].push_back(out[k]);
  }
  std::vector<AnyArray> expected;
  for (auto const& slices : per_leaf) expected.push_back(detail::stacked(slices));
  if (auto why = detail::first_difference(got, expected, tol, "vmap(f)"); !why.empty())
    return {"check_vmap: " + why + " (f looped over the " + std::to_string(*n) + " examples, stacked along axis 0)"};
  return {};
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

}  // namespace jaxcc::testing
