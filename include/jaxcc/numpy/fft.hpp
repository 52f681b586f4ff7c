// jax.numpy.fft (jnp::fft): fft, ifft, rfft, irfft, hfft, ihfft, fft2,
// ifft2, rfft2, irfft2, fftn, ifftn, rfftn, irfftn, fftfreq, rfftfreq,
// fftshift, ifftshift, composed as JAX composes them: the transformed axes
// moved to the end, each cropped or zero-padded to its length in `s` (`n`),
// one lax::fft over them all, the norm ("backward", "ortho", "forward") a
// scale after it, and the axes moved back. Results are complex64 (or
// complex128 from float64 and complex128), the real transforms' inverses
// float32 or float64.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/core/none.hpp"
#include "jaxcc/lax/fft.hpp"
#include "jaxcc/numpy/complex.hpp"
#include "jaxcc/numpy/layout.hpp"
#include "jaxcc/numpy/rearrange.hpp"
#include "jaxcc/numpy/reductions.hpp"

namespace jaxcc::numpy::fft {

namespace detail {

using primitives::FftKind;

/// An optional list of ints (`s` or `axes`): absent by default or with
/// `jaxcc::none`, else a braced list or an Axes.
class FftInts {
 public:
  FftInts() = default;
  FftInts(none_t) {}
  FftInts(std::initializer_list<std::int64_t> v) : given_(true), v_(v) {}
  FftInts(Axes v) : given_(true), v_(std::move(v)) {}
  FftInts(Shape const& v) : given_(true), v_(v.begin(), v.end()) {}
  bool given() const noexcept { return given_; }
  Axes const& values() const noexcept { return v_; }

 private:
  bool given_ = false;
  Axes v_;
};

inline std::string tuple_string(Axes const& v) {
  std::ostringstream os;
  os << Shape(v.begin(), v.end());
  return os.str();
}

/// JAX's _fft_norm as a factor in R: 1/sqrt(N) or sqrt(N) for "ortho",
/// 1/N or N for "forward" (the second of each for the inverse functions,
/// whose names start with i), none for "backward".
template <class R>
std::optional<R> fft_norm_factor(Axes const& s, std::string_view func, std::string_view norm) {
  if (norm == "backward") return std::nullopt;
  R n = 1;
  for (auto v : s) n *= static_cast<R>(v);
  bool const inverse = func.starts_with('i');
  if (norm == "ortho") return inverse ? std::sqrt(n) : R(1) / std::sqrt(n);
  if (norm == "forward") return inverse ? n : R(1) / n;
  throw Error("jnp::fft::" + std::string(func) + ": Invalid norm value " + std::string(norm) +
              "; should be \"backward\",\"ortho\" or \"forward\".");
}

/// The checks and default axes of JAX's _fft_core: the transformed axes
/// (as given, or the defaults) and the lengths given in `s`.
inline Axes fft_axes(std::string_view func, std::int64_t rank, FftInts const& s, FftInts const& axes) {
  auto const name = "jnp::fft::" + std::string(func);
  if (s.given())
    for (auto v : s.values())
      if (v <= 0) throw Error(name + ": Shape should be positive.");
  if (s.given() && axes.given() && s.values().size() != axes.values().size())
    throw Error(name + ": Shape and axes have different lengths.");
  Axes out;
  if (axes.given()) out = axes.values();
  else if (!s.given())
    for (std::int64_t d = 0; d < rank; ++d) out.push_back(d);
  else
    for (auto d = rank - static_cast<std::int64_t>(s.values().size()); d < rank; ++d) out.push_back(d);
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (out[i] == out[j])
        throw Error(name + " does not support repeated axes. Got axes " + tuple_string(out) + ".");
  return out;
}

/// x with its trailing len(s) dimensions cropped or zero-padded to `in_s`.
template <class T>
Array<T> fft_fit(Array<T> const& x, Shape const& in_s) {
  if (x.shape() == in_s) return x;
  primitives::pad_p::PaddingConfig config;
  for (std::size_t d = 0; d < in_s.size(); ++d) config.push_back({0, in_s[d] - x.shape()[d], 0});
  return lax::pad(x, T(0), config);
}

/// JAX's _fft_core: `func` names the function in errors and in the norm.
template <FftKind Kind, ArrayLike A>
auto fft_core(std::string_view func, A const& a, FftInts const& s, FftInts const& axes_arg, std::string_view norm) {
  using U = jaxcc::detail::fft_operand_t<Kind, value_type_t<A>>;
  using Out = jaxcc::detail::fft_result_t<Kind, U>;
  if constexpr (Kind == FftKind::RFFT && ComplexElement<value_type_t<A>>)
    throw Error("jnp::fft::" + std::string(func) + ": only real valued inputs supported for rfft");
  Array<U> x = as_array(a).template astype<U>();
  auto const rank = x.ndim();
  auto const axes = fft_axes(func, rank, s, axes_arg);
  auto const k = static_cast<std::int64_t>(axes.size());
  Axes trailing;
  for (auto d = rank - k; d < rank; ++d) trailing.push_back(d);
  if (axes_arg.given()) x = numpy::moveaxis(x, axes, trailing);
  if (k > rank)
    jaxcc::detail::throw_error("jnp::fft::", func, ": FFT input shape ", x.shape(),
                               " must have at least as many input dimensions as fft_lengths ", tuple_string(s.values()), ".");
  Axes lengths;
  if (s.given()) {
    Shape in_s = x.shape();
    for (std::int64_t i = 0; i < k; ++i) in_s[static_cast<std::size_t>(rank - k + i)] = s.values()[std::size_t(i)];
    if (Kind == FftKind::IRFFT && k > 0) in_s.back() = in_s.back() / 2 + 1;
    x = fft_fit(x, in_s);
    lengths = s.values();
  } else {
    for (std::int64_t i = 0; i < k; ++i) lengths.push_back(x.shape()[static_cast<std::size_t>(rank - k + i)]);
    if (Kind == FftKind::IRFFT && k > 0) lengths.back() = std::max<std::int64_t>(0, 2 * (lengths.back() - 1));
  }
  Array<Out> y = lax::fft(x, lax::FftTypeValue<Kind>{}, Shape(lengths.begin(), lengths.end()));
  if (auto const factor = fft_norm_factor<real_t<Out>>(lengths, func, norm)) y = Array<Out>(y * Out(*factor));
  if (axes_arg.given()) y = numpy::moveaxis(y, trailing, axes);
  return y;
}

template <FftKind Kind, ArrayLike A>
auto fft_core_2d(std::string_view func, A const& a, FftInts const& s, FftInts const& axes, std::string_view norm) {
  if (axes.values().size() != 2)
    throw Error("jnp::fft::" + std::string(func) + " only supports 2 axes. Got axes = " +
                tuple_string(axes.values()) + ".");
  return fft_core<Kind>(func, a, s, axes, norm);
}

/// An optional length n as the list s.
inline FftInts one_length(std::optional<std::int64_t> n) { return n ? FftInts{*n} : FftInts{}; }

}  // namespace detail

/// The n-dimensional FFT over `axes` (default: all, or the last len(s)).
template <ArrayLike A>
auto fftn(A const& a, detail::FftInts const& s = {}, detail::FftInts const& axes = {},
          std::string_view norm = "backward") {
  return detail::fft_core<primitives::FftKind::FFT>("fftn", a, s, axes, norm);
}
/// The n-dimensional inverse FFT.
template <ArrayLike A>
auto ifftn(A const& a, detail::FftInts const& s = {}, detail::FftInts const& axes = {},
           std::string_view norm = "backward") {
  return detail::fft_core<primitives::FftKind::IFFT>("ifftn", a, s, axes, norm);
}
/// The n-dimensional FFT of a real array, the last axis halved to n/2 + 1.
template <ArrayLike A>
auto rfftn(A const& a, detail::FftInts const& s = {}, detail::FftInts const& axes = {},
           std::string_view norm = "backward") {
  return detail::fft_core<primitives::FftKind::RFFT>("rfftn", a, s, axes, norm);
}
/// The inverse of rfftn: a real array, its last axis s[-1] (default 2(m - 1)) long.
template <ArrayLike A>
auto irfftn(A const& a, detail::FftInts const& s = {}, detail::FftInts const& axes = {},
            std::string_view norm = "backward") {
  return detail::fft_core<primitives::FftKind::IRFFT>("irfftn", a, s, axes, norm);
}

/// The 1-D FFT along `axis`, cropped or zero-padded to n points.
template <ArrayLike A>
auto fft(A const& a, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
         std::string_view norm = "backward") {
  return detail::fft_core<primitives::FftKind::FFT>("fft", a, detail::one_length(n), Axes{axis}, norm);
}
template <ArrayLike A>
auto ifft(A const& a, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
          std::string_view norm = "backward") {
  return detail::fft_core<primitives::FftKind::IFFT>("ifft", a, detail::one_length(n), Axes{axis}, norm);
}
template <ArrayLike A>
auto rfft(A const& a, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
          std::string_view norm = "backward") {
  return detail::fft_core<primitives::FftKind::RFFT>("rfft", a, detail::one_length(n), Axes{axis}, norm);
}
template <ArrayLike A>
auto irfft(A const& a, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
           std::string_view norm = "backward") {
  return detail::fft_core<primitives::FftKind::IRFFT>("irfft", a, detail::one_length(n), Axes{axis}, norm);
}

/// The FFT of a Hermitian-symmetric signal given by its first half: real,
/// n (default 2(m - 1)) points; irfft of conj(a), times n.
template <ArrayLike A>
auto hfft(A const& a, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
          std::string_view norm = "backward") {
  auto const conj_a = numpy::conj(a);
  auto const m = conj_a.shape()[static_cast<std::size_t>(jaxcc::detail::normalize_axis(axis, conj_a.ndim(), "jnp::fft::hfft"))];
  auto const nn = n ? *n : (m - 1) * 2;
  auto const y = detail::fft_core<primitives::FftKind::IRFFT>("hfft", conj_a, detail::one_length(n), Axes{axis}, norm);
  using R = value_type_t<decltype(y)>;
  return Array<R>(y * static_cast<R>(nn));
}

/// The inverse of hfft: conj(rfft(a)) / n, n/2 + 1 points.
template <ArrayLike A>
auto ihfft(A const& a, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
           std::string_view norm = "backward") {
  auto const x = as_array(a);
  auto const nn = n ? *n : x.shape()[static_cast<std::size_t>(jaxcc::detail::normalize_axis(axis, x.ndim(), "jnp::fft::ihfft"))];
  auto const y = detail::fft_core<primitives::FftKind::RFFT>("ihfft", x, detail::one_length(n), Axes{axis}, norm);
  using C = value_type_t<decltype(y)>;
  return Array<C>(numpy::conj(y) * C(real_t<C>(1) / static_cast<real_t<C>>(nn)));
}

/// The 2-D transforms: fftn and its siblings over two axes (default the last two).
template <ArrayLike A>
auto fft2(A const& a, detail::FftInts const& s = {}, detail::FftInts const& axes = {-2, -1},
          std::string_view norm = "backward") {
  return detail::fft_core_2d<primitives::FftKind::FFT>("fft2", a, s, axes, norm);
}
template <ArrayLike A>
auto ifft2(A const& a, detail::FftInts const& s = {}, detail::FftInts const& axes = {-2, -1},
           std::string_view norm = "backward") {
  return detail::fft_core_2d<primitives::FftKind::IFFT>("ifft2", a, s, axes, norm);
}
template <ArrayLike A>
auto rfft2(A const& a, detail::FftInts const& s = {}, detail::FftInts const& axes = {-2, -1},
           std::string_view norm = "backward") {
  return detail::fft_core_2d<primitives::FftKind::RFFT>("rfft2", a, s, axes, norm);
}
template <ArrayLike A>
auto irfft2(A const& a, detail::FftInts const& s = {}, detail::FftInts const& axes = {-2, -1},
            std::string_view norm = "backward") {
  return detail::fft_core_2d<primitives::FftKind::IRFFT>("irfft2", a, s, axes, norm);
}

/// The sample frequencies of an n-point FFT with sample spacing d:
/// [0, 1, ..., n/2 - 1 (or (n-1)/2), -n/2 (or -(n-1)/2), ..., -1] / (d n),
/// computed in T's float type (float32 for integers) and given as T.
template <Element T = float>
  requires(!ComplexElement<T>)
Array<T> fftfreq(std::int64_t n, double d = 1.0) {
  using F = std::conditional_t<FloatElement<T>, T, float>;
  using C = jaxcc::detail::compute_t<F>;
  auto [out, data] = jaxcc::detail::allocate<T>(Shape{n});
  auto const scale = static_cast<C>(static_cast<F>(d * static_cast<double>(n)));
  for (std::int64_t i = 0; i < n; ++i) {
    auto const k = (i + n / 2) % n - n / 2;
    data[i] = static_cast<T>(static_cast<F>(static_cast<C>(k) / scale));
  }
  return out;
}

/// The nonnegative sample frequencies of rfft: [0, 1, ..., n/2] / (d n);
/// float32 for integer T (a true division), else T.
template <Element T = float>
  requires(!ComplexElement<T>)
auto rfftfreq(std::int64_t n, double d = 1.0) {
  using F = std::conditional_t<FloatElement<T>, T, float>;
  using C = jaxcc::detail::compute_t<F>;
  auto [out, data] = jaxcc::detail::allocate<F>(Shape{n / 2 + 1});
  auto const scale = static_cast<C>(static_cast<T>(d * static_cast<double>(n)));
  for (std::int64_t i = 0; i <= n / 2; ++i) data[i] = static_cast<F>(static_cast<C>(i) / scale);
  return out;
}

/// Rolls each of `axes` (default: all) by half its length, bringing the zero frequency to the middle.
template <ArrayLike A>
Array<value_type_t<A>> fftshift(A const& a, jaxcc::detail::AxisArg const& axes = {}) {
  auto const x = as_array(a);
  auto const dims = axes.resolve(x.ndim(), "jnp::fft::fftshift");
  Axes shift;
  for (auto d : dims) shift.push_back(x.shape()[static_cast<std::size_t>(d)] / 2);
  return numpy::roll(x, shift, dims);
}
/// The inverse of fftshift.
template <ArrayLike A>
Array<value_type_t<A>> ifftshift(A const& a, jaxcc::detail::AxisArg const& axes = {}) {
  auto const x = as_array(a);
  auto const dims = axes.resolve(x.ndim(), "jnp::fft::ifftshift");
  Axes shift;
  for (auto d : dims) shift.push_back(-(x.shape()[static_cast<std::size_t>(d)] / 2));
  return numpy::roll(x, shift, dims);
}

}  // namespace jaxcc::numpy::fft
