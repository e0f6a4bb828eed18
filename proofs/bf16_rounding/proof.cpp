// Proof: the binary32 -> bfloat16 integer formula of spec/half-precision.md section 4 equals IEEE 754
// round-to-nearest-even conversion for all 2^32 inputs, and the widening of section 5 is exact
// (README.md in this folder says why it matters).
//
// The formula is written as bit-vector operations on a 32-bit variable, as in core/tensor/half.cpp.
// The reference is Z3's floating-point theory: fp.to_fp with RNE from Float32 to the bfloat16 sort
// (8 exponent bits, 8 significand bits including the hidden one), read back with fp.to_ieee_bv.
// "unsat" for "some input where they differ" proves equality. Deliberately wrong formulas must give
// "sat" (the proof can fail), and the encoding is compared with the compiled C++ function on samples.
// Exit status 0 only if every query gave the expected answer.
#include <z3++.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "onemodel/half.hpp"

namespace {

struct Variant {
  bool tie_term = true;   // the + ((bits >> 16) & 1) of section 4
  bool quiet_nan = true;  // the | 0x40 of section 4's NaN rule
};

// spec/half-precision.md section 4, as bit-vector operations. Returns the 16 result bits.
z3::expr encode_formula(z3::context& c, const z3::expr& x, const Variant& v) {
  auto k = [&](std::uint32_t value) { return c.bv_val(value, 32); };
  const z3::expr is_nan = z3::ugt(x & k(0x7FFFFFFFu), k(0x7F800000u));
  const z3::expr nan_result = v.quiet_nan ? (z3::lshr(x, k(16)) | k(0x40u)) : z3::lshr(x, k(16));
  const z3::expr tie = v.tie_term ? (z3::lshr(x, k(16)) & k(1)) : k(0);
  const z3::expr rounded = z3::lshr(x + k(0x7FFFu) + tie, k(16));
  return z3::ite(is_nan, nan_result, rounded).extract(15, 0);
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
  const z3::sort f32 = c.fpa_sort(8, 24);
  const z3::sort bf16 = c.fpa_sort(8, 8);
  const z3::expr xf = x.mk_from_ieee_bv(f32);
  const z3::expr ieee = z3::expr(c, Z3_mk_fpa_to_fp_float(c, Z3_mk_fpa_rne(c), xf, bf16));
  const z3::expr ieee_bits = ieee.mk_to_ieee_bv();
  const z3::expr formula = encode_formula(c, x, Variant{});
  bool ok = true;

  // 1. Every non-NaN input (zeros, subnormals, normals, the overflow to infinity, infinities).
  {
    const auto start = std::chrono::steady_clock::now();
    z3::solver s(c);
    s.add(!xf.mk_is_nan());
    s.add(formula != ieee_bits);
    const z3::check_result answer = s.check();
    std::printf("%-44s %s  (%.2f s)\n", "all non-NaN inputs",
                answer == z3::unsat ? "proved: equals IEEE RNE" : "NOT PROVED", seconds_since(start));
    if (answer == z3::sat) {
      z3::model model = s.get_model();
      std::printf("  counterexample x = 0x%08llX\n", static_cast<unsigned long long>(value_in(model, x)));
    }
    ok = ok && answer == z3::unsat;
  }

  // 2. NaN inputs: IEEE requires a NaN; the text adds: quiet, same sign, payload bits 21..16 kept.
  auto nan_claims = [&](const z3::expr& result16) {
    return result16.mk_from_ieee_bv(bf16).mk_is_nan() && ieee.mk_is_nan() &&
           result16.extract(6, 6) == c.bv_val(1, 1) && result16.extract(15, 15) == x.extract(31, 31) &&
           result16.extract(5, 0) == x.extract(21, 16);
  };
  {
    const auto start = std::chrono::steady_clock::now();
    z3::solver s(c);
    s.add(xf.mk_is_nan());
    s.add(!nan_claims(formula));
    const z3::check_result answer = s.check();
    std::printf("%-44s %s  (%.2f s)\n", "NaN (quiet, sign and top payload kept)",
                answer == z3::unsat ? "proved" : "NOT PROVED", seconds_since(start));
    ok = ok && answer == z3::unsat;
  }

  // 3. The proof can fail: wrong formulas must be refuted (sat, with a counterexample).
  {
    const auto start = std::chrono::steady_clock::now();
    z3::solver s(c);
    const z3::expr wrong = encode_formula(c, x, Variant{false, true});
    s.add(!xf.mk_is_nan());
    s.add(wrong != ieee_bits);
    if (s.check() == z3::sat) {
      z3::model model = s.get_model();
      std::printf("wrong formula without the tie term           refuted: x = 0x%08llX gives 0x%04llX, IEEE 0x%04llX  (%.2f s)\n",
                  static_cast<unsigned long long>(value_in(model, x)),
                  static_cast<unsigned long long>(value_in(model, wrong)),
                  static_cast<unsigned long long>(value_in(model, ieee_bits)), seconds_since(start));
    } else {
      std::printf("wrong formula without the tie term           NOT refuted: the proof would be vacuous\n");
      ok = false;
    }
  }
  {
    const auto start = std::chrono::steady_clock::now();
    z3::solver s(c);
    const z3::expr wrong = encode_formula(c, x, Variant{true, false});
    s.add(xf.mk_is_nan());
    s.add(!nan_claims(wrong));
    if (s.check() == z3::sat) {
      z3::model model = s.get_model();
      std::printf("wrong NaN rule without | 0x40                refuted: x = 0x%08llX gives 0x%04llX  (%.2f s)\n",
                  static_cast<unsigned long long>(value_in(model, x)),
                  static_cast<unsigned long long>(value_in(model, wrong)), seconds_since(start));
    } else {
      std::printf("wrong NaN rule without | 0x40                NOT refuted: the proof would be vacuous\n");
      ok = false;
    }
  }

  // 4. The encoding is the compiled code: compare with onemodel::float_to_bfloat16_bits on every
  // exponent with low halves at and around the tie, both signs and both parities, and random patterns.
  {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::uint32_t> samples;
    const std::uint32_t lows[] = {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu};
    for (std::uint32_t upper = 0; upper <= 0xFFFF; upper += 131) {
      for (const std::uint32_t low : lows) samples.push_back((upper << 16) | low);
    }
    for (const std::uint32_t upper : {0x7F7Fu, 0x7F80u, 0x7F81u, 0x7FC0u, 0xFF7Fu, 0xFF80u, 0xFFFFu, 0x0000u, 0x8000u}) {
      for (const std::uint32_t low : lows) samples.push_back((upper << 16) | low);
    }
    std::mt19937 generator(54321u);
    for (int i = 0; i < 2000; ++i) samples.push_back(generator());
    std::size_t mismatches = 0;
    for (const std::uint32_t bits : samples) {
      z3::expr_vector from(c), to(c);
      from.push_back(x);
      to.push_back(c.bv_val(bits, 32));
      z3::expr instance = formula;
      const auto encoded = static_cast<std::uint16_t>(instance.substitute(from, to).simplify().get_numeral_uint64());
      float value;
      std::memcpy(&value, &bits, sizeof value);
      if (encoded != onemodel::float_to_bfloat16_bits(value)) {
        if (++mismatches <= 5) std::printf("  encoding differs from the C++ code at x = 0x%08X\n", bits);
      }
    }
    std::printf("%-44s %s on %zu inputs  (%.2f s)\n", "encoding equals float_to_bfloat16_bits",
                mismatches == 0 ? "checked" : "MISMATCH", samples.size(), seconds_since(start));
    ok = ok && mismatches == 0;
  }

  // 5. Widening (section 5) is exact: b << 16 (quiet bit forced for NaN) equals Z3's conversion
  // bfloat16 -> Float32 for every non-NaN pattern; a NaN gives a quiet NaN with sign and payload kept.
  {
    const auto start = std::chrono::steady_clock::now();
    const z3::expr b = c.bv_const("b", 16);
    auto k = [&](std::uint32_t value) { return c.bv_val(value, 32); };
    const z3::expr shifted = z3::shl(z3::zext(b, 16), k(16));
    const z3::expr widened = z3::ite(z3::ugt(shifted & k(0x7FFFFFFFu), k(0x7F800000u)), shifted | k(0x400000u), shifted);
    const z3::expr bf = b.mk_from_ieee_bv(bf16);
    const z3::expr exact = z3::expr(c, Z3_mk_fpa_to_fp_float(c, Z3_mk_fpa_rne(c), bf, f32));
    const z3::expr claims_nan = widened.mk_from_ieee_bv(f32).mk_is_nan() && widened.extract(22, 22) == c.bv_val(1, 1) &&
                                widened.extract(31, 31) == b.extract(15, 15) &&
                                widened.extract(21, 16) == b.extract(5, 0);
    z3::solver s(c);
    s.add(z3::ite(bf.mk_is_nan(), !claims_nan, widened != exact.mk_to_ieee_bv()));
    const z3::check_result answer = s.check();
    std::printf("%-44s %s  (%.2f s)\n", "widening bfloat16 -> binary32 is exact",
                answer == z3::unsat ? "proved for all 65536 patterns" : "NOT PROVED", seconds_since(start));
    ok = ok && answer == z3::unsat;
  }

  std::printf("%s in %.2f s\n",
              ok ? "PROVED: float_to_bfloat16_bits equals IEEE binary32 -> bfloat16 RNE for all 2^32 inputs; widening is exact"
                 : "FAILED",
              seconds_since(total_start));
  return ok ? 0 : 1;
}
