// Proof: the binary32 -> binary16 integer formula of spec/half-precision.md section 2 equals IEEE 754
// round-to-nearest-even conversion for all 2^32 inputs (README.md in this folder says why it matters).
//
// The formula is written below as bit-vector operations on a 32-bit variable, in the same order and
// with the same constants as core/tensor/half.cpp. The reference is Z3's floating-point theory:
// fp.to_fp with RNE from Float32 to Float16 (sort (5,11)), read back with fp.to_ieee_bv. For each case
// of section 2 Z3 is asked for an input where the two differ; "unsat" proves there is none. Then the
// program checks that queries for deliberately wrong formulas are "sat" (the proof is not vacuous),
// and that the encoding computes the same bits as the compiled C++ function on sample inputs.
// Exit status 0 only if every query gave the expected answer.
#include <z3++.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "onemodel/half.hpp"

namespace {

struct Variant {
  bool tie_term = true;                    // the + ((m >> 13) & 1) of section 2.3
  std::uint32_t overflow = 0x477FF000u;    // section 2.2 threshold
  bool subnormal_tie_needs_odd = true;     // section 2.5: equal remainder rounds up only when r is odd
};

// spec/half-precision.md section 2, as bit-vector operations. Returns the 16 result bits.
z3::expr encode_formula(z3::context& c, const z3::expr& x, const Variant& v) {
  auto k = [&](std::uint32_t value) { return c.bv_val(value, 32); };
  const z3::expr a = x & k(0x7FFFFFFFu);
  const z3::expr sign = z3::lshr(x, k(16)) & k(0x8000u);

  const z3::expr nan_result = sign | k(0x7E00u) | (z3::lshr(a, k(13)) & k(0x1FFu));
  const z3::expr inf_result = sign | k(0x7C00u);

  const z3::expr m = a - k(112u << 23);
  const z3::expr tie = v.tie_term ? (z3::lshr(m, k(13)) & k(1)) : k(0);
  const z3::expr normal_result = sign | z3::lshr(m + k(0xFFFu) + tie, k(13));

  const z3::expr zero_result = sign;

  const z3::expr e = z3::lshr(a, k(23));
  const z3::expr mant = (a & k(0x7FFFFFu)) | k(0x800000u);
  const z3::expr shift = k(126) - e;
  const z3::expr r = z3::lshr(mant, shift);
  const z3::expr remainder = mant & (z3::shl(k(1), shift) - k(1));
  const z3::expr half = z3::shl(k(1), shift - k(1));
  const z3::expr r_odd = (r & k(1)) == k(1);
  const z3::expr round_up = z3::ugt(remainder, half) ||
                            (remainder == half && (v.subnormal_tie_needs_odd ? r_odd : c.bool_val(true)));
  const z3::expr subnormal_result = sign | z3::ite(round_up, r + k(1), r);

  const z3::expr result =
      z3::ite(z3::ugt(a, k(0x7F800000u)), nan_result,
      z3::ite(a == k(0x7F800000u) || z3::uge(a, k(v.overflow)), inf_result,
      z3::ite(z3::uge(a, k(0x38800000u)), normal_result,
      z3::ite(z3::ule(a, k(0x33000000u)), zero_result, subnormal_result))));
  return result.extract(15, 0);
}

struct Case {
  std::string name;
  std::function<z3::expr(const z3::expr& a)> condition;  // on the bits of |x|
};

std::vector<Case> cases(z3::context& c) {
  auto k = [&](std::uint32_t value) { return c.bv_val(value, 32); };
  return {
      {"infinity and overflow (|x| >= 65520)",
       [=](const z3::expr& a) { return a == k(0x7F800000u) || (z3::uge(a, k(0x477FF000u)) && z3::ult(a, k(0x7F800000u))); }},
      {"normal (2^-14 <= |x| < 65520)",
       [=](const z3::expr& a) { return z3::uge(a, k(0x38800000u)) && z3::ult(a, k(0x477FF000u)); }},
      {"zero (|x| <= 2^-25)", [=](const z3::expr& a) { return z3::ule(a, k(0x33000000u)); }},
      {"subnormal (2^-25 < |x| < 2^-14)",
       [=](const z3::expr& a) { return z3::ugt(a, k(0x33000000u)) && z3::ult(a, k(0x38800000u)); }},
  };
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::uint32_t model_bits(z3::model& model, const z3::expr& x) {
  return static_cast<std::uint32_t>(model.eval(x, true).get_numeral_uint64());
}

}  // namespace

int main() {
  const auto total_start = std::chrono::steady_clock::now();
  z3::context c;
  const z3::expr x = c.bv_const("x", 32);
  const z3::expr a = x & c.bv_val(0x7FFFFFFFu, 32);
  const z3::sort f32 = c.fpa_sort(8, 24);
  const z3::sort f16 = c.fpa_sort(5, 11);
  const z3::expr xf = x.mk_from_ieee_bv(f32);
  // IEEE 754 conversion, round to nearest, ties to even.
  const z3::expr ieee = z3::expr(c, Z3_mk_fpa_to_fp_float(c, Z3_mk_fpa_rne(c), xf, f16));
  const z3::expr ieee_bits = ieee.mk_to_ieee_bv();
  const z3::expr formula = encode_formula(c, x, Variant{});
  bool ok = true;

  // 1. Non-NaN inputs, one query per case of section 2: is there an x where the formula and IEEE differ?
  std::vector<Case> all_cases = cases(c);
  for (const Case& each : all_cases) {
    const auto start = std::chrono::steady_clock::now();
    z3::solver s(c);
    s.add(each.condition(a));
    s.add(formula != ieee_bits);
    const z3::check_result answer = s.check();
    std::printf("%-48s %s  (%.2f s)\n", each.name.c_str(),
                answer == z3::unsat ? "proved: equals IEEE RNE" : "NOT PROVED", seconds_since(start));
    if (answer == z3::sat) {
      z3::model model = s.get_model();
      std::printf("  counterexample x = 0x%08X\n", model_bits(model, x));
    }
    ok = ok && answer == z3::unsat;
  }

  // 2. NaN inputs (section 2.1): IEEE requires a NaN; the text adds a quiet NaN with the same sign and
  // the nine payload bits below the binary32 quiet bit. Prove all of that for every NaN input.
  {
    const auto start = std::chrono::steady_clock::now();
    z3::solver s(c);
    const z3::expr result16 = formula;
    const z3::expr as_half = result16.mk_from_ieee_bv(f16);
    const z3::expr claims = as_half.mk_is_nan() && ieee.mk_is_nan() &&
                            result16.extract(9, 9) == c.bv_val(1, 1) &&      // quiet bit
                            result16.extract(15, 15) == x.extract(31, 31) &&  // sign
                            result16.extract(8, 0) == x.extract(21, 13);      // payload
    s.add(xf.mk_is_nan());
    s.add(!claims);
    const z3::check_result answer = s.check();
    std::printf("%-48s %s  (%.2f s)\n", "NaN (quiet, sign and top payload kept)",
                answer == z3::unsat ? "proved" : "NOT PROVED", seconds_since(start));
    ok = ok && answer == z3::unsat;
  }

  // 3. The cases together with NaN cover every input.
  {
    z3::solver s(c);
    z3::expr covered = xf.mk_is_nan();
    for (const Case& each : all_cases) covered = covered || each.condition(a);
    s.add(!covered);
    const z3::check_result answer = s.check();
    std::printf("%-48s %s\n", "the cases cover all 2^32 inputs", answer == z3::unsat ? "proved" : "NOT PROVED");
    ok = ok && answer == z3::unsat;
  }

  // 4. The proof can fail: wrong formulas must be refuted (sat, with a counterexample).
  struct Wrong {
    const char* name;
    Variant variant;
  };
  const Wrong wrongs[] = {
      {"without the +((m >> 13) & 1) tie term", Variant{false, 0x477FF000u, true}},
      {"overflow threshold 0x477FE000 (65504)", Variant{true, 0x477FE000u, true}},
      {"subnormal ties always rounded up", Variant{true, 0x477FF000u, false}},
  };
  for (const Wrong& wrong : wrongs) {
    const auto start = std::chrono::steady_clock::now();
    z3::solver s(c);
    s.add(!xf.mk_is_nan());
    s.add(encode_formula(c, x, wrong.variant) != ieee_bits);
    const z3::check_result answer = s.check();
    if (answer == z3::sat) {
      z3::model model = s.get_model();
      const std::uint32_t bits = model_bits(model, x);
      std::printf("wrong formula %-40s refuted: x = 0x%08X gives 0x%04llX, IEEE 0x%04llX  (%.2f s)\n",
                  wrong.name, bits,
                  static_cast<unsigned long long>(model.eval(encode_formula(c, x, wrong.variant), true).get_numeral_uint64()),
                  static_cast<unsigned long long>(model.eval(ieee_bits, true).get_numeral_uint64()),
                  seconds_since(start));
    } else {
      std::printf("wrong formula %-40s NOT refuted: the proof would be vacuous\n", wrong.name);
      ok = false;
    }
  }

  // 5. The encoding is the compiled code: compare it with onemodel::float_to_half_bits on every
  // exponent with mantissas at and around the rounding points, both signs, and random patterns.
  {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::uint32_t> samples;
    const std::uint32_t mantissas[] = {0x000000u, 0x000001u, 0x000FFFu, 0x001000u, 0x001001u, 0x002000u,
                                       0x003000u, 0x7FFFFFu, 0x400000u, 0x7FF000u, 0x123456u};
    for (std::uint32_t exponent = 0; exponent < 256; ++exponent) {
      for (const std::uint32_t mantissa : mantissas) {
        samples.push_back((exponent << 23) | mantissa);
        samples.push_back(0x80000000u | (exponent << 23) | mantissa);
      }
    }
    std::mt19937 generator(12345u);
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
      if (encoded != onemodel::float_to_half_bits(value)) {
        if (++mismatches <= 5) std::printf("  encoding differs from the C++ code at x = 0x%08X\n", bits);
      }
    }
    std::printf("%-48s %s on %zu inputs  (%.2f s)\n", "encoding equals onemodel::float_to_half_bits",
                mismatches == 0 ? "checked" : "MISMATCH", samples.size(), seconds_since(start));
    ok = ok && mismatches == 0;
  }

  // 6. Widening (spec/half-precision.md section 3) is exact: for every one of the 65536 patterns the
  // formula equals Z3's conversion Float16 -> Float32 (exact, so any rounding mode gives it); NaN
  // patterns give a quiet NaN with the same sign and the payload shifted left by 13.
  {
    const auto start = std::chrono::steady_clock::now();
    const z3::expr h = c.bv_const("h", 16);
    auto k = [&](std::uint32_t value) { return c.bv_val(value, 32); };
    const z3::expr h32 = z3::zext(h, 16);
    const z3::expr sign = z3::shl(h32 & k(0x8000u), k(16));
    const z3::expr exponent = z3::lshr(h32, k(10)) & k(0x1Fu);
    const z3::expr man = h32 & k(0x3FFu);
    // Subnormal: man * 2^-24 computed in binary32 (the product is exact), sign attached as a bit.
    const z3::expr man_float = z3::ubv_to_fpa(man, f32);
    const z3::expr scale = z3::expr(c, Z3_mk_fpa_numeral_float(c, 0x1p-24f, f32));
    const z3::expr product = z3::expr(c, Z3_mk_fpa_mul(c, Z3_mk_fpa_rne(c), man_float, scale));
    const z3::expr subnormal = sign | product.mk_to_ieee_bv();
    const z3::expr nan_or_inf = z3::ite(man == k(0), sign | k(0x7F800000u),
                                        sign | k(0x7F800000u) | k(0x400000u) | z3::shl(man, k(13)));
    const z3::expr normal = sign | z3::shl(exponent + k(112), k(23)) | z3::shl(man, k(13));
    const z3::expr widened =
        z3::ite(exponent == k(0), subnormal, z3::ite(exponent == k(0x1Fu), nan_or_inf, normal));
    const z3::expr hf = h.mk_from_ieee_bv(f16);
    const z3::expr exact = z3::expr(c, Z3_mk_fpa_to_fp_float(c, Z3_mk_fpa_rne(c), hf, f32));
    z3::solver s(c);
    const z3::expr nan_claims = widened.mk_from_ieee_bv(f32).mk_is_nan() &&
                                widened.extract(22, 22) == c.bv_val(1, 1) &&
                                widened.extract(31, 31) == h.extract(15, 15) &&
                                widened.extract(21, 13) == h.extract(8, 0) &&
                                widened.extract(12, 0) == c.bv_val(0, 13);
    s.add(z3::ite(hf.mk_is_nan(), !nan_claims, widened != exact.mk_to_ieee_bv()));
    const z3::check_result answer = s.check();
    std::printf("%-48s %s  (%.2f s)\n", "widening binary16 -> binary32 is exact",
                answer == z3::unsat ? "proved for all 65536 patterns" : "NOT PROVED", seconds_since(start));
    ok = ok && answer == z3::unsat;
  }

  std::printf("%s in %.2f s\n",
              ok ? "PROVED: float_to_half_bits equals IEEE binary32 -> binary16 RNE for all 2^32 inputs; widening is exact"
                 : "FAILED",
              seconds_since(total_start));
  return ok ? 0 : 1;
}
