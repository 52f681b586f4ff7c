// Adafactor's second-moment estimate (optax's factorized.py):
// scale_by_factored_rms keeps, for a leaf whose two largest dimensions are
// at least min_dim_size_to_factor, running means of the squared gradient
// over its rows and over its columns, and for any other leaf the full
// running mean.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/reductions.hpp"
#include "jaxcc/optim/base.hpp"

namespace jaxcc::optim {

template <class T>
struct FactoredState {
  Count count;
  T v_row, v_col, v;
};
JAXCC_OPTIM_STATE(FactoredState, count, v_row, v_col, v)

namespace detail {

/// The (second largest, largest) dimensions, when the leaf is factored
/// (factorized._factored_dims; ties keep numpy's order).
inline std::optional<std::pair<std::int64_t, std::int64_t>> factored_dims(Shape const& shape, bool factored,
                                                                          std::int64_t min_dim_size_to_factor) {
  if (!factored || shape.rank() < 2) return std::nullopt;
  std::vector<std::int64_t> order(static_cast<std::size_t>(shape.rank()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return shape[a] < shape[b]; });
  auto const d1 = order[order.size() - 2], d0 = order.back();
  if (shape[d1] < min_dim_size_to_factor) return std::nullopt;
  return std::pair{d1, d0};
}

/// The zeros a leaf's v_row, v_col and v start from.
template <class A>
std::array<A, 3> factored_init(A const& p, bool factored, std::int64_t min_dim) {
  using T = value_type_t<A>;
  auto const dims = factored_dims(p.shape(), factored, min_dim);
  A const one = numpy::zeros<T>(Shape{1});
  if (!dims) return {one, one, numpy::zeros_like(p)};
  return {A(numpy::zeros_like(numpy::sum(p, dims->second))), A(numpy::zeros_like(numpy::sum(p, dims->first))), one};
}

/// One leaf's update and its new v_row, v_col, v.
template <class A>
std::array<A, 4> factored_update(A const& grad, A const& v_row, A const& v_col, A const& v, Array<float> const& rate,
                                 double eps, std::optional<std::pair<std::int64_t, std::int64_t>> const& dims) {
  using T = value_type_t<A>;
  A const d = rate.astype<T>();
  A const grad_sqr = grad * grad + eps;
  A const one = numpy::zeros<T>(Shape{1});
  if (!dims) {
    A const new_v = d * v + (1.0f - d) * grad_sqr;
    return {A(grad * numpy::power(new_v, T(-0.5))), one, one, new_v};
  }
  auto const [d1, d0] = *dims;
  A const new_row = d * v_row + (1.0f - d) * numpy::mean(grad_sqr, d0);
  A const new_col = d * v_col + (1.0f - d) * numpy::mean(grad_sqr, d1);
  std::int64_t const reduced_d1 = d1 > d0 ? d1 - 1 : d1;
  A const row_col_mean = numpy::mean(new_row, reduced_d1, true);
  A const row_factor = numpy::power(A(new_row / row_col_mean), T(-0.5));
  A const col_factor = numpy::power(new_col, T(-0.5));
  A const update = grad * numpy::expand_dims(row_factor, d0) * numpy::expand_dims(col_factor, d1);
  return {update, new_row, new_col, one};
}

}  // namespace detail

/// Adafactor's rescaling by a factored second moment, decaying at
/// 1 - (step - step_offset + 1)**(-decay_rate) (optax.scale_by_factored_rms).
struct scale_by_factored_rms {
  bool factored = true;
  double decay_rate = 0.8;
  std::int32_t step_offset = 0;
  std::int64_t min_dim_size_to_factor = 128;
  double epsilon = 1e-30;

  template <class P>
  FactoredState<detail::zeros_tree_t<P>> init(P const& params) const {
    auto part = [&](std::size_t i) {
      return tree::map([&](auto const& p) { return detail::factored_init(detail::leaf_array_t<decltype(p)>(p), factored, min_dim_size_to_factor)[i]; }, params);
    };
    return {detail::zero_count(), part(0), part(1), part(2)};
  }

  template <class U, class T, class P>
  std::tuple<U, FactoredState<T>> update(U const& grads, FactoredState<T> const& state, P const& params) const {
    detail::require_params<P>();
    Array<float> const t = Count(state.count - step_offset + std::int32_t(1)).astype<float>();
    Array<float> const rate = 1.0f - numpy::power(t, static_cast<float>(-decay_rate));
    // One pass computes each leaf's four results; the state's trees take
    // theirs back in flatten's order.
    std::vector<std::array<AnyArray, 3>> moments;
    U out = tree::map(
        [&](auto const& g, auto const& r, auto const& c, auto const& v, auto const& p) {
          using A = detail::leaf_array_t<decltype(g)>;
          auto const dims = detail::factored_dims(p.shape(), factored, min_dim_size_to_factor);
          auto const result = detail::factored_update(A(g), A(r), A(c), A(v), rate, epsilon, dims);
          moments.push_back({AnyArray(result[1]), AnyArray(result[2]), AnyArray(result[3])});
          return result[0];
        },
        grads, state.v_row, state.v_col, state.v, params);
    auto part = [&](T const& like, std::size_t i) {
      std::size_t k = 0;
      return tree::map([&](auto const& x) { return moments[k++][i].template as<value_type_t<detail::leaf_array_t<decltype(x)>>>(); }, like);
    };
    return {std::move(out), FactoredState<T>{detail::safe_increment(state.count), part(state.v_row, 0),
                                             part(state.v_col, 1), part(state.v, 2)}};
  }
};

}  // namespace jaxcc::optim
