// Proof: the arithmetic of the integer product kernel (optimized/kernels/int8gemm/int8_gemm.hpp,
// spec-source int8.md "Product kernel"), over bit-vectors, every operand value at once:
//  1. vpmaddwd on the shifted operands: for int16 a0, a1, b0, b1 in [-128, 127], the instruction's
//     result (each 16x16 product exact in 32 bits, the two added modulo 2^32) equals the exact
//     integer a0*b0 + a1*b1, whose magnitude is at most 2^15; refuted (sat) for full int16 operands,
//     where (-32768)^2 * 2 wraps; and vpmaddubsw's int16 saturation is reached by uint8 x int8
//     pairs (why it is not used). The same lane exactness for pmaddwd (SSE4.1) and WebAssembly's
//     i32x4.dot_i16x8_s (the same lane definition), each refuted for full int16 operands.
//  1b. The accumulating instructions: vpdpwssd (AVX512_VNNI) is exact in the K bound and equals
//     vpmaddwd then vpaddd for every operand, its saturating twin vpdpwssds is not (refuted); two
//     NEON smlal steps equal one pair step; sdot's four products are exact in the bound and equal
//     two pair steps, a wrong regrouping of B's k is refuted, and each is refuted without the bound.
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
#include <initializer_list>
#include <string>
#include <vector>

namespace {

// "a3" for ("a", 3). Built with append(): GCC 12 warns falsely (-Wrestrict) about a literal +
// std::to_string at -O2.
std::string numbered(const char* prefix, int i) {
  std::string name(prefix);
  name.append(std::to_string(i));
  return name;
}

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

// A signed bit-vector sign-extended to 36 bits: wide enough for the exact value of any sum below
// (an int32 accumulator plus at most four 16-bit products needs 34), and far cheaper for the
// solver's multipliers than 64.
z3::expr w36(const z3::expr& x) { return z3::sext(x, 36 - x.get_sort().bv_size()); }

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
  const z3::expr exact = w36(a0) * w36(b0) + w36(a1) * w36(b1);  // no wrap in 36 bits
  s.add(w36(madd_lane(a0, a1, b0, b1)) != exact);
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

// Every operand in the shifted range [-128, 127].
void shifted_range(z3::solver& s, z3::context& c, std::initializer_list<z3::expr> xs) {
  for (const z3::expr& x : xs) {
    const unsigned bits = x.get_sort().bv_size();
    s.add(z3::sge(x, c.bv_val(-128, bits)) && z3::sle(x, c.bv_val(127, bits)));
  }
}

// An int32 accumulator that already holds at most `terms` products of shifted operands
// (|acc| <= terms * 128 * 128), as the kernel's accumulators do before a step: K <= kMaxK.
void accumulator_bound(z3::solver& s, z3::context& c, const z3::expr& acc, std::int64_t terms) {
  s.add(z3::sge(acc, c.bv_val(-terms * 128 * 128, 32)) && z3::sle(acc, c.bv_val(terms * 128 * 128, 32)));
}

// The lane definitions, each as its instruction set's manual states it:
//  - pmaddwd (SSE2), vpmaddwd (AVX2, AVX-512BW) and WebAssembly's i32x4.dot_i16x8_s: the two
//    16 x 16 products sign-extended to 32 bits and added modulo 2^32 (madd_lane above; the Wasm
//    core specification: iadd_32(imul(extend_s(a_2i), extend_s(b_2i)), imul(...)));
//  - vpdpwssd (AVX512_VNNI): acc + p0 + p1 modulo 2^32 (the non-saturating form);
//  - vpdpwssds: the same sum saturated to int32 (why the kernel does not use it);
//  - smlal / vmlal_s16 (NEON): acc + sext32(a) * sext32(b) modulo 2^32, one product per step;
//  - sdot / vdotq_s32 (Armv8.2 dot product): acc + four int8 x int8 products modulo 2^32.
z3::expr dpwssd_lane(const z3::expr& acc, const z3::expr& a0, const z3::expr& a1, const z3::expr& b0,
                     const z3::expr& b1) {
  return acc + z3::sext(a0, 16) * z3::sext(b0, 16) + z3::sext(a1, 16) * z3::sext(b1, 16);
}
z3::expr dpwssds_lane(z3::context& c, const z3::expr& acc, const z3::expr& a0, const z3::expr& a1, const z3::expr& b0,
                      const z3::expr& b1) {
  const z3::expr exact = wide(acc) + wide(a0) * wide(b0) + wide(a1) * wide(b1);
  const z3::expr hi = c.bv_val(std::int64_t{2147483647}, 64), lo = c.bv_val(std::int64_t{-2147483648}, 64);
  return z3::ite(z3::sgt(exact, hi), hi, z3::ite(z3::slt(exact, lo), lo, exact)).extract(31, 0);
}
z3::expr smlal_lane(const z3::expr& acc, const z3::expr& a, const z3::expr& b) {
  return acc + z3::sext(a, 16) * z3::sext(b, 16);
}
z3::expr sdot_lane(const z3::expr& acc, const std::vector<z3::expr>& a, const std::vector<z3::expr>& b) {
  z3::expr sum = acc;
  for (std::size_t j = 0; j < 4; ++j) sum = sum + z3::sext(a[j], 24) * z3::sext(b[j], 24);
  return sum;
}

// A 128-bit pair-multiply lane (pmaddwd, i32x4.dot_i16x8_s) is exact on shifted operands and
// wraps for full int16 ones (`shifted` false: the refuted query).
bool pair_lane_exact(const std::string& instruction, bool in_range, z3::check_result expected) {
  z3::context c;
  z3::solver s(c);
  const z3::expr a0 = c.bv_const("a0", 16), a1 = c.bv_const("a1", 16), b0 = c.bv_const("b0", 16),
                 b1 = c.bv_const("b1", 16);
  if (in_range) shifted_range(s, c, {a0, a1, b0, b1});
  s.add(w36(madd_lane(a0, a1, b0, b1)) != w36(a0) * w36(b0) + w36(a1) * w36(b1));
  return run((in_range ? "" : "WRONG: ") + instruction +
                 (in_range ? " lane == a0*b0 + a1*b1 exactly, operands in [-128, 127]" : " exact for every int16 operand"),
             s, expected);
}

// vpdpwssd: (1) the lane equals the exact acc + a0*b0 + a1*b1 for shifted operands and an
// accumulator within the K bound; WRONG without the bound (it wraps); (2) it is vpmaddwd then
// vpaddd bit for bit for every operand (the AVX-512 kernels agree); (3) WRONG: the saturating
// vpdpwssds is the same instruction (it is not where the sum leaves int32).
bool vpdpwssd_exact(bool bounded, z3::check_result expected) {
  z3::context c;
  z3::solver s(c);
  const z3::expr acc = c.bv_const("acc", 32), a0 = c.bv_const("a0", 16), a1 = c.bv_const("a1", 16),
                 b0 = c.bv_const("b0", 16), b1 = c.bv_const("b1", 16);
  shifted_range(s, c, {a0, a1, b0, b1});
  if (bounded) accumulator_bound(s, c, acc, 131071 - 2);
  s.add(w36(dpwssd_lane(acc, a0, a1, b0, b1)) != w36(acc) + w36(a0) * w36(b0) + w36(a1) * w36(b1));
  return run(bounded ? "vpdpwssd lane == acc + a0*b0 + a1*b1 exactly, |acc| <= (kMaxK - 2) * 2^14"
                     : "WRONG: vpdpwssd exact for any int32 accumulator",
             s, expected);
}

bool vpdpwssd_is_madd_add() {
  z3::context c;
  z3::solver s(c);
  const z3::expr acc = c.bv_const("acc", 32), a0 = c.bv_const("a0", 16), a1 = c.bv_const("a1", 16),
                 b0 = c.bv_const("b0", 16), b1 = c.bv_const("b1", 16);
  s.add(dpwssd_lane(acc, a0, a1, b0, b1) != acc + madd_lane(a0, a1, b0, b1));
  return run("vpdpwssd == vpaddd(acc, vpmaddwd(a, b)) for every operand", s, z3::unsat);
}

bool vpdpwssds_differs() {
  z3::context c;
  z3::solver s(c);
  const z3::expr acc = c.bv_const("acc", 32), a0 = c.bv_const("a0", 16), a1 = c.bv_const("a1", 16),
                 b0 = c.bv_const("b0", 16), b1 = c.bv_const("b1", 16);
  shifted_range(s, c, {a0, a1, b0, b1});
  s.add(dpwssds_lane(c, acc, a0, a1, b0, b1) != dpwssd_lane(acc, a0, a1, b0, b1));
  return run("WRONG: vpdpwssds (saturating) == vpdpwssd for every accumulator", s, z3::sat);
}

// smlal twice (the k0 then the k1 product of a pair) == acc + vpmaddwd's pair, bit for bit for
// every operand, and exact in the K bound; WRONG when the accumulator is unbounded.
bool smlal_pair(bool bounded, z3::check_result expected) {
  z3::context c;
  z3::solver s(c);
  const z3::expr acc = c.bv_const("acc", 32), a0 = c.bv_const("a0", 16), a1 = c.bv_const("a1", 16),
                 b0 = c.bv_const("b0", 16), b1 = c.bv_const("b1", 16);
  const z3::expr two = smlal_lane(smlal_lane(acc, a0, b0), a1, b1);
  if (bounded) {
    shifted_range(s, c, {a0, a1, b0, b1});
    accumulator_bound(s, c, acc, 131071 - 2);
    s.add(w36(two) != w36(acc) + w36(a0) * w36(b0) + w36(a1) * w36(b1) || two != acc + madd_lane(a0, a1, b0, b1));
  } else {
    shifted_range(s, c, {a0, a1, b0, b1});
    s.add(w36(two) != w36(acc) + w36(a0) * w36(b0) + w36(a1) * w36(b1));
  }
  return run(bounded ? "smlal(smlal(acc, a0, b0), a1, b1) == acc + a0*b0 + a1*b1 exactly and == acc + vpmaddwd"
                     : "WRONG: two smlal exact for any int32 accumulator",
             s, expected);
}

// sdot: the lane equals the exact acc + four products in the K bound, and equals two pair steps
// (pairs (k0, k1) and (k2, k3), as the kernel regroups B's pairs) for every operand; WRONG: the
// regrouping pairs k0 with k2 (a mistaken zip would), or the accumulator is unbounded.
bool sdot(int variant, z3::check_result expected) {
  z3::context c;
  z3::solver s(c);
  const z3::expr acc = c.bv_const("acc", 32);
  std::vector<z3::expr> a, b;
  for (int j = 0; j < 4; ++j) {
    a.push_back(c.bv_const(numbered("a", j).c_str(), 8));
    b.push_back(c.bv_const(numbered("b", j).c_str(), 8));
  }
  const z3::expr lane = sdot_lane(acc, a, b);
  const auto w16 = [](const z3::expr& x) { return z3::sext(x, 8); };
  std::string name;
  if (variant == 0) {
    accumulator_bound(s, c, acc, 131071 - 4);
    z3::expr exact = w36(acc);
    for (int j = 0; j < 4; ++j) exact = exact + w36(a[j]) * w36(b[j]);
    s.add(w36(lane) != exact);
    name = "sdot lane == acc + a0*b0 + ... + a3*b3 exactly, |acc| <= (kMaxK - 4) * 2^14";
  } else if (variant == 1) {
    s.add(lane != acc + madd_lane(w16(a[0]), w16(a[1]), w16(b[0]), w16(b[1])) +
                      madd_lane(w16(a[2]), w16(a[3]), w16(b[2]), w16(b[3])));
    name = "sdot == acc + vpmaddwd(pair k0 k1) + vpmaddwd(pair k2 k3), every int8 operand";
  } else if (variant == 2) {
    s.add(lane != acc + madd_lane(w16(a[0]), w16(a[1]), w16(b[0]), w16(b[2])) +
                      madd_lane(w16(a[2]), w16(a[3]), w16(b[1]), w16(b[3])));
    name = "WRONG: sdot with B's k1 and k2 swapped (a mistaken regrouping)";
  } else {
    z3::expr exact = w36(acc);
    for (int j = 0; j < 4; ++j) exact = exact + w36(a[j]) * w36(b[j]);
    s.add(w36(lane) != exact);
    name = "WRONG: sdot exact for any int32 accumulator";
  }
  return run(name, s, expected);
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
    const z3::expr a = c.bv_const(numbered("a", i).c_str(), 8);
    const z3::expr b = c.bv_const(numbered("b", i).c_str(), 8);
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
  for (const char* instruction : {"pmaddwd (SSE4.1 kernel)", "i32x4.dot_i16x8_s (WebAssembly kernel)"}) {
    ok = pair_lane_exact(instruction, true, z3::unsat) && ok;
    ok = pair_lane_exact(instruction, false, z3::sat) && ok;
  }
  ok = vpdpwssd_exact(true, z3::unsat) && ok;
  ok = vpdpwssd_exact(false, z3::sat) && ok;
  ok = vpdpwssd_is_madd_add() && ok;
  ok = vpdpwssds_differs() && ok;
  ok = smlal_pair(true, z3::unsat) && ok;
  ok = smlal_pair(false, z3::sat) && ok;
  ok = sdot(0, z3::unsat) && ok;
  ok = sdot(1, z3::unsat) && ok;
  ok = sdot(2, z3::sat) && ok;
  ok = sdot(3, z3::sat) && ok;
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
