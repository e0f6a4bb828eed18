// An independent statement of the 8-bit float rules of spec/tensors.md section 2.1, for the unit
// test (tests/unit/float8_conversion_test.cpp) and the 2^32 sweep (tools/float8_sweep). It shares
// no code with core/tensor/float8.cpp and is written another way:
//   - decoding: sign * significand * 2^exponent with std::ldexp in double, from the format's
//     definition (ONNX's Cast schema and the OCP 8-bit float text);
//   - encoding: the table of the format's finite magnitudes (decoded as above, ascending), plus
//     one pseudo-value one step above the largest (what an unbounded exponent would give next);
//     the value is compared with the midpoint of its two neighbours in the table (exact in double),
//     ties to the even code; landing on the pseudo-value is the overflow of ONNX's tables.
//   - E8M0: std::frexp gives the binade, and the rounding mode picks a side.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "onemodel/float8.hpp"

namespace float8_reference {

using onemodel::E8M0Rounding;
using onemodel::Float8Format;

struct Definition {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool nan_is_0x80;      // FNUZ: 0x80 is the only NaN, there is no -0
  bool nan_is_all_ones;  // FN: S.1111.111 is NaN
  bool ieee_specials;    // E5M2: exponent all ones is infinity or NaN
};

inline Definition definition(Float8Format f) {
  switch (f) {
    case Float8Format::E4M3FN: return {4, 3, 7, false, true, false};
    case Float8Format::E4M3FNUZ: return {4, 3, 8, true, false, false};
    case Float8Format::E5M2: return {5, 2, 15, false, false, true};
    case Float8Format::E5M2FNUZ: return {5, 2, 16, true, false, false};
    case Float8Format::E8M0: break;
  }
  return {8, 0, 127, false, false, false};
}

inline bool is_nan_code(Float8Format f, std::uint8_t code) {
  if (f == Float8Format::E8M0) return code == 0xFF;
  const Definition d = definition(f);
  if (d.nan_is_0x80) return code == 0x80;
  if (d.nan_is_all_ones) return (code & 0x7F) == 0x7F;
  const int exponent = (code & 0x7F) >> d.mantissa_bits;
  return exponent == (1 << d.exponent_bits) - 1 && (code & ((1 << d.mantissa_bits) - 1)) != 0;
}

// The value of a pattern by the definition; NaN for NaN codes.
inline double decode(Float8Format f, std::uint8_t code) {
  if (is_nan_code(f, code)) return std::numeric_limits<double>::quiet_NaN();
  if (f == Float8Format::E8M0) return std::ldexp(1.0, static_cast<int>(code) - 127);
  const Definition d = definition(f);
  const double sign = (code & 0x80) != 0 ? -1.0 : 1.0;
  const int exponent = (code & 0x7F) >> d.mantissa_bits;
  const int mantissa = code & ((1 << d.mantissa_bits) - 1);
  if (d.ieee_specials && exponent == (1 << d.exponent_bits) - 1) return sign * std::numeric_limits<double>::infinity();
  if (exponent == 0) return sign * std::ldexp(static_cast<double>(mantissa), 1 - d.bias - d.mantissa_bits);
  return sign * std::ldexp(static_cast<double>((1 << d.mantissa_bits) + mantissa), exponent - d.bias - d.mantissa_bits);
}

// What a conversion should give: a code, or "some NaN" (with the sign it must carry, if any).
struct Expected {
  bool nan = false;
  int nan_sign = -1;  // -1: no sign required; 0 or 1: the sign bit the NaN code must have
  std::uint8_t code = 0;
};

// The positive finite magnitudes of a format with a mantissa, ascending, with their codes, and
// the pseudo-value above the largest.
class Table {
 public:
  explicit Table(Float8Format f) : def_(definition(f)) {
    for (int c = 0; c < 0x80; ++c) {
      const double v = decode(f, static_cast<std::uint8_t>(c));
      if (std::isnan(v) || std::isinf(v)) continue;
      values_.push_back(v);
      codes_.push_back(c);
    }
    // Ascending by value; codes rise with values for the positive half of every format.
    const double top = values_.back();
    const double step = top - values_[values_.size() - 2];
    values_.push_back(top + step);
    codes_.push_back(codes_.back() + 1);  // the pseudo-code: its parity is the next code's
  }

  std::uint8_t max_code() const { return static_cast<std::uint8_t>(codes_[codes_.size() - 2]); }
  const std::vector<double>& values() const { return values_; }

  Expected encode(double x, bool saturate) const {
    Expected e;
    const int sign = std::signbit(x) ? 1 : 0;
    if (std::isnan(x)) {
      e.nan = true;
      e.nan_sign = def_.nan_is_0x80 ? -1 : sign;
      return e;
    }
    const double a = std::fabs(x);
    std::size_t pick;  // index into values_
    if (std::isinf(a) || a >= values_.back()) {
      pick = values_.size() - 1;
    } else {
      const auto hi = static_cast<std::size_t>(std::upper_bound(values_.begin(), values_.end(), a) - values_.begin());
      const std::size_t lo = hi - 1;  // values_[lo] <= a < values_[hi]; values_[0] = 0 <= a
      const double mid = (values_[lo] + values_[hi]) / 2;  // exact: few significant bits
      if (a < mid) pick = lo;
      else if (a > mid) pick = hi;
      else pick = (codes_[lo] % 2 == 0) ? lo : hi;
    }
    if (pick == values_.size() - 1) {  // overflow (ONNX's [x] > FLT_MAX rows) or infinity
      if (saturate) {
        e.code = static_cast<std::uint8_t>((sign << 7) | max_code());
      } else if (def_.ieee_specials) {
        e.code = static_cast<std::uint8_t>((sign << 7) | 0x7C);
      } else {
        e.nan = true;
        e.nan_sign = def_.nan_is_0x80 ? -1 : sign;
      }
      return e;
    }
    const int c = codes_[pick];
    if (c == 0 && def_.nan_is_0x80) return e;  // no -0
    e.code = static_cast<std::uint8_t>((sign << 7) | c);
    return e;
  }

 private:
  Definition def_;
  std::vector<double> values_;
  std::vector<int> codes_;
};

// E8M0: |x| is taken (the sign is ignored), frexp gives |x| = f * 2^p with 0.5 <= f < 1.
inline Expected encode_e8m0(double x, bool saturate, E8M0Rounding rounding) {
  Expected e;
  if (std::isnan(x)) {
    e.code = 0xFF;
    return e;
  }
  const double a = std::fabs(x);
  if (std::isinf(a)) {
    e.code = saturate ? 0xFE : 0xFF;
    return e;
  }
  if (a == 0) {
    e.code = saturate ? 0x00 : 0xFF;
    return e;
  }
  int p;
  const double f = std::frexp(a, &p);  // a = f * 2^p, so 2^(p-1) <= a < 2^p
  int k = p - 1;                        // the power of two at or below a
  if (rounding == E8M0Rounding::Up && f != 0.5) k = p;
  if (rounding == E8M0Rounding::Nearest && f >= 0.75) k = p;  // a >= 1.5 * 2^(p-1): ties up
  const int biased = k + 127;
  if (biased < 0) e.code = saturate ? 0x00 : 0xFF;
  else if (biased > 254) e.code = saturate ? 0xFE : 0xFF;
  else e.code = static_cast<std::uint8_t>(biased);
  return e;
}

// True when `got` is what `want` describes.
inline bool matches(Float8Format f, const Expected& want, std::uint8_t got) {
  if (!want.nan) return got == want.code;
  if (!is_nan_code(f, got)) return false;
  return want.nan_sign < 0 || ((got >> 7) & 1) == want.nan_sign;
}

}  // namespace float8_reference
