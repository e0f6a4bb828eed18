// Proof: the narrowing to FLOAT8E8M0 of core/tensor/float8.cpp (spec/tensors.md section 2.1,
// "Narrowing to F8E8M0") meets its definition for every binary32 and every binary64 input, in the
// three rounding modes (up, down, nearest with ties up), saturate on and off (README.md here).
//
// The library's integer steps are written as bit-vector operations, as narrow_to_float8_e8m0 does
// them (the leading-bit search of a subnormal source as a chain of tests). The definition is
// stated apart, as intervals in Z3's floating-point theory: with P(c) = 2^(c - 127) built from the
// code's bits, `down` must give P(c) <= |x| < 2 P(c), `up` P(c) / 2 < |x| <= P(c), `nearest`
// 0.75 P(c) <= |x| < 1.5 P(c); below or above the range of codes, the saturation rows. The
// intervals of one mode do not overlap, so meeting them fixes the code. "unsat" for "some input
// whose code breaks the definition" proves it. Wrong variants must give "sat" (the proof can
// fail), and the encoding is compared with the compiled C++ function on samples. Exit status 0
// only if every query gave the expected answer.
#include <z3++.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "onemodel/float8.hpp"

namespace {

using onemodel::E8M0Rounding;
using onemodel::Float8Format;

struct Source {
  const char* name;
  unsigned width;     // 32 or 64
  unsigned mantissa;  // 23 or 52
  unsigned bias;      // 127 or 1023
  unsigned ebits;     // 8 or 11
};

constexpr Source kBinary32{"binary32", 32, 23, 127, 8};
constexpr Source kBinary64{"binary64", 64, 52, 1023, 11};

enum class Wrong { None, NearestNoRoundUp, UpAtHalf, SubnormalTopOffByOne, OverflowPast255, UnderflowAtZero };

const char* mode_name(E8M0Rounding m) {
  return m == E8M0Rounding::Up ? "up" : m == E8M0Rounding::Down ? "down" : "nearest";
}

// The library's steps on a `width`-bit pattern; the code in the low 8 bits of a 32-bit vector.
z3::expr encode_library(z3::context& c, const z3::expr& x, const Source& s, bool saturate, E8M0Rounding mode,
                        Wrong wrong) {
  const unsigned w = s.width;
  auto k = [&](std::int64_t v) { return c.bv_val(static_cast<int64_t>(v), w); };
  auto code = [&](std::uint64_t v) { return c.bv_val(v, 32); };
  const std::uint64_t sign_mask = std::uint64_t{1} << (w - 1);
  const std::uint64_t infinity = ((std::uint64_t{1} << s.ebits) - 1) << s.mantissa;
  const std::uint64_t mantissa_mask = (std::uint64_t{1} << s.mantissa) - 1;
  const z3::expr a = x & c.bv_val(sign_mask - 1, w);
  const z3::expr field = z3::lshr(a, k(s.mantissa));
  // Normal source: k = field - bias, f's bits = the mantissa, `mantissa` of them.
  const z3::expr k_normal = field - k(s.bias);
  const z3::expr fraction_normal = a & c.bv_val(mantissa_mask, w);
  // Subnormal source: top = the highest set bit of a (below `mantissa`); k = top + 1 - bias -
  // mantissa; f's bits = a - 2^top, `top` of them.
  z3::expr top = k(0);
  for (unsigned bit = 1; bit < s.mantissa; ++bit) {
    top = z3::ite(z3::uge(a, c.bv_val(std::uint64_t{1} << bit, w)), k(bit), top);
  }
  if (wrong == Wrong::SubnormalTopOffByOne) top = top + k(1);
  const z3::expr k_sub = top + k(1) - k(s.bias) - k(s.mantissa);
  const z3::expr fraction_sub = a - z3::shl(k(1), top);
  const z3::expr normal = field != k(0);
  const z3::expr kk = z3::ite(normal, k_normal, k_sub);
  const z3::expr fraction = z3::ite(normal, fraction_normal, fraction_sub);
  const z3::expr fbits = z3::ite(normal, k(s.mantissa), top);
  z3::expr e = kk + k(127);
  if (mode == E8M0Rounding::Up) {
    const z3::expr bump = wrong == Wrong::UpAtHalf
                              ? (z3::ugt(fbits, k(0)) && (z3::lshr(fraction, fbits - k(1)) & k(1)) == k(1))
                              : fraction != k(0);
    e = z3::ite(bump, e + k(1), e);
  }
  if (mode == E8M0Rounding::Nearest && wrong != Wrong::NearestNoRoundUp) {
    const z3::expr half_bit = z3::ugt(fbits, k(0)) && (z3::lshr(fraction, fbits - k(1)) & k(1)) == k(1);
    e = z3::ite(half_bit, e + k(1), e);
  }
  const z3::expr under = saturate ? code(0x00) : code(0xFF);
  const z3::expr over = saturate ? code(0xFE) : code(0xFF);
  const z3::expr in_range = z3::ite(z3::slt(e, k(wrong == Wrong::UnderflowAtZero ? 1 : 0)), under, z3::ite(z3::sgt(e, k(wrong == Wrong::OverflowPast255 ? 255 : 254)), over, z3::zext(e.extract(7, 0), 24)));
  return z3::ite(z3::ugt(a, c.bv_val(infinity, w)), code(0xFF),
                 z3::ite(a == c.bv_val(infinity, w), over, z3::ite(a == k(0), under, in_range)));
}

// The definition: does `result` (the code) meet it for input x?
z3::expr meets_definition(z3::context& c, const z3::expr& x, const z3::expr& result, const Source& s, bool saturate,
                          E8M0Rounding mode) {
  // A sort wide enough to hold every binary64 value, its subnormals as normals, and 2^-128.
  const z3::sort wide = c.fpa_sort(13, 54);
  const z3::expr rne(c, Z3_mk_fpa_rne(c));
  const z3::expr xf = x.mk_from_ieee_bv(c.fpa_sort(s.ebits, s.mantissa + 1));
  const z3::expr xw(c, Z3_mk_fpa_to_fp_float(c, rne, xf, wide));  // exact
  const z3::expr a(c, Z3_mk_fpa_abs(c, xw));
  auto number = [&](double v) { return z3::expr(c, Z3_mk_fpa_numeral_double(c, v, wide)); };
  // P(code) = 2^(code - 127): sign 0, biased exponent code - 127 + 4095, significand 0.
  const z3::expr biased = z3::zext(result.extract(7, 0), 5) + c.bv_val(4095 - 127, 13);
  const z3::expr p(c, Z3_mk_fpa_fp(c, c.bv_val(0, 1), biased, c.bv_val(0, 53)));
  const z3::expr code_ok = z3::ule(result, c.bv_val(0xFE, 32));
  z3::expr low_limit = number(0), high_limit = number(0), inside = c.bool_val(false);
  z3::expr below = c.bool_val(false), above = c.bool_val(false);
  const z3::expr half(c, Z3_mk_fpa_mul(c, rne, p, number(0.5)));
  const z3::expr twice(c, Z3_mk_fpa_mul(c, rne, p, number(2.0)));
  const z3::expr three_quarters(c, Z3_mk_fpa_mul(c, rne, p, number(0.75)));
  const z3::expr three_halves(c, Z3_mk_fpa_mul(c, rne, p, number(1.5)));
  switch (mode) {
    case E8M0Rounding::Down:
      below = a < number(0x1.0p-127);
      above = a >= number(0x1.0p128);
      inside = p <= a && a < twice;
      break;
    case E8M0Rounding::Up:
      below = a <= number(0x1.0p-128);
      above = a > number(0x1.0p127);
      inside = half < a && a <= p;
      break;
    case E8M0Rounding::Nearest:
      below = a < number(0.75 * 0x1.0p-127);
      above = a >= number(1.5 * 0x1.0p127);
      inside = three_quarters <= a && a < three_halves;
      break;
  }
  const z3::expr under = c.bv_val(saturate ? 0x00 : 0xFF, 32);
  const z3::expr over = c.bv_val(saturate ? 0xFE : 0xFF, 32);
  return z3::ite(xf.mk_is_nan(), result == c.bv_val(0xFF, 32),
                 z3::ite(xf.mk_is_inf(), result == over,
                         z3::ite(xf.mk_is_zero() || below, result == under,
                                 z3::ite(above, result == over, code_ok && inside))));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::uint64_t value_in(z3::model& model, const z3::expr& e) { return model.eval(e, true).get_numeral_uint64(); }

std::uint8_t compiled(const Source& s, std::uint64_t bits, bool saturate, E8M0Rounding mode) {
  if (s.width == 32) {
    float f;
    const auto b32 = static_cast<std::uint32_t>(bits);
    std::memcpy(&f, &b32, sizeof f);
    return onemodel::float_to_float8_bits(Float8Format::E8M0, f, saturate, mode);
  }
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return onemodel::double_to_float8_bits(Float8Format::E8M0, d, saturate, mode);
}

}  // namespace

int main() {
  const auto total_start = std::chrono::steady_clock::now();
  z3::context c;
  bool ok = true;
  for (const Source& s : {kBinary32, kBinary64}) {
    const z3::expr x = c.bv_const((std::string("x") + s.name).c_str(), s.width);
    for (const E8M0Rounding mode : {E8M0Rounding::Up, E8M0Rounding::Down, E8M0Rounding::Nearest}) {
      for (const bool saturate : {true, false}) {
        const std::string label =
            std::string(s.name) + " " + mode_name(mode) + (saturate ? " saturate" : " no saturate");
        const z3::expr library = encode_library(c, x, s, saturate, mode, Wrong::None);
        {
          const auto start = std::chrono::steady_clock::now();
          z3::solver solver(c);
          solver.add(!meets_definition(c, x, library, s, saturate, mode));
          const z3::check_result answer = solver.check();
          std::printf("%-32s every input  %s  (%.2f s)\n", label.c_str(),
                      answer == z3::unsat ? "proved: meets the definition" : "NOT PROVED", seconds_since(start));
          if (answer == z3::sat) {
            z3::model model = solver.get_model();
            std::printf("  counterexample x = 0x%llX: library code 0x%02llX\n",
                        static_cast<unsigned long long>(value_in(model, x)),
                        static_cast<unsigned long long>(value_in(model, library)));
          }
          ok = ok && answer == z3::unsat;
        }
        // The proof can fail: each wrong variant that changes this mode must be refuted.
        // Only variants that change some code of this query: a binary64 subnormal is far below
        // 2^-128 (its leading-bit search cannot matter), code 0xFF is the overflow row anyway
        // without saturate, code 0x00 the underflow row anyway with it, and no binary32 rounds
        // down to 2^128.
        std::vector<Wrong> wrongs;
        if (saturate && !(s.width == 32 && mode == E8M0Rounding::Down)) wrongs.push_back(Wrong::OverflowPast255);
        if (!saturate) wrongs.push_back(Wrong::UnderflowAtZero);
        if (s.width == 32) wrongs.push_back(Wrong::SubnormalTopOffByOne);
        if (mode == E8M0Rounding::Nearest) wrongs.push_back(Wrong::NearestNoRoundUp);
        if (mode == E8M0Rounding::Up) wrongs.push_back(Wrong::UpAtHalf);
        for (const Wrong wrong : wrongs) {
          const auto start = std::chrono::steady_clock::now();
          const z3::expr bad = encode_library(c, x, s, saturate, mode, wrong);
          z3::solver solver(c);
          solver.add(!meets_definition(c, x, bad, s, saturate, mode));
          const char* what = wrong == Wrong::NearestNoRoundUp ? "nearest never rounds up"
                             : wrong == Wrong::UpAtHalf       ? "up only from f >= 1/2"
                             : wrong == Wrong::OverflowPast255 ? "code 0xFF taken as finite"
                             : wrong == Wrong::UnderflowAtZero ? "code 0x00 taken as underflow"
                                                              : "subnormal top bit off by one";
          if (solver.check() == z3::sat) {
            z3::model model = solver.get_model();
            std::printf("%-32s wrong: %-30s refuted at x = 0x%llX  (%.2f s)\n", label.c_str(), what,
                        static_cast<unsigned long long>(value_in(model, x)), seconds_since(start));
          } else {
            std::printf("%-32s wrong: %-30s NOT refuted: the proof would be vacuous\n", label.c_str(), what);
            ok = false;
          }
        }
        // The encoding is the compiled code: patterns around every power of two, halfway points,
        // subnormals, the extremes, and random patterns.
        {
          const auto start = std::chrono::steady_clock::now();
          std::vector<std::uint64_t> samples;
          const std::uint64_t one_mantissa = std::uint64_t{1} << s.mantissa;
          const std::uint64_t half_mantissa = one_mantissa >> 1;
          const std::uint64_t max_field = (std::uint64_t{1} << s.ebits) - 1;
          for (std::uint64_t field = 0; field <= max_field; field += (s.width == 32 ? 1 : 7)) {
            for (const std::uint64_t m : {std::uint64_t{0}, std::uint64_t{1}, half_mantissa - 1, half_mantissa,
                                          half_mantissa + 1, one_mantissa - 1}) {
              samples.push_back((field << s.mantissa) | m);
            }
          }
          for (unsigned bit = 0; bit < s.mantissa; ++bit) {
            samples.push_back(std::uint64_t{1} << bit);
            samples.push_back((std::uint64_t{3} << bit) >> 1);
          }
          std::mt19937_64 generator(4243u);
          for (int i = 0; i < 600; ++i) {
            const std::uint64_t r = generator();
            samples.push_back(s.width == 32 ? (r & 0xFFFFFFFFu) : r);
          }
          std::size_t mismatches = 0;
          for (std::size_t i = 0; i < samples.size(); i += 5) {  // a fifth: simplify is slow
            z3::expr_vector from(c), to(c);
            from.push_back(x);
            to.push_back(c.bv_val(samples[i], s.width));
            z3::expr instance = library;
            const auto encoded = static_cast<std::uint8_t>(instance.substitute(from, to).simplify().get_numeral_uint64());
            if (encoded != compiled(s, samples[i], saturate, mode)) {
              if (++mismatches <= 5) {
                std::printf("  encoding differs from the C++ code at x = 0x%llX\n",
                            static_cast<unsigned long long>(samples[i]));
              }
            }
          }
          std::printf("%-32s encoding equals the compiled narrowing %s  (%.2f s)\n", label.c_str(),
                      mismatches == 0 ? "checked" : "MISMATCH", seconds_since(start));
          ok = ok && mismatches == 0;
        }
      }
    }
  }
  std::printf("%s in %.2f s\n",
              ok ? "PROVED: the FLOAT8E8M0 narrowing meets its definition for every binary32 and binary64 input, "
                   "3 rounding modes, saturate on and off"
                 : "FAILED",
              seconds_since(total_start));
  return ok ? 0 : 1;
}
