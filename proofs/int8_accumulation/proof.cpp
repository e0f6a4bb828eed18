// Proof: the arithmetic of the integer product kernel (optimized/kernels/int8gemm/int8_gemm.hpp,
// spec-source int8.md "Product kernel"), over bit-vectors, every operand value at once:
//  1. vpmaddwd on the shifted operands: for int16 a0, a1, b0, b1 in [-128, 127], the instruction's
//     result (each 16x16 product exact in 32 bits, the two added modulo 2^32) equals the exact
//     integer a0*b0 + a1*b1, whose magnitude is at most 2^15; refuted (sat) for full int16 operands,
//     where (-32768)^2 * 2 wraps; and vpmaddubsw's int16 saturation is reached by uint8 x int8
//     pairs (why it is not used).
//  2. The int32 accumulation: kMaxK * 128 * 128 < 2^31, so S = sum of K products stays exact
//     for K <= kMaxK (131071); K = 131072 reaches 2^31 (refuted).
//  3. The shifted-domain identity, per term: for every uint8 or int8 a, za and b, zb,
//     (a - za)(b - zb) == (a' - za')(b' - zb') with x' = x - 128 for uint8; and the correction
//     for K = 4 terms: sum (a_k - za)(b_k - zb) == S - za' colSum - zb' rowSum + K za' zb' modulo
//     2^32, with S, colSum, rowSum as the kernel computes them.
// Exit status 0 only if every query gives the expected answer.
#include <z3++.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

bool run(const std::string& name, z3::solver& s, z3::check_result expected) {
  const auto start = std::chrono::steady_clock::now();
  const z3::check_result got = s.check();
  const char* word = got == z3::unsat ? "unsat" : got == z3::sat ? "sat" : "unknown";
  std::printf("%-78s %-7s (expected %s) %.2f s\n", name.c_str(), word, expected == z3::unsat ? "unsat" : "sat",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return got == expected;
}

// A signed bit-vector of `bits` bits sign-extended to 64 (the exact integer value).
z3::expr wide(const z3::expr& x) { return z3::sext(x, 64 - x.get_sort().bv_size()); }

// vpmaddwd lane: int16 pairs, 32-bit products, 32-bit wrapping sum.
z3::expr madd_lane(const z3::expr& a0, const z3::expr& a1, const z3::expr& b0, const z3::expr& b1) {
  return z3::sext(a0, 16) * z3::sext(b0, 16) + z3::sext(a1, 16) * z3::sext(b1, 16);
}

bool vpmaddwd_exact(bool shifted_range, z3::check_result expected) {
  z3::context c;
  z3::solver s(c);
  const z3::expr a0 = c.bv_const("a0", 16), a1 = c.bv_const("a1", 16), b0 = c.bv_const("b0", 16),
                 b1 = c.bv_const("b1", 16);
  if (shifted_range) {
    for (const z3::expr& x : {a0, a1, b0, b1}) s.add(z3::sge(x, c.bv_val(-128, 16)) && z3::sle(x, c.bv_val(127, 16)));
  }
  const z3::expr exact = wide(a0) * wide(b0) + wide(a1) * wide(b1);  // no wrap in 64 bits
  s.add(wide(madd_lane(a0, a1, b0, b1)) != exact);
  return run(shifted_range ? "vpmaddwd == a0*b0 + a1*b1 exactly, operands in [-128, 127]"
                           : "WRONG: vpmaddwd exact for every int16 operand",
             s, expected);
}

bool madd_bound() {
  z3::context c;
  z3::solver s(c);
  const z3::expr a0 = c.bv_const("a0", 16), a1 = c.bv_const("a1", 16), b0 = c.bv_const("b0", 16),
                 b1 = c.bv_const("b1", 16);
  for (const z3::expr& x : {a0, a1, b0, b1}) s.add(z3::sge(x, c.bv_val(-128, 16)) && z3::sle(x, c.bv_val(127, 16)));
  const z3::expr lane = madd_lane(a0, a1, b0, b1);
  s.add(z3::sgt(lane, c.bv_val(32768, 32)) || z3::slt(lane, c.bv_val(-32768, 32)));
  return run("|a0*b0 + a1*b1| <= 2^15 for operands in [-128, 127]", s, z3::unsat);
}

// vpmaddubsw: uint8 x int8 pairs summed with int16 saturation; sat = the saturation is reached.
bool maddubsw_saturates() {
  z3::context c;
  z3::solver s(c);
  const z3::expr a0 = c.bv_const("a0", 8), a1 = c.bv_const("a1", 8), b0 = c.bv_const("b0", 8),
                 b1 = c.bv_const("b1", 8);
  const z3::expr sum = z3::zext(a0, 24) * z3::sext(b0, 24) + z3::zext(a1, 24) * z3::sext(b1, 24);
  s.add(z3::sgt(sum, c.bv_val(32767, 32)) || z3::slt(sum, c.bv_val(-32768, 32)));
  return run("FACT: vpmaddubsw's uint8 x int8 pair sum leaves int16 (it would saturate)", s, z3::sat);
}

bool accumulation_bound(std::int64_t k, z3::check_result expected) {
  z3::context c;
  z3::solver s(c);
  // K products each of magnitude at most 128 * 128 (the extremes -128 * -128): the sum's bound.
  const z3::expr bound = c.int_val(k) * c.int_val(128 * 128);
  s.add(bound >= c.int_val(std::int64_t{2147483648}));
  return run("K * 128 * 128 < 2^31 for K = " + std::to_string(k) + (expected == z3::sat ? " (WRONG: past kMaxK)" : ""), s,
             expected);
}

// x' of an 8-bit operand as a 32-bit value: int8 as it is, uint8 minus 128.
z3::expr shifted(const z3::expr& x, bool is_signed) {
  return is_signed ? z3::sext(x, 24) : z3::zext(x, 24) - 128;
}
z3::expr value(const z3::expr& x, bool is_signed) { return is_signed ? z3::sext(x, 24) : z3::zext(x, 24); }

bool shifted_term(bool a_signed, bool b_signed) {
  z3::context c;
  z3::solver s(c);
  const z3::expr a = c.bv_const("a", 8), za = c.bv_const("za", 8), b = c.bv_const("b", 8), zb = c.bv_const("zb", 8);
  const z3::expr direct = (value(a, a_signed) - value(za, a_signed)) * (value(b, b_signed) - value(zb, b_signed));
  const z3::expr via = (shifted(a, a_signed) - shifted(za, a_signed)) * (shifted(b, b_signed) - shifted(zb, b_signed));
  s.add(direct != via);
  return run(std::string("(a - za)(b - zb) == (a' - za')(b' - zb'), ") + (a_signed ? "int8" : "uint8") + " x " +
                 (b_signed ? "int8" : "uint8"),
             s, z3::unsat);
}

// The correction over K terms as the kernel computes it, modulo 2^32.
bool correction(bool a_signed, bool b_signed, int k, bool drop_last_term) {
  z3::context c;
  z3::solver s(c);
  const z3::expr za = c.bv_const("za", 8), zb = c.bv_const("zb", 8);
  z3::expr direct = c.bv_val(0, 32), sum_s = c.bv_val(0, 32), row = c.bv_val(0, 32), col = c.bv_val(0, 32);
  for (int i = 0; i < k; ++i) {
    const z3::expr a = c.bv_const(("a" + std::to_string(i)).c_str(), 8);
    const z3::expr b = c.bv_const(("b" + std::to_string(i)).c_str(), 8);
    direct = direct + (value(a, a_signed) - value(za, a_signed)) * (value(b, b_signed) - value(zb, b_signed));
    sum_s = sum_s + shifted(a, a_signed) * shifted(b, b_signed);
    row = row + shifted(a, a_signed);
    col = col + shifted(b, b_signed);
  }
  const z3::expr zas = shifted(za, a_signed), zbs = shifted(zb, b_signed);
  z3::expr kernel = sum_s - zas * col - zbs * row;
  if (!drop_last_term) kernel = kernel + c.bv_val(k, 32) * zas * zbs;
  s.add(direct != kernel);
  return run(std::string(drop_last_term ? "WRONG: correction without K za' zb', " : "correction == sum (a-za)(b-zb) mod 2^32, ") +
                 (a_signed ? "int8" : "uint8") + " x " + (b_signed ? "int8" : "uint8") + ", K = " + std::to_string(k),
             s, drop_last_term ? z3::sat : z3::unsat);
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  bool ok = true;
  ok = vpmaddwd_exact(true, z3::unsat) && ok;
  ok = vpmaddwd_exact(false, z3::sat) && ok;
  ok = madd_bound() && ok;
  ok = maddubsw_saturates() && ok;
  ok = accumulation_bound(131071, z3::unsat) && ok;
  ok = accumulation_bound(131072, z3::sat) && ok;
  for (bool as : {false, true}) {
    for (bool bs : {false, true}) {
      ok = shifted_term(as, bs) && ok;
      ok = correction(as, bs, 4, false) && ok;
    }
  }
  ok = correction(false, true, 4, true) && ok;
  std::printf("%s in %.2f s\n", ok ? "all queries as expected" : "FAILED",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return ok ? 0 : 1;
}
