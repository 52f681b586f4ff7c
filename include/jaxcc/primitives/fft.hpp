// lax.fft as a primitive: the FFT over the trailing len(fft_lengths)
// dimensions, of four kinds (JAX's FftType): FFT and IFFT (complex to
// complex; IFFT scaled by 1/N, N the product of the lengths), RFFT (real to
// complex, the last axis halved to n/2 + 1) and IRFFT (its inverse,
// complex to real, scaled by 1/N). One struct per kind, so each has its
// operand and result types; all print as JAX's `fft[fft_lengths=...
// fft_type=k]`.
//
// Every kind is linear: the JVP applies it to the tangent. The transposes
// are JAX's: FFT's and IFFT's are themselves (the DFT matrix is
// symmetric); RFFT's is N irfft(conj(ct) / mask) and IRFFT's
// conj(mask rfft(ct) / N), where mask is 2 on the frequencies that stand
// for two (a positive one and its negative) and 1 on 0 and, for even n, on
// n/2. Batching moves the mapped dimension to the front; a sharded jit
// runs each device's part where it is, its FFT dimensions gathered whole
// first. The kernel is kernels/fft.hpp's (pocketfft).
#pragma once

#include <complex>
#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/fusion/operators.hpp"
#include "jaxcc/kernels/fft.hpp"
#include "jaxcc/primitives/bind.hpp"
#include "jaxcc/primitives/bits/batching.hpp"
#include "jaxcc/primitives/bits/partitioning.hpp"
#include "jaxcc/primitives/broadcast_in_dim.hpp"
#include "jaxcc/primitives/complex_parts.hpp"

namespace jaxcc::primitives {

/// JAX's FftType, with its values.
enum class FftKind : std::uint8_t { FFT = 0, IFFT = 1, RFFT = 2, IRFFT = 3 };

/// The parameters every kind shares: the transformed trailing lengths.
struct FftParams {
  Shape fft_lengths;
  friend bool operator==(FftParams const&, FftParams const&) = default;
};

template <FftKind Kind>
struct fft_p;

}  // namespace jaxcc::primitives

namespace jaxcc::detail {

/// The operand element type of a kind for result or operand type T.
template <primitives::FftKind Kind, class T>
concept FftOperand = (Kind == primitives::FftKind::RFFT && (std::same_as<T, float> || std::same_as<T, double>)) ||
                     (Kind != primitives::FftKind::RFFT && ComplexElement<T>);

/// The result element type of an FFT of kind `Kind` of an array of T.
template <primitives::FftKind Kind, class T>
using fft_result_t = std::conditional_t<Kind == primitives::FftKind::RFFT, std::complex<real_t<T>>,
                                        std::conditional_t<Kind == primitives::FftKind::IRFFT, real_t<T>, T>>;

template <primitives::FftKind Kind, class T>
Array<fft_result_t<Kind, T>> bind_fft(Shape const& fft_lengths, Array<T> const& x) {
  return jaxcc::detail::bind<primitives::fft_p<Kind>>(primitives::FftParams{fft_lengths}, x);
}

/// JAX's shape rule of lax.fft, with its errors and StableHLO's.
inline Shape fft_shape(primitives::FftKind kind, Shape const& shape, Shape const& lengths) {
  using primitives::FftKind;
  auto const k = lengths.size();
  if (k > shape.size())
    throw_error("FFT input shape ", shape, " must have at least as many input dimensions as fft_lengths ", lengths,
                ".");
  auto const lead = shape.size() - k;
  Shape const minor(shape.begin() + static_cast<std::ptrdiff_t>(lead), shape.end());
  Shape out(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(lead));
  if (kind == FftKind::IRFFT) {
    Shape const outer(lengths.begin(), lengths.end() - 1);
    if (!(Shape(minor.begin(), minor.end() - 1) == outer))
      throw_error("IRFFT input shape ", shape,
                  " minor dimensions must be equal to all except the last fft_length, got fft_lengths=", lengths);
    if (minor.back() != lengths.back() / 2 + 1)
      throw_error("IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1. Got: ", minor.back(),
                  " but fft_length is ", lengths.back(), ".");
    out.insert(out.end(), lengths.begin(), lengths.end());
    return out;
  }
  if (!(minor == lengths))
    throw_error(kind == FftKind::RFFT ? "RFFT" : "FFT", " input shape ", shape,
                " minor dimensions must be equal to fft_lengths ", lengths);
  if (kind == FftKind::RFFT) {
    for (auto n : lengths)
      if (n == 0) throw_error("RFFT requires positive fft_lengths, got fft_lengths=", lengths);
    out.insert(out.end(), lengths.begin(), lengths.end() - 1);
    out.push_back(lengths.back() / 2 + 1);
    return out;
  }
  return shape;
}

/// The weights of the half spectrum of an n-point real transform along the
/// last axis of `shape`: 2 where a frequency stands for itself and its
/// negative, 1 on 0 and (n even) on n/2; `power` -1 gives their reciprocals.
template <class C>
Array<C> fft_half_weights(Shape const& shape, std::int64_t n, int power) {
  auto const m = shape.back();
  auto [w, data] = allocate<C>(Shape{m});
  for (std::int64_t j = 0; j < m; ++j) {
    bool const single = j == 0 || (n % 2 == 0 && j == m - 1);
    data[j] = C(single ? 1 : (power > 0 ? 2 : 0.5));
  }
  return lax::broadcast_in_dim(w, shape, Axes{static_cast<std::int64_t>(shape.size()) - 1});
}

/// The kernel: `Kind` over the trailing dimensions of x into a new array.
template <primitives::FftKind Kind, class T>
Array<fft_result_t<Kind, T>> fft_impl(Shape const& lengths, Shape const& out_shape, Array<T> const& x) {
  using primitives::FftKind;
  using U = fft_result_t<Kind, T>;
  using R = real_t<T>;
  auto [out, data] = allocate<U>(out_shape);
  if (x.size() == 0 || out.size() == 0) {
    std::fill(data, data + out.size(), U(0));
    return out;
  }
  std::vector<int> axes;
  for (auto d = out_shape.size() - lengths.size(); d < out_shape.size(); ++d) axes.push_back(static_cast<int>(d));
  R const inverse = R(1) / static_cast<R>(lengths.numel());
  if constexpr (Kind == FftKind::RFFT)
    fft_r2c<R>(x.shape(), x.strides(), out.strides(), axes, x.data(), data, R(1));
  else if constexpr (Kind == FftKind::IRFFT)
    fft_c2r<R>(out_shape, x.strides(), out.strides(), axes, x.data(), data, inverse);
  else
    fft_c2c<R>(x.shape(), x.strides(), out.strides(), axes, Kind == FftKind::FFT, x.data(), data,
               Kind == FftKind::FFT ? R(1) : inverse);
  return out;
}

}  // namespace jaxcc::detail

namespace jaxcc::primitives {

template <FftKind Kind>
struct fft_p {
  static constexpr std::string_view name = "fft";
  using Params = FftParams;

  template <Element T>
    requires detail::FftOperand<Kind, T>
  static Shape shape_rule(Params const& p, Array<T> const& x) {
    return detail::fft_shape(Kind, x.shape(), p.fft_lengths);
  }
  static std::string params_string(Params const& p) {
    return "fft_lengths=" + to_string(p.fft_lengths) + " fft_type=" + std::to_string(static_cast<int>(Kind));
  }

  /// Linear: the same transform of the tangent.
  template <Element T, Element U>
    requires detail::FftOperand<Kind, T>
  static Array<U> jvp(Params const& p, Array<U> const&, Array<T> const&, Array<T> const& t) {
    return detail::bind_fft<Kind>(p.fft_lengths, t);
  }

  /// JAX's transposes (the header's comment).
  template <Element T, Element U>
    requires detail::FftOperand<Kind, T>
  static Array<T> vjp(Params const& p, Array<U> const& ct, Array<U> const&, Array<T> const&) {
    auto const& lengths = p.fft_lengths;
    if constexpr (Kind == FftKind::FFT || Kind == FftKind::IFFT) {
      return detail::bind_fft<Kind>(lengths, ct);
    } else if constexpr (Kind == FftKind::RFFT) {  // ct complex, result real
      auto const halved = detail::fft_half_weights<U>(ct.shape(), lengths.back(), -1);
      Array<U> const weighted = detail::conjugate(ct) * halved;
      return Array<T>(detail::bind_fft<FftKind::IRFFT>(lengths, weighted) * static_cast<T>(lengths.numel()));
    } else {  // ct real, result complex
      auto const spectrum = detail::bind_fft<FftKind::RFFT>(lengths, ct);
      auto const doubled = detail::fft_half_weights<T>(spectrum.shape(), lengths.back(), 1);
      Array<T> const scaled = spectrum * doubled * T(real_t<T>(1) / static_cast<real_t<T>>(lengths.numel()));
      return detail::conjugate(scaled);
    }
  }

  template <Element T>
    requires detail::FftOperand<Kind, T>
  static std::pair<Array<detail::fft_result_t<Kind, T>>, graph::BatchDim> batch(
      Params const& p, graph::AxisData const&, std::span<graph::BatchDim const> dims, Array<T> const& x) {
    return {detail::bind_fft<Kind>(p.fft_lengths, detail::move_axis(x, *dims[0], 0)), graph::BatchDim{0}};
  }

  /// Sharded jit: the leading (batch) dimensions keep their split; the FFT
  /// dimensions are gathered whole first.
  template <Element T>
    requires detail::FftOperand<Kind, T>
  static std::optional<graph::Partitioned> partition(Params const& p, std::span<graph::Layout const> layouts,
                                                     graph::Resharder const& reshard, Array<T> const& x) {
    auto want = layouts[0];
    for (auto d = want.dims.size() - p.fft_lengths.size(); d < want.dims.size(); ++d) want.dims[d].clear();
    auto const part = reshard(AnyArray(x), layouts[0], want).template as<T>();
    return graph::Partitioned{AnyArray(detail::bind_fft<Kind>(p.fft_lengths, part)), want};
  }

  template <Element T>
    requires detail::FftOperand<Kind, T>
  static Array<detail::fft_result_t<Kind, T>> impl(Params const& p, Shape out_shape, Array<T> const& x) {
    return detail::fft_impl<Kind>(p.fft_lengths, out_shape, x);
  }
};

}  // namespace jaxcc::primitives
