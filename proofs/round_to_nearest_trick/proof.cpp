// Proof: the "round to nearest integer" of spec/exact-transcendentals.md section "Rules":
// for every binary32 y with |y| < 2^22, in binary32 round-to-nearest-even arithmetic,
//   (y + M) - M == roundToIntegralTiesToEven(y)                 with M = 1.5 * 2^23 = 12582912,
//   bits(y + M) - bits(M) == that integer, as a 32-bit two's-complement integer.
// In exp, y = fl(x * 1.44269502) with |x| <= 103.98, so |y| <= 150.1 is well inside the range.
// (README.md in this folder says why it matters.)
//
// Z3's floating-point theory over all such y at once; "unsat" for "some y where it fails" is the
// proof. Wrong variants must be refuted ("sat"): the range |y| < 2^23, and M = 2^23. One further
// query shows a fact, not a failure: for y in (-0.5, -0] the trick gives +0 where roundToIntegral
// gives -0 (equal as numbers; exp only multiplies and subtracts with n, which hides the sign of
// a zero n in the result). Exit status 0 only if every query gives the expected answer.
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

struct Encoding {
  z3::expr y, t, n, nearest, read_back, nearest_int;
};

Encoding encode(z3::context& c, float magic, double bound, z3::solver& s) {
  const z3::sort f32 = c.fpa_sort(8, 24);
  const z3::expr y = c.constant("y", f32);
  const z3::expr m = c.fpa_val(magic);
  Z3_ast rne = Z3_mk_fpa_rne(c);
  const z3::expr t = z3::expr(c, Z3_mk_fpa_add(c, rne, y, m));
  const z3::expr n = z3::expr(c, Z3_mk_fpa_sub(c, rne, t, m));
  const z3::expr nearest = z3::expr(c, Z3_mk_fpa_round_to_integral(c, rne, y));
  // bits(t) - bits(M) in 32-bit wrap-around arithmetic.
  const z3::expr read_back = t.mk_to_ieee_bv() - m.mk_to_ieee_bv();
  // The nearest-even integer of y as a 32-bit signed integer.
  const z3::expr nearest_int = z3::expr(c, Z3_mk_fpa_to_sbv(c, rne, y, 32));
  const z3::expr abs_y = z3::expr(c, Z3_mk_fpa_abs(c, y));
  s.add(z3::expr(c, Z3_mk_fpa_lt(c, abs_y, c.fpa_val(static_cast<float>(bound)))));
  return {y, t, n, nearest, read_back, nearest_int};
}

bool run(const std::string& name, z3::solver& s, z3::check_result expected, const z3::expr& y) {
  const auto start = std::chrono::steady_clock::now();
  const z3::check_result got = s.check();
  const char* word = got == z3::unsat ? "unsat" : got == z3::sat ? "sat" : "unknown";
  std::printf("%-64s %-7s (expected %s) %.2f s\n", name.c_str(), word,
              expected == z3::unsat ? "unsat" : "sat", seconds_since(start));
  if (got == z3::sat) {
    z3::model m = s.get_model();
    const std::uint64_t b = m.eval(y.mk_to_ieee_bv(), true).get_numeral_uint64();
    const std::uint32_t b32 = static_cast<std::uint32_t>(b);
    float value;
    std::memcpy(&value, &b32, sizeof value);
    std::printf("    counterexample y = %.9g (bits 0x%08X)\n", static_cast<double>(value), b32);
  }
  return got == expected;
}

constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
constexpr double kTwo22 = 4194304.0, kTwo23 = 8388608.0;

// Query kinds.
enum class Claim { value, read_back, same_zero_sign };

bool check(const std::string& name, float magic, double bound, Claim claim, z3::check_result expected) {
  z3::context c;
  z3::solver s(c);
  const Encoding e = encode(c, magic, bound, s);
  switch (claim) {
    case Claim::value:  // numerically equal (fp.eq: +0 == -0)
      s.add(!z3::expr(c, Z3_mk_fpa_eq(c, e.n, e.nearest)));
      break;
    case Claim::read_back:
      s.add(e.read_back != e.nearest_int);
      break;
    case Claim::same_zero_sign:  // identical bits (structural equality)
      s.add(e.n.mk_to_ieee_bv() != e.nearest.mk_to_ieee_bv());
      break;
  }
  return run(name, s, expected, e.y);
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  bool ok = true;
  ok = check("(y + M) - M == roundToIntegral_RNE(y) for |y| < 2^22", kMagic, kTwo22, Claim::value,
             z3::unsat) && ok;
  ok = check("bits(y + M) - bits(M) == nearest-even integer of y, |y| < 2^22", kMagic, kTwo22,
             Claim::read_back, z3::unsat) && ok;
  ok = check("FACT: same bits incl. sign of zero (fails for y in (-0.5, -0])", kMagic, kTwo22,
             Claim::same_zero_sign, z3::sat) && ok;
  ok = check("WRONG: (y + M) - M == roundToIntegral_RNE(y) for |y| < 2^23", kMagic, kTwo23,
             Claim::value, z3::sat) && ok;
  ok = check("WRONG: M = 2^23 instead of 1.5 * 2^23, |y| < 2^22", 8388608.0f, kTwo22, Claim::value,
             z3::sat) && ok;
  std::printf("%s in %.2f s\n", ok ? "all queries as expected" : "FAILED", seconds_since(start));
  return ok ? 0 : 1;
}
