// jaxcc::testing::check_grads(f, args, order): JVPs and VJPs of f checked
// against central finite differences, as jax.test_util.check_grads does:
//  - fwd: jvp(f)(args, t) against (f(args + eps t) - f(args - eps t)) / 2eps;
//  - rev: <vjp(f)(ct), t> against <ct, numerical jvp along t>;
//  - order 2 checks the same of the JVP and VJP functions themselves.
// Tangents and cotangents are pseudo-random (fixed seed). Use float64
// arguments for tight tolerances; failures raise jaxcc::Error saying what
// differed and by how much (jaxcc::testing::CheckError, a jaxcc::Error).
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

#include "jaxcc/testing/check_result.hpp"
#include "jaxcc/tracing/trace_call.hpp"
#include "jaxcc/transforms/jvp.hpp"
#include "jaxcc/transforms/vjp.hpp"

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

template <class Tuple>
std::vector<AnyArray> tuple_leaves(Tuple const& t) {
  std::vector<AnyArray> out;
  std::apply([&](auto const&... x) { (([&] { auto l = array_leaves(x); out.insert(out.end(), l.begin(), l.end()); })(), ...); }, t);
  return out;
}

template <class Tuple>
Tuple tuple_with_leaves(Tuple const& like, std::vector<AnyArray> const& leaves) {
  std::size_t next = 0;
  return std::apply([&](auto const&... x) { return Tuple{with_array_leaves(x, leaves, next)...}; }, like);
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

/// (f(args + eps t) - f(args - eps t)) / 2 eps, per output leaf.
template <class F, class Args>
std::vector<std::vector<double>> numerical_jvp(F const& f, Args const& args, std::vector<AnyArray> const& tangent,
                                               double eps) {
  auto const x = tuple_leaves(args);
  auto const plus = array_leaves(materialized(std::apply(f, tuple_with_leaves(args, axpy(x, eps, tangent)))));
  auto const minus = array_leaves(materialized(std::apply(f, tuple_with_leaves(args, axpy(x, -eps, tangent)))));
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < plus.size(); ++i) {
    auto p = values_of(plus[i]);
    auto m = values_of(minus[i]);
    for (std::size_t k = 0; k < p.size(); ++k) p[k] = (p[k] - m[k]) / (2 * eps);
    out.push_back(std::move(p));
  }
  return out;
}

template <class F, class Args>
void check_jvp(F const& f, Args const& args, GradCheckOptions const& o, std::mt19937_64& rng, std::string const& what) {
  auto const tangent = random_like(tuple_leaves(args), rng);
  auto [out, tangent_out] = jaxcc::jvp(f, args, tuple_with_leaves(args, tangent));
  check_close(array_leaves(tangent_out), numerical_jvp(f, args, tangent, o.eps), o, "JVP of " + what);
}

template <class F, class Args>
void check_vjp(F const& f, Args const& args, GradCheckOptions const& o, std::mt19937_64& rng, std::string const& what) {
  auto [out, pullback] = std::apply([&](auto const&... a) { return jaxcc::vjp(f, a...); }, args);
  auto const tangent = random_like(tuple_leaves(args), rng);
  auto const expected_out = numerical_jvp(f, args, tangent, o.eps);
  auto const out_leaves = array_leaves(out);
  auto const cotangent = random_like(out_leaves, rng);
  std::size_t next = 0;
  // JAX's check_vjp: conj(vjp(conj(ct))), whose inner product with t, the
  // real one of R^2, is <ct, jvp(t)> (JAX's transposes do not conjugate).
  auto const ct_tree = with_array_leaves(out, conjugated(cotangent), next);
  auto const input_cts = conjugated(tuple_leaves(pullback(ct_tree)));
  double const ip = inner(tangent, input_cts);
  double expected = 0;
  for (std::size_t i = 0; i < cotangent.size(); ++i) {
    auto c = values_of(cotangent[i]);
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

/// Order is a template parameter: each order instantiates the derivative
/// functions of the one below, so it must stop at compile time.
template <int Order, class F, class Args>
void check_grads_rec(F const& f, Args const& args, GradCheckOptions const& o, std::mt19937_64& rng,
                     std::string const& what) {
  if (o.fwd) {
    check_jvp(f, args, o, rng, what);
    if constexpr (Order > 1) {
      auto const jvp_of_f = [&f](auto const& primals, auto const& tangents) { return jaxcc::jvp(f, primals, tangents); };
      check_grads_rec<Order - 1>(jvp_of_f, std::tuple<Args, Args>{args, args}, o, rng, "JVP of " + what);
    }
  }
  if (o.rev) {
    check_vjp(f, args, o, rng, what);
    if constexpr (Order > 1) {
      auto const vjp_of_f = [&f](auto const&... a) {
        auto [out, pullback] = jaxcc::vjp(f, a...);
        return pullback(out);
      };
      check_grads_rec<Order - 1>(vjp_of_f, args, o, rng, "VJP of " + what);
    }
  }
}

/// f behind one type per signature (a std::function of the arguments'
/// types, returning its result as arrays): the transforms check_grads
/// nests (six per function) are then compiled once for all the functions
/// of one signature that a file checks, not once per function.
template <class F, class... Args>
auto erased(F const& f, std::tuple<Args...> const&) {
  using R = decltype(materialized(f(std::declval<Args const&>()...)));
  return std::function<R(Args const&...)>([&f](Args const&... args) -> R { return materialized(f(args...)); });
}

}  // namespace detail

/// Check f's derivatives up to `order` (1 or 2) at `args` (a std::tuple of
/// pytrees) against finite differences; throws CheckError on a mismatch.
template <class F, class... Args>
void check_grads(F const& f, std::tuple<Args...> const& args, int order, GradCheckOptions const& options = {}) {
  std::mt19937_64 rng(0);
  auto const concrete = std::apply([](auto const&... a) { return std::tuple<decltype(materialized(a))...>{materialized(a)...}; }, args);
  auto const g = detail::erased(f, concrete);
  if (order == 1) detail::check_grads_rec<1>(g, concrete, options, rng, "f");
  else if (order == 2) detail::check_grads_rec<2>(g, concrete, options, rng, "f");
  else throw Error("check_grads: order must be 1 or 2, got " + std::to_string(order));
}

}  // namespace jaxcc::testing
