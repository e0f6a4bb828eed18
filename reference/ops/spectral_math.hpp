// Shared arithmetic of the spectral operators (spec/ops/spectral.md): window values and the
// complex exponential e^(-2 pi i k n / L) of the discrete Fourier transform, in binary64 from the
// exact sine and cosine cores (section 2): exact.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "reference/math/exact_trig.hpp"

namespace onemodel::spectral {

// cos and sin of 2 pi m / length for integers m >= 0 and 0 < length <= 2^31 (section 2): exact.
// The turn is split in integer arithmetic into quarter turns q and a remainder: 4 (m mod length)
// = q length + rem, moved to the nearest quarter (rem > length / 2 takes q + 1 and rem - length),
// so r = (rem / length) * (pi/2) lies in [-pi/4, pi/4]; then the binary64 sine and cosine cores of
// spec/exact-transcendentals.md section 11.3 and the quarter-turn rotation. Only +, -, *, / in a
// stated order: the same bits on every platform.
struct Twiddle {
  double cos;
  double sin;
};

inline Twiddle turn(std::uint64_t m, std::uint64_t length) {
  constexpr double kPiOver2 = 1.5707963267948966;  // 0x3FF921FB54442D18, the double nearest pi/2
  const std::uint64_t quarters = 4 * (m % length);  // below 2^33
  std::uint64_t q = quarters / length;
  std::int64_t rem = static_cast<std::int64_t>(quarters % length);
  if (2 * rem > static_cast<std::int64_t>(length)) {
    q += 1;
    rem -= static_cast<std::int64_t>(length);
  }
  const double r = (static_cast<double>(rem) / static_cast<double>(length)) * kPiOver2;
  const double c = exact::trig_detail::cos_core(r), s = exact::trig_detail::sin_core(r);
  switch (q % 4) {
    case 0: return {c, s};
    case 1: return {-s, c};
    case 2: return {-c, -s};
    default: return {s, -c};
  }
}

// The DFT's e^(2 pi i k n / length): its index k n reduced modulo the length first.
inline Twiddle twiddle(std::uint64_t k, std::uint64_t n, std::uint64_t length) {
  return turn((k % length) * (n % length) % length, length);  // both factors < 2^31: no overflow
}

enum class WindowKind { Hann, Hamming, Blackman };

// Sample n of a window of `size` samples (section 3): the denominator N is `size` for a periodic
// window and `size - 1` for a symmetric one; cos(2 pi n / N) and cos(4 pi n / N) are turn()'s, so
// the windows are exact. A symmetric window of one sample divides 0 by 0 and is NaN, as the ONNX
// formula and ONNX Runtime give.
inline double window_value(WindowKind kind, std::int64_t n, std::int64_t size, bool periodic) {
  const std::int64_t denominator = periodic ? size : size - 1;
  if (denominator <= 0) return std::numeric_limits<double>::quiet_NaN();
  const std::uint64_t N = static_cast<std::uint64_t>(denominator), i = static_cast<std::uint64_t>(n);
  const double c1 = turn(i, N).cos;
  switch (kind) {
    case WindowKind::Hann: return 0.5 - 0.5 * c1;
    case WindowKind::Hamming: {
      constexpr double alpha = 25.0 / 46.0;
      return alpha - (1.0 - alpha) * c1;
    }
    case WindowKind::Blackman: return 0.42 - 0.5 * c1 + 0.08 * turn(2 * i, N).cos;
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
