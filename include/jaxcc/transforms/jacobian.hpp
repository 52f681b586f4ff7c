// Jacobians: jaxcc::jacrev (the pullback vmapped over the output's basis),
// jaxcc::jacfwd (the JVP vmapped over the input's basis) and jaxcc::hessian
// (jacfwd of jacrev), as JAX builds them: one batched pass per leaf, not a
// loop. Each argument differentiated may be a pytree, and so may the output:
// as in JAX the Jacobian has the output's structure, each output leaf
// holding the input's structure, whose leaves have shape
// output_leaf.shape + input_leaf.shape.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
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

/// A tree shaped like `like`: zeros, except `t` at array leaf `leaf`.
template <class Tree, Element T>
Tree one_hot_tree(Tree const& like, std::size_t leaf, Array<T> const& t) {
  std::vector<graph::MaybeArray> seed(array_leaves(like).size());
  seed[leaf] = AnyArray(t);
  std::size_t next = 0;
  return rebuild_like(like, seed, next);
}

/// JAXCC_PYTREE structs, as leaves: per_output_leaf takes them apart itself.
struct is_struct_node {
  template <class X>
  auto operator()(X const&) const {
    return std::bool_constant<tree_adapter<X>::category == TreeCategory::record>{};
  }
};

/// fn(j, leaf) for each leaf of the output `out` (j counts them), in out's
/// containers: the outer structure of a Jacobian. A struct holds Arrays, so
/// where fn returns trees a struct becomes the std::tuple of its members'.
template <bool JacobianLeafIsArray, class Out, class Fn>
auto per_output_leaf(Out const& out, Fn const& fn, std::size_t& j) {
  auto const each = [&](auto const& node) {
    using N = std::remove_cvref_t<decltype(node)>;
    if constexpr (tree_adapter<N>::category == TreeCategory::record) {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        // Braces, not make_tuple: the members are visited in order.
        return std::tuple<decltype(per_output_leaf<false>(tree_adapter<N>::template child<I>(node), fn, j))...>{
            per_output_leaf<false>(tree_adapter<N>::template child<I>(node), fn, j)...};
      }(std::make_index_sequence<tree_adapter<N>::arity>{});
    } else {
      static_assert(AnArray<N>, "a Jacobian is taken of a function whose output is an Array or a pytree of Arrays");
      return fn(j++, node);
    }
  };
  if constexpr (JacobianLeafIsArray) return tree::map(each, out);
  else return tree::map(each, out, tree::is_leaf(is_struct_node{}));
}

template <bool JacobianLeafIsArray, class Out, class Fn>
auto per_output_leaf(Out const& out, Fn const& fn) {
  std::size_t j = 0;
  return per_output_leaf<JacobianLeafIsArray>(out, fn, j);
}

/// The Jacobian of one output leaf as `argnums` asks: one input tree, or a
/// tuple of them.
template <class A, class Tuple>
auto as_argnums_result(Tuple&& per_input) {
  if constexpr (A::single) return std::get<0>(std::forward<Tuple>(per_input));
  else return std::forward<Tuple>(per_input);
}

/// JAX's checks of a Jacobian's complex leaves (jax/_src/api.py): with
/// holomorphic, inputs and outputs complex; without, jacrev's outputs and
/// jacfwd's inputs real.
inline void check_jacobian_leaf(AnyArray const& leaf, std::string_view transform, std::string_view what,
                                bool holomorphic) {
  if (holomorphic && !is_complex(leaf.dtype()))
    throw Error(std::string(transform) + " with holomorphic=True requires " + std::string(what) +
                "s with complex dtype, but got " + std::string(name(leaf.dtype())) + ".");
  if (!holomorphic && is_complex(leaf.dtype()))
    throw Error(std::string(transform) + " requires real-valued " + std::string(what) + "s (" + std::string(what) +
                " dtype that is a sub-dtype of np.floating), but got " + std::string(name(leaf.dtype())) +
                ". For holomorphic differentiation, pass jaxcc::holomorphic. For differentiation of non-holomorphic "
                "functions involving complex " + std::string(what) + "s" +
                (transform == "jacrev" ? ", use jaxcc::vjp" : " or integer inputs, use jaxcc::jvp") + " directly.");
}

template <bool holomorphic, class... Trees>
void check_jacobian_inputs(std::string_view transform, Trees const&... trees) {
  (([&] {
     for (auto const& leaf : array_leaves(trees))
       if (holomorphic || transform == "jacfwd") check_jacobian_leaf(leaf, transform, "input", holomorphic);
   })(),
   ...);
}

}  // namespace detail

/// The Jacobian by reverse mode: for each output leaf, the pullback vmapped
/// over the basis of that leaf's cotangents, as JAX's jacrev. With
/// `holomorphic`, of a function of complex inputs and outputs: f'(z).
template <class F, detail::DiffOption... Options>
auto jacrev(F f, Options...) {
  using A = typename detail::find_argnums<Options...>::type;
  return [f]<class... Args>(Args const&... given)
    requires ArgnumsWithinArguments<A, sizeof...(Args)>
  {
    auto const run = [&](auto const&... args) {
      auto const all = std::forward_as_tuple(args...);
      return [&]<std::size_t... I>(std::index_sequence<I...> seq) {
        constexpr bool holomorphic = detail::holomorphic_in<Options...>;
        detail::check_jacobian_inputs<holomorphic>("jacrev", std::get<I>(all)...);
        // Named, not a structured binding: clang before 16 cannot capture those in lambdas.
        auto out_and_pullback = vjp(detail::restricted(seq, f, args...), std::get<I>(all)...);
        auto const& out = out_and_pullback.first;
        auto const& pullback = out_and_pullback.second;
        for (auto const& leaf : detail::array_leaves(out)) detail::check_jacobian_leaf(leaf, "jacrev", "output", holomorphic);
        constexpr bool array_leaves = A::single && (AnArray<std::remove_cvref_t<decltype(std::get<I>(all))>> && ...);
        return detail::per_output_leaf<array_leaves>(out, [&](std::size_t j, auto const& leaf) {
          using T = typename std::remove_cvref_t<decltype(leaf)>::value_type;
          auto const rows = vmap([&](Array<T> const& ct) { return pullback(detail::one_hot_tree(out, j, ct)); })(
              detail::stacked_basis<T>(leaf.shape()));
          return detail::as_argnums_result<A>(detail::rows_to_jacobian(rows, leaf.shape()));
        });
      }(detail::argnum_sequence<A>());
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
      if constexpr (P == K) {
        return one_hot_tree(like, leaf, t);
      } else {
        std::size_t next = 0;
        return rebuild_like(like, {}, next);  // all zeros
      }
    }()...};
  }(std::make_index_sequence<std::tuple_size_v<Primals>>{});
}

/// For each array leaf of primal K, the JVP vmapped over that leaf's basis
/// of tangents: the output's array leaves with the basis' axis last.
template <std::size_t K, class Fn, class Primals, class Out>
std::vector<std::vector<AnyArray>> pushforwards_of_basis(Fn const& fn, Primals const& primals,
                                                         std::optional<Out>& columns) {
  std::vector<std::vector<AnyArray>> out;
  (void)tree::map(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) {
          using T = typename L::value_type;
          auto const pushforward = [&, k = out.size()](Array<T> const& t) {
            return jvp(fn, primals, one_hot_tangents<K>(primals, k, t)).second;
          };
          columns = vmap(pushforward, in_axes(0), out_axes(-1))(stacked_basis<T>(leaf.shape()));
          out.push_back(array_leaves(*columns));
        }
        return leaf;
      },
      std::get<K>(primals));
  return out;
}

/// The Jacobian of output leaf j (of shape out_shape and element type U)
/// with respect to primal K, from its pushforwards: primal K's structure,
/// each leaf of shape out_shape ++ leaf.shape.
template <Element U, class Primal>
Primal jacobian_block(Primal const& primal, std::vector<std::vector<AnyArray>> const& pushforwards, std::size_t j,
                      Shape const& out_shape) {
  std::size_t k = 0;
  return tree::map(
      [&](auto const& leaf) {
        using L = std::remove_cvref_t<decltype(leaf)>;
        if constexpr (AnArray<L>) {
          auto const& column = pushforwards[k++][j];
          return lax::reshape(column.template as<U>(), concat_shapes(out_shape, leaf.shape()))
              .template astype<typename L::value_type>();
        } else {
          return leaf;
        }
      },
      primal);
}

}  // namespace detail

/// The Jacobian by forward mode: for each input leaf, JVPs vmapped over its
/// basis, as JAX's jacfwd. With `holomorphic`, of a function of complex
/// inputs and outputs: f'(z).
template <class F, detail::DiffOption... Options>
auto jacfwd(F f, Options...) {
  using A = typename detail::find_argnums<Options...>::type;
  return [f]<class... Args>(Args const&... given)
    requires ArgnumsWithinArguments<A, sizeof...(Args)>
  {
    auto const run = [&](auto const&... args) {
      auto const all = std::forward_as_tuple(args...);
      return [&]<std::size_t... I>(std::index_sequence<I...> seq) {
        constexpr bool holomorphic = detail::holomorphic_in<Options...>;
        detail::check_jacobian_inputs<holomorphic>("jacfwd", std::get<I>(all)...);
        auto const fn = detail::restricted(seq, f, args...);
        auto const primals = std::tuple<std::remove_cvref_t<decltype(std::get<I>(all))>...>{std::get<I>(all)...};
        using Out = decltype(detail::materialized(std::apply(fn, primals)));
        std::optional<Out> columns;  // the output's structure, its leaves shaped out ++ (n,)
        auto const pushforwards = [&]<std::size_t... K>(std::index_sequence<K...>) {
          return std::array<std::vector<std::vector<AnyArray>>, sizeof...(I)>{
              detail::pushforwards_of_basis<K>(fn, primals, columns)...};
        }(std::index_sequence_for<decltype(std::get<I>(all))...>{});
        bool const from_columns = columns.has_value();
        if (!from_columns) columns = detail::materialized(std::apply(fn, primals));  // no input leaves
        if (holomorphic)
          for (auto const& leaf : detail::array_leaves(*columns)) detail::check_jacobian_leaf(leaf, "jacfwd", "output", true);
        constexpr bool array_leaves = A::single && (AnArray<std::remove_cvref_t<decltype(std::get<I>(all))>> && ...);
        return detail::per_output_leaf<array_leaves>(*columns, [&](std::size_t j, auto const& leaf) {
          using U = typename std::remove_cvref_t<decltype(leaf)>::value_type;
          Shape const out_shape(leaf.shape().begin(), leaf.shape().end() - (from_columns ? 1 : 0));
          return detail::as_argnums_result<A>([&]<std::size_t... K>(std::index_sequence<K...>) {
            return std::tuple<std::remove_cvref_t<decltype(std::get<K>(primals))>...>{
                detail::jacobian_block<U>(std::get<K>(primals), pushforwards[K], j, out_shape)...};
          }(std::index_sequence_for<decltype(std::get<I>(all))...>{}));
        });
      }(detail::argnum_sequence<A>());
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
