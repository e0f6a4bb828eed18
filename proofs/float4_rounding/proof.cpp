// Proof: the binary32 -> FLOAT4E2M1 rounding of core/tensor/subbyte.cpp (float_to_float4e2m1,
// spec/tensors.md section 2.2) equals round-to-nearest, ties to the even code, with saturation at
// +-6, for all 2^32 inputs (README.md in this folder says why it matters).
//
// The formula is written as bit-vector operations on a 32-bit variable, in the C++ code's order and
// constants. The reference is Z3's IEEE floating-point theory on Float32: the FLOAT4E2M1 magnitudes
// are a grid of step 0.5 on [0, 2], 1 on [2, 4] and 2 on [4, 6], and on each of those ranges the
// grid points are k * step with code k, k + 2 and k + 4 respectively, the even codes at the even k;
// so rounding to the nearest grid point with ties to the even code is fp.roundToIntegral (RNE) of
// |x| / step (an exact scaling by 2 or 1/2), above 6 (and infinity) the code 7. "unsat" for "some
// input where they differ" proves equality. Deliberately wrong formulas must give "sat" (the proof
// can fail), and the encoding is compared with the compiled C++ function on samples.
// Exit status 0 only if every query gave the expected answer.
#include <z3++.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "core/tensor/subbyte.hpp"

namespace {

struct Variant {
  bool tie_term = true;              // the + ((a >> 22) & 1) of the [1, 6) formula
  std::uint32_t saturate = 0x40C00000u;  // |x| >= 6.0 gives 7
  bool quarter_tie_down = true;      // 0.25 itself gives 0 (a > 0x3E800000 for code 1)
};

// core/tensor/subbyte.cpp float_to_float4e2m1, as bit-vector operations. Returns 32 bits whose low 4
// are the code.
z3::expr encode_formula(z3::context& c, const z3::expr& x, const Variant& v) {
  auto k = [&](std::uint32_t value) { return c.bv_val(value, 32); };
  const z3::expr sign = z3::lshr(x, k(28)) & k(8);
  const z3::expr a = x & k(0x7FFFFFFFu);
  const z3::expr is_nan = z3::ugt(a, k(0x7F800000u));
  const z3::expr tie = v.tie_term ? (z3::lshr(a, k(22)) & k(1)) : k(0);
  const z3::expr normal = z3::lshr(a + k(0x1FFFFFu) + tie, k(22)) - k(252);
  const z3::expr one = v.quarter_tie_down ? z3::ugt(a, k(0x3E800000u)) : z3::uge(a, k(0x3E800000u));
  const z3::expr magnitude =
      z3::ite(z3::uge(a, k(v.saturate)), k(7),
              z3::ite(z3::uge(a, k(0x3F800000u)), normal,
                      z3::ite(z3::uge(a, k(0x3F400000u)), k(2), z3::ite(one, k(1), k(0)))));
  return z3::ite(is_nan, sign ^ k(8), sign | magnitude);
}

// The reference: for a non-NaN x, sign * 8 + the code of the nearest grid point (ties to even).
z3::expr reference_code(z3::context& c, const z3::expr& xf) {
  auto k = [&](std::uint32_t value) { return c.bv_val(value, 32); };
  // Held as an expr: a raw Z3_ast from the C API is not reference counted and may be freed.
  const z3::expr rne(c, Z3_mk_fpa_rne(c));
  const z3::expr af = z3::expr(c, Z3_mk_fpa_abs(c, xf));
  auto fp = [&](float value) { return c.fpa_val(value); };
  auto times = [&](const z3::expr& e, float factor) { return z3::expr(c, Z3_mk_fpa_mul(c, rne, e, fp(factor))); };
  auto integral = [&](const z3::expr& e) {
    const z3::expr r = z3::expr(c, Z3_mk_fpa_round_to_integral(c, rne, e));
    return z3::expr(c, Z3_mk_fpa_to_ubv(c, Z3_mk_fpa_rtz(c), r, 32));
  };
  const z3::expr lt = z3::expr(c, Z3_mk_fpa_lt(c, af, fp(2.0f)));
  const z3::expr below4 = z3::expr(c, Z3_mk_fpa_lt(c, af, fp(4.0f)));
  const z3::expr above6 = z3::expr(c, Z3_mk_fpa_gt(c, af, fp(6.0f)));
  const z3::expr magnitude =
      z3::ite(above6, k(7),
              z3::ite(lt, integral(times(af, 2.0f)),
                      z3::ite(below4, integral(af) + k(2), integral(times(af, 0.5f)) + k(4))));
  const z3::expr negative = z3::expr(c, Z3_mk_fpa_is_negative(c, xf));
  return z3::ite(negative, k(8), k(0)) | magnitude;
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
  const z3::expr xf = x.mk_from_ieee_bv(f32);
  const z3::expr reference = reference_code(c, xf);
  const z3::expr formula = encode_formula(c, x, Variant{});
  bool ok = true;

  // 1. Every non-NaN input: zeros, subnormals, the three grid ranges, saturation, infinities.
  {
    const auto start = std::chrono::steady_clock::now();
    z3::solver s(c);
    s.add(!xf.mk_is_nan());
    s.add(formula != reference);
    const z3::check_result answer = s.check();
    std::printf("%-46s %s  (%.2f s)\n", "all non-NaN inputs",
                answer == z3::unsat ? "proved: nearest, ties to even code, saturating" : "NOT PROVED", seconds_since(start));
    if (answer == z3::sat) {
      z3::model model = s.get_model();
      std::printf("  counterexample x = 0x%08llX: formula %llu, reference %llu\n",
                  static_cast<unsigned long long>(value_in(model, x)), static_cast<unsigned long long>(value_in(model, formula)),
                  static_cast<unsigned long long>(value_in(model, reference)));
    }
    ok = ok && answer == z3::unsat;
  }

  // 2. NaN inputs: zero with the opposite sign (spec/tensors.md section 2.2).
  {
    const auto start = std::chrono::steady_clock::now();
    z3::solver s(c);
    s.add(xf.mk_is_nan());
    s.add(formula != ((z3::lshr(x, c.bv_val(28, 32)) & c.bv_val(8, 32)) ^ c.bv_val(8, 32)));
    const z3::check_result answer = s.check();
    std::printf("%-46s %s  (%.2f s)\n", "NaN gives zero of the opposite sign", answer == z3::unsat ? "proved" : "NOT PROVED",
                seconds_since(start));
    ok = ok && answer == z3::unsat;
  }

  // 3. The proof can fail: each wrong formula must be refuted with a counterexample.
  const struct {
    const char* name;
    Variant variant;
  } wrong[] = {
      {"wrong formula without the tie term", Variant{false, 0x40C00000u, true}},
      {"wrong saturation from 5.0 (ties to 6)", Variant{true, 0x40A00000u, true}},
      {"wrong tie at 0.25 (rounds up to 0.5)", Variant{true, 0x40C00000u, false}},
  };
  for (const auto& w : wrong) {
    const auto start = std::chrono::steady_clock::now();
    z3::solver s(c);
    const z3::expr bad = encode_formula(c, x, w.variant);
    s.add(!xf.mk_is_nan());
    s.add(bad != reference);
    if (s.check() == z3::sat) {
      z3::model model = s.get_model();
      std::printf("%-46s refuted: x = 0x%08llX gives %llu, reference %llu  (%.2f s)\n", w.name,
                  static_cast<unsigned long long>(value_in(model, x)), static_cast<unsigned long long>(value_in(model, bad)),
                  static_cast<unsigned long long>(value_in(model, reference)), seconds_since(start));
    } else {
      std::printf("%-46s NOT refuted: the proof would be vacuous\n", w.name);
      ok = false;
    }
  }

  // 4. The encoding is the compiled code: compare with onemodel::float_to_float4e2m1 around every
  // threshold and on random patterns.
  {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::uint32_t> samples;
    for (const std::uint32_t t : {0x00000000u, 0x3E800000u, 0x3F400000u, 0x3F800000u, 0x3FA00000u, 0x3FE00000u, 0x40200000u,
                                  0x40600000u, 0x40A00000u, 0x40C00000u, 0x7F800000u, 0x7FC00000u}) {
      for (std::uint32_t d = 0; d < 5; ++d) {
        for (const std::uint32_t s : {0u, 0x80000000u}) {
          samples.push_back((t + d) | s);
          samples.push_back((t - d) | s);
        }
      }
    }
    std::mt19937 generator(114u);
    for (int i = 0; i < 2000; ++i) samples.push_back(generator());
    std::size_t mismatches = 0;
    for (const std::uint32_t bits : samples) {
      z3::expr_vector from(c), to(c);
      from.push_back(x);
      to.push_back(c.bv_val(bits, 32));
      z3::expr instance = formula;
      const auto encoded = instance.substitute(from, to).simplify().get_numeral_uint64();
      float value;
      std::memcpy(&value, &bits, sizeof value);
      if (encoded != onemodel::float_to_float4e2m1(value)) {
        if (++mismatches <= 5) std::printf("  encoding differs from the C++ code at x = 0x%08X\n", bits);
      }
    }
    std::printf("%-46s %s on %zu inputs  (%.2f s)\n", "encoding equals float_to_float4e2m1",
                mismatches == 0 ? "checked" : "MISMATCH", samples.size(), seconds_since(start));
    ok = ok && mismatches == 0;
  }

  std::printf("%s in %.2f s\n",
              ok ? "PROVED: float_to_float4e2m1 rounds every binary32 input to nearest, ties to even code, saturating at 6"
                 : "FAILED",
              seconds_since(total_start));
  return ok ? 0 : 1;
}
