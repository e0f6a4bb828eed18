// The quantization kernels (optimized/kernels/quantize/): every instruction-set path this build
// has on this machine (under qemu and node for the aarch64 and WebAssembly builds, tools/cross/)
// gives, byte for byte, what an independent oracle written here from spec/ops/quantization.md
// sections 1, 4 and 6 gives: y = saturate(round_half_even(x / scale) + zp) with the binary32
// division, the rounding done on 64-bit integers (floor, then the tie to the even integer), NaN to
// the smallest value; and min(0, min x), max(0, max x) with NaN skipped, never -0. Runs of every
// length 0..70 and longer, broadcast and per-lane scales, the four output types, special values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/quantize/quantize.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::opt::Isa;
namespace q = onemodel::opt::quantize;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> quantize_variant_paths() { return onemodel::opt::kernel_tests::variant_paths(q::variants()); }

float bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

struct Type {
  q::Out out;
  std::int64_t lo, hi;
  std::size_t bytes;
};
constexpr Type kTypes[] = {{q::Out::U8, 0, 255, 1}, {q::Out::I8, -128, 127, 1}, {q::Out::U16, 0, 65535, 2},
                           {q::Out::I16, -32768, 32767, 2}};

// Section 4 with section 1's rules, written without the kernels' or the reference's code.
std::int64_t oracle(float x, float scale, std::int64_t zp, const Type& t) {
  const float quotient = x / scale;
  if (std::isnan(quotient)) return t.lo;
  if (quotient >= 1.0e6f) return t.hi;  // past every range even after a zero point of 65535
  if (quotient <= -1.0e6f) return t.lo;
  const double v = quotient;  // |v| < 1e6: exact, and so are floor and the fraction below
  const auto f = static_cast<std::int64_t>(std::floor(v));
  const double frac = v - static_cast<double>(f);
  std::int64_t r = f;
  if (frac > 0.5 || (frac == 0.5 && f % 2 != 0)) r = f + 1;
  r += zp;
  return r < t.lo ? t.lo : (r > t.hi ? t.hi : r);
}

std::int64_t stored(const std::vector<std::uint8_t>& y, std::size_t i, const Type& t) {
  switch (t.out) {
    case q::Out::U8: return y[i];
    case q::Out::I8: return static_cast<std::int8_t>(y[i]);
    case q::Out::U16: {
      std::uint16_t v;
      std::memcpy(&v, &y[2 * i], 2);
      return v;
    }
    default: {
      std::int16_t v;
      std::memcpy(&v, &y[2 * i], 2);
      return v;
    }
  }
}

std::vector<float> values(std::size_t n, float scale, std::mt19937& rng) {
  const float sp[] = {bits(0x7FC00000u), bits(0x7FC00001u), bits(0xFFFFFFFFu), bits(0x7F800001u), bits(0x7F800000u),
                      bits(0xFF800000u), 0.0f,              -0.0f,             bits(0x00000001u), bits(0x807FFFFFu),
                      3.0e38f,           -3.0e38f,          1.0e7f,            -1.0e7f,           8388609.0f};
  std::uniform_real_distribution<float> d(-300.0f, 300.0f);
  std::vector<float> v(n);
  for (float& x : v) {
    const std::uint32_t pick = rng() % 8;
    if (pick == 0) {
      x = sp[rng() % (sizeof(sp) / sizeof(sp[0]))];
    } else if (pick == 1) {
      // An exact tie k + 1/2 of x / scale for a power-of-two scale, or a neighbour of one.
      const float t = (static_cast<float>(static_cast<int>(rng() % 601) - 300) + 0.5f) * scale;
      x = rng() % 2 ? t : std::nextafter(t, rng() % 2 ? 1.0e30f : -1.0e30f);
    } else {
      x = d(rng) * scale;
    }
  }
  return v;
}

std::string where(Isa isa, const Type& t, std::size_t n, std::size_t i, bool per_lane, float x, float s) {
  return std::string(onemodel::opt::isa_name(isa)) + " out " + std::to_string(static_cast<int>(t.out)) + " n " +
         std::to_string(n) + " element " + std::to_string(i) + (per_lane ? " per lane" : "") + " x bits " +
         std::to_string(bits_of(x)) + " scale bits " + std::to_string(bits_of(s));
}

TEST(QuantizeKernels, EveryPathGivesTheOracleBytes) {
  std::mt19937 rng(83);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 70; ++n) lengths.push_back(n);
  lengths.push_back(1000);
  lengths.push_back(4099);
  const float scales[] = {0.25f, 0.0173f, 1.0f / 1024.0f, 1.0e-40f, 3.0e38f, bits(0x7FC00003u), bits(0x7F800000u),
                          -0.0f, -0.5f};
  std::size_t checked = 0;
  for (Isa isa : quantize_variant_paths()) {
    for (const Type& t : kTypes) {
      for (std::size_t n : lengths) {
        for (const bool per_lane : {false, true}) {
          const float base = scales[rng() % (sizeof(scales) / sizeof(scales[0]))];
          const float gen = std::isfinite(base) && base != 0.0f ? std::fabs(base) : 0.25f;
          const std::vector<float> x = values(n, gen, rng);
          std::vector<float> scale(per_lane ? n + 1 : 1, base), zero(per_lane ? n + 1 : 1);
          for (std::size_t k = 0; k < scale.size(); ++k) {
            if (per_lane && rng() % 4 == 0) scale[k] = scales[rng() % (sizeof(scales) / sizeof(scales[0]))];
            const auto span = static_cast<std::uint32_t>(t.hi - t.lo + 1);
            zero[k] = static_cast<float>(t.lo + static_cast<std::int64_t>(rng() % span));
          }
          std::vector<std::uint8_t> y(n * t.bytes + 1, 0xA5);  // one guard byte past the run
          q::Run r;
          r.x = x.data();
          r.y = y.data();
          r.n = n;
          r.scale = scale.data();
          r.zero_point = zero.data();
          r.per_lane = per_lane;
          r.out = t.out;
          q::quantize_run(isa, r);
          ASSERT_EQ(y.back(), 0xA5) << "stored past the run on " << onemodel::opt::isa_name(isa);
          for (std::size_t i = 0; i < n; ++i) {
            const std::size_t k = per_lane ? i : 0;
            const std::int64_t want = oracle(x[i], scale[k], static_cast<std::int64_t>(zero[k]), t);
            ASSERT_EQ(stored(y, i, t), want) << where(isa, t, n, i, per_lane, x[i], scale[k]);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(QuantizeKernels, MinMaxSkipsNaNAndNeverGivesNegativeZero) {
  std::mt19937 rng(89);
  std::normal_distribution<float> normal(0.0f, 10.0f);
  for (Isa isa : quantize_variant_paths()) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17},
                          std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{200}, std::size_t{4099}}) {
      for (int variant = 0; variant < 7; ++variant) {
        std::vector<float> x(n);
        for (float& v : x) v = normal(rng) + (variant == 1 ? 40.0f : (variant == 2 ? -40.0f : 0.0f));
        if (variant == 3) {
          for (float& v : x) v = rng() % 2 ? -0.0f : bits(0x7FC00000u | (rng() % 1024));
        }
        if (variant == 4) {
          for (float& v : x) v = rng() % 3 == 0 ? bits(0xFFC00001u) : std::fabs(v);
          if (n > 0) x[n - 1] = -0.0f;
        }
        if (variant == 6) {
          // NaN among values of both signs: an accumulator a NaN reached would restart from the
          // next value and forget the extreme before it.
          for (float& v : x) {
            if (rng() % 4 == 0) v = bits(0x7FC00000u);
          }
        }
        if (variant == 5 && n > 2) {
          x[0] = bits(0x7F800001u);
          x[n / 2] = bits(0xFF800000u);
          x[n - 1] = bits(0x7F800000u);
        }
        // Oracle: section 6 step 1 over the non-NaN elements, 0 included, zero as +0.
        double lo = 0.0, hi = 0.0;
        for (float v : x) {
          if (std::isnan(v)) continue;
          lo = std::fmin(lo, static_cast<double>(v));
          hi = std::fmax(hi, static_cast<double>(v));
        }
        const float want_lo = lo == 0.0 ? 0.0f : static_cast<float>(lo);
        const float want_hi = hi == 0.0 ? 0.0f : static_cast<float>(hi);
        const q::MinMax m = q::min_max(isa, x.data(), n);
        const std::string label = std::string(onemodel::opt::isa_name(isa)) + " n " + std::to_string(n) + " variant " +
                                  std::to_string(variant);
        EXPECT_EQ(bits_of(m.lo), bits_of(want_lo)) << label;
        EXPECT_EQ(bits_of(m.hi), bits_of(want_hi)) << label;
      }
    }
  }
}

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(QuantizeRegistry, ListFormAndDispatch) {
  onemodel::opt::kernel_tests::expect_registry_form(q::variants(), "f32_quantize");
  EXPECT_FALSE(quantize_variant_paths().empty());
}

}  // namespace
