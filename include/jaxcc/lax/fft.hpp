// jax.lax.fft: `lax::fft(x, lax::FftType::RFFT, {8})`, the FFT over the
// trailing len(fft_lengths) dimensions (primitives/fft.hpp). The FftType
// values are types here, so the result's dtype follows from them: FFT and
// IFFT take x as complex (float64 and complex128 make complex128, other
// dtypes complex64), RFFT a real float (integers become float32; complex
// is refused), IRFFT complex and gives its real dtype.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"
#include "jaxcc/primitives/fft.hpp"

namespace jaxcc::detail {
/// JAX's dtypes.to_complex_dtype: float64 and complex128 to complex128, any other dtype to complex64.
template <class T>
using to_complex_t =
    std::conditional_t<std::same_as<T, double> || std::same_as<T, std::complex<double>>, std::complex<double>,
                       std::complex<float>>;
/// The operand dtype an FFT of `Kind` converts T to (for RFFT: float64
/// stays, integers and bool become float32; lax::fft refuses the others).
template <primitives::FftKind Kind, class T>
using fft_operand_t = std::conditional_t<
    Kind == primitives::FftKind::RFFT,
    std::conditional_t<std::same_as<T, double>, double, std::conditional_t<ComplexElement<T>, T, float>>,
    to_complex_t<T>>;
}  // namespace jaxcc::detail

namespace jaxcc::lax {

/// One of JAX's FftType values, as a type.
template <primitives::FftKind Kind>
struct FftTypeValue {
  static constexpr primitives::FftKind kind = Kind;
};

/// JAX's FftType: FFT, IFFT, RFFT, IRFFT.
namespace FftType {
inline constexpr FftTypeValue<primitives::FftKind::FFT> FFT{};
inline constexpr FftTypeValue<primitives::FftKind::IFFT> IFFT{};
inline constexpr FftTypeValue<primitives::FftKind::RFFT> RFFT{};
inline constexpr FftTypeValue<primitives::FftKind::IRFFT> IRFFT{};
}  // namespace FftType

/// lax.fft of `Kind` over the trailing dimensions, of lengths `fft_lengths`.
/// RFFT and IRFFT need at least one length (with none JAX returns x itself,
/// whose dtype is not the transform's).
template <ArrayLike A, primitives::FftKind Kind>
Array<jaxcc::detail::fft_result_t<Kind, jaxcc::detail::fft_operand_t<Kind, value_type_t<A>>>> fft(
    A const& a, FftTypeValue<Kind>, Shape const& fft_lengths) {
  using T = value_type_t<A>;
  using U = jaxcc::detail::fft_operand_t<Kind, T>;
  if constexpr (Kind == primitives::FftKind::RFFT && ComplexElement<T>) {
    throw Error("lax::fft: only real valued inputs supported for rfft");
  } else if constexpr (Kind == primitives::FftKind::RFFT && jaxcc::detail::is_half_float<T>) {
    throw Error("lax::fft: RFFT input must be float32 or float64, got " + std::string(name(dtype_of<T>)));
  } else {
    auto const x = as_array(a).template astype<U>();
    if (fft_lengths.empty()) {
      if constexpr (Kind == primitives::FftKind::FFT || Kind == primitives::FftKind::IFFT) return x;
      else throw Error("lax::fft: RFFT and IRFFT need at least one fft_length");
    } else {
      return jaxcc::detail::bind_fft<Kind>(fft_lengths, x);
    }
  }
}

}  // namespace jaxcc::lax
