// Proof: the step of the exact binary64 hyperbolic functions (spec/exact-transcendentals.md
// section 17) that the text calls exact beyond those of proofs/exp64_range_reduction is exact for
// every binary64 input in the stated range (README.md says where it is used and why it matters):
//   E. t = x - 1 for every double x in [1, 2^53)                                  (acosh, 17.4)
// "Exact" is shown as in proofs/exp_range_reduction: the operation rounded up (RTP) and rounded
// down (RTN) agree, and round-to-nearest gives that value. The variable ranges over all doubles of
// its range at once (Z3's floating-point theory). "unsat" for "some input where it fails" is the
// proof; the wrong variant (the range one binade too wide) must be "sat".
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

// E: x - 1 exact for lo <= x < hi.
bool query_minus_one(double lo, double hi, const std::string& name, z3::check_result expected) {
  const auto start = std::chrono::steady_clock::now();
  z3::context c;
  Fp fp{c};
  const z3::expr x = c.constant("x", fp.f64);
  const z3::expr one = fp.num(1.0);
  const z3::expr up = fp.sub(fp.rtp(), x, one), down = fp.sub(fp.rtn(), x, one), nearest = fp.sub(fp.rne(), x, one);
  z3::solver s(c);
  s.add(fp.geq(x, fp.num(lo)) && !fp.geq(x, fp.num(hi)));
  s.add(!(fp.eq(up, down) && fp.eq(nearest, up)));
  return report(name, s, expected, x, start);
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  bool ok = true;
  ok = query_minus_one(1.0, 9007199254740992.0, "E. x - 1 exact for x in [1, 2^53)", z3::unsat) && ok;
  // Wrong variant: must be refuted with a counterexample, so the query can fail.
  ok = query_minus_one(1.0, 18014398509481984.0 * 2.0, "WRONG: E for x in [1, 2^55)", z3::sat) && ok;
  std::printf("%s in %.2f s\n", ok ? "all queries as expected" : "FAILED", seconds_since(start));
  return ok ? 0 : 1;
}
