// Proof: the binary64 steps of the exact hyperbolic and inverse trigonometric functions
// (spec/exact-transcendentals.md sections 12 and 13) that the text calls exact are exact for every
// float32 input in the stated range (README.md says where each is used and why it matters):
//   A. t = double(x) - 1 for float32 x in [1, 2^53]        (acosh)
//   B. 1 - double(a) for float32 a in [2^-30, 1]           (atanh, asin, acos)
//   C. 1 + double(a) for float32 a with 2^-29 <= |a| <= 1         (asin, acos)
// "Exact" is shown as in proofs/exp_range_reduction: the operation rounded up (RTP) and rounded
// down (RTN) agree, and round-to-nearest gives that value. The float32 input ranges over every value
// in the range at once (Z3's floating-point theory), widened to binary64 by fp.to_fp (exact).
// "unsat" for "some input where it fails" is the proof; three wrong variants must be "sat".
#include <z3++.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

enum class Op { x_minus_one, one_minus_a, one_plus_a };

// Query: some float32 v with lo <= |v| <= hi (and v >= 0 unless both signs) for which the binary64
// operation is not exact.
bool prove(const std::string& name, Op op, float lo, float hi, bool both_signs, z3::check_result expected) {
  const auto start = std::chrono::steady_clock::now();
  z3::context c;
  const z3::sort f32 = c.fpa_sort(8, 24);
  const z3::sort f64 = c.fpa_sort(11, 53);
  const z3::expr v = c.constant("v", f32);
  Z3_ast rne = Z3_mk_fpa_rne(c);
  const z3::expr wide = z3::expr(c, Z3_mk_fpa_to_fp_float(c, rne, v, f64));  // exact widening
  const z3::expr one = z3::expr(c, Z3_mk_fpa_numeral_double(c, 1.0, f64));
  auto apply = [&](Z3_ast rm) {
    switch (op) {
      case Op::x_minus_one: return z3::expr(c, Z3_mk_fpa_sub(c, rm, wide, one));
      case Op::one_minus_a: return z3::expr(c, Z3_mk_fpa_sub(c, rm, one, wide));
      case Op::one_plus_a: return z3::expr(c, Z3_mk_fpa_add(c, rm, one, wide));
    }
    return one;
  };
  const z3::expr up = apply(Z3_mk_fpa_rtp(c));
  const z3::expr down = apply(Z3_mk_fpa_rtn(c));
  const z3::expr nearest = apply(rne);
  const z3::expr magnitude = both_signs ? z3::expr(c, Z3_mk_fpa_abs(c, v)) : v;
  z3::solver s(c);
  s.add(z3::expr(c, Z3_mk_fpa_geq(c, magnitude, c.fpa_val(lo))));
  s.add(z3::expr(c, Z3_mk_fpa_leq(c, magnitude, c.fpa_val(hi))));
  s.add(!(z3::expr(c, Z3_mk_fpa_eq(c, up, down)) && z3::expr(c, Z3_mk_fpa_eq(c, nearest, up))));
  const z3::check_result got = s.check();
  const char* word = got == z3::unsat ? "unsat" : got == z3::sat ? "sat" : "unknown";
  std::printf("%-66s %-7s (expected %s) %.2f s\n", name.c_str(), word, expected == z3::unsat ? "unsat" : "sat",
              seconds_since(start));
  if (got == z3::sat) {
    z3::model m = s.get_model();
    const std::uint32_t b = static_cast<std::uint32_t>(m.eval(v.mk_to_ieee_bv(), true).get_numeral_uint64());
    float value;
    std::memcpy(&value, &b, sizeof value);
    std::printf("    counterexample v = %.9g (bits 0x%08X)\n", static_cast<double>(value), b);
  }
  return got == expected;
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  const float two53 = 9007199254740992.0f, two54 = 18014398509481984.0f;
  const float two_m29 = 1.86264514923095703125e-09f;  // 2^-29
  const float two_m30 = 9.31322574615478515625e-10f;  // 2^-30
  const float two_m31 = 4.656612873077392578125e-10f;  // 2^-31
  bool ok = true;
  ok = prove("A. double(x) - 1 exact for float x in [1, 2^53]", Op::x_minus_one, 1.0f, two53, false, z3::unsat) && ok;
  ok = prove("B. 1 - double(a) exact for float a in [2^-30, 1]", Op::one_minus_a, two_m30, 1.0f, false, z3::unsat) && ok;
  ok = prove("C. 1 + double(a) exact for float |a| in [2^-29, 1]", Op::one_plus_a, two_m29, 1.0f, true, z3::unsat) && ok;
  ok = prove("WRONG: double(x) - 1 exact for float x in [1, 2^54]", Op::x_minus_one, 1.0f, two54, false, z3::sat) && ok;
  ok = prove("WRONG: 1 - double(a) exact for float a in [2^-31, 1]", Op::one_minus_a, two_m31, 1.0f, false, z3::sat) && ok;
  ok = prove("WRONG: 1 + double(a) exact for float |a| in [2^-30, 1]", Op::one_plus_a, two_m30, 1.0f, true, z3::sat) && ok;
  std::printf("%s in %.2f s\n", ok ? "all queries as expected" : "FAILED", seconds_since(start));
  return ok ? 0 : 1;
}
