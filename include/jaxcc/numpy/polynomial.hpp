// jax.numpy's polynomials, coefficients highest power first: vander,
// polyval (Horner's rule), polyadd, polysub, polymul (a full convolution),
// polyder, polyint, polydiv (long division), poly (from real roots) and
// polyfit (least squares on a scaled Vandermonde matrix). Written as JAX
// writes them, from elementwise ops, slices, convolve and lstsq.
// (roots and poly of a square matrix need complex eigenvalues: not here.)
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/numpy/calculus.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/linalg_decompositions.hpp"
#include "jaxcc/numpy/signal.hpp"
#include "jaxcc/primitives/pad.hpp"

namespace jaxcc::detail {

/// x with `before` zeros in front along axis 0 and `after` behind.
template <Element T>
Array<T> pad_front(Array<T> const& x, std::int64_t before, std::int64_t after = 0) {
  Shape zs(x.shape());
  std::vector<Array<T>> parts;
  zs[0] = before;
  if (before) parts.push_back(numpy::zeros<T>(zs));
  parts.push_back(x);
  zs[0] = after;
  if (after) parts.push_back(numpy::zeros<T>(zs));
  return parts.size() == 1 ? x : numpy::concatenate(parts, 0);
}

/// The constants of polyder (m > 0) and polyint (m < 0): for each power j
/// (ascending), the product JAX's grid of aranges forms, in T as JAX's
/// prod multiplies them, returned highest power first.
template <Element T>
Array<T> power_factors(std::int64_t count, std::int64_t m, bool integral) {
  std::vector<T> out(static_cast<std::size_t>(count));
  for (std::int64_t j = 0; j < count; ++j) {
    T prod(1);
    for (std::int64_t k = 0; k < m; ++k) {
      T const g = integral ? static_cast<T>(j) - static_cast<T>(k) : static_cast<T>(j + m) - static_cast<T>(k);
      prod = prod * (integral && g < T(1) ? T(1) : g);
    }
    out[static_cast<std::size_t>(count - 1 - j)] = prod;
  }
  return array_of(out, Shape{count});
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// jnp.vander: the Vandermonde matrix of a 1-D x, N columns (len(x) by
/// default): x ** (N - 1 - j), or x ** j when `increasing`.
template <ArrayLike X>
Array<value_type_t<X>> vander(X const& x_in, std::optional<std::int64_t> N = std::nullopt, bool increasing = false) {
  using T = value_type_t<X>;
  auto const x = as_array(x_in);
  if (x.ndim() != 1) throw Error("x must be a one-dimensional array");
  auto const n = N.value_or(x.shape()[0]);
  if (n < 0) throw Error("N must be nonnegative");
  std::vector<T> powers;
  for (std::int64_t j = 0; j < n; ++j) powers.push_back(static_cast<T>(increasing ? j : n - 1 - j));
  return power(expand_dims(x, -1), detail::array_of(powers, Shape{1, n}));
}

/// jnp.polyval: the polynomial with coefficients p (along axis 0) at x,
/// by Horner's rule; p's other axes broadcast against x.
template <ArrayLike P, ArrayLike X>
Array<promote_t<value_type_t<P>, value_type_t<X>>> polyval(P const& p_in, X const& x_in) {
  using T = promote_t<value_type_t<P>, value_type_t<X>>;
  auto const p = as_array(p_in).template astype<T>();
  auto const x = as_array(x_in).template astype<T>();
  if (p.ndim() == 0) detail::throw_error("polyval: p must have at least one dimension, got shape ", p.shape());
  auto const shape = broadcast_shapes(Shape(p.shape().begin() + 1, p.shape().end()), x.shape(), "polyval");
  Array<T> y = zeros<T>(shape);
  for (std::int64_t i = 0; i < p.shape()[0]; ++i) y = y * x + detail::axis_index(p, 0, i);
  return y;
}

/// jnp.polyadd: the sum of two polynomials (the shorter one aligned to the end).
template <ArrayLike A, ArrayLike B>
Array<promote_t<value_type_t<A>, value_type_t<B>>> polyadd(A const& a1, B const& a2) {
  using T = promote_t<value_type_t<A>, value_type_t<B>>;
  auto const a = as_array(a1).template astype<T>();
  auto const b = as_array(a2).template astype<T>();
  if (a.ndim() == 0 || b.ndim() == 0) throw Error("polyadd: inputs must have at least one dimension");
  auto const na = a.shape()[0], nb = b.shape()[0];
  if (nb <= na) return a + detail::pad_front(b, na - nb);
  return b + detail::pad_front(a, nb - na);
}

/// jnp.polysub: the difference of two polynomials.
template <ArrayLike A, ArrayLike B>
Array<promote_t<value_type_t<A>, value_type_t<B>>> polysub(A const& a1, B const& a2) {
  using T = promote_t<value_type_t<A>, value_type_t<B>>;
  return polyadd(as_array(a1).template astype<T>(), Array<T>(-as_array(a2).template astype<T>()));
}

/// jnp.polymul: the product of two polynomials (an empty one counts as 0).
template <ArrayLike A, ArrayLike B>
Array<float_t<promote_t<value_type_t<A>, value_type_t<B>>>> polymul(A const& a1, B const& a2) {
  using T = float_t<promote_t<value_type_t<A>, value_type_t<B>>>;
  auto a = as_array(a1).template astype<T>();
  auto b = as_array(a2).template astype<T>();
  if (a.size() == 0 && a.ndim() == 1) a = zeros<T>(Shape{1});
  if (b.size() == 0 && b.ndim() == 1) b = zeros<T>(Shape{1});
  return convolve(a, b, "full");
}

/// jnp.polyder: the m-th derivative of a polynomial.
template <ArrayLike P>
Array<float_t<value_type_t<P>>> polyder(P const& p_in, std::int64_t m = 1) {
  using T = float_t<value_type_t<P>>;
  auto const p = as_array(p_in).template astype<T>();
  if (m < 0) throw Error("Order of derivative must be positive");
  if (m == 0) return p;
  if (p.ndim() != 1) detail::throw_error("polyder: p must be one-dimensional, got shape ", p.shape());
  auto const n = p.shape()[0];
  return detail::axis_slice(p, 0, 0, -m) * detail::power_factors<T>(std::max<std::int64_t>(n - m, 0), m, false);
}

/// jnp.polyint: the m-th antiderivative of a polynomial, with integration
/// constants k (a scalar for every step, or one per step; 0 by default).
template <ArrayLike P, class K = none_t>
Array<float_t<value_type_t<P>>> polyint(P const& p_in, std::int64_t m = 1, K const& k = none) {
  using T = float_t<value_type_t<P>>;
  auto const p = as_array(p_in).template astype<T>();
  if (m < 0) throw Error("Order of integral must be positive (see polyder)");
  Array<T> ks = zeros<T>(Shape{1});
  if constexpr (!std::same_as<K, none_t>) ks = detail::value_as<T>(k);
  if (ks.ndim() == 0) ks = ks.reshape({1});
  if (ks.ndim() == 1 && ks.shape()[0] == 1) ks = broadcast_to(ks, Shape{m});
  if (ks.shape() != Shape{m}) throw Error("k must be a scalar or a rank-1 array of length 1 or m.");
  if (m == 0) return p;
  if (p.ndim() != 1) detail::throw_error("polyint: p must be one-dimensional, got shape ", p.shape());
  auto const n = p.shape()[0];
  return concatenate(std::vector<Array<T>>{p, ks}, 0) / detail::power_factors<T>(n + m, m, true);
}

/// jnp.polydiv: (quotient, remainder) of u / v by long division; the
/// remainder keeps u's length (its leading terms zero up to rounding).
template <ArrayLike U, ArrayLike V>
std::tuple<Array<float_t<promote_t<value_type_t<U>, value_type_t<V>>>>,
           Array<float_t<promote_t<value_type_t<U>, value_type_t<V>>>>>
polydiv(U const& u_in, V const& v_in) {
  using T = float_t<promote_t<value_type_t<U>, value_type_t<V>>>;
  auto u = as_array(u_in).template astype<T>();
  auto const v = as_array(v_in).template astype<T>();
  if (u.ndim() != 1 || v.ndim() != 1) throw Error("polydiv: u and v must be one-dimensional");
  auto const m = u.shape()[0] - 1, n = v.shape()[0] - 1;
  Array<T> const scale = T(1) / detail::axis_index(v, 0, 0);
  std::vector<Array<T>> q;
  for (std::int64_t k = 0; k <= m - n; ++k) {
    Array<T> const d = scale * detail::axis_index(u, 0, k);
    q.push_back(d);
    u = u + detail::pad_front(Array<T>(-d * v), k, m - k - n);
  }
  if (q.empty()) return {zeros<T>(Shape{1}), u};
  return {stack(q), u};
}

/// jnp.poly: the coefficients of the monic polynomial with the given real
/// roots (a 0-d input is one root; none gives 1).
template <ArrayLike Z>
Array<float_t<value_type_t<Z>>> poly(Z const& seq_of_zeros) {
  using T = float_t<value_type_t<Z>>;
  auto z = as_array(seq_of_zeros).template astype<T>();
  if (z.ndim() == 0) z = z.reshape({1});
  if (z.ndim() == 2 && z.shape()[0] == z.shape()[1] && z.shape()[0] != 0)
    throw Error("jnp.poly of a square matrix takes its eigenvalues, which need complex numbers; pass the roots");
  if (z.ndim() != 1) throw Error("input must be 1d or non-empty square 2d array.");
  if (z.shape()[0] == 0) return ones<T>(Shape{});
  Array<T> a = ones<T>(Shape{1});
  auto const one = ones<T>(Shape{1});
  for (std::int64_t k = 0; k < z.shape()[0]; ++k)
    a = convolve(a, concatenate(std::vector<Array<T>>{one, Array<T>(-detail::axis_slice(z, 0, k, k + 1))}, 0), "full");
  return a;
}

/// jnp.polyfit: the least-squares polynomial of degree `deg` through
/// (x, y) (y 1-D, or 2-D for several fits: one column of coefficients
/// each), with weights `w`; `rcond` defaults to len(x)·eps. Only the
/// coefficients: full=true and cov=true (other result tuples) raise.
template <ArrayLike X, ArrayLike Y, class W = none_t>
Array<float_t<promote_t<value_type_t<X>, value_type_t<Y>>>> polyfit(X const& x_in, Y const& y_in, std::int64_t deg,
                                                                    std::optional<double> rcond = std::nullopt,
                                                                    bool full = false, W const& w = none,
                                                                    bool cov = false) {
  using T = float_t<promote_t<value_type_t<X>, value_type_t<Y>>>;
  if (full || cov) throw Error("jnp::polyfit returns the coefficients only: full=True and cov=True are not provided");
  auto const x = as_array(x_in).template astype<T>();
  auto y = as_array(y_in).template astype<T>();
  if (deg < 0) throw Error("expected deg >= 0");
  if (x.ndim() != 1) throw Error("expected 1D vector for x");
  if (x.size() == 0) throw Error("expected non-empty vector for x");
  if (y.ndim() < 1 || y.ndim() > 2) throw Error("expected 1D or 2D array for y");
  if (x.shape()[0] != y.shape()[0]) throw Error("expected x and y to have same length");
  auto const r = rcond.value_or(static_cast<double>(x.shape()[0]) * std::numeric_limits<T>::epsilon());
  Array<T> lhs = vander(x, deg + 1);
  if constexpr (!std::same_as<W, none_t>) {
    auto const wa = as_array(w).template astype<T>();
    if (wa.ndim() != 1) throw Error("expected a 1-d array for weights");
    if (wa.shape()[0] != y.shape()[0]) throw Error("expected w and y to have the same length");
    lhs = lhs * expand_dims(wa, 1);
    y = y.ndim() == 2 ? Array<T>(y * expand_dims(wa, 1)) : Array<T>(y * wa);
  }
  Array<T> const scale = sqrt(sum(lhs * lhs, 0));
  lhs = lhs / expand_dims(scale, 0);
  auto const c = std::get<0>(linalg::lstsq(lhs, y, r));
  return c.ndim() > 1 ? Array<T>(c / expand_dims(scale, 1)) : Array<T>(c / scale);
}

}  // namespace jaxcc::numpy
