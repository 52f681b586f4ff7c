// jnp.linalg's solvers and determinants: solve, inv, det, slogdet and
// matrix_power, over the last two axes with any leading batch axes. As in
// JAX, each is a composition: solve and inv are an LU factorization
// (lax::linalg::lu) and two triangular solves, slogdet reads the LU
// factors' diagonal and pivots, det of a 2×2 or 3×3 matrix is JAX's closed
// form and otherwise sign·exp(logabsdet), matrix_power repeated squaring.
// No new primitive: derivatives, vmap and jit go through lu's and
// triangular_solve's rules (JAX's own solve differentiates through
// custom_linear_solve and det through a custom JVP; the results agree away
// from singular matrices).
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/creation.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/lax/linalg.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/diagonals.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/linalg.hpp"
#include "jaxcc/numpy/linalg_decompositions.hpp"
#include "jaxcc/numpy/norm.hpp"
#include "jaxcc/numpy/reductions.hpp"

namespace jaxcc::detail {

/// Whether x is a stack of square matrices (..., n, n).
template <Element T>
bool is_square_stack(Array<T> const& x) {
  return x.ndim() >= 2 && x.shape()[x.shape().size() - 1] == x.shape()[x.shape().size() - 2];
}

/// Element (i, j) of each matrix of the stack x.
template <Element T>
Array<T> matrix_entry(Array<T> const& x, std::int64_t i, std::int64_t j) {
  auto const r = x.ndim();
  Axes start(static_cast<std::size_t>(r), 0), limit(x.shape().begin(), x.shape().end());
  start[static_cast<std::size_t>(r - 2)] = i, limit[static_cast<std::size_t>(r - 2)] = i + 1;
  start[static_cast<std::size_t>(r - 1)] = j, limit[static_cast<std::size_t>(r - 1)] = j + 1;
  return lax::squeeze(lax::slice(x, start, limit), {r - 2, r - 1});
}

/// x with each matrix of a (..., n, n) stack solved for b (..., n, k),
/// leading axes broadcast: from a's LU factors.
template <Element T>
Array<T> lu_solve(Array<T> const& lu, Array<std::int32_t> const& permutation, Array<T> const& b) {
  auto const n = lu.shape().back(), k = b.shape().back();
  auto const batch = broadcast_shapes(Shape(lu.shape().begin(), lu.shape().end() - 2),
                                      Shape(b.shape().begin(), b.shape().end() - 2), "jnp.linalg.solve");
  auto const stack = [&](Array<T> const& x, std::int64_t cols) {
    Shape s = batch;
    s.push_back(n);
    s.push_back(cols);
    return numpy::broadcast_to(x, s);
  };
  auto const factors = stack(lu, n);
  auto const permuted = numpy::matmul(stack(permutation_matrix<T>(numpy::expand_dims(permutation, -1)), n), stack(b, k));
  auto const y = lax::linalg::triangular_solve(factors, permuted, true, true, false, false, true);
  return lax::linalg::triangular_solve(factors, y, true, false);
}

/// jnp.vectorize's complaint when two sizes of core dimension m differ.
[[noreturn]] inline void inconsistent_core_dimension(std::int64_t found, std::int64_t expected, bool vector) {
  throw_error("inconsistent size for core dimension 'm': ", found, " vs ", expected,
              " on vectorized function with excluded=frozenset() and signature='",
              vector ? "(m,m),(m)->(m)" : "(m,m),(m,n)->(m,n)", "'");
}

/// The leading (batch) axes of a and b broadcast, with JAX's message when they can't be.
inline Shape broadcast_batch(Shape const& a, Shape const& b) {
  try {
    return broadcast_shapes(a, b, "jnp.linalg.solve");
  } catch (Error const&) {
    throw_error("Incompatible shapes for broadcasting: shapes=[", a, ", ", b, "]");
  }
}

/// slogdet of each matrix of a square stack, as JAX's _slogdet_lu: the
/// sign from the pivots' parity and the signs of U's diagonal (0 when that
/// holds a zero), log|det| the sum of log|U_ii| (-inf for a zero).
/// A real array as complex numbers, x + 0i (lax::complex: astype's
/// derivative does not transpose from complex to real).
template <FloatElement R>
Array<std::complex<R>> as_complex(Array<R> const& x) {
  return lax::complex(x, Array<R>(x * R(0)));
}

/// For a complex matrix the sign is the product of the diagonal's phases
/// diag / |diag| (and of the pivots' parity), log|det| real.
template <Element T>
std::tuple<Array<T>, Array<real_t<T>>> slogdet_lu(Array<T> const& a) {
  using R = real_t<T>;
  auto const n = a.shape().back();
  auto const [lu, pivots, permutation] = lax::linalg::lu(a);
  auto const diag = numpy::diagonal(lu, 0, -2, -1);
  auto const is_zero = numpy::any(diag == T(0), -1);
  using Count = detail::dependent_t<T, std::int32_t>;  // (through T: compiled only where this is)
  auto const swaps = numpy::sum(Array<bool>(pivots != iota<Count>(n)).template astype<Count>(), -1);
  auto const abs_diag = Array<R>(numpy::abs(diag));
  auto const parity_sign = [&](Array<Count> const& count) {
    return Array<T>(T(1) - T(2) * Array<Count>(count & 1).template astype<T>());
  };
  Array<T> sign;
  if constexpr (ComplexElement<T>) {
    sign = Array<T>(numpy::prod(Array<T>(diag / detail::as_complex(abs_diag)), -1) * parity_sign(swaps));
  } else {
    auto const negative = numpy::sum(Array<bool>(diag < T(0)).template astype<Count>(), -1);
    sign = parity_sign(Array<Count>(swaps + negative));
  }
  sign = numpy::where(is_zero, T(0), sign);
  auto const logdet = numpy::where(is_zero, -std::numeric_limits<R>::infinity(),
                                   numpy::sum(Array<R>(numpy::log(abs_diag)), -1));
  return {sign, logdet};
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy::linalg {

/// jnp.linalg.solve: x with a·x = b for each matrix of a (..., m, m); b is
/// a vector (m,) or a stack (..., m, n) whose leading axes broadcast with
/// a's. Integers are solved as floats.
template <ArrayLike A, ArrayLike B>
Array<float_t<promote_t<value_type_t<A>, value_type_t<B>>>> solve(A const& a_in, B const& b_in) {
  using T = float_t<promote_t<value_type_t<A>, value_type_t<B>>>;
  auto const a = detail::array_as<T>(a_in);
  auto const b = detail::array_as<T>(b_in);
  if (a.ndim() < 2)
    detail::throw_error("left hand array must be at least two dimensional; got a.shape=", a.shape());
  auto const& as = a.shape();
  auto const& bs = b.shape();
  auto const m = as.back();
  if (b.ndim() > 1 && a.ndim() == b.ndim() + 1 && m == bs.back() && m != bs[bs.size() - 2])
    detail::throw_error("Invalid shapes for solve: ", as, ", ", bs,
                        ". Prior to JAX v0.5.0, this would have been treated as a batched 1-dimensional solve. To "
                        "recover this behavior, use solve(a, b[..., None]).squeeze(-1).");
  bool const vector = b.ndim() == 1;
  if (as[as.size() - 2] != m) detail::inconsistent_core_dimension(m, as[as.size() - 2], vector);
  if (!vector && b.ndim() < 2)
    detail::throw_error("input with shape ", bs,
                        " does not have enough dimensions for all core dimensions ('m', 'n') on vectorized function "
                        "with excluded=frozenset() and signature='(m,m),(m,n)->(m,n)'");
  auto const rows = vector ? bs.back() : bs[bs.size() - 2];
  if (rows != m) detail::inconsistent_core_dimension(rows, m, vector);
  detail::broadcast_batch(Shape(as.begin(), as.end() - 2), Shape(bs.begin(), bs.end() - (vector ? 1 : 2)));
  auto const [lu, pivots, permutation] = lax::linalg::lu(a);
  if (vector) return lax::squeeze(detail::lu_solve(lu, permutation, Array<T>(expand_dims(b, -1))), {-1});
  return detail::lu_solve(lu, permutation, b);
}

/// jnp.linalg.inv: the inverse of each matrix of a (..., n, n) stack (a
/// singular one gives infs and NaNs, as JAX's).
template <ArrayLike A>
Array<float_t<value_type_t<A>>> inv(A const& a_in) {
  using T = float_t<value_type_t<A>>;
  auto const a = detail::array_as<T>(a_in);
  if (!detail::is_square_stack(a))
    detail::throw_error("Argument to inv must have shape [..., n, n], got ", a.shape(), ".");
  return solve(a, broadcast_to(eye<T>(a.shape().back()), a.shape()));
}

/// jnp.linalg.slogdet: (sign, log|det|) of each matrix of a (..., n, n)
/// stack; a singular matrix gives (0, -inf), a 0 x 0 one (1, 0).
template <ArrayLike A>
std::tuple<Array<float_t<value_type_t<A>>>, Array<real_t<float_t<value_type_t<A>>>>> slogdet(A const& a_in) {
  using T = float_t<value_type_t<A>>;
  using R = real_t<T>;
  auto const a = detail::array_as<T>(a_in);
  if (!detail::is_square_stack(a))
    detail::throw_error("Argument to slogdet() must have shape [..., n, n], got ", a.shape());
  auto const n = a.shape().back();
  if (n > 2) return detail::slogdet_lu(a);
  if (n == 0) {
    Shape const batch(a.shape().begin(), a.shape().end() - 2);
    return {ones<T>(batch), zeros<R>(batch)};
  }
  // JAX's closed forms for n = 1 and 2.
  auto const d = n == 1 ? detail::matrix_entry(a, 0, 0)
                        : Array<T>(detail::matrix_entry(a, 0, 0) * detail::matrix_entry(a, 1, 1) -
                                   detail::matrix_entry(a, 0, 1) * detail::matrix_entry(a, 1, 0));
  auto const abs_d = Array<R>(abs(d));
  if constexpr (ComplexElement<T>) {
    // d / |d|, 0 where d is 0 (JAX's sign of a complex number).
    auto const safe = Array<R>(where(abs_d == R(0), R(1), abs_d));
    return {where(abs_d == R(0), T(0), Array<T>(d / detail::as_complex(safe))), log(abs_d)};
  } else {
    return {sign(d), log(abs_d)};
  }
}

/// jnp.linalg.det: the determinant of each matrix of a (..., n, n) stack.
template <ArrayLike A>
Array<float_t<value_type_t<A>>> det(A const& a_in) {
  using T = float_t<value_type_t<A>>;
  auto const a = detail::array_as<T>(a_in);
  if (!detail::is_square_stack(a))
    detail::throw_error("Argument to _det() must have shape [..., n, n], got ", a.shape());
  auto const n = a.shape().back();
  auto const e = [&](std::int64_t i, std::int64_t j) { return detail::matrix_entry(a, i, j); };
  if (n == 2) return e(0, 0) * e(1, 1) - e(0, 1) * e(1, 0);
  if (n == 3)
    return e(0, 0) * e(1, 1) * e(2, 2) + e(0, 1) * e(1, 2) * e(2, 0) + e(0, 2) * e(1, 0) * e(2, 1) -
           e(0, 2) * e(1, 1) * e(2, 0) - e(0, 0) * e(1, 2) * e(2, 1) - e(0, 1) * e(1, 0) * e(2, 2);
  auto const [s, logdet] = slogdet(a);
  if constexpr (ComplexElement<T>) return s * detail::as_complex(Array<real_t<T>>(exp(logdet)));
  else return s * exp(logdet);
}

/// jnp.linalg.matrix_power: each matrix of a (..., n, n) stack to the
/// integer power n, by repeated squaring (n < 0: of the inverse; 0: the
/// identity).
template <ArrayLike A>
Array<value_type_t<A>> matrix_power(A const& a_in, std::int64_t n) {
  auto a = as_array(a_in);
  if (a.ndim() < 2)
    detail::throw_error(a.ndim(), "-dimensional array given. Array must be at least two-dimensional");
  if (!detail::is_square_stack(a)) throw Error("Last 2 dimensions of the array must be square");
  using T = value_type_t<A>;
  if (n == 0) return broadcast_to(eye<T>(a.shape().back()), a.shape());
  if (n < 0) {
    if constexpr (std::floating_point<T> || ComplexElement<T>) a = inv(a);
    else throw Error("jnp.linalg.matrix_power: a negative power of an integer matrix needs its inverse; convert it to float first");
    n = -n;
  }
  if (n == 1) return a;
  if (n == 2) return matmul(a, a);
  if (n == 3) return matmul(matmul(a, a), a);  // JAX's association, not the squaring loop's
  std::optional<Array<T>> z, result;
  while (n > 0) {
    z = z ? Array<T>(matmul(*z, *z)) : a;
    if (n % 2) result = result ? Array<T>(matmul(*result, *z)) : *z;
    n /= 2;
  }
  return *result;
}

/// jnp.linalg.tensorinv: the inverse of `a` read as a matrix whose rows
/// are its first `ind` axes: shape a.shape[ind:] + a.shape[:ind].
template <ArrayLike A>
Array<float_t<value_type_t<A>>> tensorinv(A const& a_in, std::int64_t ind = 2) {
  auto const a = as_array(a_in);
  if (ind <= 0) detail::throw_error("ind must be a positive integer; got ind=", ind);
  auto const& s = a.shape();
  auto const cut = std::min<std::int64_t>(ind, a.ndim());
  Shape const contracting(s.begin(), s.begin() + cut), batch(s.begin() + cut, s.end());
  auto const rows = contracting.numel(), cols = batch.numel();
  if (rows != cols)
    detail::throw_error("tensorinv is only possible when the product of the first `ind` dimensions equals that of the "
                        "remaining dimensions. got arr.shape=", s, " with ind=", ind, ".");
  Shape out = batch;
  out.insert(out.end(), contracting.begin(), contracting.end());
  return inv(a.reshape({rows, cols})).reshape(out);
}

/// jnp.linalg.tensorsolve: x with tensordot(a, x, x.ndim) = b; `axes` of a
/// are moved to the end first. x has shape a.shape[b.ndim:].
template <ArrayLike A, ArrayLike B>
Array<float_t<promote_t<value_type_t<A>, value_type_t<B>>>> tensorsolve(A const& a_in, B const& b_in,
                                                                        std::optional<Axes> const& axes = std::nullopt) {
  auto a = as_array(a_in);
  auto const b = as_array(b_in);
  if (axes) a = moveaxis(a, *axes, Axes(axes->size(), a.ndim() - 1));
  auto const& s = a.shape();
  auto const bn = std::min<std::int64_t>(b.ndim(), a.ndim());
  Shape const lead(s.begin(), s.begin() + bn), out(s.begin() + bn, s.end());
  if (lead != b.shape() || b.ndim() > a.ndim())
    detail::throw_error("After moving axes to end, leading shape of a must match shape of b. got a.shape=", s,
                        ", b.shape=", b.shape());
  if (b.size() != out.numel())
    detail::throw_error("Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); got a.shape=", s,
                        ", b.ndim=", b.ndim(), ".");
  return solve(a.reshape({b.size(), out.numel()}), ravel(b)).reshape(out);
}

/// jnp.linalg.cond: the condition number of each (..., m, n) matrix in the
/// norm `p`: by default (or 2) the ratio of its largest singular value to
/// its smallest, -2 the inverse ratio; any other matrix norm (square
/// matrices only) norm(x)·norm(inv(x)), infinite where that is NaN and x
/// is not. Real for complex x.
template <ArrayLike X, class P = none_t>
Array<real_t<float_t<value_type_t<X>>>> cond(X const& x_in, P const& p = none) {
  using T = float_t<value_type_t<X>>;
  using R = real_t<T>;
  auto const x = detail::array_as<T>(x_in);
  if (x.ndim() < 2) detail::throw_error("jnp.linalg.cond: input array must be at least 2D; got arr.shape=", x.shape());
  if (x.shape().back() == 0 || x.shape()[x.shape().size() - 2] == 0)
    detail::throw_error("jnp.linalg.cond: input array must not be empty; got arr.shape=", x.shape());
  auto const end = [](Array<R> const& s, bool first) {
    auto const n = s.shape().back();
    return lax::squeeze(detail::slice_in_dim(s, first ? 0 : n - 1, first ? 1 : n, 1, s.ndim() - 1), {-1});
  };
  Array<R> r;
  if constexpr (std::same_as<P, none_t>) {
    auto const s = svdvals(x);
    return end(s, true) / end(s, false);
  } else if constexpr (std::convertible_to<P, std::string_view>) {
    if (!detail::is_square_stack(x))
      detail::throw_error("jnp.linalg.cond: for p='", std::string_view(p), "', array must be square; got arr.shape=",
                          x.shape());
    r = norm(x, std::string_view(p), {-2, -1}) * norm(inv(x), std::string_view(p), {-2, -1});
  } else {
    auto const ord = static_cast<double>(p);
    if (ord == 2 || ord == -2) {
      auto const s = svdvals(x);
      if (ord == 2) return end(s, true) / end(s, false);
      r = end(s, false) / end(s, true);
    } else {
      if (!detail::is_square_stack(x))
        detail::throw_error("jnp.linalg.cond: for p=", detail::order_string(ord),
                            ", array must be square; got arr.shape=", x.shape());
      r = norm(x, ord, {-2, -1}) * norm(inv(x), ord, {-2, -1});
    }
  }
  return where(isnan(r) & logical_not(any(isnan(x), {-2, -1})), std::numeric_limits<R>::infinity(), r);
}

}  // namespace jaxcc::numpy::linalg
