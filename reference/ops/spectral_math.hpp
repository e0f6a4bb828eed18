// Shared arithmetic of the spectral operators (spec/ops/spectral.md): window values and the
// complex exponential e^(-2 pi i k n / L) of the discrete Fourier transform, in binary64 with the
// platform's cos and sin (not exact: section 1 of that page).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

namespace onemodel::spectral {

// cos and sin of 2 pi m / length for 0 <= m < length: the index is reduced modulo the length
// before the angle is formed, so the angle stays in [0, 2 pi) and large k * n lose nothing
// (section 2).
struct Twiddle {
  double cos;
  double sin;
};

inline Twiddle twiddle(std::uint64_t k, std::uint64_t n, std::uint64_t length) {
  const std::uint64_t m = (k % length) * (n % length) % length;  // both factors < 2^31: no overflow
  const double angle = 2.0 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(length);
  return {std::cos(angle), std::sin(angle)};
}

enum class WindowKind { Hann, Hamming, Blackman };

// Sample n of a window of `size` samples (section 3): the denominator N is `size` for a periodic
// window and `size - 1` for a symmetric one. A symmetric window of one sample divides 0 by 0 and
// is NaN, as the ONNX formula and ONNX Runtime give.
inline double window_value(WindowKind kind, std::int64_t n, std::int64_t size, bool periodic) {
  const std::int64_t denominator = periodic ? size : size - 1;
  if (denominator <= 0) return std::numeric_limits<double>::quiet_NaN();
  const double x = 2.0 * std::numbers::pi * static_cast<double>(n) / static_cast<double>(denominator);
  switch (kind) {
    case WindowKind::Hann: return 0.5 - 0.5 * std::cos(x);
    case WindowKind::Hamming: {
      constexpr double alpha = 25.0 / 46.0;
      return alpha - (1.0 - alpha) * std::cos(x);
    }
    case WindowKind::Blackman: return 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2.0 * x);
  }
  return 0.0;
}

}  // namespace onemodel::spectral

namespace onemodel::spectral {

// One transform of a line (section 2): for k in [0, bins), the sum over n in [0, count) of
// x[n] * e^(sign * 2 pi i k n / length), x[n] = (re[n], im[n]), added in order of n, each complex
// product as (a c - b s, a s + b c) with (c, s) = (cos, sign * sin), in binary64.
inline void dft_line(const double* re, const double* im, std::size_t count, std::uint64_t length, std::size_t bins,
                     int sign, double* out_re, double* out_im) {
  for (std::size_t k = 0; k < bins; ++k) {
    double sum_re = 0.0, sum_im = 0.0;
    for (std::size_t n = 0; n < count; ++n) {
      const Twiddle w = twiddle(k, n, length);
      const double s = sign < 0 ? -w.sin : w.sin;
      sum_re += re[n] * w.cos - im[n] * s;
      sum_im += re[n] * s + im[n] * w.cos;
    }
    out_re[k] = sum_re;
    out_im[k] = sum_im;
  }
}

}  // namespace onemodel::spectral
