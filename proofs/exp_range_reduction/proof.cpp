// Proof: in exp's range reduction (spec/exact-transcendentals.md section "exp(x)", step 2) the
// product n * 0.693145751953125f is exact in binary32 for every integer |n| < 256, so
// r = (x - n*ln2Hi) - n*ln2Lo loses nothing in its first product (README.md says why it matters).
//
// n ranges over every binary32 value that is an integer of magnitude below the bound (Z3's
// floating-point theory, all such values at once). Exactness is shown twice:
//  1. rounding up and rounding down give the same product: fp.mul(RTP) == fp.mul(RTN), which holds
//     exactly when the real product is representable; and RNE gives that same value;
//  2. fp.mul(RNE, n, ln2Hi) * 2^15 equals the integer n * 22713 (ln2Hi = 22713 / 2^15).
// "unsat" for "some n where it fails" is the proof. Two wrong variants must be refuted ("sat"):
// the float nearest ln 2 (0x3F317218, 24 significant bits) instead of ln2Hi, and |n| < 1024.
// Exit status 0 only if every query gives the expected answer.
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

z3::expr float_of_bits(z3::context& c, std::uint32_t bits) {
  return c.bv_val(bits, 32).mk_from_ieee_bv(c.fpa_sort(8, 24));
}

z3::expr fp_mul(z3::context& c, Z3_ast rm, const z3::expr& a, const z3::expr& b) {
  return z3::expr(c, Z3_mk_fpa_mul(c, rm, a, b));
}

// n is a binary32 integer (roundToIntegral leaves it unchanged; excludes NaN and infinities)
// with |n| < bound.
z3::expr integer_below(z3::context& c, const z3::expr& n, double bound) {
  const z3::expr rounded = z3::expr(c, Z3_mk_fpa_round_to_integral(c, Z3_mk_fpa_rne(c), n));
  const z3::expr abs_n = z3::expr(c, Z3_mk_fpa_abs(c, n));
  const z3::expr limit = c.fpa_val(static_cast<float>(bound));
  return z3::expr(c, Z3_mk_fpa_eq(c, rounded, n)) && z3::expr(c, Z3_mk_fpa_lt(c, abs_n, limit));
}

bool run(const std::string& name, z3::solver& s, z3::check_result expected, const z3::expr& n) {
  const auto start = std::chrono::steady_clock::now();
  const z3::check_result got = s.check();
  const double secs = seconds_since(start);
  const char* word = got == z3::unsat ? "unsat" : got == z3::sat ? "sat" : "unknown";
  std::printf("%-64s %-7s (expected %s) %.2f s\n", name.c_str(), word,
              expected == z3::unsat ? "unsat" : "sat", secs);
  if (got == z3::sat) {
    z3::model m = s.get_model();
    const std::uint64_t b = m.eval(n.mk_to_ieee_bv(), true).get_numeral_uint64();
    const std::uint32_t b32 = static_cast<std::uint32_t>(b);
    float value;
    std::memcpy(&value, &b32, sizeof value);
    std::printf("    counterexample n = %.9g (bits 0x%08X)\n", static_cast<double>(value), b32);
  }
  return got == expected;
}

// Query: some integer n with |n| < bound for which n * constant is not exact.
bool prove_exact(const std::string& name, std::uint32_t constant_bits, double bound,
                 z3::check_result expected) {
  z3::context c;
  const z3::expr n = c.constant("n", c.fpa_sort(8, 24));
  const z3::expr k = float_of_bits(c, constant_bits);
  const z3::expr up = fp_mul(c, Z3_mk_fpa_rtp(c), n, k);
  const z3::expr down = fp_mul(c, Z3_mk_fpa_rtn(c), n, k);
  const z3::expr nearest = fp_mul(c, Z3_mk_fpa_rne(c), n, k);
  z3::solver s(c);
  s.add(integer_below(c, n, bound));
  s.add(!(z3::expr(c, Z3_mk_fpa_eq(c, up, down)) && z3::expr(c, Z3_mk_fpa_eq(c, nearest, up))));
  return run(name, s, expected, n);
}

// Query: some integer n with |n| < bound where fp.mul(RNE, n, c) * 2^15 (an exact scaling by a
// power of two) is not the integer n * numerator, computed in 32-bit integer arithmetic (no
// overflow: |n * 22713| < 2^23). Z3 answers "unknown" for the same statement over fp.to_real, so
// the exact product is stated over integers instead.
bool prove_exact_integer(const std::string& name, std::uint32_t constant_bits,
                         int constant_numerator, double bound, z3::check_result expected) {
  z3::context c;
  const z3::expr n = c.constant("n", c.fpa_sort(8, 24));
  const z3::expr k = float_of_bits(c, constant_bits);
  Z3_ast rne = Z3_mk_fpa_rne(c);
  const z3::expr product = fp_mul(c, rne, n, k);
  const z3::expr scaled = fp_mul(c, rne, product, c.fpa_val(32768.0f));
  const z3::expr product_int = z3::expr(c, Z3_mk_fpa_to_sbv(c, Z3_mk_fpa_rtz(c), scaled, 32));
  const z3::expr n_int = z3::expr(c, Z3_mk_fpa_to_sbv(c, Z3_mk_fpa_rtz(c), n, 32));
  z3::solver s(c);
  s.add(integer_below(c, n, bound));
  s.add(product_int != n_int * c.bv_val(constant_numerator, 32));
  return run(name, s, expected, n);
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  constexpr std::uint32_t kLn2Hi = 0x3F317200u;      // 0.693145751953125 = 22713 / 2^15
  constexpr std::uint32_t kLn2Nearest = 0x3F317218u;  // 0.693147182..., the float nearest ln 2
  bool ok = true;
  {
    // The constant really is 22713 / 2^15 (a 15-bit odd integer over a power of two).
    z3::context c;
    z3::solver s(c);
    const z3::expr real_k = z3::expr(c, Z3_mk_fpa_to_real(c, float_of_bits(c, kLn2Hi)));
    s.add(real_k != c.real_val(22713, 32768));
    const bool good = s.check() == z3::unsat;
    std::printf("%-64s %s\n", "0x3F317200 == 22713/32768", good ? "unsat (as expected)" : "FAILED");
    ok = ok && good;
  }

  ok = prove_exact("n*ln2Hi exact for integer |n| < 256 (RTP == RTN == RNE)", kLn2Hi, 256, z3::unsat) && ok;
  ok = prove_exact_integer("n*ln2Hi*2^15 == n*22713 for integer |n| < 256", kLn2Hi, 22713, 256,
                        z3::unsat) && ok;
  // 15 + 9 bits = 24: the bound of the text is not tight; the first inexact products need 10-bit n.
  ok = prove_exact("n*ln2Hi exact for integer |n| < 512 (RTP == RTN == RNE)", kLn2Hi, 512, z3::unsat) && ok;
  ok = prove_exact("WRONG: n*ln2Hi exact for integer |n| < 1024", kLn2Hi, 1024, z3::sat) && ok;
  ok = prove_exact("WRONG: n*float(ln 2) exact for integer |n| < 256", kLn2Nearest, 256, z3::sat) && ok;
  std::printf("%s in %.2f s\n", ok ? "all queries as expected" : "FAILED", seconds_since(start));
  return ok ? 0 : 1;
}
