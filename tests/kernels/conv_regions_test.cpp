// The tap-region convolution (optimized/kernels/conv/conv2d_regions.hpp) against a naive loop
// written from exact-mode.md "Convolution" (padding taps real products with +0): exact mode bit
// for bit on every path this machine has at 1 and 2 threads, with NaN, infinities, signed zeros
// and subnormals in the input (the weights finite: the plan is made only then); fast mode within
// k*u*sum|w*x| + 1e-30 of double and the same bits at 1 and 2 threads. Dilations 1..6, strides
// 1..3, pads up to past the map, groups, odd channel counts; and the cases the plan must decline
// (an infinite or NaN weight, windows mostly inside the image).
#include <gtest/gtest.h>
// rapidcheck exists only natively: the aarch64 and wasm kernel tests (tools/cross/) build without it.
#if ONEMODEL_HAVE_RAPIDCHECK
#include <rapidcheck.h>
#endif

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv2d_regions.hpp"
#include "tests/kernels/conv_test_support.hpp"
#include "tests/kernels/two_threads.hpp"

namespace onemodel::opt {
namespace {

using conv_test::bits;
using conv_test::Data;

struct Case : conv_test::Window {
  std::size_t batch = 1, cin = 1, cout = 1, groups = 1;
  bool bias = false;
  Conv2dShape shape() const { return conv_shape(batch, cin, cout, groups); }
  // Built with append(): GCC 12 warns falsely on "literal" + std::string at -O2.
  std::string describe() const {
    std::string out;
    const std::pair<const char*, std::size_t> parts[] = {
        {"N", batch}, {" Cin", cin}, {" Cout", cout}, {" G", groups}, {" in_h", in_h}, {" in_w", in_w},
        {" kh", kh},  {" kw", kw},   {" sh", sh},     {" sw", sw},    {" dh", dh},     {" dw", dw},
        {" pt", pt},  {" pl", pl},   {" pb", pb},     {" pr", pr},    {" bias", bias ? 1u : 0u}};
    for (const auto& [name, v] : parts) {
      out.append(name);
      out.append(std::to_string(v));
    }
    return out;
  }
};

float canonical_nan() { return std::bit_cast<float>(std::uint32_t{0x7FC00000u}); }

// exact-mode.md "Convolution" literally, the bias one rounded addition afterwards; the double
// sum and sum |w*v| beside it for the fast bound.
void naive(const Case& g, const Data& d, std::vector<float>& exact, std::vector<double>& value,
           std::vector<double>& magnitude) {
  const Conv2dShape s = g.shape();
  const std::size_t cg = g.cin / g.groups, mg = g.cout / g.groups;
  for (std::size_t n = 0; n < g.batch; ++n) {
    for (std::size_t oc = 0; oc < g.cout; ++oc) {
      for (std::size_t y = 0; y < s.out_h; ++y) {
        for (std::size_t x = 0; x < s.out_w; ++x) {
          volatile float acc = 0.0f;
          double sum = 0.0, mag = 0.0;
          for (std::size_t c = 0; c < cg; ++c) {
            for (std::size_t ky = 0; ky < g.kh; ++ky) {
              for (std::size_t kx = 0; kx < g.kw; ++kx) {
                const long iy = static_cast<long>(y * g.sh + ky * g.dh) - static_cast<long>(g.pt);
                const long ix = static_cast<long>(x * g.sw + kx * g.dw) - static_cast<long>(g.pl);
                const bool inside =
                    iy >= 0 && iy < static_cast<long>(g.in_h) && ix >= 0 && ix < static_cast<long>(g.in_w);
                const std::size_t channel = (oc / mg) * cg + c;
                const float v = inside ? d.x[((n * g.cin + channel) * g.in_h + static_cast<std::size_t>(iy)) * g.in_w +
                                             static_cast<std::size_t>(ix)]
                                       : 0.0f;
                const float wv = d.w[((oc * cg + c) * g.kh + ky) * g.kw + kx];
                volatile float product = wv * v;
                acc = acc + product;
                sum += static_cast<double>(wv) * v;
                mag += std::fabs(static_cast<double>(wv) * v);
              }
            }
          }
          float out = acc;
          if (std::isnan(out)) out = canonical_nan();
          if (g.bias) {
            out = out + d.b[oc];
            if (std::isnan(out)) out = canonical_nan();
            sum += d.b[oc];
            mag += std::fabs(static_cast<double>(d.b[oc]));
          }
          exact.push_back(out);
          value.push_back(sum);
          magnitude.push_back(mag);
        }
      }
    }
  }
}

std::vector<float> run(const Case& g, const ConvRegionPlan& plan, const Data& d, Isa isa, bool exact,
                       ThreadPool* pool) {
  const Conv2dShape s = g.shape();
  std::vector<float> y(g.batch * g.cout * s.out_plane(), 777.0f);
  std::vector<float> work(plan.workspace_floats + 1, 555.0f);
  conv2d_f32_regions(KernelContext{isa, exact, pool}, s, plan, d.x.data(), g.bias ? d.b.data() : nullptr, y.data(),
                     work.data());
  return y;
}

// Random operands: the input with special values when `special`, the weights and bias finite.
Data operands(const Case& g, std::uint32_t seed, bool special) {
  const Data with = conv_test::random_data(g.batch * g.cin * g.in_h * g.in_w, 0, 0, seed, special, 6);
  Data d = conv_test::random_data(0, g.cout * (g.cin / g.groups) * g.kh * g.kw, g.cout, seed + 1, false, 6);
  d.x = with.x;
  return d;
}

// "" when every path at 1 and 2 threads gives the naive exact bits (and fast keeps its bound);
// "no plan" when the plan declines the case.
std::string check(const Case& g, std::uint32_t seed, bool special) {
  const Data d = operands(g, seed, special);
  std::vector<float> expected;
  std::vector<double> value, magnitude;
  naive(g, d, expected, value, magnitude);
  const double u = std::ldexp(1.0, -24);
  const double terms = static_cast<double>((g.cin / g.groups) * g.kh * g.kw + (g.bias ? 1 : 0));
  ThreadPool one(1), two(2, two_threads::kAlways);
  for (Isa isa : available_isas()) {
    // The packs are in one path's layout: planned per path, as a session plans for its path.
    const ConvRegionPlan plan = conv2d_plan_regions(isa, g.shape(), d.w.data());
    if (plan.empty()) return "no plan";
    for (ThreadPool* pool : {&one, &two}) {
      const std::string difference = conv_test::first_bit_difference(run(g, plan, d, isa, true, pool), expected);
      if (!difference.empty()) {
        return g.describe() + " exact isa " + std::string(isa_name(isa)) + " threads " +
               std::to_string(pool->threads()) + difference;
      }
    }
    if (special) continue;
    const std::vector<float> fast1 = run(g, plan, d, isa, false, &one);
    const std::vector<float> fast2 = run(g, plan, d, isa, false, &two);
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!(std::fabs(fast1[i] - value[i]) <= terms * u * magnitude[i] + 1e-30)) {
        return g.describe() + " fast isa " + std::string(isa_name(isa)) + " element " + std::to_string(i) +
               " out of bound";
      }
      if (bits(fast1[i]) != bits(fast2[i])) return g.describe() + " fast differs between 1 and 2 threads";
    }
  }
  return "";
}

// A dilated 3x3 with pads equal to the dilation on a square map (DeepLabV3's ASPP branches).
Case dilated(std::size_t size, std::size_t dilation, std::size_t cin, std::size_t cout) {
  Case g;
  static_cast<conv_test::Window&>(g) = conv_test::dilated_3x3(size, dilation);
  g.cin = cin;
  g.cout = cout;
  g.bias = true;
  return g;
}

TEST(ConvRegions, AsppShapesExactAndFast) {
  two_threads::RequireSharedCalls shared("ConvRegions.AsppShapesExactAndFast");
  std::uint32_t seed = 1;
  // Dilations 1..6 on a 4x4 map padded by dilation + 2: the windows reach the image through 0 to
  // 9 taps, the bands differ at each border.
  for (std::size_t dilation = 1; dilation <= 6; ++dilation) {
    Case g = dilated(4, dilation, 7, 13);
    g.pt = g.pl = g.pb = g.pr = dilation + 2;
    for (bool special : {false, true}) EXPECT_EQ(check(g, seed++, special), "") << "dilation " << dilation;
  }
  // The three ASPP shapes themselves, channels cut to 19 in and 17 out.
  for (std::size_t dilation : {12u, 24u, 36u}) EXPECT_EQ(check(dilated(14, dilation, 19, 17), seed++, true), "");
}

TEST(ConvRegions, StridesGroupsBatchesAndUnevenPads) {
  two_threads::RequireSharedCalls shared("ConvRegions.StridesGroupsBatchesAndUnevenPads");
  std::uint32_t seed = 100;
  Case g = dilated(4, 3, 9, 6);
  g.pt = g.pl = g.pb = g.pr = 6;
  g.groups = 3;
  g.batch = 2;
  for (bool special : {false, true}) EXPECT_EQ(check(g, seed++, special), "");
  Case strided = dilated(9, 4, 5, 3);
  strided.sh = 2;
  strided.sw = 3;
  strided.pt = 9;
  strided.pl = 8;
  strided.pb = 10;
  strided.pr = 11;
  strided.bias = false;
  for (bool special : {false, true}) EXPECT_EQ(check(strided, seed++, special), "");
  // A 5x3 kernel with dilation 1 on a 2x3 map padded by 4 and 2: mostly padding, no dilation.
  Case plain;
  plain.cin = 3;
  plain.cout = 5;
  plain.in_h = 2;
  plain.in_w = 3;
  plain.kh = 5;
  plain.kw = 3;
  plain.pt = plain.pb = 4;
  plain.pl = plain.pr = 2;
  for (bool special : {false, true}) EXPECT_EQ(check(plain, seed++, special), "");
  // Outputs whose every tap is padding (a border wider than the kernel reaches): +0 then bias.
  Case beyond = dilated(3, 2, 4, 5);
  beyond.pt = beyond.pl = 7;
  beyond.pb = beyond.pr = 6;
  for (bool special : {false, true}) EXPECT_EQ(check(beyond, seed++, special), "");
}

TEST(ConvRegions, PlanDeclinesNonFiniteWeightsAndMostlyInsideWindows) {
  const Case g = dilated(5, 4, 3, 2);
  Data d = operands(g, 7, false);
  EXPECT_FALSE(conv2d_plan_regions(Isa::Scalar, g.shape(), d.w.data()).empty());
  // An infinite or NaN weight times a padding +0 is NaN, which leaving the tap out would lose.
  for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    Data b = d;
    b.w[b.w.size() / 2] = bad;
    EXPECT_TRUE(conv2d_plan_regions(Isa::Scalar, g.shape(), b.w.data()).empty());
  }
  // A 3x3 with pad 1 on 16x16 reads padding at its border only: not worth the regions.
  const Case inside = dilated(16, 1, 3, 2);
  const Data di = operands(inside, 8, false);
  EXPECT_TRUE(conv2d_plan_regions(Isa::Scalar, inside.shape(), di.w.data()).empty());
  // Rate 24 on 14x14: every window reads the image through its centre tap only: one region, one
  // tap, as wide as the plane.
  const Case aspp = dilated(14, 24, 2, 2);
  const Data da = operands(aspp, 9, false);
  const ConvRegionPlan plan = conv2d_plan_regions(Isa::Scalar, aspp.shape(), da.w.data());
  ASSERT_EQ(plan.regions.size(), 1u);
  EXPECT_EQ(plan.regions[0].taps(), 1u);
  EXPECT_EQ(plan.regions[0].ky_first, 1u);
  EXPECT_EQ(plan.regions[0].kx_first, 1u);
  EXPECT_EQ(plan.workspace_floats, 0u);
}

#if ONEMODEL_HAVE_RAPIDCHECK
TEST(ConvRegions, GeneratedShapes) {
  two_threads::RequireSharedCalls shared("ConvRegions.GeneratedShapes");
  std::size_t planned = 0;
  const bool ok = rc::check("tap-region convolution equals the definition", [&] {
    Case g;
    g.groups = *rc::gen::inRange<std::size_t>(1, 3);
    g.cin = g.groups * *rc::gen::inRange<std::size_t>(1, 6);
    g.cout = g.groups * *rc::gen::inRange<std::size_t>(1, 6);
    g.batch = *rc::gen::inRange<std::size_t>(1, 3);
    g.in_h = *rc::gen::inRange<std::size_t>(1, 10);
    g.in_w = *rc::gen::inRange<std::size_t>(1, 10);
    g.kh = *rc::gen::inRange<std::size_t>(1, 5);
    g.kw = *rc::gen::inRange<std::size_t>(1, 5);
    g.sh = *rc::gen::inRange<std::size_t>(1, 4);
    g.sw = *rc::gen::inRange<std::size_t>(1, 4);
    g.dh = *rc::gen::inRange<std::size_t>(1, 7);
    g.dw = *rc::gen::inRange<std::size_t>(1, 7);
    g.pt = *rc::gen::inRange<std::size_t>(0, 13);
    g.pl = *rc::gen::inRange<std::size_t>(0, 13);
    g.pb = *rc::gen::inRange<std::size_t>(0, 13);
    g.pr = *rc::gen::inRange<std::size_t>(0, 13);
    g.bias = *rc::gen::arbitrary<bool>();
    RC_PRE(g.conv_valid());
    const std::string result = check(g, *rc::gen::arbitrary<std::uint32_t>(), *rc::gen::arbitrary<bool>());
    if (result == "no plan") return;
    ++planned;
    RC_ASSERT(result == "");
  });
  EXPECT_TRUE(ok);
  EXPECT_GT(planned, 20u);  // most generated shapes here read mostly padding
}
#endif

}  // namespace
}  // namespace onemodel::opt
