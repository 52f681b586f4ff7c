// jax.nn.dot_product_attention, JAX's "xla" implementation composed of
// einsum, masks and softmax, so that grad, vmap and jit follow from those.
// Heads are grouped as JAX groups them: with K key/value heads and N query
// heads (N a multiple of K), query head n attends with key/value head
// n / (N / K) (multi-head attention when K == N, multi-query when K == 1).
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/nn/activations.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/einsum.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"

namespace jaxcc::detail {

/// dot_product_attention's scale: absent (jaxcc::none, std::nullopt: 1 /
/// sqrt(H)) or a number.
struct AttentionScale {
  AttentionScale() = default;
  AttentionScale(none_t) {}
  AttentionScale(std::nullopt_t) {}
  AttentionScale(double s) : value(s) {}
  std::optional<double> value;
};

/// dot_product_attention's local_window_size: absent, one size for both
/// sides, or {left, right}.
struct LocalWindow {
  LocalWindow() = default;
  LocalWindow(none_t) {}
  LocalWindow(std::nullopt_t) {}
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  LocalWindow(I size) : value(std::pair<std::int64_t, std::int64_t>{size, size}) {}
  LocalWindow(std::int64_t left, std::int64_t right) : value(std::pair{left, right}) {}
  std::optional<std::pair<std::int64_t, std::int64_t>> value;
};

template <class X>
inline constexpr bool is_absent_v = std::same_as<X, none_t> || std::same_as<X, std::nullopt_t>;
/// The element type of an optional argument's array (void when absent).
template <class X>
struct optional_array_element {
  using type = void;
};
template <ArrayLike X>
struct optional_array_element<X> {
  using type = value_type_t<X>;
};
template <class X>
struct optional_array_element<std::optional<X>> : optional_array_element<X> {};

/// An optional argument (jaxcc::none, std::nullopt, a std::optional of an
/// array, or an array) as a std::optional<Array<U>>, at least 4-d where
/// `four_d` (JAX's _ensure_4d: size-1 axes in front).
template <class U, class X>
std::optional<Array<U>> attention_operand(X const& x, bool four_d) {
  if constexpr (is_absent_v<X>) {
    return std::nullopt;
  } else if constexpr (requires { x.has_value(); }) {
    if (!x) return std::nullopt;
    return attention_operand<U>(*x, four_d);
  } else {
    Array<U> a = fusion::cast<U>(x);
    if (four_d && a.ndim() < 4) {
      Shape shape(static_cast<std::size_t>(4 - a.ndim()), 1);
      shape.insert(shape.end(), a.shape().begin(), a.shape().end());
      a = a.reshape(shape);
    }
    return a;
  }
}

/// JAX's _check_shape_and_dtype (the dtypes are checked at compile time):
/// the rank, then each size that is not -1. (Templates, as the helpers
/// below, so that only a file that calls them compiles them.)
template <class = void>
void check_attention_shape(std::optional<Shape> const& shape, std::vector<std::int64_t> const& want,
                                  std::string_view name) {
  if (!shape) return;
  if (shape->size() != want.size()) {
    throw Error("dot_product_attention: " + std::string(name) + " ndim should be " + std::to_string(want.size()) +
                ", but got " + std::to_string(shape->size()));
  }
  for (std::size_t i = 0; i < want.size(); ++i)
    if (want[i] != -1 && (*shape)[i] != want[i]) {
      std::ostringstream os;
      os << "dot_product_attention: " << name << " shape should be [";
      for (std::size_t j = 0; j < want.size(); ++j) os << (j ? ", " : "") << want[j];
      os << "] (-1: any size), but got " << *shape;
      throw Error(os.str());
    }
}

template <class T>
std::optional<Shape> attention_shape_of(std::optional<Array<T>> const& x) {
  return x ? std::optional<Shape>(x->shape()) : std::nullopt;
}

/// A bias or mask (tB, tN, tT, tS) in the grouped layout (tB, K, G, tT, tS)
/// (size-1 head axes where tN == 1), checked to broadcast against the
/// grouped logits (B, K, G, T, S).
template <class U>
std::optional<Array<U>> grouped_attention_operand(std::optional<Array<U>> const& x, Shape const& logits,
                                                  std::string_view name) {
  if (!x) return std::nullopt;
  auto const& s = x->shape();
  auto const n = logits[1] * logits[2];
  bool const fits = (s[1] == 1 || s[1] == n) && (s[0] == 1 || s[0] == logits[0]) &&
                    (s[2] == 1 || s[2] == logits[3]) && (s[3] == 1 || s[3] == logits[4]);
  if (!fits) {
    std::ostringstream os;
    os << "dot_product_attention: " << name << " of shape " << s << " does not broadcast to (B, N, T, S) = ("
       << logits[0] << ", " << n << ", " << logits[3] << ", " << logits[4] << ")";
    throw Error(os.str());
  }
  if (s[1] == 1) return x->reshape({s[0], 1, 1, s[2], s[3]});
  return x->reshape({s[0], logits[1], logits[2], s[2], s[3]});
}

/// Positions 0..n-1 along axis `axis` of a rank-5 array (1 elsewhere).
template <class = void>
Array<std::int32_t> attention_positions(std::int64_t n, std::size_t axis) {
  Shape shape(5, 1);
  shape[axis] = n;
  return numpy::arange<std::int32_t>(n).reshape(shape);
}

/// JAX's _apply_masks on the grouped logits (B, K, G, T, S): every mask
/// given, causal, local window and padding, anded; masked logits become a
/// large negative number (-0.7 times the largest float32).
template <class L>
Array<L> masked_logits(Array<L> const& logits, std::optional<Array<bool>> const& mask, bool is_causal,
                       std::optional<Array<std::int32_t>> const& q_len,
                       std::optional<Array<std::int32_t>> const& kv_len, LocalWindow const& window) {
  if (!mask && !is_causal && !q_len && !kv_len && !window.value) return logits;
  auto const t = attention_positions(logits.shape()[3], 3);
  auto const s = attention_positions(logits.shape()[4], 4);
  Array<bool> combined = numpy::full<bool>(Shape{}, true);
  if (mask) combined = numpy::logical_and(combined, *mask);
  if (is_causal) combined = numpy::logical_and(combined, s <= t);
  if (window.value) {
    auto const [left, right] = *window.value;
    combined = numpy::logical_and(combined, numpy::logical_and(t <= s + static_cast<std::int32_t>(left),
                                                               t >= s - static_cast<std::int32_t>(right)));
  }
  auto const per_batch = [&](Array<std::int32_t> const& lengths) {
    return lengths.reshape({lengths.shape()[0], 1, 1, 1, 1});
  };
  if (q_len) combined = numpy::logical_and(combined, t < per_batch(*q_len));
  if (kv_len) combined = numpy::logical_and(combined, s < per_batch(*kv_len));
  auto const large_negative = static_cast<L>(-0.7f * std::numeric_limits<float>::max());
  return numpy::where(combined, logits, large_negative);
}

/// _dot_product_attention_core on 4-d operands, every head group at once:
/// logits in float32 at least, softmax in float32, the result in T.
template <class T, class L>
Array<T> attention_core(Array<T> const& q, Array<T> const& k, Array<T> const& v, std::optional<Array<L>> const& bias,
                        std::optional<Array<bool>> const& mask, bool is_causal, double scale,
                        std::optional<Array<std::int32_t>> const& q_len,
                        std::optional<Array<std::int32_t>> const& kv_len, LocalWindow const& window) {
  auto const B = q.shape()[0], T_ = q.shape()[1], N = q.shape()[2], H = q.shape()[3];
  auto const S = k.shape()[1], K = k.shape()[2], G = N / K;
  Array<L> const grouped_q = fusion::cast<L>(q.reshape({B, T_, K, G, H}));
  Array<L> logits = numpy::einsum("btkgh,bskh->bkgts", grouped_q, Array<L>(fusion::cast<L>(k)));
  logits = logits * static_cast<L>(scale);
  Shape const logits_shape{B, K, G, T_, S};
  if (auto const b = grouped_attention_operand(bias, logits_shape, "bias")) logits = logits + *b;
  auto const padded = masked_logits(logits, grouped_attention_operand(mask, logits_shape, "mask"), is_causal,
                                    q_len, kv_len, window);
  Array<T> const probs = fusion::cast<T>(nn::softmax(Array<float>(fusion::cast<float>(padded)), -1));
  Array<T> encoded = numpy::einsum("bkgts,bskh->btkgh", probs, v);
  if (q_len) {
    auto const rows = attention_positions(T_, 1).reshape({1, T_, 1, 1, 1});
    encoded = encoded * fusion::cast<T>(rows < q_len->reshape({B, 1, 1, 1, 1}));
  }
  return encoded.reshape({B, T_, N, H});
}

}  // namespace jaxcc::detail

namespace jaxcc::nn {

/// softmax(Q K^T scale + bias) V per head, JAX's dot_product_attention with
/// the "xla" implementation. query is (B, T, N, H) or (T, N, H); key and
/// value (B, S, K, H) or (S, K, H), all of one dtype; the result has
/// query's shape and dtype. The optional arguments (jaxcc::none,
/// std::nullopt or a std::optional when absent): bias, 4-d (or fewer, with
/// size-1 axes in front) broadcasting to (B, N, T, S); mask, a bool array
/// of such a shape, true where a logit takes part; scale (default
/// 1 / sqrt(H)); is_causal; query_seq_lengths and key_value_seq_lengths,
/// int32 of shape (B,): positions at or past them are masked out (and
/// query rows past their length give 0); local_window_size, one int or
/// {left, right}: query t sees keys s with t - left <= s <= t + right;
/// implementation, "xla" (the default, as JAX's None). Logits are
/// computed in float32 at least and the softmax in float32, as in JAX.
template <ArrayLike Q, ArrayLike K, ArrayLike V, class Bias = none_t, class Mask = none_t, class QLen = none_t,
          class KVLen = none_t>
Array<value_type_t<K>> dot_product_attention(Q const& query, K const& key, V const& value, Bias const& bias = {},
                                             Mask const& mask = {}, detail::AttentionScale scale = {},
                                             bool is_causal = false, QLen const& query_seq_lengths = {},
                                             KVLen const& key_value_seq_lengths = {},
                                             detail::LocalWindow local_window_size = {},
                                             std::string_view implementation = "xla") {
  using T = value_type_t<K>;
  using L = promote_t<T, float>;
  static_assert(std::same_as<value_type_t<Q>, T> && std::same_as<value_type_t<V>, T>,
                "nn::dot_product_attention: query and value must have key's dtype");
  static_assert(detail::is_absent_v<Mask> || std::same_as<typename detail::optional_array_element<Mask>::type, bool>,
                "nn::dot_product_attention: mask must be a bool array");
  static_assert((detail::is_absent_v<QLen> ||
                 std::same_as<typename detail::optional_array_element<QLen>::type, std::int32_t>) &&
                    (detail::is_absent_v<KVLen> ||
                     std::same_as<typename detail::optional_array_element<KVLen>::type, std::int32_t>),
                "nn::dot_product_attention: query_seq_lengths and key_value_seq_lengths must be int32 arrays");
  auto const q = *detail::attention_operand<T>(query, true);
  auto const k = *detail::attention_operand<T>(key, true);
  auto const v = *detail::attention_operand<T>(value, true);
  auto const b = detail::attention_operand<L>(bias, true);
  auto const m = detail::attention_operand<bool>(mask, true);
  auto const q_len = detail::attention_operand<std::int32_t>(query_seq_lengths, false);
  auto const kv_len = detail::attention_operand<std::int32_t>(key_value_seq_lengths, false);
  if (k.ndim() != 4) {
    throw Error("dot_product_attention: key ndim should be 4 (BSKH) or less (SKH), but got " +
                std::to_string(k.ndim()));
  }
  auto const B = k.shape()[0], S = k.shape()[1], KH = k.shape()[2], H = k.shape()[3];
  detail::check_attention_shape(v.shape(), {B, S, KH, H}, "value");
  detail::check_attention_shape(q.shape(), {B, -1, -1, H}, "query");
  detail::check_attention_shape(detail::attention_shape_of(m), {-1, -1, -1, -1}, "mask");
  detail::check_attention_shape(detail::attention_shape_of(b), {-1, -1, -1, -1}, "bias");
  detail::check_attention_shape(detail::attention_shape_of(q_len), {B}, "query_seq_lengths");
  detail::check_attention_shape(detail::attention_shape_of(kv_len), {B}, "key_value_seq_lengths");
  auto const N = q.shape()[2];
  if (KH == 0 || N % KH != 0) {
    throw Error("dot_product_attention: the number of query heads must be a multiple of key/value heads, but got " +
                std::to_string(N) + " vs " + std::to_string(KH));
  }
  if (implementation == "cudnn") {
    throw Error("dot_product_attention: implementation 'cudnn' needs cuDNN on a GPU; jaxcc has the 'xla' one");
  }
  if (implementation != "xla") {
    throw Error("dot_product_attention: unsupported implementation option: " + std::string(implementation) +
                " (expected 'xla' or 'cudnn')");
  }
  double const s = scale.value ? *scale.value : 1.0 / std::sqrt(static_cast<double>(H));
  auto const out = detail::attention_core<T, L>(q, k, v, b, m, is_causal, s, q_len, kv_len, local_window_size);
  return out.reshape(query.shape());
}

}  // namespace jaxcc::nn
