// Proof: the binary32 -> 8-bit float narrowing of core/tensor/float8.cpp (spec/tensors.md section
// 2.1) equals round-to-nearest-even of the real value followed by ONNX's overflow rule, for all
// 2^32 inputs, for E4M3FN, E4M3FNUZ, E5M2 and E5M2FNUZ, saturate on and off (README.md in this
// folder says why it matters).
//
// The library's integer steps are written as bit-vector operations on a 32-bit variable, as in
// core/tensor/float8.cpp. The reference is Z3's floating-point theory: x is widened exactly to
// (11, 24), multiplied exactly by 2^(bias - (2^E - 1)), and rounded with RNE to the IEEE sort
// (E + 1, M + 1), whose one extra exponent bit leaves room above the format's top; with that
// scaling the sort's exponent field equals the format's (also for subnormals), so the rounded
// sort value's magnitude bits are the format's code, and a code above the format's largest
// finite one is ONNX's "[x] > FLT_MAX" row. "unsat" for "some input where they differ" proves
// equality. Wrong variants must give "sat" (the proof can fail), and the encoding is compared
// with the compiled C++ function on samples. Exit status 0 only if every query gave the
// expected answer.
#include <z3++.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "onemodel/float8.hpp"

namespace {

using onemodel::Float8Format;

enum class Specials { Fn, Fnuz, Ieee };

struct Format {
  const char* name;
  Float8Format id;
  unsigned exponent_bits;
  unsigned mantissa_bits;
  unsigned bias;
  unsigned max_code;
  Specials specials;
};

constexpr Format kFormats[] = {
    {"E4M3FN", Float8Format::E4M3FN, 4, 3, 7, 0x7E, Specials::Fn},
    {"E4M3FNUZ", Float8Format::E4M3FNUZ, 4, 3, 8, 0x7F, Specials::Fnuz},
    {"E5M2", Float8Format::E5M2, 5, 2, 15, 0x7B, Specials::Ieee},
    {"E5M2FNUZ", Float8Format::E5M2FNUZ, 5, 2, 16, 0x7F, Specials::Fnuz},
};

struct Variant {
  bool tie_term = true;          // the + ((m >> drop) & 1) of the normal path
  bool subnormal_rounding = true;  // the round-up of the subnormal path (false: truncation)
};

z3::expr k32(z3::context& c, std::uint64_t v) { return c.bv_val(v, 32); }

// ONNX's NaN and overflow rows (spec/tensors.md section 2.1), shared by both sides: they are the
// table itself, not something computed.
z3::expr nan_code(z3::context& c, const Format& f, const z3::expr& sign) {
  switch (f.specials) {
    case Specials::Fn: return sign | k32(c, 0x7F);
    case Specials::Fnuz: return k32(c, 0x80);
    case Specials::Ieee: return sign | k32(c, 0x7E);
  }
  return k32(c, 0x80);
}
z3::expr overflow_code(z3::context& c, const Format& f, const z3::expr& sign, bool saturate) {
  if (saturate) return sign | k32(c, f.max_code);
  switch (f.specials) {
    case Specials::Fn: return sign | k32(c, 0x7F);
    case Specials::Fnuz: return k32(c, 0x80);
    case Specials::Ieee: return sign | k32(c, 0x7C);
  }
  return k32(c, 0x80);
}

// The library's narrow_with_mantissa for binary32, step by step (result in the low 8 bits).
z3::expr encode_library(z3::context& c, const z3::expr& x, const Format& f, bool saturate, const Variant& v) {
  const unsigned drop = 23 - f.mantissa_bits;
  const z3::expr a = x & k32(c, 0x7FFFFFFF);
  const z3::expr sign = z3::ite(x.extract(31, 31) == c.bv_val(1, 1), k32(c, 0x80), k32(c, 0));
  const z3::expr source_exponent = z3::lshr(a, k32(c, 23));
  // target_exponent = source_exponent - 127 + bias >= 1  <=>  source_exponent >= 128 - bias
  const z3::expr normal = z3::uge(source_exponent, k32(c, 128 - f.bias));
  const z3::expr m = a - k32(c, std::uint64_t{127 - f.bias} << 23);
  const z3::expr tie = v.tie_term ? (z3::lshr(m, k32(c, drop)) & k32(c, 1)) : k32(c, 0);
  const z3::expr code_normal = z3::lshr(m + k32(c, (std::uint64_t{1} << (drop - 1)) - 1) + tie, k32(c, drop));
  // shift = drop + 1 - target_exponent = (drop + 128 - bias) - source_exponent (>= drop + 1 here)
  const z3::expr shift = k32(c, drop + 128 - f.bias) - source_exponent;
  const z3::expr full = (a & k32(c, 0x7FFFFF)) | k32(c, 0x800000);
  const z3::expr r = z3::lshr(full, shift);
  const z3::expr remainder = full & (z3::shl(k32(c, 1), shift) - k32(c, 1));
  const z3::expr half = z3::shl(k32(c, 1), shift - k32(c, 1));
  const z3::expr up = z3::ugt(remainder, half) || (remainder == half && (r & k32(c, 1)) == k32(c, 1));
  const z3::expr rounded_r = v.subnormal_rounding ? z3::ite(up, r + k32(c, 1), r) : r;
  const z3::expr code_subnormal = z3::ite(z3::ugt(shift, k32(c, 24)), k32(c, 0), rounded_r);
  const z3::expr code = z3::ite(normal, code_normal, code_subnormal);
  const z3::expr over = z3::ugt(code, k32(c, f.max_code));
  const z3::expr zero_fnuz = code == k32(c, 0) && c.bool_val(f.specials == Specials::Fnuz);
  const z3::expr is_nan = z3::ugt(a, k32(c, 0x7F800000));
  const z3::expr is_inf = a == k32(c, 0x7F800000);
  return z3::ite(is_nan, nan_code(c, f, sign),
                 z3::ite(is_inf || over, overflow_code(c, f, sign, saturate),
                         z3::ite(zero_fnuz, k32(c, 0), sign | code)));
}

// The reference: RNE of the exact value with an unbounded top, then ONNX's rows.
z3::expr encode_reference(z3::context& c, const z3::expr& x, const Format& f, bool saturate) {
  const z3::sort f32 = c.fpa_sort(8, 24);
  const z3::sort wide = c.fpa_sort(11, 24);
  const z3::sort rounded_sort = c.fpa_sort(f.exponent_bits + 1, f.mantissa_bits + 1);
  const z3::expr rne(c, Z3_mk_fpa_rne(c));
  const z3::expr xf = x.mk_from_ieee_bv(f32);
  const z3::expr xw(c, Z3_mk_fpa_to_fp_float(c, rne, xf, wide));  // exact
  const int scale = static_cast<int>(f.bias) - ((1 << f.exponent_bits) - 1);
  const z3::expr factor(c, Z3_mk_fpa_numeral_double(c, std::ldexp(1.0, scale), wide));
  const z3::expr scaled(c, Z3_mk_fpa_mul(c, rne, xw, factor));  // exact: a power of two, wide range
  const z3::expr rounded(c, Z3_mk_fpa_to_fp_float(c, rne, scaled, rounded_sort));
  const unsigned width = f.exponent_bits + f.mantissa_bits + 2;
  const z3::expr magnitude = z3::zext(rounded.mk_to_ieee_bv().extract(width - 2, 0), 32 - (width - 1));
  const z3::expr sign = z3::ite(x.extract(31, 31) == c.bv_val(1, 1), k32(c, 0x80), k32(c, 0));
  return z3::ite(xf.mk_is_nan(), nan_code(c, f, sign),
                 z3::ite(z3::ugt(magnitude, k32(c, f.max_code)), overflow_code(c, f, sign, saturate),
                         z3::ite(magnitude == k32(c, 0) && c.bool_val(f.specials == Specials::Fnuz), k32(c, 0),
                                 sign | magnitude)));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::uint64_t value_in(z3::model& model, const z3::expr& e) { return model.eval(e, true).get_numeral_uint64(); }

}  // namespace

int main() {
  const auto total_start = std::chrono::steady_clock::now();
  z3::context c;
  const z3::expr x = c.bv_const("x", 32);
  bool ok = true;

  for (const Format& f : kFormats) {
    for (const bool saturate : {true, false}) {
      const std::string label = std::string(f.name) + (saturate ? " saturate" : " no saturate");
      const z3::expr library = encode_library(c, x, f, saturate, Variant{});
      const z3::expr reference = encode_reference(c, x, f, saturate);
      // 1. Every input.
      {
        const auto start = std::chrono::steady_clock::now();
        z3::solver s(c);
        s.add(library != reference);
        const z3::check_result answer = s.check();
        std::printf("%-24s all 2^32 inputs     %s  (%.2f s)\n", label.c_str(),
                    answer == z3::unsat ? "proved: equals RNE + ONNX rows" : "NOT PROVED", seconds_since(start));
        if (answer == z3::sat) {
          z3::model model = s.get_model();
          std::printf("  counterexample x = 0x%08llX: library 0x%02llX, reference 0x%02llX\n",
                      static_cast<unsigned long long>(value_in(model, x)),
                      static_cast<unsigned long long>(value_in(model, library)),
                      static_cast<unsigned long long>(value_in(model, reference)));
        }
        ok = ok && answer == z3::unsat;
      }
      // 2. The proof can fail: each wrong variant must be refuted with a counterexample.
      for (const Variant& wrong_variant : {Variant{false, true}, Variant{true, false}}) {
        const auto start = std::chrono::steady_clock::now();
        const z3::expr wrong = encode_library(c, x, f, saturate, wrong_variant);
        z3::solver s(c);
        s.add(wrong != reference);
        const char* what = wrong_variant.tie_term ? "subnormals truncated" : "no tie term";
        if (s.check() == z3::sat) {
          z3::model model = s.get_model();
          std::printf("%-24s wrong: %-26s refuted at x = 0x%08llX  (%.2f s)\n", label.c_str(), what,
                      static_cast<unsigned long long>(value_in(model, x)), seconds_since(start));
        } else {
          std::printf("%-24s wrong: %-26s NOT refuted: the proof would be vacuous\n", label.c_str(), what);
          ok = false;
        }
      }
      // 3. The encoding is the compiled code: around every rounding boundary of the format
      // (binary32 patterns whose low `drop` bits are at and around the tie), and random patterns.
      {
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::uint32_t> samples;
        const std::uint32_t drop = 23 - f.mantissa_bits;
        const std::uint32_t tie = 1u << (drop - 1);
        for (std::uint32_t upper = 0; upper < (1u << (32 - drop)); upper += 3) {
          for (const std::uint32_t low : {0u, 1u, tie - 1, tie, tie + 1, (1u << drop) - 1}) {
            samples.push_back((upper << drop) | low);
          }
        }
        std::mt19937 generator(4242u);
        for (int i = 0; i < 3000; ++i) samples.push_back(generator());
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < samples.size(); i += 7) {  // a seventh of them: simplify is slow
          const std::uint32_t bits = samples[i];
          z3::expr_vector from(c), to(c);
          from.push_back(x);
          to.push_back(c.bv_val(bits, 32));
          z3::expr instance = library;
          const auto encoded = static_cast<std::uint8_t>(instance.substitute(from, to).simplify().get_numeral_uint64());
          float value;
          std::memcpy(&value, &bits, sizeof value);
          if (encoded != onemodel::float_to_float8_bits(f.id, value, saturate)) {
            if (++mismatches <= 5) std::printf("  encoding differs from the C++ code at x = 0x%08X\n", bits);
          }
        }
        std::printf("%-24s encoding equals float_to_float8_bits %s  (%.2f s)\n", label.c_str(),
                    mismatches == 0 ? "checked" : "MISMATCH", seconds_since(start));
        ok = ok && mismatches == 0;
      }
    }
  }

  std::printf("%s in %.2f s\n",
              ok ? "PROVED: float_to_float8_bits equals RNE + ONNX's overflow rows for all 2^32 inputs, 4 formats, "
                   "saturate on and off"
                 : "FAILED",
              seconds_since(total_start));
  return ok ? 0 : 1;
}
