// Jacobians: jaxcc::jacrev (one reverse pass per output element),
// jaxcc::jacfwd (one forward pass per input element) and jaxcc::hessian
// (jacfwd of jacrev). The function's output is one Array; each argument
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

namespace jaxcc {

namespace detail {

/// The i-th basis array of a shape: 1 at flat position i, 0 elsewhere.
template <Element T>
Array<T> basis(Shape const& shape, std::int64_t i) {
  auto [out, data] = allocate<T>(shape);
  std::fill(data, data + out.size(), T{0});
  data[i] = T{1};
  return out;
}

/// Shape a ++ b.
inline Shape concat_shapes(Shape const& a, Shape const& b) {
  Shape out = a;
  for (auto d : b) out.push_back(d);
  return out;
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

/// Stack per-row trees (each shaped like `like`) into one tree whose leaves
/// are the rows stacked and reshaped to prefix ++ leaf shape.
template <class Tree>
Tree stack_rows(Tree const& like, std::vector<Tree> const& rows, Shape const& prefix, bool rows_last) {
  std::size_t leaf_index = 0;
  return tree::map(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) {
          std::vector<L> parts;
          auto const k = leaf_index++;
          for (auto const& row : rows) parts.push_back(array_leaves(row)[k].template as<typename L::value_type>());
          auto stacked = numpy::stack(parts, rows_last ? -1 : 0);
          return lax::reshape(stacked, rows_last ? concat_shapes(leaf.shape(), prefix) : concat_shapes(prefix, leaf.shape()));
        } else {
          return leaf;
        }
      },
      like);
}

}  // namespace detail

/// The Jacobian by reverse mode: one pullback per output element.
template <class F, detail::DiffOption... Options>
auto jacrev(F f, Options...) {
  using A = typename detail::find_argnums<Options...>::type;
  return [f]<class... Args>(Args const&... given)
    requires ArgnumsWithinArguments<A, sizeof...(Args)>
  {
    auto const run = [&](auto const&... args) {
      auto const all = std::forward_as_tuple(args...);
      auto const diff = detail::argnum_sequence<A>();
      auto g = [&]<std::size_t... I>(std::index_sequence<I...> seq) {
        // Named, not a structured binding: clang before 16 cannot capture those in lambdas.
        auto out_and_pullback = vjp(detail::restricted(seq, f, args...), std::get<I>(all)...);
        auto const& out = out_and_pullback.first;
        auto const& pullback = out_and_pullback.second;
        using Out = std::remove_cvref_t<decltype(out)>;
        static_assert(AnArray<Out>, "jacrev differentiates functions that return one array");
        using T = typename Out::value_type;
        using Grads = decltype(pullback(out));
        std::vector<Grads> rows;
        for (std::int64_t i = 0; i < out.size(); ++i) rows.push_back(pullback(detail::basis<T>(out.shape(), i)));
        auto const like = std::tuple<std::remove_cvref_t<decltype(std::get<I>(all))>...>{std::get<I>(all)...};
        auto per_arg = [&]<std::size_t... K>(std::index_sequence<K...>) {
          return std::tuple<std::remove_cvref_t<decltype(std::get<K>(like))>...>{[&] {
            std::vector<std::remove_cvref_t<decltype(std::get<K>(like))>> arg_rows;
            for (auto const& r : rows) arg_rows.push_back(std::get<K>(r));
            return detail::stack_rows(std::get<K>(like), arg_rows, out.shape(), false);
          }()...};
        }(std::index_sequence_for<decltype(std::get<I>(all))...>{});
        return per_arg;
      }(diff);
      if constexpr (A::single) return std::get<0>(std::move(g));
      else return g;
    };
    return run(detail::as_argument(given)...);
  };
}

namespace detail {

/// A tangent shaped like `like`: zero, except (when Seeded) the basis
/// array j at array leaf `leaf`.
template <bool Seeded, Element T, class Tree>
Tree one_hot_tangent(Tree const& like, std::size_t leaf, Shape const& shape, std::int64_t j) {
  std::vector<graph::MaybeArray> seed(array_leaves(like).size());
  if constexpr (Seeded) seed[leaf] = AnyArray(basis<T>(shape, j));
  std::size_t next = 0;
  return rebuild_like(like, seed, next);
}

template <std::size_t K, Element T, class Primals>
auto one_hot_tangents(Primals const& primals, std::size_t leaf, Shape const& shape, std::int64_t j) {
  return [&]<std::size_t... P>(std::index_sequence<P...>) {
    return std::tuple<std::remove_cvref_t<decltype(std::get<P>(primals))>...>{
        one_hot_tangent<P == K, T>(std::get<P>(primals), leaf, shape, j)...};
  }(std::make_index_sequence<std::tuple_size_v<Primals>>{});
}

/// The Jacobian of fn with respect to primal K (a pytree), column by column.
template <std::size_t K, class Fn, class Primals>
auto jacfwd_wrt(Fn const& fn, Primals const& primals) {
  using Out = decltype(materialized(std::apply(fn, primals)));
  static_assert(AnArray<Out>, "jacfwd differentiates functions that return one array");
  std::size_t leaf_index = 0;
  return tree::map(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) {
          auto const k = leaf_index++;
          std::vector<Out> columns;
          Shape out_shape;
          for (std::int64_t j = 0; j < leaf.size(); ++j) {
            auto [out, tangent] = jvp(fn, primals, one_hot_tangents<K, typename L::value_type>(primals, k, leaf.shape(), j));
            out_shape = out.shape();
            columns.push_back(tangent);
          }
          if (columns.empty()) {  // an empty input: the output's shape from one plain call
            out_shape = materialized(std::apply(fn, primals)).shape();
            return numpy::zeros<typename Out::value_type>(concat_shapes(out_shape, leaf.shape())).template astype<typename L::value_type>();
          }
          return lax::reshape(numpy::stack(columns, -1), concat_shapes(out_shape, leaf.shape())).template astype<typename L::value_type>();
        } else {
          return leaf;
        }
      },
      std::get<K>(primals));
}

}  // namespace detail

/// The Jacobian by forward mode: one JVP per input element.
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
