// Fast mode's tap-by-tap convolution (optimized/kernels/conv/conv2d_taps.hpp) against a naive
// double sum written from exact-mode.md "Convolution" (padding taps products with +0): every
// output within k*u*sum|w*x| + 1e-30 of it, the bias and a fused Relu applied once, and the same
// bits at 1 and 2 threads, on every path this machine has. Dilations, strides, uneven pads,
// groups, batches, a plan with no tap covering the whole plane; a NaN input read by a border tap
// only reaches the outputs that read it; and the plans that must be declined (an infinite or NaN
// weight, windows mostly inside the image).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv2d_taps.hpp"
#include "tests/kernels/conv_test_support.hpp"
#include "tests/kernels/two_threads.hpp"

namespace onemodel::opt {
namespace {

using conv_test::bits;
using conv_test::Data;

struct Case : conv_test::Window {
  std::size_t batch = 1, cin = 1, cout = 1, groups = 1;
  bool bias = true;
  bool relu = false;
  Conv2dShape shape() const { return conv_shape(batch, cin, cout, groups); }
  std::string describe() const {
    std::string out;
    const std::pair<const char*, std::size_t> parts[] = {
        {"N", batch}, {" Cin", cin}, {" Cout", cout}, {" G", groups}, {" in", in_h}, {"x", in_w}, {" k", kh},
        {"x", kw},    {" s", sh},    {"x", sw},       {" d", dh},     {"x", dw},     {" pads", pt}, {",", pl},
        {",", pb},    {",", pr},     {" relu", relu ? 1u : 0u}};
    for (const auto& [name, v] : parts) {
      out.append(name);
      out.append(std::to_string(v));
    }
    return out;
  }
};

// The double sum over every tap (padding ones read +0), the bias, and sum |w*x| + |b| for the
// bound; `reads` marks the outputs whose inside taps read input element `watched`.
void naive(const Case& g, const Data& d, std::vector<double>& value, std::vector<double>& magnitude,
           std::size_t watched, std::vector<bool>& reads) {
  const Conv2dShape s = g.shape();
  const std::size_t cg = g.cin / g.groups, mg = g.cout / g.groups;
  for (std::size_t n = 0; n < g.batch; ++n) {
    for (std::size_t oc = 0; oc < g.cout; ++oc) {
      for (std::size_t y = 0; y < s.out_h; ++y) {
        for (std::size_t x = 0; x < s.out_w; ++x) {
          double sum = 0.0, mag = 0.0;
          bool read = false;
          for (std::size_t c = 0; c < cg; ++c) {
            for (std::size_t ky = 0; ky < g.kh; ++ky) {
              for (std::size_t kx = 0; kx < g.kw; ++kx) {
                const long iy = static_cast<long>(y * g.sh + ky * g.dh) - static_cast<long>(g.pt);
                const long ix = static_cast<long>(x * g.sw + kx * g.dw) - static_cast<long>(g.pl);
                if (iy < 0 || iy >= static_cast<long>(g.in_h) || ix < 0 || ix >= static_cast<long>(g.in_w)) continue;
                const std::size_t channel = (oc / mg) * cg + c;
                const std::size_t at = ((n * g.cin + channel) * g.in_h + static_cast<std::size_t>(iy)) * g.in_w +
                                       static_cast<std::size_t>(ix);
                const double product =
                    static_cast<double>(d.w[((oc * cg + c) * g.kh + ky) * g.kw + kx]) * static_cast<double>(d.x[at]);
                sum += product;
                mag += std::fabs(product);
                read = read || at == watched;
              }
            }
          }
          if (g.bias) {
            sum += d.b[oc];
            mag += std::fabs(static_cast<double>(d.b[oc]));
          }
          if (g.relu) sum = std::max(sum, 0.0);
          value.push_back(sum);
          magnitude.push_back(mag);
          reads.push_back(read);
        }
      }
    }
  }
}

std::vector<float> run(const Case& g, const ConvTapPlan& plan, const Data& d, Isa isa, ThreadPool* pool) {
  const Conv2dShape s = g.shape();
  std::vector<float> y(g.batch * g.cout * s.out_plane(), 777.0f);
  std::vector<float> work(plan.workspace_floats + 1, 555.0f);
  const ConvActivation relu = conv_test::store_activation(ew::UnaryOp::Relu, 0.0f, 0.0f, true);
  conv2d_f32_taps(KernelContext{isa, false, pool}, s, plan, d.x.data(), g.bias ? d.b.data() : nullptr, y.data(),
                  work.data(), g.relu ? &relu : nullptr);
  return y;
}

Data operands(const Case& g, std::uint32_t seed) {
  return conv_test::random_data(g.batch * g.cin * g.in_h * g.in_w, g.cout * (g.cin / g.groups) * g.kh * g.kw, g.cout,
                                seed, false, 6);
}

// "" when every path at 1 and 2 threads keeps the bound and the same bits; "no plan" when the
// plan declines the case. With `nan_at` below the input's size, that input is NaN: exactly the
// outputs reading it must be NaN.
std::string check(const Case& g, std::uint32_t seed, std::size_t nan_at = std::numeric_limits<std::size_t>::max()) {
  Data d = operands(g, seed);
  if (nan_at < d.x.size()) d.x[nan_at] = std::numeric_limits<float>::quiet_NaN();
  std::vector<double> value, magnitude;
  std::vector<bool> reads;
  naive(g, d, value, magnitude, nan_at, reads);
  const double u = std::ldexp(1.0, -24);
  const double terms = static_cast<double>((g.cin / g.groups) * g.kh * g.kw + (g.bias ? 1 : 0) + 1);
  ThreadPool one(1), two(2, two_threads::kAlways);
  for (Isa isa : available_isas()) {
    const ConvTapPlan plan = conv2d_plan_taps(isa, g.shape(), d.w.data());
    if (plan.empty()) return "no plan";
    const std::vector<float> y1 = run(g, plan, d, isa, &one);
    const std::vector<float> y2 = run(g, plan, d, isa, &two);
    const std::string where = g.describe() + " isa " + std::string(isa_name(isa));
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (bits(y1[i]) != bits(y2[i])) return where + " element " + std::to_string(i) + " differs between 1 and 2 threads";
      if (reads[i]) {
        // A NaN read by an inside tap (NaN times a finite weight) is NaN whatever follows; a
        // fused Relu keeps it (the Relu kernel passes NaN on).
        if (!std::isnan(y1[i])) return where + " element " + std::to_string(i) + " reads the NaN but is not NaN";
        continue;
      }
      if (!(std::fabs(y1[i] - value[i]) <= terms * u * magnitude[i] + 1e-30)) {
        return where + " element " + std::to_string(i) + " = " + std::to_string(y1[i]) + ", expected " +
               std::to_string(value[i]);
      }
    }
  }
  return "";
}

Case dilated(std::size_t size, std::size_t dilation, std::size_t cin, std::size_t cout) {
  Case g;
  static_cast<conv_test::Window&>(g) = conv_test::dilated_3x3(size, dilation);
  g.cin = cin;
  g.cout = cout;
  return g;
}

TEST(ConvTaps, AsppShapesWithinTheBoundAndThreadInvariant) {
  two_threads::RequireSharedCalls shared("ConvTaps.AsppShapesWithinTheBoundAndThreadInvariant");
  std::uint32_t seed = 1;
  // DeepLabV3's rates on its 14 x 14 map, channels cut (enough output channels for the transposed
  // border products to span several column strips), and rates 3..6 on small maps.
  for (std::size_t dilation : {12u, 24u, 36u}) EXPECT_EQ(check(dilated(14, dilation, 37, 70), seed++), "");
  for (std::size_t dilation = 3; dilation <= 6; ++dilation) {
    Case g = dilated(5, dilation, 7, 13);
    g.relu = dilation % 2 == 0;
    EXPECT_EQ(check(g, seed++), "") << "dilation " << dilation;
  }
}

TEST(ConvTaps, StridesGroupsBatchesUnevenPadsAndNoCoveringTap) {
  two_threads::RequireSharedCalls shared("ConvTaps.StridesGroupsBatchesUnevenPadsAndNoCoveringTap");
  std::uint32_t seed = 100;
  Case grouped = dilated(4, 3, 9, 6);
  grouped.pt = grouped.pl = grouped.pb = grouped.pr = 6;
  grouped.groups = 3;
  grouped.batch = 2;
  EXPECT_EQ(check(grouped, seed++), "");
  Case strided = dilated(9, 4, 5, 3);
  strided.sh = 2;
  strided.sw = 3;
  strided.pt = 9;
  strided.pl = 8;
  strided.pb = 10;
  strided.pr = 11;
  strided.bias = false;
  EXPECT_EQ(check(strided, seed++), "");
  // Pads wider than the kernel reaches: the outputs of the outer rows and columns read the image
  // through no tap (the bias alone), so no tap covers the whole plane and the output is cleared.
  Case beyond = dilated(3, 2, 4, 5);
  beyond.pt = beyond.pl = 7;
  beyond.pb = beyond.pr = 6;
  beyond.relu = true;
  const Data d = operands(beyond, seed);
  const ConvTapPlan plan = conv2d_plan_taps(Isa::Scalar, beyond.shape(), d.w.data());
  ASSERT_FALSE(plan.empty());
  EXPECT_FALSE(plan.first_covers_plane);
  EXPECT_EQ(check(beyond, seed++), "");
}

TEST(ConvTaps, NanInputReachesOnlyTheOutputsReadingIt) {
  two_threads::RequireSharedCalls shared("ConvTaps.NanInputReachesOnlyTheOutputsReadingIt");
  // Rate 12 on 14 x 14: input (13, 0) of channel 2 is read by the centre tap of output (13, 0) and
  // by border taps of outputs (1, 0), (13, 12) and (1, 12) -- the transposed products.
  const Case g = dilated(14, 12, 5, 40);
  EXPECT_EQ(check(g, 31, (2 * 14 + 13) * 14 + 0), "");
  // And a corner input, read by the corner taps.
  EXPECT_EQ(check(g, 32, (0 * 14 + 13) * 14 + 13), "");
}

TEST(ConvTaps, PlanDeclinesNonFiniteWeightsAndMostlyInsideWindows) {
  const Case g = dilated(5, 4, 3, 2);
  const Data d = operands(g, 7);
  EXPECT_FALSE(conv2d_plan_taps(Isa::Scalar, g.shape(), d.w.data()).empty());
  // An infinite or NaN weight times a padding +0 is NaN, which leaving the tap out would lose.
  for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    Data b = d;
    b.w[b.w.size() / 2] = bad;
    EXPECT_TRUE(conv2d_plan_taps(Isa::Scalar, g.shape(), b.w.data()).empty());
  }
  // A 3x3 with pad 1 on 16 x 16 reads padding at its border only: the im2col product stays.
  const Case inside = dilated(16, 1, 3, 2);
  EXPECT_TRUE(conv2d_plan_taps(Isa::Scalar, inside.shape(), operands(inside, 8).w.data()).empty());
  // wav2vec2's positional convolution, channels cut: 128 taps, 64 of padding on either side of 49
  // frames, 16 groups: hundreds of tiny products, declined (the regions or im2col serve it).
  Case positional;
  positional.cin = positional.cout = 32;
  positional.groups = 16;
  positional.in_h = 1;
  positional.in_w = 49;
  positional.kh = 1;
  positional.kw = 128;
  positional.pl = positional.pr = 64;
  EXPECT_TRUE(conv2d_plan_taps(Isa::Scalar, positional.shape(), operands(positional, 10).w.data()).empty());
  // Rate 24 on 14 x 14: the centre tap alone, covering the plane.
  const Case aspp = dilated(14, 24, 2, 2);
  const ConvTapPlan plan = conv2d_plan_taps(Isa::Scalar, aspp.shape(), operands(aspp, 9).w.data());
  ASSERT_EQ(plan.taps.size(), 1u);
  EXPECT_TRUE(plan.first_covers_plane);
  EXPECT_EQ(plan.taps[0].ky, 1u);
  EXPECT_EQ(plan.taps[0].kx, 1u);
}

}  // namespace
}  // namespace onemodel::opt
