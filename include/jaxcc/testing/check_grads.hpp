// jaxcc::testing::check_grads(f, args, order): JVPs and VJPs of f checked
// against central finite differences, as jax.test_util.check_grads does:
//  - fwd: jvp(f)(args, t) against (f(args + eps t) - f(args - eps t)) / 2eps;
//  - rev: <vjp(f)(ct), t> against <ct, numerical jvp along t>;
//  - order 2 checks the same of the JVP and VJP functions themselves.
// Tangents and cotangents are pseudo-random (fixed seed). Use float64
// arguments for tight tolerances; failures raise jaxcc::Error saying what
// differed and by how much (jaxcc::testing::CheckError, a jaxcc::Error).
// f is made a function of its arguments' array leaves at the call
// (testing/flat.hpp): the rest, the nested transforms included, is the
// same code for every f.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/runtime_compiled.hpp"
#include "jaxcc/testing/check_result.hpp"
#include "jaxcc/testing/flat.hpp"
#include "jaxcc/tracing/trace_call.hpp"

namespace jaxcc::testing {

struct GradCheckOptions {
  double eps = 1e-4;
  double atol = 1e-5;
  double rtol = 1e-5;
  bool fwd = true;
  bool rev = true;
};

using jaxcc::detail::materialized;

namespace detail {

using jaxcc::detail::array_leaves;
using jaxcc::detail::with_array_leaves;

// Templates (a defaulted parameter), so that only a file that checks
// gradients compiles these at every dtype. A complex leaf is a vector of
// R^2: its values are (re, im) pairs, and so are the finite differences.
template <class = void>
std::vector<double> values_of(AnyArray const& a) {
  return a.visit([](auto const& x) {
    auto v = x.to_vector();
    using T = typename decltype(v)::value_type;
    if constexpr (ComplexElement<T>) {
      std::vector<double> out;
      for (auto c : v) {
        out.push_back(static_cast<double>(c.real()));
        out.push_back(static_cast<double>(c.imag()));
      }
      return out;
    } else {
      return std::vector<double>(v.begin(), v.end());
    }
  });
}

template <class = void>
AnyArray array_like(AnyArray const& like, std::vector<double> const& values) {
  return like.visit([&](auto const& x) -> AnyArray {
    using T = typename std::remove_cvref_t<decltype(x)>::value_type;
    if constexpr (ComplexElement<T>) {
      std::vector<T> v;
      for (std::size_t k = 0; k + 1 < values.size(); k += 2) v.emplace_back(values[k], values[k + 1]);
      return numpy::array(std::move(v), x.shape());
    } else {
      return numpy::array(std::vector<T>(values.begin(), values.end()), x.shape());
    }
  });
}

/// Each complex leaf conjugated (the others as they are).
template <class = void>
std::vector<AnyArray> conjugated(std::vector<AnyArray> const& leaves) {
  std::vector<AnyArray> out;
  for (auto const& l : leaves) {
    if (!is_complex(l.dtype())) {
      out.push_back(l);
      continue;
    }
    auto v = values_of(l);
    for (std::size_t k = 1; k < v.size(); k += 2) v[k] = -v[k];
    out.push_back(array_like(l, v));
  }
  return out;
}

/// Random leaves shaped like these (normal values, both parts of a complex
/// one; ints and bools get 0).
template <class = void>
std::vector<AnyArray> random_like(std::vector<AnyArray> const& leaves, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::vector<AnyArray> out;
  for (auto const& l : leaves) {
    bool const is_float = has_tangent_space(l.dtype());
    std::vector<double> v(static_cast<std::size_t>(l.size()) * (is_complex(l.dtype()) ? 2 : 1));
    for (auto& x : v) x = is_float ? normal(rng) : 0.0;
    out.push_back(array_like(l, v));
  }
  return out;
}

template <class = void>
std::vector<AnyArray> axpy(std::vector<AnyArray> const& x, double a, std::vector<AnyArray> const& y) {
  std::vector<AnyArray> out;
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto xv = values_of(x[i]);
    auto yv = values_of(y[i]);
    for (std::size_t k = 0; k < xv.size(); ++k) xv[k] += a * yv[k];
    out.push_back(array_like(x[i], xv));
  }
  return out;
}

template <class = void>
double inner(std::vector<AnyArray> const& a, std::vector<AnyArray> const& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto av = values_of(a[i]);
    auto bv = values_of(b[i]);
    for (std::size_t k = 0; k < av.size(); ++k) s += av[k] * bv[k];
  }
  return s;
}

template <class = void>
void check_close(std::vector<AnyArray> const& actual, std::vector<std::vector<double>> const& expected,
                        GradCheckOptions const& o, std::string const& what) {
  for (std::size_t i = 0; i < actual.size(); ++i) {
    auto av = values_of(actual[i]);
    for (std::size_t k = 0; k < av.size(); ++k)
      if (!(std::abs(av[k] - expected[i][k]) <= o.atol + o.rtol * std::abs(expected[i][k]))) {
        std::ostringstream os;
        os.precision(10);
        os << "check_grads: " << what << " differs from finite differences at output leaf " << i << ", element "
           << k << ": " << av[k] << " vs " << expected[i][k];
        throw CheckError(os.str());
      }
  }
}

/// (f(x + eps t) - f(x - eps t)) / 2 eps, per output leaf.
template <class V = void>
std::vector<std::vector<double>> numerical_jvp(FlatFunction const& f, Leaves const& x, Leaves const& tangent,
                                               double eps) {
  auto const plus = f(axpy<V>(x, eps, tangent));
  auto const minus = f(axpy<V>(x, -eps, tangent));
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < plus.size(); ++i) {
    auto p = values_of<V>(plus[i]);
    auto m = values_of<V>(minus[i]);
    for (std::size_t k = 0; k < p.size(); ++k) p[k] = (p[k] - m[k]) / (2 * eps);
    out.push_back(std::move(p));
  }
  return out;
}

template <class V = void>
void check_jvp(FlatFunction const& f, Leaves const& x, GradCheckOptions const& o, std::mt19937_64& rng,
               std::string const& what) {
  auto const tangent = random_like<V>(x, rng);
  auto const tangent_out = flat_jvp<V>(f, x, tangent).second;
  check_close<V>(tangent_out, numerical_jvp<V>(f, x, tangent, o.eps), o, "JVP of " + what);
}

template <class V = void>
void check_vjp(FlatFunction const& f, Leaves const& x, GradCheckOptions const& o, std::mt19937_64& rng,
               std::string const& what) {
  auto const [out, pullback] = flat_vjp<V>(f, x);
  auto const tangent = random_like<V>(x, rng);
  auto const expected_out = numerical_jvp<V>(f, x, tangent, o.eps);
  auto const cotangent = random_like<V>(out, rng);
  // JAX's check_vjp: conj(vjp(conj(ct))), whose inner product with t, the
  // real one of R^2, is <ct, jvp(t)> (JAX's transposes do not conjugate).
  auto const input_cts = conjugated<V>(pullback(conjugated<V>(cotangent)));
  double const ip = inner<V>(tangent, input_cts);
  double expected = 0;
  for (std::size_t i = 0; i < cotangent.size(); ++i) {
    auto c = values_of<V>(cotangent[i]);
    for (std::size_t k = 0; k < c.size(); ++k) expected += c[k] * expected_out[i][k];
  }
  if (!(std::abs(ip - expected) <= o.atol + o.rtol * std::abs(expected))) {
    std::ostringstream os;
    os.precision(10);
    os << "check_grads: VJP of " << what << " disagrees with finite differences: <vjp(ct), t> = " << ip
       << " but <ct, jvp(t)> = " << expected;
    throw CheckError(os.str());
  }
}

/// check_grads of a flat function, to `order`: at order 2 the same of its
/// JVP, a function of (primals, tangents) taken at (x, x), and of its VJP
/// applied to its own output.
template <class V = void>
void check_grads_flat(FlatFunction const& f, Leaves const& x, int order, GradCheckOptions const& o,
                      std::mt19937_64& rng, std::string const& what) {
  if (o.fwd) {
    check_jvp<V>(f, x, o, rng, what);
    if (order > 1) {
      auto twice = x;
      twice.insert(twice.end(), x.begin(), x.end());
      check_grads_flat<V>(flat_jvp_function<V>(f, x.size()), twice, order - 1, o, rng, "JVP of " + what);
    }
  }
  if (o.rev) {
    check_vjp<V>(f, x, o, rng, what);
    if (order > 1) {
      FlatFunction const vjp_of_f = [&f](Leaves const& a) {
        auto const [out, pullback] = flat_vjp<V>(f, a);
        return pullback(out);
      };
      check_grads_flat<V>(vjp_of_f, x, order - 1, o, rng, "VJP of " + what);
    }
  }
}

/// check_grads once f is flat: the order checked, the fixed seed.
template <class V = void>
void check_grads_at(FlatFunction const& f, Leaves const& x, int order, GradCheckOptions const& options) {
  if (order != 1 && order != 2) throw Error("check_grads: order must be 1 or 2, got " + std::to_string(order));
  std::mt19937_64 rng(0);
  check_grads_flat<V>(f, x, order, options, rng, "f");
}

}  // namespace detail

/// Check f's derivatives up to `order` (1 or 2) at `args` (a std::tuple of
/// pytrees) against finite differences; throws CheckError on a mismatch.
template <class F, class... Args>
void check_grads(F const& f, std::tuple<Args...> const& args, int order, GradCheckOptions const& options = {}) {
  auto const concrete = std::apply([](auto const&... a) { return detail::concrete_arguments(a...); }, args);
  detail::check_grads_at(detail::flat_function(f, concrete), detail::tuple_leaves(concrete), order, options);
}

}  // namespace jaxcc::testing

// With the precompiled runtime, it holds the machinery above (and that of
// testing/flat.hpp) at <void>: a file that checks gradients compiles only
// its own functions made flat. (runtime/machinery.hpp includes the testing
// headers where the runtime is built, for these.)
#if defined(JAXCC_PRECOMPILED_RUNTIME)
namespace jaxcc::testing::detail {
// jaxcc/testing/flat.hpp
JAXCC_RUNTIME_INSTANCE(FlatTrace trace_flat<void>(FlatFunction const&, Leaves const&))
JAXCC_RUNTIME_INSTANCE(std::pair<Leaves, Leaves> flat_jvp<void>(FlatFunction const&, Leaves const&, Leaves const&))
JAXCC_RUNTIME_INSTANCE(FlatVjp flat_vjp<void>(FlatFunction const&, Leaves const&))
JAXCC_RUNTIME_INSTANCE(FlatFunction flat_jvp_function<void>(FlatFunction, std::size_t))
JAXCC_RUNTIME_INSTANCE(FlatFunction flat_vjp_function<void>(FlatFunction, std::size_t))
JAXCC_RUNTIME_INSTANCE(Leaves flat_vmap<void>(FlatFunction const&, MappedLeaves))
JAXCC_RUNTIME_INSTANCE(std::shared_ptr<graph::PrimitiveBase const> flat_jit<void>(FlatFunction const&, Leaves&))
// jaxcc/testing/check_grads.hpp
JAXCC_RUNTIME_INSTANCE(std::vector<double> values_of<void>(AnyArray const&))
JAXCC_RUNTIME_INSTANCE(AnyArray array_like<void>(AnyArray const&, std::vector<double> const&))
JAXCC_RUNTIME_INSTANCE(Leaves conjugated<void>(Leaves const&))
JAXCC_RUNTIME_INSTANCE(Leaves random_like<void>(Leaves const&, std::mt19937_64&))
JAXCC_RUNTIME_INSTANCE(Leaves axpy<void>(Leaves const&, double, Leaves const&))
JAXCC_RUNTIME_INSTANCE(double inner<void>(Leaves const&, Leaves const&))
JAXCC_RUNTIME_INSTANCE(void check_close<void>(Leaves const&, std::vector<std::vector<double>> const&,
                                              GradCheckOptions const&, std::string const&))
JAXCC_RUNTIME_INSTANCE(std::vector<std::vector<double>> numerical_jvp<void>(FlatFunction const&, Leaves const&,
                                                                            Leaves const&, double))
JAXCC_RUNTIME_INSTANCE(void check_jvp<void>(FlatFunction const&, Leaves const&, GradCheckOptions const&,
                                            std::mt19937_64&, std::string const&))
JAXCC_RUNTIME_INSTANCE(void check_vjp<void>(FlatFunction const&, Leaves const&, GradCheckOptions const&,
                                            std::mt19937_64&, std::string const&))
JAXCC_RUNTIME_INSTANCE(void check_grads_flat<void>(FlatFunction const&, Leaves const&, int, GradCheckOptions const&,
                                                   std::mt19937_64&, std::string const&))
JAXCC_RUNTIME_INSTANCE(void check_grads_at<void>(FlatFunction const&, Leaves const&, int, GradCheckOptions const&))
}  // namespace jaxcc::testing::detail
#endif  // JAXCC_PRECOMPILED_RUNTIME
