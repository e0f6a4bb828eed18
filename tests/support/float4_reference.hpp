// An independent statement of the FLOAT4E2M1 rules of spec/tensors.md section 2.2, for the unit
// test (tests/unit/cast_subbyte_test.cpp) and the 2^32 sweep (tools/float4_sweep). It shares no
// code with core/tensor/subbyte.cpp: decoding from the ONNX float4 page with std::ldexp in double,
// encoding as the nearest of the seven decoded magnitudes.
#pragma once

#include <cmath>

namespace float4_reference {

// The ONNX float4 page: S.b2b1b0, exponent b2b1 with bias 1, mantissa b0; exponent 0 is m * 2^-1.
inline double decode(int code) {
  const int e = (code >> 1) & 3;
  const int m = code & 1;
  const double magnitude = e == 0 ? m * 0.5 : std::ldexp(1.0 + 0.5 * m, e - 1);
  return (code & 8) != 0 ? -magnitude : magnitude;
}

// The nearest of the decoded magnitudes, ties to the even code; above 6 saturates; NaN gives the
// zero of the opposite sign (spec/tensors.md section 2.2).
inline int nearest_code(double x) {
  if (std::isnan(x)) return std::signbit(x) ? 0 : 8;
  const int sign = std::signbit(x) ? 8 : 0;
  const double a = std::fabs(x);
  if (a > 6.0) return sign | 7;
  int best = 0;
  double best_distance = a;
  for (int c = 1; c < 8; ++c) {
    const double d = std::fabs(a - decode(c));  // exact near every midpoint (a is binary32 there)
    if (d < best_distance || (d == best_distance && c % 2 == 0)) {
      best = c;
      best_distance = d;
    }
  }
  return sign | best;
}

}  // namespace float4_reference
