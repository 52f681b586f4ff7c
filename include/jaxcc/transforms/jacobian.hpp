// Jacobians: jaxcc::jacrev (the pullback vmapped over the output's basis),
// jaxcc::jacfwd (the JVP vmapped over the input's basis) and jaxcc::hessian
// (jacfwd of jacrev), as JAX builds them: one batched pass, not a loop. The function's output is one Array; each argument
// differentiated may be a pytree, and its Jacobian is a pytree of the same
// structure whose leaves have shape output.shape + leaf.shape, as in JAX.
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/transforms/jvp.hpp"
#include "jaxcc/transforms/options.hpp"
#include "jaxcc/transforms/vjp.hpp"
#include "jaxcc/transforms/vmap.hpp"

namespace jaxcc {

namespace detail {

/// The standard basis of a shape, stacked: (n, shape...) with n = its size.
template <Element T>
Array<T> stacked_basis(Shape const& shape) {
  Shape stacked{shape.numel()};
  for (auto d : shape) stacked.push_back(d);
  return lax::reshape(numpy::eye<T>(shape.numel()), stacked);
}


/// f as a function of its arguments at positions I (the others fixed).
template <std::size_t... I, class F, class... Args>
auto restricted(std::index_sequence<I...>, F const& f, Args const&... args) {
  return [&f, all = std::tuple<Args const&...>(args...)](auto const&... chosen) {
    auto picked = std::tuple<decltype(chosen) const&...>(chosen...);
    auto select = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) -> decltype(auto) {
      constexpr std::size_t slots[] = {I...};
      constexpr std::size_t pos = [] {
        std::size_t p = 0;
        while (p < sizeof...(I) && slots[p] != K) ++p;
        return p;
      }();
      if constexpr (pos < sizeof...(I)) return std::get<pos>(picked);
      else return std::get<K>(all);
    };
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return f(select(std::integral_constant<std::size_t, K>{})...);
    }(std::index_sequence_for<Args...>{});
  };
}

template <class A>
auto argnum_sequence() {
  return []<std::size_t... J>(std::index_sequence<J...>) { return std::index_sequence<A::indices[J]...>{}; }(
      std::make_index_sequence<A::indices.size()>{});
}

/// A tree of rows batched along axis 0 (one per element of an output of
/// shape `prefix`), with each leaf reshaped to prefix ++ its own shape.
template <class Tree>
Tree rows_to_jacobian(Tree const& batched, Shape const& prefix) {
  return tree::map(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) {
          Shape const own(leaf.shape().begin() + 1, leaf.shape().end());
          return lax::reshape(leaf, concat_shapes(prefix, own));
        } else {
          return leaf;
        }
      },
      batched);
}

}  // namespace detail

/// The Jacobian by reverse mode: the pullback vmapped over the basis of the
/// output's cotangents, as JAX's jacrev.
template <class F, detail::DiffOption... Options>
auto jacrev(F f, Options...) {
  using A = typename detail::find_argnums<Options...>::type;
  return [f]<class... Args>(Args const&... given)
    requires ArgnumsWithinArguments<A, sizeof...(Args)>
  {
    auto const run = [&](auto const&... args) {
      auto const all = std::forward_as_tuple(args...);
      auto g = [&]<std::size_t... I>(std::index_sequence<I...> seq) {
        // Named, not a structured binding: clang before 16 cannot capture those in lambdas.
        auto out_and_pullback = vjp(detail::restricted(seq, f, args...), std::get<I>(all)...);
        auto const& out = out_and_pullback.first;
        auto const& pullback = out_and_pullback.second;
        using Out = std::remove_cvref_t<decltype(out)>;
        static_assert(AnArray<Out>, "jacrev differentiates functions that return one array");
        using T = typename Out::value_type;
        auto const rows = vmap([&](Array<T> const& ct) { return pullback(ct); })(detail::stacked_basis<T>(out.shape()));
        return detail::rows_to_jacobian(rows, out.shape());
      }(detail::argnum_sequence<A>());
      if constexpr (A::single) return std::get<0>(std::move(g));
      else return g;
    };
    return run(detail::as_argument(given)...);
  };
}

namespace detail {

/// Tangents shaped like `primals`: zero, except `t` at array leaf `leaf` of
/// primal K.
template <std::size_t K, class Primals, Element T>
auto one_hot_tangents(Primals const& primals, std::size_t leaf, Array<T> const& t) {
  return [&]<std::size_t... P>(std::index_sequence<P...>) {
    return std::tuple<std::remove_cvref_t<decltype(std::get<P>(primals))>...>{[&] {
      auto const& like = std::get<P>(primals);
      std::vector<graph::MaybeArray> seed(array_leaves(like).size());
      if constexpr (P == K) seed[leaf] = AnyArray(t);
      std::size_t next = 0;
      return rebuild_like(like, seed, next);
    }()...};
  }(std::make_index_sequence<std::tuple_size_v<Primals>>{});
}

/// The Jacobian of fn with respect to primal K (a pytree): for each leaf,
/// the JVP vmapped over that leaf's basis of tangents, as JAX's jacfwd.
template <std::size_t K, class Fn, class Primals>
auto jacfwd_wrt(Fn const& fn, Primals const& primals) {
  using Out = decltype(materialized(std::apply(fn, primals)));
  static_assert(AnArray<Out>, "jacfwd differentiates functions that return one array");
  std::size_t leaf_index = 0;
  return tree::map(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) {
          using T = typename L::value_type;
          auto const k = leaf_index++;
          auto const pushforward = [&](Array<T> const& t) {
            return jvp(fn, primals, one_hot_tangents<K>(primals, k, t)).second;
          };
          // The basis' axis goes last: out.shape ++ (n,), then out.shape ++ leaf.shape.
          Out const columns = vmap(pushforward, in_axes(0), out_axes(-1))(stacked_basis<T>(leaf.shape()));
          Shape const out_shape(columns.shape().begin(), columns.shape().end() - 1);
          return lax::reshape(columns, concat_shapes(out_shape, leaf.shape())).template astype<T>();
        } else {
          return leaf;
        }
      },
      std::get<K>(primals));
}

}  // namespace detail

/// The Jacobian by forward mode: JVPs vmapped over the input's basis.
template <class F, detail::DiffOption... Options>
auto jacfwd(F f, Options...) {
  using A = typename detail::find_argnums<Options...>::type;
  return [f]<class... Args>(Args const&... given)
    requires ArgnumsWithinArguments<A, sizeof...(Args)>
  {
    auto const run = [&](auto const&... args) {
      auto const all = std::forward_as_tuple(args...);
      auto g = [&]<std::size_t... I>(std::index_sequence<I...> seq) {
        auto const fn = detail::restricted(seq, f, args...);
        auto const primals = std::tuple<std::remove_cvref_t<decltype(std::get<I>(all))>...>{std::get<I>(all)...};
        return [&]<std::size_t... K>(std::index_sequence<K...>) {
          return std::tuple<decltype(detail::jacfwd_wrt<K>(fn, primals))...>{detail::jacfwd_wrt<K>(fn, primals)...};
        }(std::index_sequence_for<decltype(std::get<I>(all))...>{});
      }(detail::argnum_sequence<A>());
      if constexpr (A::single) return std::get<0>(std::move(g));
      else return g;
    };
    return run(detail::as_argument(given)...);
  };
}

/// The Hessian: jacfwd of jacrev, as jax.hessian.
template <class F, detail::DiffOption... Options>
auto hessian(F f, Options... options) {
  return jacfwd(jacrev(std::move(f), options...), options...);
}

}  // namespace jaxcc
