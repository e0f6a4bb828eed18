// Proof: the steps of the exact binary64 exp and log (spec/exact-transcendentals.md section 15)
// that the text calls exact are exact for every binary64 input in the stated range (README.md says
// where each is used and why it matters):
//   A. (y + M) - M with M = 1.5 * 2^52 is y rounded to the nearest integer, ties to even, for every
//      double |y| <= 2048                                                     (exp step 2, k)
//   B. k * ln2hi (0x3FE62E42FEE00000) is exact for every integer-valued double |k| <= 1100
//                                                                (exp step 2, log step 4)
//   C. x - k * ln2hi is exact for integer k with 1 <= |k| <= 1100, 0.25 <= |x| <= 746 and
//      |x - k * ln2hi| <= 0.5                                                 (exp step 2, hi)
//   D. m - 1 is exact for every double m in [0.70, 1.42]                       (log step 3, f)
// "Exact" is shown as in proofs/exp_range_reduction: the operation rounded up (RTP) and rounded
// down (RTN) agree, and round-to-nearest gives that value. Every variable ranges over all doubles
// of its range at once (Z3's floating-point theory). "unsat" for "some input where it fails" is the
// proof; the wrong variants (a bound one binade too wide) must be "sat".
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

struct Fp {
  z3::context& c;
  z3::sort f64 = c.fpa_sort(11, 53);
  z3::expr num(double v) const { return z3::expr(c, Z3_mk_fpa_numeral_double(c, v, f64)); }
  z3::expr add(Z3_ast rm, const z3::expr& a, const z3::expr& b) const { return z3::expr(c, Z3_mk_fpa_add(c, rm, a, b)); }
  z3::expr sub(Z3_ast rm, const z3::expr& a, const z3::expr& b) const { return z3::expr(c, Z3_mk_fpa_sub(c, rm, a, b)); }
  z3::expr mul(Z3_ast rm, const z3::expr& a, const z3::expr& b) const { return z3::expr(c, Z3_mk_fpa_mul(c, rm, a, b)); }
  z3::expr eq(const z3::expr& a, const z3::expr& b) const { return z3::expr(c, Z3_mk_fpa_eq(c, a, b)); }
  z3::expr leq(const z3::expr& a, const z3::expr& b) const { return z3::expr(c, Z3_mk_fpa_leq(c, a, b)); }
  z3::expr geq(const z3::expr& a, const z3::expr& b) const { return z3::expr(c, Z3_mk_fpa_geq(c, a, b)); }
  z3::expr abs(const z3::expr& a) const { return z3::expr(c, Z3_mk_fpa_abs(c, a)); }
  Z3_ast rne() const { return Z3_mk_fpa_rne(c); }
  Z3_ast rtp() const { return Z3_mk_fpa_rtp(c); }
  Z3_ast rtn() const { return Z3_mk_fpa_rtn(c); }
  // v is an integer (roundToIntegral leaves it unchanged; excludes NaN and infinities).
  z3::expr integral(const z3::expr& v) const {
    return eq(z3::expr(c, Z3_mk_fpa_round_to_integral(c, Z3_mk_fpa_rne(c), v)), v);
  }
};

double value_of(z3::model& m, const z3::expr& v) {
  const std::uint64_t b = m.eval(v.mk_to_ieee_bv(), true).get_numeral_uint64();
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

bool report(const std::string& name, z3::solver& s, z3::check_result expected, const z3::expr& v,
            std::chrono::steady_clock::time_point start) {
  const z3::check_result got = s.check();
  const char* word = got == z3::unsat ? "unsat" : got == z3::sat ? "sat" : "unknown";
  std::printf("%-72s %-7s (expected %s) %.2f s\n", name.c_str(), word, expected == z3::unsat ? "unsat" : "sat",
              seconds_since(start));
  if (got == z3::sat) {
    z3::model m = s.get_model();
    std::printf("    counterexample %.17g\n", value_of(m, v));
  }
  return got == expected;
}

constexpr double kRoundMagic = 6755399441055744.0;  // 1.5 * 2^52
constexpr double kLn2Hi = 6.93147180369123816490e-01;

// A: (y + M) - M equals roundToIntegral(RNE, y) for |y| <= bound.
bool query_round_trick(double bound, z3::check_result expected) {
  const auto start = std::chrono::steady_clock::now();
  z3::context c;
  Fp fp{c};
  const z3::expr y = c.constant("y", fp.f64);
  const z3::expr m = fp.num(kRoundMagic);
  const z3::expr got = fp.sub(fp.rne(), fp.add(fp.rne(), y, m), m);
  const z3::expr want = z3::expr(c, Z3_mk_fpa_round_to_integral(c, fp.rne(), y));
  z3::solver s(c);
  s.add(fp.leq(fp.abs(y), fp.num(bound)));
  s.add(!fp.eq(got, want));
  return report("A. (y + 1.5*2^52) - 1.5*2^52 = rint(y) for |y| <= " + std::to_string(bound), s, expected, y, start);
}

// B: k * hi exact for integer |k| <= bound.
bool query_product(double constant, double bound, const std::string& name, z3::check_result expected) {
  const auto start = std::chrono::steady_clock::now();
  z3::context c;
  Fp fp{c};
  const z3::expr k = c.constant("k", fp.f64);
  const z3::expr h = fp.num(constant);
  const z3::expr up = fp.mul(fp.rtp(), k, h), down = fp.mul(fp.rtn(), k, h), nearest = fp.mul(fp.rne(), k, h);
  z3::solver s(c);
  s.add(fp.integral(k));
  s.add(fp.leq(fp.abs(k), fp.num(bound)));
  s.add(!(fp.eq(up, down) && fp.eq(nearest, up)));
  return report(name, s, expected, k, start);
}

// C: x - k*ln2hi exact when k is an integer with 1 <= |k| <= 1100, lower <= |x| <= 746 and the
// difference (rounded either way) lies in [-limit, limit].
bool query_reduction(double lower, double limit, const std::string& name, z3::check_result expected) {
  const auto start = std::chrono::steady_clock::now();
  z3::context c;
  Fp fp{c};
  const z3::expr x = c.constant("x", fp.f64);
  const z3::expr k = c.constant("k", fp.f64);
  const z3::expr kh = fp.mul(fp.rne(), k, fp.num(kLn2Hi));  // exact by B
  const z3::expr up = fp.sub(fp.rtp(), x, kh), down = fp.sub(fp.rtn(), x, kh), nearest = fp.sub(fp.rne(), x, kh);
  z3::solver s(c);
  s.add(fp.integral(k));
  s.add(fp.geq(fp.abs(k), fp.num(1.0)) && fp.leq(fp.abs(k), fp.num(1100.0)));
  s.add(fp.geq(fp.abs(x), fp.num(lower)) && fp.leq(fp.abs(x), fp.num(746.0)));
  s.add(fp.geq(down, fp.num(-limit)) && fp.leq(up, fp.num(limit)));
  s.add(!(fp.eq(up, down) && fp.eq(nearest, up)));
  return report(name, s, expected, x, start);
}

// D: m - 1 exact for lo <= m <= hi.
bool query_minus_one(double lo, double hi, const std::string& name, z3::check_result expected) {
  const auto start = std::chrono::steady_clock::now();
  z3::context c;
  Fp fp{c};
  const z3::expr m = c.constant("m", fp.f64);
  const z3::expr one = fp.num(1.0);
  const z3::expr up = fp.sub(fp.rtp(), m, one), down = fp.sub(fp.rtn(), m, one), nearest = fp.sub(fp.rne(), m, one);
  z3::solver s(c);
  s.add(fp.geq(m, fp.num(lo)) && fp.leq(m, fp.num(hi)));
  s.add(!(fp.eq(up, down) && fp.eq(nearest, up)));
  return report(name, s, expected, m, start);
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  bool ok = true;
  ok = query_round_trick(2048.0, z3::unsat) && ok;
  ok = query_product(kLn2Hi, 1100.0, "B. k * ln2hi exact for integer |k| <= 1100", z3::unsat) && ok;
  ok = query_reduction(0.25, 0.5, "C. x - k*ln2hi exact, 1 <= |k| <= 1100, |x| >= 0.25, |diff| <= 0.5", z3::unsat) && ok;
  ok = query_minus_one(0.70, 1.42, "D. m - 1 exact for m in [0.70, 1.42]", z3::unsat) && ok;
  // Wrong variants: each must be refuted with a counterexample, so the queries can fail.
  ok = query_product(0.6931471805599453, 1100.0, "WRONG: B with the double nearest ln 2 (53 bits)", z3::sat) && ok;
  ok = query_product(kLn2Hi, 4.0e6, "WRONG: B for |k| <= 4e6 (beyond 21 bits)", z3::sat) && ok;
  ok = query_reduction(0.125, 0.5, "WRONG: C from |x| >= 0.125", z3::sat) && ok;
  ok = query_minus_one(0.25, 1.42, "WRONG: D from m >= 0.25", z3::sat) && ok;
  std::printf("%s in %.2f s\n", ok ? "all queries as expected" : "FAILED", seconds_since(start));
  return ok ? 0 : 1;
}
