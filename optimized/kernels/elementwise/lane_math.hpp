// The exact float32 functions of the element-wise kernels, written once over a "lanes" type L so
// that every instruction-set path runs the same operation sequence on each lane
// (spec/exact-transcendentals.md section 1 rule 5; spec-source exact-transcendentals.md "Rules":
// "the same operation sequence runs for scalar, 128-, 256- and 512-bit lanes").
//
// The sequences are those of reference/math/exact_*.cpp, step for step: one rounding per
// operation, no fused multiply-add (only L::add/sub/mul/div/sqrt, which are single IEEE
// operations on every path), special values selected by comparisons at the end. Where the
// scalar reference takes one branch, the lanes compute both and select, which cannot change the
// selected lane's bits.
//
// L provides: types F (float lanes), M (comparison mask), I (32-bit integer lanes);
// splat, splat_i, add, sub, mul, div, sqrt, lt, gt, ge, eq, is_nan, all(mask), select(mask,
// if_true, if_false), bits, from_bits, add_i, sub_i, and_i, or_i, xor_i, srai<N> (arithmetic),
// slli<N>, load, store and the lane count kWidth.
//
// Each instruction-set file instantiates these templates with its own lanes type (distinct
// names per path), so no instantiation compiled with one path's flags can be picked by the
// linker for another path.
#pragma once

#include <cstdint>

namespace onemodel::opt::ew {

// spec/exact-transcendentals.md section 1: round-to-nearest-integer magic M = 1.5 * 2^23.
inline constexpr float kMagic = 12582912.0f;
inline constexpr std::uint32_t kMagicBits = 0x4B400000u;
inline constexpr std::uint32_t kCanonicalNan = 0x7FC00000u;  // exact-mode.md rule 4
inline constexpr std::uint32_t kSignBit = 0x80000000u;
inline constexpr std::uint32_t kPositiveInfinity = 0x7F800000u;
inline constexpr std::uint32_t kNegativeInfinity = 0xFF800000u;

template <class L>
typename L::F splat_bits(std::uint32_t u) noexcept {
  return L::from_bits(L::splat_i(u));
}

// exact-mode.md rule 4: every stored NaN is 0x7FC00000.
template <class L>
typename L::F canonical(typename L::F v) noexcept {
  return L::select(L::is_nan(v), splat_bits<L>(kCanonicalNan), v);
}

template <class L>
typename L::F abs_bits(typename L::F x) noexcept {
  return L::from_bits(L::and_i(L::bits(x), L::splat_i(~kSignBit)));
}

template <class L>
typename L::F neg_bits(typename L::F x) noexcept {
  return L::from_bits(L::xor_i(L::bits(x), L::splat_i(kSignBit)));
}

// The sign bit of `source` OR-ed onto `magnitude`.
template <class L>
typename L::F or_sign(typename L::F magnitude, typename L::F source) noexcept {
  return L::from_bits(L::or_i(L::bits(magnitude), L::and_i(L::bits(source), L::splat_i(kSignBit))));
}

// 2^k built in the exponent field: bits((k + 127) << 23) (spec/exact-transcendentals.md section 2).
template <class L>
typename L::F power_of_two(typename L::I k) noexcept {
  return L::from_bits(L::template slli<23>(L::add_i(k, L::splat_i(127u))));
}

// spec/exact-transcendentals.md section 2, exp(x), steps 1 to 4 and, of step 5, the flush to +0
// below -103.97: the whole function for an x that is neither NaN nor above 88.72 (the sigmoid's
// -|x|, whose NaN the sigmoid replaces itself), two selections fewer.
template <class L>
typename L::F exp_below_overflow(typename L::F x) noexcept {
  using F = typename L::F;
  using I = typename L::I;
  // Step 1: n = round(x * log2 e) by the magic constant; n_int read back from the bit pattern.
  const F magic = L::splat(kMagic);
  const F t = L::add(L::mul(x, L::splat(1.44269502f)), magic);
  const F n = L::sub(t, magic);
  const I n_int = L::sub_i(L::bits(t), L::splat_i(kMagicBits));
  // Step 2: Cody-Waite reduction.
  const F r = L::sub(L::sub(x, L::mul(n, L::splat(0.693145751953125f))), L::mul(n, L::splat(1.4286068e-6f)));
  // Step 3: q by Horner from the highest coefficient; p = 1 + (r + r^2 q).
  F q = L::add(L::mul(L::splat(0.0013814613f), r), L::splat(0.00836871f));
  q = L::add(L::mul(q, r), L::splat(0.04166839f));
  q = L::add(L::mul(q, r), L::splat(0.16666521f));
  q = L::add(L::mul(q, r), L::splat(0.49999994f));
  const F p = L::add(L::splat(1.0f), L::add(r, L::mul(L::mul(r, r), q)));
  // Step 4: two power-of-two scalings, a = n >> 1 (arithmetic), b = n - a. Where the path has a
  // one-step scaling (AVX-512 scalef: p 2^n rounded once) it gives the same bits: every result
  // step 5 keeps has n in [-150, 128], so a and b lie in [-75, 64], p 2^a (p in [0.7, 1.5]) is a
  // normal number and exact, and the second product is the one rounding of p 2^n, scalef's value
  // (an overflow to infinity included). Checked on every float by tools/exhaustive/exp_scalef.cpp.
  F result;
  if constexpr (requires { L::scalef(p, n); }) {
    (void)n_int;
    result = L::scalef(p, n);
  } else {
    const I a = L::template srai<1>(n_int);
    const I b = L::sub_i(n_int, a);
    result = L::mul(L::mul(p, power_of_two<L>(a)), power_of_two<L>(b));
  }
  // Step 5 (its other two selections are exp's below; the three conditions are disjoint but for
  // NaN, whose selection comes last either way).
  return L::select(L::lt(x, L::splat(-103.97207641601562f)), L::splat(0.0f), result);
}

// spec/exact-transcendentals.md section 2, exp(x), steps 1 to 5.
template <class L>
typename L::F exp(typename L::F x) noexcept {
  const typename L::F result = L::select(L::gt(x, L::splat(88.72283172607422f)), splat_bits<L>(kPositiveInfinity),
                                         exp_below_overflow<L>(x));
  return L::select(L::is_nan(x), splat_bits<L>(kCanonicalNan), result);
}

// spec/exact-transcendentals.md section 3, log(x).
template <class L>
typename L::F log(typename L::F x) noexcept {
  using F = typename L::F;
  using I = typename L::I;
  // Step 1: subnormals and zero scaled by 2^24 (exponent corrected by -24 below).
  const auto subnormal = L::lt(x, L::splat(1.17549435e-38f));
  const F xs = L::select(subnormal, L::mul(x, L::splat(16777216.0f)), x);
  // Step 2: exponent e and mantissa m in [sqrt(1/2), sqrt(2)).
  const I ix = L::sub_i(L::bits(xs), L::splat_i(0x3F3504F3u));
  const I e = L::template srai<23>(ix);
  const F m = L::from_bits(L::add_i(L::and_i(ix, L::splat_i(0x007FFFFFu)), L::splat_i(0x3F3504F3u)));
  const F e_float = L::sub(L::from_bits(L::add_i(e, L::splat_i(kMagicBits))), L::splat(kMagic));
  const F ef = L::select(subnormal, L::sub(e_float, L::splat(24.0f)), e_float);
  // Step 3: log m = 2 atanh(s), s = f / (2 + f).
  const F f = L::sub(m, L::splat(1.0f));
  const F s = L::div(f, L::add(L::splat(2.0f), f));
  const F z = L::mul(s, s);
  F w = L::add(L::mul(L::splat(0.0909090936f), z), L::splat(0.111111112f));
  w = L::add(L::mul(w, z), L::splat(0.142857149f));
  w = L::add(L::mul(w, z), L::splat(0.200000003f));
  w = L::add(L::mul(w, z), L::splat(0.333333343f));
  const F s2 = L::add(s, s);
  const F logm = L::add(s2, L::mul(s2, L::mul(z, w)));
  // Step 4.
  F result = L::add(L::mul(ef, L::splat(0.693145751953125f)), L::add(logm, L::mul(ef, L::splat(1.4286068e-6f))));
  // Step 5, in this order.
  result = L::select(L::gt(x, L::splat(3.40282347e+38f)), splat_bits<L>(kPositiveInfinity), result);
  result = L::select(L::lt(x, L::splat(0.0f)), splat_bits<L>(kCanonicalNan), result);
  result = L::select(L::eq(x, L::splat(0.0f)), splat_bits<L>(kNegativeInfinity), result);
  return L::select(L::is_nan(x), splat_bits<L>(kCanonicalNan), result);
}

// spec/exact-transcendentals.md section 4, sigmoid(x).
template <class L>
typename L::F sigmoid(typename L::F x) noexcept {
  using F = typename L::F;
  // -|x| <= 0, or NaN (replaced below): exp without its overflow and NaN selections.
  const F s = exp_below_overflow<L>(L::sub(L::splat(0.0f), abs_bits<L>(x)));
  const F num = L::select(L::ge(x, L::splat(0.0f)), L::splat(1.0f), s);
  const F result = L::div(num, L::add(L::splat(1.0f), s));
  return L::select(L::is_nan(x), splat_bits<L>(kCanonicalNan), result);
}

// Fast mode only (spec-source ops-elementwise.md "Function definitions": fast mode runs the fast
// lane operations, "they agree to a few ulp"; docs/design.md "Fast-mode sigmoid"). Not exact:
// fused multiply-add where the path has it, so bits differ between paths (still one result per
// element whatever its position, chunk or thread count).
template <class L>
typename L::F fused_multiply_add(typename L::F a, typename L::F b, typename L::F c) noexcept {
  if constexpr (requires { L::fmadd(a, b, c); }) {
    return L::fmadd(a, b, c);
  } else {
    return L::add(L::mul(a, b), c);
  }
}

// 1 / d for d in [1, 2]: the 14-bit estimate and one Newton step (relative error about 2^-28
// before the final rounding) where the path has it, else the IEEE division.
template <class L>
typename L::F fast_reciprocal(typename L::F d) noexcept {
  if constexpr (requires { L::rcp14(d); }) {
    const typename L::F r0 = L::rcp14(d);
    // 1 - d r0 in one rounding (the negated product's fused step where the path names it).
    typename L::F e;
    if constexpr (requires { L::fnmadd(d, r0, d); }) {
      e = L::fnmadd(d, r0, L::splat(1.0f));
    } else {
      e = fused_multiply_add<L>(neg_bits<L>(d), r0, L::splat(1.0f));
    }
    return fused_multiply_add<L>(r0, e, r0);
  } else {
    return L::div(L::splat(1.0f), d);
  }
}

// e^z for z <= 0: the source's fast exponential (spec/exact-transcendentals.md "Fast
// exponential": fused reduction and Horner steps) with the exact sequence's degree-5
// coefficients and its two scalings (section 2) in place of the degree-3 fit and the one scaling,
// so that e^z for z in [-104, -87] is the subnormal it is, not +0. Shared by the fast sigmoid and
// the fast erf below. A NaN z gives an unspecified value: both callers select their own NaN.
// z is raised to kFastExpLow first (one maximum where the path has one, else a comparison and a
// selection) instead of flushing the results below the exact sequence's bound -103.97 to +0 with
// a second selection: from kFastExpLow down, p 2^n is below a quarter of the least subnormal and
// rounds to +0, and between the two bounds e^z is below half of it, so the scaling's one rounding
// gives +0 there too (the flush's value) unless the polynomial's last-bit error crosses the
// halfway point, a one-subnormal-ulp difference fast mode allows.
inline constexpr float kFastExpLow = -104.5f;

template <class L>
typename L::F fast_exp_nonpositive(typename L::F z) noexcept {
  using F = typename L::F;
  const F low = L::splat(kFastExpLow);
  F zc;
  if constexpr (requires { L::max(z, low); }) {
    zc = L::max(z, low);
  } else {
    zc = L::select(L::lt(z, low), low, z);
  }
  const F magic = L::splat(kMagic);
  const F t = fused_multiply_add<L>(zc, L::splat(1.44269502f), magic);
  const F n = L::sub(t, magic);
  F r = fused_multiply_add<L>(n, L::splat(-0.693145751953125f), zc);
  r = fused_multiply_add<L>(n, L::splat(-1.4286068e-6f), r);
  F q = fused_multiply_add<L>(L::splat(0.0013814613f), r, L::splat(0.00836871f));
  q = fused_multiply_add<L>(q, r, L::splat(0.04166839f));
  q = fused_multiply_add<L>(q, r, L::splat(0.16666521f));
  q = fused_multiply_add<L>(q, r, L::splat(0.49999994f));
  const F p = L::add(L::splat(1.0f), fused_multiply_add<L>(L::mul(r, r), q, r));
  // s = p 2^n, n in [-151, 0]: one scalef (one rounding, gradual underflow) where the path has
  // it, else two normal scalings 2^a 2^b, a = n >> 1, b = n - a (section 2 step 4).
  if constexpr (requires { L::scalef(p, n); }) {
    return L::scalef(p, n);
  } else {
    using I = typename L::I;
    const I n_int = L::sub_i(L::bits(t), L::splat_i(kMagicBits));
    const I a = L::template srai<1>(n_int);
    return L::mul(L::mul(p, power_of_two<L>(a)), power_of_two<L>(L::sub_i(n_int, a)));
  }
}

// sigmoid(x) from the exponential above at -|x| <= 0 (so it never overflows): s = e^-|x|, sigmoid
// = (x >= 0 ? 1 : s) / (1 + s) with the reciprocal above. Two more fused steps than the source's
// degree-3 fit take the sigmoid's worst error from 3.9 to 2.7 ulp.
// About half the exact sequence's operations and no division on AVX-512. The bound is pinned by
// tests/kernels/elementwise_fast_sigmoid_test.cpp. A NaN x gives an unspecified value here:
// fast_sigmoid selects the canonical NaN; fast SiLU's product with x is NaN then, made canonical
// once after the product (one selection fewer, the same bits as the Mul of fast_sigmoid's value).
template <class L>
typename L::F fast_sigmoid_of_number(typename L::F x) noexcept {
  using F = typename L::F;
  // -|x| by setting the sign bit.
  const F s = fast_exp_nonpositive<L>(L::from_bits(L::or_i(L::bits(x), L::splat_i(kSignBit))));
  const F inverse = fast_reciprocal<L>(L::add(L::splat(1.0f), s));
  const auto positive = L::ge(x, L::splat(0.0f));
  // s * inverse where x < 0 (or is NaN), inverse elsewhere: one masked product where the path has it.
  if constexpr (requires { L::mul_unless(positive, inverse, s, inverse); }) {
    return L::mul_unless(positive, inverse, s, inverse);
  } else {
    return L::select(positive, inverse, L::mul(s, inverse));
  }
}

// NaN gives the canonical NaN.
template <class L>
typename L::F fast_sigmoid(typename L::F x) noexcept {
  return L::select(L::is_nan(x), splat_bits<L>(kCanonicalNan), fast_sigmoid_of_number<L>(x));
}

// x * sigmoid(x) in fast mode: the Mul's one rounded product of x and fast_sigmoid's value, NaN
// canonical (for a NaN x the product is NaN whatever the sigmoid's value was).
template <class L>
typename L::F fast_silu(typename L::F x) noexcept {
  return canonical<L>(L::mul(x, fast_sigmoid_of_number<L>(x)));
}

// x * sigmoid(x) in exact mode: Sigmoid's value as its kernel stores it (canonical NaN), then the
// Mul's one rounded product, canonical NaN (the `self-gate` pass's fusion keeps the two nodes' bits).
template <class L>
typename L::F silu(typename L::F x) noexcept {
  return canonical<L>(L::mul(x, sigmoid<L>(x)));
}

// HardSwish(x) = x * clamp(x * 0.16666667 + 0.5, 0, 1): the product and the sum rounded apart, the
// clamp by two selections, one rounded product, canonical NaN (spec/ops/elementwise.md).
template <class L>
typename L::F hard_swish(typename L::F x) noexcept {
  using F = typename L::F;
  const F zero = L::splat(0.0f);
  const F one = L::splat(1.0f);
  F gate = L::add(L::mul(x, L::splat(0.16666667f)), L::splat(0.5f));
  gate = L::select(L::lt(gate, zero), zero, gate);
  gate = L::select(L::gt(gate, one), one, gate);
  return canonical<L>(L::mul(x, gate));
}

// spec/exact-transcendentals.md section 5, tanh(x). When every lane is below 0.6 the exp branch
// is skipped: it would be discarded by the selection, so the bits are the same either way.
template <class L>
typename L::F tanh(typename L::F x) noexcept {
  using F = typename L::F;
  const F ax = abs_bits<L>(x);
  const F z = L::mul(ax, ax);
  F p = L::add(L::mul(L::splat(-0.0058951583f), z), L::splat(0.020795971f));
  p = L::sub(L::mul(p, z), L::splat(0.05378383f));
  p = L::add(L::mul(p, z), L::splat(0.13331924f));
  p = L::sub(L::mul(p, z), L::splat(0.333333f));
  const F small = L::add(ax, L::mul(ax, L::mul(z, p)));
  const auto is_small = L::lt(ax, L::splat(0.6f));
  F magnitude = small;
  if (!L::all(is_small)) {
    const F e = exp<L>(L::add(ax, ax));
    const F large = L::sub(L::splat(1.0f), L::div(L::splat(2.0f), L::add(e, L::splat(1.0f))));
    magnitude = L::select(is_small, small, large);
  }
  const F result = or_sign<L>(magnitude, x);
  return L::select(L::is_nan(x), splat_bits<L>(kCanonicalNan), result);
}

// spec/exact-transcendentals.md section 6: erf(|x|) and 1 + erf(x), both branches selected, and
// the branches' values. Both selections sit inside the large branch (the all-small return gives
// the small branch's values): after the join with that return GCC spilled the four vectors of
// map_unary_paired (4 vectors a step, Zen 3, us per 16384 floats: erf 49.5 -> 35, GELU 46 -> 38.5,
// the GELU chain 47 -> 37.5). Whichever value a caller does not read is dropped by the compiler.
template <class L>
struct ErfParts {
  typename L::M small;     // ax < 0.5
  typename L::F erf_small; // erf(ax) = ax P(z), meaningful where small
  typename L::F erfc_abs;  // erfc(ax), meaningful where !small
  typename L::F erf_abs;   // erf(ax), both branches selected
  typename L::F one_plus_erf;  // 1 + erf(x), both branches selected
};

// For a NaN x the parts are NaN (every NaN operand gives a NaN); the callers select their
// canonical NaN or, for erf_gate_chain, let the NaN reach its final canonical step.
template <class L>
ErfParts<L> erf_parts(typename L::F x) noexcept {
  using F = typename L::F;
  const F ax = abs_bits<L>(x);
  const F z = L::mul(ax, ax);
  const auto small = L::lt(ax, L::splat(0.5f));
  // ax < 0.5: ax * P(z).
  F p = L::add(L::mul(L::splat(-0.0007692853f), z), L::splat(0.0052003083f));
  p = L::sub(L::mul(p, z), L::splat(0.02686312f));
  p = L::add(L::mul(p, z), L::splat(0.11283774f));
  p = L::sub(L::mul(p, z), L::splat(0.37612638f));
  p = L::add(L::mul(p, z), L::splat(1.1283792f));
  const F erf_small = L::mul(ax, p);
  if (L::all(small)) {
    return {small, erf_small, L::splat(0.0f), erf_small, L::add(L::splat(1.0f), or_sign<L>(erf_small, x))};
  }
  // ax >= 0.5: erfc(ax) = e^{-(z + zLo)} t G(t - 1).
  const F t = L::div(L::splat(1.0f), ax);
  const F s = L::sub(t, L::splat(1.0f));
  F g = L::add(L::mul(L::splat(-0.00057763467f), s), L::splat(0.0017893383f));
  g = L::sub(L::mul(g, s), L::splat(0.00010074016f));
  g = L::sub(L::mul(g, s), L::splat(0.004373198f));
  g = L::add(L::mul(g, s), L::splat(0.0034639547f));
  g = L::add(L::mul(g, s), L::splat(0.0015023724f));
  g = L::sub(L::mul(g, s), L::splat(0.0009413088f));
  g = L::sub(L::mul(g, s), L::splat(0.0018891813f));
  g = L::sub(L::mul(g, s), L::splat(0.0002586738f));
  g = L::add(L::mul(g, s), L::splat(0.0052144383f));
  g = L::sub(L::mul(g, s), L::splat(0.0103428485f));
  g = L::add(L::mul(g, s), L::splat(0.015788378f));
  g = L::sub(L::mul(g, s), L::splat(0.018338649f));
  g = L::add(L::mul(g, s), L::splat(0.008167262f));
  g = L::add(L::mul(g, s), L::splat(0.035529688f));
  g = L::sub(L::mul(g, s), L::splat(0.1543716f));
  g = L::add(L::mul(g, s), L::splat(0.42758358f));
  // Veltkamp split of ax and Dekker's product: ax^2 = z + zLo exactly; zLo = 0 for ax >= 64.
  const F split = L::mul(ax, L::splat(4097.0f));
  const F hi = L::sub(split, L::sub(split, ax));
  const F lo = L::sub(ax, hi);
  F z_lo = L::add(L::add(L::sub(L::mul(hi, hi), z), L::mul(L::splat(2.0f), L::mul(hi, lo))), L::mul(lo, lo));
  z_lo = L::select(L::ge(ax, L::splat(64.0f)), L::splat(0.0f), z_lo);
  // exp(0 - z) for z >= 0 (or NaN, see above): 0 - z <= 0 never takes exp's overflow selection,
  // and its NaN selection is the callers', so exp_below_overflow gives exp's bits here.
  const F exp_neg_z = L::mul(exp_below_overflow<L>(L::sub(L::splat(0.0f), z)), L::sub(L::splat(1.0f), z_lo));
  const F erfc = L::mul(exp_neg_z, L::mul(t, g));
  const F one_plus_small = L::add(L::splat(1.0f), or_sign<L>(erf_small, x));
  const F one_plus_large = L::select(L::lt(x, L::splat(0.0f)), erfc, L::sub(L::splat(2.0f), erfc));
  return {small, erf_small, erfc, L::select(small, erf_small, L::sub(L::splat(1.0f), erfc)),
          L::select(small, one_plus_small, one_plus_large)};
}

// erf(x) with the sign OR-ed on; a NaN x gives a NaN of unspecified payload.
template <class L>
typename L::F erf_of_number(typename L::F x) noexcept {
  return or_sign<L>(erf_parts<L>(x).erf_abs, x);
}

template <class L>
typename L::F erf(typename L::F x) noexcept {
  return L::select(L::is_nan(x), splat_bits<L>(kCanonicalNan), erf_of_number<L>(x));
}

// 1 + erf(x): 1 + (erf OR sign) for ax < 0.5; erfc(|x|) for x < 0, else 2 - erfc(|x|).
template <class L>
typename L::F one_plus_erf(typename L::F x) noexcept {
  return L::select(L::is_nan(x), splat_bits<L>(kCanonicalNan), erf_parts<L>(x).one_plus_erf);
}

// The erf form of GELU as five separate operators, the opset-17 export's chain (torch: Div(x, d),
// Erf, Add(., c), Mul(x, .), Mul(., f); the `elementwise-chain` pass's program, recognised by
// ElementwiseProgramOp): every operator's one rounding in the graph's order, so the bits of the
// five kernels, unlike gelu_erf (x * 0.70710677, erfc for negative arguments), whose values differ.
// Only the last canonical NaN step is kept: a NaN never depends on its operands' payloads (every
// IEEE operation with a NaN operand gives a NaN, and erf's only bit operations keep a NaN a NaN),
// so the intermediate canonicalisations change nothing the last one does not overwrite. Add and
// Mul are commutative but for NaN payloads, which that last step also overwrites.
template <class L>
typename L::F erf_gate_chain(typename L::F x, typename L::F divisor, typename L::F addend,
                             typename L::F factor) noexcept {
  const typename L::F gate = L::add(erf_of_number<L>(L::div(x, divisor)), addend);
  return canonical<L>(L::mul(L::mul(x, gate), factor));
}

// spec/exact-transcendentals.md section 7: gelu(-inf) = -0, NaN canonical, last.
template <class L>
typename L::F gelu_special(typename L::F x, typename L::F value) noexcept {
  value = L::select(L::eq(x, splat_bits<L>(kNegativeInfinity)), splat_bits<L>(kSignBit), value);
  return L::select(L::is_nan(x), splat_bits<L>(kCanonicalNan), value);
}

template <class L>
typename L::F gelu_erf(typename L::F x) noexcept {
  const typename L::F y = L::mul(x, L::splat(0.70710677f));
  return gelu_special<L>(x, L::mul(L::mul(L::splat(0.5f), x), one_plus_erf<L>(y)));
}

template <class L>
typename L::F gelu_tanh(typename L::F x) noexcept {
  using F = typename L::F;
  const F cube = L::mul(L::mul(x, x), x);
  const F u = L::mul(L::splat(0.79788456f), L::add(x, L::mul(L::splat(0.044715f), cube)));
  return gelu_special<L>(x, L::mul(x, sigmoid<L>(L::add(u, u))));
}

// Fast mode's 1 + erf(x) (spec-source exact-transcendentals.md "Measured error": fast is "the
// same code with fused accumulation" and the fast exponential): one_plus_erf's polynomials and
// branches with fused Horner steps, 1/ax by fast_reciprocal, e^-z by fast_exp_nonpositive, and
// ax^2 = z + zLo with zLo from one fused multiply-add where the path has one (the Veltkamp split
// and Dekker product otherwise). ax is clamped to 12 in the erfc branch (erfc underflows to +0
// from about 10.05 either way), so that rcp14 and its Newton step never see an infinity. About
// half the exact sequence's operations, no division on AVX-512. Bounds pinned by
// tests/kernels/elementwise_fast_gelu_test.cpp.
template <class L>
typename L::F fast_one_plus_erf(typename L::F x) noexcept {
  using F = typename L::F;
  const F ax = abs_bits<L>(x);
  const auto small = L::lt(ax, L::splat(0.5f));
  const F z_small = L::mul(ax, ax);
  F p = fused_multiply_add<L>(L::splat(-0.0007692853f), z_small, L::splat(0.0052003083f));
  p = fused_multiply_add<L>(p, z_small, L::splat(-0.02686312f));
  p = fused_multiply_add<L>(p, z_small, L::splat(0.11283774f));
  p = fused_multiply_add<L>(p, z_small, L::splat(-0.37612638f));
  p = fused_multiply_add<L>(p, z_small, L::splat(1.1283792f));
  const F small_value = L::add(L::splat(1.0f), or_sign<L>(L::mul(ax, p), x));
  if (L::all(small)) return L::select(L::is_nan(x), splat_bits<L>(kCanonicalNan), small_value);
  // ax >= 0.5: erfc(ax) = e^{-(z + zLo)} t G(t - 1), t = 1 / ax.
  const F a = L::select(L::gt(ax, L::splat(12.0f)), L::splat(12.0f), ax);
  const F t = fast_reciprocal<L>(a);
  const F s = L::sub(t, L::splat(1.0f));
  F g = fused_multiply_add<L>(L::splat(-0.00057763467f), s, L::splat(0.0017893383f));
  g = fused_multiply_add<L>(g, s, L::splat(-0.00010074016f));
  g = fused_multiply_add<L>(g, s, L::splat(-0.004373198f));
  g = fused_multiply_add<L>(g, s, L::splat(0.0034639547f));
  g = fused_multiply_add<L>(g, s, L::splat(0.0015023724f));
  g = fused_multiply_add<L>(g, s, L::splat(-0.0009413088f));
  g = fused_multiply_add<L>(g, s, L::splat(-0.0018891813f));
  g = fused_multiply_add<L>(g, s, L::splat(-0.0002586738f));
  g = fused_multiply_add<L>(g, s, L::splat(0.0052144383f));
  g = fused_multiply_add<L>(g, s, L::splat(-0.0103428485f));
  g = fused_multiply_add<L>(g, s, L::splat(0.015788378f));
  g = fused_multiply_add<L>(g, s, L::splat(-0.018338649f));
  g = fused_multiply_add<L>(g, s, L::splat(0.008167262f));
  g = fused_multiply_add<L>(g, s, L::splat(0.035529688f));
  g = fused_multiply_add<L>(g, s, L::splat(-0.1543716f));
  g = fused_multiply_add<L>(g, s, L::splat(0.42758358f));
  const F z = L::mul(a, a);
  F z_lo;
  if constexpr (requires { L::fmadd(a, a, z); }) {
    z_lo = L::fmadd(a, a, neg_bits<L>(z));  // a*a - z, exactly
  } else {
    const F split = L::mul(a, L::splat(4097.0f));
    const F hi = L::sub(split, L::sub(split, a));
    const F lo = L::sub(a, hi);
    z_lo = L::add(L::add(L::sub(L::mul(hi, hi), z), L::mul(L::splat(2.0f), L::mul(hi, lo))), L::mul(lo, lo));
  }
  const F e = fast_exp_nonpositive<L>(neg_bits<L>(z));
  // e^{-z} (1 - zLo) = e - e zLo.
  const F exp_neg = fused_multiply_add<L>(neg_bits<L>(e), z_lo, e);
  const F erfc = L::mul(exp_neg, L::mul(t, g));
  const F large = L::select(L::lt(x, L::splat(0.0f)), erfc, L::sub(L::splat(2.0f), erfc));
  const F result = L::select(small, small_value, large);
  return L::select(L::is_nan(x), splat_bits<L>(kCanonicalNan), result);
}

// Fast mode's GELU, erf form: gelu_erf with fast_one_plus_erf.
template <class L>
typename L::F fast_gelu_erf(typename L::F x) noexcept {
  const typename L::F y = L::mul(x, L::splat(0.70710677f));
  return gelu_special<L>(x, L::mul(L::mul(L::splat(0.5f), x), fast_one_plus_erf<L>(y)));
}

// Fast mode's GELU, tanh form: gelu_tanh with the fast sigmoid.
template <class L>
typename L::F fast_gelu_tanh(typename L::F x) noexcept {
  using F = typename L::F;
  const F cube = L::mul(L::mul(x, x), x);
  const F u = L::mul(L::splat(0.79788456f), L::add(x, L::mul(L::splat(0.044715f), cube)));
  return gelu_special<L>(x, L::mul(x, fast_sigmoid<L>(L::add(u, u))));
}

}  // namespace onemodel::opt::ew
